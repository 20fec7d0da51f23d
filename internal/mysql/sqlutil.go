package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"storefront/internal/shop"
	"storefront/internal/sqlrows"
)

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

// Open connects to the database named by dsn and checks that it answers; opts add
// tracing (WithTracing).
func Open(ctx context.Context, dsn string, opts ...OpenOption) (*DB, error) {
	norm, err := NormalizeDSN(dsn)
	if err != nil {
		return nil, err
	}
	sqlDB, err := openOptions(opts).openPool(norm)
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
	var version string
	if err := sqlDB.QueryRowContext(pingCtx, "SELECT VERSION()").Scan(&version); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	if !strings.HasSuffix(version, "-Vitess") {
		return &DB{DB: sqlDB, Now: time.Now}, nil
	}
	// A vtgate: its connections set their session's isolation level (vitess.go).
	variable, err := isolationVariable(pingCtx, sqlDB)
	if err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("connect to database: %w", err)
	}
	drv := sqlDB.Driver()
	sqlDB.Close()
	sqlDB = sql.OpenDB(&isoConnector{drv: drv, dsn: norm, variable: variable})
	sqlDB.SetMaxOpenConns(64)
	sqlDB.SetMaxIdleConns(64)
	sqlDB.SetConnMaxLifetime(30 * time.Minute)
	return &DB{DB: sqlDB, Now: time.Now, Vitess: true}, nil
}

// Tx is a transaction of the store. Besides running statements it records the
// background work it queued (Work* of work.go), so that committing it wakes the
// workers that do that work: whoever writes work into a transaction says so on the
// transaction (queue), and nothing wakes a worker by hand.
type Tx struct {
	*sql.Tx
	work []string
	// prepared holds the statements of full multi-row writes (execRows), by text;
	// database/sql closes them with the transaction.
	prepared map[string]*sql.Stmt
}

// statementRows is the number of rows of a full multi-row write (upsertChunks, the
// import's insertRows). In a transaction such a statement is prepared once and then
// executed with its values in the binary protocol, so that the server no longer parses
// its literals: parsing was about a quarter of the server's time in an import, and the
// import of 100,000 purchases wrote its search rows in about 20 % less time
// (docs/PERFORMANCE.md, "Multi-row writes prepared"). A shorter statement (the rest of
// a write, such as the documents of an import's last batch) goes as text.
const statementRows = 500

// execRows runs a multi-row write of rows rows: prepared, and kept for the
// transaction, when it has statementRows rows and q is a transaction of the store.
func execRows(ctx context.Context, q queryer, query string, rows int, args []any) error {
	tx, ok := q.(*Tx)
	if !ok || rows != statementRows {
		_, err := q.ExecContext(ctx, query, args...)
		return translate(err)
	}
	stmt := tx.prepared[query]
	if stmt == nil {
		var err error
		if stmt, err = tx.PrepareContext(ctx, query); err != nil {
			return translate(err)
		}
		if tx.prepared == nil {
			tx.prepared = map[string]*sql.Stmt{}
		}
		tx.prepared[query] = stmt
	}
	_, err := stmt.ExecContext(ctx, args...)
	return translate(err)
}

// queue records that the transaction queued work for the worker named work.
func (tx *Tx) queue(work string) {
	if !slices.Contains(tx.work, work) {
		tx.work = append(tx.work, work)
	}
}

// commit commits tx and then wakes the workers of the work it queued.
func (db *DB) commit(tx *Tx) error {
	if err := tx.Commit(); err != nil {
		return translate(err)
	}
	if len(tx.work) > 0 && db.Wake != nil {
		db.Wake(tx.work...)
	}
	return nil
}

// inTx runs fn in a transaction, committing when it returns nil.
func (db *DB) inTx(ctx context.Context, fn func(tx *Tx) error) error {
	return db.inTxWith(ctx, nil, fn)
}

// inTxWith runs fn in a transaction with the given options (nil: the defaults).
func (db *DB) inTxWith(ctx context.Context, opts *sql.TxOptions, fn func(tx *Tx) error) error {
	sqlTx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return translate(err)
	}
	tx := &Tx{Tx: sqlTx}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return translate(err)
	}
	return db.commit(tx)
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

