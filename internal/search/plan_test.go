package search

import (
	"slices"
	"strings"
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
		f.Domain != "" && !(Cond{Field: FieldDomain, Cond: shop.Cond{Texts: []string{f.Domain}}}).MatchPurchase(p),
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

// fromShop is a shop condition as the search package's, to evaluate it.
func fromShop(c shop.Cond) Cond {
	return Cond{Field: Field(c.Field), Cond: c}
}

// TestApplyPurchases_Splits checks the union ApplyPurchases makes of a query: how many
// filters, which fields lead them, and that a purchase matches one of them (its fields
// and its Where) exactly when it matches the query.
func TestApplyPurchases_Splits(t *testing.T) {
	eightWords := `ann OR bob OR 42 OR "van der" OR zo OR mü OR st OR b`
	for _, tt := range []struct {
		q, base string
		leads   []string // each filter's fields that lead a path, in order; one filter: no union
	}{
		{`name:ann`, "", []string{"first", "last"}},
		{`ann`, "", []string{"email", "first", "last"}},
		{`42`, "", []string{"email", "first", "last", "ids"}},
		{`email:a,b status:act`, "", []string{"email", "email"}},
		{`domain:acme.io,x.org`, "", []string{"domain", "domain"}},
		{`domain:acme.io`, "", []string{"domain"}},
		{`name:a,b zoe`, "", []string{"email", "first", "last"}}, // the bare word: three alternatives, the list four
		{`name:a email:zo`, "", []string{"email"}},               // a prefix leads: name is checked
		{`name:a product:101`, "", []string{"product"}},
		{`name:a`, "email", []string{"email"}}, // the list's own e-mail filter leads
		{`-name:a`, "", []string{""}},          // a negation is checked on the list order
		{`name:a OR status:act`, "", []string{"first", "last", ""}},
		{eightWords, "", []string{"email", "first", "last", "email", "first", "last", "email", "first", "last", "ids",
			"email", "first", "last", "email", "first", "last", "email", "first", "last", "email", "first", "last", "email", "first", "last"}},
		{eightWords + ` OR c`, "", nil}, // past the limits: refused by the parser
		// 34 alternatives, more than MaxPaths: checked on the list order.
		{`name:a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q`, "", []string{""}},
		{`name:a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p`, "", []string{"first", "last", "first", "last", "first", "last", "first", "last",
			"first", "last", "first", "last", "first", "last", "first", "last", "first", "last", "first", "last", "first", "last",
			"first", "last", "first", "last", "first", "last", "first", "last", "first", "last"}},
	} {
		t.Run(tt.q, func(t *testing.T) {
			q, err := Parse(Purchases, tt.q)
			if tt.leads == nil {
				if err == nil {
					t.Fatal("parsed")
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
			base := shop.PurchaseFilter{AccountID: 9, PerPage: 7, Desc: true}
			if tt.base == "email" {
				base.EmailPrefix = "z"
			}
			f, err := r.ApplyPurchases(base)
			if err != nil {
				t.Fatal(err)
			}
			fs := f.Any
			if len(tt.leads) == 1 {
				if fs != nil {
					t.Fatalf("a union of %d", len(fs))
				}
				fs = []shop.PurchaseFilter{f}
			} else if f.PerPage != 7 || !f.Desc || f.AccountID != 9 {
				t.Fatalf("the union's paging: %+v", f)
			}
			var leads []string
			for _, b := range fs {
				var l []string
				for name, set := range map[string]bool{"ids": b.IDs != nil, "product": b.ProductID != 0, "email": b.EmailPrefix != "",
					"first": b.FirstPrefix != "", "last": b.LastPrefix != "", "domain": b.Domain != ""} {
					if set {
						l = append(l, name)
					}
				}
				slices.Sort(l)
				leads = append(leads, strings.Join(l, "+"))
			}
			if !slices.Equal(leads, tt.leads) {
				t.Errorf("leads %q, want %q", leads, tt.leads)
			}
			for _, p := range append(testPurchases, &shop.Purchase{ID: 43, BuyerEmail: ptr("ann@acme.io"), BuyerLastname: ptr("Bobson")}) {
				got := slices.ContainsFunc(fs, func(b shop.PurchaseFilter) bool {
					return matchFilter(b, p) && !slices.ContainsFunc(b.Where, func(c shop.Cond) bool { return !fromShop(c).MatchPurchase(p) })
				})
				want := r.MatchPurchase(p) && matchFilter(base, p)
				if got != want {
					t.Errorf("purchase %d: the filters say %v, the query %v", p.ID, got, want)
				}
			}
		})
	}
}
