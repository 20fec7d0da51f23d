package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// The CSV exports (docs/API.md#get-apiv2purchasescsv): every purchase or subscriber a
// list's filters select, streamed a batch at a time, for spreadsheets and accounting
// tools. The API and the dashboard answer the same file for the same filters.

// Header rows of the exports, in column order.
var (
	purchaseCSVHeader = []string{"id", "created_at", "created_at_unix", "status", "storefront_id", "storefront", "currency",
		"subtotal", "discount", "tax", "shipping", "total", "buyer_email", "buyer_firstname", "buyer_lastname",
		"customer_id", "subscriber_id", "products", "quantity", "tangibles_to_ship"}
	lineItemCSVHeader = append(append(append([]string{}, purchaseCSVHeader[:17]...), purchaseCSVHeader[19]),
		"line_item_id", "product_id", "product_name", "price", "line_quantity", "line_total", "download_count", "download_limit", "expires_at")
	subscriberCSVHeader = []string{"id", "username", "created_at", "subscription_status", "price", "period", "unit",
		"next_payment_at", "ended_at", "receiving_service"}
)

// csvTime is the layout of every time cell: ISO 8601 with the offset of the account's
// zone (+00:00 rather than Z in UTC, so every cell has one shape).
const csvTime = "2006-01-02T15:04:05-07:00"

// exportJob is one export: whose, what, and where its rows go.
type exportJob struct {
	accountID int64
	loc       *time.Location
	now       time.Time
	actor     string
	// what names the file's rows in the activity: purchases, line_items or subscribers.
	what string
	// filters is the query the rows were selected by, as sent.
	filters      string
	storefrontID int64
	filename     string
	header       []string
}

// csvStream writes an export: nothing until its first rows (so that an error found
// before them is still an ordinary answer), then the headers, the header row and each
// batch, flushed as it is written.
type csvStream struct {
	c       *gin.Context
	rc      *http.ResponseController
	job     *exportJob
	rec     csvRecords
	started bool
	rows    int64
	// names is the products cell being built.
	names []byte
}

// csvFlushSize is how many bytes of records are gathered before they are written to
// the connection's buffer.
const csvFlushSize = 32 << 10

// exportWriteWindow is how long a batch of an export may take to reach the client: an
// export lasts as long as its rows take, so the server's whole-request timeouts give
// way to this one, renewed at every batch. A client that reads nothing for this long
// is dropped.
const exportWriteWindow = time.Minute

func newCSVStream(c *gin.Context, job *exportJob) *csvStream {
	st := &csvStream{c: c, rc: http.NewResponseController(c.Writer), job: job}
	// A GET has no body left to read: the server's read timeout, counted from the
	// request's start, would otherwise end a long export (the connection's pending
	// read fails and cancels the request). Servers without deadlines (tests) say so.
	_ = st.rc.SetReadDeadline(time.Time{})
	_ = st.rc.SetWriteDeadline(time.Now().Add(exportWriteWindow))
	return st
}

func (st *csvStream) start() error {
	if st.started {
		return nil
	}
	st.started = true
	h := st.c.Writer.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+st.job.filename+`"`)
	h.Set("Cache-Control", "no-store")
	st.c.Status(http.StatusOK)
	st.rec.b = make([]byte, 0, csvFlushSize+4<<10)
	st.rec.record(st.job.header)
	return nil
}

// ended counts the record just ended and hands the records gathered so far on to the
// connection once they are csvFlushSize bytes.
func (st *csvStream) ended() error {
	st.rows++
	if len(st.rec.b) < csvFlushSize {
		return nil
	}
	return st.write()
}

// write hands the records gathered so far on to the connection.
func (st *csvStream) write() error {
	if len(st.rec.b) == 0 {
		return nil
	}
	_, err := st.c.Writer.Write(st.rec.b)
	st.rec.b = st.rec.b[:0]
	return err
}

// flush sends what was written so far.
func (st *csvStream) flush() error {
	if err := st.write(); err != nil {
		return err
	}
	st.c.Writer.Flush()
	_ = st.rc.SetWriteDeadline(time.Now().Add(exportWriteWindow))
	return nil
}

