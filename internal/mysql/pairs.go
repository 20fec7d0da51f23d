package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"storefront/internal/shop"
)

// Pairs (db/README.md, "Pairs"): ordered paths of two filters together, for filters
// whose own paths, walked one with the other checked, passed over most of the first's
// purchases to find a page of the two. purchase_pairs holds rows keyed (account_id,
// mark, field, product_id, prefix_len, prefix, created_at, purchase_id):
//
//   - field 0 and 1, a mark with a product or an e-mail prefix. A purchase has a mark
//     when its status is other than ACT (the mark is the status's code) or it has
//     tangibles left to ship ("ship"). Marked purchases are few (14 % and 3 % of the
//     seeded ones), and product_id=4&ship=1 or customer_email=re&status=HLD matched a
//     few of the product's or the prefix's purchases, each passed over a row read for
//     its status. Each mark of a purchase has one row per product it holds (field 0)
//     and one per prefix of 1 to maxPrefixLen characters of its e-mail (field 1).
//   - field 2, without a mark (''), a product with the first character of the e-mail:
//     one row per product a purchase holds. customer_email=re&product_id=4 walked one
//     of the two paths and probed the other's for each entry (a primary-key read each,
//     about 800 of them for a page); the product's range of the prefix's first
//     character holds the prefix's matches densely (a quarter, for "re" within "r").
//
// The e-mail is beside the key (value) on the prefix rows, as purchase_prefixes has
// it, and the filter's own LIKE is checked on each entry. The rows are derived from
// the purchase's row and line items, written in the transaction that writes them
// (import, seed, reactivation).

// markShip is the mark of a purchase with tangibles left to ship; a status's mark is
// its code.
const markShip = "ship"

