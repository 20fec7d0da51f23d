package mysql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// importPairValues imports, besides the fixture, three purchases for each of
// prefixValues as e-mail (ids from 2001), spread over every status, tangibles to ship
// or not (null, 0, 2) and the storefront's two products (neither, either, both), and
// returns their ids.
func importPairValues(t *testing.T, db *mysql.DB) []int64 {
	t.Helper()
	importFile(t, db, importFixturePath)
	fx := readImportFixture(t)
	var (
		purchases []any
		ids       []int64
	)
	id := 2001
	for i := range prefixValues {
		for shift := range 3 {
			p := importObject(t, fx.Purchases[0]) // purchase 1: storefront 10, products 900 and 901
			p["id"] = id
			p["salt"] = fmt.Sprintf("mark%d", id)
			p["created_at"] = 1700200000 + (id/2)*60
			p["transactions"] = []any{}
			p["buyer_email"] = jsonValue(prefixValues[i], "@example.com")
			p["status"] = string(shop.PurchaseStatuses[(i+shift)%len(shop.PurchaseStatuses)])
			p["tangibles_to_ship"] = []any{nil, 0, 2}[(i+2*shift)%3]
			var items []any
			for k, li := range p["line_items"].([]any) {
				if id%4&(1<<k) != 0 {
					item := li.(map[string]any)
					item["id"] = id*10 + k
					item["purchase_id"] = id
					items = append(items, item)
				}
			}
			p["line_items"] = append([]any{}, items...)
			purchases = append(purchases, p)
			ids = append(ids, int64(id))
			id++
		}
	}
	doc, err := json.Marshal(map[string]any{"purchases": purchases})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Run(context.Background(), db, strings.NewReader(string(doc)), nil); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "the import of the mark values")
	return ids
}

// TestPairPaths_MatchPlain checks that the pairs' paths (a product or an e-mail prefix
// with ship=1 or a status other than ACT) answer exactly what plain SQL finds, in list order, both ways, a few at a time by cursor,
// for the prefixes of the hostile values of TestPrefixPaths_MatchLike; that the plan
// rule takes them; and that the API's read path answers the same.
func TestPairPaths_MatchPlain(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importPairValues(t, db)
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM purchase_pairs").Scan(&n); err != nil || n < 500 {
		t.Fatalf("the import wrote %d pair rows (%v)", n, err)
	}

	var prefixes []string
	seen := map[string]bool{}
	for _, v := range prefixValues {
		if v == nil {
			continue
		}
		runes := []rune(*v)
		for n := 1; n <= 5 && n <= len(runes); n++ {
			for _, s := range []string{string(runes[:n]), strings.ToUpper(string(runes[:n]))} {
				if strings.TrimSpace(s) != "" && !seen[s] {
					seen[s] = true
					prefixes = append(prefixes, s)
				}
			}
		}
	}
	yes := true
	type mark struct {
		name string
		cond string
		set  func(*shop.PurchaseFilter)
	}
	var marks []mark
	marks = append(marks, mark{"ship=1", "to_ship", func(f *shop.PurchaseFilter) { f.Unshipped = &yes }})
	for _, s := range shop.PurchaseStatuses[1:] { // every status but ACT
		marks = append(marks, mark{"status=" + string(s), "status = '" + string(s) + "'", func(f *shop.PurchaseFilter) { f.Statuses = []shop.PurchaseStatus{s} }})
	}
	matched := 0
	for _, m := range marks {
		for _, desc := range []bool{true, false} {
			order := "ASC"
			if desc {
				order = "DESC"
			}
			check := func(what, path string, f shop.PurchaseFilter, want []int64) {
				t.Helper()
				matched += len(want)
				if got := choosePathName(t, db, f); got != path {
					t.Errorf("%s %s: planned on %s, want %s", what, m.name, got, path)
				}
				for _, p := range []string{path, "list"} {
					got, err := db.PathIDs(ctx, f, p, 3)
					if err != nil {
						t.Fatalf("%s %s on %s: %v", what, m.name, p, err)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s %s %s on %s: got %v, want %v", what, m.name, order, p, got, want)
					}
				}
				f.PerPage = 100
				page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, f)
				if err != nil {
					t.Fatalf("FindPurchases %s %s %s: %v", what, m.name, order, err)
				}
				var got []int64
				for _, p := range page.Purchases {
					got = append(got, p.ID)
				}
				if want := want[:min(len(want), 100)]; !slices.Equal(got, want) {
					t.Errorf("FindPurchases %s %s %s: got %v, want %v", what, m.name, order, got, want)
				}
			}
			for _, product := range []int64{900, 901, 902} {
				want := naiveIDs(t, db, "SELECT id FROM purchases p WHERE account_id = 1 AND "+m.cond+
					" AND EXISTS (SELECT 1 FROM line_items li WHERE li.purchase_id = p.id AND li.product_id = ?) ORDER BY created_at "+order+", id "+order, product)
				f := shop.PurchaseFilter{AccountID: 1, Desc: desc, ProductID: product}
				m.set(&f)
				check(fmt.Sprintf("product %d", product), "product mark", f, want)
			}
			for _, prefix := range prefixes {
				want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND "+m.cond+
					" AND buyer_email LIKE ? ORDER BY created_at "+order+", id "+order, likeLiteral(prefix)+"%")
				f := shop.PurchaseFilter{AccountID: 1, Desc: desc, EmailPrefix: prefix}
				m.set(&f)
				check(fmt.Sprintf("e-mail %q", prefix), "email mark", f, want)
			}
			// A product and an e-mail prefix with the mark: the product's marks lead,
			// the prefix is probed.
			want := naiveIDs(t, db, "SELECT id FROM purchases p WHERE account_id = 1 AND "+m.cond+
				" AND buyer_email LIKE 'a%' AND EXISTS (SELECT 1 FROM line_items li WHERE li.purchase_id = p.id AND li.product_id = 900) ORDER BY created_at "+order+", id "+order)
			f := shop.PurchaseFilter{AccountID: 1, Desc: desc, ProductID: 900, EmailPrefix: "a"}
			m.set(&f)
			check("product 900 and e-mail \"a\"", "product mark", f, want)
		}
	}
	if matched < 500 {
		t.Errorf("%d matches in all: the values prove little", matched)
	}
}

