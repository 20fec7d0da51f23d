package mysql

import (
	"context"
	"database/sql"
	"sync"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// exportReaders is how many batches of an export are read at once, each on a
// connection of its own, while the walk of the ids goes on ahead and the caller
// writes the batch before them: a batch's rows and line items cost several times the
// walk's step, and MariaDB runs each statement on one thread.
const exportReaders = 2

// exportDense is how sparse a batch may be and still be read as one range of the
// primary key: when the ids it needs span at most exportDense times their number, the
// range (and the rows of it the batch does not need, dropped here) costs less than a
// lookup per row. Past it, the batch is read by its id list. A variable for the tests,
// which read both ways.
var exportDense int64 = 3

// ExportPurchases implements shop.PurchaseService. It walks the filter's access path
// as the API's pages do (planPurchases once, then purchaseListQuery with a keyset
// cursor), so that an export holds exactly the purchases the JSON list pages through,
// in the same order. Each batch of ids is read, while the walk goes on, by exportRows:
// the purchases' rows and their line items. At most exportReaders+2 batches are held
// at a time, however many purchases match.
func (s *PurchaseService) ExportPurchases(ctx context.Context, f shop.PurchaseFilter, lines shop.ExportLines, fn func([]*shop.Purchase) error) error {
	return exportPurchases(ctx, s.db.DB, f, lines, fn)
}

// exportBatch is a batch being read: its purchases, or why they could not be read.
type exportBatch struct {
	ps  []*shop.Purchase
	err error
}

func exportPurchases(ctx context.Context, q queryer, f shop.PurchaseFilter, lines shop.ExportLines, fn func([]*shop.Purchase) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// pending holds the batches being read, in list order; each is filled by a reader
	// of its own. Its capacity bounds how many are read at once.
	pending := make(chan chan exportBatch, exportReaders)
	var readers sync.WaitGroup
	walked := make(chan error, 1)
	// The first batch is read and written alone: the file's first bytes wait for
	// nothing else.
	first := make(chan struct{})
	go func() {
		defer close(pending)
		batches := 0
		walked <- walkExportIDs(ctx, q, f, func(ids []int64) error {
			if batches++; batches == 2 {
				select {
				case <-first:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			res := make(chan exportBatch, 1)
			select {
			case pending <- res:
			case <-ctx.Done():
				return ctx.Err()
			}
			readers.Add(1)
			go func() {
				defer readers.Done()
				ps, err := exportRows(ctx, q, f.AccountID, ids, lines)
				res <- exportBatch{ps, err}
			}()
			return nil
		})
	}()
	release := sync.OnceFunc(func() { close(first) })
	defer release()
	var err error
	for res := range pending {
		b := <-res
		if err == nil { // else draining after a failure
			err = b.err
			if err == nil {
				err = ctx.Err()
			}
			if err == nil && len(b.ps) > 0 {
				err = fn(b.ps)
			}
			if err != nil {
				cancel()
			}
		}
		release()
	}
	readers.Wait()
	if werr := <-walked; err == nil {
		err = werr
	}
	return err
}

// walkExportIDs walks the filter's access path in list order and hands the ids of each
// batch to emit.
func walkExportIDs(ctx context.Context, q queryer, f shop.PurchaseFilter, emit func([]int64) error) error {
	batch := f.PerPage
	if batch <= 0 {
		batch = shop.ExportBatch
	}
	f.Page, f.After, f.IncludeCount, f.PerPage = 0, nil, false, 0
	path, err := planPurchases(ctx, q, f)
	if err != nil {
		return err
	}
	// A small first batch: the file's first bytes leave before a page would.
	n := min(batch, shop.ExportFirstBatch)
	for {
		query, args, err := purchaseListQuery(f, n, path)
		if err != nil {
			return err
		}
		ids := make([]int64, 0, n+1)
		var last shop.Cursor
		err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
			var c shop.Cursor
			if err := rows.Scan(&c.ID, &c.CreatedAt); err != nil {
				return err
			}
			if len(ids) < n {
				last = c
			}
			ids = append(ids, c.ID)
			return nil
		})
		if err != nil {
			return err
		}
		more := len(ids) > n
		ids = ids[:min(len(ids), n)]
		if len(ids) > 0 {
			if err := emit(ids); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		f.After = &last
		n = batch
	}
}

// exportColumns are the purchase columns of the export, in the order exportRows scans
// them.
var exportColumns = []string{
	"p.id", "p.created_at", "p.status", "p.storefront_id", "p.currency",
	"p.subtotal", "p.discount", "p.tax", "p.shipping", "p.total",
	"p.buyer_email", "p.buyer_firstname", "p.buyer_lastname", "p.customer_id", "p.subscriber_id", "p.tangibles_to_ship",
}

// exportLineItemColumns are the line item columns of the export, in the order
// exportLineItems scans them: those the file shows, one row per line item
// (shop.ExportLineItems) or one per purchase (shop.ExportProducts: a third of the
// bytes to send and parse).
var exportLineItemColumns = map[shop.ExportLines]string{
	shop.ExportLineItems: "id, purchase_id, product_id, price, quantity, total, product_name, download_limit, download_count, expires_at",
	shop.ExportProducts:  "purchase_id, quantity, product_name",
}

// dense reports whether ids from lo to hi, n of them wanted, are read as one range.
func dense(lo, hi int64, n int) bool {
	return n > 0 && hi-lo < exportDense*int64(n)
}

// exportRows reads the export's fields of the account's purchases with the given ids,
// and their line items in recorded order, and returns them in the order of ids. Both
// are read as one range of their table's primary key when the batch is dense there
// (ids given out in the order purchases are made, as import and seed write them), else
// by one lookup per row:
//   - the purchases: the range from the least to the greatest id, or the id list;
//   - the line items: where they lie is found first from line_items_purchase
//     (purchase_id, account_id, id) alone, the least and greatest id and how many;
//     then the range, or the line items of the id list by that index.
//
// Every statement names the account. Rows of a range that the batch does not hold
// (another filter's, another account's) are dropped here.
func exportRows(ctx context.Context, q queryer, accountID int64, ids []int64, lines shop.ExportLines) ([]*shop.Purchase, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	byID := make(map[int64]*shop.Purchase, len(ids))
	lo, hi := ids[0], ids[0]
	for _, id := range ids {
		byID[id] = nil
		lo, hi = min(lo, id), max(hi, id)
	}
	// PRIMARY is forced: left to itself the optimiser estimates the id list's ranges on
	// every index that holds id, which costs several times the read itself.
	sel := sq.Select(exportColumns...).From("purchases p FORCE INDEX (PRIMARY)")
	if dense(lo, hi, len(ids)) {
		sel = sel.Where("p.account_id = ? AND p.id >= ? AND p.id <= ?", accountID, lo, hi)
	} else {
		sel = sel.Where(sq.And{sq.Eq{"p.account_id": accountID}, sq.Eq{"p.id": ids}})
	}
	query, args, err := sel.ToSql()
	if err != nil {
		return nil, err
	}
	found := make([]int64, 0, len(ids))
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var (
			p                                    shop.Purchase
			subtotal, discount, tax, ship, total string
			customerID                           sql.NullInt64
		)
		if err := rows.Scan(&p.ID, &p.CreatedAt, &p.Status, &p.StorefrontID, &p.Currency,
			&subtotal, &discount, &tax, &ship, &total,
			&p.BuyerEmail, &p.BuyerFirstname, &p.BuyerLastname, &customerID, &p.SubscriberID, &p.TangiblesToShip); err != nil {
			return err
		}
		if had, want := byID[p.ID]; !want || had != nil {
			return nil
		}
		d := currencyDigits(p.Currency)
		p.AccountID = accountID
		p.Subtotal, p.Discount, p.Tax = formatMoney(subtotal, d), formatMoney(discount, d), formatMoney(tax, d)
		p.Shipping, p.Total = formatMoney(ship, d), formatMoney(total, d)
		if customerID.Valid {
			p.Customer = &shop.Customer{ID: customerID.Int64}
		}
		p.LineItems = []shop.LineItem{}
		byID[p.ID] = &p
		found = append(found, p.ID)
		return nil
	})
	if err != nil || len(found) == 0 {
		return nil, err
	}
	if err := exportLineItems(ctx, q, accountID, found, byID, lines); err != nil {
		return nil, err
	}
	out := make([]*shop.Purchase, 0, len(ids))
	for _, id := range ids {
		if p := byID[id]; p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// exportLineItems adds their line items, in recorded order, to the purchases found,
// with the fields that lines names.
func exportLineItems(ctx context.Context, q queryer, accountID int64, found []int64, byID map[int64]*shop.Purchase, lines shop.ExportLines) error {
	in := sq.And{sq.Eq{"account_id": accountID}, sq.Eq{"purchase_id": found}}
	query, args, err := sq.Select("MIN(id)", "MAX(id)", "COUNT(*)").From("line_items FORCE INDEX (line_items_purchase)").Where(in).ToSql()
	if err != nil {
		return err
	}
	var (
		first, last sql.NullInt64
		n           int
	)
	if err := q.QueryRowContext(ctx, query, args...).Scan(&first, &last, &n); err != nil {
		return translate(err)
	}
	if n == 0 {
		return nil
	}
	// Either way in the order of ids, which is each purchase's recorded order.
	cols := exportLineItemColumns[lines]
	if dense(first.Int64, last.Int64, n) {
		query, args = "SELECT "+cols+" FROM line_items FORCE INDEX (PRIMARY) WHERE account_id = ? AND id >= ? AND id <= ?",
			[]any{accountID, first.Int64, last.Int64}
	} else if query, args, err = sq.Select(cols).From("line_items FORCE INDEX (line_items_purchase)").
		Where(in).OrderBy("purchase_id", "id").ToSql(); err != nil {
		return err
	}
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var li shop.LineItem
		var price, total string
		var err error
		if lines == shop.ExportProducts {
			err = rows.Scan(&li.PurchaseID, &li.Quantity, &li.ProductName)
		} else {
			err = rows.Scan(&li.ID, &li.PurchaseID, &li.ProductID, &price, &li.Quantity, &total,
				&li.ProductName, &li.DownloadLimit, &li.DownloadCount, &li.ExpiresAt)
		}
		if err != nil {
			return err
		}
		p := byID[li.PurchaseID]
		if p == nil {
			return nil
		}
		if lines != shop.ExportProducts {
			d := currencyDigits(p.Currency)
			li.Price, li.Total = formatMoney(price, d), formatMoney(total, d)
		}
		p.LineItems = append(p.LineItems, li)
		return nil
	})
}
