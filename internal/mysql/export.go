package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"slices"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// ExportPurchases implements shop.PurchaseService. It walks the filter's access path
// as the API's pages do (planPurchases once, then purchaseListQuery with a keyset
// cursor), so that an export holds exactly the purchases the JSON list pages through,
// in the same order; each batch is one read of the ids from the plan's index and one
// primary-key read of their rows with their line items. At most three batches are
// held at a time, however many purchases match.
func (db *DB) ExportPurchases(ctx context.Context, f shop.PurchaseFilter, fn func([]*shop.Purchase) error) error {
	return exportPurchases(ctx, db.DB, f, fn)
}

func exportPurchases(ctx context.Context, q queryer, f shop.PurchaseFilter, fn func([]*shop.Purchase) error) error {
	// The next batch is read while fn writes this one: the database and the client
	// wait on each other less. At most three batches are held: one read, one waiting,
	// one written.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []*shop.Purchase, 1)
	done := make(chan error, 1)
	go func() {
		defer close(batches)
		done <- readExportBatches(ctx, q, f, func(ps []*shop.Purchase) error {
			select {
			case batches <- ps:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	for ps := range batches {
		err := ctx.Err()
		if err == nil {
			err = fn(ps)
		}
		if err != nil {
			cancel()
			for range batches {
			}
			<-done
			return err
		}
	}
	return <-done
}

// readExportBatches reads the batches of an export in list order and hands each to
// emit.
func readExportBatches(ctx context.Context, q queryer, f shop.PurchaseFilter, emit func([]*shop.Purchase) error) error {
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
		ps, err := exportRows(ctx, q, f.AccountID, ids)
		if err != nil {
			return err
		}
		if len(ps) > 0 {
			if err := emit(ps); err != nil {
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

// exportColumns are the purchase and line-item columns of the export, in the order
// exportRows scans them.
var exportColumns = []string{
	"p.id", "p.created_at", "p.status", "p.storefront_id", "p.currency",
	"p.subtotal", "p.discount", "p.tax", "p.shipping", "p.total",
	"p.buyer_email", "p.buyer_firstname", "p.buyer_lastname", "p.customer_id", "p.subscriber_id", "p.tangibles_to_ship",
	"li.id", "li.product_id", "li.price", "li.quantity", "li.total", "li.product_name",
	"li.download_limit", "li.download_count", "li.expires_at",
}

// exportRows reads the export's fields of the account's purchases with the given ids,
// with their line items in recorded order, and returns them in the order of ids. Line
// items carry no account of their own: they are reached only through the account's
// purchases.
func exportRows(ctx context.Context, q queryer, accountID int64, ids []int64) ([]*shop.Purchase, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// PRIMARY is forced: left to itself the optimiser estimates the id list's ranges on
	// every index that holds id, which cost several times the read itself.
	query, args, err := sq.Select(exportColumns...).From("purchases p FORCE INDEX (PRIMARY)").
		LeftJoin("line_items li ON li.purchase_id = p.id").
		Where(sq.And{sq.Eq{"p.account_id": accountID}, sq.Eq{"p.id": ids}}).ToSql()
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*shop.Purchase, len(ids))
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var (
			p                                    shop.Purchase
			subtotal, discount, tax, ship, total string
			customerID                           sql.NullInt64
			liID, liProduct, liQty               sql.NullInt64
			liLimit, liCount                     sql.NullInt64
			liPrice, liTotal, liName             sql.NullString
			liExpires                            *shop.Time
		)
		if err := rows.Scan(&p.ID, &p.CreatedAt, &p.Status, &p.StorefrontID, &p.Currency,
			&subtotal, &discount, &tax, &ship, &total,
			&p.BuyerEmail, &p.BuyerFirstname, &p.BuyerLastname, &customerID, &p.SubscriberID, &p.TangiblesToShip,
			&liID, &liProduct, &liPrice, &liQty, &liTotal, &liName, &liLimit, &liCount, &liExpires); err != nil {
			return err
		}
		d := currencyDigits(p.Currency)
		cur, ok := byID[p.ID]
		if !ok {
			cur = &p
			cur.AccountID = accountID
			cur.Subtotal, cur.Discount, cur.Tax = formatMoney(subtotal, d), formatMoney(discount, d), formatMoney(tax, d)
			cur.Shipping, cur.Total = formatMoney(ship, d), formatMoney(total, d)
			if customerID.Valid {
				cur.Customer = &shop.Customer{ID: customerID.Int64}
			}
			cur.LineItems = []shop.LineItem{}
			byID[p.ID] = cur
		}
		if liID.Valid {
			cur.LineItems = append(cur.LineItems, shop.LineItem{
				ID: liID.Int64, PurchaseID: cur.ID, ProductID: liProduct.Int64,
				Price: formatMoney(liPrice.String, d), Quantity: liQty.Int64, Total: formatMoney(liTotal.String, d),
				ProductName: liName.String, DownloadLimit: liLimit.Int64, DownloadCount: liCount.Int64, ExpiresAt: liExpires,
			})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*shop.Purchase, 0, len(ids))
	for _, id := range ids {
		if p, ok := byID[id]; ok {
			// Recorded order: line items by id. Sorting here is cheaper than asking
			// the database to sort the batch.
			slices.SortFunc(p.LineItems, func(a, b shop.LineItem) int { return cmp.Compare(a.ID, b.ID) })
			out = append(out, p)
		}
	}
	return slices.Clip(out), nil
}
