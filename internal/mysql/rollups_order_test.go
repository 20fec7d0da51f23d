package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/internal/shop"
)

// execRecorder keeps the arguments of every statement executed through it.
type execRecorder struct {
	queryer
	stmts []string
	args  [][]any
}

func (r *execRecorder) ExecContext(_ context.Context, q string, args ...any) (sql.Result, error) {
	r.stmts, r.args = append(r.stmts, q), append(r.args, slices.Clone(args)) // the caller reuses its slice
	return nil, nil
}

// TestRollupDelta_WritesInKeyOrder: a transaction's rollup rows are written in the
// order of each table's primary key, so that concurrent writers of the same rows lock
// them in one order and wait for each other instead of deadlocking (concurrent
// reactivations of purchases of one day did, past their retries).
func TestRollupDelta_WritesInKeyOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := newRollupDelta(7, time.UTC)
	statuses := []shop.PurchaseStatus{"ACT", "RFD", "CAN", "PND", "HLD"}
	for range 300 {
		f := &purchaseFact{
			storefront: int64(1 + r.IntN(3)), currency: []string{"USD", "EUR", "JPY"}[r.IntN(3)],
			created: time.Date(2026, time.Month(1+r.IntN(3)), 1+r.IntN(28), 12, 0, 0, 0, time.UTC),
			status:  statuses[r.IntN(len(statuses))], total: big.NewRat(int64(1+r.IntN(900)), 1),
			items: map[int64]*big.Rat{int64(1 + r.IntN(5)): big.NewRat(3, 1), int64(6 + r.IntN(5)): big.NewRat(4, 1)},
			email: &[]string{"amy@x.test", "Bob@x.test", "bob@x.test", "carl@x.test", "Zoe@x.test"}[r.IntN(5)], toShip: r.IntN(2) == 0,
		}
		d.add(f, 1)
	}
	rec := &execRecorder{}
	if err := d.apply(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
	// A table's rows may take several statements (statementRows each): they are one
	// write, in the order sent.
	var tables []string
	var rows [][]any
	for i, q := range rec.stmts {
		table := strings.Fields(q)[2]
		if len(tables) == 0 || tables[len(tables)-1] != table {
			tables, rows = append(tables, table), append(rows, nil)
		}
		rows[len(rows)-1] = append(rows[len(rows)-1], rec.args[i]...)
	}
	if len(tables) != 6 {
		t.Fatalf("got writes of %v, want 6 (purchases, their months and weeks, products, their months, customers)", tables)
	}
	// The primary key's columns (after the account) in each statement's VALUES rows.
	for i, tc := range []struct {
		table string
		key   []int
	}{
		{"purchase_rollups", []int{1, 2, 3, 4}},           // day, storefront, currency, status
		{"purchase_rollups_monthly", []int{1, 2, 3, 4}},   // month, storefront, currency, status
		{"purchase_rollups_weekly", []int{1, 2, 3, 4}},    // week, storefront, currency, status
		{"product_rollups", []int{1, 2, 3, 4, 5}},         // status, day, storefront, currency, product
		{"product_rollups_monthly", []int{1, 2, 3, 4, 5}}, // status, month, storefront, currency, product
		{"customer_rollups", []int{1, 2, 3}},              // email (its case ignored by the key), currency, status
	} {
		if tables[i] != tc.table {
			t.Fatalf("write %d: got %s, want the insert into %s", i, tables[i], tc.table)
		}
		width := 7
		if i > 2 && i < 5 {
			width = 8
		}
		var keys []string
		for row := 0; row+width <= len(rows[i]); row += width {
			var parts []string
			for _, c := range tc.key {
				v := rows[i][row+c]
				if n, ok := v.(int64); ok {
					v = fmt.Sprintf("%012d", n) // numbers compare as numbers
				}
				parts = append(parts, strings.ToLower(fmt.Sprint(v)))
			}
			keys = append(keys, strings.Join(parts, "|"))
		}
		if len(keys) < 20 {
			t.Fatalf("%s: %d rows, too few to show an order", tc.table, len(keys))
		}
		if !slices.IsSorted(keys) {
			t.Errorf("%s: rows not in primary-key order: %v", tc.table, keys[:10])
		}
	}
}
