package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"storefront/internal/shop"
	"storefront/internal/worker"
)

// ReplicaOptions tune a ReadRouter. The zero value of each field means its default.
type ReplicaOptions struct {
	// CheckEvery is how often the replica is asked whether it answers and how far it
	// has applied the primary's binlog (default 1s).
	CheckEvery time.Duration
	// Log receives a line when the replica goes down or comes back (default slog.Default()).
	Log *slog.Logger
}

// ReadRouter serves the purchase and subscriber services, and nothing else, from the
// primary database (every write) and a read replica (list and detail reads)
// (STOREFRONT_READ_DSN). It gives read-your-writes with GTIDs:
//
//   - after a write for an account, the primary's binlog position (@@gtid_binlog_pos)
//     is recorded in read_fences, on the primary, where every instance finds it;
//   - a read for the account goes to the replica only when the replica has applied that
//     position (known from its last health check, else asked with
//     MASTER_GTID_WAIT(pos, 0)), else to the primary;
//   - a request that writes (shop.WithPrimaryReads) reads from the primary throughout.
//
// A replica that does not answer is left alone (a circuit breaker) until a health
// check finds it answering again; a read that fails on it is retried on the primary,
// so the service keeps answering.
type ReadRouter struct {
	primary *DB
	replica *DB
	opt     ReplicaOptions

	mu      sync.Mutex
	up      bool
	applied gtidPos // a lower bound of what the replica has applied

	stop context.CancelFunc
	done chan struct{}
}

// Services the router serves, checked by the compiler.
var (
	_ shop.PurchaseService        = (*ReadRouter)(nil)
	_ shop.PurchaseWriter         = (*ReadRouter)(nil)
	_ shop.SubscriberService      = (*ReadRouter)(nil)
	_ shop.AccountActivityService = (*ReadRouter)(nil)
)

// OpenReplica returns a handle on the replica named by dsn without waiting for it to
// answer: a replica that is down at start must not keep the service from starting.
func OpenReplica(dsn string, opts ...OpenOption) (*DB, error) {
	norm, err := NormalizeDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("STOREFRONT_READ_DSN: %w", err)
	}
	cfg, err := mysql.ParseDSN(norm)
	if err != nil {
		return nil, fmt.Errorf("STOREFRONT_READ_DSN: %w", err)
	}
	// A replica that is gone must be noticed quickly, so that reads fall back.
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.ReadTimeout == 0 {
		cfg.ReadTimeout = 30 * time.Second
	}
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("STOREFRONT_READ_DSN: %w", err)
	}
	sqlDB := openOptions(opts).openConnector(connector)
	sqlDB.SetMaxOpenConns(64)
	sqlDB.SetMaxIdleConns(64)
	sqlDB.SetConnMaxLifetime(30 * time.Minute)
	return &DB{DB: sqlDB, Now: time.Now}, nil
}

// NewReadRouter routes primary's reads to replica as the type's comment says, and
// starts the replica's health check; Close stops it (and closes replica, not primary).
func NewReadRouter(primary, replica *DB, opt ReplicaOptions) *ReadRouter {
	if opt.CheckEvery <= 0 {
		opt.CheckEvery = time.Second
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	r := &ReadRouter{primary: primary, replica: replica, opt: opt, done: make(chan struct{})}
	r.check(context.Background())
	// The health check is a background worker like the others: a step every CheckEvery.
	health := worker.New("replica-health", func(ctx context.Context) (bool, error) {
		r.check(ctx)
		return false, nil
	}, worker.Options{Poll: opt.CheckEvery, Log: opt.Log})
	ctx, stop := context.WithCancel(context.Background())
	r.stop = stop
	go func() { defer close(r.done); _ = health.Run(ctx) }()
	return r
}

// Close stops the health check and closes the replica's connections.
func (r *ReadRouter) Close() error {
	r.stop()
	<-r.done
	return r.replica.Close()
}

// ReplicaUp reports whether reads go to the replica now (its breaker is closed).
func (r *ReadRouter) ReplicaUp() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.up
}

// ReplicaBehind returns how many of the primary's transactions the replica has not
// applied yet (by their GTIDs, summed over the replication domains).
func (r *ReadRouter) ReplicaBehind(ctx context.Context) (uint64, error) {
	var primary, applied string
	if err := r.primary.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&primary); err != nil {
		return 0, translate(err)
	}
	if err := r.replica.QueryRowContext(ctx, "SELECT @@gtid_slave_pos").Scan(&applied); err != nil {
		return 0, translate(err)
	}
	return parseGTIDPos(applied).behind(parseGTIDPos(primary)), nil
}

