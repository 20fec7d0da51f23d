package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/search"
	"storefront/internal/sqlrows"
)

// The shape sweep: GET /api/v2/purchases with filter values chosen from the data at
// several selectivities, each newest first, oldest first and on its 20th page by
// cursor, at 1 and 16 clients, over HTTP against the server under test. Its figure is
// the shape ratio: the worst cell's median at one client over the unfiltered first
// page's, measured in the same run. The values come from SQL on the tables every
// version of the schema has (purchases, line_items, products, storefronts), so that
// the same sweep runs before and after a change of indexes.

// sweepPerPage is the page size of every sweep request.
const sweepPerPage = 100

// sweepDepth is the page measured by cursor.
const sweepDepth = 20

// sweepClients are the concurrencies of each cell.
var sweepClients = [2]int{1, 16}

// sweepMinRequests is the fewest requests of a run at one client, however slow.
const sweepMinRequests = 5

// sweepValue is one filter value of the sweep.
type sweepValue struct {
	name  string // what was chosen, and how
	query url.Values
}

// sweepCell is one value on one page.
type sweepCell struct {
	value   sweepValue
	page    string
	matches string
	path    string // "" when the list has no such page
	c       [2]stats
	reqErr  string // why the page could not be reached
	// base is the unfiltered first page at one client, its requests sent in turn with
	// the cell's (pairedRun): the ratio's denominator, measured under the same load as
	// the cell's, so that the machine's drift during the sweep (other work, caches)
	// cancels out.
	base stats
	// entries is the number of index entries the page's statements read (the plan's
	// counts and the page's ids, by ANALYZE): what the page costs whatever the load.
	entries float64
}

// sweepReport is what the sweep prints.
type sweepReport struct {
	accountPurchases int64
	cells            []sweepCell
	baselineEnd      stats // the unfiltered first page, measured again at the end
	dur              time.Duration
}

