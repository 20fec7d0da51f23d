package web

import (
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// dashboardPageSize is how many rows a page of a dashboard list shows.
const dashboardPageSize = 25

// countCap is where the purchase count stops counting: beyond it "10,000+".
const countCap = 10_000

// purchasesPage lists purchases with the filters of GET /api/v2/purchases, read by the
// same parser as the API. An htmx request gets the results fragment, anything else the
// whole page.
func (s *Server) purchasesPage(c *gin.Context) error {
	acct := currentAccount(c)
	loc := s.location(acct.Timezone)
	now := s.now()

	q := c.Request.URL.Query()
	trimFields(q)
	var locked map[string]bool
	combined := false
	// The form always sends the operator of its Total select; without an amount it
	// means nothing (the API, sent total_op alone, answers 400).
	if q.Get("total") == "" {
		q.Del("total_op")
	}
	// The box and the fields are one query: a q that cannot be read is shown at the
	// box, a field that cannot be read at its field, as the filters always were.
	box := templates.SearchBox{Action: "/purchases", Suggest: "/purchases/suggest", Label: "Search purchases", Example: "status:act total>50 -ship:yes",
		Note: "Fields, OR, -negation and dates as the filters read them; the fields below show what they can.", Query: q.Get("q"), Order: strings.ToLower(q.Get("order"))}
	if box.Order == "desc" {
		box.Order = ""
	}
	_, ferr := filter.Purchases(q, acct.ID, now, loc)
	if ferr == nil || searchError(ferr) {
		if qb, err := combinePurchaseQuery(q); err != nil {
			box.Error = shop.ErrorMessage(err)
		} else {
			q = canonicalValues(q, purchaseBoxFields, qb)
			combined = true
			box.Query = qb.Query
			locked = qb.Locked
		}
	}
	shown := cloneValues(q)
	// What the URL says: the query once, as the box shows it; the parameters as they
	// came when the fields or the box cannot be read.
	pushed := cloneValues(q)
	if combined {
		for _, f := range purchaseBoxFields {
			pushed.Del(f.param)
		}
		pushed.Del("total_op")
		pushed.Set("q", box.Query)
	}
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
			c.Header("HX-Push-Url", cleanURL("/purchases", pushed))
			// The part of the page the request did not come from follows it: the
			// fields after the box changed, the box after the fields did.
			var oob []templ.Component
			switch c.GetHeader("HX-Trigger") {
			case "search":
				if box.Error == "" {
					form, err := s.purchaseForm(c, acct.ID, shown, locked)
					if err != nil {
						return nil, err
					}
					oob = append(oob, templates.PurchaseFilters(form, res.DateMinHint, res.DateMaxHint, true))
				}
				// The box is where the user types: only its message changes.
				b := box
				b.OOB = true
				oob = append(oob, templates.SearchError(b))
			case "filters":
				b := box
				b.OOB = true
				oob = append(oob, templates.SearchField(b))
			}
			return withOOB(templates.PurchaseResultsFragment(res), oob...), nil
		}
		form, err := s.purchaseForm(c, acct.ID, shown, locked)
		if err != nil {
			return nil, err
		}
		views, err := s.savedViewsBar(c, pushed)
		if err != nil {
			return nil, err
		}
		return templates.Purchases(templates.PurchasesView{Chrome: s.chrome(c, "Purchases", "purchases"), Search: box, Form: form, Results: res, Views: views}), nil
	}

	f, ferr := filter.Purchases(q, acct.ID, now, loc)
	backwards := false
	if ferr == nil {
		backwards, ferr = filter.PurchasesBefore(&f, before)
	}
	if box.Error != "" && readable(box.Query) {
		// A query the language refuses may read as one it takes: "last week, not refunded".
		alts, err := s.purchaseAlternatives(c, box.Query, pushed)
		if err != nil {
			return err
		}
		res.Alternatives = alts
	}
	return answerList(c, "purchases", ferr, &res.Error, func() error {
		f.PerPage = dashboardPageSize
		if err := s.fillPurchaseResults(c, &res, f, pushed, backwards); err != nil {
			return err
		}
		res.Export, res.API = s.purchaseViewAsAPI(acct, pushed, now, loc)
		res.Bulk = bulkBar(c, pushed, res.Count)
		if len(res.Rows) == 0 && combined && before == "" && q.Get("cursor") == "" && q.Get("page") == "" {
			alts, err := s.purchaseAlternatives(c, box.Query, pushed)
			if err != nil {
				return err
			}
			res.Alternatives = alts
		}
		return nil
	}, show)
}

