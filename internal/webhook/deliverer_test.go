package webhook_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// quiet drops the deliverer's log of failures, which these tests cause on purpose.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// clock is a settable clock shared by the database and the deliverer.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

const account = `{"accounts":[{"id":1,"name":"One","api_username":"one","timezone":"UTC"}],
	"storefronts":[{"id":10,"account_id":1,"name":"Ten","download_limit":0,"download_days":0,"currency":"USD"}]}`

func purchaseJSON(id int64, status, tracking string) string {
	return fmt.Sprintf(`{"purchases":[{"id":%d,"created_at":1700000000,"updated_at":1700000000,"storefront_id":10,"salt":"s","status":"%s",`+
		`"currency":"USD","subtotal":"10.00","discount":"0.00","tax":"0.00","shipping":"0.00","total":"10.00","customer":null,`+
		`"buyer_email":"ann@example.com","shipping_tracking_number":%q,`+
		`"custom_fields":[],"requires_shipping":false,"line_items":[{"id":%d,"purchase_id":%d,"product_id":900,"price":"5.00",`+
		`"quantity":2,"subtotal":"10.00","tax":"0.00","discount":"0.00","total":"10.00","product_name":"P","download_limit":0,`+
		`"download_count":0,"expires_at":null,"product_keys":[],"has_all_keys":true}],"coupons":[],"marketing_optin":false,`+
		`"transactions":[]}]}`, id, status, tracking, id*10, id)
}

