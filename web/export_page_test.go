package web_test

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storefront/internal/mysql"
)

// exportLink returns the href of the export menu's entry for rows (purchases or
// line_items) on a page or fragment, unescaped.
func exportLink(t testing.TB, body, rows string) string {
	t.Helper()
	m := regexp.MustCompile(`<a href="([^"]+)" download[^>]*data-export-rows="` + rows + `"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the page has no Export CSV entry for %s", rows)
	}
	return html.UnescapeString(m[1])
}

// TestDashboard_ExportCSV: the Export CSV menu of the purchases page downloads exactly
// the rows its filters select, newest first as shown, for a viewer too; the
// subscribers page does the same for its search.
func TestDashboard_ExportCSV(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")

	for _, q := range []string{"", "status=ACT&status=PND&customer_first_name=+a+", e.path("storefront_id=%d&order=asc&date_min=-15+days", 1)} {
		body := string(u.get("/purchases?"+q, false).body)
		link := exportLink(t, body, "purchases")
		if !strings.HasPrefix(link, "/purchases.csv?") {
			t.Fatalf("got export link %q, want /purchases.csv?…", link)
		}
		r := u.get(link, false)
		if r.status != 200 || r.header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Fatalf("GET %s: %d %s", link, r.status, r.header.Get("Content-Type"))
		}
		header, recs := readCSV(t, r.body)
		// The page's query read as the page reads it (trimmed, newest first unless asked),
		// sent to the API.
		api := url.Values{}
		for k, vs := range must(url.ParseQuery(q)) {
			for _, v := range vs {
				api.Add(k, strings.TrimSpace(v))
			}
		}
		if api.Get("order") == "" {
			api.Set("order", "desc")
		}
		list := e.walkFull(api.Encode(), e.ro)
		if len(list) == 0 {
			t.Fatalf("%s: nothing to export", q)
		}
		sameRows(t, q, header, recs, e.wantPurchaseRows(list, false))
		// The first rows are the page's own.
		if ids := rowIDs(body); !slices.EqualFunc(ids, recs[:len(ids)], func(id string, rec []string) bool { return rec[0] == id }) {
			t.Fatalf("%s: the page shows %v, the export starts %q", q, ids, recs[:len(ids)])
		}
		lheader, lrecs := readCSV(t, u.get(exportLink(t, body, "line_items"), false).body)
		sameRows(t, q+" (line items)", lheader, lrecs, e.wantPurchaseRows(list, true))
	}

	// The subscribers page's search.
	body := string(u.get(e.path("/storefronts/%d/subscribers?status=ACTIVE", 1), false).body)
	link := exportLink(t, body, "subscribers")
	if link != e.path("/storefronts/%d/subscribers.csv", 1)+"?q=status%3AACTIVE" {
		t.Fatalf("got subscriber export link %q", link)
	}
	_, recs := readCSV(t, u.get(link, false).body)
	if len(recs) == 0 {
		t.Fatal("no ACTIVE subscriber exported")
	}
	for _, rec := range recs {
		if rec[3] != "ACTIVE" {
			t.Fatalf("the ACTIVE export holds %q", rec)
		}
	}
	acts, err := mysql.NewAccountActivityService(e.db).FindAccountActivity(context.Background(), e.id(1), 1)
	if err != nil || len(acts) != 1 || acts[0].Actor != u.email {
		t.Fatalf("got %+v %v, want the export recorded as the viewer's", acts, err)
	}

	// The owner sees the exports in the account's activity; a viewer may not.
	page := string(e.signIn(e.id(1), "owner").get("/account/activity", false).body)
	for _, want := range []string{e.path("Subscribers CSV (storefront %d)", 1), "q=status%3AACTIVE", "Line items CSV", u.email} {
		if !strings.Contains(page, html.EscapeString(want)) {
			t.Errorf("the activity page does not show %q", want)
		}
	}
	if r := u.get("/account/activity", false); r.status != 403 {
		t.Errorf("a viewer got %d for the account's activity, want 403", r.status)
	}

	// Bad filters: the page's own error, no file.
	r := u.get("/purchases.csv?date_min=not+a+date", false)
	if r.status != 400 || strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("got %d %s, want a 400 page", r.status, r.header.Get("Content-Type"))
	}
	// Another account's storefront.
	if r := u.get(e.path("/storefronts/%d/subscribers.csv", 3), false); r.status != 404 {
		t.Fatalf("got %d for another account's storefront, want 404", r.status)
	}
}

// TestDashboard_APIRequest: the API request disclosure holds the curl commands of the
// current view, whose answers are the page's rows, and what each date resolved to; an
// htmx update carries the new ones.
func TestDashboard_APIRequest(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	body := string(u.get("/purchases?status=ACT&date_min=-20+days", true).body)
	m := regexp.MustCompile(`<code id="api-request-list">([^<]+)</code>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the fragment has no API request: %s", body)
	}
	cmd := html.UnescapeString(m[1])
	prefix := "curl -u " + e.user + ":$STOREFRONT_KEY 'http://shop.test/api/v2/purchases?"
	if !strings.HasPrefix(cmd, prefix) || !strings.HasSuffix(cmd, "'") {
		t.Fatalf("got %q, want %s…'", cmd, prefix)
	}
	query := strings.TrimSuffix(strings.TrimPrefix(cmd, prefix), "'")
	if v := must(url.ParseQuery(query)); v.Get("q") != `status:ACT created>="-20 days"` {
		t.Fatalf("got query %q, want the filters as typed, as one search", query)
	}
	var api []purchase
	r := e.get("/api/v2/purchases?"+query, e.ro)
	r.json(t, &api)
	if shown, ids := rowIDs(body), pageIDs(api); len(shown) == 0 || !slices.Equal(shown, ids) {
		t.Fatalf("the page shows %v, the API call answers %v", shown, ids)
	}
	if !strings.Contains(body, `data-copy="curl -u `+e.user+`:$STOREFRONT_KEY`) {
		t.Error("the command has no copy button")
	}
	csvCmd := regexp.MustCompile(`<code id="api-request-csv">([^<]+)</code>`).FindStringSubmatch(body)
	if csvCmd == nil || !strings.Contains(html.UnescapeString(csvCmd[1]), "/api/v2/purchases.csv?") {
		t.Fatalf("no CSV command: %v", csvCmd)
	}
	// The search as the API reads it, and its dates as the API's header gives them.
	if got := codeText(body, "api-request-q"); got != `status:ACT created>="-20 days"` {
		t.Errorf("q shown: got %q", got)
	}
	if got, want := codeText(body, "api-request-dates"), r.header.Get("Storefront-Query-Dates"); got != want || !strings.HasPrefix(got, `"-20 days"=2026-`) {
		t.Errorf("dates shown: got %q, want the API's Storefront-Query-Dates %q", got, want)
	}
}

