// Package sqlrows reads the rows of a query into a slice.
package sqlrows

import (
	"context"
	"database/sql"
)

// Queryer runs a query: *sql.DB, *sql.Conn and *sql.Tx are queryers.
type Queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Collect runs query on q and returns its rows, each as scan reads it. It closes the
// rows before it returns, so that the connection of a *sql.Conn is free again.
func Collect[T any](ctx context.Context, q Queryer, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// Value reads a row of one column as a T: Collect's scan for a list of ids or names.
func Value[T any](rows *sql.Rows) (T, error) {
	var v T
	err := rows.Scan(&v)
	return v, err
}
