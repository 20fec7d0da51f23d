package shop_test

import (
	"testing"
	"time"

	"storefront/internal/shop"
)

func ptr[T any](v T) *T { return &v }

func TestEntitle(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	before, after := shop.NewTime(now.Add(-time.Hour)), shop.NewTime(now.Add(time.Hour))
	for _, tc := range []struct {
		name      string
		sub       *shop.Subscription
		receiving bool
		reason    string
		until     *shop.Time
	}{
		{"NoSubscription", nil, false, shop.ReasonNoSubscription, nil},
		{"Active", &shop.Subscription{Status: shop.SubscriptionActive}, true, shop.ReasonActive, nil},
		{"Trial", &shop.Subscription{Status: shop.SubscriptionTrial}, true, shop.ReasonTrial, nil},
		{"PastDue", &shop.Subscription{Status: shop.SubscriptionPastDue}, true, shop.ReasonPastDue, nil},
		{"CanceledUntilEnd", &shop.Subscription{Status: shop.SubscriptionCanceled, EndedAt: &after}, true, shop.ReasonCanceledUntilTermEnd, &after},
		{"CanceledUntilNextPayment", &shop.Subscription{Status: shop.SubscriptionCanceled, NextPaymentAt: &after}, true, shop.ReasonCanceledUntilTermEnd, &after},
		{"CanceledEndedBeforeNextPayment", &shop.Subscription{Status: shop.SubscriptionCanceled, EndedAt: &before, NextPaymentAt: &after}, false, shop.ReasonCanceledTermEnded, &before},
		{"CanceledNoTerm", &shop.Subscription{Status: shop.SubscriptionCanceled}, false, shop.ReasonCanceledTermEnded, nil},
		{"Closed", &shop.Subscription{Status: shop.SubscriptionClosed}, false, shop.ReasonClosed, nil},
		{"New", &shop.Subscription{Status: shop.SubscriptionNew}, false, shop.ReasonNew, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := shop.Entitle(tc.sub, now)
			if got.ReceivingService != tc.receiving || got.Reason != tc.reason {
				t.Fatalf("got %v %s, want %v %s", got.ReceivingService, got.Reason, tc.receiving, tc.reason)
			}
			if (got.AccessUntil == nil) != (tc.until == nil) || (got.AccessUntil != nil && !got.AccessUntil.Equal(tc.until.Time)) {
				t.Fatalf("got access until %v, want %v", got.AccessUntil, tc.until)
			}
		})
	}
	t.Run("EndIsExclusive", func(t *testing.T) {
		end := shop.NewTime(now)
		if got := shop.Entitle(&shop.Subscription{Status: shop.SubscriptionCanceled, EndedAt: &end}, now); got.ReceivingService {
			t.Fatalf("got receiving at the end of the term, want not")
		}
	})
}

func TestParseMoney(t *testing.T) {
	for _, tc := range []struct {
		in     string
		digits int
		want   int64
		ok     bool
	}{
		{"19.99", 2, 1999, true},
		{"-3.50", 2, -350, true},
		{"1200", 0, 1200, true},
		{"1.250", 3, 1250, true},
		{"0.00", 2, 0, true},
		{"999999999999999.99", 2, 99999999999999999, true},
		{"1000000000000000.00", 2, 0, false},
		{"19.9", 2, 0, false},
		{"19.999", 2, 0, false},
		{"19.", 2, 0, false},
		{"12.5", 0, 0, false},
		{".50", 2, 0, false},
		{"+1.00", 2, 0, false},
		{"1e2", 0, 0, false},
		{" 1.00", 2, 0, false},
		{"1,000.00", 2, 0, false},
		{"", 2, 0, false},
	} {
		got, err := shop.ParseMoney(tc.in, tc.digits)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseMoney(%q, %d): got %d, %v, want %d, ok %v", tc.in, tc.digits, got, err, tc.want, tc.ok)
		}
		if tc.ok {
			if back := shop.FormatMinor(got, tc.digits); string(back) != tc.in {
				t.Errorf("FormatMinor(%d, %d): got %s, want %s", got, tc.digits, back, tc.in)
			}
		}
	}
}

func TestValidEmail(t *testing.T) {
	for in, want := range map[string]bool{
		"ann@example.com":                  true,
		"a.b+tag@sub.example.org":          true,
		"":                                 false,
		"ann":                              false,
		"ann@":                             false,
		"@example.com":                     false,
		"Ann <ann@example.com>":            false,
		"ann@example.com\n":                false,
		"ann@example.com\r\nBcc: x@y.test": false,
		" ann@example.com":                 false,
		"ann@example.com, bob@example.com": false,
		"a\x00@example.com":                false,
	} {
		if got := shop.ValidEmail(in); got != want {
			t.Errorf("ValidEmail(%q): got %v, want %v", in, got, want)
		}
	}
	long := make([]byte, 250)
	for i := range long {
		long[i] = 'a'
	}
	if shop.ValidEmail(string(long) + "@x.io") {
		t.Error("got an address of 255 characters valid, want invalid")
	}
}