// codeText is the text of the <code> element with the given id in a page.
func codeText(body, id string) string {
	m := regexp.MustCompile(`<code id="` + id + `"[^>]*>([^<]*)</code>`).FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestDashboard_ExportAllSubscribers: the list of every storefront's subscribers names
// each row's storefront, and its Export CSV holds exactly what the list selects, newest
// first, with each row's storefront and the currency of its prices.
func TestDashboard_ExportAllSubscribers(t *testing.T) {
	const dashboardPage = 25
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	type row struct{ id, sf, name, currency string }
	var want []row
	rows, err := e.db.Query(`SELECT sb.id, sb.storefront_id, sf.name, COALESCE(sf.currency, '') FROM subscribers sb
		JOIN subscriptions ss ON ss.account_id = sb.account_id AND ss.subscriber_id = sb.id
		JOIN storefronts sf ON sf.account_id = sb.account_id AND sf.id = sb.storefront_id
		WHERE sb.account_id = ? AND ss.status IN ('ACTIVE', 'PAST_DUE') ORDER BY sb.created_at DESC, sb.id DESC`, e.id(1))
	if err != nil {
		t.Fatal(err)
	}
	stores := map[string]bool{}
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.sf, &r.name, &r.currency); err != nil {
			t.Fatal(err)
		}
		want, stores[r.sf] = append(want, r), true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(stores) < 2 || len(want) <= dashboardPage {
		t.Fatalf("the seed gives %d subscribers in %d storefronts; the test needs more than a page from two", len(want), len(stores))
	}

	body := string(u.get("/subscribers/all?q="+url.QueryEscape("status:ACTIVE,PAST_DUE"), false).body)
	// The page's rows name their storefronts, in the file's order.
	cells := regexp.MustCompile(`<a href="/storefronts/(\d+)/subscribers/(\d+)"[^>]*>[^<]*</a></td>\s*<td[^>]*>([^<]*)</td>`).FindAllStringSubmatch(body, -1)
	if len(cells) != dashboardPage {
		t.Fatalf("the page shows %d rows with a storefront, want %d", len(cells), dashboardPage)
	}
	for i, c := range cells {
		if w := want[i]; c[2] != w.id || c[1] != w.sf || html.UnescapeString(c[3]) != w.name {
			t.Fatalf("row %d: subscriber %s of storefront %s named %q, want %+v", i, c[2], c[1], c[3], w)
		}
	}

	// The API lists a storefront's: the panel gives the search on each of them, whose
	// answers are that storefront's rows of the list, in its order.
	calls := regexp.MustCompile(`<code id="api-request-list-\d+">curl -u [^:]+:\$STOREFRONT_KEY &#39;http://shop.test(/api/v2/storefronts/(\d+)/subscribers\?[^&<]*(?:&amp;[^&<]*)*)&#39;</code>`).FindAllStringSubmatch(body, -1)
	var storefronts int
	e.db.QueryRow("SELECT COUNT(*) FROM storefronts WHERE account_id = ?", e.id(1)).Scan(&storefronts)
	if len(calls) != storefronts {
		t.Fatalf("the API request panel has %d calls, the account %d storefronts", len(calls), storefronts)
	}
	for _, c := range calls {
		var api []struct {
			ID int64 `json:"id"`
		}
		e.get(html.UnescapeString(c[1]), e.ro).json(t, &api)
		var got, mine []string
		for _, a := range api {
			got = append(got, strconv.FormatInt(a.ID, 10))
		}
		for _, w := range want {
			if w.sf == c[2] && len(mine) < dashboardPage {
				mine = append(mine, w.id)
			}
		}
		if !slices.Equal(got, mine) {
			t.Fatalf("%s answers %v, want storefront %s's %v", c[1], got, c[2], mine)
		}
	}

	link := exportLink(t, body, "subscribers")
	if link != "/subscribers/all.csv?q=status%3AACTIVE%2CPAST_DUE" {
		t.Fatalf("got export link %q", link)
	}
	r := u.get(link, false)
	if r.status != 200 || r.header.Get("Content-Type") != "text/csv; charset=utf-8" {
		t.Fatalf("GET %s: %d %s", link, r.status, r.header.Get("Content-Type"))
	}
	header, recs := readCSV(t, r.body)
	if got := strings.Join(header, ","); got != "id,username,created_at,subscription_status,price,period,unit,next_payment_at,ended_at,receiving_service,storefront_id,storefront,currency" {
		t.Fatalf("got header %s", got)
	}
	if len(recs) != len(want) {
		t.Fatalf("the file has %d rows, the list selects %d", len(recs), len(want))
	}
	for i, rec := range recs {
		if w := want[i]; rec[0] != w.id || rec[10] != w.sf || rec[11] != w.name || rec[12] != w.currency || (rec[3] != "ACTIVE" && rec[3] != "PAST_DUE") {
			t.Fatalf("row %d: %q, want %+v", i, rec, w)
		}
	}
	// A storefront's own file keeps its columns.
	h1, _ := readCSV(t, u.get(e.path("/storefronts/%d/subscribers.csv", 1), false).body)
	if len(h1) != 10 {
		t.Fatalf("a storefront's file has columns %q", h1)
	}

	acts, err := mysql.NewAccountActivityService(e.db).FindAccountActivity(context.Background(), e.id(1), 2)
	if err != nil || len(acts) != 2 || acts[1].Actor != u.email || !strings.Contains(acts[1].Details, `"subscribers"`) || strings.Contains(acts[1].Details, "storefront_id") {
		t.Fatalf("got %+v %v, want the export of every storefront recorded as the viewer's", acts, err)
	}
	page := string(e.signIn(e.id(1), "owner").get("/account/activity", false).body)
	if !strings.Contains(page, "Subscribers CSV (every storefront)") {
		t.Error("the activity page does not name the export of every storefront")
	}
	// A search that cannot be read: the page's error, no file.
	if r := u.get("/subscribers/all.csv?q="+url.QueryEscape("status:"), false); r.status != 400 || strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("got %d %s, want a 400 page", r.status, r.header.Get("Content-Type"))
	}
}
