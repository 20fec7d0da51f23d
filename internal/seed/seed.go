// Package seed fills a storefront database with realistic, consistent demo data:
// accounts and storefronts, products, customers, subscribers with subscriptions in
// every status, and purchases in every status with line items, product keys,
// coupons, custom fields and payment transactions, spread over the two years before
// a given instant.
//
// It writes with multi-row INSERTs on two sessions with foreign-key checks off,
// committing every few thousand purchases, while the next rows are generated
// concurrently, so that a million purchases take minutes. What is derived from the
// purchases (their stored documents, prefix and product paths, and rollups) is written
// in the same transactions from the generated purchases, not read back from the rows.
// The same seed on the same database state yields the same data.
package seed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"storefront/internal/mysql"
)

// Options says how much to generate.
type Options struct {
	// Purchases and Subscribers are the numbers of purchases and subscribers to add.
	Purchases, Subscribers int
	// Seed makes the data reproducible; 0 means 1.
	Seed int64
	// Now is the end of the two-year window the data covers; the zero time means
	// the current time.
	Now time.Time
	// IDBase, when not 0, puts the data in accounts of their own: every id the run
	// writes is above IDBase, the demo accounts and storefronts are created at
	// IDBase+1… when no account has an id above it, and only the accounts above it
	// are added to. The same seed gives the same data whatever the base, but for the
	// ids, so that tests sharing one database (a vtgate's keyspaces) each have
	// accounts of their own (internal/dbtest.IDBase).
	IDBase int64
}

// Stats reports what a run wrote.
type Stats struct {
	// Rows holds the number of rows inserted per table.
	Rows map[string]int64
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
}

// Total is the number of rows inserted into all tables.
func (s Stats) Total() int64 {
	var n int64
	for _, v := range s.Rows {
		n += v
	}
	return n
}

// String lists the rows per table, the total and the rate.
func (s Stats) String() string {
	names := make([]string, 0, len(s.Rows))
	for k := range s.Rows {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		fmt.Fprintf(&b, "%s=%d ", k, s.Rows[k])
	}
	fmt.Fprintf(&b, "total=%d in %s (%.0f rows/s)", s.Total(), s.Elapsed.Round(time.Millisecond), rate(s.Total(), s.Elapsed))
	return b.String()
}

