package mysql_test

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestVitess checks through a real vtgate (scripts/vitess.sh, STOREFRONT_TEST_VITESS=1)
// what Vitess's planner alone cannot: where rows land and what the lookup keyspace
// holds. On MariaDB alone there is no vtgate to ask, and it says so.
func TestVitess(t *testing.T) {
	if !dbtest.Vitess() {
		t.Skip("needs a vtgate: bash scripts/vitess.sh env STOREFRONT_TEST_VITESS=1 STOREFRONT_TEST_DSN=… go test -run TestVitess ./internal/mysql")
	}
	ctx := context.Background()
	db := dbtest.New(t)
	shards := dbtest.Shards(t)
	if len(shards) != 2 {
		t.Fatalf("shards of storefront: %v, want 2", shards)
	}
	// The demo data (accounts 1 and 2, their own ids) first: the seed wants no account yet.
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 60, Subscribers: 5, Seed: 3, Now: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}, nil); err != nil {
		t.Fatal(err)
	}

	t.Run("AccountsOnBothShardsFromTheSequence", func(t *testing.T) {
		var ids []int64
		for i := range 16 {
			r, err := db.ExecContext(ctx, "INSERT INTO accounts (name, api_username, timezone) VALUES (?, ?, 'UTC')", "Shop", "shop"+strings.Repeat("x", i))
			if err != nil {
				t.Fatal(err)
			}
			id, _ := r.LastInsertId()
			ids = append(ids, id)
		}
		if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != 16 {
			t.Fatalf("sequence ids %v are not distinct", ids)
		}
		seen := map[int64]string{}
		for target, shard := range shards {
			got := dbtest.Query(t, shard, func(r *sql.Rows) (int64, error) { var id int64; return id, r.Scan(&id) }, "SELECT id FROM accounts WHERE id >= ?", ids[0])
			if len(got) == 0 {
				t.Errorf("%s holds no account of %v", target, ids)
			}
			for _, id := range got {
				if other, ok := seen[id]; ok {
					t.Errorf("account %d on %s and %s", id, other, target)
				}
				seen[id] = target
			}
		}
		for _, id := range ids {
			if _, ok := seen[id]; !ok {
				t.Errorf("account %d is on no shard", id)
			}
		}
		t.Logf("16 accounts from lookup.accounts_seq (%d…%d) on the shards: %v", ids[0], ids[15], seen)
	})

	t.Run("PurchaseByIDThroughTheLookupVindex", func(t *testing.T) {
		var purchases, entries int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM purchases").Scan(&purchases); err != nil {
			t.Fatal(err)
		}
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM lookup.purchase_keyspace_idx").Scan(&entries); err != nil {
			t.Fatal(err)
		}
		if purchases == 0 || entries != purchases {
			t.Fatalf("%d purchases, %d entries of purchase_keyspace_idx; want one each", purchases, entries)
		}
		var id, account int64
		if err := db.QueryRowContext(ctx, "SELECT id, account_id FROM purchases ORDER BY id DESC LIMIT 1").Scan(&id, &account); err != nil {
			t.Fatal(err)
		}
		var plan string
		if err := db.QueryRowContext(ctx, "VEXPLAIN PLAN SELECT account_id FROM purchases WHERE id = ?", id).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "purchase_keyspace_id") || !strings.Contains(plan, "EqualUnique") {
			t.Errorf("the plan of a purchase by id does not go through its lookup vindex:\n%s", plan)
		}
		var got int64
		if err := db.QueryRowContext(ctx, "SELECT account_id FROM purchases WHERE id = ?", id).Scan(&got); err != nil || got != account {
			t.Errorf("purchase %d by id alone: account %d, %v; want %d", id, got, err, account)
		}
	})

	t.Run("ReactivationCommittedOnOneShard", func(t *testing.T) {
		var id, account int64
		if err := db.QueryRowContext(ctx, "SELECT id, account_id FROM purchases WHERE account_id = 1 AND status IN ('PND', 'ERR') ORDER BY id LIMIT 1").Scan(&id, &account); err != nil {
			t.Fatal(err)
		}
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: account, PurchaseID: id, Refulfill: true,
			Actor: "test", CustomerEmail: "support@example.com"}); err != nil {
			t.Fatal(err)
		}
		// What the reactivation wrote, asked of each shard: all of it on the account's
		// shard, none on the other.
		checks := map[string]string{
			"purchase, now ACT":      "SELECT COUNT(*) FROM purchases WHERE account_id = ? AND id = ? AND status = 'ACT'",
			"its timeline entry":     "SELECT COUNT(*) FROM purchase_activity WHERE account_id = ? AND purchase_id = ? AND action = 'reactivated'",
			"its e-mail (outbox)":    "SELECT COUNT(*) FROM email_outbox WHERE account_id = ? AND purchase_id = ?",
			"its document":           "SELECT COUNT(*) FROM purchase_documents WHERE account_id = ? AND purchase_id = ?",
			"the purchases version":  "SELECT COUNT(*) FROM purchase_versions WHERE account_id = ? AND ? > 0",
			"the rollups of its day": "SELECT COUNT(*) FROM purchase_rollups WHERE account_id = ? AND ? > 0",
		}
		holder := ""
		for target, shard := range shards {
			var n int
			if err := shard.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts WHERE id = ?", account).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 1 {
				holder = target
			}
		}
		if holder == "" {
			t.Fatalf("account %d is on no shard", account)
		}
		for what, q := range checks {
			for target, shard := range shards {
				var n int
				if err := shard.QueryRowContext(ctx, q, account, id).Scan(&n); err != nil {
					t.Fatalf("%s on %s: %v", what, target, err)
				}
				if (n > 0) != (target == holder) {
					t.Errorf("%s: %d rows on %s; the account is on %s", what, n, target, holder)
				}
			}
		}
		t.Logf("purchase %d of account %d reactivated: purchase, timeline, outbox, document, version and rollups on %s alone", id, account, holder)
	})

	t.Run("IDsUniqueAcrossShardsFromTheSequences", func(t *testing.T) {
		// A storefront without an id for accounts on both shards: each takes the next
		// id of lookup.storefronts_seq, and no two share one.
		accounts := dbtest.Query(t, db.DB, func(r *sql.Rows) (int64, error) { var id int64; return id, r.Scan(&id) }, "SELECT id FROM accounts ORDER BY id")
		var ids []int64
		for _, a := range accounts {
			r, err := db.ExecContext(ctx, "INSERT INTO storefronts (account_id, name, currency) VALUES (?, 'Seq', 'EUR')", a)
			if err != nil {
				t.Fatal(err)
			}
			id, _ := r.LastInsertId()
			ids = append(ids, id)
		}
		perShard := map[string]int{}
		all := map[int64]string{}
		for target, shard := range shards {
			for _, id := range dbtest.Query(t, shard, func(r *sql.Rows) (int64, error) { var id int64; return id, r.Scan(&id) }, "SELECT id FROM storefronts WHERE name = 'Seq'") {
				if other, ok := all[id]; ok {
					t.Errorf("storefront id %d on %s and %s", id, other, target)
				}
				all[id] = target
				perShard[target]++
			}
		}
		if len(all) != len(ids) || len(perShard) != 2 {
			t.Errorf("%d storefronts inserted (ids %v), %d distinct ids found, per shard %v; want all distinct, on both shards", len(ids), ids, len(all), perShard)
		}
		t.Logf("storefront ids from lookup.storefronts_seq: %v, per shard %v", ids, perShard)
	})
}