// check asks the replica how far it has applied the primary's binlog; an answer closes
// the breaker, no answer opens it.
func (r *ReadRouter) check(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, max(time.Second, r.opt.CheckEvery))
	defer cancel()
	var pos string
	err := r.replica.QueryRowContext(ctx, "SELECT @@gtid_slave_pos").Scan(&pos)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if r.up {
			r.opt.Log.Warn("read replica is not answering; reads go to the primary", "err", err)
		}
		r.up = false
		return
	}
	if !r.up {
		r.opt.Log.Info("read replica is answering; list and detail reads go to it")
	}
	r.up = true
	r.applied = r.applied.merge(parseGTIDPos(pos))
}

// trip opens the breaker after a failed read; the next health check that gets an
// answer closes it.
func (r *ReadRouter) trip(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.up {
		r.opt.Log.Warn("read replica failed; reads go to the primary", "err", err)
	}
	r.up = false
}

// pick returns the database a read for the account goes to.
func (r *ReadRouter) pick(ctx context.Context, accountID int64) *DB {
	if shop.PrimaryReads(ctx) {
		return r.primary
	}
	r.mu.Lock()
	up, applied := r.up, r.applied
	r.mu.Unlock()
	if !up {
		return r.primary
	}
	var fence string
	err := r.primary.QueryRowContext(ctx, "SELECT gtid_pos FROM read_fences WHERE account_id = ?", accountID).Scan(&fence)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return r.replica
	case err != nil:
		// The primary answers the read, or says it is unavailable.
		return r.primary
	}
	want := parseGTIDPos(fence)
	if applied.covers(want) {
		return r.replica
	}
	// The health check's position is old: ask the replica now, without waiting.
	var res sql.NullInt64
	if err := r.replica.QueryRowContext(ctx, "SELECT MASTER_GTID_WAIT(?, 0)", fence).Scan(&res); err != nil {
		r.trip(err)
		return r.primary
	}
	if res.Valid && res.Int64 == 0 {
		r.mu.Lock()
		r.applied = r.applied.merge(want)
		r.mu.Unlock()
		return r.replica
	}
	return r.primary
}

// read runs fn on the database pick chooses, and again on the primary when the
// replica cannot be reached.
func (r *ReadRouter) read(ctx context.Context, accountID int64, fn func(db *DB) error) error {
	db := r.pick(ctx, accountID)
	if db == r.primary {
		return fn(db)
	}
	err := fn(db)
	// An answer (a purchase, or "not found") stands; a failure of the replica itself
	// (unreachable, or a table it does not have yet) is retried on the primary.
	var se *shop.Error
	if err == nil || ctx.Err() != nil || (errors.As(err, &se) && !errors.Is(err, ErrUnavailable)) {
		return err
	}
	r.trip(err)
	return fn(r.primary)
}

// fence records the primary's binlog position after a write for the account, so that
// the account's next reads, on any instance, wait for a replica that has applied it.
func (r *ReadRouter) fence(ctx context.Context, accountID int64) error {
	return r.primary.RecordReadFences(ctx, accountID)
}

// RecordReadFences records, for each account, the primary's binlog position now, just
// after a write for it committed: until a replica has applied that position, the
// account's reads go to the primary (ReadRouter). Writers outside a ReadRouter call it
// too (storefront import, the PAST_DUE sweeper). db must be the primary. Without a
// binary log the position is empty and every replica covers it.
func (db *DB) RecordReadFences(ctx context.Context, accountIDs ...int64) error {
	if len(accountIDs) == 0 {
		return nil
	}
	var pos string
	if err := db.QueryRowContext(ctx, "SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		return translate(err)
	}
	now := db.Now().UTC()
	ids := slices.Clone(accountIDs)
	// One order for every writer, so that two fencing overlapping accounts at once
	// cannot deadlock.
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return db.inTx(ctx, func(tx *Tx) error {
		for _, id := range ids {
			// Two writers fencing the same account at once keep the later position.
			var old string
			err := tx.QueryRowContext(ctx, "SELECT gtid_pos FROM read_fences WHERE account_id = ? FOR UPDATE", id).Scan(&old)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return translate(err)
			}
			merged := parseGTIDPos(old).merge(parseGTIDPos(pos)).String()
			_, err = tx.ExecContext(ctx, `INSERT INTO read_fences (account_id, gtid_pos, updated_at) VALUES (?, ?, ?)
				ON DUPLICATE KEY UPDATE gtid_pos = VALUES(gtid_pos), updated_at = VALUES(updated_at)`, id, merged, now)
			if err != nil {
				return translate(err)
			}
		}
		return nil
	})
}