// fillPurchaseResults loads one page of purchases, the capped count and the paging links.
func (s *Server) fillPurchaseResults(c *gin.Context, res *templates.PurchaseResults, f shop.PurchaseFilter, q url.Values, backwards bool) error {
	ctx, loc := c.Request.Context(), s.zone(c)
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
	// A page walked back (backwards) was read in the other order and turned round.
	res.Count, res.Oldest = templates.FormatCount(n), f.Desc == backwards
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
	res.OlderURL, res.NewerURL = pageLinks("/purchases", q, filter.KindPurchase, cursorAt(first.CreatedAt, first.ID), cursorAt(last.CreatedAt, last.ID),
		!res.Oldest, page.Next != nil, f.After != nil || f.Page > 1, backwards)
	res.Customer = oneCustomer(res)
	return nil
}

// oneCustomer is the buyer's address and customer page when every purchase of the
// list is on this page and all of them are that address's (as the customer page
// gathers them); nil otherwise.
func oneCustomer(res *templates.PurchaseResults) *templates.CustomerLink {
	if res.OlderURL != "" || res.NewerURL != "" || len(res.Rows) == 0 {
		return nil
	}
	one := res.Rows[0]
	for _, r := range res.Rows {
		if r.CustomerURL == "" || r.CustomerURL != one.CustomerURL {
			return nil
		}
	}
	lead := "All of these purchases are from "
	if len(res.Rows) == 1 {
		lead = "This purchase is from "
	}
	return &templates.CustomerLink{Lead: lead, Email: one.Email, URL: one.CustomerURL}
}

// storefrontNames maps the account's storefront ids to names.
func (s *Server) storefrontNames(c *gin.Context) (map[int64]string, error) {
	sfs, err := s.Accounts.FindStorefronts(c.Request.Context(), currentAccount(c).ID)
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
func (s *Server) purchaseForm(c *gin.Context, accountID int64, q url.Values, locked map[string]bool) (templates.PurchaseFilterForm, error) {
	ctx := c.Request.Context()
	form := templates.PurchaseFilterForm{
		Email: q.Get("customer_email"), First: q.Get("customer_first_name"), Last: q.Get("customer_last_name"),
		DateMin: q.Get("date_min"), DateMax: q.Get("date_max"), Total: q.Get("total"),
		Unshipped: q.Get("ship") == "1" || strings.EqualFold(q.Get("ship"), "true"),
		Order:     strings.ToLower(q.Get("order")),
		Rest:      q.Get("q"), Locked: locked,
	}
	if form.Order == "desc" {
		form.Order = ""
	}
	chosen := chosenStatuses(q)
	for _, st := range shop.PurchaseStatuses {
		form.Statuses = append(form.Statuses, templates.Check{Value: string(st), Label: st.Label(), Checked: chosen[string(st)]})
	}
	sfs, err := s.Accounts.FindStorefronts(ctx, accountID)
	if err != nil {
		return form, err
	}
	for _, sf := range sfs {
		form.Storefronts = append(form.Storefronts, idOption(sf.ID, sf.Name, q.Get("storefront_id")))
	}
	products, err := s.Accounts.FindProducts(ctx, accountID)
	if err != nil {
		return form, err
	}
	for _, p := range products {
		form.Products = append(form.Products, idOption(p.ID, p.Name, q.Get("product_id")))
	}
	op := strings.ToLower(q.Get("total_op"))
	for _, o := range []templates.Option{{Value: "eq", Label: "="}, {Value: "ne", Label: "≠"}, {Value: "gt", Label: ">"}, {Value: "lt", Label: "<"}} {
		o.Selected = o.Value == op
		form.TotalOps = append(form.TotalOps, o)
	}
	return form, nil
}
