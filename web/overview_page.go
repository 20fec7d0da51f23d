package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/errgroup"

	"storefront/internal/filter"
	"storefront/internal/search"
	"storefront/internal/shop"
	"storefront/templates"
)

// The overview's default range: the last 30 days, today included, in whole days of the
// account's zone.
const (
	overviewFrom   = "today -29 days"
	overviewBefore = "tomorrow"
	// overviewWeekly is the range beyond which the chart shows weeks instead of days.
	overviewWeekly = 120 * 24 * time.Hour
	// overviewLongest bounds a range: ten years of weeks still make a readable chart.
	overviewLongest     = overviewLongestDays * 24 * time.Hour
	overviewLongestDays = 3660
	// overviewProducts is how many products the top list shows.
	overviewProducts = 10
)

// overviewRange is the range asked for and the one it is compared with.
type overviewRange struct {
	from, before         time.Time
	prevFrom, prevBefore time.Time
	storefront           int64
}

// parseOverviewRange reads the overview's query: free-form dates as the purchases
// filters read them, and an optional storefront of the account.
func parseOverviewRange(q url.Values, now time.Time, loc *time.Location, storefronts map[int64]string) (overviewRange, error) {
	var r overviewRange
	minText, maxText := q.Get("date_min"), q.Get("date_max")
	if minText == "" {
		minText = overviewFrom
	}
	if maxText == "" {
		maxText = overviewBefore
	}
	var err error
	if r.from, err = filter.ParseDate("date_min", minText, now, loc); err != nil {
		return r, err
	}
	if r.before, err = filter.ParseDate("date_max", maxText, now, loc); err != nil {
		return r, err
	}
	// Whole seconds, as the lists that the figures link to read their dates back.
	r.from, r.before = r.from.Truncate(time.Second), r.before.Truncate(time.Second)
	if !r.from.Before(r.before) {
		return r, shop.ParamErrorf(shop.EInvalid, "date_max", "Created before must be later than Created from.")
	}
	if r.before.Sub(r.from) > overviewLongest {
		return r, shop.ParamErrorf(shop.EInvalid, "date_max", "The range may be at most ten years long.")
	}
	if v := q.Get("storefront_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || storefronts[id] == "" {
			return r, shop.ParamErrorf(shop.EInvalid, "storefront_id", "Choose one of the account's storefronts.")
		}
		r.storefront = id
	}
	// The previous range has the same length: as many calendar days when the range is
	// whole days (a day across a clock change is 23 or 25 hours), else the same duration.
	if isMidnight(r.from, loc) && isMidnight(r.before, loc) {
		days := daysBetween(r.from, r.before, loc)
		r.prevFrom, r.prevBefore = r.from.In(loc).AddDate(0, 0, -days), r.from
	} else {
		r.prevFrom, r.prevBefore = r.from.Add(-r.before.Sub(r.from)), r.from
	}
	return r, nil
}

func isMidnight(t time.Time, loc *time.Location) bool {
	l := t.In(loc)
	return l.Hour() == 0 && l.Minute() == 0 && l.Second() == 0 && l.Nanosecond() == 0
}

// daysBetween counts the calendar days from a's date to b's in loc.
func daysBetween(a, b time.Time, loc *time.Location) int {
	ay, am, ad := a.In(loc).Date()
	by, bm, bd := b.In(loc).Date()
	return int(time.Date(by, bm, bd, 0, 0, 0, 0, time.UTC).Sub(time.Date(ay, am, ad, 0, 0, 0, 0, time.UTC)) / (24 * time.Hour))
}

