package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/search"
	"storefront/internal/shop"
	"storefront/templates"
)

// subscribersHome sends the user to the subscribers of the account's first storefront,
// keeping the search; with no storefront it shows the empty page.
func (s *Server) subscribersHome(c *gin.Context) error {
	sfs, err := s.Accounts.FindStorefronts(c.Request.Context(), currentAccount(c).ID)
	if err != nil {
		return err
	}
	if len(sfs) == 0 {
		return render(c, templates.Subscribers(templates.SubscribersView{Chrome: s.chrome(c, "Subscribers", "subscribers")}))
	}
	target := subscribersURL(sfs[0].ID)
	if c.Request.URL.RawQuery != "" {
		target += "?" + c.Request.URL.RawQuery
	}
	c.Redirect(http.StatusSeeOther, target)
	return nil
}

func subscribersURL(storefrontID int64) string {
	return fmt.Sprintf("/storefronts/%d/subscribers", storefrontID)
}

// storefrontOf returns the account's storefront named by the path (400 when the id is
// malformed, 404 when it is not the account's) and all of the account's storefronts.
func (s *Server) storefrontOf(c *gin.Context) (*shop.Storefront, []*shop.Storefront, error) {
	return pathRecord(c, "storefront_id", "Storefront", s.Accounts.FindStorefronts, func(sf *shop.Storefront) int64 { return sf.ID })
}

// subscribersPage lists a storefront's subscribers with the e-mail search, the status
// filter and the service-term dates. An htmx request gets the results fragment,
// anything else the page.
func (s *Server) subscribersPage(c *gin.Context) error {
	sf, sfs, err := s.storefrontOf(c)
	if err != nil {
		return err
	}
	return s.subscribersList(c, sf, sfs)
}

// allSubscribersPage lists the subscribers of every storefront of the account, with the
// same search: what the overview's subscriber figures count when no storefront is
// chosen.
func (s *Server) allSubscribersPage(c *gin.Context) error {
	sfs, err := s.Accounts.FindStorefronts(c.Request.Context(), currentAccount(c).ID)
	if err != nil {
		return err
	}
	return s.subscribersList(c, nil, sfs)
}

// allSubscribersURL is the list of every storefront's subscribers.
const allSubscribersURL = "/subscribers/all"

// subscriberDates are the service-term date fields of the subscribers search.
var subscriberDates = []struct{ name, label, placeholder string }{
	{"started_min", "Service started from", "e.g. -30 days, 2024-03-01"},
	{"started_max", "Service started before", "e.g. tomorrow"},
	{"ended_min", "Service ended from", "e.g. first day of last month"},
	{"ended_max", "Service ended before", "e.g. now"},
	{"receiving_at", "Receiving service at", "e.g. now, 2024-03-31 23:59"},
}

