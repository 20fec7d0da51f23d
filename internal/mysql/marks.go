package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"storefront/internal/shop"
)

// Marks (db/README.md, "Marks"): a purchase has a mark when its status is other than
// ACT (the mark is the status's code) or it has tangibles left to ship ("ship"). Marked
// purchases are few (14 % and 3 % of the seeded ones), and a filter that names a mark
// with a product or an e-mail prefix (product_id=4&ship=1, customer_email=re&status=HLD)
// matched a few of the product's or the prefix's purchases: walking that path passed
// over the others, each a row read for its status. purchase_marks holds, for each mark
// of a purchase, one row per product it holds (field 0) and one per prefix of 1 to
// maxPrefixLen characters of its e-mail (field 1, with the e-mail beside the key, as
// purchase_prefixes has it), keyed (account_id, mark, field, product_id, prefix_len,
// prefix, created_at, purchase_id): the ordered path of a mark and a product, or a
// mark and a prefix. The rows are derived from the purchase's row and line items,
// written in the transaction that writes them (import, seed, reactivation).

// markShip is the mark of a purchase with tangibles left to ship; a status's mark is
// its code.
const markShip = "ship"

// The fields of purchase_marks.
const (
	markProduct = 0
	markEmail   = 1
)

// unmarkedStatus is the one status without a mark: most purchases have it, so its
// filters find their matches densely on any path.
const unmarkedStatus = shop.PurchaseStatus("ACT")

// markOf returns the mark a filter names, if any: ship=1, else one status other than
// ACT.
func markOf(f shop.PurchaseFilter) (string, bool) {
	switch {
	case f.Unshipped != nil && *f.Unshipped:
		return markShip, true
	case len(f.Statuses) == 1 && f.Statuses[0] != unmarkedStatus:
		return string(f.Statuses[0]), true
	}
	return "", false
}

// withoutMark returns the filter less the condition its mark stands for.
func withoutMark(f shop.PurchaseFilter, mark string) shop.PurchaseFilter {
	if mark == markShip {
		f.Unshipped = nil
	} else {
		f.Statuses = nil
	}
	return f
}

// markRowsInsert writes the marks' rows of purchases p of one account, from their rows
// and line items: the format's arguments are the IN list of ids (twice) and "" or
// " IGNORE". A purchase's marks are the rows of k that its row has: its status unless
// ACT, and "ship" when it has tangibles to ship.
const markRowsInsert = `INSERT%[2]s INTO purchase_marks (account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id, value)
	SELECT p.account_id, IF(k.k = 1, p.status, 'ship'), 0, li.product_id, 0, '', p.created_at, p.id, ''
	FROM purchases p JOIN (SELECT 1 AS k UNION ALL SELECT 2) k ON IF(k.k = 1, p.status <> 'ACT', p.to_ship)
	JOIN (SELECT DISTINCT li.purchase_id, li.product_id FROM line_items li WHERE li.account_id = ? AND li.purchase_id IN %[1]s) li ON li.purchase_id = p.id
	WHERE p.account_id = ? AND p.id IN %[1]s
	UNION ALL
	SELECT p.account_id, IF(k.k = 1, p.status, 'ship'), 1, 0, n.n, LEFT(p.buyer_email, n.n), p.created_at, p.id, p.buyer_email
	FROM purchases p JOIN (SELECT 1 AS k UNION ALL SELECT 2) k ON IF(k.k = 1, p.status <> 'ACT', p.to_ship)
	JOIN (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) n ON CHAR_LENGTH(p.buyer_email) >= n.n
	WHERE p.account_id = ? AND p.id IN %[1]s`

// writeMarks writes the marks' rows of the given purchases of an account from their
// rows and line items, as the transaction q sees them. The purchases have none yet.
func writeMarks(ctx context.Context, q queryer, accountID int64, ids []int64) error {
	return insertMarks(ctx, q, "", accountID, ids)
}

