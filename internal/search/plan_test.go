package search

import (
	"slices"
	"testing"

	"storefront/internal/shop"
)

// matchFilter is the meaning of a purchase filter (docs/API.md#get-apiv2purchases), for checking PurchaseFilter.
func matchFilter(f shop.PurchaseFilter, p *shop.Purchase) bool {
	prefix := func(s *string, pre string) bool { return pre == "" || (s != nil && HasPrefixFold(*s, pre)) }
	switch {
	case f.IDs != nil && !slices.Contains(f.IDs, p.ID),
		len(f.Statuses) > 0 && !slices.Contains(f.Statuses, p.Status),
		f.ProductID != 0 && !slices.ContainsFunc(p.LineItems, func(li shop.LineItem) bool { return li.ProductID == f.ProductID }),
		f.StorefrontID != 0 && p.StorefrontID != f.StorefrontID,
		f.CustomerID != 0 && (p.Customer == nil || p.Customer.ID != f.CustomerID),
		f.SubscriberID != 0 && (p.SubscriberID == nil || *p.SubscriberID != f.SubscriberID),
		!prefix(p.BuyerEmail, f.EmailPrefix), !prefix(p.BuyerFirstname, f.FirstPrefix), !prefix(p.BuyerLastname, f.LastPrefix),
		f.Domain != "" && !(Cond{Field: FieldDomain, Texts: []string{f.Domain}}).MatchPurchase(p),
		f.CreatedFrom != nil && p.CreatedAt.Before(*f.CreatedFrom),
		f.CreatedBefore != nil && !p.CreatedAt.Before(*f.CreatedBefore),
		f.Unshipped != nil && (p.TangiblesToShip != nil && *p.TangiblesToShip > 0) != *f.Unshipped:
		return false
	}
	if f.Total != "" {
		k := decimal(string(p.Total)).Cmp(decimal(f.Total))
		switch f.TotalOp {
		case shop.TotalEq:
			return k == 0
		case shop.TotalNe:
			return k != 0
		case shop.TotalGt:
			return k > 0
		case shop.TotalLt:
			return k < 0
		}
	}
	return true
}

func TestConjunction_PurchaseFilter(t *testing.T) {
	for _, tt := range []struct {
		q        string
		residual int
	}{
		{`status:act,rfd storefront:1 email:zoe created:2024-11-01..2024-11-30 total>50 ship:yes`, 0},
		{`id:1,2,42 product:101 customer:10 subscriber:7 first:zo last:m total:10`, 0},
		{`-total:10 total<=20`, 1},
		{`storefront:1 storefront:2 email:a email:b`, 2},
		{`id>3 name:b domain:acme.io currency:usd -status:act zoe`, 5},
		{`domain:acme.io domain:example.org,acme.io`, 1},
		{`created>=-30days created<2024-11-20 is:shipped total<20`, 1},
		{`product:100,101 -ship:yes total:1..100`, 3},
	} {
		t.Run(tt.q, func(t *testing.T) {
			r, err := MustParse(Purchases, tt.q).Resolve(testNow, paris)
			if err != nil {
				t.Fatal(err)
			}
			cs, _ := r.DNF()
			f, rest := cs[0].PurchaseFilter(9)
			if f.AccountID != 9 {
				t.Fatalf("got account %d, want 9", f.AccountID)
			}
			if len(rest) != tt.residual {
				t.Fatalf("got %d residual conditions, want %d: %+v", len(rest), tt.residual, rest)
			}
			for _, p := range testPurchases {
				if got, want := matchFilter(f, p) && rest.MatchPurchase(p), cs[0].MatchPurchase(p); got != want {
					t.Fatalf("purchase %d: filter and residual say %v, the conjunction %v", p.ID, got, want)
				}
			}
		})
	}
}
