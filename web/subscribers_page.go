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
	"storefront/internal/shop"
	"storefront/templates"
)

// subscriberPurchasesShown is how many purchases the page of one subscriber lists;
// beyond them it links to the purchases page filtered by the subscriber.
const subscriberPurchasesShown = 50

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

// subscribersPage lists a storefront's subscribers with the e-mail search and the
// status filter. An htmx request gets the results fragment, anything else the page.
func (s *Server) subscribersPage(c *gin.Context) error {
	sf, sfs, err := s.storefrontOf(c)
	if err != nil {
		return err
	}
	acct := currentAccount(c)
	listURL := subscribersURL(sf.ID)
	q := c.Request.URL.Query()

	res := templates.SubscriberResults{ClearURL: listURL}
	show := func(fragment bool) (templ.Component, error) {
		if fragment {
			c.Header("HX-Push-Url", cleanURL(listURL, q))
			return templates.SubscriberResultsFragment(res), nil
		}
		v := templates.SubscribersView{
			Chrome:         s.chrome(c, "Subscribers · "+sf.Name, "subscribers"),
			StorefrontName: sf.Name,
			Form:           subscriberForm(listURL, q),
			Results:        res,
		}
		for _, other := range sfs {
			v.Storefronts = append(v.Storefronts, templates.StorefrontTab{Name: other.Name, URL: subscribersURL(other.ID), Current: other.ID == sf.ID})
		}
		return templates.Subscribers(v), nil
	}
	f, backwards, serr := filter.SubscriberSearch(q, acct.ID, sf.ID)
	return answerList(c, "subscribers", serr, &res.Error, func() error {
		f.PerPage = dashboardPageSize
		return s.fillSubscriberResults(c, &res, sf, f, backwards, q)
	}, show)
}

// fillSubscriberResults loads one page of subscribers, newest first, with the count and
// the paging links.
func (s *Server) fillSubscriberResults(c *gin.Context, res *templates.SubscriberResults, sf *shop.Storefront, f shop.SubscriberFilter, backwards bool, q url.Values) error {
	res.Filtered = f.UsernamePrefix != "" || len(f.Statuses) > 0
	page, err := s.Subscribers.FindSubscribers(c.Request.Context(), f)
	if err != nil {
		return err
	}
	subs := page.Subscribers
	if backwards {
		slices.Reverse(subs)
	}
	res.Count = templates.FormatCount(page.Total)
	now, loc := s.now(), s.zone(c)
	for _, sb := range subs {
		res.Rows = append(res.Rows, subscriberRow(sb, sf, now, loc))
	}
	if len(subs) == 0 {
		return nil
	}
	first, last := subs[0], subs[len(subs)-1]
	res.OlderURL, res.NewerURL = pageLinks(subscribersURL(sf.ID), q, filter.KindSubscriber, cursorAt(first.CreatedAt, first.ID), cursorAt(last.CreatedAt, last.ID),
		page.Next != nil, f.After != nil, backwards)
	return nil
}

// subscriberPage shows one subscriber: the entitlement (docs/API.md#entitlement), the
// subscription, the activity and the purchases.
func (s *Server) subscriberPage(c *gin.Context) error {
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
	page, err := s.Purchases.FindPurchases(ctx, shop.PurchaseFilter{AccountID: acct.ID, SubscriberID: id, Desc: true, PerPage: subscriberPurchasesShown})
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
			{Label: "E-mail", Value: sb.Username},
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
