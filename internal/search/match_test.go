package search

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"storefront/internal/shop"
)

func ptr[T any](v T) *T { return &v }

func at(y int, m time.Month, d, h, mi int) shop.Time {
	return shop.NewTime(time.Date(y, m, d, h, mi, 0, 0, paris))
}

// testPurchases are the purchases the match tests search.
var testPurchases = []*shop.Purchase{
	{ID: 1, StorefrontID: 1, Status: shop.PurchaseActive, Currency: "USD", Total: "89.46", Timestamps: shop.Timestamps{CreatedAt: at(2024, 11, 1, 0, 0)},
		BuyerEmail: ptr("Zoë@Acme.io"), BuyerFirstname: ptr("Zoë"), BuyerLastname: ptr("Müller"),
		Customer: &shop.Customer{ID: 10}, LineItems: []shop.LineItem{{ProductID: 100}, {ProductID: 101}}, TangiblesToShip: ptr(int64(2))},
	{ID: 2, StorefrontID: 1, Status: shop.PurchaseRefunded, Currency: "EUR", Total: "10.00", Timestamps: shop.Timestamps{CreatedAt: at(2024, 10, 31, 23, 59)},
		BuyerEmail: ptr("bob@example.com"), BuyerFirstname: ptr("Bob"), BuyerLastname: ptr("van der Berg"),
		SubscriberID: ptr(int64(7)), TangiblesToShip: ptr(int64(0))},
	{ID: 3, StorefrontID: 2, Status: shop.PurchasePending, Currency: "JPY", Total: "1200", Timestamps: shop.Timestamps{CreatedAt: at(2024, 11, 30, 23, 59)},
		BuyerEmail: ptr("a%b_c@x.org"), LineItems: []shop.LineItem{{ProductID: 101}}},
	{ID: 42, StorefrontID: 2, Status: shop.PurchaseHeld, Currency: "USD", Total: "20", Timestamps: shop.Timestamps{CreatedAt: at(2024, 12, 1, 0, 0)},
		BuyerFirstname: ptr("Ann"), BuyerEmail: ptr("noatsign")},
	{ID: 5, StorefrontID: 1, Status: shop.PurchaseActive, Currency: "KWD", Total: "-3.250", Timestamps: shop.Timestamps{CreatedAt: at(2024, 11, 19, 12, 0)},
		BuyerEmail: ptr("strasse@straße.de"), BuyerLastname: ptr("Straße")},
}

