// Package mysql implements the shop services on MySQL/MariaDB through
// go-sql-driver/mysql: fixed statements in raw SQL, squirrel where clauses vary.
package mysql

import (
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// DB is the storefront database.
type DB struct {
	*sql.DB
	// Now is the clock; tests replace it.
	Now func() time.Time
	// WebhookGuard checks endpoint URLs when they are saved; nil allows public
	// addresses only.
	WebhookGuard *webhook.Guard
	// Wake, when set, is called after a transaction commits with the background work it
	// queued (WorkEmails, WorkWebhooks, WorkJobs): the program wires it to wake the
	// workers of those names.
	Wake func(work ...string)
	// Vitess is true when the server is a vtgate (its version ends in "-Vitess"; Open
	// asks): its connections then set their session's isolation level before each
	// transaction (vitess.go), and the readiness probe checks what a vtgate can tell
	// (Ready).
	Vitess bool

	edgesOnce sync.Once
	edges     *bandEdges

	// counts are what the store counted as it worked, for the metrics (Collector).
	counts counts
}

// nowSecond is the clock's time to the second, in UTC: what a DATETIME column keeps.
func (db *DB) nowSecond() time.Time { return db.Now().UTC().Truncate(time.Second) }

// Deadlock retries are counted by what was run again (the op label of
// storefront_db_deadlock_retries_total).
const (
	retryReactivate = iota
	retryWebhookAttempts
	retryJobItem
	retryOps
)

var retryOpNames = [retryOps]string{"reactivate", "webhook_attempts", "job_item"}

// jobOutcomes are the outcomes of a job's items, as counted.
var jobOutcomes = [...]string{shop.ItemDone, shop.ItemSkipped, shop.ItemFailed}

// counts are counters of the store's work, read by the Collector on each scrape.
type counts struct {
	deadlockRetries [retryOps]atomic.Int64
	jobItems        [len(jobOutcomes)]atomic.Int64
}

// deadlockRetried counts a transaction run again after InnoDB chose it as a deadlock's
// victim.
func (db *DB) deadlockRetried(op int) { db.counts.deadlockRetries[op].Add(1) }

// bandEdges returns the accounts' remembered edge bands (bands.go), made on first use.
func (db *DB) bandEdges() *bandEdges {
	db.edgesOnce.Do(func() { db.edges = newBandEdges() })
	return db.edges
}
