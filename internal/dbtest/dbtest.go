// Package dbtest gives tests a real MariaDB/MySQL: the server named by
// STOREFRONT_TEST_DSN when it is set (CI: root@tcp(127.0.0.1:3306)/), else a private
// mariadbd started for the test binary. Each call to New makes a fresh, migrated
// database that is dropped when the test ends. A test that cannot reach a database
// fails; it never skips.
package dbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"storefront/internal/mariadb"
	"storefront/internal/mysql"
	"storefront/internal/sqlrows"
)

var (
	server    *mariadb.Server
	serverDSN string
	setupErr  error
	once      sync.Once
)

// Main runs the package's tests and stops the private server, if one was started.
// Call it from TestMain.
func Main(m *testing.M, checks ...func() error) {
	code := m.Run()
	if Vitess() {
		fmt.Println(describeShards())
	}
	for _, check := range checks {
		if err := check(); err != nil && code == 0 {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			code = 1
		}
	}
	if server != nil {
		_ = server.Stop()
		_ = os.RemoveAll(server.Dir)
	}
	os.Exit(code)
}

func setup() {
	if dsn := os.Getenv("STOREFRONT_TEST_DSN"); dsn != "" {
		serverDSN = dsn
		return
	}
	dir, err := os.MkdirTemp("", "sfdb")
	if err != nil {
		setupErr = err
		return
	}
	server, setupErr = mariadb.Start(context.Background(), dir)
	if setupErr == nil {
		serverDSN = server.DSN("")
	}
}

// ServerDSN returns a DSN for the test server without a database name.
func ServerDSN(t testing.TB) string {
	t.Helper()
	once.Do(setup)
	if setupErr != nil {
		t.Fatalf("no test database: %v (set STOREFRONT_TEST_DSN or install mariadb-server)", setupErr)
	}
	return serverDSN
}

// serverConfig returns the test server's DSN, parsed, without a database.
func serverConfig(t testing.TB) *gomysql.Config {
	t.Helper()
	cfg, err := gomysql.ParseDSN(ServerDSN(t))
	if err != nil {
		t.Fatalf("STOREFRONT_TEST_DSN: %v", err)
	}
	cfg.DBName = ""
	return cfg
}

// openServer opens a handle on the server of cfg, without the program's settings
// (mysql.Open): for statements about databases rather than in one. The caller closes it.
func openServer(t testing.TB, cfg *gomysql.Config) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// DSN creates a fresh, migrated database and returns its DSN. The database is
// dropped when the test ends. Through a vtgate (STOREFRONT_TEST_VITESS=1) it empties
// the migrated keyspaces instead (vitess.go).
func DSN(t testing.TB) string {
	t.Helper()
	if Vitess() {
		return vitessDSN(t)
	}
	cfg := serverConfig(t)
	admin := openServer(t, cfg)
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "sftest_" + hex.EncodeToString(b)
	if _, err := admin.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("mysql", cfg.FormatDSN())
		if err == nil {
			_, _ = a.Exec("DROP DATABASE IF EXISTS " + name)
			a.Close()
		}
	})
	cfg.DBName = name
	dsn := cfg.FormatDSN()
	db, err := mysql.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	defer db.Close()
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("migrate test database: %v", err)
	}
	return dsn
}

// New returns an open handle on a fresh, migrated database.
func New(t testing.TB) *mysql.DB {
	t.Helper()
	db, err := mysql.Open(context.Background(), DSN(t))
	if err != nil {
		t.Fatalf("open test database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// MustExec runs statements on db, failing the test on error.
func MustExec(t testing.TB, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// Query runs query on db and returns its rows as scan reads each, failing the test on
// any error.
func Query[T any](t testing.TB, db *sql.DB, scan func(rows *sql.Rows) (T, error), query string, args ...any) []T {
	t.Helper()
	out, err := sqlrows.Collect(context.Background(), db, scan, query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

// Describe names the server the tests use, for logs.
func Describe() string {
	if server != nil {
		return fmt.Sprintf("private mariadbd in %s", server.Dir)
	}
	return "STOREFRONT_TEST_DSN"
}
