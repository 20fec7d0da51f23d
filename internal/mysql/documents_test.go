package mysql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"slices"
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
	// Across accounts: through a vtgate, once on each shard (dbtest.EachShard).
	dbtest.EachShard(t, db.DB, func(q *sql.DB) error {
		bad, err := (&mysql.DB{DB: q, Now: db.Now}).DerivedMismatches(context.Background())
		if err != nil {
			return err
		}
		for _, b := range bad {
			t.Errorf("after %s: %s", after, b)
		}
		return nil
	})
}

func TestDocuments_RebuiltEqual(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	checkDerived(t, db, "import")
	// Two full batches, whose statements of statementRows rows go prepared.
	var many strings.Builder
	many.WriteString(`{"purchases":[`)
	for i := range 2 * importer.DefaultPurchaseBatchSize {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(importPurchaseJSON(int64(50000+i), fmt.Sprintf(`,"buyer_email":"b%d@example.com","buyer_firstname":"Ann %d","buyer_lastname":"Lee"`, i, i)))
	}
	many.WriteString(`]}`)
	if _, err := importer.Run(ctx, db, strings.NewReader(many.String()), nil); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "an import of two full batches")
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
	other, _, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, 9007199254740993, nil)
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
	got, _, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, 4, nil)
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

// TestFindPurchaseDocuments_Missing reads a page, and a purchase, whose stored
// documents are gone: they are built from the rows, in their places, and the answer is
// the same bytes, with the same next page and count.
func TestFindPurchaseDocuments_Missing(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 200, Subscribers: 20, Seed: 7}, nil); err != nil {
		t.Fatal(err)
	}
	for _, desc := range []bool{false, true} {
		f := shop.PurchaseFilter{AccountID: 1, PerPage: 20, Desc: desc, IncludeCount: true}
		want, err := mysql.NewPurchaseService(db).FindPurchaseDocuments(ctx, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		var docs []json.RawMessage
		if err := json.Unmarshal(want.Body, &docs); err != nil || len(docs) != 20 || want.Next == nil || want.Total < 21 {
			t.Fatalf("the page: %d documents, next %v, total %d, %v", len(docs), want.Next, want.Total, err)
		}
		var ids []int64
		for _, i := range []int{0, 7, 19} {
			var p struct{ ID int64 }
			if err := json.Unmarshal(docs[i], &p); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, p.ID)
		}
		one, _, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, ids[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("DELETE FROM purchase_documents WHERE account_id = 1 AND purchase_id IN (?, ?, ?)", ids[0], ids[1], ids[2]); err != nil {
			t.Fatal(err)
		}
		got, err := mysql.NewPurchaseService(db).FindPurchaseDocuments(ctx, f, []byte("kept"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got.Body) != string(want.Body) || *got.Next != *want.Next || got.Total != want.Total {
			t.Errorf("desc=%v, documents %v missing: got %d bytes, next %v, total %d; want %d bytes, next %v, total %d",
				desc, ids, len(got.Body), got.Next, got.Total, len(want.Body), want.Next, want.Total)
		}
		again, _, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, ids[1], nil)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(one) {
			t.Errorf("purchase %d without its document: got %s, want %s", ids[1], again, one)
		}
		if _, err := db.BackfillDocuments(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := mysql.NewPurchaseService(db).FindPurchaseDocument(ctx, 1, 999999999, nil); shop.ErrorCode(err) != shop.ENotFound {
		t.Errorf("an unknown purchase: got %v, want not found", err)
	}
}

// TestFindPurchaseDocuments_ProbedFilters reads the API's pages of filters whose ids
// are checked with correlated probes of a path table (two name prefixes, a product
// with a customer or an e-mail prefix), whose statement reads the ids first
// (idsLead): each page holds the matches in list order with the count and the
// account's purchases version, and an empty page answers them too (headQuery).
func TestFindPurchaseDocuments_ProbedFilters(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 300, Subscribers: 20, Seed: 11}, nil); err != nil {
		t.Fatal(err)
	}
	var (
		first, last, email string
		customer, product  int64
		version            int64
	)
	// A purchase with a product, both names and a customer who bought more than once.
	if err := db.QueryRow(`SELECT LEFT(p.buyer_firstname, 2), LEFT(p.buyer_lastname, 1), LEFT(p.buyer_email, 1), p.customer_id, pp.product_id
		FROM purchases p JOIN purchase_products pp ON pp.account_id = p.account_id AND pp.purchase_id = p.id
		WHERE p.account_id = 1 AND CHAR_LENGTH(p.buyer_firstname) >= 2 AND p.buyer_lastname <> ''
		AND (SELECT COUNT(*) FROM purchases c WHERE c.account_id = 1 AND c.customer_id = p.customer_id) > 1
		ORDER BY p.id LIMIT 1`).Scan(&first, &last, &email, &customer, &product); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT version FROM purchase_versions WHERE account_id = 1").Scan(&version); err != nil {
		t.Fatal(err)
	}
	like := func(s string) string { return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%" }
	onProduct := "EXISTS (SELECT 1 FROM purchase_products pp WHERE pp.account_id = 1 AND pp.product_id = ? AND pp.purchase_id = p.id)"
	svc := mysql.NewPurchaseService(db)
	for _, tc := range []struct {
		name  string
		f     shop.PurchaseFilter
		where string
		args  []any
	}{
		{"first and last name", shop.PurchaseFilter{FirstPrefix: first, LastPrefix: last},
			"p.buyer_firstname LIKE ? AND p.buyer_lastname LIKE ?", []any{like(first), like(last)}},
		{"product and customer", shop.PurchaseFilter{ProductID: product, CustomerID: customer},
			onProduct + " AND p.customer_id = ?", []any{product, customer}},
		{"product and e-mail", shop.PurchaseFilter{ProductID: product, EmailPrefix: email},
			onProduct + " AND p.buyer_email LIKE ?", []any{product, like(email)}},
		{"no match", shop.PurchaseFilter{FirstPrefix: first, LastPrefix: "\u00a7"},
			"p.buyer_firstname LIKE ? AND p.buyer_lastname LIKE ?", []any{like(first), like("\u00a7")}},
	} {
		for _, desc := range []bool{false, true} {
			order := " ORDER BY p.created_at, p.id"
			if desc {
				order = " ORDER BY p.created_at DESC, p.id DESC"
			}
			want := dbtest.Query(t, db.DB, func(rows *sql.Rows) (int64, error) {
				var id int64
				return id, rows.Scan(&id)
			}, "SELECT p.id FROM purchases p WHERE p.account_id = 1 AND "+tc.where+order, tc.args...)
			if tc.name != "no match" && len(want) < 2 {
				t.Fatalf("%s: %d matches; the fixture should give a page of several", tc.name, len(want))
			}
			f := tc.f
			f.AccountID, f.Desc, f.IncludeCount, f.PerPage = 1, desc, true, 3
			page, err := svc.FindPurchaseDocuments(ctx, f, nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var docs []struct{ ID int64 }
			if err := json.Unmarshal(page.Body, &docs); err != nil {
				t.Fatalf("%s: %q: %v", tc.name, page.Body, err)
			}
			var got []int64
			for _, d := range docs {
				got = append(got, d.ID)
			}
			if !slices.Equal(got, want[:min(3, len(want))]) || page.Total != int64(len(want)) || page.Version != version {
				t.Errorf("%s, desc=%v: ids %v, count %d, version %d; want %v, %d, %d",
					tc.name, desc, got, page.Total, page.Version, want[:min(3, len(want))], len(want), version)
			}
		}
	}
}
