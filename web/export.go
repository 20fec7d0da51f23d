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
// reads it) as the Export CSV menu and the API calls that answer it.
func (s *Server) purchaseViewAsAPI(acct *shop.Account, shown url.Values, now time.Time, loc *time.Location) (templates.ExportLinks, templates.APIRequest) {
	q := dashboardPurchaseQuery(shown)
	lines := cloneValues(q)
	lines.Set("rows", filter.RowsLineItems)
	x := templates.ExportLinks{
		{URL: "/purchases.csv?" + q.Encode(), Label: "One row per purchase", Rows: filter.RowsPurchases},
		{URL: "/purchases.csv?" + lines.Encode(), Label: "One row per line item", Rows: filter.RowsLineItems},
	}
	list := cloneValues(q)
	list.Set("per_page", strconv.Itoa(dashboardPageSize))
	_, sr, _ := filter.PurchaseSearch(list, acct.ID, now, loc)
	return x, s.apiRequest(acct, "/purchases", "purchases", list, q, sr)
}

// subscriberViewAsAPI returns a storefront's subscribers list's current view (its one
// query as q, newest first) as the Export CSV menu and the API calls that answer it.
func (s *Server) subscriberViewAsAPI(acct *shop.Account, sf *shop.Storefront, shown url.Values, now time.Time, loc *time.Location) (templates.ExportLinks, templates.APIRequest) {
	listURL := subscribersURL(sf.ID)
	links, x := subscriberExport(listURL, shown)
	q := cloneValues(x)
	q.Set("order", "desc")
	list := cloneValues(q)
	list.Set("per_page", strconv.Itoa(dashboardPageSize))
	_, sr, _ := filter.SubscribersSearch(list, acct.ID, sf.ID, now, loc)
	return links, s.apiRequest(acct, listURL, "subscribers", list, q, sr)
}

// subscriberExport returns the Export CSV menu of a subscribers list at listURL (a
// storefront's, or every storefront's) showing the query shown, and the file's query.
func subscriberExport(listURL string, shown url.Values) (templates.ExportLinks, url.Values) {
	x := url.Values{}
	if v := shown.Get("q"); v != "" {
		x.Set("q", v)
	}
	return templates.ExportLinks{{URL: cleanURL(listURL+".csv", x), Label: "One row per subscriber", Rows: "subscribers"}}, x
}

// apiRequest is the API request panel of a list: the curl commands of the list at
// resource (a path below /api/v2, which is also the dashboard's, and of its CSV file)
// with the list's and the file's parameters, and what the search meant as the answer's
// headers say it (docs/API.md#search).
func (s *Server) apiRequest(acct *shop.Account, resource, rows string, list, file url.Values, sr filter.Search) templates.APIRequest {
	curl := "curl -u " + acct.APIUsername + ":$STOREFRONT_KEY '" + s.BaseURL + "/api/v2"
	return templates.APIRequest{
		List:  curl + resource + "?" + list.Encode() + "'",
		CSV:   curl + resource + ".csv?" + file.Encode() + "' -OJ",
		Rows:  rows,
		Query: sr.Query,
		Dates: sr.Dates,
	}
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
	return s.subscribersFile(c, sf.ID, nil)
}

// exportAllSubscribersPage answers GET /subscribers/all.csv: what the list of every
// storefront's subscribers selects, newest first, each row ending with its storefront.
func (s *Server) exportAllSubscribersPage(c *gin.Context) error {
	sfs, err := s.Accounts.FindStorefronts(c.Request.Context(), currentAccount(c).ID)
	if err != nil {
		return err
	}
	byID := make(map[int64]*shop.Storefront, len(sfs))
	for _, sf := range sfs {
		byID[sf.ID] = sf
	}
	return s.subscribersFile(c, 0, byID)
}

// subscribersFile streams the subscribers a dashboard list's query selects: of the
// storefront sfID, or of every storefront (sfID 0), the account's storefronts by id.
func (s *Server) subscribersFile(c *gin.Context, sfID int64, storefronts map[int64]*shop.Storefront) error {
	acct := currentAccount(c)
	q := c.Request.URL.Query()
	q.Del("cursor")
	q.Del("before")
	loc, now := s.location(acct.Timezone), s.now()
	f, _, err := filter.SubscriberSearch(q, acct.ID, sfID, now, loc)
	if err != nil {
		return err
	}
	job := &exportJob{accountID: acct.ID, loc: loc, now: now, actor: currentUser(c).Email, filters: q.Encode(),
		storefrontID: sfID, storefronts: storefronts, filename: exportName("subscribers", now, loc)}
	return s.streamSubscribers(c, job, f)
}
