package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// subsDoc is a parsed dashboard answer.
type subsDoc struct {
	t    testing.TB
	root *html.Node
	raw  string
}

func subsParse(t testing.TB, r response) subsDoc {
	t.Helper()
	n, err := html.Parse(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return subsDoc{t: t, root: n, raw: string(r.body)}
}

func subsAttr(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

// all returns the elements with the tag ("" for any) whose attributes include every
// name=value pair given ("name=" alone asks only that the attribute exists).
func (p subsDoc) all(tag string, attrs ...string) []*html.Node {
	return subsAll(p.root, tag, attrs...)
}

func subsAll(root *html.Node, tag string, attrs ...string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (tag == "" || n.Data == tag) {
			ok := true
			for _, a := range attrs {
				name, want, _ := strings.Cut(a, "=")
				got, has := subsAttr(n, name)
				if !has || (want != "" && got != want) {
					ok = false
					break
				}
			}
			if ok {
				out = append(out, n)
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(root)
	return out
}

func (p subsDoc) byID(id string) *html.Node {
	p.t.Helper()
	ns := p.all("", "id="+id)
	if len(ns) != 1 {
		p.t.Fatalf("#%s: got %d elements, want 1", id, len(ns))
	}
	return ns[0]
}

func (p subsDoc) has(id string) bool { return len(p.all("", "id="+id)) > 0 }

// subsIsFullPage reports whether the answer is a whole document (not an htmx fragment).
func subsIsFullPage(r response) bool {
	return bytes.Contains(bytes.ToLower(r.body[:min(len(r.body), 200)]), []byte("<!doctype html>"))
}

func subsWantVary(t testing.TB, r response) {
	t.Helper()
	if !strings.Contains(r.header.Get("Vary"), "HX-Request") {
		t.Errorf("Vary: got %q, want HX-Request", r.header.Get("Vary"))
	}
}

// subscriberRows reads the subscribers table: e-mail, status text, receiving service.
type subsRowText struct {
	href, email, status, plan, next, service string
}

func subscriberRows(t testing.TB, r response) []subsRowText {
	t.Helper()
	p := subsParse(t, r)
	var out []subsRowText
	for _, tbody := range p.all("tbody") {
		for _, tr := range subsAll(tbody, "tr") {
			tds := subsAll(tr, "td")
			if len(tds) != 5 {
				t.Fatalf("row with %d cells: %s", len(tds), blockText(tr))
			}
			a := subsAll(tds[0], "a")
			href := ""
			if len(a) == 1 {
				href, _ = subsAttr(a[0], "href")
			}
			out = append(out, subsRowText{href, blockText(tds[0]), blockText(tds[1]), blockText(tds[2]), blockText(tds[3]), blockText(tds[4])})
		}
	}
	return out
}

func TestSubscribersPage(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	sf1 := e.path("/storefronts/%d/subscribers", 1)
	var total1 int
	e.db.QueryRow("SELECT COUNT(*) FROM subscribers WHERE storefront_id = ?", e.id(1)).Scan(&total1)
	if total1 <= 25 {
		t.Fatalf("the seed gives storefront 1 only %d subscribers; paging needs more than 25", total1)
	}

	t.Run("RedirectToFirstStorefront", func(t *testing.T) {
		r := u.get("/subscribers?email=a", false)
		if want := sf1 + "?email=a"; r.status != http.StatusSeeOther || r.header.Get("Location") != want {
			t.Fatalf("got %d %q, want 303 to %s", r.status, r.header.Get("Location"), want)
		}
	})

	t.Run("FullPage", func(t *testing.T) {
		r := u.get(sf1, false)
		if r.status != 200 || !subsIsFullPage(r) {
			t.Fatalf("got %d, full page %v", r.status, subsIsFullPage(r))
		}
		subsWantVary(t, r)
		p := subsParse(t, r)
		if len(p.all("form", "id=filters", "action="+sf1, "hx-get="+sf1, "hx-push-url=true")) != 1 {
			t.Error("no live search form")
		}
		if len(p.all("input", "name=email", "id=f-email")) != 1 || len(p.all("label", "for=f-email")) != 1 {
			t.Error("no labelled e-mail search")
		}
		if n := len(p.all("input", "type=checkbox", "name=status")); n != 6 {
			t.Errorf("status checkboxes: got %d, want 6", n)
		}
		for _, d := range []string{"started_min", "started_max", "ended_min", "ended_max", "receiving_at"} {
			if len(p.all("input", "name="+d, "id=f-"+d)) != 1 || len(p.all("label", "for=f-"+d)) != 1 {
				t.Errorf("no labelled %s field", d)
			}
		}
		// The switcher names all storefronts together, then the account's storefronts,
		// and marks the current one.
		sw := p.all("nav", "aria-label=Storefronts")
		if len(sw) != 1 {
			t.Fatal("no storefront switcher")
		}
		links := subsAll(sw[0], "a")
		if len(links) != 4 || blockText(links[0]) != "All storefronts" || blockText(links[1]) != "Pixel Fonts" || blockText(links[2]) != "Sound Packs" || blockText(links[3]) != "Color Picker" {
			t.Fatalf("switcher: got %q", blockText(sw[0]))
		}
		if _, cur := subsAttr(links[1], "aria-current"); !cur {
			t.Error("the current storefront is not marked")
		}
		if strings.Contains(string(r.body), "Nordic Games") {
			t.Error("another account's storefront is shown")
		}
		rows := subscriberRows(t, r)
		if len(rows) != 25 {
			t.Fatalf("rows: got %d, want 25", len(rows))
		}
		var cols []string
		for _, th := range subsAll(p.byID("results"), "th", "scope=col") {
			cols = append(cols, blockText(th))
		}
		if want := []string{"E-mail", "Status", "Plan", "Next payment", "Receiving service"}; !slices.Equal(cols, want) {
			t.Errorf("columns: got %q, want %q", cols, want)
		}
		if got := blockText(p.byID("result-count")); got != fmt.Sprintf("%d subscribers, newest first", total1) {
			t.Errorf("count: got %q, want %d", got, total1)
		}
	})

	t.Run("Fragment", func(t *testing.T) {
		r := u.get(sf1+"?email=&status=active", true)
		if r.status != 200 || subsIsFullPage(r) {
			t.Fatalf("got %d, full page %v; want a fragment", r.status, subsIsFullPage(r))
		}
		subsWantVary(t, r)
		if got := r.header.Get("HX-Push-Url"); got != sf1+"?q=status%3AACTIVE" {
			t.Errorf("HX-Push-Url: got %q", got)
		}
		if strings.Contains(string(r.body), `id="filters"`) || strings.Contains(string(r.body), "<nav aria-label=\"Main\"") {
			t.Error("the fragment carries the page around it")
		}
		for _, row := range subscriberRows(t, r) {
			if row.status != "Active" {
				t.Fatalf("status filter let %q through", row.status)
			}
		}
	})

	t.Run("SearchByEmailPrefix", func(t *testing.T) {
		var id int64
		var username string
		e.db.QueryRow("SELECT id, username FROM subscribers WHERE storefront_id = ? ORDER BY id LIMIT 1", e.id(1)).Scan(&id, &username)
		// Accents and letter case are ignored, as a person would expect.
		if _, err := e.db.Exec("UPDATE subscribers SET username = ? WHERE id = ?", "zoë.müller@example.test", id); err != nil {
			t.Fatal(err)
		}
		defer e.db.Exec("UPDATE subscribers SET username = ? WHERE id = ?", username, id)
		for _, q := range []string{"zoë.m", "ZOE.MULLER@", "Zoe"} {
			r := u.get(sf1+"?email="+url.QueryEscape(q), false)
			rows := subscriberRows(t, r)
			if len(rows) != 1 || rows[0].email != "zoë.müller@example.test" || rows[0].href != fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(1), id) {
				t.Fatalf("email=%s: got %+v", q, rows)
			}
		}
		// A prefix only: the middle of an address does not match.
		if rows := subscriberRows(t, u.get(sf1+"?email=muller", false)); len(rows) != 0 {
			t.Fatalf("email=muller: got %+v, want none", rows)
		}
		// Like-wildcards are literal.
		if rows := subscriberRows(t, u.get(sf1+"?email=%25", false)); len(rows) != 0 {
			t.Fatalf("email=%%: got %d rows, want none", len(rows))
		}
	})

	t.Run("StatusFilter", func(t *testing.T) {
		var want int
		e.db.QueryRow("SELECT COUNT(*) FROM subscribers sb JOIN subscriptions ss ON ss.subscriber_id = sb.id WHERE sb.storefront_id = ? AND ss.status IN ('ACTIVE', 'TRIAL')", e.id(1)).Scan(&want)
		if want == 0 || want == total1 {
			t.Fatalf("the seed gives %d ACTIVE/TRIAL subscribers of %d: the filter cannot be told apart", want, total1)
		}
		var got []string
		path := sf1 + "?status=ACTIVE&status=trial"
		for path != "" {
			r := u.get(path, false)
			for _, row := range subscriberRows(t, r) {
				if row.status != "Active" && row.status != "Trial" {
					t.Fatalf("got status %q", row.status)
				}
				if (row.service == "Yes") != true {
					t.Errorf("%s: an %s subscriber is not receiving service", row.email, row.status)
				}
				got = append(got, row.email)
			}
			path = ""
			for _, a := range subsParse(t, r).all("a", "rel=next") {
				path, _ = subsAttr(a, "href")
			}
		}
		if len(got) != want {
			t.Fatalf("got %d subscribers, want %d", len(got), want)
		}
		p := subsParse(t, u.get(sf1+"?status=ACTIVE&status=trial", false))
		for _, in := range p.all("input", "name=status") {
			v, _ := subsAttr(in, "value")
			_, checked := subsAttr(in, "checked")
			if checked != (v == "ACTIVE" || v == "TRIAL") {
				t.Errorf("checkbox %s checked %v", v, checked)
			}
		}
	})

	t.Run("KeysetPaging", func(t *testing.T) {
		var ids []string
		var pages []string
		path := sf1
		for path != "" {
			pages = append(pages, path)
			r := u.get(path, true)
			for _, row := range subscriberRows(t, r) {
				ids = append(ids, row.href)
			}
			path = ""
			for _, a := range subsParse(t, r).all("a", "rel=next") {
				path, _ = subsAttr(a, "href")
			}
		}
		if len(ids) != total1 || len(pages) != (total1+24)/25 {
			t.Fatalf("walked %d subscribers on %d pages, want %d", len(ids), len(pages), total1)
		}
		sorted := slices.Clone(ids)
		slices.Sort(sorted)
		if len(slices.Compact(sorted)) != total1 {
			t.Fatal("a subscriber is listed twice")
		}
		// Newer from page 2 goes back to page 1.
		r := u.get(pages[1], false)
		newer := subsParse(t, r).all("a", "rel=prev")
		if len(newer) != 1 {
			t.Fatal("no Newer link on page 2")
		}
		href, _ := subsAttr(newer[0], "href")
		var back []string
		for _, row := range subscriberRows(t, u.get(href, false)) {
			back = append(back, row.href)
		}
		if !slices.Equal(back, ids[:25]) {
			t.Fatalf("Newer: got %v, want %v", back, ids[:25])
		}
		if len(subsParse(t, u.get(pages[0], false)).all("a", "rel=prev")) != 0 {
			t.Error("the first page offers Newer")
		}
	})

	t.Run("EmptyState", func(t *testing.T) {
		r := u.get(sf1+"?email=nobody-at-all", false)
		if r.status != 200 || !strings.Contains(string(r.body), "No subscribers match this search.") {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		if len(subscriberRows(t, r)) != 0 {
			t.Fatal("rows in the empty state")
		}
	})

	t.Run("BadFilter", func(t *testing.T) {
		r := u.get(sf1+"?status=GONE", false)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "Subscription status: ") || !strings.Contains(string(r.body), `id="filters"`) {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		r = u.get(sf1+"?status=GONE", true)
		if r.status != 200 || !strings.Contains(string(r.body), `role="alert"`) {
			t.Fatalf("htmx: got %d %s", r.status, r.body)
		}
		for _, q := range []string{"cursor=forged", "before=forged", "username=a", "email=" + strings.Repeat("x", 300)} {
			if r := u.get(sf1+"?"+q, false); r.status != http.StatusBadRequest {
				t.Errorf("%s: got %d, want 400", q, r.status)
			}
		}
	})

	t.Run("BadDate", func(t *testing.T) {
		r := u.get(sf1+"?ended_max=2024-13-01", false)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "Service ended before: ") || !strings.Contains(string(r.body), `id="filters"`) {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		// The text is read as typed, and the hint says what it was not.
		r = u.get("/subscribers/all?started_min=not+a+date", true)
		if r.status != 200 || !strings.Contains(string(r.body), `role="alert"`) || !strings.Contains(string(r.body), "Service started from: ") {
			t.Fatalf("htmx: got %d %s", r.status, r.body)
		}
	})

	// The service-term dates select the subscribers whose term (subscriber_terms) began,
	// or ended, in the range; every storefront's together on /subscribers/all.
	t.Run("ServiceDates", func(t *testing.T) {
		var zone string
		if err := e.db.QueryRow("SELECT timezone FROM accounts WHERE id = ?", e.id(1)).Scan(&zone); err != nil {
			t.Fatal(err)
		}
		loc, _ := time.LoadLocation(zone)
		from, before := now.AddDate(0, -6, 0), now.AddDate(0, 0, -3)
		count := func(path string) int64 {
			r := u.get(path, false)
			c := regexp.MustCompile(`id="result-count"><span[^>]*>([^<]+)</span>`).FindSubmatch(r.body)
			if r.status != 200 || c == nil {
				t.Fatalf("GET %s: %d, no count", path, r.status)
			}
			var n int64
			fmt.Sscan(strings.ReplaceAll(string(c[1]), ",", ""), &n)
			return n
		}
		dates := url.Values{"started_min": {from.In(loc).Format(time.DateTime)}, "started_max": {before.In(loc).Format(time.DateTime)}}
		for _, c := range []struct {
			path, col, sf string
			sfArgs        []any
		}{
			{"/subscribers/all", "start_at", "", nil}, {sf1, "start_at", " AND storefront_id = ?", []any{e.id(1)}},
		} {
			var want int64
			args := append([]any{e.id(1), from.Truncate(time.Second).UTC(), before.Truncate(time.Second).UTC()}, c.sfArgs...)
			if err := e.db.QueryRow("SELECT COUNT(*) FROM subscriber_terms WHERE account_id = ? AND "+c.col+" >= ? AND "+c.col+" < ?"+c.sf,
				args...).Scan(&want); err != nil {
				t.Fatal(err)
			}
			if want == 0 {
				t.Fatalf("%s: no service term began in the range", c.path)
			}
			if got := count(c.path + "?" + dates.Encode()); got != want {
				t.Errorf("%s: got %d subscribers, want %d", c.path, got, want)
			}
		}
		var ended int64
		if err := e.db.QueryRow("SELECT COUNT(*) FROM subscriber_terms WHERE account_id = ? AND end_at >= ? AND end_at < ?",
			e.id(1), from.Truncate(time.Second).UTC(), before.Truncate(time.Second).UTC()).Scan(&ended); err != nil {
			t.Fatal(err)
		}
		q := url.Values{"ended_min": {from.In(loc).Format(time.DateTime)}, "ended_max": {before.In(loc).Format(time.DateTime)}}
		if got := count("/subscribers/all?" + q.Encode()); got != ended || ended == 0 {
			t.Errorf("ended: got %d subscribers, want %d (and some)", got, ended)
		}
		// Receiving service at an instant: the terms [start, end) that hold it.
		var receiving int64
		if err := e.db.QueryRow("SELECT COUNT(*) FROM subscriber_terms WHERE account_id = ? AND start_at <= ? AND (end_at IS NULL OR end_at > ?)",
			e.id(1), before.Truncate(time.Second).UTC(), before.Truncate(time.Second).UTC()).Scan(&receiving); err != nil {
			t.Fatal(err)
		}
		if got := count("/subscribers/all?" + url.Values{"receiving_at": {before.In(loc).Format(time.DateTime)}}.Encode()); got != receiving || receiving == 0 {
			t.Errorf("receiving at %v: got %d subscribers, want %d (and some)", before, got, receiving)
		}
		// All storefronts list more than one storefront's.
		var all int64
		if err := e.db.QueryRow("SELECT COUNT(*) FROM subscribers WHERE account_id = ?", e.id(1)).Scan(&all); err != nil {
			t.Fatal(err)
		}
		if got := count("/subscribers/all"); got != all || all <= int64(total1) {
			t.Errorf("/subscribers/all: got %d, want the account's %d (storefront 1 has %d)", got, all, total1)
		}
	})

	t.Run("OtherAccount", func(t *testing.T) {
		var other, mine int64
		e.db.QueryRow("SELECT MIN(id) FROM subscribers WHERE storefront_id = ?", e.id(3)).Scan(&other)
		e.db.QueryRow("SELECT MIN(id) FROM subscribers WHERE storefront_id = ?", e.id(1)).Scan(&mine)
		for path, want := range map[string]int{
			e.path("/storefronts/%d/subscribers", 3):                      404,
			"/storefronts/999/subscribers":                                404,
			fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(3), other): 404,
			fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(1), other): 404,
			fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(2), mine):  404,
			"/storefronts/x/subscribers":                                  400,
			fmt.Sprintf("/storefronts/0%d/subscribers", e.id(1)):          400,
			sf1 + "/abc": 400,
			sf1 + "/0":   400,
			fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(1), mine): 200,
			sf1 + "/99999999999999999999999":                             400,
		} {
			r := u.get(path, false)
			if r.status != want {
				t.Errorf("%s: got %d, want %d", path, r.status, want)
			}
			if want == 404 && strings.Contains(string(r.body), "Nordic") {
				t.Errorf("%s: the 404 page shows the other account's data", path)
			}
		}
	})

	t.Run("Escaped", func(t *testing.T) {
		var id int64
		var username string
		e.db.QueryRow("SELECT id, username FROM subscribers WHERE storefront_id = ? ORDER BY id DESC LIMIT 1", e.id(1)).Scan(&id, &username)
		evil := `<img src=x onerror=alert(1)>@example.test`
		if _, err := e.db.Exec("UPDATE subscribers SET username = ? WHERE id = ?", evil, id); err != nil {
			t.Fatal(err)
		}
		defer e.db.Exec("UPDATE subscribers SET username = ? WHERE id = ?", username, id)
		for _, path := range []string{sf1 + "?email=%3Cimg", fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(1), id)} {
			r := u.get(path, false)
			if strings.Contains(string(r.body), "<img src=x") || !strings.Contains(string(r.body), "&lt;img src=x onerror=alert(1)&gt;") {
				t.Errorf("%s: the e-mail is not escaped", path)
			}
		}
	})
}

