package mysql

import (
	"context"
	"database/sql"
	"strings"
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
// in the same order. The first, small batch is read whole in one statement
// (exportFirstBatch); each later batch of ids is read, while the walk goes on, by
// exportRows: the purchases' rows and their line items. At most exportReaders+2 batches are held
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
	batch := f.PerPage
	if batch <= 0 {
		batch = shop.ExportBatch
	}
	f.Page, f.After, f.IncludeCount, f.PerPage = 0, nil, false, 0
	f, err := lookUpNamed(ctx, q, f)
	if err != nil {
		return err
	}
	path, err := planPurchases(ctx, q, f)
	if err != nil {
		return err
	}
	// The first batch is small, read in one statement, and written alone: the file's
	// first bytes wait for nothing else.
	ps, last, more, err := exportFirstBatch(ctx, q, f, path, min(batch, shop.ExportFirstBatch), lines)
	if err == nil && len(ps) > 0 {
		err = fn(ps)
	}
	if err != nil || !more {
		return err
	}
	f.After = &last

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// pending holds the batches being read, in list order; each is filled by a reader
	// of its own. Its capacity bounds how many are read at once.
	pending := make(chan chan exportBatch, exportReaders)
	var readers sync.WaitGroup
	walked := make(chan error, 1)
	go func() {
		defer close(pending)
		walked <- walkExportIDs(ctx, q, f, path, batch, func(ids []int64) error {
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
	}
	readers.Wait()
	if werr := <-walked; err == nil {
		err = werr
	}
	return err
}

// walkExportIDs walks the path in list order from f.After and hands the ids of each
// batch of n to emit.
func walkExportIDs(ctx context.Context, q queryer, f shop.PurchaseFilter, path plan, n int, emit func([]int64) error) error {
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
	}
}

// exportFirstBatch reads the first n purchases of the path (f.After nil), their
// fields and their line items in one statement: the list's own statement for n+1 ids
// in a derived table, each joined with its purchase by primary key and with its line
// items by line_items_purchase, in list order and each purchase's recorded order. It
// returns the purchases, the cursor after the last, and whether there are more.
func exportFirstBatch(ctx context.Context, q queryer, f shop.PurchaseFilter, path plan, n int, lines shop.ExportLines) (ps []*shop.Purchase, last shop.Cursor, more bool, err error) {
	query, args, err := exportFirstQuery(f, path, n, lines)
	if err != nil {
		return nil, last, false, err
	}
	b := newExportReader(f.AccountID, n, lines)
	var (
		c       shop.Cursor
		lineID  sql.NullInt64
		seen    int
		current = int64(-1)
	)
	dest := append(append([]any{&c.ID, &c.CreatedAt}, b.purchaseDest()...), &lineID)
	dest = append(dest, b.lineDest()...)
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		b.li = shop.LineItem{}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if c.ID != current {
			current = c.ID
			if seen++; seen > n {
				more = true
			} else {
				last = c
				b.at[c.ID] = -1
				b.addPurchase()
			}
		}
		if seen <= n && lineID.Valid {
			b.addLine()
		}
		return nil
	})
	if err != nil {
		return nil, last, false, err
	}
	b.handOut()
	ps = make([]*shop.Purchase, len(b.ps))
	for i := range b.ps {
		ps[i] = &b.ps[i]
	}
	return ps, last, more, nil
}

