package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schema is enough of the product's tables for the cases below.
const schema = `
CREATE TABLE purchases (id bigint NOT NULL, account_id bigint NOT NULL, customer_id bigint, PRIMARY KEY (id));
CREATE TABLE customers (id bigint NOT NULL, account_id bigint NOT NULL, email varchar(255), PRIMARY KEY (id));
CREATE TABLE line_items (id bigint NOT NULL, account_id bigint NOT NULL, purchase_id bigint NOT NULL, quantity int, PRIMARY KEY (id));
CREATE TABLE product_keys (line_item_id bigint NOT NULL, position int NOT NULL, account_id bigint NOT NULL, purchase_id bigint NOT NULL, PRIMARY KEY (line_item_id, position));
`

// check plans the statements, each "request" or "background", with the repository's
// vschema and lookup tables, and returns the report and the error.
func check(t *testing.T, stmts ...statement) (string, error) {
	t.Helper()
	dir := t.TempDir()
	var rec bytes.Buffer
	for _, s := range stmts {
		if s.Query == "" {
			s.Query = s.SQL
		}
		b, _ := json.Marshal(s)
		rec.Write(append(b, '\n'))
	}
	files := map[string]string{"schema.sql": schema, "rec.jsonl": rec.String()}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	err := run([]string{filepath.Join(dir, "schema.sql"), "../../db/vitess/lookup.sql"}, "../../db/vitess/vschema.json",
		"storefront", 4, false, []string{filepath.Join(dir, "rec.jsonl")}, &out)
	return out.String(), err
}

func TestCheck(t *testing.T) {
	t.Run("OneShard", func(t *testing.T) {
		out, err := check(t,
			statement{SQL: "SELECT id, quantity FROM line_items WHERE account_id = 7 AND purchase_id IN (1, 2)", Kind: "request"},
			statement{SQL: "SELECT p.id, c.email FROM purchases p LEFT JOIN customers c ON c.account_id = p.account_id AND c.id = p.customer_id WHERE p.account_id = 7 AND p.id = 1", Kind: "request"},
			statement{SQL: "UPDATE line_items SET quantity = 2 WHERE account_id = 7 AND purchase_id = 1", Kind: "request"})
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(out, "| one shard | 3 |") {
			t.Errorf("want 3 one-shard shapes:\n%s", out)
		}
	})
	t.Run("Scatter", func(t *testing.T) {
		out, err := check(t, statement{SQL: "SELECT id FROM line_items WHERE purchase_id = 1", Kind: "request"})
		if err == nil || !strings.Contains(out, "SCATTER (4 of 4 shards)") {
			t.Fatalf("a child read by purchase_id alone: err %v\n%s", err, out)
		}
	})
	t.Run("JoinWithoutTheAccount", func(t *testing.T) {
		out, err := check(t, statement{SQL: "SELECT p.id, c.email FROM purchases p LEFT JOIN customers c ON c.id = p.customer_id WHERE p.account_id = 7", Kind: "request"})
		if err == nil || !strings.Contains(out, "SCATTER") {
			t.Fatalf("a join on the id alone: err %v\n%s", err, out)
		}
	})
	t.Run("Unplannable", func(t *testing.T) {
		out, err := check(t, statement{SQL: "SELECT li.id, (SELECT COUNT(*) FROM product_keys k WHERE k.line_item_id = li.id) FROM line_items li WHERE li.account_id = 7 AND li.purchase_id = 1", Kind: "request"})
		if err == nil || !strings.Contains(out, "UNPLANNABLE VT12001") {
			t.Fatalf("a correlated scalar subquery: err %v\n%s", err, out)
		}
	})
	t.Run("BackgroundScatterIsListed", func(t *testing.T) {
		out, err := check(t, statement{SQL: "SELECT id FROM line_items WHERE purchase_id = 1", Kind: "background", Origin: "sweeper"})
		if err != nil {
			t.Fatalf("a background scatter failed the check: %v\n%s", err, out)
		}
		if !strings.Contains(out, "background (4 of 4 shards") || !strings.Contains(out, "| background | 1 |") {
			t.Errorf("the background scatter is not listed:\n%s", out)
		}
	})
	t.Run("ArgumentListsFold", func(t *testing.T) {
		if got, want := shapeOf("SELECT a FROM t WHERE id IN (?, ?,?)\n\tAND x = ?"), "SELECT a FROM t WHERE id IN (?) AND x = ?"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if got, want := shapeOf("INSERT INTO t (a, b) VALUES (?,?),(?,?)"), "INSERT INTO t (a, b) VALUES (?)"; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}