func TestRecipient(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		given, customer, buyer string
		want, code, param      string
	}{
		{"Given", "ann@example.com", "cust@example.com", "buyer@example.com", "ann@example.com", "", ""},
		{"GivenIsLiteral", "ann@example.com\n", "", "buyer@example.com", "", shop.EInvalid, "customer_email"},
		{"GivenWithBlanks", " ann@example.com", "", "", "", shop.EInvalid, "customer_email"},
		{"BlankMeansDefault", "  ", "cust@example.com", "buyer@example.com", "cust@example.com", "", ""},
		{"CustomerFirst", "", " cust@example.com ", "buyer@example.com", "cust@example.com", "", ""},
		{"ThenBuyer", "", " ", "buyer@example.com", "buyer@example.com", "", ""},
		{"None", "", "", "", "", shop.EMissing, "customer_email"},
		{"RecordedInvalid", "", "", "not an address", "", shop.EInvalid, "customer_email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := shop.Recipient(7, tc.given, tc.customer, tc.buyer)
			if got != tc.want || shop.ErrorCode(err) != tc.code || shop.ErrorParam(err) != tc.param {
				t.Fatalf("got %q, %v, want %q, %s (%s)", got, err, tc.want, tc.code, tc.param)
			}
		})
	}
	t.Run("PurchaseDefault", func(t *testing.T) {
		p := &shop.Purchase{BuyerEmail: ptr("buyer@example.com"), Customer: &shop.Customer{Email: ptr("")}}
		if got := p.DefaultRecipient(); got != "buyer@example.com" {
			t.Fatalf("got %q, want the buyer's address", got)
		}
		p.Customer.Email = ptr("cust@example.com")
		if got := p.DefaultRecipient(); got != "cust@example.com" {
			t.Fatalf("got %q, want the customer record's address", got)
		}
		if got := (&shop.Purchase{}).DefaultRecipient(); got != "" {
			t.Fatalf("got %q, want none", got)
		}
	})
}

func TestKeepAnOwner(t *testing.T) {
	ann := &shop.User{ID: 1, Email: "ann@example.com", Role: shop.RoleOwner}
	bob := &shop.User{ID: 2, Email: "bob@example.com", Role: shop.RoleStaff}
	cat := &shop.User{ID: 3, Email: "cat@example.com", Role: shop.RoleOwner}
	for _, tc := range []struct {
		name    string
		users   []*shop.User
		target  *shop.User
		role    string
		refused bool
	}{
		{"LastOwnerDemoted", []*shop.User{ann, bob}, ann, shop.RoleStaff, true},
		{"LastOwnerRemoved", []*shop.User{ann, bob}, ann, "", true},
		{"LastOwnerStaysOwner", []*shop.User{ann, bob}, ann, shop.RoleOwner, false},
		{"AnotherOwnerLeft", []*shop.User{ann, bob, cat}, ann, shop.RoleViewer, false},
		{"NotAnOwner", []*shop.User{ann, bob}, bob, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := shop.KeepAnOwner(tc.users, tc.target, tc.role)
			if (err != nil) != tc.refused {
				t.Fatalf("got %v, want refused %v", err, tc.refused)
			}
			if err != nil && (shop.ErrorCode(err) != shop.EInvalid || shop.ErrorParam(err) != "role") {
				t.Fatalf("got %v, want invalid_parameter (role)", err)
			}
		})
	}
}

func TestUser_MayReactivate(t *testing.T) {
	for role, may := range map[string]bool{shop.RoleOwner: true, shop.RoleStaff: true, shop.RoleViewer: false} {
		err := (&shop.User{Role: role}).MayReactivate()
		if (err == nil) != may || (err != nil && shop.ErrorCode(err) != shop.EForbidden) {
			t.Errorf("%s: got %v, want may %v", role, err, may)
		}
	}
}

func TestPurchase_WhatReactivationDoes(t *testing.T) {
	base := "The status becomes Active. Downloads are reset to 5 per item for 30 days"
	pending := &shop.Purchase{Status: shop.PurchasePending}
	sf := &shop.Storefront{DownloadLimit: 5, DownloadDays: 30}
	forever := &shop.Storefront{}
	for _, c := range []struct {
		name      string
		p         *shop.Purchase
		sf        *shop.Storefront
		to        string
		refulfill bool
		want      string
	}{
		{"address", pending, sf, "zoe@example.com", false,
			base + " and an e-mail with the download links and product keys goes to zoe@example.com. Product keys stay as they are; tick Refulfill to generate missing ones."},
		{"address and Refulfill", pending, sf, "ann@example.com", true,
			base + " and an e-mail with the download links and product keys goes to ann@example.com. Refulfill: missing product keys are generated."},
		{"no address, active, never expiring", &shop.Purchase{Status: shop.PurchaseActive}, forever, "", false,
			"Downloads are reset to unlimited, never expiring. Enter a Send to address for the e-mail with the download links and product keys. Product keys stay as they are; tick Refulfill to generate missing ones."},
		{"never expiring with an address", &shop.Purchase{Status: shop.PurchaseActive}, forever, "zoe@example.com", false,
			"Downloads are reset to unlimited, never expiring, and an e-mail with the download links and product keys goes to zoe@example.com. Product keys stay as they are; tick Refulfill to generate missing ones."},
		{"storefront not known, 1 day", pending, nil, "zoe@example.com", true,
			"The status becomes Active. Downloads are reset to the storefront's limit and window and an e-mail with the download links and product keys goes to zoe@example.com. Refulfill: missing product keys are generated."},
		{"1 day", pending, &shop.Storefront{DownloadDays: 1}, "", true,
			"The status becomes Active. Downloads are reset to unlimited for 1 day. Enter a Send to address for the e-mail with the download links and product keys. Refulfill: missing product keys are generated."},
	} {
		if got := c.p.WhatReactivationDoes(c.sf, c.to, c.refulfill); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