func rate(n int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// Objects per transaction: commits keep the undo log and memory small. Variables only
// so that tests can seed in many small chunks.
var (
	purchasesPerChunk   = 10000
	subscribersPerChunk = 10000
)

const (
	progressEvery = 2 * time.Second
	writers       = 2
)

// Run adds opt.Purchases purchases and opt.Subscribers subscribers to the database
// behind db, creating the demo accounts and storefronts when the database has no
// accounts (above opt.IDBase), and writes progress lines to progress (which may be
// nil). New rows take ids after the largest ones in use (and after opt.IDBase). Run is not meant to race with other writers of
// the same tables.
func Run(ctx context.Context, db *sql.DB, opt Options, progress io.Writer) (Stats, error) {
	start := time.Now()
	stats := Stats{Rows: map[string]int64{}}
	if opt.Purchases < 0 || opt.Subscribers < 0 {
		return stats, errors.New("seed: the numbers of purchases and subscribers must not be negative")
	}
	if opt.Seed == 0 {
		opt.Seed = 1
	}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	if progress == nil {
		progress = io.Discard
	}

	// Two writer sessions: one statement runs on one server thread, and while one
	// session waits for a page read or a commit the other keeps inserting.
	conns := make([]*sql.Conn, writers)
	for i := range conns {
		c, err := openSession(ctx, db)
		if err != nil {
			return stats, fmt.Errorf("seed: %w", err)
		}
		defer closeSession(c)
		conns[i] = c
	}

	// The statements carry their values as literals (stmt), escaped for the sessions'
	// sql_mode.
	var mode string
	if err := conns[0].QueryRowContext(ctx, "SELECT @@SESSION.sql_mode").Scan(&mode); err != nil {
		return stats, fmt.Errorf("seed: %w", err)
	}
	noBackslashEscapes := strings.Contains(mode, "NO_BACKSLASH_ESCAPES")

	sfs, next, err := prepare(ctx, conns[0], opt.Now, opt.IDBase, noBackslashEscapes, &stats)
	if err != nil {
		return stats, fmt.Errorf("seed: %w", err)
	}

	g := newGenerator(opt.Seed, opt.Now, sfs, next, opt.IDBase, noBackslashEscapes)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan *chunk, 1)
	go func() {
		defer close(chunks)
		send := func(c *chunk) bool {
			select {
			case chunks <- c:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for done := 0; done < opt.Subscribers; {
			c := newChunk()
			g.beginChunk(c)
			n := min(subscribersPerChunk, opt.Subscribers-done)
			for i := 0; i < n; i++ {
				g.subscriber(g.pickSubscriberStorefront())
			}
			g.endChunk()
			c.subscribers = n
			done += n
			if !send(c) {
				return
			}
		}
		g.sortPaying()
		// Purchases come in the order of their creation time, so ids grow with time as
		// they would in a live shop, and the time-ordered indexes fill at their ends.
		total := float64(opt.Purchases)
		for done := 0; done < opt.Purchases; {
			c := newChunk()
			g.beginChunk(c)
			n := min(purchasesPerChunk, opt.Purchases-done)
			for i := done; i < done+n; i++ {
				g.purchase(g.at((float64(i) + g.r.Float64()) / total))
			}
			g.endChunk()
			c.purchases = n
			done += n
			if !send(c) {
				return
			}
		}
	}()

	// The writers take chunks as they come; ids are fixed by the generator, so the
	// order in which chunks commit does not matter.
	rep := reporter{w: progress, start: start, last: start, purchases: opt.Purchases, subscribers: opt.Subscribers}
	var (
		mu   sync.Mutex
		werr error
		wg   sync.WaitGroup
	)
	for _, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range chunks {
				if ctx.Err() != nil {
					continue // drain so the generator can finish
				}
				err := writeChunk(ctx, conn, c)
				// Chunks meet on the rollup rows of the same days and on the gaps of
				// subscriber_terms; InnoDB breaks a deadlock by rolling one back, and the
				// chunk is then written again whole.
				for attempt := 1; mysql.IsDeadlock(err) && attempt < 10; attempt++ {
					err = writeChunk(ctx, conn, c)
				}
				mu.Lock()
				if err != nil {
					if werr == nil {
						werr = err
					}
					cancel()
				} else {
					for k, v := range c.rows {
						stats.Rows[k] += v
					}
					rep.done(c, stats)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	stats.Elapsed = time.Since(start)
	if werr != nil {
		return stats, fmt.Errorf("seed: %w", werr)
	}
	if err := ctx.Err(); err != nil {
		return stats, fmt.Errorf("seed: %w", err)
	}
	fmt.Fprintf(progress, "seed: done: %s\n", stats)
	return stats, nil
}

// openSession takes a connection out of the pool for writing, with foreign-key checks
// off in its session: the generator guarantees the references that the checks would
// verify. Unique checks stay on: with both off, MariaDB (10.6 and later) writes a
// transaction's inserts into an empty table as a bulk load that locks the whole table
// until the commit, so the first chunk held every table from the other writer, and
// reading its own rows back (the rollups) took over a minute; the other chunk's insert then
// timed out waiting for the table lock (error 1205), and a seed of a new database failed.
func openSession(ctx context.Context, db *sql.DB) (*sql.Conn, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 0"); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// closeSession restores the checks before the connection goes back to the pool (with
// a fresh context, since the run's may be canceled by now).
func closeSession(conn *sql.Conn) {
	_, _ = conn.ExecContext(context.Background(), "SET SESSION foreign_key_checks = 1")
	conn.Close()
}

// writeChunk runs the statements of one chunk in one transaction.
func writeChunk(ctx context.Context, conn *sql.Conn, c *chunk) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for _, s := range c.stmts {
		if _, err := tx.ExecContext(ctx, s.query); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("%.40s…: %w", s.query, err)
		}
	}
	for account, ps := range c.bought {
		if err := mysql.StoreSearchRows(ctx, tx, account, ps); err != nil {
			_ = tx.Rollback()
			return err
		}
		// The documents come from the generator's purchases, not from reading the
		// rows back: the same bytes (TestRun_DerivedEqual), at a fraction of the cost.
		if err := mysql.StoreDocuments(ctx, tx, account, ps); err != nil {
			_ = tx.Rollback()
			return fmt.Errorf("documents: %w", err)
		}
	}
	if err := writeRollups(ctx, tx, c); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := mysql.BumpPurchaseVersions(ctx, tx, slices.Collect(maps.Keys(c.bought))...); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// reporter prints a progress line every couple of seconds.
type reporter struct {
	w                      io.Writer
	start, last            time.Time
	purchases, subscribers int
	donePurch, doneSubs    int
}

func (r *reporter) done(c *chunk, s Stats) {
	r.donePurch += c.purchases
	r.doneSubs += c.subscribers
	now := time.Now()
	if now.Sub(r.last) < progressEvery {
		return
	}
	r.last = now
	el := now.Sub(r.start)
	fmt.Fprintf(r.w, "seed: subscribers %d/%d, purchases %d/%d, %d rows, %.0f rows/s, %s\n",
		r.doneSubs, r.subscribers, r.donePurch, r.purchases, s.Total(), rate(s.Total(), el), el.Round(time.Second))
}

// writeRollups counts the chunk's purchases and subscribers into the rollups, in the
// chunk's transaction.
func writeRollups(ctx context.Context, tx *sql.Tx, c *chunk) error {
	// The accounts in order, so that two chunks of the same accounts lock their rollup
	// rows in the same order rather than wait for each other's in a cycle.
	for _, account := range slices.Sorted(maps.Keys(c.bought)) {
		if err := mysql.AddPurchaseRollups(ctx, tx, account, c.bought[account]); err != nil {
			return fmt.Errorf("rollups: %w", err)
		}
	}
	for _, account := range slices.Sorted(maps.Keys(c.subscriberIDs)) {
		if err := mysql.SyncSubscriberRollups(ctx, tx, account, c.subscriberIDs[account]); err != nil {
			return fmt.Errorf("rollups: %w", err)
		}
	}
	return nil
}
