package mail_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mail"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestComposer_AtSendTime queues e-mails the way the store does (a reactivation, a
// disabled webhook endpoint, a row queued with its text before migration 00099) and
// sends them through a real SMTP server: each arrives once, to its address, with the
// subject and body internal/mail writes from the data as it stands when it is sent.
func TestComposer_AtSendTime(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	r := newRig(t, db)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 60, Subscribers: 5, Seed: 3, Now: r.clock.Now().Add(-time.Hour)}, nil); err != nil {
		t.Fatal(err)
	}
	const base = "https://shop.example"
	tr, err := mail.NewSMTPTransport(r.smtp.URL(), from)
	if err != nil {
		t.Fatal(err)
	}
	s := mail.NewSender(mysql.NewOutbox(db), &mail.Composer{Purchases: mysql.NewPurchaseService(db), Storefronts: mysql.NewAccountService(db), BaseURL: base}, tr, mail.SenderOptions{Now: r.clock.Now})

	// sendOnce sends what is due twice over and returns the one message the server got.
	sendOnce := func(t *testing.T) (m struct{ To, Subject, Body string }) {
		t.Helper()
		before := len(r.smtp.Messages())
		sendDue(t, s)
		r.clock.Advance(time.Hour)
		sendDue(t, s)
		got := r.smtp.Messages()
		if len(got) != before+1 {
			t.Fatalf("server got %d messages, want 1", len(got)-before)
		}
		last := got[len(got)-1]
		m.To, m.Subject, m.Body = last.To, last.Subject, strings.TrimRight(last.Body, "\n")
		return m
	}

	t.Run("PurchaseReady", func(t *testing.T) {
		var id int64
		if err := db.QueryRow(`SELECT p.id FROM purchases p WHERE p.account_id = 1 AND p.status IN ('PND', 'ERR')
			AND EXISTS (SELECT 1 FROM line_items li WHERE li.account_id = 1 AND li.purchase_id = p.id AND li.quantity > 1)
			ORDER BY p.id LIMIT 1`).Scan(&id); err != nil {
			t.Fatalf("a pending purchase with a line item of quantity 2 or more: %v", err)
		}
		res, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: id, Refulfill: true, CustomerEmail: "support@example.com", Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if res.KeysGenerated == 0 {
			t.Fatalf("refulfilment generated no key; the test wants keys in the e-mail")
		}
		// What the reactivation composed in its transaction before e-mails were written
		// at send time: the purchase as the reactivation left it.
		p, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, 1, id)
		if err != nil {
			t.Fatal(err)
		}
		var store string
		if err := db.QueryRow("SELECT name FROM storefronts WHERE account_id = 1 AND id = ?", p.StorefrontID).Scan(&store); err != nil {
			t.Fatal(err)
		}
		subject, body := mail.ComposePurchaseReady(p, store, base)
		m := sendOnce(t)
		if m.To != "support@example.com" || m.Subject != subject || m.Body != strings.TrimRight(body, "\n") {
			t.Fatalf("got to %q subject %q body:\n%s\nwant to support@example.com, subject %q, body:\n%s", m.To, m.Subject, m.Body, subject, body)
		}
		for _, li := range p.LineItems {
			for _, k := range li.ProductKeys {
				if !strings.Contains(m.Body, k) {
					t.Errorf("body lacks product key %s", k)
				}
			}
		}
		// The timeline shows the subject that was sent.
		tl, err := mysql.NewPurchaseService(db).FindPurchaseTimeline(ctx, 1, id)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range tl {
			if e.Action == shop.ActionEmailQueued && e.To == "support@example.com" {
				found = true
				if e.Subject != subject || e.EmailStatus != shop.EmailSent {
					t.Errorf("timeline entry: got subject %q status %q, want %q sent", e.Subject, e.EmailStatus, subject)
				}
			}
		}
		if !found {
			t.Errorf("the timeline has no queued e-mail to support@example.com: %+v", tl)
		}
	})

	t.Run("WebhookDisabled", func(t *testing.T) {
		facts := shop.EmailFacts{EndpointID: 7, EndpointURL: "https://hooks.example/in", Reason: "Every attempt failed for three days."}
		if _, err := mysql.NewOutbox(db).EnqueueEmail(ctx, nil, shop.Email{AccountID: 1, Kind: shop.EmailWebhookDisabled, To: "owner@example.com", Facts: facts}); err != nil {
			t.Fatal(err)
		}
		subject, body := mail.ComposeWebhookDisabled(7, "https://hooks.example/in", "Every attempt failed for three days.", base)
		m := sendOnce(t)
		if m.To != "owner@example.com" || m.Subject != subject || m.Body != strings.TrimRight(body, "\n") {
			t.Fatalf("got to %q subject %q body:\n%s\nwant subject %q body:\n%s", m.To, m.Subject, m.Body, subject, body)
		}
	})

	t.Run("ComposedBeforeMigration", func(t *testing.T) {
		// A row queued by the version before 00099 carries its text: it is sent as it is.
		dbtest.MustExec(t, db.DB, `INSERT INTO email_outbox (account_id, purchase_id, to_address, subject, body, status, attempts, next_attempt_at, created_at)
			VALUES (1, NULL, 'old@example.com', 'Queued before', 'Written when it was queued.', 'queued', 0, '2020-01-01', '2020-01-01')`)
		m := sendOnce(t)
		if m.To != "old@example.com" || m.Subject != "Queued before" || m.Body != "Written when it was queued." {
			t.Fatalf("got to %q subject %q body %q", m.To, m.Subject, m.Body)
		}
	})

	t.Run("ErrPurchaseGone", func(t *testing.T) {
		// A purchase that no longer exists cannot be written about: given up at once.
		id, err := mysql.NewOutbox(db).EnqueueEmail(ctx, nil, shop.Email{AccountID: 1, Kind: shop.EmailPurchaseReady, PurchaseID: 999999999, To: "gone@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		before := len(r.smtp.Messages())
		sendDue(t, s)
		if w := r.row(id); w.status != "failed" || !strings.Contains(w.lastErr.String, "no longer exists") {
			t.Fatalf("row: got %+v, want failed, the purchase gone", w)
		}
		if len(r.smtp.Messages()) != before {
			t.Fatalf("the server got a message about a purchase that is gone")
		}
	})
}
