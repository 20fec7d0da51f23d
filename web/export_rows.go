package web

import (
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
)

// The rows of the exports: their columns, and the batches of purchases or
// subscribers read and written as CSV records.

// Header rows of the exports, in column order.
var (
	purchaseCSVHeader = []string{"id", "created_at", "created_at_unix", "status", "storefront_id", "storefront", "currency",
		"subtotal", "discount", "tax", "shipping", "total", "buyer_email", "buyer_firstname", "buyer_lastname",
		"customer_id", "subscriber_id", "products", "quantity", "tangibles_to_ship"}
	lineItemCSVHeader = append(append(append([]string{}, purchaseCSVHeader[:17]...), purchaseCSVHeader[19]),
		"line_item_id", "product_id", "product_name", "price", "line_quantity", "line_total", "download_count", "download_limit", "expires_at")
	subscriberCSVHeader = []string{"id", "username", "created_at", "subscription_status", "price", "period", "unit",
		"next_payment_at", "ended_at", "receiving_service"}
	// allSubscribersCSVHeader is the file of every storefront's subscribers: a
	// storefront's columns, then the storefront's and the currency of its prices.
	allSubscribersCSVHeader = append(append([]string{}, subscriberCSVHeader...), "storefront_id", "storefront", "currency")
)

// csvTime is the layout of every time cell: ISO 8601 with the offset of the account's
// zone (+00:00 rather than Z in UTC, so every cell has one shape).
const csvTime = "2006-01-02T15:04:05-07:00"

// streamPurchases writes the purchases of f as CSV, one row per purchase or per line
// item.
func (s *Server) streamPurchases(c *gin.Context, job *exportJob, f shop.PurchaseFilter, rows string) error {
	ctx := c.Request.Context()
	// The storefronts' names are read while the first batch is: the file's first bytes
	// wait for the longer of the two, not for both.
	read := make(chan error, 1)
	var names map[int64]string
	go func() {
		sfs, err := s.Accounts.FindStorefronts(ctx, job.accountID)
		names = make(map[int64]string, len(sfs))
		for _, sf := range sfs {
			names[sf.ID] = sf.Name
		}
		read <- err
	}()
	namesRead := sync.OnceValue(func() error { return <-read })
	job.header, job.what = purchaseCSVHeader, filter.RowsPurchases
	if rows == filter.RowsLineItems {
		job.header, job.what = lineItemCSVHeader, filter.RowsLineItems
	}
	f.PerPage = s.ExportBatch
	lines := shop.ExportProducts
	if rows == filter.RowsLineItems {
		lines = shop.ExportLineItems
	}
	st := newCSVStream(c, job)
	err := s.Purchases.ExportPurchases(ctx, f, lines, func(ps []*shop.Purchase) error {
		if err := namesRead(); err != nil {
			return err
		}
		if err := st.start(); err != nil {
			return err
		}
		for _, p := range ps {
			if err := writePurchase(st, p, names[p.StorefrontID], job.loc, rows == filter.RowsLineItems); err != nil {
				return err
			}
		}
		return st.flush()
	})
	// An export without rows still answers an error of the names' read, as it did when
	// they were read first.
	if nerr := namesRead(); err == nil {
		err = nerr
	}
	return s.finishExport(c, st, err)
}

