package web_test

import (
	"context"
	"database/sql"
	"fmt"
	"html"
	"math/big"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

func TestDashboard_Overview(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	var zone string
	if err := e.db.QueryRow("SELECT timezone FROM accounts WHERE id = ?", e.id(1)).Scan(&zone); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(zone)
	// A range with ragged ends: whole days come from the rollups, the ends from rows.
	from, before := now.AddDate(0, -8, 0).Add(-5*time.Hour-17*time.Minute), now.AddDate(0, -1, 0).Add(3*time.Hour)
	q := url.Values{"date_min": {from.In(loc).Format(time.DateTime)}, "date_max": {before.In(loc).Format(time.DateTime)}}

	t.Run("Headings", func(t *testing.T) {
		r := u.get("/", false)
		body := string(r.body)
		if r.status != 200 {
			t.Fatalf("GET /: %d", r.status)
		}
		for _, h := range []string{"Revenue", "Purchases", "Refunds", "Average order", "Active subscribers", "New subscribers", "Churned"} {
			if !strings.Contains(body, ">"+h+"</h2>") {
				t.Errorf("the overview lacks the heading %q", h)
			}
		}
		for _, nav := range []string{">Overview</a>", ">Purchases</a>", ">Subscribers</a>", ">Jobs</a>"} {
			if !strings.Contains(body, nav) {
				t.Errorf("the navigation lacks %s", nav)
			}
		}
		if !strings.Contains(body, `aria-current="page">Overview<`) {
			t.Error("Overview is not the current page in the navigation")
		}
		// The chart is accessible: title, description and a data table.
		for _, want := range []string{`role="img"`, "<title id=\"chart-purchases-title\">", "<desc id=\"chart-purchases-desc\">", "<summary", ">Show data</summary>"} {
			if !strings.Contains(body, want) {
				t.Errorf("the chart lacks %s", want)
			}
		}
		if strings.Contains(body, "style=") || strings.Contains(body, "<script>") {
			t.Error("the page has an inline style or script, which the CSP refuses")
		}
	})

	t.Run("FiguresEqualTheRows", func(t *testing.T) {
		body := string(u.get("/?"+q.Encode(), false).body)
		var n, rfd int64
		if err := e.db.QueryRow("SELECT COUNT(*), COALESCE(SUM(status = 'RFD'), 0) FROM purchases WHERE account_id = ? AND created_at >= ? AND created_at < ?",
			e.id(1), from.UTC(), before.UTC()).Scan(&n, &rfd); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatal("no purchases in the range")
		}
		figure := func(heading string) string {
			m := regexp.MustCompile(`>` + heading + `</h2>(?s:.*?)<a href="[^"]*"[^>]*>([^<]+)</a>`).FindStringSubmatch(body)
			if m == nil {
				t.Fatalf("no figure under %s", heading)
			}
			return m[1]
		}
		if got := figure("Purchases"); got != commas(n) {
			t.Errorf("Purchases: got %s, want %s", got, commas(n))
		}
		if got := figure("Refunds"); got != commas(rfd) {
			t.Errorf("Refunds: got %s, want %s", got, commas(rfd))
		}
		rows, err := e.db.Query("SELECT currency, SUM(total) FROM purchases WHERE account_id = ? AND status = 'ACT' AND created_at >= ? AND created_at < ? GROUP BY currency",
			e.id(1), from.UTC(), before.UTC())
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var cur, total string
			if err := rows.Scan(&cur, &total); err != nil {
				t.Fatal(err)
			}
			r, _ := new(big.Rat).SetString(total)
			whole, frac, _ := strings.Cut(r.FloatString(2), ".")
			var w int64
			fmt.Sscan(whole, &w)
			want := commas(w) + "." + frac + " " + cur
			if !strings.Contains(body, ">"+want+"</a>") {
				t.Errorf("Revenue in %s: %s is not shown", cur, want)
			}
		}
	})

	t.Run("BadDateIs400WithMessage", func(t *testing.T) {
		r := u.get("/?date_min=not+a+date", false)
		if r.status != 400 || !strings.Contains(string(r.body), "Created from") {
			t.Errorf("got %d, want 400 naming Created from", r.status)
		}
		r = u.get("/?date_min=today&date_max=yesterday", false)
		if r.status != 400 || !strings.Contains(string(r.body), "must be later than Created from") {
			t.Errorf("reversed range: got %d", r.status)
		}
		r = u.get("/?storefront_id=999999", false)
		if r.status != 400 || !strings.Contains(string(r.body), "Storefront") {
			t.Errorf("another storefront: got %d", r.status)
		}
	})

	t.Run("WeeklyOverLongRanges", func(t *testing.T) {
		body := string(u.get("/?date_min=-1+year&date_max=now", false).body)
		if !strings.Contains(body, "Purchases per week") {
			t.Error("a year is not drawn by week")
		}
		if !strings.Contains(string(u.get("/", false).body), "Purchases per day") {
			t.Error("30 days are not drawn by day")
		}
	})
}

