package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"time"

	"storefront/internal/importer"
)

// Limits of one import statement: placeholders stay below the protocol's 65,535 and
// the statement well below max_allowed_packet (16 MiB by default) even when every
// text is escaped.
const (
	importMaxParams = 60000
	importMaxBytes  = 4 << 20
)

// BeginImport starts the transaction of an import (importer.Store) on a connection of
// its own. Foreign key checks are off for that connection while the import runs:
// the importer checks every reference before it writes, and the checks are restored
// before the connection goes back to the pool.
func (db *DB) BeginImport(ctx context.Context) (importer.Tx, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, translate(err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 0"); err != nil {
		conn.Close()
		return nil, translate(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		releaseImportConn(conn)
		return nil, translate(err)
	}
	return &importTx{db: db, conn: conn, tx: tx, accounts: map[int64]bool{}, storefronts: map[int64]bool{}}, nil
}

// releaseImportConn restores foreign key checks and returns the connection to the
// pool, or drops it when the checks cannot be restored.
func releaseImportConn(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), "SET SESSION foreign_key_checks = 1"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	conn.Close()
}

// importTx implements importer.Tx.
type importTx struct {
	db    *DB
	conn  *sql.Conn
	tx    *sql.Tx
	ended bool
	// accounts and storefronts hold what the import wrote to, so that the accounts'
	// reads are fenced after the commit (RecordReadFences).
	accounts    map[int64]bool
	storefronts map[int64]bool
	// hooked, hookTargets and events serve the webhook events (import_events.go).
	hooked      map[int64]bool
	hookTargets map[int64][]hookTarget
	events      int
	// docStmt writes documentBatch documents (storeDocuments); the transaction
	// closes it.
	docStmt *sql.Stmt
	// looked holds what the lookup of the batch being written read (LookupBatchRefs),
	// for its UpsertPurchases.
	looked *batchRows
	// work is the preparation of the batch being written, started by its lookup.
	work <-chan *batchWork
	// rollups gathers the purchases' rollup changes of every batch, written at the
	// commit or before accounts are written, whichever comes first.
	rollups importDeltas
}

func (t *importTx) end(fn func() error) error {
	if t.ended {
		return nil
	}
	t.ended = true
	err := fn()
	releaseImportConn(t.conn)
	return translate(err)
}

// Commit implements importer.Tx. Once the import has committed, the accounts it wrote
// to read from the primary until a replica has applied it; a fence that cannot be
// recorded is logged, and the import stands.
func (t *importTx) Commit() error {
	if t.ended {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sfIDs []int64
	for id := range t.storefronts {
		sfIDs = append(sfIDs, id)
	}
	if len(sfIDs) > 0 {
		// The subscribers' accounts, through their storefronts (as committed).
		list, args := importInList(sfIDs)
		err := eachRow(ctx, t.tx, "SELECT DISTINCT account_id FROM storefronts WHERE id IN "+list, args, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			t.accounts[id] = true
			return nil
		})
		if err != nil {
			_ = t.Rollback()
			return fmt.Errorf("accounts of the imported subscribers: %w", err)
		}
	}
	if err := t.rollups.apply(ctx, t.tx); err != nil {
		_ = t.Rollback()
		return err
	}
	// Last: the accounts' API answers change with this commit (versions.go).
	accounts := make([]int64, 0, len(t.accounts))
	for id := range t.accounts {
		accounts = append(accounts, id)
	}
	if err := bumpPurchaseVersions(ctx, t.tx, accounts...); err != nil {
		_ = t.Rollback()
		return err
	}
	if err := t.end(t.tx.Commit); err != nil {
		return err
	}
	if t.events > 0 {
		t.db.webhookEventsWritten()
	}
	ids := make([]int64, 0, len(t.accounts))
	for id := range t.accounts {
		ids = append(ids, id)
	}
	if err := t.db.RecordReadFences(ctx, ids...); err != nil {
		slog.Warn("import committed; its accounts may read what was there before from a lagging replica", "err", err)
	}
	return nil
}

// Rollback implements importer.Tx.
func (t *importTx) Rollback() error { return t.end(t.tx.Rollback) }

// insertRows runs "head VALUES (...),(...) tail" over args, a flat list of rows of
// cols values each, in as many statements as the limits require.
func (t *importTx) insertRows(ctx context.Context, head string, cols int, tail string, args []any) error {
	maxRows := importMaxParams / cols
	for start := 0; start < len(args); {
		rows, size := 0, 0
		end := start
		for end < len(args) && rows < maxRows && (rows == 0 || size < importMaxBytes) {
			for _, a := range args[end : end+cols] {
				if s, ok := a.(string); ok {
					size += 2*len(s) + 3
				} else {
					size += 24
				}
			}
			end += cols
			rows++
		}
		q := head + " VALUES " + rowPlaceholders(rows, cols) + " " + tail
		if _, err := t.tx.ExecContext(ctx, q, args[start:end]...); err != nil {
			return translate(err)
		}
		start = end
	}
	return nil
}

// deleteIn runs "DELETE FROM table WHERE col IN (ids)" in chunks.
func (t *importTx) deleteIn(ctx context.Context, table, col string, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), 10000)
		list, args := importInList(ids[:n])
		if _, err := t.tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE "+col+" IN "+list, args...); err != nil {
			return translate(err)
		}
		ids = ids[n:]
	}
	return nil
}

// Argument helpers: explicit conversions spare database/sql its reflection.

// followAccount runs update, which ends in "IN ", with the ids as its list, in chunks.
func (t *importTx) followAccount(ctx context.Context, update string, ids []int64) error {
	for start := 0; start < len(ids); start += importMaxParams {
		list, args := importInList(ids[start:min(start+importMaxParams, len(ids))])
		if _, err := t.tx.ExecContext(ctx, update+list, args...); err != nil {
			return translate(err)
		}
	}
	return nil
}

// deleteInAccount deletes the rows of an account's table whose purchase_id is in ids.
func (t *importTx) deleteInAccount(ctx context.Context, table string, account int64, ids []int64) error {
	for start := 0; start < len(ids); start += importMaxParams {
		list, args := importInList(ids[start:min(start+importMaxParams, len(ids))])
		if _, err := t.tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE account_id = ? AND purchase_id IN "+list,
			append([]any{account}, args...)...); err != nil {
			return translate(err)
		}
	}
	return nil
}
