package web

import (
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// The CSV exports (docs/API.md#get-apiv2purchasescsv): every purchase or subscriber a
// list's filters select, streamed a batch at a time, for spreadsheets and accounting
// tools. The API and the dashboard answer the same file for the same filters.

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