// TestDashboard_OverviewLinks follows every link of the overview: each figure, and each
// top product, links to a list by one search (q) of exactly the rows it counts. The
// test reads each link's q through the API (the purchases list; a storefront's
// subscribers, or every storefront's together) and compares the rows with the figure:
// their count, their totals' sum (revenue), the sum over their count (average order),
// the product's line items (top products). Ranges with ragged ends, whole days, one
// storefront and an end still to come (Active subscribers then counts now).
func TestDashboard_OverviewLinks(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	var zone string
	if err := e.db.QueryRow("SELECT timezone FROM accounts WHERE id = ?", e.id(1)).Scan(&zone); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(zone)
	storefronts := naiveIDs(t, e, "SELECT id FROM storefronts WHERE account_id = ? ORDER BY id", e.id(1))
	from, before := now.AddDate(0, -8, 0).Add(-5*time.Hour-17*time.Minute), now.AddDate(0, -1, 0).Add(3*time.Hour)
	// Service terms that meet the end of the "whole days" range, 1 September 2026 at
	// midnight: one begun then, two ended then, one begun later that day. Active at the
	// end counts the first alone.
	end := time.Date(2026, 9, 1, 0, 0, 0, 0, loc)
	subs := naiveIDs(t, e, "SELECT subscriber_id FROM subscriptions WHERE account_id = ? ORDER BY subscriber_id LIMIT 4", e.id(1))
	for i, c := range []struct {
		status                      string
		created, ended, nextPayment any
	}{
		{"ACTIVE", end, nil, nil},
		{"CANCELED", end.AddDate(0, -2, 0), end, nil},
		{"CANCELED", end.AddDate(0, -3, 0), nil, end},
		{"ACTIVE", end.Add(10 * time.Hour), nil, nil},
	} {
		if _, err := e.db.Exec(`UPDATE subscriptions SET status = ?, created_at = ?, started_at = ?, trial_started_at = NULL, ended_at = ?,
			next_payment_at = ?, updated_at = ? WHERE account_id = ? AND subscriber_id = ?`,
			c.status, c.created, c.created, c.ended, c.nextPayment, end.Add(24*time.Hour), e.id(1), subs[i]); err != nil {
			t.Fatal(err)
		}
	}
	dbtest.EachShard(t, e.db.DB, func(db *sql.DB) error { return mysql.RebuildDerived(context.Background(), db) })
	type purchaseRow struct {
		ID        int64  `json:"id"`
		Status    string `json:"status"`
		Currency  string `json:"currency"`
		Total     string `json:"total"`
		LineItems []struct {
			ProductID int64  `json:"product_id"`
			Total     string `json:"total"`
		} `json:"line_items"`
	}
	// follow reads a link's search through the API: the purchases, or the number of
	// subscribers, it lists.
	follow := func(t *testing.T, link string) ([]purchaseRow, int) {
		lu, err := url.Parse(link)
		if err != nil {
			t.Fatal(err)
		}
		q := lu.Query()
		if len(q) != 1 || q.Get("q") == "" {
			t.Fatalf("%s: want a link by one search, q", link)
		}
		qs := "per_page=500&q=" + url.QueryEscape(q.Get("q"))
		switch {
		case lu.Path == "/purchases":
			rows := walkPages[purchaseRow](e.with(t), "/api/v2/purchases?"+qs, e.ro)
			return rows, len(rows)
		case lu.Path == "/subscribers/all":
			n := 0
			for _, sf := range storefronts {
				n += len(walkPages[struct{}](e.with(t), fmt.Sprintf("/api/v2/storefronts/%d/subscribers?%s", sf, qs), e.ro))
			}
			return nil, n
		case strings.HasPrefix(lu.Path, "/storefronts/"):
			return nil, len(walkPages[struct{}](e.with(t), "/api/v2"+lu.Path+"?"+qs, e.ro))
		}
		t.Fatalf("%s: a link to no list", link)
		return nil, 0
	}
	sum := func(amounts []string) *big.Rat {
		r := new(big.Rat)
		for _, a := range amounts {
			v, ok := new(big.Rat).SetString(a)
			if !ok {
				t.Fatalf("amount %q", a)
			}
			r.Add(r, v)
		}
		return r
	}
	linkRe := regexp.MustCompile(`<a href="([^"]*)"[^>]*>([^<]+)</a>`)
	ranges := map[string]url.Values{
		"ragged":                   {"date_min": {from.In(loc).Format(time.DateTime)}, "date_max": {before.In(loc).Format(time.DateTime)}},
		"whole days":               {"date_min": {"2026-03-01"}, "date_max": {"2026-09-01"}},
		"storefront 1, to the end": {"date_min": {"-6 months"}, "date_max": {"+1 week"}, "storefront_id": {fmt.Sprint(e.id(1))}},
		"two years to now":         {"date_min": {"-2 years"}, "date_max": {"now"}},
	}
	seen := map[string]int{}
	for name, rq := range ranges {
		t.Run(name, func(t *testing.T) {
			r := u.get("/?"+rq.Encode(), false)
			if r.status != 200 {
				t.Fatalf("GET /?%s: %d", rq.Encode(), r.status)
			}
			body := string(r.body)
			for _, heading := range []string{"Revenue", "Purchases", "Refunds", "Average order", "Active subscribers", "New subscribers", "Churned"} {
				sec := regexp.MustCompile(`(?s)>` + heading + `</h2>(.*?)</div>`).FindStringSubmatch(body)
				if sec == nil {
					t.Fatalf("no figure %s", heading)
				}
				links := linkRe.FindAllStringSubmatch(sec[1], -1)
				if len(links) == 0 && heading != "Revenue" && heading != "Average order" {
					t.Fatalf("%s has no link", heading)
				}
				for _, l := range links {
					link, shown := html.UnescapeString(l[1]), l[2]
					rows, n := follow(t, link)
					var want string
					switch heading {
					case "Revenue", "Average order":
						cur := regexp.MustCompile(` ([A-Z]{3})$`).FindStringSubmatch(shown)
						if cur == nil || !strings.Contains(link, "currency%3A"+cur[1]) || !strings.Contains(link, "status%3AACT") {
							t.Fatalf("%s %s links to %s, not to its status and currency", heading, shown, link)
						}
						var totals []string
						for _, p := range rows {
							if p.Status != "ACT" || p.Currency != cur[1] {
								t.Fatalf("%s lists a %s %s purchase", link, p.Status, p.Currency)
							}
							totals = append(totals, p.Total)
						}
						total := sum(totals)
						if heading == "Average order" && n > 0 {
							total.Quo(total, big.NewRat(int64(n), 1))
						}
						want = money(total, cur[1])
					default:
						want = commas(int64(n))
					}
					if shown != want {
						t.Errorf("%s shows %s, but its link %s lists rows worth %s", heading, shown, link, want)
					}
					seen[heading] += n
				}
			}
			// Each top product: its purchases and its line items' revenue.
			top := regexp.MustCompile(`(?s)Top products.*?</table>`).FindString(body)
			cells := regexp.MustCompile(`(?s)<tr>\s*<td[^>]*>\s*<a href="([^"]*)"[^>]*>[^<]*</a>\s*</td>\s*<td[^>]*>([^<]+)</td>\s*<td[^>]*>([^<]+)</td>`).FindAllStringSubmatch(top, -1)
			if len(cells) == 0 {
				t.Fatal("no top product")
			}
			for _, c := range cells {
				link := html.UnescapeString(c[1])
				m := regexp.MustCompile(`product%3A(\d+).*currency%3A([A-Z]{3})`).FindStringSubmatch(link)
				if m == nil {
					t.Fatalf("%s does not name its product and currency", link)
				}
				rows, n := follow(t, link)
				var totals []string
				for _, p := range rows {
					for _, li := range p.LineItems {
						if fmt.Sprint(li.ProductID) == m[1] {
							totals = append(totals, li.Total)
						}
					}
				}
				if got := money(sum(totals), m[2]); c[2] != got || c[3] != commas(int64(n)) {
					t.Errorf("product %s shows %s in %s purchases, its link %s lists %s in %d", m[1], c[2], c[3], link, got, n)
				}
				seen["top products"] += n
			}
		})
	}
	// The comparisons are of something: no figure is empty over all ranges.
	for _, k := range []string{"Revenue", "Purchases", "Refunds", "Average order", "Active subscribers", "New subscribers", "Churned", "top products"} {
		if seen[k] == 0 {
			t.Errorf("%s: no link lists any row", k)
		}
	}
}

// money writes an amount as the overview does: thousands separated, the currency's
// digits, its code.
func money(r *big.Rat, currency string) string {
	digits, ok := shop.CurrencyDigits(currency)
	if !ok {
		digits = 2
	}
	s := r.FloatString(digits)
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	var w int64
	fmt.Sscan(whole, &w)
	out := commas(w)
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "−" + out
	}
	return out + " " + currency
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