// overviewPage is the home page: revenue, purchases, refunds, average order and
// subscribers over a range beside the range before it, a chart, and the top products.
func (s *Server) overviewPage(c *gin.Context) error {
	user := currentUser(c)
	acct, err := s.account(c)
	if err != nil {
		return err
	}
	loc := s.location(acct.Timezone)
	// Whole seconds: Churned counts the terms ended until now, and links to them.
	now := s.now().Truncate(time.Second)
	q := c.Request.URL.Query()
	trimFields(q)
	ctx := c.Request.Context()

	sfs, err := s.Accounts.FindStorefronts(ctx, user.AccountID)
	if err != nil {
		return err
	}
	names := map[int64]string{}
	v := templates.OverviewView{Chrome: s.chrome(c, "Overview", "overview")}
	v.Form = templates.OverviewForm{DateMin: q.Get("date_min"), DateMax: q.Get("date_max")}
	if v.Form.DateMin == "" && v.Form.DateMax == "" {
		v.Form.DateMin, v.Form.DateMax = overviewFrom, overviewBefore
	}
	for _, sf := range sfs {
		names[sf.ID] = sf.Name
		id := strconv.FormatInt(sf.ID, 10)
		v.Form.Storefronts = append(v.Form.Storefronts, templates.Option{Value: id, Label: sf.Name, Selected: q.Get("storefront_id") == id})
	}
	v.Form.DateMinHint = dateHint(orDefault(q.Get("date_min"), overviewFrom), now, loc)
	v.Form.DateMaxHint = dateHint(orDefault(q.Get("date_max"), overviewBefore), now, loc)

	r, err := parseOverviewRange(q, now, loc, names)
	if err != nil {
		if shop.ErrorCode(err) == shop.EInternal {
			return err
		}
		v.Error = paramLabel("purchases", shop.ErrorParam(err)) + shop.ErrorMessage(err)
		return write(c, http.StatusBadRequest, templates.Overview(v))
	}
	if err := s.fillOverview(c, &v, r, loc, now); err != nil {
		return err
	}
	return render(c, templates.Overview(v))
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (s *Server) fillOverview(c *gin.Context, v *templates.OverviewView, r overviewRange, loc *time.Location, now time.Time) error {
	ctx := c.Request.Context()
	account := currentUser(c).AccountID
	cur := shop.FigureQuery{AccountID: account, StorefrontID: r.storefront, From: r.from, Before: r.before, Loc: loc}
	if r.before.Sub(r.from) > overviewWeekly {
		cur.Step = 7
	}
	// The previous range is compared as a whole: one cell per currency and status.
	prev := cur
	prev.From, prev.Before, prev.Step = r.prevFrom, r.prevBefore, overviewLongestDays+1

	// The five reads are independent: they run at once, on connections of their own,
	// so that the page waits for the slowest rather than for their sum.
	var (
		cells, prevCells []shop.PurchaseCell
		subs, prevSubs   *shop.SubscriberFigures
		top              []shop.ProductRevenue
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) { cells, err = s.Overview.PurchaseFigures(gctx, cur); return err })
	g.Go(func() (err error) { prevCells, err = s.Overview.PurchaseFigures(gctx, prev); return err })
	g.Go(func() (err error) { subs, err = s.Overview.SubscriberFigures(gctx, cur, now); return err })
	g.Go(func() (err error) { prevSubs, err = s.Overview.SubscriberFigures(gctx, prev, now); return err })
	g.Go(func() (err error) { top, err = s.Overview.TopProducts(gctx, cur, overviewProducts); return err })
	if err := g.Wait(); err != nil {
		return err
	}
	a, b := sumFigures(cells, subs), sumFigures(prevCells, prevSubs)

	v.Range = templates.FormatTime(r.from, loc) + " – " + templates.FormatTime(r.before, loc)
	v.Previous = templates.FormatTime(r.prevFrom, loc) + " – " + templates.FormatTime(r.prevBefore, loc)
	link := func(extra url.Values) string { return overviewLink(r, loc, extra) }

	currencies := currencySet(a.revenue, b.revenue)
	revenue := templates.Figure{Heading: "Revenue", Explain: "The totals of active (ACT) purchases created in the range, by currency.",
		Empty: "No active purchases."}
	average := templates.Figure{Heading: "Average order", Explain: "Revenue divided by the number of active purchases, by currency.",
		Empty: "No active purchases."}
	for _, cur := range currencies {
		ra, rb := ratOr0(a.revenue[cur]), ratOr0(b.revenue[cur])
		fv := templates.FigureValue{Text: formatMoney(ra, cur), Previous: formatMoney(rb, cur), URL: link(url.Values{"status": {"ACT"}, "q": {"currency:" + cur}})}
		fv.Change, fv.Trend = change(ratFloat(ra), ratFloat(rb))
		revenue.Values = append(revenue.Values, fv)
		aa, ab := average0(ra, a.active[cur]), average0(rb, b.active[cur])
		av := templates.FigureValue{Text: formatMoney(aa, cur), Previous: formatMoney(ab, cur), URL: link(url.Values{"status": {"ACT"}, "q": {"currency:" + cur}})}
		av.Change, av.Trend = change(ratFloat(aa), ratFloat(ab))
		average.Values = append(average.Values, av)
	}
	purchases := templates.FigureValue{Text: templates.FormatCount(a.purchases), Previous: templates.FormatCount(b.purchases), URL: link(nil)}
	purchases.Change, purchases.Trend = change(float64(a.purchases), float64(b.purchases))
	refunds := templates.FigureValue{Text: templates.FormatCount(a.refunds), Previous: templates.FormatCount(b.refunds) + " (" + percent(b.refunds, b.purchases) + ")",
		URL: link(url.Values{"status": {"RFD"}}), Detail: percent(a.refunds, a.purchases) + " of purchases"}
	refunds.Change, refunds.Trend = change(float64(a.refunds), float64(b.refunds))
	refunds.Trend = flip(refunds.Trend)

	// Subscriber figures link to the subscribers list (a storefront's, or every
	// storefront's) of what they count, as one search: New subscribers the service terms
	// that began in the range, Churned those that ended in it (until now), by the list's
	// service-term dates; Active subscribers those whose term holds the end of the range
	// (now, when it ends later), an instant (active:"… 00:00:00" at midnight).
	subsURL := func(fields url.Values) string {
		u := allSubscribersURL
		if r.storefront != 0 {
			u = subscribersURL(r.storefront)
		}
		return searchLink(u, search.Subscribers, subscriberBoxFields(now, loc), fields)
	}
	endsBefore := r.before
	if now.Before(endsBefore) {
		endsBefore = now
	}
	active := templates.FigureValue{Text: templates.FormatCount(a.subs.ActiveAtEnd), Previous: templates.FormatCount(b.subs.ActiveAtEnd),
		URL: subsURL(url.Values{"receiving_at": {linkTime(endsBefore, loc)}})}
	active.Change, active.Trend = change(float64(a.subs.ActiveAtEnd), float64(b.subs.ActiveAtEnd))
	started := templates.FigureValue{Text: templates.FormatCount(a.subs.Started), Previous: templates.FormatCount(b.subs.Started),
		URL: subsURL(url.Values{"started_min": {linkTime(r.from, loc)}, "started_max": {linkTime(r.before, loc)}})}
	started.Change, started.Trend = change(float64(a.subs.Started), float64(b.subs.Started))
	churned := templates.FigureValue{Text: templates.FormatCount(a.subs.Ended), Previous: templates.FormatCount(b.subs.Ended),
		URL: subsURL(url.Values{"ended_min": {linkTime(r.from, loc)}, "ended_max": {linkTime(endsBefore, loc)}})}
	churned.Change, churned.Trend = change(float64(a.subs.Ended), float64(b.subs.Ended))
	churned.Trend = flip(churned.Trend)

	v.Figures = []templates.Figure{
		revenue,
		{Heading: "Purchases", Explain: "Purchases created in the range, in every status.", Values: []templates.FigureValue{purchases}},
		{Heading: "Refunds", Explain: "Refunded (RFD) purchases created in the range, and their share of all purchases.", Values: []templates.FigureValue{refunds}},
		average,
		{Heading: "Active subscribers", Explain: "Subscribers receiving service at the end of the range (now, when it ends later).", Values: []templates.FigureValue{active}},
		{Heading: "New subscribers", Explain: "Subscriptions whose service began in the range.", Values: []templates.FigureValue{started}},
		{Heading: "Churned", Explain: "Subscriptions whose service ended in the range.", Values: []templates.FigureValue{churned}},
	}
	v.Charts = overviewCharts(cells, currencies, r, loc)

	products, err := s.Accounts.FindProducts(ctx, account)
	if err != nil {
		return err
	}
	productNames := map[int64]string{}
	for _, p := range products {
		productNames[p.ID] = p.Name
	}
	for _, p := range top {
		name := productNames[p.ProductID]
		if name == "" {
			name = fmt.Sprintf("Product %d", p.ProductID)
		}
		v.Products = append(v.Products, templates.ProductLine{Name: name, Revenue: formatMoney(p.Revenue, p.Currency),
			Purchases: templates.FormatCount(p.Purchases), URL: link(url.Values{"product_id": {strconv.FormatInt(p.ProductID, 10)}, "status": {"ACT"}, "q": {"currency:" + p.Currency}})})
	}
	return nil
}

