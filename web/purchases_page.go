package web

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// dashboardPageSize is how many purchases a dashboard page shows.
const dashboardPageSize = 25

// countCap is where the purchase count stops counting: beyond it "10,000+".
const countCap = 10_000

// dashboardRoutes registers the signed-in pages.
func (s *Server) dashboardRoutes(d *gin.RouterGroup) {
	d.GET("/purchases", s.handle(s.purchasesPage))
	s.viewRoutes(d)
	s.purchaseRoutes(d)
	s.subscriberRoutes(d)
	s.passwordRoutes(d)
	s.accountRoutes(d.Group("/", s.requireOwner))
}

// purchasesPage lists purchases with the filters of GET /api/v2/purchases, read by the
// same parser as the API. An htmx request gets the results fragment, anything else the
// whole page.
func (s *Server) purchasesPage(c *gin.Context) error {
	user := currentUser(c)
	acct, err := s.account(c)
	if err != nil {
		return err
	}
	loc := s.location(acct.Timezone)
	now := s.now()

	q := c.Request.URL.Query()
	trimFields(q)
	// The form always sends the operator of its Total select; without an amount it
	// means nothing (the API, sent total_op alone, answers 400).
	if q.Get("total") == "" {
		q.Del("total_op")
	}
	shown := cloneValues(q)
	// "Newer" pages walk back with a cursor of their own; the dashboard lists newest
	// first unless told otherwise.
	before := q.Get("before")
	q.Del("before")
	if q.Get("order") == "" {
		q.Set("order", "desc")
	}
	res := templates.PurchaseResults{OOB: isFragment(c), ClearURL: "/purchases"}
	res.DateMinHint = dateHint(q.Get("date_min"), now, loc)
	res.DateMaxHint = dateHint(q.Get("date_max"), now, loc)
	show := func(fragment bool) (templ.Component, error) {
		if fragment {
			c.Header("HX-Push-Url", cleanURL("/purchases", shown))
			return templates.PurchaseResultsFragment(res), nil
		}
		form, err := s.purchaseForm(c, user.AccountID, shown)
		if err != nil {
			return nil, err
		}
		views, err := s.savedViewsBar(c, shown)
		if err != nil {
			return nil, err
		}
		return templates.Purchases(templates.PurchasesView{Chrome: s.chrome(c, "Purchases", "purchases"), Form: form, Results: res, Views: views}), nil
	}

	f, ferr := filter.Purchases(q, user.AccountID, now, loc)
	if ferr == nil && before != "" {
		if f.After != nil || f.Page != 0 {
			ferr = shop.ParamErrorf(shop.EInvalid, "before", "Page with before or with cursor, not both.")
		} else if cur, desc, err := filter.DecodeCursor(before, filter.KindPurchase); err != nil || desc {
			ferr = shop.ParamErrorf(shop.EInvalid, "before", "The page link is not valid; start again from the first page.")
		} else {
			f.After, f.Desc = &cur, !f.Desc
		}
	}
	if ferr != nil {
		if shop.ErrorCode(ferr) == shop.EInternal {
			return ferr
		}
		res.Error = paramLabel(shop.ErrorParam(ferr)) + shop.ErrorMessage(ferr)
		return &formError{ferr, show}
	}
	f.PerPage = dashboardPageSize
	if err := s.fillPurchaseResults(c, &res, f, q, before != "", loc); err != nil {
		return err
	}
	comp, err := show(isFragment(c))
	if err != nil {
		return err
	}
	return render(c, comp)
}

// fillPurchaseResults loads one page of purchases, the capped count and the paging links.
func (s *Server) fillPurchaseResults(c *gin.Context, res *templates.PurchaseResults, f shop.PurchaseFilter, q url.Values, backwards bool, loc *time.Location) error {
	ctx := c.Request.Context()
	page, err := s.Purchases.FindPurchases(ctx, f)
	if err != nil {
		return err
	}
	ps := page.Purchases
	if backwards {
		slices.Reverse(ps)
	}
	count := f
	count.After, count.Page = nil, 0
	n, capped, err := s.Purchases.CountPurchases(ctx, count, countCap)
	if err != nil {
		return err
	}
	res.Count = templates.FormatCount(n)
	if capped {
		res.Count += "+"
	}
	names, err := s.storefrontNames(c)
	if err != nil {
		return err
	}
	for _, p := range ps {
		res.Rows = append(res.Rows, purchaseRow(p, names, loc))
	}
	if len(ps) == 0 {
		return nil
	}
	first, last := ps[0], ps[len(ps)-1]
	// Going back (before), more newer rows exist when the page was full; going
	// forward, when the database said so.
	hasOlder := page.Next != nil
	hasNewer := f.After != nil || f.Page > 1
	if backwards {
		hasOlder, hasNewer = true, page.Next != nil
	}
	res.OlderURL, res.NewerURL = pageLinks("/purchases", q, filter.KindPurchase,
		shop.Cursor{CreatedAt: first.CreatedAt.Time, ID: first.ID}, shop.Cursor{CreatedAt: last.CreatedAt.Time, ID: last.ID}, hasOlder, hasNewer)
	return nil
}

func purchaseRow(p *shop.Purchase, storefronts map[int64]string, loc *time.Location) templates.PurchaseRow {
	row := templates.PurchaseRow{
		ID: p.ID, URL: fmt.Sprintf("/purchases/%d", p.ID),
		Date: p.CreatedAt.In(loc).Format("2 Jan 2006 15:04 MST"), DateISO: p.CreatedAt.UTC().Format(time.RFC3339),
		Buyer: strings.TrimSpace(deref(p.BuyerFirstname) + " " + deref(p.BuyerLastname)), Email: deref(p.BuyerEmail),
		Storefront: storefronts[p.StorefrontID], Total: string(p.Total) + " " + p.Currency,
		Status: string(p.Status), StatusText: p.Status.Label(),
	}
	if row.Buyer == "" {
		row.Buyer = "—"
	}
	var items []string
	for _, li := range p.LineItems {
		name := li.ProductName
		if li.Quantity != 1 {
			name = fmt.Sprintf("%d × %s", li.Quantity, name)
		}
		items = append(items, name)
	}
	row.Items = strings.Join(items, ", ")
	return row
}