// sweepValues chooses the filter values of the sweep from the data of account.
func sweepValues(ctx context.Context, db *sql.DB, account int64) ([]sweepValue, int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM purchases WHERE account_id = ?", account).Scan(&n); err != nil {
		return nil, 0, err
	}
	if n == 0 {
		return nil, 0, fmt.Errorf("account %d has no purchases", account)
	}
	var out []sweepValue
	add := func(name string, kv ...string) {
		q := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		// The same parameters twice (say the ~10 and the 0.1 % prefix of a column whose
		// rarest value is common) are measured once.
		for i, v := range out {
			if v.query.Encode() == q.Encode() {
				logf("sweep: %s is the same filter as %s (%s): measured once", name, v.name, q.Encode())
				// "customer_first_name ~10" and "customer_first_name ~0.1 %" become
				// "customer_first_name ~10 = ~0.1 %".
				head, rest, _ := strings.Cut(name, " ")
				if h, _, _ := strings.Cut(v.name, " "); h == head {
					name = rest
				}
				out[i].name += " = " + name
				return
			}
		}
		out = append(out, sweepValue{name, q})
	}
	add("(none)")

	// Prefixes of the text filters at about 10 matches, 0.1 %, 1 %, and the densest
	// first letter.
	first, onePct := map[string]string{}, map[string]string{}
	picks := sweepPicks{prefix: map[string]string{}}
	for _, col := range []struct{ param, column string }{
		{"customer_email", "buyer_email"},
		{"customer_first_name", "buyer_firstname"},
		{"customer_last_name", "buyer_lastname"},
	} {
		logf("sweep: prefixes of %s", col.column)
		pcs, err := prefixCounts(ctx, db, col.column, account)
		if err != nil {
			return nil, 0, err
		}
		for _, t := range []struct {
			label  string
			target float64
		}{{"~10", 10}, {"~0.1 %", float64(n) / 1000}, {"~1 %", float64(n) / 100}} {
			pc := closestPrefix(pcs, t.target)
			add(fmt.Sprintf("%s %s", col.param, t.label), col.param, pc.p)
			picks.prefix[col.param+" "+t.label] = pc.p
			onePct[col.param] = pc.p // the last target: ~1 %
		}
		d := densestLetter(pcs)
		first[col.param] = d.p
		picks.prefix[col.param+" densest letter"] = d.p
		add(col.param+" densest letter", col.param, d.p)
	}
	add("densest first-name + last-name letters",
		"customer_first_name", first["customer_first_name"], "customer_last_name", first["customer_last_name"])

	// Products of the account by the purchases that hold them.
	logf("sweep: products")
	prods, err := productCounts(ctx, db, "s.account_id = ?", account)
	if err != nil {
		return nil, 0, err
	}
	if len(prods) == 0 {
		return nil, 0, fmt.Errorf("account %d has no products", account)
	}
	slices.SortStableFunc(prods, func(a, b idCount) int { return -cmpInt(a.n, b.n) })
	picks.products = prods
	add("product_id most bought", "product_id", fmt.Sprint(prods[0].id))
	add("product_id middling", "product_id", fmt.Sprint(prods[len(prods)/2].id))
	add("product_id least bought", "product_id", fmt.Sprint(prods[len(prods)-1].id))
	others, err := productCounts(ctx, db, "s.account_id <> ?", account)
	if err != nil {
		return nil, 0, err
	}
	if len(others) > 0 {
		slices.SortStableFunc(others, func(a, b idCount) int { return -cmpInt(a.n, b.n) })
		add("product_id of another account", "product_id", fmt.Sprint(others[0].id))
	} else {
		logf("sweep: no other account has products: no such cell")
	}

	// A storefront that sells one product, so every purchase of it holds that product.
	var sfID, sfProduct int64
	err = db.QueryRowContext(ctx, `SELECT s.id, MIN(x.id) FROM storefronts s JOIN products x ON x.storefront_id = s.id
		WHERE s.account_id = ? GROUP BY s.id HAVING COUNT(*) = 1 ORDER BY s.id LIMIT 1`, account).Scan(&sfID, &sfProduct)
	switch {
	case err == sql.ErrNoRows:
		logf("sweep: account %d has no storefront with a single product (seed it afresh): no such cell", account)
	case err != nil:
		return nil, 0, err
	default:
		add("storefront_id of the single-product storefront", "storefront_id", fmt.Sprint(sfID))
		add("product_id of the single-product storefront", "product_id", fmt.Sprint(sfProduct))
	}

	// The other filters.
	logf("sweep: the other filters")
	one := func(query string, dst ...any) error {
		if err := db.QueryRowContext(ctx, query, account).Scan(dst...); err != nil {
			return fmt.Errorf("%s: %w", query, err)
		}
		return nil
	}
	var customer, subscriber int64
	if err := one(`SELECT customer_id FROM purchases WHERE account_id = ? AND customer_id IS NOT NULL
		GROUP BY customer_id ORDER BY COUNT(*) DESC, customer_id LIMIT 1`, &customer); err != nil {
		return nil, 0, err
	}
	add("customer_id with the most purchases", "customer_id", fmt.Sprint(customer))
	if err := one(`SELECT subscriber_id FROM purchases WHERE account_id = ? AND subscriber_id IS NOT NULL
		GROUP BY subscriber_id ORDER BY COUNT(*) DESC, subscriber_id LIMIT 1`, &subscriber); err != nil {
		return nil, 0, err
	}
	add("subscriber_id with the most purchases", "subscriber_id", fmt.Sprint(subscriber))
	add("status=RFD", "status", "RFD")
	add("ship=1", "ship", "1")
	var total10, total1pc string
	if err := one(`SELECT total FROM purchases WHERE account_id = ? GROUP BY total
		ORDER BY ABS(COUNT(*) - 10), total LIMIT 1`, &total10); err != nil {
		return nil, 0, err
	}
	add("total ~10", "total", trimDecimal(total10))
	if err := one(fmt.Sprintf("SELECT total FROM purchases WHERE account_id = ? ORDER BY total DESC LIMIT 1 OFFSET %d", n/100), &total1pc); err != nil {
		return nil, 0, err
	}
	add("total_op=gt ~1 %", "total", trimDecimal(total1pc), "total_op", "gt")
	// The same comparison at other shares: the least 1 % (lt), and half the purchases
	// either way, where a comparison's matches are dense.
	var totalLow1pc, totalMedian string
	if err := one(fmt.Sprintf("SELECT total FROM purchases WHERE account_id = ? ORDER BY total LIMIT 1 OFFSET %d", n/100), &totalLow1pc); err != nil {
		return nil, 0, err
	}
	add("total_op=lt ~1 %", "total", trimDecimal(totalLow1pc), "total_op", "lt")
	if err := one(fmt.Sprintf("SELECT total FROM purchases WHERE account_id = ? ORDER BY total LIMIT 1 OFFSET %d", n/2), &totalMedian); err != nil {
		return nil, 0, err
	}
	add("total_op=gt ~50 %", "total", trimDecimal(totalMedian), "total_op", "gt")
	add("total_op=lt ~50 %", "total", trimDecimal(totalMedian), "total_op", "lt")
	// About 1 % of the purchases, in the days up to 90 days before the newest.
	var newest, from time.Time
	if err := one("SELECT MAX(created_at) FROM purchases WHERE account_id = ?", &newest); err != nil {
		return nil, 0, err
	}
	to := newest.AddDate(0, 0, -90)
	if err := db.QueryRowContext(ctx, fmt.Sprintf(`SELECT created_at FROM purchases WHERE account_id = ? AND created_at < ?
		ORDER BY created_at DESC LIMIT 1 OFFSET %d`, n/100), account, to).Scan(&from); err != nil {
		return nil, 0, err
	}
	add("date_min..date_max ~1 %", "date_min", fmt.Sprintf("@%d", from.Unix()), "date_max", fmt.Sprintf("@%d", to.Unix()))

	// Searches (q, docs/SEARCH.md): a domain of about 1 % of the purchases, an OR of the
	// e-mail's and the last name's ~1 % prefixes, a status negated (not refunded: most
	// purchases), the last 400 days with the middle tenth of the totals, and the first
	// name's ~1 % prefix as a bare word (e-mail, first or last name).
	logf("sweep: the searches")
	var domain string
	if err := one(fmt.Sprintf(`SELECT SUBSTRING_INDEX(buyer_email, '@', -1) AS d FROM purchases
		WHERE account_id = ? AND buyer_email LIKE '%%@%%' GROUP BY d ORDER BY ABS(COUNT(*) - %d), d LIMIT 1`, n/100), &domain); err != nil {
		return nil, 0, err
	}
	clause := func(f search.Field, text string) search.Node {
		return &search.Clause{Field: f, Op: search.OpEq, Values: []search.Value{{Text: text}}}
	}
	add("q domain ~1 %", "q", search.String(clause(search.FieldDomain, domain)))
	add("q e-mail ~1 % OR last name ~1 %", "q", search.String(&search.Or{Terms: []search.Node{
		clause(search.FieldEmail, onePct["customer_email"]), clause(search.FieldLast, onePct["customer_last_name"])}}))
	add("q not refunded", "q", "-status:RFD")
	var total45, total55 string
	for _, t := range []struct {
		dst *string
		at  int64
	}{{&total45, n * 45 / 100}, {&total55, n * 55 / 100}} {
		if err := one(fmt.Sprintf("SELECT total FROM purchases WHERE account_id = ? ORDER BY total LIMIT 1 OFFSET %d", t.at), t.dst); err != nil {
			return nil, 0, err
		}
	}
	add("q last 400 days, total ~10 % range", "q", "created>=-400days total:"+trimDecimal(total45)+".."+trimDecimal(total55))
	add("q bare word (first-name prefix ~1 %)", "q", search.String(&search.Text{Value: search.Value{Text: onePct["customer_first_name"]}}))
	// A payment reference and a product key of a purchase half-way through the table
	// (looked up into ids first, then the ids path): alone, negated (all but one), with a
	// status, and the two in a union.
	var ref, key string
	if err := one(fmt.Sprintf(`SELECT t.reference FROM transactions t WHERE t.account_id = ? AND t.reference IS NOT NULL
		ORDER BY t.id LIMIT 1 OFFSET %d`, n/2), &ref); err != nil {
		return nil, 0, err
	}
	if err := one(fmt.Sprintf(`SELECT k.key_value FROM product_keys k WHERE k.account_id = ?
		ORDER BY k.purchase_id, k.line_item_id, k.position LIMIT 1 OFFSET %d`, n/2), &key); err != nil {
		return nil, 0, err
	}
	add("q ref: (one purchase)", "q", search.String(clause(search.FieldRef, ref)))
	add("q key: (one purchase)", "q", search.String(clause(search.FieldKey, key)))
	add("q -ref: (all but one)", "q", search.String(&search.Not{X: clause(search.FieldRef, ref)}))
	add("q ref: status:ACT", "q", search.String(&search.And{Terms: []search.Node{clause(search.FieldRef, ref), clause(search.FieldStatus, "ACT")}}))
	add("q ref: OR key:", "q", search.String(&search.Or{Terms: []search.Node{clause(search.FieldRef, ref), clause(search.FieldKey, key)}}))

	// Two filters that would each be read from a different path alone.
	combos, err := comboValues(ctx, db, account, n, picks)
	if err != nil {
		return nil, 0, err
	}
	for _, c := range combos {
		add(c.name, c.kv...)
	}
	return out, n, nil
}

