package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"storefront/internal/mysql"
	"strings"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
)

// Vitess reports whether STOREFRONT_TEST_VITESS=1: STOREFRONT_TEST_DSN is then a vtgate
// whose keyspaces scripts/vitess.sh has migrated (docs/SCALING.md, "On a real vtgate").
func Vitess() bool { return os.Getenv("STOREFRONT_TEST_VITESS") == "1" }

var (
	vitessOnce    sync.Once
	vitessTargets []string // every shard of every keyspace, as `keyspace:shard`
	vitessErr     error
)

// vitessDSN empties every table of every shard (but the sequences and the migrations'
// record) and returns vtgate's DSN without a database, so that vtgate routes each table
// to its keyspace. Tests through a vtgate run one after another: they share its
// keyspaces as tests on MariaDB would share one database.
func vitessDSN(t testing.TB, base string) string {
	t.Helper()
	cfg, err := gomysql.ParseDSN(base)
	if err != nil {
		t.Fatalf("STOREFRONT_TEST_DSN: %v", err)
	}
	cfg.DBName = ""
	gate, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer gate.Close()
	vitessOnce.Do(func() { vitessTargets, vitessErr = shards(gate) })
	if vitessErr != nil {
		t.Fatalf("vtgate: %v", vitessErr)
	}
	for _, target := range vitessTargets {
		if err := empty(gate, target); err != nil {
			t.Fatalf("empty %s: %v", target, err)
		}
	}
	return cfg.FormatDSN()
}

func shards(gate *sql.DB) ([]string, error) {
	rows, err := gate.Query("SHOW VITESS_SHARDS")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, strings.Replace(s, "/", ":", 1))
	}
	return out, rows.Err()
}

// empty deletes every row of target's tables but its sequences' and the migrations'
// record, on one connection targeting that shard.
func empty(gate *sql.DB, target string) error {
	conn, err := gate.Conn(bgctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(bgctx, "USE `"+target+"`"); err != nil {
		return err
	}
	defer conn.ExecContext(bgctx, "USE `"+strings.SplitN(target, ":", 2)[0]+"`")
	rows, err := conn.QueryContext(bgctx, "SHOW TABLES")
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		if name != "goose_db_version" && !strings.HasSuffix(name, "_seq") {
			tables = append(tables, name)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if _, err := conn.ExecContext(bgctx, "SET FOREIGN_KEY_CHECKS = 0"); err != nil {
		return err
	}
	for _, name := range tables {
		// In pieces: vttablet aborts a statement past 10,000 rows.
		for {
			r, err := conn.ExecContext(bgctx, fmt.Sprintf("DELETE FROM `%s` LIMIT 5000", name))
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if n, _ := r.RowsAffected(); n < 5000 {
				break
			}
		}
	}
	_, err = conn.ExecContext(bgctx, "SET FOREIGN_KEY_CHECKS = 1")
	return err
}

var bgctx = context.Background()

// tenantKeyspace is the sharded keyspace of db/vitess/vschema.json.
const tenantKeyspace = "storefront"

// EachShard runs fn on db, or through a vtgate once on each shard of the tenant
// keyspace, targeted by name: the work that reaches every account (repairs such as
// mysql.RebuildDerived) runs once per shard under Vitess (docs/SCALING.md, "Background
// work, per shard").
func EachShard(t testing.TB, db *sql.DB, fn func(db *sql.DB) error) {
	t.Helper()
	if !Vitess() {
		if err := fn(db); err != nil {
			t.Fatal(err)
		}
		return
	}
	cfg, err := gomysql.ParseDSN(ServerDSN(t))
	if err != nil {
		t.Fatalf("STOREFRONT_TEST_DSN: %v", err)
	}
	for _, target := range vitessTargets {
		if !strings.HasPrefix(target, tenantKeyspace+":") {
			continue
		}
		cfg.DBName = target
		shard, err := mysql.Open(bgctx, cfg.FormatDSN())
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		err = fn(shard.DB)
		shard.Close()
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
	}
}

// Shards returns a handle on each shard of the tenant keyspace, targeted by name
// (`storefront:-80`, …), in vtgate's order; nil when not through a vtgate.
func Shards(t testing.TB) map[string]*sql.DB {
	t.Helper()
	if !Vitess() {
		return nil
	}
	cfg, err := gomysql.ParseDSN(ServerDSN(t))
	if err != nil {
		t.Fatalf("STOREFRONT_TEST_DSN: %v", err)
	}
	out := map[string]*sql.DB{}
	for _, target := range vitessTargets {
		if !strings.HasPrefix(target, tenantKeyspace+":") {
			continue
		}
		cfg.DBName = target
		db, err := mysql.Open(bgctx, cfg.FormatDSN())
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		t.Cleanup(func() { db.Close() })
		out[target] = db.DB
	}
	return out
}
