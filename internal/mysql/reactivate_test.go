package mysql_test

import (
	"context"
	"slices"
	"testing"

	"storefront/internal/mysql"
	"storefront/internal/shop"
)

func TestPurchaseService_Reactivate(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	// A pending purchase of account 1: reactivation would make it ACT.
	var p *shop.Purchase
	for _, c := range f.purchases {
		if c.AccountID == f.id(1) && c.Status == shop.PurchasePending && c.BuyerEmail != nil && shop.ValidEmail(*c.BuyerEmail) {
			p = c
			break
		}
	}
	if p == nil {
		t.Fatal("the fixture has no pending purchase of account 1 with a valid address")
	}
	state := func() (status string, outbox, activity int) {
		t.Helper()
		if err := db.QueryRow("SELECT status FROM purchases WHERE id = ? AND account_id = ?", p.ID, f.id(1)).Scan(&status); err != nil {
			t.Fatal(err)
		}
		db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE account_id = ? AND purchase_id = ?", f.id(1), p.ID).Scan(&outbox)
		db.QueryRow("SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ?", p.ID).Scan(&activity)
		return
	}

	t.Run("ErrInvalidAddressTakenAsGiven", func(t *testing.T) {
		// The address is not trimmed into another: each is refused, nothing changes.
		for _, addr := range []string{"victim@example.com\n", "victim@example.com\r\n", "victim@example.com\r\nBcc: x@evil.test", " victim@example.com", "victim@example.com\t"} {
			st0, out0, act0 := state()
			_, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: p.ID, CustomerEmail: addr, Actor: "test", IdempotencyKey: "k-" + addr})
			if shop.ErrorCode(err) != shop.EInvalid || shop.ErrorParam(err) != "customer_email" {
				t.Fatalf("%q: got %v, want invalid customer_email", addr, err)
			}
			if st, out, act := state(); st != st0 || out != out0 || act != act0 {
				t.Fatalf("%q: status %s→%s, outbox %d→%d, activity %d→%d; want nothing changed", addr, st0, st, out0, out, act0, act)
			}
		}
	})

	t.Run("OKBlankMeansOwnAddress", func(t *testing.T) {
		res, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: p.ID, CustomerEmail: " \t", Actor: "test"})
		if err != nil {
			t.Fatal(err)
		}
		want := *p.BuyerEmail
		if p.Customer != nil && p.Customer.Email != nil && *p.Customer.Email != "" {
			want = *p.Customer.Email
		}
		if res.To != want {
			t.Fatalf("sent to %q, want the purchase's own %q", res.To, want)
		}
	})

	t.Run("ErrNotFoundBeforeParams", func(t *testing.T) {
		bad := shop.ParamErrorf(shop.EUnknownParam, "x", "x is not a parameter.")
		// Another account's purchase is not found, whatever the parameters.
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(2), PurchaseID: p.ID, Actor: "test", ParamsErr: bad}); shop.ErrorCode(err) != shop.ENotFound {
			t.Fatalf("got %v, want not_found", err)
		}
		st0, out0, act0 := state()
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: p.ID, Actor: "test", ParamsErr: bad}); err != bad {
			t.Fatalf("got %v, want the parameters' error", err)
		}
		if st, out, act := state(); st != st0 || out != out0 || act != act0 {
			t.Fatalf("status %s→%s, outbox %d→%d, activity %d→%d; want nothing changed", st0, st, out0, out, act0, act)
		}
	})

	t.Run("OKWakesSender", func(t *testing.T) {
		woken := 0
		db.Wake = func(work ...string) {
			if slices.Contains(work, mysql.WorkEmails) {
				woken++
			}
		}
		defer func() { db.Wake = nil }()
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: p.ID, Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: f.id(1), PurchaseID: -1, Actor: "test"}); shop.ErrorCode(err) != shop.ENotFound {
			t.Fatalf("got %v, want not_found", err)
		}
		if woken != 1 {
			t.Fatalf("got the sender woken %d times, want once (after the committed reactivation)", woken)
		}
	})
}
