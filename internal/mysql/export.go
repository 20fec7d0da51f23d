package mysql

import (
	"context"
	"database/sql"
	"sync"
	"time"

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

// exportLinesPerPurchase is about how many line items a purchase has, to size a small
// batch's slice of them before they are counted.
const exportLinesPerPurchase = 3

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
	// at holds, for each id of the batch, its purchase's index in ps once read, -1
	// before.
	at := make(map[int64]int32, len(ids))
	lo, hi := ids[0], ids[0]
	for _, id := range ids {
		at[id] = -1
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
	// The batch's purchases and what they point to are allocated once for the batch,
	// and each row's text once for the row.
	var (
		ps        = make([]shop.Purchase, 0, len(ids))
		customers = make([]shop.Customer, 0, len(ids))
		nums      = make([]int64, 0, 2*len(ids))
		texts     = make([]string, 0, 3*len(ids))

		id, storefrontID                 int64
		created                          time.Time
		customerID, subscriberID, toShip sql.NullInt64
		// status, currency, subtotal, discount, tax, shipping, total, buyer_email,
		// buyer_firstname, buyer_lastname: the driver's bytes, valid until the next row.
		raw  [10]sql.RawBytes
		text []byte
	)
	dest := []any{&id, &created, &raw[0], &storefrontID, &raw[1],
		&raw[2], &raw[3], &raw[4], &raw[5], &raw[6],
		&raw[7], &raw[8], &raw[9], &customerID, &subscriberID, &toShip}
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if i, want := at[id]; !want || i >= 0 {
			return nil
		}
		text = text[:0]
		for _, b := range raw {
			text = append(text, b...)
		}
		row := string(text)
		var cells [len(raw)]string
		for i, b := range raw {
			cells[i], row = row[:len(b)], row[len(b):]
		}
		at[id] = int32(len(ps))
		ps = append(ps, shop.Purchase{ID: id, AccountID: accountID, CreatedAt: shop.NewTime(created),
			Status: shop.PurchaseStatus(cells[0]), StorefrontID: storefrontID, Currency: cells[1], LineItems: []shop.LineItem{}})
		p := &ps[len(ps)-1]
		d := currencyDigits(p.Currency)
		p.Subtotal, p.Discount, p.Tax = formatMoney(cells[2], d), formatMoney(cells[3], d), formatMoney(cells[4], d)
		p.Shipping, p.Total = formatMoney(cells[5], d), formatMoney(cells[6], d)
		for i, f := range []**string{&p.BuyerEmail, &p.BuyerFirstname, &p.BuyerLastname} {
			if raw[7+i] != nil { // else NULL
				texts = append(texts, cells[7+i])
				*f = &texts[len(texts)-1]
			}
		}
		if customerID.Valid {
			customers = append(customers, shop.Customer{ID: customerID.Int64})
			p.Customer = &customers[len(customers)-1]
		}
		for _, f := range []struct {
			n   sql.NullInt64
			dst **int64
		}{{subscriberID, &p.SubscriberID}, {toShip, &p.TangiblesToShip}} {
			if f.n.Valid {
				nums = append(nums, f.n.Int64)
				*f.dst = &nums[len(nums)-1]
			}
		}
		return nil
	})
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	if err := exportLineItems(ctx, q, accountID, ps, at, lines); err != nil {
		return nil, err
	}
	out := make([]*shop.Purchase, 0, len(ps))
	for _, id := range ids {
		if i := at[id]; i >= 0 {
			out = append(out, &ps[i])
		}
	}
	return out, nil
}

