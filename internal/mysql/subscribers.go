package mysql

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

var subscriberColumns = []string{
	"sb.id", "sb.storefront_id", "sb.created_at", "sb.updated_at", "sb.username", "sb.last_login_at",
	"ss.id", "ss.status", "ss.price", "ss.period", "ss.unit", "ss.tax_amount", "ss.trial_price", "ss.trial_period",
	"ss.trial_unit", "ss.trial_tax_amount", "ss.created_at", "ss.updated_at", "ss.started_at", "ss.ended_at",
	"ss.trial_started_at", "ss.last_payment_at", "ss.next_payment_at", "sf.currency",
}

func scanSubscriber(rows *sql.Rows) (*shop.Subscriber, error) {
	var (
		s                    shop.Subscriber
		subID                sql.NullInt64
		status, unit         sql.NullString
		price, tax           sql.NullString
		period               sql.NullInt64
		sub                  shop.Subscription
		trialPrice, trialTax sql.NullString
		created, updated     *shop.Time
		currency             sql.NullString
	)
	err := rows.Scan(&s.ID, &s.StorefrontID, &s.CreatedAt, &s.UpdatedAt, &s.Username, &s.LastLoginAt,
		&subID, &status, &price, &period, &unit, &tax, &trialPrice, &sub.TrialPeriod,
		&sub.TrialUnit, &trialTax, &created, &updated, &sub.StartedAt, &sub.EndedAt,
		&sub.TrialStartedAt, &sub.LastPaymentAt, &sub.NextPaymentAt, &currency)
	if err != nil {
		return nil, err
	}
	if subID.Valid {
		digits := 2
		if currency.Valid {
			digits = currencyDigits(currency.String)
		}
		sub.ID = subID.Int64
		sub.Status = shop.SubscriptionStatus(status.String)
		sub.Price = formatMoney(price.String, digits)
		sub.Period = period.Int64
		sub.Unit = unit.String
		sub.TaxAmount = formatMoney(tax.String, digits)
		if trialPrice.Valid {
			m := formatMoney(trialPrice.String, digits)
			sub.TrialPrice = &m
		}
		if trialTax.Valid {
			m := formatMoney(trialTax.String, digits)
			sub.TrialTaxAmount = &m
		}
		if created != nil {
			sub.CreatedAt = *created
		}
		if updated != nil {
			sub.UpdatedAt = *updated
		}
		s.Subscription = &sub
	}
	return &s, nil
}

// checkStorefront returns ENotFound unless the storefront belongs to the account.
func checkStorefront(ctx context.Context, q queryer, accountID, storefrontID int64) error {
	var one int
	err := q.QueryRowContext(ctx, "SELECT 1 FROM storefronts WHERE id = ? AND account_id = ?", storefrontID, accountID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return shop.Errorf(shop.ENotFound, "Storefront %d was not found.", storefrontID)
	}
	return translate(err)
}

// narrowMost is how many subscribers a narrower way in (narrowWay) may find for the
// list's page to be read from it and sorted: beyond it, one match in 80 or more of the
// account's at 100,000 subscribers, the list order reaches a page in a few thousand
// rows. (A variable: the enumeration of statements for the Vitess check sets it below
// every count, to send the statements of common matches too.)
var narrowMost int64 = 1000

// listWindow is how many of the list order's first subscribers a page of many matches
// is looked for in before it is read another way (findSubscribers). (A variable, as
// narrowMost: the enumeration sets it to none, to send the statements read after.)
var listWindow uint64 = 500

