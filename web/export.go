package web

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
	w       *csv.Writer
	started bool
	rows    int64
}

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
	st.w = csv.NewWriter(st.c.Writer)
	st.w.UseCRLF = true
	return st.w.Write(st.job.header)
}

func (st *csvStream) write(record []string) error {
	if err := st.w.Write(record); err != nil {
		return err
	}
	st.rows++
	return nil
}

// flush sends what was written so far.
func (st *csvStream) flush() error {
	st.w.Flush()
	if err := st.w.Error(); err != nil {
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
	sfs, err := s.Accounts.FindStorefronts(ctx, job.accountID)
	if err != nil {
		return err
	}
	names := make(map[int64]string, len(sfs))
	for _, sf := range sfs {
		names[sf.ID] = sf.Name
	}
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
	err = s.Purchases.ExportPurchases(ctx, f, lines, func(ps []*shop.Purchase) error {
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
	return s.finishExport(c, st, err)
}

// writePurchase writes one purchase's row, or its line items' rows.
func writePurchase(st *csvStream, p *shop.Purchase, storefront string, loc *time.Location, lineItems bool) error {
	head := []string{
		strconv.FormatInt(p.ID, 10), p.CreatedAt.In(loc).Format(csvTime), strconv.FormatInt(p.CreatedAt.Unix(), 10),
		string(p.Status), strconv.FormatInt(p.StorefrontID, 10), safeText(storefront), p.Currency,
		string(p.Subtotal), string(p.Discount), string(p.Tax), string(p.Shipping), string(p.Total),
		safeText(deref(p.BuyerEmail)), safeText(deref(p.BuyerFirstname)), safeText(deref(p.BuyerLastname)),
		"", optInt(p.SubscriberID),
	}
	if p.Customer != nil {
		head[15] = strconv.FormatInt(p.Customer.ID, 10)
	}
	toShip := optInt(p.TangiblesToShip)
	if !lineItems {
		var names []string
		var qty int64
		for _, li := range p.LineItems {
			names = append(names, li.ProductName)
			qty += li.Quantity
		}
		return st.write(append(head, safeText(strings.Join(names, "; ")), strconv.FormatInt(qty, 10), toShip))
	}
	head = append(head, toShip)
	if len(p.LineItems) == 0 {
		return st.write(append(head, make([]string, 9)...))
	}
	n := len(head)
	for _, li := range p.LineItems {
		expires := ""
		if li.ExpiresAt != nil {
			expires = li.ExpiresAt.In(loc).Format(csvTime)
		}
		row := append(head[:n:n],
			strconv.FormatInt(li.ID, 10), strconv.FormatInt(li.ProductID, 10), safeText(li.ProductName),
			string(li.Price), strconv.FormatInt(li.Quantity, 10), string(li.Total),
			strconv.FormatInt(li.DownloadCount, 10), strconv.FormatInt(li.DownloadLimit, 10), expires)
		if err := st.write(row); err != nil {
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
	row := []string{strconv.FormatInt(sub.ID, 10), safeText(sub.Username), sub.CreatedAt.In(loc).Format(csvTime), "", "", "", "", "", "",
		strconv.FormatBool(shop.Entitle(sub.Subscription, now).ReceivingService)}
	if ss := sub.Subscription; ss != nil {
		row[3], row[4], row[5], row[6] = string(ss.Status), string(ss.Price), strconv.FormatInt(ss.Period, 10), ss.Unit
		row[7], row[8] = optTime(ss.NextPaymentAt, loc), optTime(ss.EndedAt, loc)
	}
	return st.write(row)
}

// safeText keeps a spreadsheet from reading a text cell as a formula: text that begins
// with =, +, -, @, a tab or a carriage return is written after a '.
func safeText(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

func optInt(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
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
	f, rows, err := filter.PurchaseExport(q, key.AccountID, now, loc)
	if err != nil {
		return err
	}
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
	f, err := filter.SubscriberExport(q, key.AccountID, sf)
	if err != nil {
		return err
	}
	loc, now := s.location(key.Timezone), s.now()
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
