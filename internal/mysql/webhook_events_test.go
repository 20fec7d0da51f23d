package mysql_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// event is a row of webhook_events with its deliveries' endpoints.
type event struct {
	account   int64
	id, typ   string
	body      webhook.Event
	endpoints []int64
}

// eventsSince returns the events not in seen, and adds them to it; it fails on an
// event without a delivery or a delivery without its event.
func eventsSince(t *testing.T, db *mysql.DB, seen map[string]bool) []event {
	t.Helper()
	type row struct {
		event
		body []byte
		eps  *string
	}
	var all []event
	for _, r := range dbtest.Query(t, db.DB, func(rows *sql.Rows) (r row, err error) {
		err = rows.Scan(&r.account, &r.id, &r.typ, &r.body, &r.eps)
		return r, err
	}, `SELECT e.account_id, e.event_id, e.type, e.body,
		(SELECT GROUP_CONCAT(d.endpoint_id ORDER BY d.endpoint_id) FROM webhook_deliveries d WHERE d.account_id = e.account_id AND d.event_id = e.event_id)
		FROM webhook_events e ORDER BY e.created_at, e.event_id`) {
		e, eps := r.event, r.eps
		if err := json.Unmarshal(r.body, &e.body); err != nil {
			t.Fatalf("event %s: %v", e.id, err)
		}
		if e.body.ID != e.id || e.body.Type != e.typ || e.body.AccountID != e.account {
			t.Fatalf("event %s: body says id %s, type %s, account %d", e.id, e.body.ID, e.body.Type, e.body.AccountID)
		}
		if eps == nil {
			t.Fatalf("event %s (%s) has no delivery", e.id, e.typ)
		}
		for _, s := range strings.Split(*eps, ",") {
			var n int64
			fmt.Sscan(s, &n)
			e.endpoints = append(e.endpoints, n)
		}
		all = append(all, e)
	}
	var orphans int
	db.QueryRow(`SELECT COUNT(*) FROM webhook_deliveries d LEFT JOIN webhook_events e ON e.account_id = d.account_id AND e.event_id = d.event_id
		WHERE e.event_id IS NULL`).Scan(&orphans)
	if orphans != 0 {
		t.Fatalf("%d deliveries without their event", orphans)
	}
	var out []event
	for _, e := range all {
		if !seen[e.id] {
			seen[e.id] = true
			out = append(out, e)
		}
	}
	return out
}

func types(es []event) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.typ)
	}
	slices.Sort(out)
	return out
}

