package web

import (
	"bytes"
	"context"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a-h/templ"

	"storefront/internal/shop"
	"storefront/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files of the view tests")

// golden renders comp and compares it with testdata/golden/NAME.golden (go test -run
// View -update rewrites the files; review their diff).
func golden(t *testing.T, name string, comp templ.Component) {
	t.Helper()
	var buf bytes.Buffer
	if err := comp.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s: the rendered fragment differs from the golden file; got\n%s", path, buf.Bytes())
	}
}

func ptr[T any](v T) *T { return &v }

var (
	viewZone, _ = time.LoadLocation("America/New_York")
	viewTime    = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
)

func TestView_Timeline(t *testing.T) {
	at := func(min int) shop.Time { return shop.NewTime(viewTime.Add(time.Duration(min) * time.Minute)) }
	act := func(id int64, actor, action, details string) shop.Activity {
		return shop.Activity{ID: id, Actor: actor, Action: action, Details: details, CreatedAt: at(int(id))}
	}
	sent, next := shop.Unix(1773501329), shop.Unix(1773501929)
	acts := []shop.TimelineEntry{
		{Activity: act(9, "mailer", "email_sent", ""), To: "ann@example.com", Subject: "Your purchase is ready"},
		{Activity: act(8, "system", "email_queued", ""), To: "ann@example.com", Subject: "Your purchase is ready", EmailStatus: "sent", Attempts: 1, SentAt: &sent},
		{Activity: act(7, "system", "email_queued", ""), To: "bob@example.com", EmailStatus: "failed", Attempts: 8, LastError: "550 no such user"},
		{Activity: act(6, "system", "email_queued", ""), To: "cat@example.com", EmailStatus: "queued", Attempts: 2, LastError: "timeout", NextAttemptAt: &next},
		{Activity: act(5, "owner@demo.test", "reactivated", ""), To: "ann@example.com", Refulfill: true, KeysGenerated: 2, FromStatus: "PND"},
		{Activity: act(4, "API key 3 (shop)", "reactivated", ""), To: "ann@example.com", FromStatus: "ACT"},
		{Activity: act(3, "import", "status_changed", `{"from_status":"PND","to_status":"ACT"}`), FromStatus: "PND", ToStatus: "ACT"},
		{Activity: act(2, "import", "note_added", `{"note_text":"gift","by":"ann"}`)},
		{Activity: act(1, "import", "created", "imported from the old shop")},
	}
	tl := timelineView(acts, 43, viewZone)
	if tl.RefreshURL != "/purchases/43/activity" {
		t.Errorf("got refresh URL %q, want the activity of purchase 43 while an e-mail waits", tl.RefreshURL)
	}
	golden(t, "timeline", templates.PurchaseTimeline(tl))
}

func viewPurchase() (*shop.Purchase, *shop.Storefront) {
	created := shop.NewTime(viewTime)
	expires := shop.NewTime(viewTime.AddDate(0, 0, 30))
	p := &shop.Purchase{
		ID: 43, StorefrontID: 1, Status: shop.PurchasePending, Currency: "USD",
		Subtotal: "20.00", Discount: "2.00", Tax: "1.00", Shipping: "0.00", Total: "19.00",
		Salt: "s4lt", BuyerEmail: ptr("buyer@example.com"), BuyerFirstname: ptr("Ann"), BuyerLastname: ptr("Lee"),
		Customer:   &shop.Customer{ID: 5, Email: ptr("ann@example.com"), Timestamps: shop.Timestamps{CreatedAt: created, UpdatedAt: created}},
		Timestamps: shop.Timestamps{CreatedAt: created, UpdatedAt: created},
		LineItems: []shop.LineItem{
			{ID: 70, ProductID: 9, ProductName: "Fonts", Quantity: 2, Price: "10.00", Subtotal: "20.00", Tax: "1.00", Discount: "2.00", Total: "19.00",
				DownloadCount: 1, DownloadLimit: 5, ExpiresAt: &expires, ProductKeys: []string{"AAAAA-BBBBB"}},
		},
		Coupons: []shop.Coupon{{Name: "Spring", Code: "SPRING10", DiscountAmount: "10", DiscountType: shop.DiscountPercent}},
	}
	return p, &shop.Storefront{ID: 1, Name: "Type Foundry", DownloadLimit: 5, DownloadDays: 30}
}

func TestView_PurchaseDetail(t *testing.T) {
	p, sf := viewPurchase()
	d := purchaseDetail(p, sf, viewZone)
	golden(t, "purchase_summary", templates.PurchaseSummary(d))
	golden(t, "purchase_line_items", templates.PurchaseLineItems(d))
}