// setup returns a database with account 1 and storefront 10 on a settable clock, whose
// endpoints may be on loopback.
func setup(t *testing.T) (*mysql.DB, *clock) {
	t.Helper()
	db := dbtest.New(t)
	clk := &clock{t: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
	db.Now = clk.Now
	db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	importDoc(t, db, account)
	return db, clk
}

func importDoc(t *testing.T, db *mysql.DB, doc string) {
	t.Helper()
	if _, err := importer.Run(context.Background(), db, strings.NewReader(doc), io.Discard); err != nil {
		t.Fatalf("import: %v", err)
	}
}

func deliverer(db *mysql.DB, clk *clock, opt webhook.Options) *webhook.Deliverer {
	if clk != nil {
		opt.Now = clk.Now
	}
	if opt.Guard == nil {
		opt.Guard = &webhook.Guard{AllowPrivate: true}
	}
	opt.Log = quiet
	return webhook.NewDeliverer(mysql.NewWebhookDeliveryStore(db), opt)
}

func deliverDue(t *testing.T, d *webhook.Deliverer) int {
	t.Helper()
	n, err := d.DeliverDue(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// delivery is a webhook_deliveries row.
type delivery struct {
	status   string
	attempts int
	next     time.Time
	lastErr  string
}

func deliveries(t *testing.T, db *mysql.DB) map[int64]delivery {
	t.Helper()
	type row struct {
		id int64
		delivery
	}
	out := map[int64]delivery{}
	for _, r := range dbtest.Query(t, db.DB, func(rows *sql.Rows) (r row, err error) {
		err = rows.Scan(&r.id, &r.status, &r.attempts, &r.next, &r.lastErr)
		return r, err
	}, "SELECT id, status, attempts, next_attempt_at, COALESCE(last_error, '') FROM webhook_deliveries WHERE account_id = 1") {
		out[r.id] = r.delivery
	}
	return out
}

func only(t *testing.T, db *mysql.DB) delivery {
	t.Helper()
	ds := deliveries(t, db)
	if len(ds) != 1 {
		t.Fatalf("got %d deliveries, want 1", len(ds))
	}
	for _, d := range ds {
		return d
	}
	panic("unreachable")
}

func TestDeliverer_EventTypes(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, "http://127.0.0.1:1/placeholder", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q does not start with whsec_", secret)
	}
	rcv := newReceiver(t, secret)
	if _, err := db.ExecContext(ctx, "UPDATE webhook_endpoints SET url = ? WHERE account_id = 1 AND id = ?", rcv.url(), ep.ID); err != nil {
		t.Fatal(err)
	}
	importDoc(t, db, purchaseJSON(1, "PND", "A"))
	importDoc(t, db, purchaseJSON(1, "PND", "B"))
	importDoc(t, db, `{"subscribers":[{"id":7,"storefront_id":10,"created_at":1,"updated_at":1,"username":"s@example.com","last_login_at":null,`+
		`"subscription":{"id":70,"status":"PAST_DUE","price":"1.00","period":1,"unit":"M","tax_amount":"0.00","created_at":1,"updated_at":1,"next_payment_at":1}}]}`)
	if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: 1, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if n, err := db.ClosePastDue(ctx); err != nil || n != 1 {
		t.Fatalf("close past due: %d, %v", n, err)
	}
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	if n := deliverDue(t, deliverer(db, clk, webhook.Options{})); n != 6 {
		t.Fatalf("delivered %d, want 6", n)
	}
	events, total := rcv.accepted()
	if events != 6 || total != 6 {
		t.Fatalf("receiver accepted %d events %d times, want 6 once each", events, total)
	}
	count := map[string]int{}
	rcv.mu.Lock()
	for id, typ := range rcv.types {
		count[typ]++
		var stored []byte
		if err := db.QueryRow("SELECT body FROM webhook_events WHERE account_id = 1 AND event_id = ?", id).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(stored, rcv.bodies[id]) {
			t.Errorf("event %s: delivered %s, stored %s", id, rcv.bodies[id], stored)
		}
	}
	rcv.mu.Unlock()
	want := map[string]int{shop.EventPurchaseCreated: 1, shop.EventPurchaseUpdated: 1, shop.EventPurchaseReactivated: 1, shop.EventSubscriptionUpdated: 2, shop.EventTest: 1}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Fatalf("types: got %v, want %v", count, want)
	}
	// The log keeps each attempt with its request and the response.
	log, err := mysql.NewWebhookService(db).FindWebhookDeliveries(ctx, 1, ep.ID, 50)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range log {
		if d.Status != "delivered" || len(d.Log) != 1 || d.Log[0].StatusCode == nil || *d.Log[0].StatusCode != 200 ||
			d.Log[0].ResponseBody != "ok\n" || !strings.Contains(d.Log[0].RequestHeaders, "Storefront-Signature: t=") {
			t.Errorf("delivery %d: %+v", d.ID, d)
		}
	}
}

func TestDeliverer_RetriesAfter500(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rcv.set(func(r *receiver) { r.secrets, r.fail, r.status = []string{secret}, 2, 500 })
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	d := deliverer(db, clk, webhook.Options{})
	start := clk.Now()
	if n := deliverDue(t, d); n != 0 {
		t.Fatalf("delivered %d on a 500", n)
	}
	got := only(t, db)
	if got.status != "queued" || got.attempts != 1 || got.next.Before(start.Add(5*time.Second)) || got.next.After(start.Add(15*time.Second)) {
		t.Fatalf("after the first 500: %+v, want queued again 5-15 s later", got)
	}
	if n := deliverDue(t, d); n != 0 || rcv.requests != 1 {
		t.Fatalf("a delivery was retried before its time: %d requests", rcv.requests)
	}
	clk.Add(15 * time.Second)
	deliverDue(t, d)
	second := only(t, db)
	if second.attempts != 2 || second.status != "queued" || second.next.Sub(clk.Now()) < 10*time.Second || second.next.Sub(clk.Now()) > 30*time.Second {
		t.Fatalf("after the second 500: %+v, want a wait of 10-30 s", second)
	}
	clk.Add(30 * time.Second)
	if n := deliverDue(t, d); n != 1 {
		t.Fatalf("third attempt delivered %d, want 1", n)
	}
	if got := only(t, db); got.status != "delivered" || got.attempts != 3 {
		t.Fatalf("after the 200: %+v", got)
	}
	if events, total := rcv.accepted(); events != 1 || total != 1 {
		t.Fatalf("accepted %d events %d times", events, total)
	}
	log, err := mysql.NewWebhookService(db).FindWebhookDeliveries(ctx, 1, ep.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var codes []int
	for _, a := range log[0].Log {
		codes = append(codes, *a.StatusCode)
	}
	if fmt.Sprint(codes) != "[200 500 500]" {
		t.Fatalf("attempt log, newest first: %v", codes)
	}
	if !strings.Contains(log[0].Log[1].ResponseBody, "failing on purpose") {
		t.Fatalf("the 500's body was not kept: %q", log[0].Log[1].ResponseBody)
	}
}

func TestDeliverer_RetriesAfterTimeout(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The receiver answers after the deliverer gave up waiting.
	rcv.set(func(r *receiver) {
		r.secrets, r.fail, r.status, r.delay = []string{secret}, 1, 503, 600*time.Millisecond
	})
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	d := deliverer(db, clk, webhook.Options{Timeout: 150 * time.Millisecond})
	if n := deliverDue(t, d); n != 0 {
		t.Fatalf("delivered %d past the timeout", n)
	}
	if got := only(t, db); got.status != "queued" || !strings.Contains(got.lastErr, "timed out") {
		t.Fatalf("after the timeout: %+v", got)
	}
	rcv.set(func(r *receiver) { r.delay = 0 })
	clk.Add(15 * time.Second)
	if n := deliverDue(t, d); n != 1 {
		t.Fatalf("retry delivered %d, want 1", n)
	}
	if events, total := rcv.accepted(); events != 1 || total != 1 {
		t.Fatalf("accepted %d events %d times", events, total)
	}
}

func TestDeliverer_ReceiverDownThenBack(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rcv.set(func(r *receiver) { r.secrets = []string{secret} })
	const n = 20
	for range n {
		if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
			t.Fatal(err)
		}
	}
	rcv.stop()
	d := deliverer(db, clk, webhook.Options{})
	if got := deliverDue(t, d); got != 0 {
		t.Fatalf("delivered %d to a receiver that is down", got)
	}
	for id, dl := range deliveries(t, db) {
		if dl.status != "queued" || dl.attempts != 1 || dl.lastErr == "" {
			t.Fatalf("delivery %d while down: %+v", id, dl)
		}
	}
	rcv.restart()
	clk.Add(15 * time.Second)
	if got := deliverDue(t, d); got != n {
		t.Fatalf("delivered %d once back, want %d", got, n)
	}
	if events, total := rcv.accepted(); events != n || total != n {
		t.Fatalf("accepted %d events %d times, want %d once each", events, total, n)
	}
	for id, dl := range deliveries(t, db) {
		if dl.status != "delivered" || dl.attempts != 2 {
			t.Fatalf("delivery %d: %+v", id, dl)
		}
	}
}

func TestDeliverer_Rotation(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	ep, oldSecret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	newSecret, err := mysql.NewWebhookService(db).RotateWebhookSecret(ctx, 1, ep.ID)
	if err != nil || newSecret == oldSecret || !strings.HasPrefix(newSecret, "whsec_") {
		t.Fatalf("rotate: %q, %v", newSecret, err)
	}
	d := deliverer(db, clk, webhook.Options{})
	// During the rotation, both signatures come, and a receiver that knows either
	// secret alone accepts.
	for _, known := range []string{oldSecret, newSecret} {
		rcv.set(func(r *receiver) { r.secrets, r.wantV1 = []string{known}, 2 })
		if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
			t.Fatal(err)
		}
		if n := deliverDue(t, d); n != 1 {
			t.Fatalf("during rotation, a receiver knowing one secret accepted %d", n)
		}
	}
	// A day later the old secret signs no more.
	clk.Add(24*time.Hour + time.Second)
	rcv.set(func(r *receiver) { r.secrets, r.wantV1 = []string{newSecret}, 1 })
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	if n := deliverDue(t, d); n != 1 {
		t.Fatalf("after the rotation, delivered %d", n)
	}
	rcv.accepted()
	rcv.set(func(r *receiver) { r.secrets, r.wantV1 = []string{oldSecret}, 0 })
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	if n := deliverDue(t, d); n != 0 {
		t.Fatalf("a receiver knowing only the retired secret accepted %d", n)
	}
}

