package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/pressly/goose/v3"

	schema "storefront/db"
)

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
	return db.MigrateUnlocked(ctx)
}

// MigrateUnlocked is Migrate without the named lock, for one process that migrates a
// database alone: scripts/vtmigrate, shard by shard through a vtgate, where GET_LOCK
// needs a reserved connection that a shard-targeted session does not have.
func (db *DB) MigrateUnlocked(ctx context.Context) error {
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
		goose.NewGoMigration(103, &goose.GoFunc{RunDB: backfillInitials}, undoPrefixField(prefixInitials)),
		// After 00130 widened the prefix: every existing purchase gets its domain's
		// prefix row, as 33 did the others.
		goose.NewGoMigration(131, &goose.GoFunc{RunDB: backfillDomains}, undoPrefixField(prefixDomain)),
		// After 00141 made the table: every existing purchase gets its pairs' rows, as
		// 33 did the prefix rows.
		goose.NewGoMigration(142, &goose.GoFunc{RunDB: backfillPairs}, noop),
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

// undoPrefixField is the down of a migration that wrote one prefix field's rows for
// every purchase: those rows, of every account.
func undoPrefixField(field prefixField) *goose.GoFunc {
	return &goose.GoFunc{RunDB: func(ctx context.Context, sqlDB *sql.DB) error {
		_, err := sqlDB.ExecContext(ctx, "DELETE FROM purchase_prefixes WHERE field = ?", int(field))
		return err
	}}
}

// Ready reports why the database cannot serve requests: it does not answer, or its
// schema is behind (or ahead of) the migrations this program carries. nil means ready.
// Through a vtgate the migration record is each shard's own (scripts/vtmigrate
// migrates them one by one) and goose's check of its table, by the connection's
// database, has no database to look in: Ready then pings and compares the record of
// the unsharded keyspace, the one vtgate routes goose_db_version to, with the
// migrations (docs/SCALING.md, "On a real vtgate").
func (db *DB) Ready(ctx context.Context) error {
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("database does not answer: %w", translate(err))
	}
	p, err := db.migrations()
	if err != nil {
		return err
	}
	var current, target int64
	if db.Vitess {
		sources := p.ListSources()
		if len(sources) > 0 {
			target = sources[len(sources)-1].Version
		}
		var v sql.NullInt64
		if err := db.QueryRowContext(ctx, "SELECT MAX(version_id) FROM goose_db_version WHERE is_applied").Scan(&v); err != nil {
			return fmt.Errorf("schema version unreadable: %w", translate(err))
		}
		current = v.Int64
	} else if current, target, err = p.GetVersions(ctx); err != nil {
		return fmt.Errorf("schema version unreadable: %w", translate(err))
	}
	if current != target {
		return fmt.Errorf("schema at version %d, this program needs %d: run storefront migrate", current, target)
	}
	return nil
}