// narrowWay returns a way into the subscribers f selects that is narrower than the
// list order, when f has one and has no path of its own (taken): its FROM clause,
// subscribers sb joined, and the condition that bounds its range; none when f can
// select nothing.
//   - The beginnings of user names on every storefront (a word typed into the list of
//     them): each of the account's storefronts' ranges of them in
//     subscribers_storefront_username.
//   - A few ids (id:, a number typed, Find's): their keys.
//   - A service term's start or end in a range (the overview's "New subscribers" and
//     "Churned", a started: or ended: search): its range of subscriber_terms_start or
//     subscriber_terms_end, which hold the storefront.
//
// The terms' range is read first (STRAIGHT_JOIN), under the alias st, the filter's own
// join of the terms when its dates make one (the statement then joins them once).
func narrowWay(ctx context.Context, q queryer, f shop.SubscriberFilter, taken bool, st string) (table string, cond sq.Sqlizer, none bool, err error) {
	if taken || len(f.Any) > 0 {
		return "", nil, false, nil
	}
	if ids := idBounds(f); ids != nil {
		return "subscribers sb FORCE INDEX (PRIMARY)", idRanges("sb.id", ids), false, nil
	}
	if namesBeginning(f) && f.StorefrontID == 0 {
		ids, err := appendIDs(ctx, q, nil, "SELECT id FROM storefronts WHERE account_id = ? ORDER BY id", f.AccountID)
		return "subscribers sb FORCE INDEX (subscribers_storefront_username)", sq.Eq{"sb.storefront_id": ids}, len(ids) == 0, err
	}
	col, ranges := termBounds(f)
	if ranges == nil {
		return "", nil, false, nil
	}
	bound := sq.And{sq.Eq{st + ".account_id": f.AccountID}, timeRanges(st+"."+col, ranges)}
	if f.StorefrontID != 0 {
		bound = append(bound, sq.Eq{st + ".storefront_id": f.StorefrontID})
	}
	return "subscriber_terms " + st + " FORCE INDEX (subscriber_terms_" + strings.TrimSuffix(col, "_at") + ") " +
		"STRAIGHT_JOIN subscribers sb ON sb.account_id = " + st + ".account_id AND sb.id = " + st + ".subscriber_id", bound, false, nil
}

// termBounds returns the column of subscriber_terms (start_at or end_at) that every
// subscriber f selects has in one of ranges, bounded each: the filter's started or
// ended dates, else a search's started: or ended:. Nil when f has none.
func termBounds(f shop.SubscriberFilter) (string, []shop.TimeRange) {
	utc := func(t *time.Time) *time.Time {
		if t == nil {
			return nil
		}
		u := t.UTC()
		return &u
	}
	switch {
	case f.StartedFrom != nil || f.StartedBefore != nil:
		return "start_at", []shop.TimeRange{{From: utc(f.StartedFrom), To: utc(f.StartedBefore)}}
	case f.EndedFrom != nil || f.EndedBefore != nil:
		return "end_at", []shop.TimeRange{{From: utc(f.EndedFrom), To: utc(f.EndedBefore)}}
	}
	// A search's conditions all hold: the ranges of one value each (started>=X
	// started<Y) meet in one; a condition of several ranges is taken alone.
	for _, field := range []shop.CondField{shop.CondStarted, shop.CondEnded} {
		var one *shop.TimeRange
		var several []shop.TimeRange
		for _, c := range f.Where {
			switch {
			case c.Not || c.Field != field || len(c.Times) == 0 ||
				slices.ContainsFunc(c.Times, func(r shop.TimeRange) bool { return r.From == nil && r.To == nil }):
			case len(c.Times) > 1:
				several = c.Times
			case one == nil:
				one = &shop.TimeRange{From: c.Times[0].From, To: c.Times[0].To}
			default:
				one.From, one.To = later(one.From, c.Times[0].From), earlier(one.To, c.Times[0].To)
			}
		}
		col := map[shop.CondField]string{shop.CondStarted: "start_at", shop.CondEnded: "end_at"}[field]
		switch {
		case one != nil:
			return col, []shop.TimeRange{*one}
		case several != nil:
			return col, several
		}
	}
	return "", nil
}

// later returns the later of two bounds from below, nil for none.
func later(a, b *time.Time) *time.Time {
	if a == nil || (b != nil && b.After(*a)) {
		return b
	}
	return a
}

// earlier returns the earlier of two bounds from above, nil for none.
func earlier(a, b *time.Time) *time.Time {
	if a == nil || (b != nil && b.Before(*a)) {
		return b
	}
	return a
}

// idBounds returns the ids every subscriber f selects has one of, when a search's id:
// holds them, 10,000 at most (a wider range of keys holds other accounts' too).
func idBounds(f shop.SubscriberFilter) []shop.IDRange {
	for _, c := range f.Where {
		if c.Not || c.Field != shop.CondID || len(c.IDs) == 0 {
			continue
		}
		var n int64
		for _, r := range c.IDs {
			// (A difference past the int64s' end reads as negative: too wide too.)
			if span := r.Max - r.Min; r.Max >= r.Min && (span < 0 || span >= 10_000) {
				n = 10_001
				break
			} else if r.Max >= r.Min {
				n += span + 1
			}
		}
		if n <= 10_000 {
			return c.IDs
		}
	}
	return nil
}