// exportFirstQuery builds the statement of exportFirstBatch.
func exportFirstQuery(f shop.PurchaseFilter, path plan, n int, lines shop.ExportLines) (string, []any, error) {
	ids, args, err := purchaseListQuery(f, n, path)
	if err != nil {
		return "", nil, err
	}
	cols := append(append([]string{"k.id", "k.created_at"}, exportColumns...), "li.id")
	cols = append(cols, exportJoinedLineItemColumns[lines]...)
	query := "SELECT " + strings.Join(cols, ", ") + " FROM (" + ids + ") k" +
		" STRAIGHT_JOIN purchases p FORCE INDEX (PRIMARY) ON p.id = k.id" +
		" LEFT JOIN line_items li FORCE INDEX (line_items_purchase) ON li.purchase_id = p.id AND li.account_id = p.account_id" +
		" WHERE p.account_id = ? ORDER BY " + orderBy("k.created_at", "k.id", f.Desc) + ", li.id"
	return query, append(args, f.AccountID), nil
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

// exportJoinedLineItemColumns are exportLineItemColumns of a line item joined to its
// purchase (exportFirstBatch): a purchase without line items has NULL in them, read as
// zero and dropped.
var exportJoinedLineItemColumns = map[shop.ExportLines][]string{
	shop.ExportLineItems: {"COALESCE(li.id, 0)", "COALESCE(li.purchase_id, 0)", "COALESCE(li.product_id, 0)", "li.price",
		"COALESCE(li.quantity, 0)", "li.total", "li.product_name", "COALESCE(li.download_limit, 0)", "COALESCE(li.download_count, 0)", "li.expires_at"},
	shop.ExportProducts: {"COALESCE(li.purchase_id, 0)", "COALESCE(li.quantity, 0)", "li.product_name"},
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
	b := newExportReader(accountID, len(ids), lines)
	lo, hi := ids[0], ids[0]
	for _, id := range ids {
		b.at[id] = -1
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
	dest := b.purchaseDest()
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		b.addPurchase()
		return nil
	})
	if err != nil || len(b.ps) == 0 {
		return nil, err
	}
	if err := exportLineItems(ctx, q, b); err != nil {
		return nil, err
	}
	b.handOut()
	out := make([]*shop.Purchase, 0, len(b.ps))
	for _, id := range ids {
		if i := b.at[id]; i >= 0 {
			out = append(out, &b.ps[i])
		}
	}
	return out, nil
}

// exportReader reads the rows of a batch: its purchases and what they point to are
// allocated once for the batch, each row's text once for the row, each product name
// once for the batch.
type exportReader struct {
	accountID int64
	lines     shop.ExportLines
	// at holds, for each id of the batch, its purchase's index in ps once read, -1
	// before; rows of other ids are dropped.
	at        map[int64]int32
	ps        []shop.Purchase
	customers []shop.Customer
	nums      []int64
	texts     []string

	// The purchase row being read. raw holds status, currency, subtotal, discount,
	// tax, shipping, total, buyer_email, buyer_firstname, buyer_lastname: the driver's
	// bytes, valid until the next row.
	id, storefrontID                 int64
	created                          time.Time
	customerID, subscriberID, toShip sql.NullInt64
	raw                              [10]sql.RawBytes
	text                             []byte

	// The batch's line items, in the order read, with the index of their purchase in
	// owner; handOut gives them to the purchases.
	lis      []shop.LineItem
	owner    []int32
	names    map[string]string
	expiries []shop.Time

	// The line item row being read.
	li                 shop.LineItem
	name, price, total sql.RawBytes
	expires            sql.NullTime
	money              []byte
}

// exportLinesPerPurchase is about how many line items a purchase has, to size a
// batch's slice of them before they are counted.
const exportLinesPerPurchase = 3

func newExportReader(accountID int64, n int, lines shop.ExportLines) *exportReader {
	return &exportReader{accountID: accountID, lines: lines, at: make(map[int64]int32, n),
		ps: make([]shop.Purchase, 0, n), customers: make([]shop.Customer, 0, n),
		nums: make([]int64, 0, 2*n), texts: make([]string, 0, 3*n),
		lis: make([]shop.LineItem, 0, exportLinesPerPurchase*n), owner: make([]int32, 0, exportLinesPerPurchase*n),
		names: map[string]string{}}
}

// purchaseDest is where a row of exportColumns is scanned.
func (b *exportReader) purchaseDest() []any {
	r := &b.raw
	return []any{&b.id, &b.created, &r[0], &b.storefrontID, &r[1], &r[2], &r[3], &r[4], &r[5], &r[6],
		&r[7], &r[8], &r[9], &b.customerID, &b.subscriberID, &b.toShip}
}

// addPurchase adds the purchase row just scanned, if the batch wants it and does not
// hold it yet.
func (b *exportReader) addPurchase() {
	if i, want := b.at[b.id]; !want || i >= 0 {
		return
	}
	b.text = b.text[:0]
	for _, r := range b.raw {
		b.text = append(b.text, r...)
	}
	row := string(b.text)
	var cells [len(b.raw)]string
	for i, r := range b.raw {
		cells[i], row = row[:len(r)], row[len(r):]
	}
	b.at[b.id] = int32(len(b.ps))
	b.ps = append(b.ps, shop.Purchase{ID: b.id, AccountID: b.accountID, Timestamps: shop.Timestamps{CreatedAt: shop.NewTime(b.created)},
		Status: shop.PurchaseStatus(cells[0]), StorefrontID: b.storefrontID, Currency: cells[1], LineItems: []shop.LineItem{}})
	p := &b.ps[len(b.ps)-1]
	d := currencyDigits(p.Currency)
	p.Subtotal, p.Discount, p.Tax = formatMoney(cells[2], d), formatMoney(cells[3], d), formatMoney(cells[4], d)
	p.Shipping, p.Total = formatMoney(cells[5], d), formatMoney(cells[6], d)
	for i, f := range []**string{&p.BuyerEmail, &p.BuyerFirstname, &p.BuyerLastname} {
		if b.raw[7+i] != nil { // else NULL
			b.texts = append(b.texts, cells[7+i])
			*f = &b.texts[len(b.texts)-1]
		}
	}
	if b.customerID.Valid {
		b.customers = append(b.customers, shop.Customer{ID: b.customerID.Int64})
		p.Customer = &b.customers[len(b.customers)-1]
	}
	for _, f := range []struct {
		n   sql.NullInt64
		dst **int64
	}{{b.subscriberID, &p.SubscriberID}, {b.toShip, &p.TangiblesToShip}} {
		if f.n.Valid {
			b.nums = append(b.nums, f.n.Int64)
			*f.dst = &b.nums[len(b.nums)-1]
		}
	}
}

