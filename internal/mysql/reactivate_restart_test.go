package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"testing"

	"storefront/internal/mariadb"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// restartedAfterSeed starts a private mariadbd, seeds 3,000 purchases into a fresh
// database, runs before on it, and starts the server again, as TestDatabaseDown's
// server is seeded and started: InnoDB then plans with the statistics it saved when the
// tables were created empty, until it computes them again. It returns the database
// and a function that reads how many deadlocks the server has detected.
//
// The server is the test's own (internal/mariadb): the restart needs one, and so does
// counting its deadlocks (Innodb_deadlocks). It never touches STOREFRONT_TEST_DSN's.
func restartedAfterSeed(t *testing.T, before func(db *mysql.DB)) (*mysql.DB, func() int) {
	t.Helper()
	ctx := context.Background()
	// A short folder name: the unix socket path must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "sfre")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	srv, err := mariadb.Start(ctx, dir)
	if err != nil {
		t.Fatalf("start mariadbd: %v", err)
	}
	admin, err := sql.Open("mysql", srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	_, err = admin.Exec("CREATE DATABASE storefront CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
	admin.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := mysql.Open(ctx, srv.DSN("storefront"))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// As many purchases as TestDatabaseDown seeds: with 2,000 the server happened to
	// plan the purchases' UPDATE on the primary key even so.
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 3000, Subscribers: 300, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	before(db)
	db.Close()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if srv, err = mariadb.Start(ctx, dir); err != nil {
		t.Fatalf("start mariadbd again: %v", err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	if db, err = mysql.Open(ctx, srv.DSN("storefront")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	// What the server makes of an UPDATE of one purchase left to its statistics: the
	// condition these tests are about (on the primary key it would not show).
	var plan [10]sql.NullString
	cols := make([]any, len(plan))
	for i := range plan {
		cols[i] = &plan[i]
	}
	if err := db.QueryRow("EXPLAIN UPDATE purchases SET status = 'ACT' WHERE account_id = 1 AND id = 24").Scan(cols...); err != nil {
		t.Fatal(err)
	}
	t.Logf("an UPDATE of one purchase left to the statistics reads index %s", plan[5].String)
	return db, func() int {
		t.Helper()
		return statusValue(t, db, "SHOW GLOBAL STATUS LIKE 'Innodb_deadlocks'")
	}
}

// reactivatableIDs returns account 1's purchases that reactivation takes, by id.
func reactivatableIDs(t *testing.T, db *sql.DB, order string, n int) []int64 {
	t.Helper()
	rows, err := db.Query("SELECT id FROM purchases WHERE account_id = 1 AND status IN ('ACT', 'PND', 'ERR') AND buyer_email LIKE '%@%.%' ORDER BY id "+order+" LIMIT ?", n)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) < n {
		t.Fatalf("%d reactivatable purchases, want %d", len(ids), n)
	}
	return ids
}

// TestReactivate_ConcurrentAfterRestart: concurrent reactivations of one account's
// purchases, each with an Idempotency-Key, lock only their own purchase's rows (and the
// rollup rows and the version row, in one order), also when the server plans with
// statistics older than the data: the server detects not one deadlock, retried or not.
// Before, the status UPDATE then ran over an index of the account's purchases and
// locked every one it passed, so that two reactivations, each holding its own
// purchase, waited for each other.
func TestReactivate_ConcurrentAfterRestart(t *testing.T) {
	ctx := context.Background()
	db, deadlocks := restartedAfterSeed(t, func(*mysql.DB) {})
	const workers, each = 8, 30
	ids := reactivatableIDs(t, db.DB, "", workers*each)
	before := deadlocks()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := ids[i*workers+w]
				if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: id,
					Refulfill: i%3 == 0, Actor: "test", IdempotencyKey: fmt.Sprintf("key-%d", id)}); err != nil {
					t.Errorf("purchase %d: %v", id, err)
				}
			}
		}()
	}
	wg.Wait()
	if n := deadlocks() - before; n != 0 {
		t.Errorf("got %d deadlocks in %d reactivations, want 0", n, workers*each)
	}
}

// TestJobs_ConcurrentWorkersAfterRestart: four workers run a bulk reactivation queued
// before the server stopped, and detect not one deadlock when the server plans with
// statistics older than the data. Before, each step's UPDATE of its item then ran over
// job_items_status and locked every item of the job, those other workers held too.
func TestJobs_ConcurrentWorkersAfterRestart(t *testing.T) {
	ctx := context.Background()
	var job *shop.Job
	db, deadlocks := restartedAfterSeed(t, func(db *mysql.DB) {
		var err error
		job, err = mysql.NewJobService(db).CreateReactivationJob(ctx, 1, "ops@example.com", reactivatableIDs(t, db.DB, "DESC", 100), false)
		if err != nil {
			t.Fatal(err)
		}
	})
	before := deadlocks()
	runJobWorkers(t, db, 4)
	var done int
	if err := db.QueryRow("SELECT COUNT(*) FROM job_items WHERE account_id = 1 AND job_id = ? AND status = ?", job.ID, shop.ItemDone).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if done != 100 {
		t.Errorf("got %d purchases reactivated by the job, want 100", done)
	}
	if n := deadlocks() - before; n != 0 {
		t.Errorf("got %d deadlocks in the job's 100 steps, want 0", n)
	}
}