func TestMatchPurchase(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want []int64
	}{
		{`status:act`, []int64{1, 5}},
		{`status:ACT,rfd`, []int64{1, 2, 5}},
		{`-status:ACT`, []int64{2, 3, 42}},
		{`product:101`, []int64{1, 3}},
		{`-product:100`, []int64{2, 3, 42, 5}},
		{`storefront:2`, []int64{3, 42}},
		{`customer:10`, []int64{1}},
		{`-customer:10`, []int64{2, 3, 42, 5}}, // no customer: not customer 10
		{`subscriber:7`, []int64{2}},
		{`email:zoe`, []int64{1}},
		{`email:ZOË@acme`, []int64{1}},
		{`email:a%`, []int64{3}},
		{`email:a_`, nil}, // "_" is literal
		{`email:a%b_`, []int64{3}},
		{`first:zo`, []int64{1}},
		{`last:muller`, []int64{1}},
		{`last:"van der"`, []int64{2}},
		{`name:b`, []int64{2}}, // first Bob, last "van der Berg" does not start with b
		{`name:m`, []int64{1}},
		{`last:strasse`, nil}, // LIKE compares character by character: ß is no s (TestMatch_Collation)
		{`last:STRAß`, []int64{5}},
		{`domain:acme.io`, []int64{1}},
		{`domain:ACME.IO`, []int64{1}},
		{`domain:acme`, nil}, // exact, not a prefix
		{`domain:strasse.de`, nil},
		{`domain:STRAßE.DE`, []int64{5}},
		{`-domain:acme.io`, []int64{2, 3, 42, 5}}, // "noatsign" has no domain
		{`currency:usd`, []int64{1, 42}},
		{`total>50`, []int64{1, 3}},
		{`total:10`, []int64{2}}, // 10.00 = 10
		{`total:10..20`, []int64{2, 42}},
		{`total:89.46`, []int64{1}},
		{`total:89.460`, []int64{1}},
		{`total<0`, []int64{5}},
		{`total<=20 total>=20`, []int64{42}},
		{`total:*..10`, []int64{2, 5}},
		{`total:20,1200`, []int64{3, 42}},
		{`created:2024-11-01`, []int64{1}},
		{`created>2024-11-01`, []int64{3, 42, 5}},
		{`created>=2024-11-01`, []int64{1, 3, 42, 5}},
		{`created<2024-11-01`, []int64{2}},
		{`created<=2024-11-30`, []int64{1, 2, 3, 5}},
		{`created:2024-11-01..2024-11-30`, []int64{1, 3, 5}},
		{`created:"2024-11-01 00:00"`, []int64{1}},
		{`created>"2024-11-01 00:00"`, []int64{3, 42, 5}},
		{`created:2024-11-19,2024-12-01`, []int64{42, 5}},
		{`created>=-2days`, []int64{3, 42, 5}}, // now is 20 November 15:04:05; 3 and 42 lie ahead
		{`created:yesterday`, []int64{5}},
		{`ship:yes`, []int64{1}},
		{`is:unshipped`, []int64{1}},
		{`ship:no`, []int64{2, 3, 42, 5}}, // 0 or null
		{`is:shipped`, []int64{2, 3, 42, 5}},
		{`id:42`, []int64{42}},
		{`id>3`, []int64{42, 5}},
		{`id:2..5`, []int64{2, 3, 5}},
		{`42`, []int64{42}}, // the id
		{`ann`, []int64{42}},
		{`b`, []int64{2}},
		{`"van der"`, []int64{2}},
		{`zoe OR status:hld`, []int64{1, 42}},
		{`status:act (zoe OR strasse)`, []int64{1, 5}},
		{`-(status:act OR storefront:2)`, []int64{2}},
		{`NOT status:act NOT storefront:2`, []int64{2}},
	} {
		t.Run(tt.q, func(t *testing.T) {
			r, err := MustParse(Purchases, tt.q).Resolve(testNow, paris)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, p := range testPurchases {
				if r.MatchPurchase(p) {
					got = append(got, p.ID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// testSubscribers are the subscribers the match tests search.
var testSubscribers = []*shop.Subscriber{
	{ID: 1, Username: "zoë@acme.io", Subscription: &shop.Subscription{Status: shop.SubscriptionActive,
		Timestamps: shop.Timestamps{CreatedAt: at(2024, 1, 1, 10, 0)}, StartedAt: ptr(at(2024, 1, 1, 10, 0))}},
	{ID: 2, Username: "bob@example.com", Subscription: &shop.Subscription{Status: shop.SubscriptionCanceled,
		Timestamps: shop.Timestamps{CreatedAt: at(2024, 3, 1, 0, 0)}, StartedAt: ptr(at(2024, 3, 1, 0, 0)), NextPaymentAt: ptr(at(2024, 11, 25, 0, 0))}},
	{ID: 3, Username: "carl@example.com", Subscription: &shop.Subscription{Status: shop.SubscriptionClosed,
		Timestamps: shop.Timestamps{CreatedAt: at(2024, 5, 1, 0, 0), UpdatedAt: at(2024, 10, 2, 0, 0)}, StartedAt: ptr(at(2024, 5, 2, 0, 0)), EndedAt: ptr(at(2024, 10, 1, 12, 0))}},
	{ID: 4, Username: "dora@example.com"}, // no subscription
	{ID: 5, Username: "eve@example.com", Subscription: &shop.Subscription{Status: shop.SubscriptionNew, Timestamps: shop.Timestamps{CreatedAt: at(2024, 11, 1, 0, 0)}}},
	{ID: 6, Username: "fay@example.com", Subscription: &shop.Subscription{Status: shop.SubscriptionTrial,
		Timestamps: shop.Timestamps{CreatedAt: at(2024, 11, 18, 9, 0)}, TrialStartedAt: ptr(at(2024, 11, 18, 9, 0))}},
}

func TestMatchSubscriber(t *testing.T) {
	for _, tt := range []struct {
		q    string
		want []int64
	}{
		{`status:active`, []int64{1}},
		{`status:canceled,closed`, []int64{2, 3}},
		{`-status:active`, []int64{2, 3, 4, 5, 6}}, // no subscription: not ACTIVE
		{`email:ZOE`, []int64{1}},
		{`username:ZOE@ACME.IO`, []int64{1}},
		{`username:zoe@acme`, nil}, // exact
		{`zoe`, []int64{1}},
		{`3`, []int64{3}},
		{`id>=5`, []int64{5, 6}},
		{`started<2024-03-01`, []int64{1}},
		{`started:2024-03-01..2024-05-01`, []int64{2, 3}},
		{`started:2024-05-01`, []int64{3}}, // the term starts at the earliest of creation, trial and start
		{`started:2024-05-02`, nil},
		{`ended:2024-10-01`, []int64{3}},
		{`ended>today`, []int64{2}}, // a cancelled term that runs until the 25th
		{`-ended:*..*`, nil},        // refused by the parser; see ErrBoundless below
		{`active:today`, []int64{1, 2, 6}},
		{`active:2024-11-25`, []int64{1, 6}}, // 2's term ends at midnight of the 25th
		{`active:2024-11-24`, []int64{1, 2, 6}},
		{`active:2024-06-01`, []int64{1, 2, 3}},
		{`active:"2024-10-01 11:59"`, []int64{1, 2, 3}},
		{`active:"2024-10-01 12:00"`, []int64{1, 2}}, // the term is [start, end)
		{`active:2024-11-18`, []int64{1, 2, 6}},
		{`active<2024-11-18`, []int64{1, 2, 3}},
		{`-active:today`, []int64{3, 4, 5}},
	} {
		t.Run(tt.q, func(t *testing.T) {
			q, err := Parse(Subscribers, tt.q)
			if tt.q == `-ended:*..*` {
				if err == nil {
					t.Fatalf("got no error for a boundless range")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := q.Resolve(testNow, paris)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, s := range testSubscribers {
				if r.MatchSubscriber(s) {
					got = append(got, s.ID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestMatch_Collation checks the text fields against MariaDB's utf8mb4_unicode_ci
// (collation.go): the "starts with" fields and domain compare character by character
// as LIKE does, so that a letter that expands (ß, œ, ﬁ) matches only itself or its other
// case, and a combining accent written apart is a character of its own; username
// compares whole texts as "=" does, so there ß is ss and œ is oe. Letters that are
// letters of their own (ø, ł, ı) fold to no other.
func TestMatch_Collation(t *testing.T) {
	ps := []*shop.Purchase{
		{ID: 1, BuyerEmail: ptr("straße@straße.de"), BuyerFirstname: ptr("Œuvre"), BuyerLastname: ptr("e\u0301mile")},
		{ID: 2, BuyerEmail: ptr("strasse@strasse.de"), BuyerFirstname: ptr("Øster"), BuyerLastname: ptr("Łukasz")},
		{ID: 3, BuyerEmail: ptr("ﬁn@ﬁ.io"), BuyerFirstname: ptr("Ｏscar"), BuyerLastname: ptr("Ǆuro")},
		{ID: 4, BuyerEmail: ptr("oeuvre@x＠fi.io"), BuyerFirstname: ptr("oscar"), BuyerLastname: ptr("émile")},
	}
	for _, tt := range []struct {
		q    string
		want []int64
	}{
		{`email:stras`, []int64{2}},
		{`email:STRAß`, []int64{1}},
		{`email:STRASSE`, []int64{2}},
		{`domain:strasse.de`, []int64{2}},
		{`domain:STRAßE.DE`, []int64{1}},
		{`domain:fi.io`, nil}, // the domain follows the last "@" byte: a "＠" is no "@"
		{`domain:x＠fi.io`, []int64{4}},
		{`domain:X＠FI.IO`, []int64{4}},
		{`domain:ﬁ.io`, []int64{3}},
		{`first:oe`, nil},
		{`email:oe`, []int64{4}},
		{`first:œ`, []int64{1}},
		{`first:o`, []int64{3, 4}}, // Ｏ is O; Ø is a letter of its own
		{`first:ø`, []int64{2}},
		{`last:l`, nil},
		{`last:ł`, []int64{2}},
		{`last:emile`, []int64{4}},
		{`last:e`, []int64{1, 4}},
		{`last:dž`, nil},
		{`last:ǆ`, []int64{3}},
		{`f`, nil},
		{`ﬁ`, []int64{3}},
	} {
		t.Run(tt.q, func(t *testing.T) {
			r, err := MustParse(Purchases, tt.q).Resolve(testNow, paris)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, p := range ps {
				if r.MatchPurchase(p) {
					got = append(got, p.ID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	subs := []*shop.Subscriber{{ID: 1, Username: "straße@œuvre.de"}, {ID: 2, Username: "strasse@oeuvre.de"}, {ID: 3, Username: "strasse@oeuvre.de "}}
	for _, tt := range []struct {
		q    string
		want []int64
	}{
		{`username:STRASSE@OEUVRE.DE`, []int64{1, 2}}, // "=": ß is ss, œ is oe; a trailing blank counts
		{`username:"strasse@oeuvre.de "`, []int64{3}},
		{`email:strasse`, []int64{2, 3}},
		{`email:straß`, []int64{1}},
	} {
		t.Run(tt.q, func(t *testing.T) {
			r, err := MustParse(Subscribers, tt.q).Resolve(testNow, paris)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, s := range subs {
				if r.MatchSubscriber(s) {
					got = append(got, s.ID)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDNF_SameMeaning checks that the conjunctions mean what the tree means, and that
// the printed query means what the parsed one does.
func TestDNF_SameMeaning(t *testing.T) {
	clauses := []string{`status:act`, `-email:zoe`, `total>15`, `created<2024-11-20`, `ship:yes`, `storefront:2`, `b`, `NOT 42`}
	var queries []string
	for i, a := range clauses {
		for j, b := range clauses {
			for k, c := range clauses {
				if i == j || j == k {
					continue
				}
				queries = append(queries,
					fmt.Sprintf("%s OR %s %s", a, b, c),
					fmt.Sprintf("-(%s OR %s) %s", a, b, c),
					fmt.Sprintf("-(%s (%s OR -%s))", a, b, c),
					fmt.Sprintf("(%s OR %s) (%s OR %s)", a, b, c, a))
			}
		}
	}
	for _, s := range queries {
		q := MustParse(Purchases, s)
		r, err := q.Resolve(testNow, paris)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := r.DNF()
		if err != nil {
			t.Fatal(err)
		}
		r2, err := MustParse(Purchases, q.String()).Resolve(testNow, paris)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range testPurchases {
			tree := r.MatchPurchase(p)
			any := slices.ContainsFunc(cs, func(cj Conjunction) bool { return cj.MatchPurchase(p) })
			if tree != any {
				t.Fatalf("%s on purchase %d: tree says %v, conjunctions %v", s, p.ID, tree, any)
			}
			if r2.MatchPurchase(p) != tree {
				t.Fatalf("%s on purchase %d: printed as %s it means otherwise", s, p.ID, q)
			}
		}
	}
}
