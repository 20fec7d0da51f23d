package mysql_test

import (
	"context"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestJobs_ConcurrentWorkers runs one bulk reactivation with four workers at once:
// every purchase is taken by one worker, the reactivatable ones are reactivated once,
// the others skipped with the reason, and the rollups still equal the rows.
func TestJobs_ConcurrentWorkers(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	// The demo layout's accounts 1 and 2, above the test's base.
	base := dbtest.IDBase(t)
	acct1, acct2 := base+1, base+2
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 400, Subscribers: 40, Seed: 9, IDBase: base}, nil); err != nil {
		t.Fatal(err)
	}
	var ids []int64
	want := map[shop.PurchaseStatus]int{}
	rows, err := db.Query("SELECT id, status FROM purchases WHERE account_id = ? AND buyer_email LIKE '%@%.%' ORDER BY id LIMIT 150", acct1)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var st shop.PurchaseStatus
		if err := rows.Scan(&id, &st); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		want[st]++
	}
	rows.Close()
	job, err := mysql.NewJobService(db).CreateReactivationJob(ctx, acct1, "ops@example.com", append(ids, ids[0], 999999999), true)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(mysql.NewCollector(db, nil))
	if fs := gather(t, reg); gauge(t, fs, "storefront_jobs", "status", "queued") != 1 || gauge(t, fs, "storefront_jobs", "status", "running") != 0 {
		t.Errorf("jobs: %v queued, %v running; want the one queued", gauge(t, fs, "storefront_jobs", "status", "queued"), gauge(t, fs, "storefront_jobs", "status", "running"))
	}
	if job.Total != int64(len(ids)) {
		t.Errorf("job total: got %d, want %d (duplicates and unknown ids left out)", job.Total, len(ids))
	}
	runJobWorkers(t, db, 4)
	// A last step finishes the job when the workers stopped just before it.
	if _, err := mysql.NewJobService(db).RunJobStep(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := mysql.NewJobService(db).FindJob(ctx, acct1, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	runnable := int64(want[shop.PurchaseActive] + want[shop.PurchasePending] + want[shop.PurchaseError])
	if got.Status != shop.JobDone || got.Done != runnable || got.Skipped != int64(len(ids))-runnable || got.Failed != 0 || got.Pending != 0 {
		t.Errorf("job: got %+v, want done with %d done and %d skipped", got, runnable, int64(len(ids))-runnable)
	}
	// The metrics count the items as the job's figures do.
	fs := gather(t, reg)
	for outcome, want := range map[string]int64{"done": got.Done, "skipped": got.Skipped, "failed": 0} {
		if v := counter(t, fs, "storefront_job_items_total", "outcome", outcome); v != float64(want) {
			t.Errorf("job items %s: %v, want %d", outcome, v, want)
		}
	}
	if v := gauge(t, fs, "storefront_jobs", "status", "queued") + gauge(t, fs, "storefront_jobs", "status", "running"); v != 0 {
		t.Errorf("%v jobs left unfinished", v)
	}
	if v := counter(t, fs, "storefront_db_deadlock_retries_total", "op", "job_item"); v < 0 {
		t.Error("no deadlock retries counted for job items")
	}
	var twice int
	if err := db.QueryRow(`SELECT COUNT(*) FROM (SELECT purchase_id FROM purchase_activity WHERE account_id = ? AND action = 'reactivated' GROUP BY purchase_id HAVING COUNT(*) > 1) x`, acct1).Scan(&twice); err != nil {
		t.Fatal(err)
	}
	if twice != 0 {
		t.Errorf("%d purchases reactivated twice", twice)
	}
	problems, err := mysql.NewJobService(db).FindJobProblems(ctx, acct1, job.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if p.Status != shop.ItemSkipped || p.Reason == "" {
			t.Errorf("purchase %d: %s %q, want skipped with a reason", p.PurchaseID, p.Status, p.Reason)
		}
	}
	if err := mysql.NewJobService(db).CancelJob(ctx, acct1, job.ID); shop.ErrorCode(err) != shop.EConflict {
		t.Errorf("cancel a finished job: got %v, want a conflict", err)
	}
	if _, err := mysql.NewJobService(db).FindJob(ctx, acct2, job.ID); shop.ErrorCode(err) != shop.ENotFound {
		t.Errorf("another account's job: got %v, want not found", err)
	}
	checkRollups(t, db, "a bulk reactivation")
}

// runJobWorkers runs n workers that take job steps until none is left, as the
// program's job runners do.
func runJobWorkers(t *testing.T, db *mysql.DB, n int) {
	t.Helper()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				worked, err := mysql.NewJobService(db).RunJobStep(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				if !worked {
					return
				}
			}
		}()
	}
	wg.Wait()
}
