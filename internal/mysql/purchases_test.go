package mysql_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// fixture is a small, varied data set for the read-path tests: two accounts, three
// storefronts, purchases with every status, tricky names, equal timestamps and every
// shipping state. Its ids are counted from base (dbtest.IDBase): account 1 of the
// fixture is base+1, storefront 10 is base+10, purchase 1001 is base+1001, and so on.
type fixture struct {
	base      int64
	purchases []*shop.Purchase
	// products maps purchase id to its product ids.
	products map[int64][]int64
}

// id returns the fixture's id n (an account, storefront, subscriber, purchase,
// customer, product, line item or subscription id as counted from 0) above its base.
func (f fixture) id(n int64) int64 { return f.base + n }

func strp(s string) *string { return &s }

func buildFixture(idBase int64) fixture {
	f := fixture{base: idBase, products: map[int64][]int64{}}
	emails := []struct{ email, first, last string }{
		{"zoe@example.com", "Zoë", "Müller"},
		{"ZOE.B@example.org", "zoe", "Mueller"},
		{"a%b@example.com", "Ann%", "Lee_"},
		{"a_b@example.com", "Ann_", "Lee%"},
		{`back\slash@example.com`, `Back\`, `Sl\ash`},
		{"jose@example.es", "José", "García"},
		{"bob@example.net", "Bob", "Smith"},
		{"abb@example.com", "Annb", "Leex"},
	}
	base := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
	statuses := shop.PurchaseStatuses
	id := int64(1000)
	for i := 0; i < 48; i++ {
		id += int64(1 + i%3)
		account, sf, cur := int64(1), int64(10), "USD"
		switch {
		case i%6 == 4:
			sf, cur = 11, "EUR"
		case i%6 == 5:
			account, sf, cur = 2, 20, "JPY"
		}
		// Every fourth purchase shares its timestamp with the one before it, so that
		// ordering and keyset paging must break ties by id.
		created := base.Add(time.Duration(i) * 7 * time.Hour)
		if i%4 == 3 {
			created = base.Add(time.Duration(i-1) * 7 * time.Hour)
		}
		who := emails[i%len(emails)]
		digits, _ := shop.CurrencyDigits(cur)
		totalMinor := int64(1000 + 250*(i%5))
		p := &shop.Purchase{
			ID: f.id(id), AccountID: f.id(account), Timestamps: shop.Timestamps{CreatedAt: shop.NewTime(created), UpdatedAt: shop.NewTime(created.Add(time.Hour))},
			StorefrontID: f.id(sf), Salt: fmt.Sprintf("salt%d", id), Status: statuses[i%len(statuses)], Currency: cur,
			Subtotal: shop.FormatMinor(totalMinor, digits), Discount: shop.FormatMinor(0, digits), Tax: shop.FormatMinor(0, digits),
			Shipping: shop.FormatMinor(0, digits), Total: shop.FormatMinor(totalMinor, digits),
			BuyerEmail: strp(who.email), BuyerFirstname: strp(who.first), BuyerLastname: strp(who.last),
			CustomFields: []shop.CustomField{}, Coupons: []shop.Coupon{}, Transactions: []shop.Transaction{},
		}
		switch i % 3 {
		case 0: // no shipping
		case 1:
			p.RequiresShipping = true
			n := int64(i % 2 * 2)
			p.TangiblesToShip = &n
		case 2:
			p.RequiresShipping = true
			n := int64(1 + i%4)
			p.TangiblesToShip = &n
		}
		if i%5 != 0 {
			cid := int64(500+i%4) + 10*account
			p.Customer = &shop.Customer{ID: f.id(cid), Email: strp(fmt.Sprintf("c%d@example.com", cid)), Timestamps: shop.Timestamps{CreatedAt: shop.NewTime(base), UpdatedAt: shop.NewTime(base)}}
		}
		if i%7 == 0 && account == 1 {
			sid := f.id(700 + sf)
			p.SubscriberID = &sid
		}
		prod := 100*sf + int64(i%3)
		p.LineItems = []shop.LineItem{{ID: f.id(id*10 + 1), PurchaseID: f.id(id), ProductID: f.id(prod), Price: p.Subtotal, Quantity: 1,
			Subtotal: p.Subtotal, Tax: shop.FormatMinor(0, digits), Discount: shop.FormatMinor(0, digits), Total: p.Subtotal,
			ProductName: fmt.Sprintf("Product %d", prod), ProductKeys: []string{}}}
		f.products[f.id(id)] = []int64{f.id(prod)}
		if i%4 == 0 {
			prod2 := 100*sf + 9
			zero := shop.FormatMinor(0, digits)
			p.LineItems = append(p.LineItems, shop.LineItem{ID: f.id(id*10 + 2), PurchaseID: f.id(id), ProductID: f.id(prod2), Price: zero, Quantity: 2,
				Subtotal: zero, Tax: zero, Discount: zero, Total: zero, ProductName: "Bonus", ProductKeys: []string{"K-1", "K-2"}, HasAllKeys: true})
			f.products[f.id(id)] = append(f.products[f.id(id)], f.id(prod2))
		}
		f.purchases = append(f.purchases, p)
	}
	return f
}

// document writes the fixture in the import format (docs/API.md#import-documents).
func (f fixture) document() []byte {
	type sub struct {
		shop.Subscriber
		StorefrontID int64 `json:"storefront_id"`
	}
	type pur struct {
		*shop.Purchase
		SubscriberID *int64 `json:"subscriber_id"`
	}
	at := shop.NewTime(time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC))
	var doc struct {
		Accounts    []map[string]any `json:"accounts"`
		Storefronts []map[string]any `json:"storefronts"`
		Subscribers []sub            `json:"subscribers"`
		Purchases   []pur            `json:"purchases"`
	}
	// API user names are unique across accounts: above a base, they carry it.
	doc.Accounts = []map[string]any{
		{"id": f.id(1), "name": "One", "api_username": importAPIUsernameAt("one", f.base), "timezone": "UTC"},
		{"id": f.id(2), "name": "Two", "api_username": importAPIUsernameAt("two", f.base), "timezone": "Asia/Tokyo"},
	}
	doc.Storefronts = []map[string]any{
		{"id": f.id(10), "account_id": f.id(1), "name": "Ten", "download_limit": 5, "download_days": 30, "currency": "USD"},
		{"id": f.id(11), "account_id": f.id(1), "name": "Eleven", "download_limit": 0, "download_days": 0},
		{"id": f.id(20), "account_id": f.id(2), "name": "Twenty", "download_limit": 3, "download_days": 7, "currency": "JPY"},
	}
	doc.Subscribers = []sub{
		{shop.Subscriber{ID: f.id(710), Timestamps: shop.Timestamps{CreatedAt: at, UpdatedAt: at}, Username: "Sub@Example.com"}, f.id(10)},
		{shop.Subscriber{ID: f.id(711), Timestamps: shop.Timestamps{CreatedAt: at, UpdatedAt: at}, Username: "sub11@example.com"}, f.id(11)},
	}
	for _, p := range f.purchases {
		doc.Purchases = append(doc.Purchases, pur{p, p.SubscriberID})
	}
	b, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return b
}

func loadFixture(t *testing.T) (*mysql.DB, fixture) {
	t.Helper()
	db := dbtest.New(t)
	f := buildFixture(dbtest.IDBase(t))
	if _, err := importer.Run(context.Background(), db, bytes.NewReader(f.document()), io.Discard); err != nil {
		t.Fatalf("import fixture: %v", err)
	}
	return db, f
}

// want applies a predicate to the fixture the way the database should, returning ids
// in (created_at, id) order.
func (f fixture) want(account int64, desc bool, keep func(p *shop.Purchase) bool) []int64 {
	var ps []*shop.Purchase
	for _, p := range f.purchases {
		if p.AccountID == account && keep(p) {
			ps = append(ps, p)
		}
	}
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if !a.CreatedAt.Equal(b.CreatedAt.Time) {
			return a.CreatedAt.Before(b.CreatedAt.Time) != desc
		}
		return (a.ID < b.ID) != desc
	})
	ids := []int64{}
	for _, p := range ps {
		ids = append(ids, p.ID)
	}
	return ids
}

func ids(ps []*shop.Purchase) []int64 {
	out := []int64{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func cmpTotal(total shop.Money, op string, v string) bool {
	a, _ := new(big.Rat).SetString(string(total))
	b, _ := new(big.Rat).SetString(v)
	c := a.Cmp(b)
	switch op {
	case "ne":
		return c != 0
	case "gt":
		return c > 0
	case "lt":
		return c < 0
	}
	return c == 0
}

func hasPrefixFold(s *string, prefix string, fold func(string) string) bool {
	return s != nil && strings.HasPrefix(fold(*s), fold(prefix))
}

// fold approximates utf8mb4_unicode_ci for the fixture's letters.
func fold(s string) string {
	return strings.NewReplacer("ë", "e", "ü", "u", "é", "e", "í", "i").Replace(strings.ToLower(s))
}

func TestPurchaseService_FindPurchases(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	yes, no := true, false
	from := time.Date(2024, 3, 3, 0, 0, 0, 0, time.UTC)
	before := time.Date(2024, 3, 8, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		filter shop.PurchaseFilter
		keep   func(p *shop.Purchase) bool
	}{
		{"All", shop.PurchaseFilter{}, func(p *shop.Purchase) bool { return true }},
		{"Status", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD"}}, func(p *shop.Purchase) bool { return p.Status == "RFD" }},
		{"Statuses", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"ACT", "HLD"}}, func(p *shop.Purchase) bool { return p.Status == "ACT" || p.Status == "HLD" }},
		{"Product", shop.PurchaseFilter{ProductID: f.id(1009)}, func(p *shop.Purchase) bool { return slices.Contains(f.products[p.ID], f.id(1009)) }},
		{"ProductOtherAccount", shop.PurchaseFilter{ProductID: f.id(2000)}, func(p *shop.Purchase) bool { return false }},
		{"Storefront", shop.PurchaseFilter{StorefrontID: f.id(11)}, func(p *shop.Purchase) bool { return p.StorefrontID == f.id(11) }},
		{"StorefrontOtherAccount", shop.PurchaseFilter{StorefrontID: f.id(20)}, func(p *shop.Purchase) bool { return false }},
		{"Customer", shop.PurchaseFilter{CustomerID: f.id(511)}, func(p *shop.Purchase) bool { return p.Customer != nil && p.Customer.ID == f.id(511) }},
		{"Subscriber", shop.PurchaseFilter{SubscriberID: f.id(710)}, func(p *shop.Purchase) bool { return p.SubscriberID != nil && *p.SubscriberID == f.id(710) }},
		{"EmailPrefixCase", shop.PurchaseFilter{EmailPrefix: "zoe"}, func(p *shop.Purchase) bool { return hasPrefixFold(p.BuyerEmail, "zoe", strings.ToLower) }},
		{"EmailPercentLiteral", shop.PurchaseFilter{EmailPrefix: "a%"}, func(p *shop.Purchase) bool { return strings.HasPrefix(*p.BuyerEmail, "a%") }},
		{"EmailUnderscoreLiteral", shop.PurchaseFilter{EmailPrefix: "a_"}, func(p *shop.Purchase) bool { return strings.HasPrefix(*p.BuyerEmail, "a_") }},
		{"EmailBackslashLiteral", shop.PurchaseFilter{EmailPrefix: `back\`}, func(p *shop.Purchase) bool { return strings.HasPrefix(*p.BuyerEmail, `back\`) }},
		{"FirstNameAccent", shop.PurchaseFilter{FirstPrefix: "zoe"}, func(p *shop.Purchase) bool { return hasPrefixFold(p.BuyerFirstname, "zoe", fold) }},
		{"FirstNamePercent", shop.PurchaseFilter{FirstPrefix: "Ann%"}, func(p *shop.Purchase) bool { return *p.BuyerFirstname == "Ann%" }},
		{"LastNameAccent", shop.PurchaseFilter{LastPrefix: "muller"}, func(p *shop.Purchase) bool { return hasPrefixFold(p.BuyerLastname, "muller", fold) }},
		{"LastNameUnderscore", shop.PurchaseFilter{LastPrefix: "Lee_"}, func(p *shop.Purchase) bool { return *p.BuyerLastname == "Lee_" }},
		{"CreatedFrom", shop.PurchaseFilter{CreatedFrom: &from}, func(p *shop.Purchase) bool { return !p.CreatedAt.Before(from) }},
		{"CreatedBefore", shop.PurchaseFilter{CreatedBefore: &before}, func(p *shop.Purchase) bool { return p.CreatedAt.Before(before) }},
		{"CreatedRangeHalfOpen", shop.PurchaseFilter{CreatedFrom: &from, CreatedBefore: &before}, func(p *shop.Purchase) bool {
			return !p.CreatedAt.Before(from) && p.CreatedAt.Before(before)
		}},
		{"TotalEq", shop.PurchaseFilter{Total: "15", TotalOp: shop.TotalEq}, func(p *shop.Purchase) bool { return cmpTotal(p.Total, "eq", "15") }},
		{"TotalEqFraction", shop.PurchaseFilter{Total: "12.50", TotalOp: shop.TotalEq}, func(p *shop.Purchase) bool { return cmpTotal(p.Total, "eq", "12.5") }},
		{"TotalNe", shop.PurchaseFilter{Total: "15", TotalOp: shop.TotalNe}, func(p *shop.Purchase) bool { return cmpTotal(p.Total, "ne", "15") }},
		{"TotalGt", shop.PurchaseFilter{Total: "12.5", TotalOp: shop.TotalGt}, func(p *shop.Purchase) bool { return cmpTotal(p.Total, "gt", "12.5") }},
		{"TotalLt", shop.PurchaseFilter{Total: "12.5", TotalOp: shop.TotalLt}, func(p *shop.Purchase) bool { return cmpTotal(p.Total, "lt", "12.5") }},
		{"TotalPrecise", shop.PurchaseFilter{Total: "15.000000000000000001", TotalOp: shop.TotalEq}, func(p *shop.Purchase) bool { return false }},
		{"Unshipped", shop.PurchaseFilter{Unshipped: &yes}, func(p *shop.Purchase) bool { return p.TangiblesToShip != nil && *p.TangiblesToShip > 0 }},
		{"Shipped", shop.PurchaseFilter{Unshipped: &no}, func(p *shop.Purchase) bool { return p.TangiblesToShip == nil || *p.TangiblesToShip == 0 }},
		{"Combined", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"ACT", "PND", "ERR"}, StorefrontID: f.id(10), CreatedFrom: &from, Unshipped: &no},
			func(p *shop.Purchase) bool {
				return (p.Status == "ACT" || p.Status == "PND" || p.Status == "ERR") && p.StorefrontID == f.id(10) && !p.CreatedAt.Before(from) &&
					(p.TangiblesToShip == nil || *p.TangiblesToShip == 0)
			}},
		{"CombinedEmailProduct", shop.PurchaseFilter{EmailPrefix: "a", ProductID: f.id(1000), Total: "10", TotalOp: shop.TotalGt},
			func(p *shop.Purchase) bool {
				return strings.HasPrefix(*p.BuyerEmail, "a") && slices.Contains(f.products[p.ID], f.id(1000)) && cmpTotal(p.Total, "gt", "10")
			}},
	}
	for _, tc := range cases {
		for _, desc := range []bool{false, true} {
			name := tc.name
			if desc {
				name += "/Desc"
			}
			t.Run(name, func(t *testing.T) {
				fl := tc.filter
				fl.AccountID, fl.Desc, fl.PerPage, fl.IncludeCount = f.id(1), desc, shop.MaxPerPage, true
				page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, fl)
				if err != nil {
					t.Fatal(err)
				}
				want := f.want(f.id(1), desc, tc.keep)
				if got := ids(page.Purchases); !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
				if page.Total != int64(len(want)) {
					t.Fatalf("count: got %d, want %d", page.Total, len(want))
				}
				if page.Next != nil {
					t.Fatalf("got a next cursor on the only page")
				}
			})
		}
	}
	t.Run("FilterWithResults", func(t *testing.T) {
		// Guard against a fixture so thin that the cases above compare empty lists.
		for _, tc := range cases[1:] {
			if tc.name == "ProductOtherAccount" || tc.name == "StorefrontOtherAccount" || tc.name == "TotalPrecise" {
				continue
			}
			if len(f.want(f.id(1), false, tc.keep)) == 0 {
				t.Errorf("%s: the fixture has no matching purchase", tc.name)
			}
		}
	})
}

func TestPurchaseService_Paging(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	for _, desc := range []bool{false, true} {
		for _, per := range []int{1, 3, 7, 100} {
			t.Run(fmt.Sprintf("Keyset/desc=%v/per=%d", desc, per), func(t *testing.T) {
				want := f.want(f.id(1), desc, func(*shop.Purchase) bool { return true })
				var got []int64
				var after *shop.Cursor
				for pages := 0; ; pages++ {
					if pages > len(want)+1 {
						t.Fatal("paging does not end")
					}
					page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, shop.PurchaseFilter{AccountID: f.id(1), Desc: desc, PerPage: per, After: after})
					if err != nil {
						t.Fatal(err)
					}
					if len(page.Purchases) > per {
						t.Fatalf("page of %d, want at most %d", len(page.Purchases), per)
					}
					got = append(got, ids(page.Purchases)...)
					if page.Next == nil {
						break
					}
					after = page.Next
				}
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
			t.Run(fmt.Sprintf("Offset/desc=%v/per=%d", desc, per), func(t *testing.T) {
				want := f.want(f.id(1), desc, func(*shop.Purchase) bool { return true })
				var got []int64
				for n := 1; n <= len(want)/per+2; n++ {
					page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, shop.PurchaseFilter{AccountID: f.id(1), Desc: desc, PerPage: per, Page: n})
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(page.Purchases)...)
					if (page.Next != nil) != (len(got) < len(want)) {
						t.Fatalf("page %d: next cursor %v with %d of %d seen", n, page.Next, len(got), len(want))
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("got %v, want %v", got, want)
				}
			})
		}
	}
}

func TestPurchaseService_FindPurchaseByID(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	t.Run("OK", func(t *testing.T) {
		for _, want := range f.purchases {
			got, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, want.AccountID, want.ID)
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if !bytes.Equal(gj, wj) {
				t.Fatalf("purchase %d:\n got %s\nwant %s", want.ID, gj, wj)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, f.id(1), 1)
		if shop.ErrorCode(err) != shop.ENotFound {
			t.Fatalf("got %v, want not_found", err)
		}
	})
	t.Run("ErrNotFoundOtherAccount", func(t *testing.T) {
		other := f.purchases[5] // account 2
		if other.AccountID != f.id(2) {
			t.Fatalf("fixture changed: purchase 5 is in account %d", other.AccountID)
		}
		_, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, f.id(1), other.ID)
		if shop.ErrorCode(err) != shop.ENotFound {
			t.Fatalf("got %v, want not_found", err)
		}
	})
}

func TestSubscriberService(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	t.Run("UsernameIgnoresCase", func(t *testing.T) {
		page, err := mysql.NewSubscriberService(db).FindSubscribers(ctx, shop.SubscriberFilter{AccountID: f.id(1), StorefrontID: f.id(10), Username: "sub@EXAMPLE.com"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Subscribers) != 1 || page.Subscribers[0].Username != "Sub@Example.com" {
			t.Fatalf("got %+v", page.Subscribers)
		}
	})
	t.Run("UsernameExact", func(t *testing.T) {
		// Blanks are part of a username: the column's PAD SPACE collation would let
		// "sub@example.com " equal "Sub@Example.com".
		for _, u := range []string{"sub@example.co", "sub@example.com ", " sub@example.com", "sub@example.com\t"} {
			page, err := mysql.NewSubscriberService(db).FindSubscribers(ctx, shop.SubscriberFilter{AccountID: f.id(1), StorefrontID: f.id(10), Username: u})
			if err != nil || len(page.Subscribers) != 0 {
				t.Fatalf("%q: got %v, %v; want none", u, page, err)
			}
		}
	})
	t.Run("ByID", func(t *testing.T) {
		s, err := mysql.NewSubscriberService(db).FindSubscriberByID(ctx, f.id(1), f.id(11), f.id(711))
		if err != nil || s.Username != "sub11@example.com" || s.Subscription != nil {
			t.Fatalf("got %+v, %v", s, err)
		}
	})
	t.Run("ErrNotFoundWrongStorefront", func(t *testing.T) {
		_, err := mysql.NewSubscriberService(db).FindSubscriberByID(ctx, f.id(1), f.id(10), f.id(711))
		if shop.ErrorCode(err) != shop.ENotFound {
			t.Fatalf("got %v, want not_found", err)
		}
	})
	// The dashboard's count stops at its cap and says so; without a cap, or under it,
	// it is exact.
	t.Run("CountCap", func(t *testing.T) {
		all, err := mysql.NewSubscriberService(db).FindSubscribers(ctx, shop.SubscriberFilter{AccountID: f.id(1), IncludeCount: true})
		if err != nil || all.Total < 2 || all.TotalCapped {
			t.Fatalf("uncapped: got %+v, %v; want 2 or more, exact", all, err)
		}
		for _, c := range []struct {
			cap, want int64
			capped    bool
		}{{all.Total - 1, all.Total - 1, true}, {all.Total, all.Total, false}, {all.Total + 1, all.Total, false}} {
			page, err := mysql.NewSubscriberService(db).FindSubscribers(ctx, shop.SubscriberFilter{AccountID: f.id(1), IncludeCount: true, CountCap: c.cap})
			if err != nil || page.Total != c.want || page.TotalCapped != c.capped || len(page.Subscribers) != len(all.Subscribers) {
				t.Errorf("cap %d: got %d (capped %v, %d rows), %v; want %d (capped %v)", c.cap, page.Total, page.TotalCapped, len(page.Subscribers), err, c.want, c.capped)
			}
		}
	})
	t.Run("ErrNotFoundOtherAccount", func(t *testing.T) {
		_, err := mysql.NewSubscriberService(db).FindSubscribers(ctx, shop.SubscriberFilter{AccountID: f.id(2), StorefrontID: f.id(10)})
		if shop.ErrorCode(err) != shop.ENotFound {
			t.Fatalf("got %v, want not_found", err)
		}
	})
}

func TestPurchaseService_ConstantQueries(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	counts := map[int]int{}
	for _, per := range []int{1, 5, 40} {
		page, n, err := db.FindPurchasesCounted(ctx, shop.PurchaseFilter{AccountID: f.id(1), PerPage: per})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Purchases) != min(per, len(f.want(f.id(1), false, func(*shop.Purchase) bool { return true }))) {
			t.Fatalf("per_page %d: got %d purchases", per, len(page.Purchases))
		}
		counts[per] = n
	}
	if counts[1] != counts[40] || counts[5] != counts[40] || counts[40] > 7 {
		t.Fatalf("queries per page size: got %v, want the same small number for every size", counts)
	}
}
