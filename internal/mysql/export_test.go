package mysql

import (
	"context"
	"database/sql"

	"storefront/internal/shop"
)

// countingQueryer counts the statements sent through it.
type countingQueryer struct {
	queryer
	n int
}

func (c *countingQueryer) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.queryer.QueryContext(ctx, q, args...)
}

func (c *countingQueryer) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	c.n++
	return c.queryer.QueryRowContext(ctx, q, args...)
}

// FindPurchasesCounted is FindPurchases that also reports how many queries it sent.
func (db *DB) FindPurchasesCounted(ctx context.Context, f shop.PurchaseFilter) (*shop.PurchasePage, int, error) {
	c := &countingQueryer{queryer: db.DB}
	page, err := db.findPurchases(ctx, c, f)
	return page, c.n, err
}
