// Package mysql implements the shop services on MySQL/MariaDB through
// go-sql-driver/mysql: fixed statements in raw SQL, squirrel where clauses vary.
package mysql

import (
	"database/sql"
	"sync"
	"time"

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
}

// bandEdges returns the accounts' remembered edge bands (bands.go), made on first use.
func (db *DB) bandEdges() *bandEdges {
	db.edgesOnce.Do(func() { db.edges = newBandEdges() })
	return db.edges
}
