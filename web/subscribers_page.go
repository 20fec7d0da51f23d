package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// subscriberPageSize is how many subscribers a dashboard page shows.
const subscriberPageSize = 25

// subscriberPurchasesShown is how many purchases the page of one subscriber lists;
// beyond them it links to the purchases page filtered by the subscriber.
const subscriberPurchasesShown = 50

// subscriberSearchParams are the parameters of the dashboard's subscriber list.
var subscriberSearchParams = []string{"email", "status", "cursor", "before"}

// subscriberRoutes registers the subscriber pages.
func (s *Server) subscriberRoutes(d *gin.RouterGroup) {
	d.GET("/subscribers", s.subscribersHome)
	d.GET("/storefronts/:storefront_id/subscribers", s.subscribersPage)
	d.GET("/storefronts/:storefront_id/subscribers/:id", s.subscriberPage)
}

// subscriberSearch is the dashboard's subscriber search after parsing.
type subscriberSearch struct {
	Email    string
	Statuses []shop.SubscriptionStatus
	// After pages to older subscribers, Before to newer ones; at most one is set.
	After, Before *shop.Cursor
}

// parseSubscriberSearch reads the subscriber list's query: email (a prefix), status
// (several, or comma-separated, any letter case), and one paging cursor.
func parseSubscriberSearch(q url.Values) (subscriberSearch, error) {
	var out subscriberSearch
	v, err := filter.Check(q, subscriberSearchParams)
	if err != nil {
		return out, err
	}
	if emails := v["email"]; len(emails) > 0 {
		out.Email = strings.TrimSpace(emails[0])
		if utf8.RuneCountInString(out.Email) > filter.MaxTextLen {
			return out, shop.ParamErrorf(shop.EInvalid, "email", "The e-mail is longer than %d characters.", filter.MaxTextLen)
		}
	}
	for _, s := range v["status"] {
		for _, part := range strings.Split(s, ",") {
			part = strings.ToUpper(strings.TrimSpace(part))
			if part == "" {
				continue
			}
			st := shop.SubscriptionStatus(part)
			if !st.Valid() {
				return out, shop.ParamErrorf(shop.EInvalid, "status", "%q is not a subscription status; use NEW, TRIAL, ACTIVE, CANCELED, CLOSED or PAST_DUE.", subscriberClip(part))
			}
			if !slices.Contains(out.Statuses, st) {
				out.Statuses = append(out.Statuses, st)
			}
		}
	}
	cursor, before := v["cursor"], v["before"]
	if len(cursor) > 0 && len(before) > 0 {
		return out, shop.ParamErrorf(shop.EInvalid, "before", "Page with before or with cursor, not both.")
	}
	bad := func(name string) error {
		return shop.ParamErrorf(shop.EInvalid, name, "The page link is not valid; start again from the first page.")
	}
	if len(cursor) > 0 {
		c, desc, err := filter.DecodeCursor(strings.TrimSpace(cursor[0]), filter.KindSubscriber)
		if err != nil || !desc {
			return out, bad("cursor")
		}
		out.After = &c
	}
	if len(before) > 0 {
		c, desc, err := filter.DecodeCursor(strings.TrimSpace(before[0]), filter.KindSubscriber)
		if err != nil || desc {
			return out, bad("before")
		}
		out.Before = &c
	}
	return out, nil
}

func subscriberClip(s string) string {
	if utf8.RuneCountInString(s) <= 64 {
		return s
	}
	return string([]rune(s)[:64]) + "…"
}

// subscribersHome sends the user to the subscribers of the account's first storefront,
// keeping the search; with no storefront it shows the empty page.
func (s *Server) subscribersHome(c *gin.Context) {
	sfs, err := s.Accounts.FindStorefronts(c.Request.Context(), currentUser(c).AccountID)
	if err != nil {
		s.pageError(c, err)
		return
	}
	if len(sfs) == 0 {
		renderStatus(c, http.StatusOK, templates.Subscribers(templates.SubscribersView{Chrome: s.chrome(c, "Subscribers", "subscribers")}))
		return
	}
	target := subscribersURL(sfs[0].ID)
	if c.Request.URL.RawQuery != "" {
		target += "?" + c.Request.URL.RawQuery
	}
	c.Redirect(http.StatusSeeOther, target)
}

func subscribersURL(storefrontID int64) string {
	return fmt.Sprintf("/storefronts/%d/subscribers", storefrontID)
}