// Reactivate implements shop.PurchaseWriter on the primary, then fences the account.
// A remembered answer (a repeated Idempotency-Key, a 409 kept for it) committed too.
func (r *ReadRouter) Reactivate(ctx context.Context, req shop.ReactivateRequest) (*shop.ReactivateResult, error) {
	res, err := NewPurchaseService(r.primary).Reactivate(ctx, req)
	if err == nil || shop.ErrorCode(err) == shop.EConflict || shop.ErrorCode(err) == shop.EIdempotency {
		if ferr := r.fence(ctx, req.AccountID); ferr != nil {
			// The write stands; until the replica catches up the account may read
			// what it was before.
			r.opt.Log.Warn("record read fence after a write", "account", req.AccountID, "err", ferr)
		}
	}
	return res, err
}

// FindPurchaseByID implements shop.PurchaseService.
func (r *ReadRouter) FindPurchaseByID(ctx context.Context, accountID, id int64) (p *shop.Purchase, err error) {
	err = r.read(ctx, accountID, func(db *DB) error { p, err = NewPurchaseService(db).FindPurchaseByID(ctx, accountID, id); return err })
	return p, err
}

// FindPurchases implements shop.PurchaseService.
func (r *ReadRouter) FindPurchases(ctx context.Context, f shop.PurchaseFilter) (page *shop.PurchasePage, err error) {
	err = r.read(ctx, f.AccountID, func(db *DB) error { page, err = NewPurchaseService(db).FindPurchases(ctx, f); return err })
	return page, err
}

// FindPurchaseDocument implements shop.PurchaseService.
func (r *ReadRouter) FindPurchaseDocument(ctx context.Context, accountID, id int64, buf []byte) (doc []byte, version int64, err error) {
	err = r.read(ctx, accountID, func(db *DB) error {
		doc, version, err = NewPurchaseService(db).FindPurchaseDocument(ctx, accountID, id, buf)
		return err
	})
	return doc, version, err
}

// FindPurchaseDocuments implements shop.PurchaseService.
func (r *ReadRouter) FindPurchaseDocuments(ctx context.Context, f shop.PurchaseFilter, buf []byte) (page *shop.DocumentPage, err error) {
	err = r.read(ctx, f.AccountID, func(db *DB) error { page, err = NewPurchaseService(db).FindPurchaseDocuments(ctx, f, buf); return err })
	return page, err
}

// PurchasesVersion implements shop.PurchaseService. It is read where the account's
// reads go, so that it matches what they answer.
func (r *ReadRouter) PurchasesVersion(ctx context.Context, accountID int64) (v int64, err error) {
	err = r.read(ctx, accountID, func(db *DB) error { v, err = db.purchasesVersion(ctx, accountID); return err })
	return v, err
}

// CountPurchases implements shop.PurchaseService.
func (r *ReadRouter) CountPurchases(ctx context.Context, f shop.PurchaseFilter, limit int64) (n int64, capped bool, err error) {
	err = r.read(ctx, f.AccountID, func(db *DB) error { n, capped, err = NewPurchaseService(db).CountPurchases(ctx, f, limit); return err })
	return n, capped, err
}

// FindPurchasesNamed implements shop.PurchaseService.
func (r *ReadRouter) FindPurchasesNamed(ctx context.Context, accountID int64, by shop.NamedBy, value string, limit int) (found []shop.NamedPurchase, err error) {
	err = r.read(ctx, accountID, func(db *DB) error {
		found, err = NewPurchaseService(db).FindPurchasesNamed(ctx, accountID, by, value, limit)
		return err
	})
	return found, err
}

// FindPurchaseTimeline is the purchase page's timeline (activity with the state of the
// purchase's e-mails).
func (r *ReadRouter) FindPurchaseTimeline(ctx context.Context, accountID, purchaseID int64) (a []shop.TimelineEntry, err error) {
	err = r.read(ctx, accountID, func(db *DB) error {
		a, err = NewPurchaseService(db).FindPurchaseTimeline(ctx, accountID, purchaseID)
		return err
	})
	return a, err
}

// FindSubscriberByID implements shop.SubscriberService.
func (r *ReadRouter) FindSubscriberByID(ctx context.Context, accountID, storefrontID, id int64) (s *shop.Subscriber, err error) {
	err = r.read(ctx, accountID, func(db *DB) error {
		s, err = NewSubscriberService(db).FindSubscriberByID(ctx, accountID, storefrontID, id)
		return err
	})
	return s, err
}