// finish ends an export that ran to its end or failed. An error before the first byte
// is returned for the adapter to answer as usual; after it, the connection is aborted
// without the final chunk, so that the client sees a failed download rather than a
// file that looks complete. Either way the export is recorded in the account's
// activity.
func (s *Server) finishExport(c *gin.Context, st *csvStream, err error) error {
	if err == nil && !st.started {
		err = st.start()
	}
	if err == nil {
		err = st.flush()
	}
	s.recordExport(c, st, err == nil)
	if err == nil {
		return nil
	}
	if !st.started {
		return err
	}
	if c.Request.Context().Err() != nil {
		s.Logger.Info("export stopped: the client went away", "request_id", c.GetString(ctxRequestID), "path", c.Request.URL.Path, "rows", st.rows)
	} else {
		s.Logger.Error("export failed after its first bytes", "request_id", c.GetString(ctxRequestID), "path", c.Request.URL.Path, "rows", st.rows, "err", err)
	}
	panic(http.ErrAbortHandler)
}

// recordExport adds the export to the account's activity: who, which filters, how many
// rows, and whether the file was complete.
func (s *Server) recordExport(c *gin.Context, st *csvStream, complete bool) {
	if s.Activity == nil {
		return
	}
	j := st.job
	b, _ := json.Marshal(exportActivity{What: j.what, Filters: j.filters, Rows: st.rows, Complete: complete, StorefrontID: j.storefrontID})
	// The entry is written even when the client has gone away.
	ctx := context.WithoutCancel(c.Request.Context())
	a := shop.Activity{Actor: j.actor, Action: shop.ActionExport, Details: string(b), CreatedAt: shop.NewTime(s.now())}
	if err := s.Activity.RecordAccountActivity(ctx, j.accountID, a); err != nil {
		s.Logger.Error("record export", "request_id", c.GetString(ctxRequestID), "err", err)
	}
}

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
			if err = writeSubscriber(st, sub, job.loc, job.now); err != nil {
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
		f.After, f.PerPage = page.Next, batch
	}
	return s.finishExport(c, st, err)
}

func writeSubscriber(st *csvStream, sub *shop.Subscriber, loc *time.Location, now time.Time) error {
	r := &st.rec
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
	r.text(strconv.FormatBool(shop.Entitle(sub.Subscription, now).ReceivingService))
	r.end()
	return st.ended()
}

func optTime(t *shop.Time, loc *time.Location) string {
	if t == nil {
		return ""
	}
	return t.In(loc).Format(csvTime)
}

// exportName is the file name of an export made now in the account's zone.
func exportName(what string, now time.Time, loc *time.Location) string {
	return what + "-" + now.In(loc).Format("2006-01-02") + ".csv"
}

// keyActor names an API key in activity records.
func keyActor(key *shop.APIKey) string {
	actor := "API key " + strconv.FormatInt(key.ID, 10)
	if key.Name != "" {
		actor += " (" + key.Name + ")"
	}
	return actor
}

// exportPurchasesAPI answers GET /api/v2/purchases.csv.
func (s *Server) exportPurchasesAPI(c *gin.Context) error {
	key := apiKey(c)
	loc, now := s.location(key.Timezone), s.now()
	q := c.Request.URL.Query()
	f, rows, sr, err := filter.PurchaseExportSearch(q, key.AccountID, now, loc)
	if err != nil {
		return err
	}
	searchHeaders(c, sr)
	job := &exportJob{accountID: key.AccountID, loc: loc, now: now, actor: keyActor(key), filters: q.Encode(),
		filename: exportName("purchases", now, loc)}
	return s.streamPurchases(c, job, f, rows)
}

// exportSubscribersAPI answers GET /api/v2/storefronts/:storefront_id/subscribers.csv.
func (s *Server) exportSubscribersAPI(c *gin.Context) error {
	key := apiKey(c)
	sf, err := pathID(c, "storefront_id")
	if err != nil {
		return err
	}
	q := c.Request.URL.Query()
	loc, now := s.location(key.Timezone), s.now()
	f, sr, err := filter.SubscriberExportSearch(q, key.AccountID, sf, now, loc)
	if err != nil {
		return err
	}
	searchHeaders(c, sr)
	job := &exportJob{accountID: key.AccountID, loc: loc, now: now, actor: keyActor(key), filters: q.Encode(),
		storefrontID: sf, filename: exportName("subscribers", now, loc)}
	return s.streamSubscribers(c, job, f)
}

