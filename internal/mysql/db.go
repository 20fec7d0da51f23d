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
	// EmailQueued, when set, is called after a transaction that queued an e-mail has
	// committed: the program wires it to wake the mail sender.
	EmailQueued func()
	// WebhookGuard checks endpoint URLs when they are saved; nil allows public
	// addresses only.
	WebhookGuard *webhook.Guard
	// WebhookEventsWritten is called after a commit that wrote webhook events, to wake the
	// deliverer; nil for none.
	WebhookEventsWritten func()

	edgesOnce sync.Once
	edges     *bandEdges
}

// bandEdges returns the accounts' remembered edge bands (bands.go), made on first use.
func (db *DB) bandEdges() *bandEdges {
	db.edgesOnce.Do(func() { db.edges = newBandEdges() })
	return db.edges
}
