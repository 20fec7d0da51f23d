package search

import (
	"errors"
	"testing"
	"unicode/utf8"

	"storefront/internal/shop"
)

// FuzzParse checks that Parse never panics, that every error is an EInvalid
// *shop.Error about q, and that every accepted query round-trips: its printed form
// parses to an equal tree that prints the same, resolves, and expands within the limit.
func FuzzParse(f *testing.F) {
	for _, tt := range errorCases {
		f.Add(tt.in, tt.kind == Subscribers)
	}
	for _, s := range []string{
		`status:act total>50 created>="last monday"`, `email:zoe OR name:"van der"`,
		`-(a (b OR -c)) OR "x\"y"`, `created:2024-11-01..2024-11-30 -is:shipped`,
		`domain:acme.io currency:usd,eur id:5..*`, `active:today -status:closed`,
		`email:"a..b" total:"1".."2"`, `NOT (a OR b) c`, `((a OR b) c) OR d`,
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, subs bool) {
		kind := Purchases
		if subs {
			kind = Subscribers
		}
		q, err := Parse(kind, s)
		if err != nil {
			var e *shop.Error
			if !errors.As(err, &e) || e.Code != shop.EInvalid || e.Param != Param || e.Message == "" {
				t.Fatalf("Parse(%q): got %v, want an EInvalid error about q", s, err)
			}
			return
		}
		printed := q.String()
		if utf8.RuneCountInString(printed) > utf8.RuneCountInString(s) {
			t.Fatalf("Parse(%q) printed the longer %q", s, printed)
		}
		q2, err := Parse(kind, printed)
		if err != nil {
			t.Fatalf("Parse(%q) printed %q, which does not parse: %v", s, printed, err)
		}
		if !Equal(q.Root, q2.Root) {
			t.Fatalf("Parse(%q) printed %q, which parses to another tree %q", s, printed, q2)
		}
		if again := q2.String(); again != printed {
			t.Fatalf("Parse(%q) printed %q, then %q", s, printed, again)
		}
		r, err := q.Resolve(testNow, paris)
		if err != nil {
			if shop.ErrorCode(err) != shop.EInvalid {
				t.Fatalf("Resolve(%q): got %v, want an EInvalid error", s, err)
			}
			return
		}
		cs, err := r.DNF()
		if err != nil || len(cs) == 0 || len(cs) > MaxBranches {
			t.Fatalf("DNF(%q): got %d conjunctions, %v", s, len(cs), err)
		}
		for _, p := range testPurchases {
			if kind == Purchases {
				r.MatchPurchase(p)
			}
		}
		for _, sb := range testSubscribers {
			if kind == Subscribers {
				r.MatchSubscriber(sb)
			}
		}
	})
}
