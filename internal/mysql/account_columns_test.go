package mysql_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
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
	if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: 4, Refulfill: true, Actor: "test",
		CustomerEmail: "support@example.com"}); err != nil {
		t.Fatal(err)
	}
	uid, err := mysql.NewAdminService(db).CreateUser(ctx, 1, "owner@shop.test", "owner", "correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mysql.NewUserService(db).CreateSession(ctx, 1, uid, shop.SessionClient{}); err != nil {
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

// A purchase or a subscriber that an import moves to another account takes its
// timeline with it.
func TestImport_MoveKeepsTheAccountColumns(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	base := dbtest.IDBase(t)
	importFileAt(t, db, importFixturePath, base)
	if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: base + 1, PurchaseID: base + 4, Refulfill: true, Actor: "test",
		CustomerEmail: "support@example.com"}); err != nil {
		t.Fatal(err)
	}
	dbtest.MustExec(t, db.DB, `INSERT INTO subscriber_activity (account_id, subscriber_id, actor, action, details, created_at)
		SELECT account_id, id, 'system', 'closed_past_due', '{}', NOW() FROM subscribers WHERE id = `+strconv.FormatInt(base+100, 10))
	// Purchase 4 and subscriber 100 move from storefront 10 (account 1) to 12 (another account).
	purchase := strings.Replace(strings.Replace(importPurchaseJSON(4, ""), `"storefront_id":10`, `"storefront_id":12`, 1), `"currency":"EUR"`, `"currency":"JPY"`, 1)
	purchase = strings.NewReplacer(`"10.00"`, `"10"`, `"5.00"`, `"5"`, `"0.00"`, `"0"`, `"product_id":900`, `"product_id":902`).Replace(purchase)
	subscriber := `"subscribers":[{"id":100,"storefront_id":12,"created_at":1,"updated_at":1,"username":"anna@example.com","subscription":null}]`
	doc := shiftImportIDs(`{"purchases":[`+purchase+`],`+subscriber+`}`, base)
	if dbtest.Vitess() {
		// The account is the sharding key: a purchase's move is refused, saying why;
		// a subscriber's is a delete and a re-insert, with its timeline.
		_, err := importer.Run(ctx, db, strings.NewReader(doc), nil)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("purchase %d belongs to account %d: moving it to account", base+4, base+1)) || !strings.Contains(err.Error(), "not supported on Vitess") {
			t.Fatalf("import moving purchase 4 through a vtgate: %v; want it refused, naming the purchase and Vitess", err)
		}
		if _, err := importer.Run(ctx, db, strings.NewReader(shiftImportIDs(`{`+subscriber+`}`, base)), nil); err != nil {
			t.Fatal(err)
		}
		var account int64
		var n int
		if err := db.QueryRowContext(ctx, "SELECT account_id FROM subscribers WHERE id = ?", base+100).Scan(&account); err != nil || account == base+1 {
			t.Fatalf("subscriber 100 is in account %d (%v); the import should have moved it", account, err)
		}
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM subscriber_activity WHERE account_id = ? AND subscriber_id = ? AND action = 'closed_past_due'", account, base+100).Scan(&n); err != nil || n != 1 {
			t.Fatalf("subscriber 100's timeline under its new account: %d entries (%v), want 1", n, err)
		}
		checkDerived(t, db, "an import that moves a subscriber")
		return
	}
	if _, err := importer.Run(ctx, db, strings.NewReader(doc), nil); err != nil {
		t.Fatal(err)
	}
	var account int64
	if err := db.QueryRowContext(ctx, "SELECT account_id FROM purchases WHERE id = ?", base+4).Scan(&account); err != nil || account == base+1 {
		t.Fatalf("purchase 4 is in account %d (%v); the import should have moved it", account, err)
	}
	checkDerived(t, db, "an import that moves a purchase and a subscriber")
}