// prefixCount is how many purchases a prefix of a text column matches.
type prefixCount struct {
	p string
	n int64
}

// prefixCounts counts the purchases of account per prefix of column, for prefixes of
// one letter, two, and so on until they match a few purchases each. The database
// groups them as the filter compares (letter case and accents ignored); of each group
// it keeps the spelling that sorts first by bytes, so plain letters win.
func prefixCounts(ctx context.Context, db *sql.DB, column string, account int64) ([]prefixCount, error) {
	var all []prefixCount
	prevGroups := -1
	for l := 1; l <= 24; l++ {
		rows, err := db.QueryContext(ctx, fmt.Sprintf(`SELECT MIN(CAST(LOWER(LEFT(%[1]s, %[2]d)) AS BINARY)), COUNT(*)
			FROM purchases WHERE account_id = ? AND %[1]s IS NOT NULL AND %[1]s <> '' GROUP BY LEFT(%[1]s, %[2]d)`, column, l), account)
		if err != nil {
			return nil, err
		}
		groups, least := 0, int64(math.MaxInt64)
		for rows.Next() {
			var p []byte
			var n int64
			if err := rows.Scan(&p, &n); err != nil {
				rows.Close()
				return nil, err
			}
			groups++
			least = min(least, n)
			s := string(p)
			// A prefix ending in a space compares as one without it; one shorter than l
			// is a whole value, found again at every longer length.
			if strings.HasSuffix(s, " ") || len([]rune(s)) < l {
				continue
			}
			all = append(all, prefixCount{s, n})
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if least <= 3 || groups == prevGroups {
			break
		}
		prevGroups = groups
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no values", column)
	}
	return all, nil
}

// closestPrefix is the prefix whose count is nearest to target by ratio; the shorter,
// then the first in byte order, on a tie.
func closestPrefix(pcs []prefixCount, target float64) prefixCount {
	best, bestD := pcs[0], math.Inf(1)
	for _, pc := range pcs {
		d := math.Abs(math.Log(float64(pc.n) / target))
		if d < bestD-1e-9 || (math.Abs(d-bestD) <= 1e-9 && (len(pc.p) < len(best.p) || len(pc.p) == len(best.p) && pc.p < best.p)) {
			best, bestD = pc, d
		}
	}
	return best
}

// densestLetter is the one-letter prefix with the most purchases.
func densestLetter(pcs []prefixCount) prefixCount {
	best := prefixCount{n: -1}
	for _, pc := range pcs {
		if len([]rune(pc.p)) == 1 && pc.n > best.n {
			best = pc
		}
	}
	return best
}

type idCount struct{ id, n int64 }

// productCounts returns the products of the storefronts matching where (with account
// as its one argument), each with the number of line items that hold it (a purchase
// holds a product on one line at most), in id order.
func productCounts(ctx context.Context, db *sql.DB, where string, account int64) ([]idCount, error) {
	return sqlrows.Collect(ctx, db, func(rows *sql.Rows) (idCount, error) {
		var c idCount
		err := rows.Scan(&c.id, &c.n)
		return c, err
	}, `SELECT x.id, (SELECT COUNT(*) FROM line_items l WHERE l.product_id = x.id)
		FROM products x JOIN storefronts s ON s.id = x.storefront_id WHERE `+where+` ORDER BY x.id`, account)
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// trimDecimal drops trailing zeros of a decimal ("49.9000" → "49.9", "12.0000" → "12").
func trimDecimal(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

var linkNext = regexp.MustCompile(`<([^>]+)>\s*;\s*rel="next"`)

// apiGet sends one unmeasured GET and returns the answer's headers.
func apiGet(client *http.Client, base, path string, h http.Header) (http.Header, error) {
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		return nil, err
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d %.200s", path, resp.StatusCode, body)
	}
	return resp.Header, nil
}

// sweepPages returns the paths of a value's three pages (newest first, oldest first,
// the 20th page newest first by cursor: "" when the list is shorter) and the number of
// matches the API counts.
func sweepPages(client *http.Client, base string, h http.Header, v sweepValue) (paths [3]string, matches string, err error) {
	path := func(order string, extra ...string) string {
		q := url.Values{}
		for k, vs := range v.query {
			q[k] = vs
		}
		q.Set("order", order)
		q.Set("per_page", strconv.Itoa(sweepPerPage))
		for i := 0; i < len(extra); i += 2 {
			q.Set(extra[i], extra[i+1])
		}
		return "/api/v2/purchases?" + q.Encode()
	}
	paths[0], paths[1] = path("desc"), path("asc")
	hd, err := apiGet(client, base, path("desc", "include_count", "1"), h)
	if err != nil {
		return paths, "", err
	}
	matches = hd.Get("X-Total-Count")
	if matches == "" {
		matches = "?"
	}
	p := paths[0]
	for i := 1; i < sweepDepth; i++ {
		hd, err := apiGet(client, base, p, h)
		if err != nil {
			return paths, matches, err
		}
		m := linkNext.FindStringSubmatch(hd.Get("Link"))
		if m == nil {
			return paths, matches, nil // fewer than 20 pages
		}
		u, err := url.Parse(m[1])
		if err != nil {
			return paths, matches, fmt.Errorf("the Link header %q: %w", m[1], err)
		}
		p = u.RequestURI()
	}
	paths[2] = p
	return paths, matches, nil
}

// runSweep measures every value on its three pages.
func runSweep(ctx context.Context, o options, client *http.Client, base string, h http.Header, db *sql.DB) (*sweepReport, error) {
	start := time.Now()
	values, n, err := sweepValues(ctx, db, 1)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	logf("sweep: %d values chosen in %s", len(values), time.Since(start).Round(time.Millisecond))
	rep := &sweepReport{accountPurchases: n, dur: o.sweepDur}
	pageNames := [3]string{"newest first", "oldest first", fmt.Sprintf("page %d by cursor", sweepDepth)}
	run := func(path string, k int) stats {
		minN := 0
		if sweepClients[k] == 1 {
			minN = sweepMinRequests
		}
		return loadMin(client, sweepClients[k], o.sweepDur, minN, getter(base, []string{path}, h))
	}
	var basePath string
	for i, v := range values {
		if i > 0 && !o.cases.MatchString(v.name) {
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		paths, matches, err := sweepPages(client, base, h, v)
		if i == 0 {
			if err != nil {
				return nil, fmt.Errorf("sweep: the unfiltered list: %w", err)
			}
			basePath = paths[0]
		}
		for p := range paths {
			cell := sweepCell{value: v, page: pageNames[p], matches: matches, path: paths[p]}
			if err != nil {
				cell.reqErr = err.Error()
				logf("sweep: %s: %v", v.name, err)
			} else if cell.path != "" {
				logf("sweep: %s (%s), %s", v.name, v.query.Encode(), cell.page)
				cell.c[0], cell.base = pairedRun(client, base, cell.path, basePath, h, o.sweepDur)
				for k := 1; k < len(sweepClients); k++ {
					cell.c[k] = run(cell.path, k)
				}
				if cell.entries, err = pageEntries(ctx, db, cell.path); err != nil {
					return nil, fmt.Errorf("sweep: %s: %w", v.name, err)
				}
			}
			rep.cells = append(rep.cells, cell)
		}
	}
	logf("sweep: the unfiltered first page again")
	rep.baselineEnd = run(basePath, 0)
	return rep, nil
}

// pairedRun measures a cell at one client with the unfiltered first page's requests
// (ref) sent in turn with the cell's, for dur after a short warm-up and until each has
// at least sweepMinRequests answers: both see the same moments of the machine's load.
func pairedRun(client *http.Client, base, cellPath, refPath string, h http.Header, dur time.Duration) (cell, ref stats) {
	get := getter(base, []string{cellPath, refPath}, h)
	run := func(d time.Duration, minN int) (cell, ref stats) {
		start := time.Now()
		for n := 0; time.Since(start) < d || len(cell.lat) < minN || len(ref.lat) < minN; n++ {
			req := get(n)
			t0 := time.Now()
			resp, err := client.Do(req)
			ok := err == nil
			if ok {
				_, err = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				ok = err == nil && resp.StatusCode == http.StatusOK
			}
			s := &cell
			if n%2 == 1 {
				s = &ref
			}
			if ok {
				s.lat = append(s.lat, time.Since(t0))
			} else {
				s.errs++
				if s.errs > 100 {
					break
				}
			}
		}
		// Each one's requests per second as if sent alone: its count over the time its
		// own requests took.
		for _, d := range cell.lat {
			cell.elapsed += d
		}
		for _, d := range ref.lat {
			ref.elapsed += d
		}
		slices.Sort(cell.lat)
		slices.Sort(ref.lat)
		return cell, ref
	}
	run(min(dur/5, 400*time.Millisecond), 0)
	return run(dur, sweepMinRequests)
}

// printSweep writes the sweep's table and its shape ratio, in markdown.
func printSweep(w io.Writer, r *sweepReport) {
	fmt.Fprintf(w, "\nShape sweep: GET /api/v2/purchases of account 1 (%d purchases), %d per page, over HTTP; %s per cell and concurrency "+
		"(at least %d requests at 1 client) after a short warm-up; closed loop. The last column divides the cell's p50 at 1 client by "+
		"the unfiltered newest-first first page's, whose requests were sent at 1 client in turn with the cell's, one of each after the other, "+
		"for the same time (its p50 in the column before).\n\n",
		r.accountPurchases, sweepPerPage, r.dur, sweepMinRequests)
	fmt.Fprintln(w, "| value | filter | matches | page | p50 @1 | p99 @1 | req/s @1 | p50 @16 | p99 @16 | req/s @16 | errors @1 / @16 | unfiltered p50 @1 | p50 @1 ÷ unfiltered | index entries |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	maxEntries, maxEntriesCell := 0.0, ""
	worst, worstRatio, above, cells, errs16 := "", 0.0, 0, 0, 0
	var bases []time.Duration
	for _, c := range r.cells {
		filter := c.value.query.Encode()
		if filter == "" {
			filter = "(none)"
		}
		if c.path == "" || len(c.c[0].lat) == 0 && c.c[0].errs == 0 {
			why := "fewer than 20 pages"
			if c.reqErr != "" {
				why = "error: " + c.reqErr
			}
			fmt.Fprintf(w, "| %s | `%s` | %s | %s | — | — | — | — | — | — | — | — | %s | — |\n", c.value.name, filter, c.matches, c.page, why)
			continue
		}
		cells++
		errs16 += c.c[1].errs
		base := c.base.pct(0.5)
		bases = append(bases, base)
		ratio := "—"
		if base > 0 && len(c.c[0].lat) > 0 {
			x := float64(c.c[0].pct(0.5)) / float64(base)
			ratio = fmt.Sprintf("%.2f", x)
			if x > 2.5 {
				above++
				ratio = "**" + ratio + "**"
			}
			if x > worstRatio {
				worstRatio, worst = x, fmt.Sprintf("%s (`%s`), %s: p50 %s ms over %s ms", c.value.name, filter, c.page, ms(c.c[0].pct(0.5)), ms(base))
			}
		}
		if c.entries > maxEntries {
			maxEntries, maxEntriesCell = c.entries, fmt.Sprintf("%s (`%s`), %s", c.value.name, filter, c.page)
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s | %.0f | %s | %s | %.0f | %d / %d | %s | %s | %.0f |\n", c.value.name, filter, c.matches, c.page,
			ms(c.c[0].pct(0.5)), ms(c.c[0].pct(0.99)), c.c[0].rps(), ms(c.c[1].pct(0.5)), ms(c.c[1].pct(0.99)), c.c[1].rps(),
			c.c[0].errs, c.c[1].errs, ms(base), ratio, c.entries)
	}
	fmt.Fprintln(w)
	if worst == "" {
		fmt.Fprintln(w, "No shape ratio: the unfiltered first page was not measured.")
		return
	}
	fmt.Fprintf(w, "**Shape ratio: %.2f×** (the worst cell's p50 at 1 client over the unfiltered newest-first first page's): %s.\n", worstRatio, worst)
	fmt.Fprintf(w, "Cells above 2.5× the unfiltered first page at 1 client: %d of %d. Errors at 16 clients: %d.\n", above, cells, errs16)
	fmt.Fprintf(w, "Most index entries read by one page (the plan's counts and its ids; the unfiltered first page reads %.0f): %.0f, %s.\n",
		r.cells[0].entries, maxEntries, maxEntriesCell)
	slices.Sort(bases)
	fmt.Fprintf(w, "The unfiltered first page's p50 at 1 client over the run: %d measurements from %s to %s ms, median %s ms; again at the end: %s ms.\n",
		len(bases), ms(bases[0]), ms(bases[len(bases)-1]), ms(bases[len(bases)/2]), ms(r.baselineEnd.pct(0.5)))
}

// pageEntries returns the index entries that the page at path (an API list request)
// reads: ANALYZE FORMAT=JSON of the statements the API sends for it
// (mysql.PurchasePageStatements: the plan's capped counts and the page's ids), the rows
// each table read summed. Unlike a latency, it does not depend on the machine's load.
func pageEntries(ctx context.Context, db *sql.DB, path string) (float64, error) {
	u, err := url.Parse(path)
	if err != nil {
		return 0, err
	}
	var tz string
	if err := db.QueryRowContext(ctx, "SELECT timezone FROM accounts WHERE id = 1").Scan(&tz); err != nil {
		return 0, err
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return 0, err
	}
	f, err := bare{db: db, account: 1, loc: loc}.filterOf(u.Query())
	if err != nil {
		return 0, err
	}
	plan, list, _, err := mysql.PurchasePageStatements(ctx, db, f)
	if err != nil {
		return 0, err
	}
	var total float64
	for _, st := range append(plan, list) {
		n, err := mysql.EntriesRead(ctx, db, st)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