// storefrontOf returns the account's storefront named by the path (400 when the id is
// malformed, 404 when it is not the account's) and all of the account's storefronts.
func (s *Server) storefrontOf(c *gin.Context) (*shop.Storefront, []*shop.Storefront, error) {
	id, err := pathID(c, "storefront_id")
	if err != nil {
		return nil, nil, err
	}
	sfs, err := s.Accounts.FindStorefronts(c.Request.Context(), currentUser(c).AccountID)
	if err != nil {
		return nil, nil, err
	}
	for _, sf := range sfs {
		if sf.ID == id {
			return sf, sfs, nil
		}
	}
	return nil, nil, shop.Errorf(shop.ENotFound, "Storefront %d was not found.", id)
}

// subscribersPage lists a storefront's subscribers with the e-mail search and the
// status filter. An htmx request gets the results fragment, anything else the page.
func (s *Server) subscribersPage(c *gin.Context) {
	sf, sfs, err := s.storefrontOf(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	acct, err := s.account(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	loc := s.location(acct.Timezone)
	listURL := subscribersURL(sf.ID)
	q := c.Request.URL.Query()

	res := templates.SubscriberResults{ClearURL: listURL}
	search, serr := parseSubscriberSearch(q)
	status := http.StatusOK
	if serr != nil {
		if shop.ErrorCode(serr) == shop.EInternal {
			s.pageError(c, serr)
			return
		}
		res.Error = subscriberParamLabel(shop.ErrorParam(serr)) + shop.ErrorMessage(serr)
		status = http.StatusBadRequest
	} else if err := s.fillSubscriberResults(c, &res, sf, search, q, loc); err != nil {
		s.pageError(c, err)
		return
	}
	if serr == nil {
		x := url.Values{}
		for k, vs := range q {
			if k != "cursor" && k != "before" {
				x[k] = vs
			}
		}
		res.Export.PerPurchase = cleanURL(listURL+".csv", x)
	}

	if isFragment(c) {
		c.Header("HX-Push-Url", cleanURL(listURL, q))
		renderStatus(c, http.StatusOK, templates.SubscriberResultsFragment(res))
		return
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
	renderStatus(c, status, templates.Subscribers(v))
}

// subscriberForm fills the search form with the values of the request.
func subscriberForm(action string, q url.Values) templates.SubscriberFilterForm {
	form := templates.SubscriberFilterForm{Action: action, Email: q.Get("email")}
	chosen := map[string]bool{}
	for _, v := range q["status"] {
		for _, part := range strings.Split(v, ",") {
			chosen[strings.ToUpper(strings.TrimSpace(part))] = true
		}
	}
	for _, st := range shop.SubscriptionStatuses {
		form.Statuses = append(form.Statuses, templates.Check{Value: string(st), Label: templates.SubscriptionStatusLabel(string(st)), Checked: chosen[string(st)]})
	}
	return form
}

// fillSubscriberResults loads one page of subscribers, newest first, with the count and
// the paging links.
func (s *Server) fillSubscriberResults(c *gin.Context, res *templates.SubscriberResults, sf *shop.Storefront, search subscriberSearch, q url.Values, loc *time.Location) error {
	f := shop.SubscriberFilter{
		AccountID: currentUser(c).AccountID, StorefrontID: sf.ID,
		UsernamePrefix: search.Email, Statuses: search.Statuses,
		Desc: true, PerPage: subscriberPageSize, After: search.After, IncludeCount: true,
	}
	backwards := search.Before != nil
	if backwards {
		f.After, f.Desc = search.Before, false
	}
	res.Filtered = search.Email != "" || len(search.Statuses) > 0
	page, err := s.Subscribers.FindSubscribers(c.Request.Context(), f)
	if err != nil {
		return err
	}
	subs := page.Subscribers
	if backwards {
		slices.Reverse(subs)
	}
	res.Count = templates.FormatCount(page.Total)
	now := s.now()
	for _, sb := range subs {
		res.Rows = append(res.Rows, subscriberRow(sb, sf, now, loc))
	}
	if len(subs) == 0 {
		return nil
	}
	first, last := subs[0], subs[len(subs)-1]
	hasOlder := page.Next != nil
	hasNewer := search.After != nil
	if backwards {
		hasOlder, hasNewer = true, page.Next != nil
	}
	res.OlderURL, res.NewerURL = pageLinks(subscribersURL(sf.ID), q, filter.KindSubscriber,
		shop.Cursor{CreatedAt: first.CreatedAt.Time, ID: first.ID}, shop.Cursor{CreatedAt: last.CreatedAt.Time, ID: last.ID}, hasOlder, hasNewer)
	return nil
}

func subscriberRow(sb *shop.Subscriber, sf *shop.Storefront, now time.Time, loc *time.Location) templates.SubscriberRow {
	row := templates.SubscriberRow{
		ID: sb.ID, URL: fmt.Sprintf("%s/%d", subscribersURL(sf.ID), sb.ID), Email: sb.Username,
		Plan: "—", NextPayment: "—",
		Receiving: shop.Entitle(sb.Subscription, now).ReceivingService,
	}
	if sub := sb.Subscription; sub != nil {
		row.Status = string(sub.Status)
		row.Plan = subscriberPlan(sub.Price, sub.Period, sub.Unit, storefrontCurrency(sf))
		if sub.NextPaymentAt != nil {
			row.NextPayment = templates.FormatTime(sub.NextPaymentAt.Time, loc)
			row.NextPaymentISO = sub.NextPaymentAt.UTC().Format(time.RFC3339)
		}
	}
	row.StatusText = templates.SubscriptionStatusLabel(row.Status)
	return row
}

func storefrontCurrency(sf *shop.Storefront) string {
	if sf.Currency == nil {
		return ""
	}
	return *sf.Currency
}

// periodUnitName names a period unit (D, W, M, Y), singular and plural.
func periodUnitName(unit string, n int64) string {
	names := map[string][2]string{"D": {"day", "days"}, "W": {"week", "weeks"}, "M": {"month", "months"}, "Y": {"year", "years"}}
	nm, ok := names[unit]
	if !ok {
		return unit
	}
	if n == 1 {
		return nm[0]
	}
	return nm[1]
}

// subscriberPlan writes a price and its period: "9.99 USD / month", "25.00 / 3 months".
func subscriberPlan(price shop.Money, period int64, unit, currency string) string {
	amount := string(price)
	if currency != "" {
		amount += " " + currency
	}
	if period == 1 {
		return amount + " / " + periodUnitName(unit, 1)
	}
	return fmt.Sprintf("%s / %d %s", amount, period, periodUnitName(unit, period))
}

// subscriberParamLabel names a search parameter the way the form labels it.
func subscriberParamLabel(param string) string {
	switch param {
	case "email":
		return "E-mail: "
	case "status":
		return "Subscription status: "
	}
	return ""
}

// subscriberPage shows one subscriber: the entitlement (docs/API.md#entitlement), the
// subscription, the activity and the purchases.
func (s *Server) subscriberPage(c *gin.Context) {
	ctx := c.Request.Context()
	sf, sfs, err := s.storefrontOf(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	id, err := pathID(c, "id")
	if err != nil {
		s.pageError(c, err)
		return
	}
	acct, err := s.account(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	loc := s.location(acct.Timezone)
	sb, err := s.Subscribers.FindSubscriberByID(ctx, acct.ID, sf.ID, id)
	if err != nil {
		s.pageError(c, err)
		return
	}
	activity, err := s.Subscribers.FindSubscriberActivity(ctx, acct.ID, sf.ID, id)
	if err != nil {
		s.pageError(c, err)
		return
	}
	page, err := s.Purchases.FindPurchases(ctx, shop.PurchaseFilter{AccountID: acct.ID, SubscriberID: id, Desc: true, PerPage: subscriberPurchasesShown})
	if err != nil {
		s.pageError(c, err)
		return
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
	renderStatus(c, http.StatusOK, templates.Subscriber(v))
}

// subscriberTimeField shows an instant in the account's zone, "—" for null.
func subscriberTimeField(label string, t *shop.Time, loc *time.Location) templates.SubscriberField {
	if t == nil {
		return templates.SubscriberField{Label: label, Value: "—"}
	}
	return templates.SubscriberField{Label: label, Value: templates.FormatTime(t.Time, loc), ISO: t.UTC().Format(time.RFC3339)}
}

// subscriptionFields lists every field of a subscription (docs/API.md#subscription); null
// is "—".
func subscriptionFields(sub *shop.Subscription, currency string, loc *time.Location) []templates.SubscriberField {
	money := func(m *shop.Money) string {
		if m == nil {
			return "—"
		}
		if currency != "" {
			return string(*m) + " " + currency
		}
		return string(*m)
	}
	unit := func(u *string) string {
		if u == nil {
			return "—"
		}
		if name := periodUnitName(*u, 1); name != *u {
			return fmt.Sprintf("%s (%s)", *u, name)
		}
		return *u
	}
	num := func(n *int64) string {
		if n == nil {
			return "—"
		}
		return strconv.FormatInt(*n, 10)
	}
	price, tax, period, u := sub.Price, sub.TaxAmount, sub.Period, sub.Unit
	return []templates.SubscriberField{
		{Label: "Subscription id", Value: strconv.FormatInt(sub.ID, 10)},
		{Label: "Status", Value: string(sub.Status)},
		{Label: "Price", Value: money(&price)},
		{Label: "Period", Value: num(&period)},
		{Label: "Unit", Value: unit(&u)},
		{Label: "Tax amount", Value: money(&tax)},
		{Label: "Trial price", Value: money(sub.TrialPrice)},
		{Label: "Trial period", Value: num(sub.TrialPeriod)},
		{Label: "Trial unit", Value: unit(sub.TrialUnit)},
		{Label: "Trial tax amount", Value: money(sub.TrialTaxAmount)},
		subscriberTimeField("Created", &sub.CreatedAt, loc),
		subscriberTimeField("Updated", &sub.UpdatedAt, loc),
		subscriberTimeField("Started", sub.StartedAt, loc),
		subscriberTimeField("Ended", sub.EndedAt, loc),
		subscriberTimeField("Trial started", sub.TrialStartedAt, loc),
		subscriberTimeField("Last payment", sub.LastPaymentAt, loc),
		subscriberTimeField("Next payment", sub.NextPaymentAt, loc),
	}
}

// entitlementView puts the entitlement decision at now in words.
func entitlementView(sub *shop.Subscription, sf *shop.Storefront, now time.Time, loc *time.Location) templates.EntitlementView {
	e := shop.Entitle(sub, now)
	v := templates.EntitlementView{Receiving: e.ReceivingService, Reason: e.Reason, Headline: "Not receiving service"}
	if e.ReceivingService {
		v.Headline = "Receiving service"
	}
	if e.AccessUntil != nil {
		v.Until = templates.FormatTime(e.AccessUntil.Time, loc)
		v.UntilISO = e.AccessUntil.UTC().Format(time.RFC3339)
	}
	switch e.Reason {
	case shop.ReasonActive:
		v.Why = "The subscription is active and no payment is due."
	case shop.ReasonTrial:
		v.Why = "The subscription is in its trial period."
	case shop.ReasonPastDue:
		v.Why = fmt.Sprintf("A payment is overdue. Service continues for a grace period of %d days after the missed payment; if the payment has not arrived by then, the subscription is closed.", sf.PastDueGraceDays)
		if sub.NextPaymentAt != nil {
			end := sub.NextPaymentAt.AddDate(0, 0, int(sf.PastDueGraceDays))
			v.Why = fmt.Sprintf("A payment is overdue. Service continues during the grace period of %d days, until %s; if the payment has not arrived by then, the subscription is closed.",
				sf.PastDueGraceDays, templates.FormatTime(end, loc))
		}
	case shop.ReasonCanceledUntilTermEnd:
		v.Why = "The subscription was canceled. Service continues until the end of the term already paid for."
	case shop.ReasonCanceledTermEnded:
		if e.AccessUntil != nil {
			v.Why = "The subscription was canceled and the term it paid for has ended."
		} else {
			v.Why = "The subscription was canceled and no paid term is known (it has neither an end nor a next payment time), so no service is left."
		}
	case shop.ReasonClosed:
		v.Why = "The subscription was canceled and closed."
	case shop.ReasonNew:
		v.Why = "The subscription was never activated: the subscriber is checking out or abandoned the sign-up."
	case shop.ReasonNoSubscription:
		v.Why = "This subscriber has no subscription."
	}
	return v
}

// subscriberActivityEntry puts one activity record in words.
func subscriberActivityEntry(a shop.Activity, loc *time.Location) templates.SubscriberActivityEntry {
	e := templates.SubscriberActivityEntry{
		When: templates.FormatTime(a.CreatedAt.Time, loc), WhenISO: a.CreatedAt.UTC().Format(time.RFC3339),
		Actor: a.Actor, Action: strings.ReplaceAll(a.Action, "_", " "), Details: a.Details,
	}
	if a.Action == "closed_past_due" {
		e.Action = "Subscription closed: payment not received"
		var d struct {
			From         string `json:"from"`
			To           string `json:"to"`
			GraceEndedAt *int64 `json:"grace_ended_at"`
		}
		if json.Unmarshal([]byte(a.Details), &d) == nil && d.From != "" && d.To != "" {
			e.Details = fmt.Sprintf("Status changed from %s to %s", d.From, d.To)
			if d.GraceEndedAt != nil {
				e.Details += "; the grace period ended " + templates.FormatTime(time.Unix(*d.GraceEndedAt, 0), loc)
			}
			e.Details += "."
		}
	}
	return e
}
