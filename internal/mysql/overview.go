package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"time"

	"storefront/internal/shop"
)

// span splits [from, before) into whole days of the zone, read from the rollups, and the
// parts of a day at either end, read from the rows: the edges each lie within one day.
type span struct {
	// days is [firstDay, endDay) as dates; empty when firstDay >= endDay.
	firstDay, endDay time.Time
	edges            [][2]time.Time
}

// midnight returns the start of t's day in loc.
func midnight(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

func splitSpan(from, before time.Time, loc *time.Location) span {
	var s span
	if !from.Before(before) {
		return s
	}
	first := midnight(from, loc)
	if first.Before(from) {
		first = first.AddDate(0, 0, 1)
	}
	end := midnight(before, loc)
	if !first.Before(end) {
		// Within one day, or across one midnight with no whole day between.
		if !first.After(from) || !first.Before(before) {
			s.edges = append(s.edges, [2]time.Time{from, before})
		} else {
			s.edges = append(s.edges, [2]time.Time{from, first}, [2]time.Time{first, before})
		}
		return s
	}
	s.firstDay, s.endDay = first, end
	if from.Before(first) {
		s.edges = append(s.edges, [2]time.Time{from, first})
	}
	if end.Before(before) {
		s.edges = append(s.edges, [2]time.Time{end, before})
	}
	return s
}

func (s span) hasDays() bool { return s.firstDay.Before(s.endDay) }

// complementEnds turns each end of the span that covers more than half of its day into
// the whole day, added to the span's days, and returns the rest of those days: what the
// caller subtracts, read from the rows. An end alone in its day (a range within a day,
// or across one midnight with no whole day) stays as it is.
func (s *span) complementEnds(loc *time.Location) (less [][2]time.Time) {
	if !s.hasDays() {
		return nil
	}
	var edges [][2]time.Time
	for _, e := range s.edges {
		day := midnight(e[0], loc)
		next := day.AddDate(0, 0, 1)
		switch {
		case e[1].Equal(s.firstDay) && e[1].Sub(e[0]) > next.Sub(day)/2:
			// The first end, [from, first whole day): the day from its midnight.
			s.firstDay = day
			less = append(less, [2]time.Time{day, e[0]})
		case e[0].Equal(s.endDay) && e[1].Sub(e[0]) > next.Sub(day)/2:
			// The last end, [last midnight, before): the whole day, less its rest.
			s.endDay = next
			less = append(less, [2]time.Time{e[1], next})
		default:
			edges = append(edges, e)
		}
	}
	s.edges = edges
	return less
}

// daysFrom counts the calendar days from a's date to b's (both midnights of one zone).
func daysFrom(a, b time.Time) int {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return int(time.Date(by, bm, bd, 0, 0, 0, 0, time.UTC).Sub(time.Date(ay, am, ad, 0, 0, 0, 0, time.UTC)) / (24 * time.Hour))
}

// wholeMonths returns the calendar months [first, end) within the span's days, as the
// first days of months; first is not before end when there are none.
func (s span) wholeMonths() (first, end time.Time) {
	first = time.Date(s.firstDay.Year(), s.firstDay.Month(), 1, 0, 0, 0, 0, time.UTC)
	if s.firstDay.Day() != 1 {
		first = first.AddDate(0, 1, 0)
	}
	end = time.Date(s.endDay.Year(), s.endDay.Month(), 1, 0, 0, 0, 0, time.UTC)
	return first, end
}

func storefrontCond(col string, id int64, args []any) (string, []any) {
	if id == 0 {
		return "", args
	}
	return " AND " + col + " = ?", append(args, id)
}

// dayPart is days [from, to) read from a daily table, counted in (sign 1) or out (-1).
type dayPart struct {
	from, to time.Time
	sign     int64
}

// eachEdge calls fn with each of the span's edges, sign 1, then each range of less
// (the rest of an end's day, complementEnds), sign -1.
func (s *span) eachEdge(less [][2]time.Time, fn func(e [2]time.Time, sign int64) error) error {
	for i, e := range append(s.edges, less...) {
		sign := int64(1)
		if i >= len(s.edges) {
			sign = -1
		}
		if err := fn(e, sign); err != nil {
			return err
		}
	}
	return nil
}

// eachDayPart calls fn with each part of days that is not empty: its first day and
// the day after its last as DATE text, and its sign.
func eachDayPart(days []dayPart, fn func(from, to string, sign int64) error) error {
	for _, d := range days {
		from, to := d.from.Format(time.DateOnly), d.to.Format(time.DateOnly)
		if from >= to {
			continue
		}
		if err := fn(from, to, d.sign); err != nil {
			return err
		}
	}
	return nil
}

// monthParts splits the span's days into calendar months [first, end), read from a
// monthly table, and days, read from a daily one. A part of a month at either end that
// covers more than half of it is read as the whole month less its other days, so that
// neither end reads more than half a month of days.
func (s span) monthParts() (first, end time.Time, days []dayPart) {
	first, end = s.wholeMonths()
	if end.Before(first) {
		// Within one month.
		return first, first, []dayPart{{s.firstDay, s.endDay, 1}}
	}
	if s.firstDay.Before(first) {
		month := first.AddDate(0, -1, 0)
		if daysFrom(s.firstDay, first) > daysFrom(month, first)/2 {
			days = append(days, dayPart{month, s.firstDay, -1})
			first = month
		} else {
			days = append(days, dayPart{s.firstDay, first, 1})
		}
	}
	if end.Before(s.endDay) {
		next := end.AddDate(0, 1, 0)
		if daysFrom(end, s.endDay) > daysFrom(end, next)/2 {
			days = append(days, dayPart{s.endDay, next, -1})
			end = next
		} else {
			days = append(days, dayPart{end, s.endDay, 1})
		}
	}
	return first, end, days
}

// decimalSum adds DECIMAL texts exactly: in ten-thousandths (the rollups' scale) while
// they fit an int64, the rest in a big.Rat, so that summing a year of daily rollups
// parses no big.Rat per row.
type decimalSum struct {
	units int64
	rest  *big.Rat
}

// add adds sign (1 or -1) times the number written in text.
func (s *decimalSum) add(text []byte, sign int64) error {
	if u, ok := decimalUnits(text); ok {
		if v, ok := addInt64(s.units, sign*u); ok {
			s.units = v
			return nil
		}
	}
	r, err := decimal(string(text))
	if err != nil {
		return err
	}
	if sign < 0 {
		r.Neg(r)
	}
	if s.rest == nil {
		s.rest = new(big.Rat)
	}
	s.rest.Add(s.rest, r)
	return nil
}

// rat returns the sum.
func (s *decimalSum) rat() *big.Rat {
	r := big.NewRat(s.units, 10000)
	if s.rest != nil {
		r.Add(r, s.rest)
	}
	return r
}

// decimalUnits reads a decimal number with at most four digits after the point as
// ten-thousandths; ok is false for any other text, or one that does not fit an int64.
func decimalUnits(text []byte) (units int64, ok bool) {
	neg := len(text) > 0 && text[0] == '-'
	if neg {
		text = text[1:]
	}
	whole, frac, _ := bytes.Cut(text, []byte("."))
	if len(whole) == 0 || len(frac) > 4 || len(whole) > 14 {
		return 0, false
	}
	for _, part := range [][]byte{whole, frac} {
		for _, c := range part {
			if c < '0' || c > '9' {
				return 0, false
			}
			units = units*10 + int64(c-'0')
		}
	}
	for range 4 - len(frac) {
		units *= 10
	}
	if neg {
		units = -units
	}
	return units, true
}

// atoi64 reads a decimal integer's text.
func atoi64(b []byte) (int64, error) {
	if u, ok := decimalUnits(b); ok && u%10000 == 0 && !bytes.ContainsRune(b, '.') {
		return u / 10000, nil
	}
	return strconv.ParseInt(string(b), 10, 64)
}

// atoi reads a decimal integer's text as an int.
func atoi(b []byte) (int, error) {
	n, err := atoi64(b)
	return int(n), err
}

// addInt64 returns a+b, and false when it overflows.
func addInt64(a, b int64) (int64, bool) {
	c := a + b
	if (c > a) != (b > 0) {
		return 0, false
	}
	return c, true
}

// PurchaseFigures implements shop.OverviewService.
func (s *OverviewService) PurchaseFigures(ctx context.Context, q shop.FigureQuery) ([]shop.PurchaseCell, error) {
	db := s.db
	sp := splitSpan(q.From, q.Before, q.Loc)
	// An end that covers more than half of its day is read as the whole day from the
	// rollups less the rest of the day from the rows: an end reads at most half a day's
	// purchases.
	less := sp.complementEnds(q.Loc)
	// Cells of q.Step days from the range's first day (the step's index k): a long
	// range answers a cell per week (or one per currency and status), not one per day.
	step := max(q.Step, 1)
	first := midnight(q.From, q.Loc)
	type key struct {
		k        int
		currency string
		status   shop.PurchaseStatus
	}
	type cell struct {
		n     int64
		total decimalSum
	}
	cells := map[key]*cell{}
	sign := int64(1)
	// A year of daily rollups is thousands of rows: each is scanned as bytes, its
	// currency and status taken from the few strings seen before.
	var (
		rawK, rawN, currency, status, total sql.RawBytes
		k                                   int
		n                                   int64
		seen                                []string
	)
	intern := func(b []byte) string {
		for _, s := range seen {
			if s == string(b) {
				return s
			}
		}
		seen = append(seen, string(b))
		return seen[len(seen)-1]
	}
	// add counts the row just scanned (k, currency, status, n, total) in its cell.
	add := func() error {
		ck := key{k, intern(currency), shop.PurchaseStatus(intern(status))}
		c := cells[ck]
		if c == nil {
			c = &cell{}
			cells[ck] = c
		}
		c.n += sign * n
		return c.total.add(total, sign)
	}
	scanAdd := func(rows *sql.Rows) error {
		if err := rows.Scan(&rawK, &currency, &status, &rawN, &total); err != nil {
			return err
		}
		var err error
		if k, err = atoi(rawK); err != nil {
			return err
		}
		if n, err = atoi64(rawN); err != nil {
			return err
		}
		return add()
	}
	if sp.hasDays() {
		days := []dayPart{{sp.firstDay, sp.endDay, 1}}
		// When the range is one cell (the previous range's sums), calendar months come
		// from the monthly rollups and only the days around them from the daily ones.
		if firstMonth, endMonth, around := sp.monthParts(); daysFrom(first, sp.endDay) <= step && firstMonth.Before(endMonth) {
			days = around
			args := []any{q.AccountID, firstMonth.Format(time.DateOnly), endMonth.Format(time.DateOnly)}
			cond, args := storefrontCond("storefront_id", q.StorefrontID, args)
			if err := eachRow(ctx, db.DB, `SELECT 0, currency, status, SUM(purchases), SUM(total) FROM purchase_rollups_monthly
				WHERE account_id = ? AND month >= ? AND month < ?`+cond+` GROUP BY currency, status`, args, scanAdd); err != nil {
				return nil, err
			}
		} else if whole, end := (daysFrom(first, sp.firstDay)+6)/7, daysFrom(first, sp.endDay)/7; step == 7 && whole < end {
			// Steps of seven days: each whole one is a row per storefront, currency and
			// status of the weekly rollups (a week begins on every day); the days of a
			// step the range's ends cut come from the daily ones.
			days = []dayPart{{sp.firstDay, first.AddDate(0, 0, whole*7), 1}, {first.AddDate(0, 0, end*7), sp.endDay, 1}}
			args := []any{first.Format(time.DateOnly), q.AccountID}
			for i := whole; i < end; i++ {
				args = append(args, first.AddDate(0, 0, i*7).Format(time.DateOnly))
			}
			in := "(" + strings.TrimSuffix(strings.Repeat("?,", end-whole), ",") + ")"
			cond, args := storefrontCond("storefront_id", q.StorefrontID, args)
			if err := eachRow(ctx, db.DB, `SELECT DATEDIFF(week, ?) DIV 7, currency, status, purchases, total FROM purchase_rollups_weekly
				WHERE account_id = ? AND week IN `+in+cond, args, scanAdd); err != nil {
				return nil, err
			}
		}
		// The daily rows as they are, in the primary key's order, summed here: grouping
		// them by step in the database goes through a temporary table, which cost twice
		// as much as sending them.
		if err := eachDayPart(days, func(from, to string, s int64) error {
			sign = s
			args := []any{first.Format(time.DateOnly), step, q.AccountID, from, to}
			cond, args := storefrontCond("storefront_id", q.StorefrontID, args)
			return eachRow(ctx, db.DB, `SELECT DATEDIFF(day, ?) DIV ?, currency, status, purchases, total FROM purchase_rollups
				WHERE account_id = ? AND day >= ? AND day < ?`+cond, args, scanAdd)
		}); err != nil {
			return nil, err
		}
	}
	if err := sp.eachEdge(less, func(e [2]time.Time, s int64) error {
		sign = s
		args := []any{q.AccountID, e[0].UTC(), e[1].UTC()}
		cond, args := storefrontCond("storefront_id", q.StorefrontID, args)
		k = daysFrom(first, midnight(e[0], q.Loc)) / step
		return eachRow(ctx, db.DB, `SELECT currency, status, COUNT(*), SUM(total) FROM purchases FORCE INDEX (purchases_account_created_total)
			WHERE account_id = ? AND created_at >= ? AND created_at < ?`+cond+` GROUP BY currency, status`, args,
			func(rows *sql.Rows) error {
				if err := rows.Scan(&currency, &status, &n, &total); err != nil {
					return err
				}
				return add()
			})
	}); err != nil {
		return nil, err
	}
	out := make([]shop.PurchaseCell, 0, len(cells))
	for ck, c := range cells {
		t := c.total.rat()
		// Rows that count nothing, and a day's rest subtracted, can leave an empty cell.
		if c.n == 0 && t.Sign() == 0 {
			continue
		}
		out = append(out, shop.PurchaseCell{Day: first.AddDate(0, 0, ck.k*step), Currency: ck.currency, Status: ck.status, Purchases: c.n, Total: t})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.Day.Equal(b.Day) {
			return a.Day.Before(b.Day)
		}
		if a.Currency != b.Currency {
			return a.Currency < b.Currency
		}
		return a.Status < b.Status
	})
	return out, nil
}

