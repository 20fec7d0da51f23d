package mysql

import (
	"context"
	"database/sql"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// ExportPurchases implements shop.PurchaseService. It walks the filter's access path
// as the API's pages do (planPurchases once, then purchaseListQuery with a keyset
// cursor), so that an export holds exactly the purchases the JSON list pages through,
// in the same order; each batch is one read of the ids from the plan's index, one
// primary-key read of their rows and one read of their line items. At most three
// batches are held at a time, however many purchases match.
func (s *PurchaseService) ExportPurchases(ctx context.Context, f shop.PurchaseFilter, fn func([]*shop.Purchase) error) error {
	return exportPurchases(ctx, s.db.DB, f, fn)
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

// exportColumns are the purchase columns of the export, in the order exportRows scans
// them.
var exportColumns = []string{
	"p.id", "p.created_at", "p.status", "p.storefront_id", "p.currency",
	"p.subtotal", "p.discount", "p.tax", "p.shipping", "p.total",
	"p.buyer_email", "p.buyer_firstname", "p.buyer_lastname", "p.customer_id", "p.subscriber_id", "p.tangibles_to_ship",
}

// exportRows reads the export's fields of the account's purchases with the given ids,
// and their line items in recorded order, and returns them in the order of ids: the
// rows by primary key, then the line items by the statement of the one read path
// (collectionQueries), both on the account. Two statements are several times quicker
// than one joining the two tables by the id list.
func exportRows(ctx context.Context, q queryer, accountID int64, ids []int64) ([]*shop.Purchase, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// PRIMARY is forced: left to itself the optimiser estimates the id list's ranges on
	// every index that holds id, which costs several times the read itself.
	query, args, err := sq.Select(exportColumns...).From("purchases p FORCE INDEX (PRIMARY)").
		Where(sq.And{sq.Eq{"p.account_id": accountID}, sq.Eq{"p.id": ids}}).ToSql()
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*shop.Purchase, len(ids))
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
	items := collectionQueries([]int64{accountID}, found)[0]
	err = eachRow(ctx, q, items.Query, items.Args, func(rows *sql.Rows) error {
		var li shop.LineItem
		var price, subtotal, tax, discount, total string
		if err := rows.Scan(&li.ID, &li.PurchaseID, &li.ProductID, &price, &li.Quantity, &subtotal, &tax, &discount, &total,
			&li.ProductName, &li.DownloadLimit, &li.DownloadCount, &li.ExpiresAt, &li.HasAllKeys); err != nil {
			return err
		}
		p := byID[li.PurchaseID]
		if p == nil {
			return nil
		}
		d := currencyDigits(p.Currency)
		li.Price, li.Total = formatMoney(price, d), formatMoney(total, d)
		p.LineItems = append(p.LineItems, li)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*shop.Purchase, 0, len(ids))
	for _, id := range ids {
		if p, ok := byID[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}