// queryer is what both *sql.DB and *sql.Tx offer.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// explainRows returns the plan MariaDB gives query: each row of EXPLAIN, by column name.
func explainRows(ctx context.Context, q queryer, query string, args ...any) ([]map[string]string, error) {
	return collectRows(ctx, q, "EXPLAIN "+query, args, byColumn)
}

// byColumn reads a row as its values by column name, NULL as "".
func byColumn(rows *sql.Rows) (map[string]string, error) {
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	m := make(map[string]string, len(cols))
	for i, c := range cols {
		m[c] = vals[i].String
	}
	return m, nil
}

// eachRow runs a query and calls fn for every row.
func eachRow(ctx context.Context, q queryer, query string, args []any, fn func(*sql.Rows) error) error {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return translate(err)
		}
	}
	return translate(rows.Err())
}

// scanOne reads a query's one row into a new T, through the destinations fields gives
// for it: notFound where there is no row.
func scanOne[T any](row *sql.Row, notFound *shop.Error, fields func(*T) []any) (*T, error) {
	var v T
	err := row.Scan(fields(&v)...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound
	}
	if err != nil {
		return nil, translate(err)
	}
	return &v, nil
}

// collectRows runs a query and returns the value scan makes of each row, in the
// query's order: nil for no row.
func collectRows[T any](ctx context.Context, q queryer, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	out, err := sqlrows.Collect(ctx, q, scan, query, args...)
	return out, translate(err)
}

// affected reports whether an UPDATE changed a row.
func affected(res sql.Result, err error, what string, id int64) (bool, error) {
	if err != nil {
		return false, fmt.Errorf("%s %d: %w", what, id, translate(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("%s %d: %w", what, id, err)
	}
	return n > 0, nil
}

// placeholders returns "?, ?, ..." with n marks.
func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// rowPlaceholders returns "(?,?,?),(?,?,?)" for rows rows of cols columns.
func rowPlaceholders(rows, cols int) string {
	one := "(" + strings.Repeat("?,", cols-1) + "?)"
	var b strings.Builder
	b.Grow(rows * (len(one) + 1))
	for i := 0; i < rows; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(one)
	}
	return b.String()
}

// appendIDs runs query, whose rows are one integer each (ids), and appends them to ids.
func appendIDs(ctx context.Context, q queryer, ids []int64, query string, args ...any) ([]int64, error) {
	err := eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var id int64
		err := rows.Scan(&id)
		ids = append(ids, id)
		return err
	})
	return ids, err
}

// inList returns "(?,?,?)" and the ids as arguments.
func inList(ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",") + ")", args
}

// upsertChunks runs "head VALUES (...),... tail" over args in statements of at most
// statementRows rows (execRows).
func upsertChunks(ctx context.Context, q queryer, head string, cols int, tail string, args []any) error {
	for len(args) > 0 {
		n := min(len(args), statementRows*cols)
		if err := execRows(ctx, q, head+" VALUES "+rowPlaceholders(n/cols, cols)+" "+tail, n/cols, args[:n]); err != nil {
			return err
		}
		args = args[n:]
	}
	return nil
}

// rowsInsert is the multi-row INSERT of a table whose rows are written whole from Go
// (upsertChunks): its head up to VALUES, the number of values a row has, and what
// the rows are, for errors.
type rowsInsert struct {
	head string
	cols int
	what string
}

// write inserts the rows whose values args holds, one row after another.
func (in rowsInsert) write(ctx context.Context, q queryer, args []any) error {
	if err := upsertChunks(ctx, q, in.head, in.cols, "", args); err != nil {
		return fmt.Errorf("write %s: %w", in.what, err)
	}
	return nil
}