// subscribersList answers the subscribers list of one storefront, or of all of them
// when sf is nil. The Search box and the fields are two views of one query, as on the
// purchases list; the list is what that query selects, as the API's q would.
func (s *Server) subscribersList(c *gin.Context, sf *shop.Storefront, sfs []*shop.Storefront) error {
	acct := currentAccount(c)
	now, loc := s.now(), s.zone(c)
	listURL, title, name, sfID := allSubscribersURL, "Subscribers · All storefronts", "All storefronts", int64(0)
	if sf != nil {
		listURL, title, name, sfID = subscribersURL(sf.ID), "Subscribers · "+sf.Name, sf.Name, sf.ID
	}
	q := c.Request.URL.Query()
	trimFields(q)
	fields := subscriberBoxFields(now, loc)
	box := templates.SearchBox{Action: listURL, Suggest: subscriberSuggestURL, Label: "Search subscribers", Query: q.Get("q"),
		Example: "status:active,trial started>=-30days",
		Note:    "Fields, OR, -negation and dates as the fields read them; the fields below show what they can."}
	// A field that cannot be read is shown at its field, a q that cannot be read at the
	// box; else the fields and the box become one query, which alone selects the rows.
	var locked map[string]bool
	shown, pushed := q, q
	_, _, ferr := filter.SubscriberSearch(q, acct.ID, sfID, now, loc)
	if ferr == nil || searchError(ferr) {
		if qb, err := combineQuery(search.Subscribers, fields, q); err != nil {
			box.Error = shop.ErrorMessage(err)
		} else {
			box.Query, locked = qb.Query, qb.Locked
			shown = canonicalValues(q, fields, qb)
			pushed = cloneValues(shown)
			for _, f := range fields {
				pushed.Del(f.param)
			}
			pushed.Del("q")
			if qb.Query != "" {
				pushed.Set("q", qb.Query)
			}
		}
	}
	var dates []templates.DateField
	for _, d := range subscriberDates {
		dates = append(dates, templates.DateField{Name: d.name, Label: d.label, Value: shown.Get(d.name), Placeholder: d.placeholder,
			Hint: dateHint(shown.Get(d.name), now, loc)})
	}
	form := subscriberForm(listURL, shown, locked)
	form.Dates = dates
	res := templates.SubscriberResults{ClearURL: listURL}
	show := func(fragment bool) (templ.Component, error) {
		if fragment {
			c.Header("HX-Push-Url", cleanURL(listURL, pushed))
			// As on the purchases list: the fields follow the box, the box the fields.
			var oob []templ.Component
			switch c.GetHeader("HX-Trigger") {
			case "search":
				if box.Error == "" {
					oob = append(oob, templates.SubscriberFilters(form, true))
				}
				b := box
				b.OOB = true
				oob = append(oob, templates.SearchError(b))
			default:
				res.DateHints = dates
				b := box
				b.OOB = true
				oob = append(oob, templates.SearchField(b))
			}
			return withOOB(templates.SubscriberResultsFragment(res), oob...), nil
		}
		v := templates.SubscribersView{
			Chrome:         s.chrome(c, title, "subscribers"),
			StorefrontName: name,
			Form:           form,
			Search:         box,
			Results:        res,
		}
		if len(sfs) > 1 {
			v.Storefronts = append(v.Storefronts, templates.StorefrontTab{Name: "All storefronts", URL: allSubscribersURL, Current: sf == nil})
		}
		for _, other := range sfs {
			v.Storefronts = append(v.Storefronts, templates.StorefrontTab{Name: other.Name, URL: subscribersURL(other.ID), Current: sf != nil && other.ID == sf.ID})
		}
		return templates.Subscribers(v), nil
	}
	f, backwards, serr := filter.SubscriberSearch(pushed, acct.ID, sfID, now, loc)
	if box.Error == "" && searchError(serr) {
		box.Error = shop.ErrorMessage(serr)
	}
	// A search that is refused, or finds nothing, offers what its words may have
	// meant, as the purchases list does.
	offer := func() error {
		if !readable(box.Query) || pushed.Get("cursor") != "" || pushed.Get("before") != "" {
			return nil
		}
		alts, err := alternatives(search.Subscribers, listURL, box.Query, s.subscriberValues(c), pushed)
		res.Alternatives = alts
		return err
	}
	if box.Error != "" {
		if err := offer(); err != nil {
			return err
		}
	}
	return answerList(c, "subscribers", serr, &res.Error, func() error {
		f.PerPage = dashboardPageSize
		if err := s.fillSubscriberResults(c, &res, listURL, sfs, f, backwards, pushed); err != nil {
			return err
		}
		if len(res.Rows) == 0 && box.Query != "" {
			if err := offer(); err != nil {
				return err
			}
		}
		if sf == nil {
			// The API's lists are a storefront's: the search on each.
			res.Export, _ = subscriberExport(listURL, pushed)
			for _, one := range sfs {
				_, call := s.subscriberViewAsAPI(acct, one, pushed, now, loc)
				res.API.Each = append(res.API.Each, templates.StorefrontCall{Storefront: one.Name, List: call.List})
				res.API.Query, res.API.Dates = call.Query, call.Dates
			}
			return nil
		}
		res.Export, res.API = s.subscriberViewAsAPI(acct, sf, pushed, now, loc)
		return nil
	}, show)
}

