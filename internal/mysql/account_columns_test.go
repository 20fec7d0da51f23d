package mysql_test

import (
	"context"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/shop"
)

// accountTables are the tables that migrations 00040-00048 gave an account_id.
var accountTables = []string{"line_items", "product_keys", "coupons", "custom_fields", "transactions", "purchase_activity",
	"subscribers", "subscriptions", "subscriber_activity", "products", "user_sessions"}

// The migrations fill every existing row's account from its parent, as the writes do.
func TestMigrations_AccountColumnsFilled(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	if _, err := db.Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: 4, Refulfill: true, Actor: "test",
		CustomerEmail: "support@example.com"}); err != nil {
		t.Fatal(err)
	}
	uid, err := db.CreateUser(ctx, 1, "owner@shop.test", "owner", "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateSession(ctx, 1, uid); err != nil {
		t.Fatal(err)
	}
	dbtest.MustExec(t, db.DB, `INSERT INTO subscriber_activity (account_id, subscriber_id, actor, action, details, created_at)
		SELECT account_id, id, 'system', 'closed_past_due', '{}', NOW() FROM subscribers ORDER BY id LIMIT 1`)
	checkDerived(t, db, "the writes")

	columns := func() int {
		var n int
		q := "SELECT COUNT(*) FROM information_schema.columns WHERE table_schema = DATABASE() AND column_name = 'account_id' AND table_name IN (?,?,?,?,?,?,?,?,?,?,?)"
		args := make([]any, len(accountTables))
		for i, t := range accountTables {
			args[i] = t
		}
		if err := db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := db.MigrateDownTo(ctx, 39); err != nil {
		t.Fatal(err)
	}
	if n := columns(); n != 0 {
		t.Fatalf("after migrating down to 39: %d of the tables have account_id, want none", n)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if n := columns(); n != len(accountTables) {
		t.Fatalf("after migrating up: %d of %d tables have account_id", n, len(accountTables))
	}
	for _, table := range accountTables {
		var rows, unfilled int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(SUM(account_id = 0), 0) FROM "+table).Scan(&rows, &unfilled); err != nil {
			t.Fatal(err)
		}
		if rows == 0 {
			t.Errorf("%s: no rows to fill; the fixture should have some", table)
		}
		if unfilled != 0 {
			t.Errorf("%s: %d of %d rows without their account", table, unfilled, rows)
		}
	}
	checkDerived(t, db, "the migrations 00040-00048")
}