// exportLineItems adds their line items, in recorded order, to the purchases ps (at
// gives the index in ps of each purchase id), with the fields that lines names.
func exportLineItems(ctx context.Context, q queryer, accountID int64, ps []shop.Purchase, at map[int64]int32, lines shop.ExportLines) error {
	found := make([]int64, len(ps))
	for i := range ps {
		found[i] = ps[i].ID
	}
	in := sq.And{sq.Eq{"account_id": accountID}, sq.Eq{"purchase_id": found}}
	var (
		first, last sql.NullInt64
		// n is how many line items there are, or for a small batch about how many.
		n = exportLinesPerPurchase * len(ps)
	)
	// A small batch (the first) is read by its id list at once: the probe of its range
	// would cost a round trip and save little.
	if len(ps) > shop.ExportFirstBatch {
		query, args, err := sq.Select("MIN(id)", "MAX(id)", "COUNT(*)").From("line_items FORCE INDEX (line_items_purchase)").Where(in).ToSql()
		if err != nil {
			return err
		}
		if err := q.QueryRowContext(ctx, query, args...).Scan(&first, &last, &n); err != nil {
			return translate(err)
		}
		if n == 0 {
			return nil
		}
	}
	// Either way in the order of ids, which is each purchase's recorded order.
	cols := exportLineItemColumns[lines]
	var (
		query string
		args  []any
		err   error
	)
	if first.Valid && dense(first.Int64, last.Int64, n) {
		query, args = "SELECT "+cols+" FROM line_items FORCE INDEX (PRIMARY) WHERE account_id = ? AND id >= ? AND id <= ?",
			[]any{accountID, first.Int64, last.Int64}
	} else if query, args, err = sq.Select(cols).From("line_items FORCE INDEX (line_items_purchase)").
		Where(in).OrderBy("purchase_id", "id").ToSql(); err != nil {
		return err
	}
	// The batch's line items are read into one slice, with the index of their purchase
	// in owner, then handed out to the purchases in place.
	var (
		lis   = make([]shop.LineItem, 0, n)
		owner = make([]int32, 0, n)
		// names holds each product name once: a batch names few products many times.
		names    = map[string]string{}
		expiries []shop.Time

		li                 shop.LineItem
		name, price, total sql.RawBytes
		expires            sql.NullTime
		money              []byte
	)
	dest := []any{&li.PurchaseID, &li.Quantity, &name}
	if lines != shop.ExportProducts {
		dest = []any{&li.ID, &li.PurchaseID, &li.ProductID, &price, &li.Quantity, &total,
			&name, &li.DownloadLimit, &li.DownloadCount, &expires}
	}
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		li = shop.LineItem{}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		i, ok := at[li.PurchaseID]
		if !ok || i < 0 {
			return nil
		}
		// The map lookup of string(name) does not copy the bytes.
		if s, ok := names[string(name)]; ok {
			li.ProductName = s
		} else {
			li.ProductName = string(name)
			names[li.ProductName] = li.ProductName
		}
		if lines != shop.ExportProducts {
			money = append(append(money[:0], price...), total...)
			both := string(money)
			d := currencyDigits(ps[i].Currency)
			li.Price, li.Total = formatMoney(both[:len(price)], d), formatMoney(both[len(price):], d)
			if expires.Valid {
				if expiries == nil {
					expiries = make([]shop.Time, 0, n)
				}
				expiries = append(expiries, shop.NewTime(expires.Time))
				li.ExpiresAt = &expiries[len(expiries)-1]
			}
		}
		lis = append(lis, li)
		owner = append(owner, i)
		return nil
	})
	if err != nil || len(lis) == 0 {
		return err
	}
	// A stable counting sort by purchase keeps each purchase's line items in the order
	// read.
	end := make([]int, len(ps)+1)
	for _, i := range owner {
		end[i+1]++
	}
	for i := range ps {
		end[i+1] += end[i]
	}
	next := append([]int(nil), end[:len(ps)]...)
	sorted := make([]shop.LineItem, len(lis))
	for k, i := range owner {
		sorted[next[i]] = lis[k]
		next[i]++
	}
	for i := range ps {
		if end[i] < end[i+1] {
			ps[i].LineItems = sorted[end[i]:end[i+1]:end[i+1]]
		}
	}
	return nil
}