// insertMarks writes the marks' rows of the given purchases; with ignore " IGNORE",
// rows that exist are kept.
func insertMarks(ctx context.Context, q queryer, ignore string, accountID int64, ids []int64) error {
	for start := 0; start < len(ids); start += prefixBatch {
		list, args := inList(ids[start:min(start+prefixBatch, len(ids))])
		all := make([]any, 0, 3*len(args)+3)
		for range 3 {
			all = append(append(all, accountID), args...)
		}
		if _, err := q.ExecContext(ctx, fmt.Sprintf(markRowsInsert, list, ignore), all...); err != nil {
			return fmt.Errorf("write mark rows: %w", translate(err))
		}
	}
	return nil
}

// deleteMarks deletes the marks' rows of the given purchases of an account.
func deleteMarks(ctx context.Context, q queryer, accountID int64, ids []int64) error {
	for start := 0; start < len(ids); start += prefixBatch {
		list, args := inList(ids[start:min(start+prefixBatch, len(ids))])
		// The index of the purchases' own rows, named: planned by statistics that had
		// the table nearly empty, a DELETE walks (and locks) every row of the account.
		query := "DELETE m FROM purchase_marks m FORCE INDEX (purchase_marks_purchase) WHERE m.account_id = ? AND m.purchase_id IN " + list
		if _, err := q.ExecContext(ctx, query, append([]any{accountID}, args...)...); err != nil {
			return fmt.Errorf("delete mark rows: %w", translate(err))
		}
	}
	return nil
}

// StoreMarks writes the marks' rows of the given purchases of an account, inside tx,
// from the purchases as given (markRows) rather than from their rows: for writers
// outside this package (the seeder) that have just written those rows in tx. The
// purchases have none yet.
func StoreMarks(ctx context.Context, sqlTx *sql.Tx, accountID int64, ps []*shop.Purchase) error {
	tx := &Tx{Tx: sqlTx} // the seed's transaction queues no background work
	var args []any
	for _, p := range ps {
		for _, r := range markRows(nil, p) {
			args = append(args, accountID, r.mark, r.field, r.product, r.n, r.prefix, r.at, r.id, r.value)
		}
	}
	err := upsertChunks(ctx, tx, "INSERT INTO purchase_marks (account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id, value)", 9, "", args)
	if err != nil {
		return fmt.Errorf("write mark rows: %w", err)
	}
	return nil
}

// markRow is one row of purchase_marks within an account.
type markRow struct {
	mark          string
	field, n      int
	product, id   int64
	prefix, value string
	at            time.Time
}

// markRows appends the marks' rows of a purchase to rows, as markRowsInsert derives
// them from its row: for each of its marks, a row per product of its line items and
// one per e-mail prefix row that prefixRows makes.
func markRows(rows []markRow, p *shop.Purchase) []markRow {
	var marks []string
	if p.Status != unmarkedStatus {
		marks = append(marks, string(p.Status))
	}
	if p.TangiblesToShip != nil && *p.TangiblesToShip > 0 {
		marks = append(marks, markShip)
	}
	if len(marks) == 0 {
		return rows
	}
	var products []int64
	for _, li := range p.LineItems {
		products = append(products, li.ProductID)
	}
	slices.Sort(products)
	products = slices.Compact(products)
	at := p.CreatedAt.UTC()
	for _, m := range marks {
		for _, id := range products {
			rows = append(rows, markRow{mark: m, field: markProduct, product: id, at: at, id: p.ID})
		}
		for _, r := range prefixRows(nil, p) {
			if r.field == int(prefixEmail) {
				rows = append(rows, markRow{mark: m, field: markEmail, n: r.n, prefix: r.prefix, value: r.value, at: at, id: p.ID})
			}
		}
	}
	return rows
}

// backfillMarks writes the marks' rows of every purchase, a batch at a time in
// transactions of their own (migration 142). Rows that exist are kept, so it is safe
// to run again and to interrupt.
func backfillMarks(ctx context.Context, sqlDB *sql.DB) error {
	return eachPurchaseBatch(ctx, sqlDB, func(ctx context.Context, tx *sql.Tx, account int64, ids []int64) error {
		return insertMarks(ctx, tx, " IGNORE", account, ids)
	})
}
