package mysql_test

import (
	"context"
	"io"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestStatementShapes sends every statement shape the purchase and subscriber list
// planners can produce (shapes_enum_test.go), and the customer page's statements, on
// a small seeded database, as request statements: with STOREFRONT_RECORD_SQL set they
// are recorded for the Vitess check (scripts/vtcheck.sh, docs/SCALING.md). Every one
// must run on MariaDB and name the account (tenancyProblem).
func TestStatementShapes(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	now := time.Now().UTC().Truncate(time.Second)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 60, Subscribers: 20, Seed: 5, Now: now}, io.Discard); err != nil {
		t.Fatal(err)
	}
	var sf, pid int64
	var email string
	if err := db.QueryRow("SELECT storefront_id, id, buyer_email FROM purchases WHERE account_id = 1 ORDER BY id LIMIT 1").Scan(&sf, &pid, &email); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep, err := db.SendStatementShapes(ctx, 1, sf, now, dbtest.AsRequest)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sent %d purchase and %d subscriber statements in %v", len(rep.Purchases), len(rep.Subscribers), time.Since(start).Round(time.Millisecond))
	for _, s := range append(rep.Purchases, rep.Subscribers...) {
		if p := tenancyProblem(s); p != "" {
			t.Errorf("%s:\n\t%s", p, s)
		}
	}

	t.Run("CustomerPage", func(t *testing.T) {
		// web/customer_page.go: the figures, the purchases (first page and after a
		// cursor), the activity, the e-mails, the notes, adding and deleting one.
		ctx := dbtest.AsRequest(ctx, "enumerated customer page")
		svc := mysql.NewCustomerService(db)
		if _, err := svc.FindCustomer(ctx, 1, email); err != nil {
			t.Fatal(err)
		}
		page, err := svc.FindCustomerPurchases(ctx, 1, email, nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.FindCustomerPurchases(ctx, 1, email, &shop.Cursor{CreatedAt: now, ID: pid}, 1); err != nil {
			t.Fatal(err)
		}
		// Each list's first page and a page after an entry.
		for _, before := range []int64{0, 1 << 40} {
			if _, _, err := svc.FindCustomerActivity(ctx, 1, email, before, 20); err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.FindCustomerEmails(ctx, 1, email, before, 20); err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.FindCustomerNotes(ctx, 1, email, before, 20); err != nil {
				t.Fatal(err)
			}
		}
		user := &shop.User{ID: 1, AccountID: 1, Email: "owner@example.com", Role: shop.RoleOwner}
		for _, n := range []shop.Note{{AccountID: 1, CustomerEmail: email, Body: "called"}, {AccountID: 1, PurchaseID: page.Purchases[0].ID, Body: "sent again"}} {
			added, err := svc.AddNote(ctx, user, n)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := svc.FindCustomerNotes(ctx, 1, email, 0, 20); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.FindPurchaseNotes(ctx, 1, page.Purchases[0].ID); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.DeleteNote(ctx, user, added.ID); err != nil {
				t.Fatal(err)
			}
		}
	})
}
