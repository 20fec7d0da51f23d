package mysql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestExportPurchases_BothReads: an export read as ranges of the primary keys and one
// read by id lists hold exactly the purchases of the list's one read path, in its
// order, with the same fields and line items, for filters that leave the batches dense
// and sparse, in both orders and with batches small enough to need many.
func TestExportPurchases_BothReads(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	base := dbtest.IDBase(t)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 600, Subscribers: 40, Seed: 5, IDBase: base}, nil); err != nil {
		t.Fatal(err)
	}
	// Another account's purchases lie between the account's in both primary keys.
	var account int64
	if err := db.QueryRowContext(ctx, "SELECT account_id FROM purchases GROUP BY account_id ORDER BY COUNT(*) DESC LIMIT 1").Scan(&account); err != nil {
		t.Fatal(err)
	}
	var other int
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM purchases WHERE account_id <> ?", account).Scan(&other); err != nil || other == 0 {
		t.Fatalf("purchases of other accounts: got %d, %v; want some, so that ranges cross them", other, err)
	}
	filters := map[string]shop.PurchaseFilter{
		"all":            {},
		"all, desc":      {Desc: true},
		"status ACT":     {Statuses: []shop.PurchaseStatus{shop.PurchaseActive}},
		"status RFD":     {Statuses: []shop.PurchaseStatus{shop.PurchaseRefunded}, Desc: true},
		"storefront":     {StorefrontID: base + 1},
		"total over 100": {Total: "100", TotalOp: shop.TotalGt},
	}
	for name, f := range filters {
		t.Run(name, func(t *testing.T) {
			f.AccountID = account
			for _, lines := range []shop.ExportLines{shop.ExportLineItems, shop.ExportProducts} {
				want := listAll(t, mysql.NewPurchaseService(db), f, lines)
				if len(want) == 0 {
					t.Fatalf("%s matches nothing: the comparison proves little", name)
				}
				for _, dense := range []bool{true, false} {
					var got []string
					var err error
					f.PerPage = 13
					mysql.ExportDense(dense, func() {
						err = mysql.NewPurchaseService(db).ExportPurchases(ctx, f, lines, func(ps []*shop.Purchase) error {
							for _, p := range ps {
								got = append(got, exportedFields(p, lines))
							}
							return nil
						})
					})
					if err != nil {
						t.Fatal(err)
					}
					if len(got) != len(want) {
						t.Fatalf("lines %v, dense %v: got %d purchases, want %d", lines, dense, len(got), len(want))
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("lines %v, dense %v: purchase %d:\n got %s\nwant %s", lines, dense, i, got[i], want[i])
						}
					}
				}
			}
		})
	}
}

// listAll pages through the list's read path to the end and returns each purchase's
// exported fields.
func listAll(t *testing.T, db interface {
	FindPurchases(context.Context, shop.PurchaseFilter) (*shop.PurchasePage, error)
}, f shop.PurchaseFilter, lines shop.ExportLines) []string {
	t.Helper()
	var out []string
	f.PerPage = 100
	for {
		page, err := db.FindPurchases(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range page.Purchases {
			out = append(out, exportedFields(p, lines))
		}
		if page.Next == nil {
			return out
		}
		f.After = page.Next
	}
}

// exportedFields are the fields of a purchase that the CSV export reads for lines: of
// its line items only the product names and quantities for shop.ExportProducts.
func exportedFields(p *shop.Purchase, lines shop.ExportLines) string {
	type item struct {
		ID, ProductID, Quantity, DownloadCount, DownloadLimit int64
		Name                                                  string
		Price, Total                                          shop.Money
		Expires                                               *shop.Time
	}
	v := struct {
		ID, Storefront                           int64
		Created                                  int64
		Status                                   shop.PurchaseStatus
		Currency                                 string
		Subtotal, Discount, Tax, Shipping, Total shop.Money
		Email, First, Last                       *string
		Customer                                 int64
		Subscriber, ToShip                       *int64
		Items                                    []item
	}{ID: p.ID, Storefront: p.StorefrontID, Created: p.CreatedAt.Unix(), Status: p.Status, Currency: p.Currency,
		Subtotal: p.Subtotal, Discount: p.Discount, Tax: p.Tax, Shipping: p.Shipping, Total: p.Total,
		Email: p.BuyerEmail, First: p.BuyerFirstname, Last: p.BuyerLastname, Subscriber: p.SubscriberID, ToShip: p.TangiblesToShip}
	if p.Customer != nil {
		v.Customer = p.Customer.ID
	}
	for _, li := range p.LineItems {
		if lines == shop.ExportProducts {
			v.Items = append(v.Items, item{Quantity: li.Quantity, Name: li.ProductName})
			continue
		}
		v.Items = append(v.Items, item{li.ID, li.ProductID, li.Quantity, li.DownloadCount, li.DownloadLimit, li.ProductName, li.Price, li.Total, li.ExpiresAt})
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(err)
	}
	return string(b)
}
