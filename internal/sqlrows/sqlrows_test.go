package sqlrows_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/sqlrows"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestCollect(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		type pair struct {
			n int64
			s string
		}
		got, err := sqlrows.Collect(ctx, db, func(rows *sql.Rows) (pair, error) {
			var p pair
			err := rows.Scan(&p.n, &p.s)
			return p, err
		}, "SELECT 1, ? UNION ALL SELECT 2, 'b'", "a")
		if err != nil {
			t.Fatal(err)
		}
		if want := []pair{{1, "a"}, {2, "b"}}; !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})

	t.Run("Value", func(t *testing.T) {
		got, err := sqlrows.Collect(ctx, db, sqlrows.Value[string], "SELECT 'x' UNION ALL SELECT 'y'")
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"x", "y"}; !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})

	t.Run("ErrQuery", func(t *testing.T) {
		if _, err := sqlrows.Collect(ctx, db, sqlrows.Value[string], "SELECT nope FROM nowhere"); err == nil {
			t.Error("got no error for a query of a missing table")
		}
	})

	t.Run("ErrScan", func(t *testing.T) {
		if _, err := sqlrows.Collect(ctx, db, sqlrows.Value[int64], "SELECT 'not a number'"); err == nil {
			t.Error("got no error scanning text into an int64")
		}
	})

	t.Run("Conn", func(t *testing.T) {
		// The rows are closed when Collect returns: the connection serves the next statement.
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for range 2 {
			got, err := sqlrows.Collect(ctx, conn, sqlrows.Value[int64], "SELECT 7")
			if err != nil {
				t.Fatal(err)
			}
			if want := []int64{7}; !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		}
	})
}