// The fields of purchase_pairs.
const (
	pairMarkProduct    = 0
	pairMarkEmail      = 1
	pairProductInitial = 2
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

// pairRowsInsert writes the pairs' rows of purchases p of one account, from their rows
// and line items: the format's arguments are the IN list of ids and "" or " IGNORE",
// and each ? of the account is followed by the list's ids. A purchase's marks are the
// rows of k that its row has: its status unless ACT, and "ship" when it has tangibles to
// ship.
const pairRowsInsert = `INSERT%[2]s INTO purchase_pairs (account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id, value)
	SELECT p.account_id, IF(k.k = 1, p.status, 'ship'), 0, li.product_id, 0, '', p.created_at, p.id, ''
	FROM purchases p JOIN (SELECT 1 AS k UNION ALL SELECT 2) k ON IF(k.k = 1, p.status <> 'ACT', p.to_ship)
	JOIN (SELECT DISTINCT li.purchase_id, li.product_id FROM line_items li WHERE li.account_id = ? AND li.purchase_id IN %[1]s) li ON li.purchase_id = p.id
	WHERE p.account_id = ? AND p.id IN %[1]s
	UNION ALL
	SELECT p.account_id, IF(k.k = 1, p.status, 'ship'), 1, 0, n.n, LEFT(p.buyer_email, n.n), p.created_at, p.id, p.buyer_email
	FROM purchases p JOIN (SELECT 1 AS k UNION ALL SELECT 2) k ON IF(k.k = 1, p.status <> 'ACT', p.to_ship)
	JOIN (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) n ON CHAR_LENGTH(p.buyer_email) >= n.n
	WHERE p.account_id = ? AND p.id IN %[1]s
	UNION ALL
	SELECT p.account_id, '', 2, li.product_id, 1, LEFT(p.buyer_email, 1), p.created_at, p.id, p.buyer_email
	FROM purchases p
	JOIN (SELECT DISTINCT li.purchase_id, li.product_id FROM line_items li WHERE li.account_id = ? AND li.purchase_id IN %[1]s) li ON li.purchase_id = p.id
	WHERE p.account_id = ? AND p.id IN %[1]s AND CHAR_LENGTH(p.buyer_email) >= 1`

// pairRowsLists is how many times pairRowsInsert names the account and the ids.
const pairRowsLists = 5

// writePairs writes the pairs' rows of the given purchases of an account from their
// rows and line items, as the transaction q sees them. The purchases have none yet.
func writePairs(ctx context.Context, q queryer, accountID int64, ids []int64) error {
	return insertPairs(ctx, q, "", accountID, ids)
}

// insertPairs writes the pairs' rows of the given purchases; with ignore " IGNORE",
// rows that exist are kept.
func insertPairs(ctx context.Context, q queryer, ignore string, accountID int64, ids []int64) error {
	for start := 0; start < len(ids); start += prefixBatch {
		list, args := inList(ids[start:min(start+prefixBatch, len(ids))])
		all := make([]any, 0, pairRowsLists*(len(args)+1))
		for range pairRowsLists {
			all = append(append(all, accountID), args...)
		}
		if _, err := q.ExecContext(ctx, fmt.Sprintf(pairRowsInsert, list, ignore), all...); err != nil {
			return fmt.Errorf("write pair rows: %w", translate(err))
		}
	}
	return nil
}

// deletePairs deletes the pairs' rows of the given purchases of an account.
func deletePairs(ctx context.Context, q queryer, accountID int64, ids []int64) error {
	for start := 0; start < len(ids); start += prefixBatch {
		list, args := inList(ids[start:min(start+prefixBatch, len(ids))])
		// The index of the purchases' own rows, named: planned by statistics that had
		// the table nearly empty, a DELETE walks (and locks) every row of the account.
		query := "DELETE m FROM purchase_pairs m FORCE INDEX (purchase_pairs_purchase) WHERE m.account_id = ? AND m.purchase_id IN " + list
		if _, err := q.ExecContext(ctx, query, append([]any{accountID}, args...)...); err != nil {
			return fmt.Errorf("delete pair rows: %w", translate(err))
		}
	}
	return nil
}

// StorePairs writes the pairs' rows of the given purchases of an account, inside tx,
// from the purchases as given (pairRows) rather than from their rows: for writers
// outside this package (the seeder) that have just written those rows in tx, sent in
// the order of the table's key. The purchases have none yet.
func StorePairs(ctx context.Context, sqlTx *sql.Tx, accountID int64, ps []*shop.Purchase) error {
	tx := &Tx{Tx: sqlTx} // the seed's transaction queues no background work
	var rows []pairRow
	for _, p := range ps {
		rows = pairRows(rows, p)
	}
	// In the order of the table's key, near enough (as StorePrefixes sends its rows).
	slices.SortFunc(rows, func(a, b pairRow) int {
		return cmp.Or(strings.Compare(a.mark, b.mark), cmp.Compare(a.field, b.field), cmp.Compare(a.product, b.product),
			cmp.Compare(a.n, b.n), strings.Compare(strings.ToLower(a.prefix), strings.ToLower(b.prefix)), a.at.Compare(b.at), cmp.Compare(a.id, b.id))
	})
	args := make([]any, 0, 9*len(rows))
	for _, r := range rows {
		args = append(args, accountID, r.mark, r.field, r.product, r.n, r.prefix, r.at, r.id, r.value)
	}
	err := upsertChunks(ctx, tx, "INSERT INTO purchase_pairs (account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id, value)", 9, "", args)
	if err != nil {
		return fmt.Errorf("write pair rows: %w", err)
	}
	return nil
}

// pairRow is one row of purchase_pairs within an account.
type pairRow struct {
	mark          string
	field, n      int
	product, id   int64
	prefix, value string
	at            time.Time
}

// pairRows appends the pairs' rows of a purchase to rows, as pairRowsInsert derives
// them from its row: for each of its marks, a row per product of its line items and
// one per e-mail prefix row that prefixRows makes; and a row per product with the
// e-mail's first character.
func pairRows(rows []pairRow, p *shop.Purchase) []pairRow {
	var marks []string
	if p.Status != unmarkedStatus {
		marks = append(marks, string(p.Status))
	}
	if p.TangiblesToShip != nil && *p.TangiblesToShip > 0 {
		marks = append(marks, markShip)
	}
	var products []int64
	for _, li := range p.LineItems {
		products = append(products, li.ProductID)
	}
	slices.Sort(products)
	products = slices.Compact(products)
	var emails []prefixRow
	for _, r := range prefixRows(nil, p) {
		if r.field == int(prefixEmail) {
			emails = append(emails, r)
		}
	}
	at := p.CreatedAt.UTC()
	for _, m := range marks {
		for _, id := range products {
			rows = append(rows, pairRow{mark: m, field: pairMarkProduct, product: id, at: at, id: p.ID})
		}
		for _, r := range emails {
			rows = append(rows, pairRow{mark: m, field: pairMarkEmail, n: r.n, prefix: r.prefix, value: r.value, at: at, id: p.ID})
		}
	}
	if len(emails) > 0 { // the first is the e-mail's first character
		for _, id := range products {
			rows = append(rows, pairRow{field: pairProductInitial, product: id, n: 1, prefix: emails[0].prefix, value: emails[0].value, at: at, id: p.ID})
		}
	}
	return rows
}

// backfillPairs writes the pairs' rows of every purchase, a batch at a time in
// transactions of their own (migration 142). Rows that exist are kept, so it is safe
// to run again and to interrupt.
func backfillPairs(ctx context.Context, sqlDB *sql.DB) error {
	return eachPurchaseBatch(ctx, sqlDB, func(ctx context.Context, tx *sql.Tx, account int64, ids []int64) error {
		return insertPairs(ctx, tx, " IGNORE", account, ids)
	})
}