// storefrontNames maps the account's storefront ids to names.
func (s *Server) storefrontNames(c *gin.Context) (map[int64]string, error) {
	sfs, err := s.Accounts.FindStorefronts(c.Request.Context(), currentUser(c).AccountID)
	if err != nil {
		return nil, err
	}
	names := map[int64]string{}
	for _, sf := range sfs {
		names[sf.ID] = sf.Name
	}
	return names, nil
}

// purchaseForm fills the filter form with the values of the request.
func (s *Server) purchaseForm(c *gin.Context, accountID int64, q url.Values) (templates.PurchaseFilterForm, error) {
	ctx := c.Request.Context()
	form := templates.PurchaseFilterForm{
		Email: q.Get("customer_email"), First: q.Get("customer_first_name"), Last: q.Get("customer_last_name"),
		DateMin: q.Get("date_min"), DateMax: q.Get("date_max"), Total: q.Get("total"),
		Unshipped: q.Get("ship") == "1" || strings.EqualFold(q.Get("ship"), "true"),
		Order:     strings.ToLower(q.Get("order")),
	}
	if form.Order == "desc" {
		form.Order = ""
	}
	chosen := map[string]bool{}
	for _, v := range q["status"] {
		for _, part := range strings.Split(v, ",") {
			chosen[strings.ToUpper(strings.TrimSpace(part))] = true
		}
	}
	for _, st := range shop.PurchaseStatuses {
		form.Statuses = append(form.Statuses, templates.Check{Value: string(st), Label: st.Label(), Checked: chosen[string(st)]})
	}
	sfs, err := s.Accounts.FindStorefronts(ctx, accountID)
	if err != nil {
		return form, err
	}
	for _, sf := range sfs {
		id := strconv.FormatInt(sf.ID, 10)
		form.Storefronts = append(form.Storefronts, templates.Option{Value: id, Label: sf.Name, Selected: q.Get("storefront_id") == id})
	}
	products, err := s.Accounts.FindProducts(ctx, accountID)
	if err != nil {
		return form, err
	}
	for _, p := range products {
		id := strconv.FormatInt(p.ID, 10)
		form.Products = append(form.Products, templates.Option{Value: id, Label: p.Name, Selected: q.Get("product_id") == id})
	}
	op := strings.ToLower(q.Get("total_op"))
	for _, o := range []templates.Option{{Value: "eq", Label: "="}, {Value: "ne", Label: "≠"}, {Value: "gt", Label: ">"}, {Value: "lt", Label: "<"}} {
		o.Selected = o.Value == op
		form.TotalOps = append(form.TotalOps, o)
	}
	return form, nil
}

// dateHint says what a free-text date resolves to in the account's zone, the way the
// filter will read it: "last monday → Mon 16 Nov 2026 00:00 EST".
func dateHint(text string, now time.Time, loc *time.Location) templates.Hint {
	text = strings.TrimSpace(text)
	if text == "" {
		return templates.Hint{}
	}
	t, err := filter.ParseDate("date", text, now, loc)
	if err != nil {
		return templates.Hint{Text: "Cannot read this as a date or time.", Error: true}
	}
	return templates.Hint{Text: text + " → " + templates.FormatTime(t, loc)}
}

// paramLabel names a parameter the way the form labels it, for error messages.
func paramLabel(param string) string {
	labels := map[string]string{
		"status": "Status", "storefront_id": "Storefront", "product_id": "Product", "customer_email": "Customer e-mail",
		"customer_first_name": "First name", "customer_last_name": "Last name", "date_min": "Created from",
		"date_max": "Created before", "total": "Total", "total_op": "Total", "ship": "Unshipped only",
	}
	if l, ok := labels[param]; ok {
		return l + ": "
	}
	return ""
}

// pageLinks builds the Older and Newer links of a dashboard list shown newest first:
// the same query with a cursor after the page's last row, or a "before" cursor ahead of
// its first row. A link that does not apply is "".
func pageLinks(path string, q url.Values, kind byte, first, last shop.Cursor, hasOlder, hasNewer bool) (older, newer string) {
	base := url.Values{}
	for k, vs := range q {
		if k != "cursor" && k != "before" && k != "page" {
			base[k] = vs
		}
	}
	if hasOlder {
		v := cloneValues(base)
		v.Set("cursor", filter.EncodeCursor(last, kind, true))
		older = cleanURL(path, v)
	}
	if hasNewer {
		v := cloneValues(base)
		v.Set("before", filter.EncodeCursor(first, kind, false))
		newer = cleanURL(path, v)
	}
	return older, newer
}

// cleanURL writes path?query with blank values left out, for the address bar.
func cleanURL(path string, q url.Values) string {
	v := url.Values{}
	for k, vs := range q {
		for _, s := range vs {
			if strings.TrimSpace(s) != "" {
				v.Add(k, s)
			}
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// trimFields trims the blanks around every value of a dashboard query: a person's stray
// space in a search field means nothing. The API, which shares the parser, reads its
// parameters literally.
func trimFields(q url.Values) {
	for _, vs := range q {
		for i := range vs {
			vs[i] = strings.TrimSpace(vs[i])
		}
	}
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
