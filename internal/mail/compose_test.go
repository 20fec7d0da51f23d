package mail_test

import (
	"strings"
	"testing"
	"time"

	"storefront/internal/mail"
	"storefront/internal/shop"
)

func strp(s string) *string { return &s }

// purchaseFixture is a reactivated purchase with two line items, keys and limits.
func purchaseFixture() *shop.Purchase {
	exp := shop.NewTime(time.Date(2030, 2, 1, 12, 30, 0, 0, time.UTC))
	return &shop.Purchase{
		ID: 42, Salt: "s4lt/x", AccountID: 1,
		BuyerEmail: strp("zoe@example.com"), BuyerFirstname: strp("Zoë"),
		LineItems: []shop.LineItem{
			{ID: 501, ProductID: 9, ProductName: "Photo Pack", Quantity: 1, DownloadLimit: 5, ExpiresAt: &exp,
				ProductKeys: []string{"PHOTO-KEY-1"}, HasAllKeys: true},
			{ID: 502, ProductID: 10, ProductName: "Font Family", Quantity: 2,
				ProductKeys: []string{"FONT-KEY-1", "FONT-KEY-2"}, HasAllKeys: true},
		},
	}
}

func TestComposePurchaseReady(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		subject, body := mail.ComposePurchaseReady(purchaseFixture(), "Pixel Shop", "https://shop.example/")
		if subject != "Your purchase from Pixel Shop is ready" {
			t.Errorf("subject: got %q", subject)
		}
		for _, want := range []string{
			"Hello Zoë,",
			"Pixel Shop",
			"* Photo Pack\n",
			"  Download: https://shop.example/downloads/s4lt%2Fx/501\n",
			"  Downloads allowed: 5\n",
			"  Link valid until: 1 February 2030, 12:30 UTC\n",
			"  Product key: PHOTO-KEY-1\n",
			"* Font Family\n",
			"  Quantity: 2\n",
			"  Download: https://shop.example/downloads/s4lt%2Fx/502\n",
			"  Product keys:\n    FONT-KEY-1\n    FONT-KEY-2\n",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("body lacks %q:\n%s", want, body)
			}
		}
		// The second item has no limit and no expiry: nothing is said about them.
		font := body[strings.Index(body, "* Font Family"):]
		if strings.Contains(font, "Downloads allowed") || strings.Contains(font, "valid until") {
			t.Errorf("unlimited item shows a limit or expiry:\n%s", font)
		}
	})

	t.Run("OneItemSubject", func(t *testing.T) {
		p := purchaseFixture()
		p.LineItems = p.LineItems[:1]
		if subject, _ := mail.ComposePurchaseReady(p, "Pixel Shop", "https://shop.example"); subject != "Your purchase is ready: Photo Pack" {
			t.Errorf("subject: got %q", subject)
		}
	})

	t.Run("GreetingWithoutName", func(t *testing.T) {
		p := purchaseFixture()
		p.BuyerFirstname = strp("  ")
		if _, body := mail.ComposePurchaseReady(p, "Pixel Shop", "https://shop.example"); !strings.HasPrefix(body, "Hello,\n") {
			t.Errorf("greeting: got %q", body[:20])
		}
		p.BuyerFirstname = nil
		p.Customer = &shop.Customer{Firstname: strp("Ann")}
		if _, body := mail.ComposePurchaseReady(p, "Pixel Shop", "https://shop.example"); !strings.HasPrefix(body, "Hello Ann,\n") {
			t.Errorf("greeting from customer: got %q", body[:20])
		}
	})

	t.Run("HeaderInjection", func(t *testing.T) {
		for _, name := range []string{"Evil\r\nBcc: victim@example.com", "Evil\nBcc: x@y", "Evil\rX: y", "Evil\u2028X: y", "Evil\x00\x1b[0m"} {
			p := purchaseFixture()
			p.LineItems = p.LineItems[:1]
			p.LineItems[0].ProductName = name
			subject, body := mail.ComposePurchaseReady(p, "Shop\r\nX-Injected: 1", "https://shop.example")
			if strings.ContainsFunc(subject, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\u2028' }) {
				t.Errorf("subject for %q holds a control character: %q", name, subject)
			}
			if strings.Contains(body, "\nBcc:") || strings.Contains(body, "\nX-Injected") {
				t.Errorf("body for %q starts a forged line:\n%s", name, body)
			}
		}
		long := strings.Repeat("Ünïcödé ", 100)
		p := purchaseFixture()
		p.LineItems = p.LineItems[:1]
		p.LineItems[0].ProductName = long
		subject, _ := mail.ComposePurchaseReady(p, "Pixel Shop", "https://shop.example")
		if n := len([]rune(subject)); n > mail.MaxSubjectRunes {
			t.Errorf("subject length: got %d runes, want at most %d", n, mail.MaxSubjectRunes)
		}
	})
}
