package mysql_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
)

// TestExecRows_PreparedOnce: the full statements of a multi-row write share one
// statement prepared by the transaction, the rest goes as text, and the rows written
// are the values given, whichever way they went (binary or text protocol).
func TestExecRows_PreparedOnce(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	// The rows' account, of its own (through a vtgate the tests share the keyspaces).
	account := dbtest.IDBase(t) + 1
	if _, err := db.ExecContext(ctx, "INSERT INTO accounts (id, name, api_username, timezone, created_at) VALUES (?, 'Rows', ?, 'UTC', ?)",
		account, fmt.Sprint("rows-", account), time.Now().UTC().Truncate(time.Second)); err != nil {
		t.Fatal(err)
	}
	n := 2*mysql.StatementRows + 37
	at := time.Date(2026, 3, 1, 12, 30, 15, 0, time.UTC)
	var args []any
	want := map[int64]string{}
	for i := range n {
		id := int64(1000 + i)
		value := fmt.Sprintf("Zoë %d 'quoted' \\ %%_ 😀", i)
		var products any
		if i%3 == 0 {
			products = fmt.Sprintf("%d,%d", i, i+1)
		}
		args = append(args, account, 2, 3, "zoë", at.Add(time.Duration(i)*time.Second), id, value, int64(1), products)
		want[id] = fmt.Sprintf("%s|%s|%v", value, at.Add(time.Duration(i)*time.Second).Format(time.DateTime), products)
	}
	prepared, err := db.WriteRowsInTx(ctx, "INSERT INTO purchase_prefixes (account_id, field, prefix_len, prefix, created_at, purchase_id, value, storefront_id, products)", 9, args)
	if err != nil {
		t.Fatal(err)
	}
	if prepared != 1 {
		t.Errorf("prepared %d statements for two full writes of %d rows and a rest, want 1", prepared, mysql.StatementRows)
	}
	rows, err := db.QueryContext(ctx, "SELECT purchase_id, value, created_at, products FROM purchase_prefixes WHERE account_id = ? AND field = 2 AND prefix_len = 3 AND prefix = 'zoë'", account)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var (
			id       int64
			value    string
			created  time.Time
			products *string
		)
		if err := rows.Scan(&id, &value, &created, &products); err != nil {
			t.Fatal(err)
		}
		var p any
		if products != nil {
			p = *products
		}
		if line := fmt.Sprintf("%s|%s|%v", value, created.UTC().Format(time.DateTime), p); line != want[id] {
			t.Errorf("purchase %d: got %q, want %q", id, line, want[id])
		}
		got++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if got != n {
		t.Errorf("got %d rows, want %d", got, n)
	}
}
