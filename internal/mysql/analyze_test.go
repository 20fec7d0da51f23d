package mysql_test

import (
	"context"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
)

// A value with a quote (a last name's prefix o'b) is written by MariaDB's ANALYZE
// FORMAT=JSON as \' inside the attached condition, which is not JSON: the bench's
// sweep stopped at such a prefix. EntriesRead reads it, and double quotes, control
// characters and backslashes in a value.
func TestEntriesRead_QuoteInValue(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	dbtest.MustExec(t, db.DB,
		`INSERT INTO accounts (id, name, api_username) VALUES (1, 'O''Brien', 'a1'), (2, 'Other', 'a2')`)
	for _, v := range []string{`o'b%`, `o\'b%`, `o\\'b%`, `"o'b"%`, "o'\tb%", "o\nb\r%", "o\x00b\x1a%", `o\`, `', '"}`, "é'ü%"} {
		n, err := mysql.EntriesRead(ctx, db.DB, mysql.Statement{
			Query: "SELECT a.id FROM accounts a IGNORE INDEX (PRIMARY) WHERE a.id >= ? AND a.name LIKE ?",
			Args:  []any{1, v},
		})
		if err != nil {
			t.Errorf("%q: %v", v, err)
		} else if n != 2 {
			t.Errorf("%q: %v rows read, want the table's 2", v, n)
		}
	}
}
