package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"storefront/internal/mysql"
	"storefront/internal/sqlrows"
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
func vitessDSN(t testing.TB) string {
	t.Helper()
	cfg := serverConfig(t)
	gate := openServer(t, cfg)
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
	out, err := sqlrows.Collect(bgctx, gate, sqlrows.Value[string], "SHOW VITESS_SHARDS")
	for i, s := range out {
		out[i] = strings.Replace(s, "/", ":", 1) // keyspace/shard → keyspace:shard
	}
	return out, err
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
	tables, err := sqlrows.Collect(bgctx, conn, sqlrows.Value[string], "SHOW TABLES")
	if err != nil {
		return err
	}
	tables = slices.DeleteFunc(tables, func(name string) bool {
		return name == "goose_db_version" || strings.HasSuffix(name, "_seq")
	})
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
	for _, target := range tenantShards() {
		shard := openShard(t, target)
		err := fn(shard.DB)
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
	out := map[string]*sql.DB{}
	for _, target := range tenantShards() {
		db := openShard(t, target)
		t.Cleanup(func() { db.Close() })
		out[target] = db.DB
	}
	return out
}

// tenantShards returns the shards of the tenant keyspace, as `keyspace:shard`, in
// vtgate's order.
func tenantShards() []string {
	var out []string
	for _, target := range vitessTargets {
		if strings.HasPrefix(target, tenantKeyspace+":") {
			out = append(out, target)
		}
	}
	return out
}

// openShard opens the shard target through the vtgate, targeted by name.
func openShard(t testing.TB, target string) *mysql.DB {
	t.Helper()
	cfg := serverConfig(t)
	cfg.DBName = target
	db, err := mysql.Open(bgctx, cfg.FormatDSN())
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return db
}