// subscriptionFor returns a subscriber of storefront 1 that has a subscription.
func subscriptionFor(t *testing.T, e *apiEnv) (int64, string) {
	t.Helper()
	var id int64
	var username string
	if err := e.db.QueryRow(`SELECT sb.id, sb.username FROM subscribers sb JOIN subscriptions ss ON ss.subscriber_id = sb.id
		WHERE sb.storefront_id = ? ORDER BY sb.id LIMIT 1`, e.id(1)).Scan(&id, &username); err != nil {
		t.Fatal(err)
	}
	return id, username
}

func TestSubscriberPage_Entitlement(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	id, username := subscriptionFor(t, e)
	path := fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(1), id)
	ny, _ := time.LoadLocation("America/New_York")
	inTenDays := now.Add(10 * 24 * time.Hour)
	for _, tc := range []struct {
		name, status        string
		ended, next         any
		headline, why, code string
		until               string
	}{
		{"Active", "ACTIVE", nil, now.Add(20 * 24 * time.Hour), "Receiving service", "active and no payment is due", "active", ""},
		{"Trial", "TRIAL", nil, nil, "Receiving service", "trial period", "trial", ""},
		{"PastDue", "PAST_DUE", nil, now.Add(-24 * time.Hour), "Receiving service", "grace period of 14 days, until " + inTenDays.Add(3*24*time.Hour).In(ny).Format("Mon 2 Jan 2006 15:04 MST"), "past_due", ""},
		{"CanceledBeforeTermEnd", "CANCELED", inTenDays, nil, "Receiving service", "Service continues until the end of the term", "canceled_until_term_end", "Until " + inTenDays.In(ny).Format("Mon 2 Jan 2006 15:04 MST")},
		{"CanceledBeforeNextPayment", "CANCELED", nil, inTenDays, "Receiving service", "Service continues until the end of the term", "canceled_until_term_end", "Until " + inTenDays.In(ny).Format("Mon 2 Jan 2006 15:04 MST")},
		{"CanceledAfterTermEnd", "CANCELED", now.Add(-time.Hour), nil, "Not receiving service", "the term it paid for has ended", "canceled_term_ended", "Ended " + now.Add(-time.Hour).In(ny).Format("Mon 2 Jan 2006 15:04 MST")},
		{"CanceledWithoutTerm", "CANCELED", nil, nil, "Not receiving service", "no paid term is known", "canceled_term_ended", ""},
		{"Closed", "CLOSED", now.Add(-time.Hour), nil, "Not receiving service", "canceled and closed", "closed", ""},
		{"New", "NEW", nil, nil, "Not receiving service", "never activated", "new", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := e.db.Exec(fmt.Sprintf("UPDATE subscriptions SET status = ?, ended_at = %s, next_payment_at = %s WHERE subscriber_id = ?", sqlTime(tc.ended), sqlTime(tc.next)), tc.status, id); err != nil {
				t.Fatal(err)
			}
			r := u.get(path, false)
			if r.status != 200 {
				t.Fatalf("got %d", r.status)
			}
			p := subsParse(t, r)
			ent := blockText(p.byID("entitlement"))
			if got := blockText(p.byID("entitlement-heading")); got != tc.headline {
				t.Errorf("headline: got %q, want %q", got, tc.headline)
			}
			if !strings.Contains(ent, tc.why) || !strings.Contains(ent, "Reason code: "+tc.code) {
				t.Errorf("got %q, want %q and reason %s", ent, tc.why, tc.code)
			}
			if tc.until != "" && !strings.Contains(ent, tc.until) {
				t.Errorf("got %q, want %q", ent, tc.until)
			}
			if tc.until == "" && (strings.Contains(ent, "Until ") || strings.Contains(ent, "Ended ")) {
				t.Errorf("got %q, want no end of service", ent)
			}
			if h1 := p.all("h1"); len(h1) != 1 || blockText(h1[0]) != username {
				t.Errorf("heading: want %q", username)
			}
		})
	}

	t.Run("SubscriptionFields", func(t *testing.T) {
		dbtest := fmt.Sprintf("UPDATE subscriptions SET status = 'ACTIVE', ended_at = NULL, trial_price = NULL, trial_period = NULL, trial_unit = NULL, trial_tax_amount = NULL, trial_started_at = NULL, next_payment_at = %s, unit = 'M' WHERE subscriber_id = ?", sqlTime(time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)))
		if _, err := e.db.Exec(dbtest, id); err != nil {
			t.Fatal(err)
		}
		p := subsParse(t, u.get(path, false))
		fields := map[string]string{}
		for _, dl := range subsAll(p.byID("subscription"), "dl") {
			for _, div := range subsAll(dl, "div") {
				dt, dd := subsAll(div, "dt"), subsAll(div, "dd")
				if len(dt) == 1 && len(dd) == 1 {
					fields[blockText(dt[0])] = blockText(dd[0])
				}
			}
		}
		for _, label := range []string{"Subscription id", "Status", "Price", "Period", "Unit", "Tax amount", "Trial price", "Trial period", "Trial unit",
			"Trial tax amount", "Created", "Updated", "Started", "Ended", "Trial started", "Last payment", "Next payment"} {
			if _, ok := fields[label]; !ok {
				t.Errorf("no field %q", label)
			}
		}
		for _, label := range []string{"Ended", "Trial price", "Trial period", "Trial unit", "Trial tax amount", "Trial started"} {
			if fields[label] != "—" {
				t.Errorf("%s: got %q, want —", label, fields[label])
			}
		}
		// Times are in the account's zone (New York), not UTC.
		if got := fields["Next payment"]; got != "Tue 1 Dec 2026 00:00 EST" {
			t.Errorf("Next payment: got %q, want Tue 1 Dec 2026 00:00 EST", got)
		}
		if got := fields["Unit"]; got != "M (month)" {
			t.Errorf("Unit: got %q", got)
		}
		if !strings.HasSuffix(fields["Price"], " USD") {
			t.Errorf("Price: got %q, want the storefront's currency", fields["Price"])
		}
	})

	t.Run("NoSubscription", func(t *testing.T) {
		subsExec(t, e, "DELETE FROM subscriptions WHERE subscriber_id = ?", id)
		p := subsParse(t, u.get(path, false))
		if got := blockText(p.byID("entitlement")); !strings.Contains(got, "Not receiving service") || !strings.Contains(got, "no_subscription") {
			t.Errorf("got %q", got)
		}
		if got := blockText(p.byID("subscription")); !strings.Contains(got, "This subscriber has no subscription.") {
			t.Errorf("got %q", got)
		}
		// The list shows it too.
		rows := subscriberRows(t, u.get(e.path("/storefronts/%d/subscribers?email=", 1)+url.QueryEscape(username), false))
		if len(rows) != 1 || rows[0].status != "No subscription" || rows[0].plan != "—" || rows[0].service != "No" {
			t.Errorf("list: got %+v", rows)
		}
	})
}

