package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

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

// vitessDSN returns vtgate's DSN without a database, so that vtgate routes each table
// to its keyspace. The tests through a vtgate share its keyspaces and are isolated by
// account: each seeds accounts of its own (IDBase), and when it ends its accounts are
// deleted by account, each through vtgate on its own shard (deleteAccounts), after
// which no tenant row may be left on any shard. The first test of a process empties
// the keyspaces of what an earlier, interrupted run may have left. Tests through a
// vtgate run one after another.
func vitessDSN(t testing.TB) string {
	t.Helper()
	cfg := serverConfig(t)
	vitessOnce.Do(func() {
		gate := openServer(t, cfg)
		defer gate.Close()
		if vitessTargets, vitessErr = shards(gate); vitessErr != nil {
			return
		}
		for _, target := range vitessTargets {
			if vitessErr = empty(cfg, target); vitessErr != nil {
				vitessErr = fmt.Errorf("empty %s: %w", target, vitessErr)
				return
			}
		}
		vitessTenant, vitessErr = tenantTables(cfg)
	})
	if vitessErr != nil {
		t.Fatalf("vtgate: %v", vitessErr)
	}
	t.Cleanup(func() {
		gate := openServer(t, cfg)
		defer gate.Close()
		if err := countAccounts(cfg); err != nil {
			t.Errorf("vtgate: %v", err)
		}
		if err := deleteAccounts(gate); err != nil {
			t.Errorf("vtgate: delete the test's accounts: %v", err)
		}
		// What is left on a shard was written outside every account of the test.
		for _, target := range vitessTargets {
			left, err := leftRows(cfg, target)
			if err == nil && len(left) > 0 {
				t.Errorf("vtgate: %s holds rows of no account of the test: %v", target, left)
				err = empty(cfg, target)
			}
			if err != nil {
				t.Errorf("vtgate: %s: %v", target, err)
			}
		}
	})
	return cfg.FormatDSN()
}

// shardAccounts counts, per shard of the tenant keyspace, the accounts the tests of
// this process made there (Main prints it): vtgate placed them by the hash of their id.
var (
	shardAccountsMu sync.Mutex
	shardAccounts   = map[string]int{}
)

// countAccounts adds the accounts on each shard, read on the shard itself, to
// shardAccounts.
func countAccounts(cfg *gomysql.Config) error {
	for _, target := range tenantShards() {
		var n int
		err := onShard(cfg, target, func(conn *sql.Conn) error {
			return conn.QueryRowContext(bgctx, "SELECT COUNT(*) FROM accounts").Scan(&n)
		})
		if err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
		shardAccountsMu.Lock()
		shardAccounts[target] += n
		shardAccountsMu.Unlock()
	}
	return nil
}

// describeShards says how many of the tests' accounts each shard held.
func describeShards() string {
	shardAccountsMu.Lock()
	defer shardAccountsMu.Unlock()
	var parts []string
	for _, target := range slices.Sorted(maps.Keys(shardAccounts)) {
		parts = append(parts, fmt.Sprintf("%s %d", target, shardAccounts[target]))
	}
	return "the tests' accounts per shard (read on each shard): " + strings.Join(parts, ", ")
}

// vitessTenant lists the tenant keyspace's tables with an account_id, children first
// (the order in which their rows can be deleted).
var vitessTenant []string

// tenantTables returns the tables of the tenant keyspace that carry account_id, the
// tables that reference others first.
func tenantTables(cfg *gomysql.Config) ([]string, error) {
	// A table's rows go before those of the tables it references.
	var refs [][2]string
	err := onShard(cfg, tenantShards()[0], func(conn *sql.Conn) (err error) {
		refs, err = sqlrows.Collect(bgctx, conn, func(rows *sql.Rows) ([2]string, error) {
			var r [2]string
			return r, rows.Scan(&r[0], &r[1])
		}, `SELECT c.table_name, COALESCE(k.referenced_table_name, '') FROM information_schema.columns c
			LEFT JOIN information_schema.key_column_usage k ON k.table_schema = c.table_schema
				AND k.table_name = c.table_name AND k.referenced_table_name IS NOT NULL
			WHERE c.table_schema = DATABASE() AND c.column_name = 'account_id'`)
		return err
	})
	if err != nil {
		return nil, err
	}
	// The lookup keyspace's own tables (sign-in and passkey state) are on the shards
	// too, but their rows live in lookup: deleteAccounts empties them there.
	var lookup []string
	if err := onShard(cfg, "lookup", func(conn *sql.Conn) (err error) {
		lookup, err = dataTables(conn)
		return err
	}); err != nil {
		return nil, err
	}
	parents := map[string][]string{}
	for _, r := range refs {
		if !slices.Contains(lookup, r[0]) {
			parents[r[0]] = append(parents[r[0]], r[1])
		}
	}
	var out []string
	placed := map[string]bool{}
	var place func(name string)
	place = func(name string) { // children before parents: a table after every table that references it
		if placed[name] {
			return
		}
		placed[name] = true
		for child, ps := range parents {
			if slices.Contains(ps, name) {
				place(child)
			}
		}
		out = append(out, name)
	}
	for _, name := range slices.Sorted(maps.Keys(parents)) {
		place(name)
	}
	return out, nil
}