func TestDeliverer_GivesUpAndDisables(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	if _, err := mysql.NewAdminService(db).CreateUser(ctx, 1, "owner@example.com", shop.RoleOwner, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if _, err := mysql.NewAdminService(db).CreateUser(ctx, 1, "staff@example.com", shop.RoleStaff, "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	rcv := newReceiver(t)
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rcv.set(func(r *receiver) { r.secrets, r.fail, r.status = []string{secret}, 1<<30, 503 })
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	start := clk.Now()
	d := deliverer(db, clk, webhook.Options{})
	var last time.Time
	for i := 0; ; i++ {
		deliverDue(t, d)
		got := only(t, db)
		if got.status == "failed" {
			break
		}
		if i > 60 {
			t.Fatalf("still %s after %d attempts", got.status, got.attempts)
		}
		if wait := got.next.Sub(clk.Now()); wait > 6*time.Hour {
			t.Fatalf("attempt %d waits %v, more than 6 hours", got.attempts, wait)
		}
		last = got.next
		clk.Add(got.next.Sub(clk.Now()))
	}
	if last.Sub(start) > 72*time.Hour || last.Sub(start) < 66*time.Hour {
		t.Fatalf("the last attempt was %v after the event; want within 3 days, and within 6 hours of them", last.Sub(start))
	}
	e, err := mysql.NewWebhookService(db).FindWebhookEndpoint(ctx, 1, ep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Enabled || e.DisabledReason == "" {
		t.Fatalf("after 3 days of failures the endpoint is %+v, want disabled with a reason", e)
	}
	var to []string
	rows, err := db.Query("SELECT to_address, facts FROM email_outbox WHERE account_id = 1 AND kind = 'webhook_disabled'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a, facts string
		rows.Scan(&a, &facts)
		to = append(to, a)
		// What internal/mail writes the e-mail from when it sends it.
		want, _ := json.Marshal(shop.EmailFacts{EndpointID: ep.ID, EndpointURL: e.URL, Reason: e.DisabledReason})
		if facts != string(want) {
			t.Errorf("facts of the e-mail: got %s, want %s", facts, want)
		}
	}
	rows.Close()
	if fmt.Sprint(to) != "[owner@example.com]" {
		t.Fatalf("disabled-endpoint e-mail went to %v, want the owner alone", to)
	}
	// A disabled endpoint takes no new events.
	importDoc(t, db, purchaseJSON(5, "ACT", "X"))
	if n := len(deliveries(t, db)); n != 1 {
		t.Fatalf("a disabled endpoint got %d deliveries", n)
	}
}

func TestDeliverer_ResendIsTheSameEvent(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rcv.set(func(r *receiver) { r.secrets = []string{secret} })
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	d := deliverer(db, clk, webhook.Options{})
	deliverDue(t, d)
	log, err := mysql.NewWebhookService(db).FindWebhookDeliveries(ctx, 1, ep.ID, 10)
	if err != nil || len(log) != 1 {
		t.Fatalf("deliveries: %v, %v", log, err)
	}
	if err := mysql.NewWebhookService(db).ResendWebhookDelivery(ctx, 1, log[0].ID); err != nil {
		t.Fatal(err)
	}
	if n := deliverDue(t, d); n != 1 {
		t.Fatalf("resend delivered %d", n)
	}
	if events, total := rcv.accepted(); events != 1 || total != 2 {
		t.Fatalf("accepted %d events %d times, want one event twice", events, total)
	}
	if err := mysql.NewWebhookService(db).ResendWebhookDelivery(ctx, 2, log[0].ID); shop.ErrorCode(err) != shop.ENotFound {
		t.Fatalf("resend from another account: got %v, want not found", err)
	}
}

func TestGuard_RefusesPrivateAddresses(t *testing.T) {
	ctx := context.Background()
	rcv := newReceiver(t)
	_, port, _ := net.SplitHostPort(rcv.addr)
	strict := &webhook.Guard{}
	t.Run("WhenSaved", func(t *testing.T) {
		for _, u := range []string{
			"http://127.0.0.1:" + port + "/hooks",
			"http://10.1.2.3/hooks",
			"https://169.254.169.254/latest/meta-data",
			"http://[::1]:" + port + "/",
			"http://localhost:" + port + "/",
			"http://192.168.0.10/",
			"http://[fd00::1]/",
			"http://0.0.0.0/",
			"ftp://example.com/",
			"http://user:pw@example.com/",
			"not a url",
		} {
			err := strict.CheckURL(ctx, u)
			if shop.ErrorCode(err) != shop.EInvalid || shop.ErrorParam(err) != "url" {
				t.Errorf("%s: got %v, want an invalid url", u, err)
			}
		}
		if err := (&webhook.Guard{AllowPrivate: true}).CheckURL(ctx, rcv.url()); err != nil {
			t.Errorf("with private addresses allowed: %v", err)
		}
		db := dbtest.New(t)
		importDoc(t, db, account)
		if _, _, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil); shop.ErrorCode(err) != shop.EInvalid {
			t.Errorf("saving a loopback endpoint by default: got %v, want invalid", err)
		}
	})
	t.Run("WhenConnecting", func(t *testing.T) {
		dial := strict.Dialer()
		for _, addr := range []string{rcv.addr, "10.0.0.1:80", "169.254.169.254:80", "[::1]:" + port, "localhost:" + port} {
			c, err := dial.DialContext(ctx, "tcp", addr)
			if err == nil {
				c.Close()
			}
			if !errors.Is(err, webhook.ErrForbiddenAddress) {
				t.Errorf("dial %s: got %v, want it refused", addr, err)
			}
		}
		// An endpoint saved while allowed (or whose name resolved elsewhere then) is
		// refused at each connection by a deliverer that does not allow it.
		db, clk := setup(t)
		for _, u := range []string{rcv.url(), "http://localhost:" + port + "/hooks"} {
			ep, _, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
				t.Fatal(err)
			}
		}
		d := webhook.NewDeliverer(mysql.NewWebhookDeliveryStore(db), webhook.Options{Now: clk.Now, Log: quiet})
		if n := deliverDue(t, d); n != 0 {
			t.Fatalf("delivered %d to loopback", n)
		}
		for id, dl := range deliveries(t, db) {
			if !strings.Contains(dl.lastErr, "refused") || !strings.Contains(dl.lastErr, "loopback") {
				t.Errorf("delivery %d: error %q, want a refusal naming loopback", id, dl.lastErr)
			}
		}
		if rcv.requests != 0 {
			t.Fatalf("the receiver on loopback got %d requests", rcv.requests)
		}
	})
}

func TestDeliverer_ThreeInstances(t *testing.T) {
	dsn := dbtest.DSN(t)
	ctx := context.Background()
	open := func() *mysql.DB {
		db, err := mysql.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
		return db
	}
	db := open()
	importDoc(t, db, account)
	rcv := newReceiver(t)
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, rcv.url(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rcv.set(func(r *receiver) { r.secrets = []string{secret} })
	const n = 300
	for range n {
		if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	by := make([]int, 3)
	for i := range 3 {
		d := deliverer(open(), nil, webhook.Options{BatchSize: 8, Workers: 4})
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := d.DeliverDue(ctx)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			by[i] = k
			mu.Unlock()
		}()
	}
	wg.Wait()
	if events, total := rcv.accepted(); events != n || total != n {
		t.Fatalf("accepted %d events %d times, want %d once each", events, total, n)
	}
	var attempts int
	if err := db.QueryRow("SELECT COUNT(*) FROM webhook_attempts WHERE account_id = 1").Scan(&attempts); err != nil || attempts != n {
		t.Fatalf("%d attempts logged (%v), want %d", attempts, err, n)
	}
	if by[0]+by[1]+by[2] != n {
		t.Fatalf("instances delivered %v, want %d in all", by, n)
	}
	t.Logf("instances delivered %v", by)
	var stuck int
	db.QueryRow("SELECT COUNT(*) FROM webhook_deliveries WHERE account_id = 1 AND status <> 'delivered'").Scan(&stuck)
	if stuck != 0 {
		t.Fatalf("%d deliveries not delivered", stuck)
	}
}
