package web_test

import (
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDashboard_Overview(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(1, "viewer")
	var zone string
	if err := e.db.QueryRow("SELECT timezone FROM accounts WHERE id = 1").Scan(&zone); err != nil {
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
		if err := e.db.QueryRow("SELECT COUNT(*), COALESCE(SUM(status = 'RFD'), 0) FROM purchases WHERE account_id = 1 AND created_at >= ? AND created_at < ?",
			from.UTC(), before.UTC()).Scan(&n, &rfd); err != nil {
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
		rows, err := e.db.Query("SELECT currency, SUM(total) FROM purchases WHERE account_id = 1 AND status = 'ACT' AND created_at >= ? AND created_at < ? GROUP BY currency",
			from.UTC(), before.UTC())
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

	// Each figure that counts links to a list holding exactly what it counts: the
	// purchases (through the API, which reads the same query) and the subscribers (the
	// dashboard's list, its count), for the account and for one storefront, over a
	// range whose end is still to come (Churned counts until now).
	t.Run("FiguresLinkToTheirLists", func(t *testing.T) {
		ranges := map[string]url.Values{
			"ragged":                   q,
			"storefront 1, to the end": {"date_min": {"-6 months"}, "date_max": {"+1 week"}, "storefront_id": {"1"}},
			"a year":                   {"date_min": {"-1 year"}, "date_max": {"now"}},
		}
		for name, rq := range ranges {
			t.Run(name, func(t *testing.T) {
				body := string(u.get("/?"+rq.Encode(), false).body)
				for _, heading := range []string{"Purchases", "Refunds", "Active subscribers", "New subscribers", "Churned"} {
					m := regexp.MustCompile(`>` + heading + `</h2>(?s:.*?)<a href="([^"]*)"[^>]*>([^<]+)</a>`).FindStringSubmatch(body)
					if m == nil {
						t.Fatalf("%s has no link", heading)
					}
					link, shown := strings.ReplaceAll(m[1], "&amp;", "&"), m[2]
					lq, err := url.Parse(link)
					if err != nil {
						t.Fatal(err)
					}
					var listed int64
					if strings.HasPrefix(link, "/purchases?") {
						listed = int64(len(e.walk("/api/v2/purchases?per_page=500&"+lq.RawQuery, e.ro)))
					} else {
						if !strings.Contains(lq.RawQuery, "started_") && !strings.Contains(lq.RawQuery, "ended_") && !strings.Contains(lq.RawQuery, "receiving_at") {
							t.Fatalf("%s links to %s, which is not bounded by the range", heading, link)
						}
						r := u.get(link, false)
						c := regexp.MustCompile(`id="result-count"><span[^>]*>([^<]+)</span>`).FindSubmatch(r.body)
						if r.status != 200 || c == nil {
							t.Fatalf("%s: GET %s: %d, no count", heading, link, r.status)
						}
						fmt.Sscan(strings.ReplaceAll(string(c[1]), ",", ""), &listed)
					}
					if shown != commas(listed) {
						t.Errorf("%s shows %s, but its link %s lists %d", heading, shown, link, listed)
					}
				}
			})
		}
		// Each revenue figure links to the purchases it sums: active, in its currency.
		t.Run("RevenueByCurrency", func(t *testing.T) {
			body := string(u.get("/?date_min=-2+years&date_max=now", false).body)
			sec := regexp.MustCompile(`(?s)>Revenue</h2>(.*?)<h2`).FindStringSubmatch(body)
			if sec == nil {
				t.Fatal("no Revenue figure")
			}
			links := regexp.MustCompile(`<a href="(/purchases\?[^"]*)"`).FindAllStringSubmatch(sec[1], -1)
			if len(links) < 2 {
				t.Fatalf("got %d revenue links, want one per currency", len(links))
			}
			for _, l := range links {
				lq, _ := url.Parse(strings.ReplaceAll(l[1], "&amp;", "&"))
				cur := regexp.MustCompile(`currency:([A-Z]{3})`).FindStringSubmatch(lq.Query().Get("q"))
				if cur == nil {
					t.Fatalf("%s does not name its currency", l[1])
				}
				type row struct {
					Currency string `json:"currency"`
					Status   string `json:"status"`
				}
				rows := walkPages[row](e, "/api/v2/purchases?per_page=500&"+lq.RawQuery, e.ro)
				if len(rows) == 0 {
					t.Errorf("%s lists nothing", l[1])
				}
				for _, r := range rows {
					if r.Currency != cur[1] || r.Status != "ACT" {
						t.Fatalf("%s lists a %s %s purchase", l[1], r.Status, r.Currency)
					}
				}
			}
		})
		// The counts compared are not all zero: the comparison proves something.
		body := string(u.get("/?date_min=-2+years&date_max=now", false).body)
		for _, heading := range []string{"Active subscribers", "New subscribers", "Churned"} {
			m := regexp.MustCompile(`>` + heading + `</h2>(?s:.*?)<a href="[^"]*"[^>]*>([^<]+)</a>`).FindStringSubmatch(body)
			if m == nil || m[1] == "0" {
				t.Errorf("%s over two years: got %v, want some subscribers", heading, m)
			}
		}
		// Top products link to the product's purchases in the range.
		body = string(u.get("/?"+q.Encode(), false).body)
		if !regexp.MustCompile(`href="/purchases\?q=[^"]*product%3A\d+[^"]*currency%3A[A-Z]{3}`).MatchString(body) {
			t.Error("no top product links to its purchases")
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
