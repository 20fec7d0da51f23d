package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// webhookReceiver is an endpoint on this machine for webhook deliveries: it counts
// them and answers each 200 "thanks".
func webhookReceiver(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	received := new(atomic.Int64)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		received.Add(1)
		fmt.Fprint(w, "thanks")
	}))
	t.Cleanup(rcv.Close)
	return rcv, received
}

// deliverDue runs a webhook deliverer over the test database once, private addresses
// allowed, and returns how many deliveries it made.
func deliverDue(e *apiEnv) (int, error) {
	d := webhook.NewDeliverer(mysql.NewWebhookDeliveryStore(e.db), webhook.Options{Now: e.clock.now, Guard: &webhook.Guard{AllowPrivate: true},
		Log: serverLog})
	return d.DeliverDue(context.Background())
}

func TestWebhooksPage(t *testing.T) {
	e := newAPI(t, 0)
	owner := e.signIn(e.id(1), "owner")
	rcv, received := webhookReceiver(t)
	deliver := func() {
		t.Helper()
		if _, err := deliverDue(e); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("OwnersOnly", func(t *testing.T) {
		for _, role := range []string{"staff", "viewer"} {
			u := e.signIn(e.id(1), role)
			if r := u.get("/webhooks", false); r.status != http.StatusForbidden {
				t.Errorf("%s: GET /webhooks got %d, want 403", role, r.status)
			}
			if r := u.post("/webhooks", url.Values{"url": {rcv.URL}}); r.status != http.StatusForbidden {
				t.Errorf("%s: POST /webhooks got %d, want 403", role, r.status)
			}
			if p := subsParse(t, u.get("/purchases", false)); len(p.all("a", "href=/webhooks")) != 0 {
				t.Errorf("%s sees a link to the Webhooks page", role)
			}
		}
		if p := subsParse(t, owner.get("/purchases", false)); len(p.all("a", "href=/webhooks")) != 1 {
			t.Error("the owner has no link to the Webhooks page")
		}
	})

	t.Run("RefusedURLs", func(t *testing.T) {
		for _, tc := range []struct{ url, want string }{
			{rcv.URL + "/hooks", "loopback"},
			{"http://10.0.0.7/hooks", "private"},
			{"http://169.254.169.254/latest", "link-local"},
			{"ftp://example.com/", "https:// or http://"},
			{"", "Enter the URL"},
		} {
			r := owner.post("/webhooks", url.Values{"url": {tc.url}})
			if r.status != http.StatusBadRequest {
				t.Errorf("%q: got %d, want 400", tc.url, r.status)
				continue
			}
			if msg := blockText(subsParse(t, r).byID("webhook-url-error")); !strings.Contains(msg, tc.want) {
				t.Errorf("%q: message %q, want it to say %q", tc.url, msg, tc.want)
			}
		}
		r := owner.post("/webhooks", url.Values{"url": {"https://example.com/hooks"}, "events": {"purchase.deleted"}})
		if r.status != http.StatusBadRequest || !strings.Contains(blockText(subsParse(t, r).byID("webhook-events-error")), "purchase.deleted") {
			t.Errorf("unknown event type: got %d", r.status)
		}
		if n := e.count("SELECT COUNT(*) FROM webhook_endpoints WHERE account_id IN (?, ?)", e.id(1), e.id(2)); n != 0 {
			t.Fatalf("%d endpoints saved from refused forms", n)
		}
	})

	e.db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	var base, secret string
	t.Run("Add", func(t *testing.T) {
		r := owner.post("/webhooks", url.Values{"url": {rcv.URL + "/hooks"}})
		if r.status != http.StatusOK {
			t.Fatalf("got %d: %s", r.status, r.body)
		}
		p := subsParse(t, r)
		secret = regexp.MustCompile(`whsec_[0-9a-f]{64}`).FindString(blockText(p.byID("new-secret")))
		if secret == "" {
			t.Fatalf("no secret shown: %q", blockText(p.byID("new-secret")))
		}
		links := p.all("a", "href=")
		for _, a := range links {
			if h, _ := subsAttr(a, "href"); regexp.MustCompile(`^/webhooks/\d+$`).MatchString(h) {
				base = h
			}
		}
		if base == "" {
			t.Fatal("no link to the endpoint's page")
		}
		if again := owner.get("/webhooks", false); strings.Contains(string(again.body), secret) {
			t.Fatal("the secret is shown again")
		}
	})

	t.Run("TestEventAndResend", func(t *testing.T) {
		if r := owner.get(base, false); r.status != 200 || !strings.Contains(blockText(subsParse(t, r).byID("deliveries")), "No deliveries yet") {
			t.Fatalf("endpoint page: %d", r.status)
		}
		if r := owner.post(base+"/test", nil); r.status != http.StatusSeeOther {
			t.Fatalf("send test event: %d %s", r.status, r.body)
		}
		deliver()
		p := subsParse(t, owner.get(base, false))
		text := blockText(p.byID("deliveries"))
		for _, want := range []string{"webhook.test", "delivered", "200", "Storefront-Signature: t=", "thanks"} {
			if !strings.Contains(text, want) {
				t.Errorf("deliveries lack %q: %s", want, text)
			}
		}
		forms := p.all("form", "method=post")
		var resend string
		for _, f := range forms {
			if a, _ := subsAttr(f, "action"); strings.HasSuffix(a, "/resend") {
				resend = a
			}
		}
		if resend == "" {
			t.Fatal("no Resend button")
		}
		if r := owner.post(resend, nil); r.status != http.StatusSeeOther {
			t.Fatalf("resend: %d %s", r.status, r.body)
		}
		deliver()
		if n := received.Load(); n != 2 {
			t.Fatalf("the receiver got %d requests, want 2", n)
		}
	})

	t.Run("Rotate", func(t *testing.T) {
		r := owner.post(base+"/rotate", nil)
		if r.status != 200 {
			t.Fatalf("rotate: %d", r.status)
		}
		p := subsParse(t, r)
		fresh := regexp.MustCompile(`whsec_[0-9a-f]{64}`).FindString(blockText(p.byID("new-secret")))
		if fresh == "" || fresh == secret {
			t.Fatalf("new secret %q", fresh)
		}
		if !strings.Contains(string(r.body), "previous secret also signs until") {
			t.Error("the page does not say the previous secret still signs")
		}
	})

	t.Run("DisableEnable", func(t *testing.T) {
		if r := owner.post(base+"/disable", nil); r.status != http.StatusSeeOther {
			t.Fatalf("disable: %d", r.status)
		}
		if !strings.Contains(string(owner.get(base, false).body), "Disabled") {
			t.Error("the endpoint is not shown disabled")
		}
		if r := owner.post(base+"/test", nil); r.status != http.StatusBadRequest {
			t.Errorf("test event to a disabled endpoint: got %d, want 400", r.status)
		}
		if r := owner.post(base+"/enable", nil); r.status != http.StatusSeeOther {
			t.Fatalf("enable: %d", r.status)
		}
	})

	t.Run("OtherAccount", func(t *testing.T) {
		other := e.signIn(e.id(2), "owner")
		for _, path := range []string{base} {
			if r := other.get(path, false); r.status != http.StatusNotFound {
				t.Errorf("GET %s from another account: %d, want 404", path, r.status)
			}
		}
		for _, path := range []string{base + "/delete", base + "/rotate", base + "/test", base + "/disable"} {
			if r := other.post(path, url.Values{"confirm": {"yes"}}); r.status != http.StatusNotFound {
				t.Errorf("POST %s from another account: %d, want 404", path, r.status)
			}
		}
		if r := owner.get("/webhooks/abc", false); r.status != http.StatusBadRequest {
			t.Errorf("malformed id: %d, want 400", r.status)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		r := owner.post(base+"/delete", nil)
		if r.status != 200 || len(subsParse(t, r).all("input", "name=confirm", "value=yes")) != 1 {
			t.Fatalf("delete without confirmation: %d, want the confirmation page", r.status)
		}
		if r := owner.post(base+"/delete", url.Values{"confirm": {"yes"}}); r.status != http.StatusSeeOther {
			t.Fatalf("delete: %d", r.status)
		}
		if n := e.count("SELECT COUNT(*) FROM webhook_endpoints WHERE account_id IN (?, ?)", e.id(1), e.id(2)); n != 0 {
			t.Fatalf("%d endpoints left", n)
		}
		if n := e.count("SELECT COUNT(*) FROM webhook_deliveries WHERE account_id IN (?, ?)", e.id(1), e.id(2)); n != 0 {
			t.Fatalf("%d deliveries left", n)
		}
	})
}

// webhookTenancyCases are TestTenancy's cases for the Webhooks routes: account 2's owner
// reaches none of account 1's endpoints or deliveries (404, as for missing ones) and
// changes nothing; account 1's staff and viewers are refused (403).
func webhookTenancyCases(t *testing.T, e *apiEnv, owner2, viewer1, staff1 *dashUser) map[string]func(t *testing.T) {
	t.Helper()
	ep1 := testedEndpoint(t, e, e.id(1), "http://127.0.0.1:9/one")
	own, _, err := mysql.NewWebhookService(e.db).CreateWebhookEndpoint(context.Background(), e.id(2), "http://127.0.0.1:9/two", nil)
	if err != nil {
		t.Fatal(err)
	}
	var delivery int64
	if err := e.db.QueryRow("SELECT id FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ?", e.id(1), ep1.ID).Scan(&delivery); err != nil {
		t.Fatal(err)
	}
	fingerprint := func() string {
		var s string
		e.db.QueryRow(`SELECT CONCAT(secret, enabled, COALESCE(previous_secret, ''), (SELECT COUNT(*) FROM webhook_deliveries WHERE account_id = ?),
			(SELECT GROUP_CONCAT(status, next_attempt_at) FROM webhook_deliveries WHERE account_id = ?)) FROM webhook_endpoints WHERE account_id = ? AND id = ?`, e.id(1), e.id(1), e.id(1), ep1.ID).Scan(&s)
		return s
	}
	refused := func(t *testing.T, path string) {
		t.Helper()
		before := fingerprint()
		form := url.Values{"confirm": {"yes"}}
		r := owner2.post(fmt.Sprintf(path, ep1.ID), form)
		missing := owner2.post(fmt.Sprintf(path, missingID), form)
		if r.status != http.StatusNotFound || missing.status != http.StatusNotFound {
			t.Fatalf("POST %s as account 2: got %d, a missing endpoint %d; want 404 for both", path, r.status, missing.status)
		}
		noAccount1(t, r)
		mustStatus(t, staff1.post(fmt.Sprintf(path, ep1.ID), form), 403)
		mustStatus(t, viewer1.post(fmt.Sprintf(path, ep1.ID), form), 403)
		if after := fingerprint(); after == "" || after != before {
			t.Fatalf("refused requests changed the endpoint: %q → %q", before, after)
		}
	}
	return map[string]func(t *testing.T){
		"GET /webhooks": func(t *testing.T) {
			r := mustStatus(t, owner2.get("/webhooks", false), 200)
			if strings.Contains(string(r.body), ep1.URL) || !strings.Contains(string(r.body), own.URL) {
				t.Fatal("account 2's Webhooks page does not show its own endpoint alone")
			}
			mustStatus(t, staff1.get("/webhooks", false), 403)
			mustStatus(t, viewer1.get("/webhooks", false), 403)
		},
		"POST /webhooks": func(t *testing.T) {
			createsInOwnAccount(t, e.with(t), owner2, "webhook_endpoints", "/webhooks", url.Values{"url": {"http://127.0.0.1:9/new"}})
			mustStatus(t, staff1.post("/webhooks", url.Values{"url": {"http://127.0.0.1:9/new"}}), 403)
		},
		"GET /webhooks/:id": func(t *testing.T) {
			r, missing := owner2.get(fmt.Sprintf("/webhooks/%d", ep1.ID), false), owner2.get(fmt.Sprintf("/webhooks/%d", missingID), false)
			if r.status != http.StatusNotFound || missing.status != http.StatusNotFound || strings.Contains(string(r.body), ep1.URL) {
				t.Fatalf("got %d, a missing endpoint %d; want 404 for both", r.status, missing.status)
			}
			mustStatus(t, viewer1.get(fmt.Sprintf("/webhooks/%d", ep1.ID), false), 403)
		},
		"POST /webhooks/:id/enable":  func(t *testing.T) { refused(t, "/webhooks/%d/enable") },
		"POST /webhooks/:id/disable": func(t *testing.T) { refused(t, "/webhooks/%d/disable") },
		"POST /webhooks/:id/rotate":  func(t *testing.T) { refused(t, "/webhooks/%d/rotate") },
		"POST /webhooks/:id/test":    func(t *testing.T) { refused(t, "/webhooks/%d/test") },
		"POST /webhooks/:id/delete":  func(t *testing.T) { refused(t, "/webhooks/%d/delete") },
		"POST /webhooks/:id/deliveries/:delivery/resend": func(t *testing.T) {
			refused(t, "/webhooks/%d/deliveries/"+fmt.Sprint(delivery)+"/resend")
			// Through its own endpoint, account 2 cannot reach account 1's delivery either.
			before := fingerprint()
			mustStatus(t, owner2.post(fmt.Sprintf("/webhooks/%d/deliveries/%d/resend", own.ID, delivery), nil), 404)
			if fingerprint() != before {
				t.Fatal("a refused resend changed account 1's delivery")
			}
		},
	}
}

// webhookScreens gives account 1 an endpoint with a queued delivery, for the
// screenshots, and returns the endpoint's page.
func webhookScreens(t *testing.T, e *apiEnv) string {
	t.Helper()
	ep := testedEndpoint(t, e, e.id(1), "https://hooks.example.com/storefront/events/with/a/rather/long/path")
	return fmt.Sprintf("/webhooks/%d", ep.ID)
}

// testedEndpoint adds an endpoint at url (private addresses allowed) to the account and
// sends it a test event, which waits queued.
func testedEndpoint(t *testing.T, e *apiEnv, account int64, url string) *shop.WebhookEndpoint {
	t.Helper()
	ctx := context.Background()
	e.db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	hooks := mysql.NewWebhookService(e.db)
	ep, _, err := hooks.CreateWebhookEndpoint(ctx, account, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hooks.SendTestEvent(ctx, account, ep.ID); err != nil {
		t.Fatal(err)
	}
	return ep
}

// browserWebhooks is the owner's Webhooks flow in Chromium: add an endpoint and see its
// secret once, send a test event and see it delivered with its request, delete the
// endpoint through the confirmation page.
func browserWebhooks(t *testing.T, e *apiEnv, owner *tab) {
	e.db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	rcv, received := webhookReceiver(t)
	url := rcv.URL + "/browser-hooks"
	if st := owner.open(t, "/webhooks"); st != http.StatusOK {
		t.Fatalf("/webhooks: got %d", st)
	}
	owner.do(t, "fill the endpoint form", chromedp.SendKeys(byLabel("Endpoint URL"), url), chromedp.Click(byLabel("purchase.reactivated")))
	if st := owner.follow(t, "add the endpoint", chromedp.Click(buttonByText("Add endpoint"))); st != http.StatusOK {
		t.Fatalf("add endpoint: got %d", st)
	}
	secret := eval[string](t, owner, `document.querySelector('#new-secret button[data-copy]').dataset.copy`)
	if !regexp.MustCompile(`^whsec_[0-9a-f]{64}$`).MatchString(secret) {
		t.Fatalf("the new endpoint's secret is shown as %q", secret)
	}
	if got := eval[string](t, owner, `text(document.querySelector('#endpoints'))`); !strings.Contains(got, url) || !strings.Contains(got, "purchase.reactivated") {
		t.Fatalf("the endpoints list says %q", got)
	}
	link := chromedp.JSPath(`[...document.querySelectorAll('#endpoints a')].find(a => a.textContent.trim() === ` + js(url) + `)`)
	if st := owner.follow(t, "open the endpoint", chromedp.Click(link)); st != http.StatusOK {
		t.Fatalf("endpoint page: got %d", st)
	}
	path := eval[string](t, owner, `location.pathname`)
	if st := owner.follow(t, "send a test event", chromedp.Click(buttonByText("Send test event"))); st != http.StatusOK {
		t.Fatalf("send test event: got %d", st)
	}
	if got := eval[string](t, owner, `text(document.querySelector('main [role=status]'))`); !strings.Contains(got, "is on its way") {
		t.Fatalf("after Send test event the page says %q", got)
	}
	if n, err := deliverDue(e); err != nil || n != 1 || received.Load() != 1 {
		t.Fatalf("delivered %d (%v), the receiver got %d; want 1", n, err, received.Load())
	}
	if st := owner.open(t, path); st != http.StatusOK {
		t.Fatalf("%s: got %d", path, st)
	}
	owner.do(t, "open the request and response", chromedp.Click(chromedp.CSS(`#deliveries summary`)))
	row := eval[string](t, owner, `text(document.querySelector('#deliveries tbody tr'))`)
	for _, want := range []string{"webhook.test", "delivered", "200", "Storefront-Signature: t="} {
		if !strings.Contains(row, want) {
			t.Errorf("the delivery's row lacks %q: %s", want, row)
		}
	}
	if st := owner.follow(t, "delete", chromedp.Click(buttonByText("Delete "+url))); st != http.StatusOK {
		t.Fatalf("delete: got %d", st)
	}
	if st := owner.follow(t, "confirm the deletion", chromedp.Click(buttonByText("Delete endpoint"))); st != http.StatusOK {
		t.Fatalf("confirm: got %d", st)
	}
	if got := eval[string](t, owner, `location.pathname + ' ' + text(document.querySelector('main'))`); !strings.HasPrefix(got, "/webhooks ") || !strings.Contains(got, "is deleted") || strings.Contains(got, "browser-hooks ") {
		t.Fatalf("after the deletion: %s", got)
	}
	owner.checkConsole(t)
}
