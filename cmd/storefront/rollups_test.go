package main

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"strings"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
)

// TestRollupsRebuild runs `storefront rollups rebuild` on a database whose rollups (and
// the subscriptions' statuses copied onto the subscribers) were emptied and changed by
// hand: it writes back what the seed's transactions wrote.
func TestRollupsRebuild(t *testing.T) {
	dsn := dbtest.DSN(t)
	db, err := mysql.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := seed.Run(context.Background(), db.DB, seed.Options{Purchases: 300, Subscribers: 40, Seed: 2}, nil); err != nil {
		t.Fatal(err)
	}
	snapshot := func() string {
		var b strings.Builder
		for _, q := range []string{
			"SELECT CONCAT_WS('|', account_id, day, storefront_id, currency, status, purchases, total) FROM purchase_rollups WHERE purchases <> 0 ORDER BY 1",
			"SELECT CONCAT_WS('|', account_id, status, day, storefront_id, currency, product_id, purchases, total) FROM product_rollups WHERE purchases <> 0 ORDER BY 1",
			"SELECT CONCAT_WS('|', account_id, subscriber_id, storefront_id, start_at, COALESCE(end_at, '-')) FROM subscriber_terms ORDER BY 1",
			"SELECT CONCAT_WS('|', account_id, day, storefront_id, started, ended) FROM subscriber_rollups WHERE started <> 0 OR ended <> 0 ORDER BY 1",
			"SELECT CONCAT_WS('|', account_id, id, COALESCE(status, '-')) FROM subscribers ORDER BY 1",
		} {
			rows, err := db.Query(q)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var s sql.NullString
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				b.WriteString(s.String + "\n")
			}
			rows.Close()
		}
		return b.String()
	}
	want := snapshot()
	if strings.Count(want, "\n") < 50 {
		t.Fatalf("the seed left %d rollup rows", strings.Count(want, "\n"))
	}
	if !strings.Contains(want, "|ACTIVE\n") || !strings.Contains(want, "|CANCELED\n") {
		t.Fatal("the seed left no subscriber with its subscription's status")
	}
	dbtest.MustExec(t, db.DB, "DELETE FROM purchase_rollups WHERE account_id = 1", "UPDATE product_rollups SET total = total + 1",
		"DELETE FROM subscriber_terms", "UPDATE subscriber_rollups SET started = 0",
		"UPDATE subscribers SET status = IF(status = 'ACTIVE', 'CLOSED', NULL)")
	if snapshot() == want {
		t.Fatal("the rollups did not change")
	}
	var stderr bytes.Buffer
	env := map[string]string{"STOREFRONT_DSN": dsn}
	if err := run(context.Background(), []string{"rollups", "rebuild"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, &stderr); err != nil {
		t.Fatalf("rollups rebuild: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "rebuilt the rollups of 2 accounts") {
		t.Errorf("rollups rebuild said %q", stderr.String())
	}
	if got := snapshot(); got != want {
		t.Errorf("after rollups rebuild the rollups differ from what the seed wrote")
	}
	if err := run(context.Background(), []string{"rollups", "rebuild", "extra"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, io.Discard); err == nil {
		t.Error("rollups rebuild with an argument: no usage error")
	}
}