// namesBeginning reports whether every subscriber f selects has a user name that
// begins with one of some texts: the dashboard's e-mail field, or a search's email:
// or its words (which match the beginning of a user name, or an id when a number).
func namesBeginning(f shop.SubscriberFilter) bool {
	if f.UsernamePrefix != "" {
		return true
	}
	for _, c := range f.Where {
		if !c.Not && (c.Field == shop.CondText || c.Field == shop.CondEmail) && len(c.Texts) > 0 && len(c.IDs) == 0 {
			return true
		}
	}
	return false
}

// FindSubscribers returns one page of a storefront's subscribers with their
// subscriptions. Returns ENotFound when the storefront is not the account's.
func (s *SubscriberService) FindSubscribers(ctx context.Context, f shop.SubscriberFilter) (*shop.SubscriberPage, error) {
	db := s.db
	return db.findSubscribers(ctx, db.DB, f, 0)
}

func (db *DB) findSubscribers(ctx context.Context, q queryer, f shop.SubscriberFilter, id int64) (*shop.SubscriberPage, error) {
	where := sq.And{sq.Eq{"sb.account_id": f.AccountID}}
	if f.StorefrontID != 0 || id != 0 {
		if err := checkStorefront(ctx, q, f.AccountID, f.StorefrontID); err != nil {
			return nil, err
		}
		where = append(where, sq.Eq{"sb.storefront_id": f.StorefrontID})
	}
	n := perPage(f.PerPage)
	if id != 0 {
		where = append(where, sq.Eq{"sb.id": id})
	}
	where = append(where, subscriberConditions(f)...)
	if len(f.Any) > 0 {
		// A search's union: any of its conjunctions, each checked on the row.
		var or sq.Or
		for _, b := range f.Any {
			or = append(or, append(sq.And{sq.Expr("TRUE")}, subscriberConditions(b)...))
		}
		where = append(where, or)
	}
	// The service terms the overview counts (subscriber_terms), when dates bound them.
	terms := false
	for _, b := range []struct {
		col, op string
		t       *time.Time
	}{{"st.start_at", ">=", f.StartedFrom}, {"st.start_at", "<", f.StartedBefore}, {"st.end_at", ">=", f.EndedFrom}, {"st.end_at", "<", f.EndedBefore}} {
		if b.t != nil {
			terms = true
			where = append(where, sq.Expr(b.col+" "+b.op+" ?", clampTime(b.t.UTC())))
		}
	}
	if f.ReceivingAt != nil {
		terms = true
		at := clampTime(f.ReceivingAt.UTC())
		// The term [start, end) holds the instant, as shop.Entitle decides.
		where = append(where, sq.Expr("st.start_at <= ? AND (st.end_at IS NULL OR st.end_at > ?)", at, at))
	}
	table := "subscribers sb"
	// One status (a status: search, a ticked box), whatever else is asked: its range in
	// list order, of the account or of the storefront (migration 00232), where the
	// subscription's status is copied onto the subscriber's row; the subscription's own
	// is checked as well. Every other condition is checked on the range's rows.
	oneStatus := len(f.Statuses) == 1
	switch {
	case f.Username != "" && id == 0:
		// A user name: a probe of each storefront's entry (a customer's records). Left
		// to choose, MariaDB once walked every subscriber of the account in list order
		// instead, 80,000 rows for none found, on a database just loaded.
		table = "subscribers sb FORCE INDEX (subscribers_storefront_username)"
	case oneStatus && id == 0:
		where = append(where, sq.Eq{"sb.status": string(f.Statuses[0])})
		table = "subscribers sb FORCE INDEX (subscribers_account_status)"
		if f.StorefrontID != 0 {
			table = "subscribers sb FORCE INDEX (subscribers_storefront_status)"
		}
	case f.StorefrontID == 0 && id == 0:
		// Every storefront's: the account's range of subscribers_account_created, in
		// list order and holding the storefront (migration 00231). MariaDB would rather
		// walk each storefront's range and sort them all.
		table = "subscribers sb FORCE INDEX (subscribers_account_created)"
	}
	// A narrower way into the matches than the list order, when the filter has one.
	// The count reads it (or, uncounted, a count up to narrowMost), and so does the
	// page when it holds few enough matches to sort; else the matches are common, and
	// the list order finds a page of them soon.
	// Walking the list order for rare matches read every subscriber of the account
	// twice, for the count and for the page.
	termsAlias := "stx"
	if terms {
		termsAlias = "st"
	}
	narrowTable, narrow, none, err := narrowWay(ctx, q, f, id != 0 || f.Username != "" || oneStatus, termsAlias)
	if err != nil {
		return nil, err
	}
	if none {
		empty := &shop.SubscriberPage{Subscribers: []*shop.Subscriber{}, Total: -1}
		if f.IncludeCount {
			empty.Total = 0
		}
		return empty, nil
	}
	// joins joins to sb, read first from table, what the conditions and columns need.
	joins := func(sel sq.SelectBuilder, table string) sq.SelectBuilder {
		sel = sel.Join("storefronts sf ON sf.account_id = sb.account_id AND sf.id = sb.storefront_id").
			LeftJoin("subscriptions ss ON ss.account_id = sb.account_id AND ss.subscriber_id = sb.id")
		if terms && !strings.HasPrefix(table, "subscriber_terms st ") {
			sel = sel.Join("subscriber_terms st ON st.account_id = sb.account_id AND st.subscriber_id = sb.id")
		}
		return sel
	}
	from := func(sel sq.SelectBuilder, table string) sq.SelectBuilder { return joins(sel.From(table), table) }
	page := &shop.SubscriberPage{Subscribers: []*shop.Subscriber{}, Total: -1}
	if f.IncludeCount {
		countTable, countWhere := table, where
		if narrow != nil {
			countTable, countWhere = narrowTable, append(sq.And{narrow}, where...)
		}
		query, args, err := from(sq.Select("COUNT(*)"), countTable).Where(countWhere).ToSql()
		if f.CountCap > 0 {
			// Up to the cap: a count of every active subscriber walked them all.
			query, args, err = countUpTo(from(sq.Select("1"), countTable).Where(countWhere), f.CountCap)
		}
		if err != nil {
			return nil, err
		}
		if err := q.QueryRowContext(ctx, query, args...).Scan(&page.Total); err != nil {
			return nil, translate(err)
		}
		if f.CountCap > 0 && page.Total > f.CountCap {
			page.Total, page.TotalCapped = f.CountCap, true
		}
	}
	matches := page.Total
	if narrow != nil && !f.IncludeCount {
		// Not counted (the API's pages, an export's batches): whether the narrower way
		// holds few enough to sort, counted up to that many, unless an earlier batch
		// of the list did.
		if f.Looked != nil {
			matches = *f.Looked
		} else {
			query, args, err := countUpTo(from(sq.Select("1"), narrowTable).Where(append(sq.And{narrow}, where...)), narrowMost)
			if err != nil {
				return nil, err
			}
			if err := q.QueryRowContext(ctx, query, args...).Scan(&matches); err != nil {
				return nil, translate(err)
			}
		}
		page.Looked = &matches
	}
	if f.After != nil {
		where = append(where, keysetCondition("sb.created_at", "sb.id", f.After, f.Desc))
	}
	run := func(sel sq.SelectBuilder) error {
		page.Subscribers = page.Subscribers[:0]
		query, args, err := sel.Where(where).OrderBy(orderBy("sb.created_at", "sb.id", f.Desc)).Limit(uint64(n + 1)).ToSql()
		if err != nil {
			return err
		}
		return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
			s, err := scanSubscriber(rows)
			if err != nil {
				return err
			}
			page.Subscribers = append(page.Subscribers, s)
			return nil
		})
	}
	done := false
	switch {
	case narrow == nil:
	case matches <= narrowMost:
		table, where = narrowTable, append(sq.And{narrow}, where...)
	case f.Page <= 1 && uint64(n+1)*4 <= listWindow:
		// Many matches: first the window of the list order's first subscribers
		// (listWindow, four pages or more), which holds a page of them when they are
		// dense where the list begins (a month's new subscribers, newest first). Else,
		// by the matches the window held: the list order, forced, when at that rate its
		// walk to a page is shorter than twice the matches counted; else, every
		// storefront's counted below 10,000, the narrower way sorted; else the list
		// order (every storefront's, forced above) or MariaDB's choice (a
		// storefront's). Walking the list order to starts two years old read 0.65 s on
		// every storefront, 0.86 s on one; the API's oldest-first page of a month's
		// starts, 0.7 s.
		list, scope := "subscribers_account_created", sq.And{sq.Eq{"sbw.account_id": f.AccountID}}
		if f.StorefrontID != 0 {
			list, scope = "subscribers_storefront_created", append(scope, sq.Eq{"sbw.storefront_id": f.StorefrontID})
		}
		if f.After != nil {
			scope = append(scope, keysetCondition("sbw.created_at", "sbw.id", f.After, f.Desc))
		}
		window := sq.Select("sbw.account_id", "sbw.id").From("subscribers sbw FORCE INDEX (" + list + ")").Where(scope).
			OrderBy(orderBy("sbw.created_at", "sbw.id", f.Desc)).Limit(listWindow)
		if err := run(joins(sq.Select(subscriberColumns...).FromSelect(window, "w").
			JoinClause("STRAIGHT_JOIN subscribers sb ON sb.account_id = w.account_id AND sb.id = w.id"), "")); err != nil {
			return nil, err
		}
		held := uint64(len(page.Subscribers))
		counted := f.IncludeCount && !page.TotalCapped
		switch done = held > uint64(n); {
		case done:
		case held > 0 && (!counted || uint64(n+1)*listWindow/held <= 2*uint64(matches)):
			table = "subscribers sb FORCE INDEX (" + list + ")"
		case counted && f.StorefrontID == 0:
			table, where = narrowTable, append(sq.And{narrow}, where...)
		}
	}
	if !done {
		sel := from(sq.Select(subscriberColumns...), table)
		if f.Page > 1 {
			sel = sel.Offset(uint64(f.Page-1) * uint64(n))
		}
		if err := run(sel); err != nil {
			return nil, err
		}
	}
	if len(page.Subscribers) > n {
		page.Subscribers = page.Subscribers[:n]
		last := page.Subscribers[n-1]
		page.Next = &shop.Cursor{CreatedAt: last.CreatedAt.Time, ID: last.ID}
	}
	return page, nil
}

