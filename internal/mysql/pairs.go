package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"storefront/internal/shop"
)

// Pairs (db/README.md, "Pairs"): ordered paths of two filters together, for filters
// whose own paths, walked one with the other checked, passed over most of the first's
// purchases to find a page of the two. A purchase has a mark when its status is other
// than ACT (the mark is the status's code) or it has tangibles left to ship ("ship").
// Marked purchases are few (14 % and 3 % of the seeded ones), and product_id=4&ship=1
// or customer_email=re&status=HLD matched a few of the product's or the prefix's
// purchases, each passed over a row read for its status. purchase_pairs holds, for
// each mark of a purchase, one row per product it holds (field 0) and one per prefix
// of 1 to maxPrefixLen characters of its e-mail (field 1, with the e-mail beside the
// key, as purchase_prefixes has it, for the filter's own LIKE), keyed (account_id,
// mark, field, product_id, prefix_len, prefix, created_at, purchase_id): the ordered
// path of a mark and a product, or a mark and a prefix. The rows are derived from the
// purchase as it is written (import, seed) and from its row and product paths when
// rebuilt, and a reactivation deletes those of its status, in the transaction that
// writes the purchase.

// markShip is the mark of a purchase with tangibles left to ship; a status's mark is
// its code.
const markShip = "ship"