// dashboardPurchaseQuery is the purchases page's query as the page reads it: trimmed,
// total_op without an amount dropped, newest first unless told otherwise, and without
// the page's own paging.
func dashboardPurchaseQuery(q url.Values) url.Values {
	q = cloneValues(q)
	trimFields(q)
	if q.Get("total") == "" {
		q.Del("total_op")
	}
	for _, p := range []string{"before", "cursor", "page"} {
		q.Del(p)
	}
	if q.Get("order") == "" {
		q.Set("order", "desc")
	}
	return q
}

// purchaseViewAsAPI returns the purchases page's current view (its query as the page
// reads it) as CSV links of the dashboard and as the API calls that return it.
func (s *Server) purchaseViewAsAPI(acct *shop.Account, shown url.Values, res templates.PurchaseResults) (templates.ExportLinks, templates.APIRequest) {
	q := dashboardPurchaseQuery(shown)
	lines := cloneValues(q)
	lines.Set("rows", filter.RowsLineItems)
	x := templates.ExportLinks{
		{URL: "/purchases.csv?" + q.Encode(), Label: "One row per purchase", Rows: filter.RowsPurchases},
		{URL: "/purchases.csv?" + lines.Encode(), Label: "One row per line item", Rows: filter.RowsLineItems},
	}
	list := cloneValues(q)
	list.Set("per_page", strconv.Itoa(dashboardPageSize))
	curl := "curl -u " + acct.APIUsername + ":$STOREFRONT_KEY '" + s.BaseURL + "/api/v2/"
	a := templates.APIRequest{
		List: curl + "purchases?" + list.Encode() + "'",
		CSV:  curl + "purchases.csv?" + q.Encode() + "' -OJ",
	}
	for _, d := range []struct {
		name string
		hint templates.Hint
	}{{"date_min", res.DateMinHint}, {"date_max", res.DateMaxHint}} {
		if d.hint.Text != "" && !d.hint.Error {
			a.Dates = append(a.Dates, templates.Hint{Text: d.name + ": " + d.hint.Text})
		}
	}
	return x, a
}

// exportPurchasesPage answers GET /purchases.csv: the rows the purchases page with the
// same query selects, in its order, as the API's file.
func (s *Server) exportPurchasesPage(c *gin.Context) error {
	acct := currentAccount(c)
	loc, now := s.location(acct.Timezone), s.now()
	q := dashboardPurchaseQuery(c.Request.URL.Query())
	f, rows, err := filter.PurchaseExport(q, acct.ID, now, loc)
	if err != nil {
		return err
	}
	job := &exportJob{accountID: acct.ID, loc: loc, now: now, actor: currentUser(c).Email, filters: q.Encode(),
		filename: exportName("purchases", now, loc)}
	return s.streamPurchases(c, job, f, rows)
}

// exportSubscribersPage answers GET /storefronts/:storefront_id/subscribers.csv: the
// subscribers the page's search selects, newest first, read by the page's own parser.
func (s *Server) exportSubscribersPage(c *gin.Context) error {
	sf, _, err := s.storefrontOf(c)
	if err != nil {
		return err
	}
	acct := currentAccount(c)
	q := c.Request.URL.Query()
	q.Del("cursor")
	q.Del("before")
	loc, now := s.location(acct.Timezone), s.now()
	f, _, err := filter.SubscriberSearch(q, acct.ID, sf.ID, now, loc)
	if err != nil {
		return err
	}
	job := &exportJob{accountID: acct.ID, loc: loc, now: now, actor: currentUser(c).Email, filters: q.Encode(),
		storefrontID: sf.ID, filename: exportName("subscribers", now, loc)}
	return s.streamSubscribers(c, job, f)
}