// choosePathName is the path the plan rule takes for f, by name.
func choosePathName(t *testing.T, db *mysql.DB, f shop.PurchaseFilter) string {
	t.Helper()
	path, err := db.PlanPath(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStorePairs_SameRows writes the pairs' rows of the purchases with the hostile
// values from the purchases as read (StorePairs, the seeder's way) and checks that they
// are byte for byte those the database derives from their rows; then has migration
// 142's backfill and a rebuild write them again, and a reactivation drop the status's
// mark.
func TestStorePairs_SameRows(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	ids := importPairValues(t, db)
	first, last := ids[0], ids[len(ids)-1]
	read := func() []string {
		return dbtest.Query(t, db.DB, func(rows *sql.Rows) (string, error) {
			var s string
			err := rows.Scan(&s)
			return s, err
		}, `SELECT CONCAT_WS('|', account_id, mark, field, product_id, prefix_len, HEX(prefix), created_at, purchase_id, HEX(value))
			FROM purchase_pairs WHERE purchase_id BETWEEN ? AND ? ORDER BY 1`, first, last)
	}
	want := read()
	if len(want) < len(ids) {
		t.Fatalf("the import wrote %d pair rows", len(want))
	}
	page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, shop.PurchaseFilter{AccountID: 1, IDs: ids, PerPage: shop.MaxPerPage})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Purchases) != len(ids) {
		t.Fatalf("read %d purchases, want %d", len(page.Purchases), len(ids))
	}
	dbtest.MustExec(t, db.DB, fmt.Sprintf("DELETE FROM purchase_pairs WHERE purchase_id BETWEEN %d AND %d", first, last))
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mysql.StorePairs(ctx, tx, 1, page.Purchases); err != nil {
		_ = tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got, want) {
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("extra row %s", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("missing row %s", w)
			}
		}
	}
	checkDerived(t, db, "StorePairs")

	dbtest.MustExec(t, db.DB, "DELETE FROM purchase_pairs WHERE purchase_id = 1 OR mark = 'HLD'")
	if bad, _ := db.DerivedMismatches(ctx); len(bad) == 0 {
		t.Fatal("no mismatch after deleting pair rows")
	}
	if err := db.BackfillPairs(ctx); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "the backfill")
	if err := mysql.RebuildDerived(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "a rebuild")

	// A reactivated purchase leaves its status's marks' paths at once.
	pending := shop.PurchaseFilter{AccountID: 1, Statuses: []shop.PurchaseStatus{shop.PurchasePending}, EmailPrefix: "a", Desc: true}
	before, err := db.PathIDs(ctx, pending, "email mark", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == 0 {
		t.Fatal("no pending purchase with an e-mail starting with a")
	}
	if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: before[0], Actor: "test",
		CustomerEmail: "support@example.com"}); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "a reactivation")
	after, err := db.PathIDs(ctx, pending, "email mark", 100)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(after, before[1:]) {
		t.Errorf("after reactivating %d: got %v, want %v", before[0], after, before[1:])
	}
}