func subsExec(t *testing.T, e *apiEnv, query string, args ...any) {
	t.Helper()
	if _, err := e.db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

func TestSubscriberPage_ActivityAndPurchases(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "staff")
	var id, sf int64
	if err := e.db.QueryRow(`SELECT p.subscriber_id, sb.storefront_id FROM purchases p JOIN subscribers sb ON sb.id = p.subscriber_id
		WHERE p.account_id = ? GROUP BY p.subscriber_id, sb.storefront_id ORDER BY COUNT(*) DESC LIMIT 1`, e.id(1)).Scan(&id, &sf); err != nil {
		t.Fatalf("the seed has no subscriber with purchases: %v", err)
	}
	var want []string
	for _, pid := range e.ids("SELECT id FROM purchases WHERE subscriber_id = ? ORDER BY created_at DESC, id DESC", id) {
		want = append(want, "/purchases/"+strconv.FormatInt(pid, 10))
	}
	path := fmt.Sprintf("/storefronts/%d/subscribers/%d", sf, id)

	t.Run("Purchases", func(t *testing.T) {
		p := subsParse(t, u.get(path, false))
		var got []string
		for _, a := range subsAll(p.byID("purchases"), "a") {
			href, _ := subsAttr(a, "href")
			if strings.HasPrefix(href, "/purchases/") {
				got = append(got, href)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})

	t.Run("NoActivity", func(t *testing.T) {
		p := subsParse(t, u.get(path, false))
		if got := blockText(p.byID("activity")); !strings.Contains(got, "Nothing has happened") {
			t.Fatalf("got %q", got)
		}
	})

	t.Run("Activity", func(t *testing.T) {
		at := now.Add(-2 * time.Hour)
		subsExec(t, e, "INSERT INTO subscriber_activity (account_id, subscriber_id, actor, action, details, created_at) SELECT account_id, id, 'system', 'closed_past_due', ?, ? FROM subscribers WHERE id = ?",
			fmt.Sprintf(`{"from":"PAST_DUE","to":"CLOSED","grace_ended_at":%d}`, at.Unix()), at, id)
		subsExec(t, e, "INSERT INTO subscriber_activity (account_id, subscriber_id, actor, action, details, created_at) SELECT account_id, id, 'ops@shop.test', 'note_added', '<b>hello</b>', ? FROM subscribers WHERE id = ?", now.Add(-time.Hour), id)
		p := subsParse(t, u.get(path, false))
		items := subsAll(p.byID("activity"), "li")
		if len(items) != 2 {
			t.Fatalf("got %d entries, want 2", len(items))
		}
		first, second := blockText(items[0]), blockText(items[1])
		if !strings.Contains(first, "note added") || !strings.Contains(first, "<b>hello</b>") {
			t.Errorf("newest first: got %q", first)
		}
		wantText := "Subscription closed: payment not received by system, " + at.In(subsZone(t, "America/New_York")).Format("Mon 2 Jan 2006 15:04 MST") + " Status changed from PAST_DUE to CLOSED"
		if !strings.HasPrefix(second, wantText) {
			t.Errorf("got %q, want %q…", second, wantText)
		}
		if !strings.Contains(p.raw, "&lt;b&gt;hello&lt;/b&gt;") {
			t.Error("activity details are not escaped")
		}
	})

	t.Run("FromTheSweeper", func(t *testing.T) {
		// The PAST_DUE job's closing shows on the page.
		var sid int64
		e.db.QueryRow("SELECT sb.id FROM subscribers sb JOIN subscriptions ss ON ss.subscriber_id = sb.id WHERE sb.storefront_id = ? ORDER BY sb.id LIMIT 1", e.id(2)).Scan(&sid)
		subsExec(t, e, fmt.Sprintf("UPDATE subscriptions SET status = 'PAST_DUE', ended_at = NULL, next_payment_at = %s WHERE subscriber_id = ?", sqlTime(now.Add(-30*24*time.Hour))), sid)
		if _, err := e.db.ClosePastDue(t.Context()); err != nil {
			t.Fatal(err)
		}
		p := subsParse(t, u.get(fmt.Sprintf("/storefronts/%d/subscribers/%d", e.id(2), sid), false))
		if got := blockText(p.byID("activity")); !strings.Contains(got, "Subscription closed: payment not received") {
			t.Fatalf("got %q", got)
		}
		if got := blockText(p.byID("entitlement-heading")); got != "Not receiving service" {
			t.Errorf("got %q", got)
		}
	})
}

func subsZone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
