package mysql_test

import (
	"database/sql"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"testing"

	"storefront/internal/dbtest"
)

// TestVitessSchema checks db/vitess against the migrated schema: every table with an
// AUTO_INCREMENT id takes its ids from a sequence of the lookup keyspace (declared in
// vschema.json and created by lookup.sql), so that ids stay unique across shards, and
// every table with an account_id column has a vindex on it (or lives in lookup). A
// table added by a migration without its entry fails here, on MariaDB alone, before
// a vtgate refuses it.
func TestVitessSchema(t *testing.T) {
	if dbtest.Vitess() {
		t.Skip("reads the migrated schema of a MariaDB database")
	}
	db := dbtest.New(t)
	type column struct{ table, name, extra string }
	cols := dbtest.Query(t, db.DB, func(r *sql.Rows) (column, error) {
		var c column
		return c, r.Scan(&c.table, &c.name, &c.extra)
	}, "SELECT TABLE_NAME, COLUMN_NAME, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME <> 'goose_db_version'")

	b, err := os.ReadFile("../../db/vitess/vschema.json")
	if err != nil {
		t.Fatal(err)
	}
	var vschema map[string]struct {
		Sharded bool `json:"sharded"`
		Tables  map[string]struct {
			Type           string `json:"type"`
			ColumnVindexes []struct {
				Column string `json:"column"`
				Name   string `json:"name"`
			} `json:"column_vindexes"`
			AutoIncrement *struct {
				Column   string `json:"column"`
				Sequence string `json:"sequence"`
			} `json:"auto_increment"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b, &vschema); err != nil {
		t.Fatal(err)
	}
	lookupSQL, err := os.ReadFile("../../db/vitess/lookup.sql")
	if err != nil {
		t.Fatal(err)
	}
	created := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^CREATE TABLE (\w+) .*COMMENT 'vitess_sequence'`).FindAllStringSubmatch(string(lookupSQL), -1) {
		created[m[1]] = true
	}
	sharded, lookup := vschema["storefront"], vschema["lookup"]

	tables := map[string]bool{}
	for _, c := range cols {
		tables[c.table] = true
		_, inLookup := lookup.Tables[c.table]
		switch {
		case c.extra == "auto_increment" && !inLookup:
			ai := sharded.Tables[c.table].AutoIncrement
			if ai == nil || ai.Column != c.name {
				t.Errorf("%s.%s is AUTO_INCREMENT: vschema.json gives it no sequence (\"auto_increment\": {\"column\": %q, \"sequence\": \"lookup.%s_seq\"})", c.table, c.name, c.name, c.table)
				continue
			}
			seq := regexp.MustCompile(`^lookup\.(\w+)$`).FindStringSubmatch(ai.Sequence)
			if seq == nil || lookup.Tables[seq[1]].Type != "sequence" || !created[seq[1]] {
				t.Errorf("%s: sequence %s must be a table of type sequence in lookup's vschema and created by lookup.sql", c.table, ai.Sequence)
			}
		case c.name == "account_id" && !inLookup:
			if !slices.ContainsFunc(sharded.Tables[c.table].ColumnVindexes, func(v struct {
				Column string `json:"column"`
				Name   string `json:"name"`
			}) bool {
				return v.Column == "account_id"
			}) {
				t.Errorf("%s has account_id but no vindex on it in vschema.json", c.table)
			}
		}
	}
	for name := range sharded.Tables {
		if !tables[name] {
			t.Errorf("vschema.json names %s, which no migration creates", name)
		}
	}
	for name := range tables {
		_, inLookup := lookup.Tables[name]
		if _, ok := sharded.Tables[name]; !ok && !inLookup {
			t.Errorf("%s is in neither keyspace of vschema.json", name)
		} else if ok && len(sharded.Tables[name].ColumnVindexes) == 0 {
			t.Errorf("%s has no vindex in vschema.json", name)
		}
	}
}