func TestWebhookEvents_SameTransaction(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	if got := eventsSince(t, db, map[string]bool{}); len(got) != 0 {
		t.Fatalf("an import without endpoints wrote %d events, want 0", len(got))
	}
	all, _, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, f.id(1), "http://127.0.0.1:9/all", nil)
	if err != nil {
		t.Fatal(err)
	}
	reactOnly, _, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, f.id(1), "http://127.0.0.1:9/react", []string{shop.EventPurchaseReactivated})
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, f.id(2), "http://127.0.0.1:9/two", nil)
	if err != nil {
		t.Fatal(err)
	}
	run := func(doc []byte) {
		t.Helper()
		if _, err := importer.Run(ctx, db, bytes.NewReader(doc), nil); err != nil {
			t.Fatalf("import: %v", err)
		}
	}
	seen := map[string]bool{}

	t.Run("ReimportUnchanged", func(t *testing.T) {
		run(f.document())
		if got := eventsSince(t, db, seen); len(got) != 0 {
			t.Fatalf("a re-import that changes nothing wrote %v", types(got))
		}
	})

	t.Run("ImportCreatedAndUpdated", func(t *testing.T) {
		var changed *shop.Purchase
		for _, p := range f.purchases {
			if p.AccountID == f.id(1) {
				changed = p
				break
			}
		}
		changed.ShippingTrackingNumber = strp("TRACK-1")
		fresh := *changed
		fresh.ID, fresh.Salt = f.id(99001), "fresh"
		fresh.LineItems = []shop.LineItem{changed.LineItems[0]}
		fresh.LineItems[0].ID, fresh.LineItems[0].PurchaseID = f.id(990011), f.id(99001)
		f.purchases = append(f.purchases, &fresh)
		run(f.document())
		got := eventsSince(t, db, seen)
		if want := []string{shop.EventPurchaseCreated, shop.EventPurchaseUpdated}; !slices.Equal(types(got), want) {
			t.Fatalf("events: got %v, want %v", types(got), want)
		}
		for _, e := range got {
			want := changed.ID
			if e.typ == shop.EventPurchaseCreated {
				want = fresh.ID
			}
			doc, _, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, f.id(1), want, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(e.body.Data.Object, doc) {
				t.Errorf("%s: data.object\n got %s\nwant %s", e.typ, e.body.Data.Object, doc)
			}
			if !slices.Equal(e.endpoints, []int64{all.ID}) {
				t.Errorf("%s: delivered to %v, want only %d", e.typ, e.endpoints, all.ID)
			}
		}
	})

	subDoc := func(status, next string) []byte {
		return fmt.Appendf(nil, `{"subscribers":[{"id":%d,"storefront_id":%d,"created_at":1,"updated_at":1,"username":"Sub@Example.com","last_login_at":null,`+
			`"subscription":{"id":%d,"status":"%s","price":"1.00","period":1,"unit":"M","tax_amount":"0.00","created_at":1,"updated_at":1,"next_payment_at":%s}}]}`,
			f.id(710), f.id(10), f.id(9000), status, next)
	}
	checkSubscriber := func(t *testing.T, e event, status shop.SubscriptionStatus) {
		t.Helper()
		sub, err := mysql.NewSubscriberService(db).FindSubscriberByID(ctx, f.id(1), f.id(10), f.id(710))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(sub)
		if !bytes.Equal(e.body.Data.Object, want) {
			t.Errorf("data.object\n got %s\nwant %s", e.body.Data.Object, want)
		}
		if sub.Subscription == nil || sub.Subscription.Status != status {
			t.Errorf("subscription: got %+v, want status %s", sub.Subscription, status)
		}
	}

	t.Run("ImportSubscriptionStatus", func(t *testing.T) {
		run(subDoc("ACTIVE", "null"))
		got := eventsSince(t, db, seen)
		if len(got) != 1 || got[0].typ != shop.EventSubscriptionUpdated {
			t.Fatalf("events: got %v, want one subscription.updated", types(got))
		}
		checkSubscriber(t, got[0], shop.SubscriptionActive)
		run(subDoc("ACTIVE", "null"))
		if got := eventsSince(t, db, seen); len(got) != 0 {
			t.Fatalf("the same status again wrote %v", types(got))
		}
		run(subDoc("PAST_DUE", "1"))
		got = eventsSince(t, db, seen)
		if len(got) != 1 {
			t.Fatalf("events: got %v, want one subscription.updated", types(got))
		}
		checkSubscriber(t, got[0], shop.SubscriptionPastDue)
	})

	t.Run("PastDueSweeper", func(t *testing.T) {
		n, err := db.ClosePastDue(ctx)
		if err != nil || n != 1 {
			t.Fatalf("closed %d, %v; want 1", n, err)
		}
		got := eventsSince(t, db, seen)
		if len(got) != 1 || got[0].typ != shop.EventSubscriptionUpdated {
			t.Fatalf("events: got %v, want one subscription.updated", types(got))
		}
		checkSubscriber(t, got[0], shop.SubscriptionClosed)
	})

	t.Run("Reactivation", func(t *testing.T) {
		var ok, refused *shop.Purchase
		for _, p := range f.purchases {
			if p.AccountID != f.id(1) || p.BuyerEmail == nil || !shop.ValidEmail(*p.BuyerEmail) {
				continue
			}
			if ok == nil && p.Status.Reactivatable() {
				ok = p
			}
			if refused == nil && !p.Status.Reactivatable() {
				refused = p
			}
		}
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: refused.ID, Actor: "test"}); shop.ErrorCode(err) != shop.EConflict {
			t.Fatalf("reactivate %s purchase: got %v, want a conflict", refused.Status, err)
		}
		if got := eventsSince(t, db, seen); len(got) != 0 {
			t.Fatalf("a refused reactivation wrote %v", types(got))
		}
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: ok.ID, Actor: "test", IdempotencyKey: "k1"}); err != nil {
			t.Fatal(err)
		}
		// The idempotent repeat changes nothing, and so writes nothing.
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: ok.ID, Actor: "test", IdempotencyKey: "k1"}); err != nil {
			t.Fatal(err)
		}
		got := eventsSince(t, db, seen)
		if len(got) != 1 || got[0].typ != shop.EventPurchaseReactivated {
			t.Fatalf("events: got %v, want one purchase.reactivated", types(got))
		}
		doc, _, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, f.id(1), ok.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[0].body.Data.Object, doc) {
			t.Errorf("data.object\n got %s\nwant %s", got[0].body.Data.Object, doc)
		}
		if want := []int64{all.ID, reactOnly.ID}; !slices.Equal(got[0].endpoints, want) {
			t.Errorf("delivered to %v, want %v", got[0].endpoints, want)
		}
	})

	t.Run("OtherAccountUntouched", func(t *testing.T) {
		var n int
		db.QueryRow("SELECT COUNT(*) FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ?", f.id(2), other.ID).Scan(&n)
		if n != 0 {
			t.Fatalf("account 2's endpoint got %d deliveries of account 1's changes", n)
		}
	})

	t.Run("DisabledEndpointGetsNone", func(t *testing.T) {
		if err := mysql.NewWebhookService(db).SetWebhookEndpointEnabled(ctx, f.id(1), all.ID, false); err != nil {
			t.Fatal(err)
		}
		if err := mysql.NewWebhookService(db).SetWebhookEndpointEnabled(ctx, f.id(1), reactOnly.ID, false); err != nil {
			t.Fatal(err)
		}
		f.purchases[0].ShippingTrackingNumber = strp("TRACK-2")
		run(f.document())
		if got := eventsSince(t, db, seen); len(got) != 0 {
			t.Fatalf("an account whose endpoints are disabled got %v", types(got))
		}
	})

	t.Run("SeedWritesNone", func(t *testing.T) {
		if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 50, Subscribers: 10, Seed: 3, Now: time.Now(), IDBase: f.base}, nil); err != nil {
			t.Fatal(err)
		}
		if got := eventsSince(t, db, seen); len(got) != 0 {
			t.Fatalf("a seed wrote %v", types(got))
		}
	})
}