// The fields of purchase_pairs.
const (
	pairMarkProduct = 0
	pairMarkEmail   = 1
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

// pairRowsSelect selects the pairs' rows of purchases p of one account, from their rows
// and product paths (purchase_products, the products of their line items), as the
// columns of purchase_pairs: the format's argument is the IN list of ids, and each ? of
// the account is followed by the list's ids (pairRowsLists times). A purchase's marks
// are the rows of k that its row has: its status unless ACT, and "ship" when it has
// tangibles to ship. (Not the line items: a DELETE that reads them locks them shared,
// and next to another reactivation's update of its own line items that deadlocked.)
const pairRowsSelect = `SELECT p.account_id, IF(k.k = 1, p.status, 'ship') AS mark, 0 AS field, pp.product_id, 0 AS prefix_len, '' AS prefix,
		p.created_at, p.id AS purchase_id, '' AS value
	FROM purchases p JOIN (SELECT 1 AS k UNION ALL SELECT 2) k ON IF(k.k = 1, p.status <> 'ACT', p.to_ship)
	JOIN purchase_products pp FORCE INDEX (purchase_products_purchase) ON pp.account_id = p.account_id AND pp.purchase_id = p.id
	WHERE p.account_id = ? AND p.id IN %[1]s
	UNION ALL
	SELECT p.account_id, IF(k.k = 1, p.status, 'ship'), 1, 0, n.n, LEFT(p.buyer_email, n.n), p.created_at, p.id, p.buyer_email
	FROM purchases p JOIN (SELECT 1 AS k UNION ALL SELECT 2) k ON IF(k.k = 1, p.status <> 'ACT', p.to_ship)
	JOIN (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) n ON CHAR_LENGTH(p.buyer_email) >= n.n
	WHERE p.account_id = ? AND p.id IN %[1]s`

// pairRowsLists is how many times pairRowsSelect names the account and the ids.
const pairRowsLists = 2

// pairRowsInsert writes the rows pairRowsSelect selects (its format argument).
const pairRowsInsert = "INSERT INTO purchase_pairs (account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id, value) %s"

// deletePairs deletes the pairs' rows of the given purchases of an account, found by
// the keys their rows and product paths give them (pairRows of the purchase as its row
// and purchase_products hold it): it runs before those change. The keys are read first
// and the rows deleted by their primary key, in the same transaction: one statement on
// one table, which vtgate sends to the account's shard (a DELETE joined to a derived
// table of the keys, as this once was, vtgate cannot execute).
func deletePairs(ctx context.Context, q queryer, accountID int64, ids []int64) error {
	for start := 0; start < len(ids); start += prefixBatch {
		list, args := inList(ids[start:min(start+prefixBatch, len(ids))])
		byID := map[int64]*shop.Purchase{}
		var marked []*shop.Purchase
		err := eachRow(ctx, q, "SELECT id, status, tangibles_to_ship, buyer_email, created_at FROM purchases WHERE account_id = ? AND id IN "+list+
			" AND (status <> 'ACT' OR to_ship)", append([]any{accountID}, args...),
			func(rows *sql.Rows) error {
				p := &shop.Purchase{}
				var ship sql.NullInt64
				var email sql.NullString
				if err := rows.Scan(&p.ID, &p.Status, &ship, &email, &p.CreatedAt.Time); err != nil {
					return err
				}
				if ship.Valid {
					p.TangiblesToShip = &ship.Int64
				}
				if email.Valid {
					p.BuyerEmail = &email.String
				}
				byID[p.ID] = p
				marked = append(marked, p)
				return nil
			})
		if err != nil {
			return fmt.Errorf("pair rows: %w", err)
		}
		if len(marked) == 0 {
			continue
		}
		err = eachRow(ctx, q, "SELECT purchase_id, product_id FROM purchase_products WHERE account_id = ? AND purchase_id IN "+list,
			append([]any{accountID}, args...),
			func(rows *sql.Rows) error {
				var id int64
				var li shop.LineItem
				if err := rows.Scan(&id, &li.ProductID); err != nil {
					return err
				}
				if p := byID[id]; p != nil {
					p.LineItems = append(p.LineItems, li)
				}
				return nil
			})
		if err != nil {
			return fmt.Errorf("pair rows: %w", err)
		}
		var keys []pairRow
		for _, p := range marked {
			keys = pairRows(keys, p)
		}
		if err := deletePairKeys(ctx, q, accountID, keys); err != nil {
			return err
		}
	}
	return nil
}

// deletePairKeys deletes the pairs' rows of an account with the given keys, by the
// primary key itself (named: planned by statistics that had the table nearly empty, a
// DELETE may walk and lock every row of the account): one statement on one table per
// 2,000 keys.
func deletePairKeys(ctx context.Context, q queryer, accountID int64, keys []pairRow) error {
	const batch = 2000
	for len(keys) > 0 {
		n := min(batch, len(keys))
		args := make([]any, 0, 1+7*n)
		args = append(args, accountID)
		for _, k := range keys[:n] {
			args = append(args, k.mark, k.field, k.product, k.n, k.prefix, k.at, k.id)
		}
		query := "DELETE x FROM purchase_pairs x FORCE INDEX (PRIMARY) WHERE x.account_id = ? AND " +
			"(x.mark, x.field, x.product_id, x.prefix_len, x.prefix, x.created_at, x.purchase_id) IN (" + rowPlaceholders(n, 7) + ")"
		if _, err := q.ExecContext(ctx, query, args...); err != nil {
			return fmt.Errorf("delete pair rows: %w", translate(err))
		}
		keys = keys[n:]
	}
	return nil
}

// deleteStatusPairs deletes the pairs' rows of a purchase's status, before its status
// changes to ACT (a reactivation), which has none; its other rows stay as they are,
// and nothing is written again (concurrent reactivations rewriting their rows locked
// the gaps beside them in each other's way). The keys are those pairRows makes of the
// purchase's status, e-mail and products (read from its product path, without a
// lock), deleted by the primary key itself: one statement on one table, which Vitess
// sends to the account's shard (deletePairKeys).
func deleteStatusPairs(ctx context.Context, q queryer, accountID, id int64, status shop.PurchaseStatus, email sql.NullString, createdAt time.Time) error {
	p := &shop.Purchase{ID: id, Status: status, Timestamps: shop.Timestamps{CreatedAt: shop.Time{Time: createdAt}}}
	if email.Valid {
		p.BuyerEmail = &email.String
	}
	err := eachRow(ctx, q, "SELECT product_id FROM purchase_products WHERE account_id = ? AND purchase_id = ?", []any{accountID, id},
		func(rows *sql.Rows) error {
			var li shop.LineItem
			p.LineItems = append(p.LineItems, li)
			return rows.Scan(&p.LineItems[len(p.LineItems)-1].ProductID)
		})
	if err != nil {
		return err
	}
	return deletePairKeys(ctx, q, accountID, pairRows(nil, p))
}

// execPairs runs the statement format (its argument pairRowsSelect) for the given
// purchases of an account, a batch of them at a time.
func execPairs(ctx context.Context, q queryer, format string, accountID int64, ids []int64) error {
	return execBatches(ctx, q, "pair rows", accountID, ids, pairRowsLists, func(list string) string {
		return fmt.Sprintf(format, fmt.Sprintf(pairRowsSelect, list))
	})
}

// pairTable derives pairs' rows from purchases (pairRows).
var pairTable = derivedRows[pairRow]{
	insert: rowsInsert{"INSERT INTO purchase_pairs (account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id, value)", 9, "pair rows"},
	of:     pairRows,
}

// pairRow is one row of purchase_pairs within an account; order is its prefix in lower
// case, to sort by.
type pairRow struct {
	mark                 string
	field, n             int
	product, id          int64
	prefix, value, order string
	at                   time.Time
}

// compare orders pairs' rows as the table's key does, near enough.
func (a pairRow) compare(b pairRow) int {
	return cmp.Or(strings.Compare(a.mark, b.mark), cmp.Compare(a.field, b.field), cmp.Compare(a.product, b.product),
		cmp.Compare(a.n, b.n), strings.Compare(a.order, b.order), a.at.Compare(b.at), cmp.Compare(a.id, b.id))
}

// appendValues appends the row's values, in pairTable's columns, to args.
func (r pairRow) appendValues(args []any, accountID int64) []any {
	return append(args, accountID, r.mark, r.field, r.product, r.n, r.prefix, r.at, r.id, r.value)
}

// pairRows appends the pairs' rows of a purchase to rows, as pairRowsSelect derives
// them from its row: for each of its marks, a row per product of its line items and
// one per e-mail prefix row that prefixRows makes (the characters of valid UTF-8, as
// MariaDB's LEFT counts them).
func pairRows(rows []pairRow, p *shop.Purchase) []pairRow {
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
	products := productIDs(p)
	var emails []prefixRow // the e-mail's rows of prefixRows
	if p.BuyerEmail != nil {
		for _, r := range prefixRows(nil, &shop.Purchase{BuyerEmail: p.BuyerEmail}) {
			if r.field == int(prefixEmail) {
				emails = append(emails, r)
			}
		}
	}
	at := p.CreatedAt.UTC()
	for _, m := range marks {
		for _, id := range products {
			rows = append(rows, pairRow{mark: m, field: pairMarkProduct, product: id, at: at, id: p.ID})
		}
		for _, r := range emails {
			rows = append(rows, pairRow{mark: m, field: pairMarkEmail, n: r.n, prefix: r.prefix, value: r.value, order: r.order, at: at, id: p.ID})
		}
	}
	return rows
}

// backfillPairs writes the pairs' rows of every purchase, a batch at a time in
// transactions of their own (migration 142). Rows that exist are kept, so it is safe
// to run again and to interrupt.
func backfillPairs(ctx context.Context, sqlDB *sql.DB) error {
	return eachPurchaseBatch(ctx, sqlDB, func(ctx context.Context, tx *sql.Tx, account int64, ids []int64) error {
		return execPairs(ctx, tx, pairRowsInsert+" ON DUPLICATE KEY UPDATE purchase_pairs.purchase_id = purchase_pairs.purchase_id", account, ids)
	})
}