// TopProducts implements shop.OverviewService.
func (s *OverviewService) TopProducts(ctx context.Context, q shop.FigureQuery, n int) ([]shop.ProductRevenue, error) {
	db := s.db
	sp := splitSpan(q.From, q.Before, q.Loc)
	// An end that covers more than half of its day is read as the whole day from the
	// rollups less the rest of the day from the rows: an end reads at most half a day's
	// line items.
	less := sp.complementEnds(q.Loc)
	type key struct {
		product  int64
		currency string
	}
	got := map[key]*shop.ProductRevenue{}
	sign := int64(1)
	scan := func(rows *sql.Rows) error {
		var (
			k     key
			n     int64
			total string
		)
		if err := rows.Scan(&k.product, &k.currency, &n, &total); err != nil {
			return err
		}
		t, err := decimal(total)
		if err != nil {
			return err
		}
		r := got[k]
		if r == nil {
			r = &shop.ProductRevenue{ProductID: k.product, Currency: k.currency, Revenue: new(big.Rat)}
			got[k] = r
		}
		if sign < 0 {
			t.Neg(t)
		}
		r.Purchases += sign * n
		r.Revenue.Add(r.Revenue, t)
		return nil
	}
	if sp.hasDays() {
		// Calendar months from the monthly rollups, the days around them from the daily
		// ones (span.monthParts).
		days := []dayPart{{sp.firstDay, sp.endDay, 1}}
		if firstMonth, endMonth, around := sp.monthParts(); firstMonth.Before(endMonth) {
			days = around
			args := []any{q.AccountID, string(shop.PurchaseActive), firstMonth.Format(time.DateOnly), endMonth.Format(time.DateOnly)}
			cond, args := storefrontCond("storefront_id", q.StorefrontID, args)
			if err := eachRow(ctx, db.DB, `SELECT product_id, currency, SUM(purchases), SUM(total) FROM product_rollups_monthly
				WHERE account_id = ? AND status = ? AND month >= ? AND month < ?`+cond+` GROUP BY product_id, currency`, args, scan); err != nil {
				return nil, err
			}
		}
		if err := eachDayPart(days, func(from, to string, s int64) error {
			sign = s
			args := []any{q.AccountID, string(shop.PurchaseActive), from, to}
			cond, args := storefrontCond("storefront_id", q.StorefrontID, args)
			return eachRow(ctx, db.DB, `SELECT product_id, currency, SUM(purchases), SUM(total) FROM product_rollups
				WHERE account_id = ? AND status = ? AND day >= ? AND day < ?`+cond+` GROUP BY product_id, currency`, args, scan)
		}); err != nil {
			return nil, err
		}
	}
	if err := sp.eachEdge(less, func(e [2]time.Time, s int64) error {
		sign = s
		args := []any{q.AccountID, string(shop.PurchaseActive), e[0].UTC(), e[1].UTC()}
		cond, args := storefrontCond("p.storefront_id", q.StorefrontID, args)
		return eachRow(ctx, db.DB, `SELECT li.product_id, p.currency, COUNT(DISTINCT p.id), SUM(li.total)
			FROM purchases p FORCE INDEX (purchases_account_status_created)
			JOIN line_items li ON li.purchase_id = p.id AND li.account_id = p.account_id
			WHERE p.account_id = ? AND p.status = ? AND p.created_at >= ? AND p.created_at < ?`+cond+`
			GROUP BY li.product_id, p.currency`, args, scan)
	}); err != nil {
		return nil, err
	}
	out := make([]shop.ProductRevenue, 0, len(got))
	for _, r := range got {
		if r.Purchases > 0 || r.Revenue.Sign() != 0 {
			out = append(out, *r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if c := out[i].Revenue.Cmp(out[j].Revenue); c != 0 {
			return c > 0
		}
		return out[i].ProductID < out[j].ProductID
	})
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// SubscriberFigures implements shop.OverviewService.
func (s *OverviewService) SubscriberFigures(ctx context.Context, q shop.FigureQuery, now time.Time) (*shop.SubscriberFigures, error) {
	endsBefore := q.Before
	if now.Before(endsBefore) {
		endsBefore = now
	}
	// Ended counts the range's terms ended until now: none when the range begins later.
	if endsBefore.Before(q.From) {
		endsBefore = q.From
	}
	// Receiving service at the end is being in a term [start, end) there, as
	// shop.Entitle decides: every term started at or before it, less those ended at or
	// before it; the terms' times are whole seconds, so those before the next second.
	atEnd := endsBefore.Truncate(time.Second).Add(time.Second)
	started, ended, err := s.db.termsBefore(ctx, q, []time.Time{q.From, q.Before, endsBefore, atEnd})
	if err != nil {
		return nil, err
	}
	return &shop.SubscriberFigures{
		Started:     started[1] - started[0],
		Ended:       ended[2] - ended[0],
		ActiveAtEnd: started[3] - ended[3],
	}, nil
}

// termsBefore counts, for each instant, the service terms that started before it and
// those that ended before it: the whole days before the instant's day from the rollups
// (one statement for every instant), the part of its day from the terms (one more).
func (db *DB) termsBefore(ctx context.Context, q shop.FigureQuery, at []time.Time) (started, ended []int64, err error) {
	started, ended = make([]int64, len(at)), make([]int64, len(at))
	var (
		sums  []string
		args  []any
		last  string
		edges []string
		eargs []any
	)
	for _, t := range at {
		day := midnight(t, q.Loc)
		d := day.Format(time.DateOnly)
		sums = append(sums, "COALESCE(SUM(IF(day < ?, started, 0)), 0), COALESCE(SUM(IF(day < ?, ended, 0)), 0)")
		args = append(args, d, d)
		last = max(last, d)
		for _, col := range []string{"start_at", "end_at"} {
			if !day.Before(t) {
				edges = append(edges, "0")
				continue
			}
			cond, a := storefrontCond("storefront_id", q.StorefrontID, []any{q.AccountID, day.UTC(), t.UTC()})
			edges = append(edges, "(SELECT COUNT(*) FROM subscriber_terms WHERE account_id = ? AND "+col+" >= ? AND "+col+" < ?"+cond+")")
			eargs = append(eargs, a...)
		}
	}
	args = append(args, q.AccountID, last)
	cond, args := storefrontCond("storefront_id", q.StorefrontID, args)
	dest := make([]any, 0, 2*len(at))
	for i := range at {
		dest = append(dest, &started[i], &ended[i])
	}
	if err := db.QueryRowContext(ctx, "SELECT "+strings.Join(sums, ", ")+" FROM subscriber_rollups WHERE account_id = ? AND day < ?"+cond, args...).
		Scan(dest...); err != nil {
		return nil, nil, translate(err)
	}
	if len(eargs) == 0 {
		return started, ended, nil
	}
	parts := make([]int64, 2*len(at))
	dest = dest[:0]
	for i := range parts {
		dest = append(dest, &parts[i])
	}
	if err := db.QueryRowContext(ctx, "SELECT "+strings.Join(edges, ", "), eargs...).Scan(dest...); err != nil {
		return nil, nil, translate(err)
	}
	for i := range at {
		started[i] += parts[2*i]
		ended[i] += parts[2*i+1]
	}
	return started, ended, nil
}
