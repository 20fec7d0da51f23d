package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
)

// Through a vtgate, a transaction's isolation level is set on the session, not with
// SET TRANSACTION: vtgate turns SET TRANSACTION ISOLATION LEVEL (what the driver sends
// for sql.TxOptions.Isolation) into a setting of the whole session, which it checks
// and applies on the tablets by the name transaction_isolation. MariaDB before 11.1,
// the test bed's tablets (scripts/vitess.sh), has that variable as tx_isolation only,
// and so refuses the statement. So each connection to a vtgate remembers its session's
// level and sets the one a transaction asks for (the tablets' own name for it, found
// by Open) before it begins: READ COMMITTED where asked, REPEATABLE READ (MySQL's and
// MariaDB's default) otherwise. A transaction of the default level on a connection
// whose last one was READ COMMITTED thus runs REPEATABLE READ, as it does on MariaDB.

// isolationVariable returns the name under which the tablets behind the vtgate db
// know the isolation level: transaction_isolation (MySQL 8, MariaDB 11.1 and later)
// or tx_isolation (MariaDB 10.11).
func isolationVariable(ctx context.Context, db *sql.DB) (string, error) {
	var level string
	err := db.QueryRowContext(ctx, "SELECT @@transaction_isolation").Scan(&level)
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1193 { // unknown system variable
		if err := db.QueryRowContext(ctx, "SELECT @@tx_isolation").Scan(&level); err != nil {
			return "", err
		}
		return "tx_isolation", nil
	}
	if err != nil {
		return "", err
	}
	return "transaction_isolation", nil
}

// isoConnector opens connections to a vtgate that set their session's isolation level
// before each transaction.
type isoConnector struct {
	drv      driver.Driver
	dsn      string
	variable string
}

func (c *isoConnector) Connect(ctx context.Context) (driver.Conn, error) {
	var conn driver.Conn
	var err error
	if dc, ok := c.drv.(driver.DriverContext); ok {
		var inner driver.Connector
		if inner, err = dc.OpenConnector(c.dsn); err == nil {
			conn, err = inner.Connect(ctx)
		}
	} else {
		conn, err = c.drv.Open(c.dsn)
	}
	if err != nil {
		return nil, err
	}
	return &isoConn{DriverConn: DriverConn{Conn: conn}, variable: c.variable}, nil
}

func (c *isoConnector) Driver() driver.Driver { return c.drv }

type isoConn struct {
	DriverConn
	variable string
	level    string // the session's level as last set; "" before the first transaction
}

func (c *isoConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	level := "REPEATABLE-READ"
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault, sql.LevelRepeatableRead:
	case sql.LevelReadCommitted:
		level = "READ-COMMITTED"
	default:
		return nil, fmt.Errorf("isolation level %v through a vtgate: not supported", sql.IsolationLevel(opts.Isolation))
	}
	if level != c.level {
		if _, err := c.ExecContext(ctx, "SET SESSION "+c.variable+" = '"+level+"'", nil); err != nil {
			return nil, err
		}
		c.level = level
	}
	return c.DriverConn.BeginTx(ctx, driver.TxOptions{ReadOnly: opts.ReadOnly})
}

// DriverConn is a go-sql-driver/mysql connection inside a wrapper: it passes every
// call, those of the driver's optional interfaces included, on to the connection it
// holds. A wrapper embeds it and replaces the methods it changes: isoConn here, the
// tests' statement recorder (internal/dbtest).
type DriverConn struct{ driver.Conn }

// BeginTx passes the call on.
func (c DriverConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

// PrepareContext passes the call on.
func (c DriverConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, query)
}

// ExecContext passes the call on.
func (c DriverConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, query, args)
}

// QueryContext passes the call on.
func (c DriverConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, query, args)
}

// Ping passes the call on.
func (c DriverConn) Ping(ctx context.Context) error { return c.Conn.(driver.Pinger).Ping(ctx) }

// ResetSession passes the call on.
func (c DriverConn) ResetSession(ctx context.Context) error {
	return c.Conn.(driver.SessionResetter).ResetSession(ctx)
}

// IsValid passes the call on.
func (c DriverConn) IsValid() bool { return c.Conn.(driver.Validator).IsValid() }

// CheckNamedValue passes the call on.
func (c DriverConn) CheckNamedValue(nv *driver.NamedValue) error {
	return c.Conn.(driver.NamedValueChecker).CheckNamedValue(nv)
}