// FindSubscribers implements shop.SubscriberService.
func (r *ReadRouter) FindSubscribers(ctx context.Context, f shop.SubscriberFilter) (page *shop.SubscriberPage, err error) {
	err = r.read(ctx, f.AccountID, func(db *DB) error { page, err = NewSubscriberService(db).FindSubscribers(ctx, f); return err })
	return page, err
}

// FindSubscriberActivity implements shop.SubscriberService.
func (r *ReadRouter) FindSubscriberActivity(ctx context.Context, accountID, storefrontID, subscriberID int64) (a []shop.Activity, err error) {
	err = r.read(ctx, accountID, func(db *DB) error {
		a, err = NewSubscriberService(db).FindSubscriberActivity(ctx, accountID, storefrontID, subscriberID)
		return err
	})
	return a, err
}

// gtidPos is a MariaDB GTID position: the last sequence number of each replication
// domain ("0-1-57,1-2-9").
type gtidPos map[uint32]gtid

type gtid struct {
	server uint32
	seq    uint64
}

// parseGTIDPos reads a position; parts it cannot read are left out.
func parseGTIDPos(s string) gtidPos {
	p := gtidPos{}
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(strings.TrimSpace(part), "-")
		if len(f) != 3 {
			continue
		}
		d, err1 := strconv.ParseUint(f[0], 10, 32)
		srv, err2 := strconv.ParseUint(f[1], 10, 32)
		seq, err3 := strconv.ParseUint(f[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		if old, ok := p[uint32(d)]; !ok || seq > old.seq {
			p[uint32(d)] = gtid{uint32(srv), seq}
		}
	}
	return p
}

// covers reports whether p has applied everything want names.
func (p gtidPos) covers(want gtidPos) bool {
	for d, w := range want {
		if p[d].seq < w.seq {
			return false
		}
	}
	return true
}

// merge returns the later of p and q in each domain.
// behind counts the transactions of primary that p has not reached.
func (p gtidPos) behind(primary gtidPos) uint64 {
	var n uint64
	for domain, g := range primary {
		if have := p[domain].seq; g.seq > have {
			n += g.seq - have
		}
	}
	return n
}

func (p gtidPos) merge(q gtidPos) gtidPos {
	out := make(gtidPos, len(p)+len(q))
	for d, g := range p {
		out[d] = g
	}
	for d, g := range q {
		if old, ok := out[d]; !ok || g.seq > old.seq {
			out[d] = g
		}
	}
	return out
}

// String writes p as MariaDB does, domains in ascending order.
func (p gtidPos) String() string {
	ds := make([]uint32, 0, len(p))
	for d := range p {
		ds = append(ds, d)
	}
	slices.Sort(ds)
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%d-%d-%d", d, p[d].server, p[d].seq)
	}
	return strings.Join(parts, ",")
}

// ExportPurchases implements shop.PurchaseService. A replica that fails before the
// first batch reached fn is replaced by the primary; after that the export fails, as a
// second start would repeat what was already sent.
func (r *ReadRouter) ExportPurchases(ctx context.Context, f shop.PurchaseFilter, lines shop.ExportLines, fn func([]*shop.Purchase) error) error {
	sent := false
	return r.read(ctx, f.AccountID, func(db *DB) error {
		if sent {
			return shop.Errorf(shop.EUnavailable, "The export was interrupted; start it again.")
		}
		return NewPurchaseService(db).ExportPurchases(ctx, f, lines, func(ps []*shop.Purchase) error {
			sent = true
			return fn(ps)
		})
	})
}

// RecordAccountActivity implements shop.AccountActivityService on the primary, then
// fences the account so that its next reads see the entry.
func (r *ReadRouter) RecordAccountActivity(ctx context.Context, accountID int64, a shop.Activity) error {
	if err := NewAccountActivityService(r.primary).RecordAccountActivity(ctx, accountID, a); err != nil {
		return err
	}
	if err := r.fence(ctx, accountID); err != nil {
		r.opt.Log.Warn("record read fence after a write", "account", accountID, "err", err)
	}
	return nil
}

// FindAccountActivity implements shop.AccountActivityService.
func (r *ReadRouter) FindAccountActivity(ctx context.Context, accountID int64, limit int) (a []shop.Activity, err error) {
	err = r.read(ctx, accountID, func(db *DB) error {
		a, err = NewAccountActivityService(db).FindAccountActivity(ctx, accountID, limit)
		return err
	})
	return a, err
}