// fillSubscriberResults loads one page of subscribers, newest first, with the count and
// the paging links.
func (s *Server) fillSubscriberResults(c *gin.Context, res *templates.SubscriberResults, listURL string, sfs []*shop.Storefront, f shop.SubscriberFilter, backwards bool, q url.Values) error {
	res.Filtered = f.UsernamePrefix != "" || len(f.Statuses) > 0 || f.StartedFrom != nil || f.StartedBefore != nil || f.EndedFrom != nil || f.EndedBefore != nil || f.ReceivingAt != nil || len(f.Where) > 0 || len(f.Any) > 0
	f.CountCap = countCap
	res.AllStorefronts = f.StorefrontID == 0
	page, err := s.Subscribers.FindSubscribers(c.Request.Context(), f)
	if err != nil {
		return err
	}
	subs := page.Subscribers
	if backwards {
		slices.Reverse(subs)
	}
	res.Count = templates.FormatCount(page.Total)
	if page.TotalCapped {
		res.Count += "+"
	}
	now, loc := s.now(), s.zone(c)
	byID := map[int64]*shop.Storefront{}
	for _, sf := range sfs {
		byID[sf.ID] = sf
	}
	for _, sb := range subs {
		sf := byID[sb.StorefrontID]
		if sf == nil {
			sf = &shop.Storefront{ID: sb.StorefrontID}
		}
		res.Rows = append(res.Rows, subscriberRow(sb, sf, now, loc))
	}
	if len(subs) == 0 {
		return nil
	}
	first, last := subs[0], subs[len(subs)-1]
	res.OlderURL, res.NewerURL = pageLinks(listURL, q, filter.KindSubscriber, cursorAt(first.CreatedAt, first.ID), cursorAt(last.CreatedAt, last.ID),
		true, page.Next != nil, f.After != nil, backwards)
	return nil
}

// subscriberPage shows one subscriber: the entitlement (docs/API.md#entitlement), the
// subscription, the activity and the purchases.
func (s *Server) subscriberPage(c *gin.Context) error {
	// purchasesShown is how many purchases the page lists; beyond them it links to the
	// purchases page filtered by the subscriber.
	const purchasesShown = 50
	ctx := c.Request.Context()
	sf, sfs, err := s.storefrontOf(c)
	if err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	acct := currentAccount(c)
	loc := s.location(acct.Timezone)
	sb, err := s.Subscribers.FindSubscriberByID(ctx, acct.ID, sf.ID, id)
	if err != nil {
		return err
	}
	activity, err := s.Subscribers.FindSubscriberActivity(ctx, acct.ID, sf.ID, id)
	if err != nil {
		return err
	}
	page, err := s.Purchases.FindPurchases(ctx, shop.PurchaseFilter{AccountID: acct.ID, SubscriberID: id, Desc: true, PerPage: purchasesShown})
	if err != nil {
		return err
	}

	now := s.now()
	v := templates.SubscriberView{
		Chrome:         s.chrome(c, sb.Username, "subscribers"),
		StorefrontName: sf.Name, ListURL: subscribersURL(sf.ID),
		ID: sb.ID, Username: sb.Username,
		Fields: []templates.SubscriberField{
			{Label: "Subscriber id", Value: strconv.FormatInt(sb.ID, 10)},
			{Label: "E-mail", Value: sb.Username, URL: customerURL(sb.Username)},
			subscriberTimeField("Created", &sb.CreatedAt, loc),
			subscriberTimeField("Updated", &sb.UpdatedAt, loc),
			subscriberTimeField("Last login", sb.LastLoginAt, loc),
		},
		Entitlement: entitlementView(sb.Subscription, sf, now, loc),
	}
	if sub := sb.Subscription; sub != nil {
		v.Status = string(sub.Status)
		v.Subscription = subscriptionFields(sub, storefrontCurrency(sf), loc)
	}
	v.StatusText = templates.SubscriptionStatusLabel(v.Status)
	for _, a := range activity {
		v.Activity = append(v.Activity, subscriberActivityEntry(a, loc))
	}
	names := map[int64]string{}
	for _, other := range sfs {
		names[other.ID] = other.Name
	}
	for _, p := range page.Purchases {
		v.Purchases = append(v.Purchases, purchaseRow(p, names, loc))
	}
	if page.Next != nil {
		v.AllPurchasesURL = fmt.Sprintf("/purchases?subscriber_id=%d", id)
	}
	return render(c, templates.Subscriber(v))
}
