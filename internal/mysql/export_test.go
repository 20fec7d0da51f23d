package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

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

// DerivedMismatches rebuilds, from the normalised rows, every purchase's document and
// its product-path rows, and lists what differs from what is stored: purchases whose
// stored document is missing or different, stored documents of no purchase, and
// product-path rows missing or extra.
func (db *DB) DerivedMismatches(ctx context.Context) ([]string, error) {
	var out []string
	byAccount := map[int64][]int64{}
	err := eachRow(ctx, db.DB, "SELECT account_id, id FROM purchases ORDER BY id", nil, func(rows *sql.Rows) error {
		var a, id int64
		if err := rows.Scan(&a, &id); err != nil {
			return err
		}
		byAccount[a] = append(byAccount[a], id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for account, ids := range byAccount {
		page, err := readPurchases(ctx, db.DB, &shop.PurchasePage{}, account, ids, len(ids), false)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Purchases {
			want, err := purchaseDocument(p)
			if err != nil {
				return nil, err
			}
			var got []byte
			err = db.QueryRowContext(ctx, "SELECT document FROM purchase_documents WHERE account_id = ? AND purchase_id = ?", account, p.ID).Scan(&got)
			if err == sql.ErrNoRows {
				out = append(out, fmt.Sprintf("purchase %d: no document", p.ID))
				continue
			} else if err != nil {
				return nil, err
			}
			if string(got) != string(want) {
				out = append(out, fmt.Sprintf("purchase %d: stored document\n%s\nrebuilt\n%s", p.ID, got, want))
			}
		}
	}
	for _, q := range []struct{ what, query string }{
		{"document of no purchase", `SELECT d.purchase_id FROM purchase_documents d
			LEFT JOIN purchases p ON p.account_id = d.account_id AND p.id = d.purchase_id WHERE p.id IS NULL`},
		{"product path row missing", `SELECT DISTINCT p.id FROM purchases p JOIN line_items li ON li.purchase_id = p.id
			LEFT JOIN purchase_products pp ON pp.account_id = p.account_id AND pp.product_id = li.product_id
			AND pp.created_at = p.created_at AND pp.purchase_id = p.id WHERE pp.purchase_id IS NULL`},
		{"product path row extra", `SELECT pp.purchase_id FROM purchase_products pp
			LEFT JOIN purchases p ON p.account_id = pp.account_id AND p.id = pp.purchase_id AND p.created_at = pp.created_at
			WHERE p.id IS NULL OR NOT EXISTS (SELECT 1 FROM line_items li WHERE li.purchase_id = p.id AND li.product_id = pp.product_id)`},
	} {
		err := eachRow(ctx, db.DB, q.query, nil, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("purchase %d: %s", id, q.what))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// Every row's account is its parent's (migrations 00040-00048 and every write).
	for _, q := range []struct{ table, query string }{
		{"line_items", "SELECT c.purchase_id FROM line_items c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"product_keys", "SELECT c.purchase_id FROM product_keys c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"coupons", "SELECT c.purchase_id FROM coupons c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"custom_fields", "SELECT c.purchase_id FROM custom_fields c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"transactions", "SELECT c.purchase_id FROM transactions c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"purchase_activity", "SELECT c.purchase_id FROM purchase_activity c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"subscribers", "SELECT c.id FROM subscribers c JOIN storefronts sf ON sf.id = c.storefront_id WHERE c.account_id <> sf.account_id"},
		{"products", "SELECT c.id FROM products c JOIN storefronts sf ON sf.id = c.storefront_id WHERE c.account_id <> sf.account_id"},
		{"subscriptions", "SELECT c.subscriber_id FROM subscriptions c JOIN subscribers sb ON sb.id = c.subscriber_id WHERE c.account_id <> sb.account_id"},
		{"subscriber_activity", "SELECT c.subscriber_id FROM subscriber_activity c JOIN subscribers sb ON sb.id = c.subscriber_id WHERE c.account_id <> sb.account_id"},
		{"user_sessions", "SELECT c.user_id FROM user_sessions c JOIN users u ON u.id = c.user_id WHERE c.account_id <> u.account_id"},
	} {
		err := eachRow(ctx, db.DB, q.query, nil, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%s of %d: another account than its parent's", q.table, id))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MigrateDownTo undoes the migrations after version.
func (db *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}

// AnalyzeList runs the list statement of the filter's page under ANALYZE and returns
// the plan's path and the index entries (or rows) it read, over all tables.
func (db *DB) AnalyzeList(ctx context.Context, f shop.PurchaseFilter) (string, float64, error) {
	path, err := planPurchases(ctx, db.DB, f)
	if err != nil {
		return "", 0, err
	}
	query, args, err := purchaseListQuery(f, perPage(f.PerPage), path)
	if err != nil {
		return "", 0, err
	}
	var out string
	if err := db.QueryRowContext(ctx, "ANALYZE FORMAT=JSON "+query, args...).Scan(&out); err != nil {
		return "", 0, err
	}
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return "", 0, err
	}
	var read float64
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if t, ok := v["table"].(map[string]any); ok {
				rows, _ := t["r_rows"].(float64)
				loops, _ := t["r_loops"].(float64)
				read += rows * loops
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	return path.String(), read, nil
}