// derivedRow is a row of a table whose rows the writers derive in Go (derivedRows).
type derivedRow[R any] interface {
	// compare orders rows as the table's key does, near enough: InnoDB inserts a
	// statement's rows into neighbouring pages at about 60% of the cost of rows that
	// land all over the key.
	compare(b R) int
	// appendValues appends the row's values, in the columns of its table's insert,
	// to args.
	appendValues(args []any, accountID int64) []any
}

// derivedRows describes a table whose rows the writers derive in Go from the
// purchases at hand (the prefix rows, the pairs' rows): how a purchase's rows are
// made and the statement that writes them. The rows know their order and values.
type derivedRows[R derivedRow[R]] struct {
	insert rowsInsert
	// of appends a purchase's rows to rows.
	of func(rows []R, p *shop.Purchase) []R
}

// args returns the values of the rows of the given purchases of an account, row after
// row in the order of the table's key.
func (d derivedRows[R]) args(accountID int64, ps []*shop.Purchase) []any {
	var rows []R
	for _, p := range ps {
		rows = d.of(rows, p)
	}
	slices.SortFunc(rows, R.compare)
	args := make([]any, 0, d.insert.cols*len(rows))
	for _, r := range rows {
		args = r.appendValues(args, accountID)
	}
	return args
}

// searchRows are the values of the rows that the search paths derive from purchases
// of one account: their prefix rows (prefixTable) and their pairs' rows (pairTable).
// The import builds them while the database writes a batch, the seed with its chunk.
type searchRows struct {
	prefixes, pairs []any
}

func searchRowsOf(accountID int64, ps []*shop.Purchase) searchRows {
	return searchRows{prefixes: prefixTable.args(accountID, ps), pairs: pairTable.args(accountID, ps)}
}

// write inserts the rows; the purchases have none yet.
func (r searchRows) write(ctx context.Context, q queryer) error {
	if err := prefixTable.insert.write(ctx, q, r.prefixes); err != nil {
		return err
	}
	return pairTable.insert.write(ctx, q, r.pairs)
}

// StoreSearchRows writes the prefix rows and pairs' rows of the given purchases of an
// account, inside tx, from the purchases as given rather than from their rows: for
// writers outside this package (the seeder) that have just written those rows in tx.
// The purchases have none yet. The rows are those prefixRowsInsert and pairRowsSelect
// derive from the rows (prefixRows, pairRows), sent in the order of each table's key,
// near enough: deriving them from the rows read back cost the import about twice as
// much (docs/PERFORMANCE.md).
func StoreSearchRows(ctx context.Context, sqlTx *sql.Tx, accountID int64, ps []*shop.Purchase) error {
	return searchRowsOf(accountID, ps).write(ctx, &Tx{Tx: sqlTx}) // the seed's transaction queues no background work
}

// mustAffect turns "no row matched" into ENotFound.
func mustAffect(res sql.Result, err error, format string, id int64) error {
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return shop.Errorf(shop.ENotFound, format, id)
	}
	return nil
}

// eachPurchaseBatch calls write for every purchase of every account, 20,000 purchases
// at a time in id order, each batch in a transaction of its own and grouped by account:
// the backfills of what is derived from the purchases (migrations), which are resumable
// when write keeps the rows that exist.
func eachPurchaseBatch(ctx context.Context, sqlDB *sql.DB, write func(ctx context.Context, tx *sql.Tx, account int64, ids []int64) error) error {
	var afterID int64
	for {
		byAccount := map[int64][]int64{}
		n := 0
		err := eachRow(ctx, sqlDB, "SELECT account_id, id FROM purchases WHERE id > ? ORDER BY id LIMIT 20000", []any{afterID},
			func(rows *sql.Rows) error {
				var account, id int64
				if err := rows.Scan(&account, &id); err != nil {
					return err
				}
				byAccount[account] = append(byAccount[account], id)
				afterID = id
				n++
				return nil
			})
		if err != nil || n == 0 {
			return err
		}
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return translate(err)
		}
		for account, ids := range byAccount {
			if err := write(ctx, tx, account, ids); err != nil {
				_ = tx.Rollback()
				return err
			}
		}
		if err := tx.Commit(); err != nil {
			return translate(err)
		}
	}
}