// subscriberConditions are the conditions of a filter's user name, statuses and
// search (Where) on subscribers sb joined with their subscriptions ss.
func subscriberConditions(f shop.SubscriberFilter) sq.And {
	var where sq.And
	if f.Username != "" {
		// = under utf8mb4_unicode_ci ignores letter case and accents; it also ignores
		// trailing spaces (PAD SPACE), which the second test, with a mark after both
		// sides, does not: "a@b.com " is no "a@b.com". The first serves the index.
		where = append(where, sq.Eq{"sb.username": f.Username}, sq.Expr("CONCAT(sb.username, '.') = CONCAT(?, '.')", f.Username))
	}
	if f.UsernamePrefix != "" {
		where = append(where, sq.Expr("sb.username LIKE ?", escapeLike(f.UsernamePrefix)+"%"))
	}
	if len(f.Statuses) > 0 {
		st := make([]string, len(f.Statuses))
		for i, s := range f.Statuses {
			st[i] = string(s)
		}
		where = append(where, sq.Eq{"ss.status": st})
	}
	return append(where, searchConditions(f.Where, subscriberCondition)...)
}

// FindSubscriberByID returns a subscriber of the storefront with its subscription.
func (s *SubscriberService) FindSubscriberByID(ctx context.Context, accountID, storefrontID, id int64) (*shop.Subscriber, error) {
	db := s.db
	page, err := db.findSubscribers(ctx, db.DB, shop.SubscriberFilter{AccountID: accountID, StorefrontID: storefrontID, PerPage: 1}, id)
	if err != nil {
		return nil, err
	}
	if len(page.Subscribers) == 0 {
		return nil, shop.Errorf(shop.ENotFound, "Subscriber %d was not found.", id)
	}
	return page.Subscribers[0], nil
}
