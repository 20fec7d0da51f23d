package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// RebuildRollups rebuilds every account's rollups from the purchases' and the
// subscriptions' rows, one account per transaction, and returns how many accounts it
// rebuilt. For repairs after rows were changed by hand (`storefront rollups rebuild`).
func RebuildRollups(ctx context.Context, sqlDB *sql.DB) (int, error) {
	return rebuildRollups(ctx, sqlDB, false)
}

// rebuildRollups is RebuildRollups; tablesOf90 rebuilds only the rollup tables that
// exist at migration 90, for its rebuild (rollupDelta.tablesOf90).
func rebuildRollups(ctx context.Context, sqlDB *sql.DB, tablesOf90 bool) (int, error) {
	accounts, err := appendIDs(ctx, sqlDB, nil, "SELECT id FROM accounts ORDER BY id")
	if err != nil {
		return 0, err
	}
	for i, account := range accounts {
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return i, translate(err)
		}
		if err := rebuildAccountRollups(ctx, &Tx{Tx: tx}, account, tablesOf90); err != nil {
			_ = tx.Rollback()
			return i, fmt.Errorf("account %d: %w", account, err)
		}
		if err := tx.Commit(); err != nil {
			return i, translate(err)
		}
	}
	return len(accounts), nil
}

// rebuildAccountRollups replaces an account's rollups with sums of its rows, in tx;
// tablesOf90 rebuilds only the tables that exist at migration 90 (rebuildRollups).
func rebuildAccountRollups(ctx context.Context, tx *Tx, account int64, tablesOf90 bool) error {
	loc, err := accountZone(ctx, tx, account)
	if err != nil {
		return err
	}
	tables := []string{"purchase_rollups", "product_rollups", "product_rollups_monthly", "subscriber_terms", "subscriber_rollups"}
	if !tablesOf90 {
		tables = append(tables, "purchase_rollups_monthly", "purchase_rollups_weekly", "customer_rollups")
	}
	for _, table := range tables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE account_id = ?", account); err != nil {
			return translate(err)
		}
	}
	d := newRollupDelta(account, loc)
	d.tablesOf90 = tablesOf90
	// The purchases' own figures, then their line items': two streams, so that neither
	// holds the whole account in memory.
	err = eachRow(ctx, tx, "SELECT storefront_id, currency, created_at, status, total, buyer_email, to_ship FROM purchases WHERE account_id = ?", []any{account},
		func(rows *sql.Rows) error {
			var (
				f     purchaseFact
				total string
				err   error
			)
			if err := rows.Scan(&f.storefront, &f.currency, &f.created, &f.status, &total, &f.email, &f.toShip); err != nil {
				return err
			}
			if f.total, err = decimal(total); err != nil {
				return err
			}
			d.add(&f, 1)
			return nil
		})
	if err != nil {
		return err
	}
	err = eachRow(ctx, tx, `SELECT p.storefront_id, p.currency, p.created_at, p.status, li.product_id, SUM(li.total)
		FROM purchases p JOIN line_items li ON li.purchase_id = p.id
		WHERE p.account_id = ? GROUP BY p.id, li.product_id`, []any{account},
		func(rows *sql.Rows) error {
			var (
				f       purchaseFact
				product int64
				total   string
			)
			if err := rows.Scan(&f.storefront, &f.currency, &f.created, &f.status, &product, &total); err != nil {
				return err
			}
			t, err := decimal(total)
			if err != nil {
				return err
			}
			k := rollupKey{day: f.created.In(loc).Format(time.DateOnly), storefront: f.storefront, currency: f.currency, status: f.status}
			bump(d.products, productKey{k, product}, 1, t)
			return nil
		})
	if err != nil {
		return err
	}
	if err := d.apply(ctx, tx); err != nil {
		return err
	}
	if !tablesOf90 {
		if err := syncBuyerEmails(ctx, tx, account, nil); err != nil {
			return err
		}
	}
	if tablesOf90 {
		return syncSubscriberTerms(ctx, tx, account, nil) // subscribers.status comes with 00232
	}
	return syncSubscribers(ctx, tx, account, nil)
}
