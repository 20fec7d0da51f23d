package mysql_test

import (
	"context"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"

	migrations "storefront/db"
	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
)

// migrationFills returns the data statements (UPDATE, INSERT, DELETE) of every
// migration's Up part, by file name.
func migrationFills(t *testing.T) map[string][]string {
	t.Helper()
	files, err := fs.Glob(migrations.Migrations, "migrations/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	dml := regexp.MustCompile(`(?i)^(UPDATE|INSERT|DELETE)\s`)
	out := map[string][]string{}
	for _, f := range files {
		b, err := migrations.Migrations.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		up, _, _ := strings.Cut(string(b), "-- +goose Down")
		var kept []string
		for _, l := range strings.Split(up, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				kept = append(kept, l)
			}
		}
		for _, s := range strings.Split(strings.Join(kept, "\n"), ";\n") {
			if s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), ";")); dml.MatchString(s) {
				out[strings.TrimPrefix(f, "migrations/")] = append(out[strings.TrimPrefix(f, "migrations/")], s)
			}
		}
	}
	return out
}

// accountOnly matches a ref of EXPLAIN that names one column, an account's.
var accountOnly = regexp.MustCompile(`^[\w.]*\.account_id$`)

// TestMigrations_FillsProbeByKey explains each data statement of the migrations on a
// database seeded just now (its statistics as a bulk load leaves them, as on a
// merchant's database that a new version migrates) and checks that no statement reads
// a table whole, or an account's part of it, for each row of another: such a fill is
// quadratic in an account's rows and would not end on a database of any size. Two did
// (00220: 12.7 s at 4,000 purchases against 0.05 s; 00221: 64 s against 0.17 s).
func TestMigrations_FillsProbeByKey(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 400, Subscribers: 40, Seed: 6}, nil); err != nil {
		t.Fatal(err)
	}
	explained := map[string]bool{}
	n := 0
	for file, stmts := range migrationFills(t) {
		for _, s := range stmts {
			plan, err := mysql.Explain(ctx, db, s)
			if err != nil {
				// A statement about columns or tables that later migrations dropped.
				t.Logf("%s: not explained on today's schema: %v", file, err)
				continue
			}
			explained[file] = true
			n++
			// before[id] is how many rows the plan expects to have read, in its select,
			// before each next table: a table read whole, or by the account alone, that
			// many times.
			before := map[string]int{}
			for _, r := range plan {
				id := r["id"]
				rows, _ := strconv.Atoi(r["rows"])
				times, seen := before[id]
				before[id] = max(1, times) * max(1, rows)
				if !seen && !strings.Contains(r["select_type"], "DEPENDENT") || times <= 10 && seen {
					continue
				}
				switch {
				case (r["type"] == "ALL" || r["type"] == "index") && rows > 10:
					t.Errorf("%s: reads %s whole (%s rows) for each row before it:\n%s\nplan %v", file, r["table"], r["rows"], s, plan)
				case r["type"] == "ref" && accountOnly.MatchString(r["ref"]):
					t.Errorf("%s: reads %s by the account alone for each row before it:\n%s\nplan %v", file, r["table"], s, plan)
				}
			}
		}
	}
	for _, f := range []string{"00220_purchase_products_initials.sql", "00221_purchase_prefixes_products.sql", "00222_purchase_prefixes_status.sql", "00151_customer_rollups_fill.sql"} {
		if !explained[f] {
			t.Errorf("%s was not explained", f)
		}
	}
	t.Logf("%d data statements of the migrations explained", n)
}