// deleteAccounts deletes every account's rows through vtgate, one account at a time:
// each statement names the account, so vtgate routes it to the account's shard, and
// it keeps the lookup keyspace's vindex rows (purchase ids, key hashes, sessions, user
// e-mails) in step. The lookup keyspace's own tables of sign-in and rate state are
// emptied.
func deleteAccounts(gate *sql.DB) error {
	ids, err := sqlrows.Collect(bgctx, gate, sqlrows.Value[int64], "SELECT id FROM accounts")
	if err != nil {
		return err
	}
	for _, id := range ids {
		for _, table := range vitessTenant {
			if err := deleteAll(gate, "DELETE FROM `"+table+"` WHERE account_id = ? LIMIT 5000", id); err != nil {
				return fmt.Errorf("%s of account %d: %w", table, id, err)
			}
		}
		if _, err := gate.ExecContext(bgctx, "DELETE FROM accounts WHERE id = ?", id); err != nil {
			return fmt.Errorf("account %d: %w", id, err)
		}
	}
	for _, table := range []string{"api_rate_buckets", "sign_in_failures", "webauthn_ceremonies"} {
		if err := deleteAll(gate, "DELETE FROM lookup.`"+table+"` LIMIT 5000"); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return nil
}

// deleteAll runs a DELETE … LIMIT on db (the gate's pool, or a connection to one shard)
// until it deletes fewer rows than its limit: vttablet aborts a statement past 10,000 rows.
func deleteAll(db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, query string, args ...any) error {
	for {
		r, err := db.ExecContext(bgctx, query, args...)
		if err != nil {
			return err
		}
		if n, _ := r.RowsAffected(); n < 5000 {
			return nil
		}
	}
}

// leftRows names the tables of target that hold rows, but the sequences' and the
// migrations' record.
func leftRows(cfg *gomysql.Config, target string) ([]string, error) {
	var left []string
	err := onShard(cfg, target, func(conn *sql.Conn) error {
		tables, err := dataTables(conn)
		if err != nil {
			return err
		}
		for _, name := range tables {
			var one int
			switch err := conn.QueryRowContext(bgctx, "SELECT 1 FROM `"+name+"` LIMIT 1").Scan(&one); err {
			case nil:
				left = append(left, name)
			case sql.ErrNoRows:
			default:
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil
	})
	return left, err
}

// onShard runs fn on a connection of its own to target (`keyspace:shard`, or a
// keyspace), named as the connection's database: a pooled connection of the gate
// left pointed at a keyspace would route later unqualified names there.
func onShard(cfg *gomysql.Config, target string, fn func(conn *sql.Conn) error) error {
	c := cfg.Clone()
	c.DBName = target
	db, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	conn, err := db.Conn(bgctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn)
}

// dataTables lists the tables of the shard conn targets but its sequences and the
// migrations' record.
func dataTables(conn *sql.Conn) ([]string, error) {
	tables, err := sqlrows.Collect(bgctx, conn, sqlrows.Value[string], "SHOW TABLES")
	return slices.DeleteFunc(tables, func(name string) bool {
		return name == "goose_db_version" || strings.HasSuffix(name, "_seq")
	}), err
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
func empty(cfg *gomysql.Config, target string) error {
	return onShard(cfg, target, func(conn *sql.Conn) error {
		tables, err := dataTables(conn)
		if err != nil {
			return err
		}
		if _, err := conn.ExecContext(bgctx, "SET FOREIGN_KEY_CHECKS = 0"); err != nil {
			return err
		}
		for _, name := range tables {
			if err := deleteAll(conn, fmt.Sprintf("DELETE FROM `%s` LIMIT 5000", name)); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		return nil // the connection closes with its session's setting
	})
}

var bgctx = context.Background()

// IDBase returns the base above which t's data takes its ids (seed.Options.IDBase):
// 10⁹ and a million for each of a thousand values of a hash of the test's name, so
// that tests do not share accounts and ids, and find their accounts, storefronts and
// purchases from the base rather than assume account 1. The ids stay below 2·10⁹,
// under the least id vtgate's sequences hand out in scripts/vitess-tests.sh (10¹⁰),
// and above the ids the tests ask for to find nothing (99999999).
// STOREFRONT_TEST_ID_BASE=0 gives 0, the first ids of a fresh database.
func IDBase(t testing.TB) int64 {
	if os.Getenv("STOREFRONT_TEST_ID_BASE") == "0" {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(t.Name()))
	return 1_000_000_000 + int64(h.Sum32()%1000)*1_000_000
}

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