// lineDest is where a row of exportLineItemColumns is scanned; b.li is to be cleared
// before each row.
func (b *exportReader) lineDest() []any {
	li := &b.li
	if b.lines == shop.ExportProducts {
		return []any{&li.PurchaseID, &li.Quantity, &b.name}
	}
	return []any{&li.ID, &li.PurchaseID, &li.ProductID, &b.price, &li.Quantity, &b.total,
		&b.name, &li.DownloadLimit, &li.DownloadCount, &b.expires}
}

// addLine adds the line item row just scanned, if its purchase is one of the batch's.
func (b *exportReader) addLine() {
	li := b.li
	i, ok := b.at[li.PurchaseID]
	if !ok || i < 0 {
		return
	}
	// The map lookup of string(name) does not copy the bytes.
	if s, ok := b.names[string(b.name)]; ok {
		li.ProductName = s
	} else {
		li.ProductName = string(b.name)
		b.names[li.ProductName] = li.ProductName
	}
	if b.lines != shop.ExportProducts {
		b.money = append(append(b.money[:0], b.price...), b.total...)
		both := string(b.money)
		d := currencyDigits(b.ps[i].Currency)
		li.Price, li.Total = formatMoney(both[:len(b.price)], d), formatMoney(both[len(b.price):], d)
		if b.expires.Valid {
			if b.expiries == nil {
				b.expiries = make([]shop.Time, 0, cap(b.lis))
			}
			b.expiries = append(b.expiries, shop.NewTime(b.expires.Time))
			li.ExpiresAt = &b.expiries[len(b.expiries)-1]
		}
	}
	b.lis = append(b.lis, li)
	b.owner = append(b.owner, i)
}

// handOut gives the line items read to their purchases: a stable counting sort by
// purchase keeps each purchase's line items in the order read.
func (b *exportReader) handOut() {
	if len(b.lis) == 0 {
		return
	}
	end := make([]int, len(b.ps)+1)
	for _, i := range b.owner {
		end[i+1]++
	}
	for i := range b.ps {
		end[i+1] += end[i]
	}
	next := append([]int(nil), end[:len(b.ps)]...)
	sorted := make([]shop.LineItem, len(b.lis))
	for k, i := range b.owner {
		sorted[next[i]] = b.lis[k]
		next[i]++
	}
	for i := range b.ps {
		if end[i] < end[i+1] {
			b.ps[i].LineItems = sorted[end[i]:end[i+1]:end[i+1]]
		}
	}
}

// exportLineItems reads the line items of the batch's purchases, in recorded order,
// with the fields that b.lines names.
func exportLineItems(ctx context.Context, q queryer, b *exportReader) error {
	found := make([]int64, len(b.ps))
	for i := range b.ps {
		found[i] = b.ps[i].ID
	}
	in := sq.And{sq.Eq{"account_id": b.accountID}, sq.Eq{"purchase_id": found}}
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
	cols := exportLineItemColumns[b.lines]
	if dense(first.Int64, last.Int64, n) {
		query, args = "SELECT "+cols+" FROM line_items FORCE INDEX (PRIMARY) WHERE account_id = ? AND id >= ? AND id <= ?",
			[]any{b.accountID, first.Int64, last.Int64}
	} else if query, args, err = sq.Select(cols).From("line_items FORCE INDEX (line_items_purchase)").
		Where(in).OrderBy("purchase_id", "id").ToSql(); err != nil {
		return err
	}
	dest := b.lineDest()
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		b.li = shop.LineItem{}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		b.addLine()
		return nil
	})
}