func TestView_ReactivatePanel(t *testing.T) {
	p, sf := viewPurchase()
	golden(t, "reactivate_staff", templates.ReactivatePanelFragment(reactivatePanel(p, sf, &shop.User{Role: shop.RoleStaff}, "tok", panelState{})))
	p.Status = shop.PurchaseRefunded
	golden(t, "reactivate_viewer_refunded", templates.ReactivatePanelFragment(reactivatePanel(p, sf, &shop.User{Role: shop.RoleViewer}, "tok", panelState{})))
}

func TestView_PurchaseResults(t *testing.T) {
	p, _ := viewPurchase()
	q := url.Values{"status": {"PND"}, "cursor": {"x"}}
	res := templates.PurchaseResults{ClearURL: "/purchases", Count: "1", Rows: []templates.PurchaseRow{purchaseRow(p, map[int64]string{1: "Type Foundry"}, viewZone)}}
	c := cursorAt(p.CreatedAt, p.ID)
	res.OlderURL, res.NewerURL = pageLinks("/purchases", q, 'P', c, c, true, true, true, false)
	golden(t, "purchase_results", templates.PurchaseResultsFragment(res))
}

func TestView_Subscription(t *testing.T) {
	start := shop.NewTime(viewTime)
	next := shop.NewTime(viewTime.AddDate(0, 1, 0))
	sub := &shop.Subscription{ID: 8, Status: shop.SubscriptionPastDue, Price: "9.99", Period: 3, Unit: "M", TaxAmount: "0.00",
		Timestamps: shop.Timestamps{CreatedAt: start, UpdatedAt: start}, StartedAt: &start, NextPaymentAt: &next}
	golden(t, "subscription_fields", templates.SubscriberFieldList(subscriptionFields(sub, "USD", viewZone)))
	e := entitlementView(sub, &shop.Storefront{PastDueGraceDays: 7}, viewTime, viewZone)
	if !e.Receiving || e.Until != "" || e.Why != "A payment is overdue. Service continues during the grace period of 7 days, until "+templates.FormatTime(next.AddDate(0, 0, 7), viewZone)+"; if the payment has not arrived by then, the subscription is closed." {
		t.Errorf("got %+v", e)
	}
	if got := subscriberPlan("25.00", 3, "M", ""); got != "25.00 / 3 months" {
		t.Errorf("got %q, want 25.00 / 3 months", got)
	}
}

func TestView_WebhookDeliveries(t *testing.T) {
	code, failed := 200, 503
	next := shop.NewTime(viewTime.Add(12 * time.Second))
	ds := []*shop.WebhookDelivery{
		{ID: 12, EndpointID: 3, EventID: "evt_0123456789abcdef01234567", EventType: shop.EventPurchaseReactivated, Status: "delivered", Attempts: 2,
			LastStatus: &code, CreatedAt: shop.NewTime(viewTime), Body: `{"id":"evt_0123456789abcdef01234567","type":"purchase.reactivated"}`,
			Log: []shop.WebhookAttempt{
				{Attempt: 2, StartedAt: viewTime.Add(11 * time.Second), Duration: 41 * time.Millisecond, RequestHeaders: "Storefront-Signature: t=1,v1=ab\n", StatusCode: &code, ResponseBody: "ok"},
				{Attempt: 1, StartedAt: viewTime, Duration: 10 * time.Second, RequestHeaders: "Storefront-Signature: t=1,v1=cd\n", Error: "timed out (no answer within 10 seconds)"},
			}},
		{ID: 11, EndpointID: 3, EventID: "evt_fedcba9876543210fedcba98", EventType: shop.EventTest, Status: "queued", Attempts: 1, LastStatus: &failed,
			LastError: "the receiver answered 503 Service Unavailable", NextAttemptAt: &next, CreatedAt: shop.NewTime(viewTime), Body: "{}",
			Log: []shop.WebhookAttempt{{Attempt: 1, StartedAt: viewTime, Duration: 3 * time.Millisecond, StatusCode: &failed, ResponseBody: "<h1>down</h1>"}}},
	}
	golden(t, "webhook_deliveries", templates.WebhookDeliveries(webhookDeliveryRows(3, ds, viewZone)))
	until := shop.NewTime(viewTime.Add(24 * time.Hour))
	r := webhookRow(&shop.WebhookEndpoint{ID: 3, URL: "https://hooks.example.com/e", EventTypes: []string{shop.EventPurchaseCreated},
		Enabled: false, DisabledReason: "Every attempt failed for three days.", Rotating: true, PreviousSecretUntil: &until}, viewZone)
	if r.Status != "Disabled: Every attempt failed for three days." || r.ToggleLabel != "Enable" || r.ToggleURL != "/webhooks/3/enable" ||
		r.Events != shop.EventPurchaseCreated || !strings.Contains(r.Rotating, "until") {
		t.Errorf("got %+v", r)
	}
}