// writePurchase writes one purchase's row, or its line items' rows.
func writePurchase(st *csvStream, p *shop.Purchase, storefront string, loc *time.Location, lineItems bool) error {
	r := &st.rec
	// head writes the cells before the products (one row per purchase) or the line
	// item (one per line item).
	head := func() {
		r.int(p.ID)
		r.time(p.CreatedAt.Time, loc)
		r.int(p.CreatedAt.Unix())
		r.text(string(p.Status))
		r.int(p.StorefrontID)
		r.safeText(storefront)
		r.text(p.Currency)
		r.text(string(p.Subtotal))
		r.text(string(p.Discount))
		r.text(string(p.Tax))
		r.text(string(p.Shipping))
		r.text(string(p.Total))
		r.safeText(deref(p.BuyerEmail))
		r.safeText(deref(p.BuyerFirstname))
		r.safeText(deref(p.BuyerLastname))
		if p.Customer != nil {
			r.int(p.Customer.ID)
		} else {
			r.empty(1)
		}
		r.optInt(p.SubscriberID)
	}
	if !lineItems {
		head()
		// The products, "; " between them, are one cell.
		names := st.names[:0]
		var qty int64
		for i, li := range p.LineItems {
			if i > 0 {
				names = append(names, "; "...)
			}
			names = append(names, li.ProductName...)
			qty += li.Quantity
		}
		st.names = names
		r.safeBytes(names)
		r.int(qty)
		r.optInt(p.TangiblesToShip)
		r.end()
		return st.ended()
	}
	if len(p.LineItems) == 0 {
		head()
		r.optInt(p.TangiblesToShip)
		r.empty(9)
		r.end()
		return st.ended()
	}
	for _, li := range p.LineItems {
		head()
		r.optInt(p.TangiblesToShip)
		r.int(li.ID)
		r.int(li.ProductID)
		r.safeText(li.ProductName)
		r.text(string(li.Price))
		r.int(li.Quantity)
		r.text(string(li.Total))
		r.int(li.DownloadCount)
		r.int(li.DownloadLimit)
		if li.ExpiresAt != nil {
			r.time(li.ExpiresAt.Time, loc)
		} else {
			r.empty(1)
		}
		r.end()
		if err := st.ended(); err != nil {
			return err
		}
	}
	return nil
}

// streamSubscribers writes the subscribers of f as CSV, paging through
// FindSubscribers as a client of the JSON list would.
func (s *Server) streamSubscribers(c *gin.Context, job *exportJob, f shop.SubscriberFilter) error {
	ctx := c.Request.Context()
	job.header, job.what = subscriberCSVHeader, "subscribers"
	if job.storefronts != nil {
		job.header = allSubscribersCSVHeader
	}
	batch := s.ExportBatch
	if batch <= 0 {
		batch = shop.ExportBatch
	}
	f.Page, f.After, f.IncludeCount = 0, nil, false
	f.PerPage = min(batch, shop.ExportFirstBatch)
	st := newCSVStream(c, job)
	var err error
	for {
		// The list's pages hold at most MaxPerPage.
		f.PerPage = min(f.PerPage, shop.MaxPerPage)
		var page *shop.SubscriberPage
		if page, err = s.Subscribers.FindSubscribers(ctx, f); err != nil {
			break
		}
		if err = st.start(); err != nil {
			break
		}
		for _, sub := range page.Subscribers {
			if err = writeSubscriber(st, sub, job); err != nil {
				break
			}
		}
		if err == nil {
			err = st.flush()
		}
		if err != nil || page.Next == nil {
			break
		}
		if err = ctx.Err(); err != nil {
			break
		}
		// The next batch chooses its way as this one did.
		f.After, f.PerPage, f.Looked = page.Next, batch, page.Looked
	}
	return s.finishExport(c, st, err)
}

func writeSubscriber(st *csvStream, sub *shop.Subscriber, job *exportJob) error {
	r, loc := &st.rec, job.loc
	r.int(sub.ID)
	r.safeText(sub.Username)
	r.time(sub.CreatedAt.Time, loc)
	if ss := sub.Subscription; ss != nil {
		r.text(string(ss.Status))
		r.text(string(ss.Price))
		r.int(ss.Period)
		r.text(ss.Unit)
		r.text(optTime(ss.NextPaymentAt, loc))
		r.text(optTime(ss.EndedAt, loc))
	} else {
		r.empty(6)
	}
	r.text(strconv.FormatBool(shop.Entitle(sub.Subscription, job.now).ReceivingService))
	if job.storefronts != nil {
		sf := job.storefronts[sub.StorefrontID]
		r.int(sub.StorefrontID)
		if sf == nil {
			r.empty(2)
		} else {
			r.safeText(sf.Name)
			r.text(storefrontCurrency(sf))
		}
	}
	r.end()
	return st.ended()
}

func optTime(t *shop.Time, loc *time.Location) string {
	if t == nil {
		return ""
	}
	return t.In(loc).Format(csvTime)
}
