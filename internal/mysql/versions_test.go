package mysql_test

import (
	"context"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestPurchaseVersions_Writers checks that every writer of purchases moves the
// account's purchases version in its transaction, that a refused reactivation does not,
// and that the version read with a page or a purchase is the account's.
func TestPurchaseVersions_Writers(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	version := func(account int64) int64 {
		t.Helper()
		v, err := mysql.NewPurchaseService(db).PurchasesVersion(ctx, account)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	moved := func(what string, account, before int64) int64 {
		t.Helper()
		v := version(account)
		if v <= before {
			t.Errorf("after %s: account %d's version got %d, want more than %d", what, account, v, before)
		}
		return v
	}
	if v := version(1); v != 0 {
		t.Fatalf("an account never written: got version %d, want 0", v)
	}

	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 300, Subscribers: 30, Seed: 4}, nil); err != nil {
		t.Fatal(err)
	}
	v1 := moved("the seed", 1, 0)
	moved("the seed", 2, 0)

	importFile(t, db, importFixturePath)
	v1 = moved("an import", 1, v1)

	var act, refunded int64
	if err := db.QueryRow("SELECT id FROM purchases WHERE account_id = 1 AND status = 'ACT' AND buyer_email LIKE '%@%.%' ORDER BY id LIMIT 1").Scan(&act); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT id FROM purchases WHERE account_id = 1 AND status = 'RFD' ORDER BY id LIMIT 1").Scan(&refunded); err != nil {
		t.Fatal(err)
	}
	v2 := version(2)
	if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: act, Refulfill: true, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	v1 = moved("a reactivation with refulfilment", 1, v1)
	if v := version(2); v != v2 {
		t.Errorf("a reactivation in account 1 moved account 2's version: got %d, want %d", v, v2)
	}

	// Refused: nothing changed, nothing moves (the remembered 409 commits, without it).
	_, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: refunded, Actor: "test", IdempotencyKey: "k1"})
	if shop.ErrorCode(err) != shop.EConflict {
		t.Fatalf("reactivating a refunded purchase: got %v, want a conflict", err)
	}
	if v := version(1); v != v1 {
		t.Errorf("after a refused reactivation: got version %d, want %d", v, v1)
	}

	job, err := mysql.NewJobService(db).CreateReactivationJob(ctx, 1, "ops@example.com", []int64{act}, false)
	if err != nil {
		t.Fatal(err)
	}
	for {
		worked, err := mysql.NewJobService(db).RunJobStep(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !worked {
			break
		}
	}
	if job.Total != 1 {
		t.Fatalf("job total: got %d, want 1", job.Total)
	}
	v1 = moved("a bulk reactivation job", 1, v1)

	if _, err := db.Exec("DELETE FROM purchase_documents WHERE account_id = 1 AND purchase_id = ?", act); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BackfillDocuments(ctx); err != nil {
		t.Fatal(err)
	}
	v1 = moved("the documents' backfill", 1, v1)

	if err := mysql.RebuildDerived(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	v1 = moved("RebuildDerived", 1, v1)
	moved("RebuildDerived", 2, v2)

	page, err := mysql.NewPurchaseService(db).FindPurchaseDocuments(ctx, shop.PurchaseFilter{AccountID: 1, PerPage: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if page.Version != v1 {
		t.Errorf("a page's version: got %d, want %d", page.Version, v1)
	}
	empty, err := mysql.NewPurchaseService(db).FindPurchaseDocuments(ctx, shop.PurchaseFilter{AccountID: 1, CustomerID: 999999999, IncludeCount: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if empty.Version != v1 || string(empty.Body) != "[]\n" || empty.Total != 0 {
		t.Errorf("an empty page: got version %d, body %q, total %d; want %d, \"[]\\n\", 0", empty.Version, empty.Body, empty.Total, v1)
	}
	_, v, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, act, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v != v1 {
		t.Errorf("a purchase's version: got %d, want %d", v, v1)
	}
}
