package mysql_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// checkDerived fails the test when a stored document, a product-path row or a prefix
// row differs from what the normalised rows give when rebuilt from scratch.
func checkDerived(t *testing.T, db *mysql.DB, after string) {
	t.Helper()
	bad, err := db.DerivedMismatches(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Errorf("after %s: %s", after, b)
	}
}

func TestDocuments_RebuiltEqual(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	checkDerived(t, db, "import")
	importFile(t, db, importFixturePath)
	checkDerived(t, db, "the same import again")

	// A re-import of purchase 1 that renames its customer (700) changes the document
	// of the customer's other purchase too.
	var full struct {
		Purchases []json.RawMessage `json:"purchases"`
	}
	raw, err := os.ReadFile(importFixturePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &full); err != nil {
		t.Fatal(err)
	}
	var p1 map[string]any
	if err := json.Unmarshal(full.Purchases[0], &p1); err != nil {
		t.Fatal(err)
	}
	p1["customer"].(map[string]any)["firstname"] = "Renamed"
	p1["created_at"] = 1700000000 // moves it in the list order, and on the product path
	// New buyer names and e-mail: its prefix rows are replaced, the old ones found by
	// the keys the old row gave them.
	p1["buyer_firstname"], p1["buyer_lastname"], p1["buyer_email"] = "Renée", "Ørsted", "renee@example.com"
	doc, _ := json.Marshal(map[string]any{"purchases": []any{p1}})
	if _, err := importer.Run(ctx, db, strings.NewReader(string(doc)), nil); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "a re-import that renames a customer")
	other, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, 9007199254740993)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(other), `"firstname":"Renamed"`) {
		t.Errorf("purchase 9007199254740993 of the renamed customer: got %s", other)
	}

	// Reactivation, with and without refulfilment.
	for _, refulfill := range []bool{false, true} {
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: 4, Refulfill: refulfill, Actor: "test",
			CustomerEmail: "support@example.com"}); err != nil {
			t.Fatal(err)
		}
		checkDerived(t, db, "a reactivation")
	}
	got, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"status":"ACT"`) {
		t.Errorf("purchase 4 after reactivation: got %s, want status ACT", got)
	}

	// Seeded purchases get theirs in the seed's transactions.
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 300, Subscribers: 30, Seed: 4}, nil); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "a seed")
}

func TestDocuments_Backfill(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	dbtest.MustExec(t, db.DB, "DELETE FROM purchase_documents WHERE purchase_id IN (1, 4)")
	n, err := db.BackfillDocuments(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("backfilled: got %d, want 2", n)
	}
	checkDerived(t, db, "a backfill")
}
