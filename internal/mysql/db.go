// Package mysql implements the shop services on MySQL/MariaDB through
// go-sql-driver/mysql: fixed statements in raw SQL, squirrel where clauses vary.
package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/pressly/goose/v3"

	schema "storefront/db"
	"storefront/internal/shop"
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

// SQLDriver is the database/sql driver that Open uses: go-sql-driver/mysql, or a
// recording wrapper around it that the tests register (internal/dbtest).
var SQLDriver = "mysql"

// NormalizeDSN adds the settings the program relies on to a go-sql-driver DSN:
// parseTime, UTC for DATETIME values, utf8mb4 with a case- and accent-insensitive
// collation, and a UTC session time zone.
func NormalizeDSN(dsn string) (string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("STOREFRONT_DSN: %w", err)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Collation = "utf8mb4_unicode_ci"
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.InterpolateParams = true
	// RowsAffected counts matched rows, so that an update to the same value is not
	// mistaken for "no such row".
	cfg.ClientFoundRows = true
	return cfg.FormatDSN(), nil
}

// Open connects to the database named by dsn and checks that it answers.
func Open(ctx context.Context, dsn string) (*DB, error) {
	norm, err := NormalizeDSN(dsn)
	if err != nil {
		return nil, err
	}
	sqlDB, err := sql.Open(SQLDriver, norm)
	if err != nil {
		return nil, err
	}
	sqlDB.SetMaxOpenConns(64)
	sqlDB.SetMaxIdleConns(64)
	sqlDB.SetConnMaxLifetime(30 * time.Minute)
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := sqlDB.PingContext(pingCtx); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	return &DB{DB: sqlDB, Now: time.Now}, nil
}

// Migrate brings the schema up to date with the embedded migrations. Instances that
// start together on one database migrate it one at a time (a named lock).
func (db *DB) Migrate(ctx context.Context) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", translate(err))
	}
	defer conn.Close()
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(CONCAT('storefront_migrate:', DATABASE()), 120)").Scan(&got); err != nil {
		return fmt.Errorf("migrate: %w", translate(err))
	}
	if !got.Valid || got.Int64 != 1 {
		return errors.New("migrate: another instance has been migrating this database for two minutes")
	}
	defer conn.ExecContext(context.Background(), "DO RELEASE_LOCK(CONCAT('storefront_migrate:', DATABASE()))")
	p, err := db.migrations()
	if err != nil {
		return err
	}
	results, err := p.Up(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, r := range results {
		slog.Debug("migrated", "version", r.Source.Version, "took", r.Duration)
	}
	return nil
}

// migrations returns the schema's migrations, the SQL files and the Go ones.
func (db *DB) migrations() (*goose.Provider, error) {
	migrations, err := fs.Sub(schema.Migrations, "migrations")
	if err != nil {
		return nil, err
	}
	noop := &goose.GoFunc{RunDB: func(context.Context, *sql.DB) error { return nil }}
	p, err := goose.NewProvider(goose.DialectMySQL, db.DB, migrations, goose.WithGoMigrations(
		// 30 filled the documents of 00029's table; the read path that builds them now
		// reads the account columns of 00040–00048, so 49 does it instead.
		goose.NewGoMigration(30, noop, noop),
		// Every existing purchase without a document gets it, built in Go by the one
		// read path, in batches of their own transactions (resumable).
		goose.NewGoMigration(49, &goose.GoFunc{RunDB: func(ctx context.Context, sqlDB *sql.DB) error {
			_, err := backfillDocuments(ctx, sqlDB)
			return err
		}}, noop),
		// After 00032 made the table: every existing purchase gets its prefix rows, from
		// its row by the statement that writes them, in batches of their own
		// transactions (resumable).
		goose.NewGoMigration(33, &goose.GoFunc{RunDB: backfillPrefixes}, noop),
		// Every existing purchase gets its initials' prefix row (the first letters of
		// its first and last names together), as 33 did the others.
		goose.NewGoMigration(103, &goose.GoFunc{RunDB: backfillInitials}, &goose.GoFunc{RunDB: func(ctx context.Context, sqlDB *sql.DB) error {
			_, err := sqlDB.ExecContext(ctx, "DELETE FROM purchase_prefixes WHERE field = 4")
			return err
		}}),
		// 84 summed the rollups of 00080-00083; the rebuild now also writes the monthly
		// table of 00088, so 90 does it instead, after those rollup tables exist. The
		// monthly and weekly purchase rollups of 00110 and 00112 come later: 90 leaves
		// them out, and 00111 and 00113 sum them from the days.
		goose.NewGoMigration(84, noop, noop),
		goose.NewGoMigration(90, &goose.GoFunc{RunDB: func(ctx context.Context, sqlDB *sql.DB) error {
			_, err := rebuildRollups(ctx, sqlDB, true)
			return err
		}}, noop),
		// Down only: the version before 00099 sends the text it finds in a row, and rows
		// queued since have none until they are sent. Those still to send are given up
		// (marked failed, with the reason), and every row gets a text, so that 00099's
		// down can make the columns NOT NULL again.
		goose.NewGoMigration(100, noop, &goose.GoFunc{RunDB: func(ctx context.Context, sqlDB *sql.DB) error {
			_, err := sqlDB.ExecContext(ctx, `UPDATE email_outbox
				SET last_error = IF(status IN ('queued', 'sending'), 'not sent: queued without its text, which this version cannot write', last_error),
				status = IF(status IN ('queued', 'sending'), 'failed', status),
				subject = COALESCE(subject, ''), body = COALESCE(body, '')
				WHERE subject IS NULL OR body IS NULL`)
			return err
		}}),
	))
	if err != nil {
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return p, nil
}

// inTx runs fn in a transaction, committing when it returns nil.
func (db *DB) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return db.inTxWith(ctx, nil, fn)
}

// inTxWith runs fn in a transaction with the given options (nil: the defaults).
func (db *DB) inTxWith(ctx context.Context, opts *sql.TxOptions, fn func(tx *sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return translate(err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return translate(err)
	}
	return translate(tx.Commit())
}

// ErrUnavailable is wrapped into errors that mean the database cannot be reached.
var ErrUnavailable = &shop.Error{Code: shop.EUnavailable, Message: "The database is unavailable; try again shortly."}

// translate maps driver errors that mean "unreachable" onto shop.EUnavailable, keeping
// the original in the chain for the log.
func translate(err error) error {
	if err == nil || errors.Is(err, ErrUnavailable) {
		return err
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		switch me.Number {
		// The server is shutting down (1053), killed the connection on its way down
		// (1927), or takes no more connections (1040): unreachable for now, like a
		// refused connection.
		case 1053, 1927, 1040:
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	// A connection that broke under a statement (driver.ErrBadConn: the pool could
	// not retry it, as inside a transaction) means the server went away mid-way.
	if errors.Is(err, mysql.ErrInvalidConn) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, io.ErrUnexpectedEOF) || isNetError(err) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return err
}

func isNetError(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne)
}

// IsDeadlock reports whether err is InnoDB's deadlock error, after which the whole
// transaction was rolled back and may be run again.
func IsDeadlock(err error) bool { return isDeadlock(err) }

func isDeadlock(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1213
}

// isDuplicate reports whether err is a duplicate-key error.
func isDuplicate(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1062
}