// overviewLink is the purchases list's address for the range (and storefront) with
// more filters.
func overviewLink(r overviewRange, loc *time.Location, extra url.Values) string {
	q := url.Values{}
	q.Set("date_min", linkTime(r.from, loc))
	q.Set("date_max", linkTime(r.before, loc))
	if r.storefront != 0 {
		q.Set("storefront_id", strconv.FormatInt(r.storefront, 10))
	}
	for k, vs := range extra {
		q[k] = vs
	}
	return searchLink("/purchases", search.Purchases, purchaseBoxFields, q)
}

// searchLink is a list's address for its fields and q as one search, the form its
// address has once the page is used (extra's q narrows the fields further); the fields
// as they are should they not read as one.
func searchLink(path string, kind search.Kind, fields []boxField, q url.Values) string {
	if box, err := combineQuery(kind, fields, q); err == nil {
		return path + "?" + url.Values{"q": {box.Query}}.Encode()
	}
	return path + "?" + q.Encode()
}

// linkTime writes an instant so that the purchases filters read it back exactly: the
// local date (and time, unless midnight) in the account's zone.
func linkTime(t time.Time, loc *time.Location) string {
	if isMidnight(t, loc) {
		return t.In(loc).Format(time.DateOnly)
	}
	return t.In(loc).Format(time.DateTime)
}
