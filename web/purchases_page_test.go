package web_test

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// rowIDs returns the purchase ids of the table rows of a purchases page or fragment.
func rowIDs(body string) []string {
	var ids []string
	// The table's links (the phone layout lists the same purchases again).
	for _, m := range regexp.MustCompile(`<td class="whitespace-nowrap px-4 py-3"><a href="/purchases/(\d+)"`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	return ids
}

// pageIDs are the ids of purchases of the API as rowIDs reads them off a page.
func pageIDs(ps []purchase) []string {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = fmt.Sprint(p.ID)
	}
	return ids
}

func TestDashboard_PurchasesPage(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")

	t.Run("FormLabels", func(t *testing.T) {
		r := u.get("/purchases", false)
		body := string(r.body)
		if r.status != 200 || !strings.Contains(body, "<!doctype html>") {
			t.Fatalf("got %d", r.status)
		}
		for _, label := range []string{">Status<", ">Storefront<", ">Product<", ">Customer e-mail<", ">First name<", ">Last name<",
			">Created from<", ">Created before<", ">Total<", "Unshipped only"} {
			if !strings.Contains(body, label) {
				t.Errorf("the filter form lacks the label %s", label)
			}
		}
		for _, op := range []string{">=<", ">≠<", ">&gt;<", ">&lt;<"} {
			if !strings.Contains(body, op) {
				t.Errorf("the total operator lacks %s", op)
			}
		}
		// Every input has a label pointing at it.
		for _, m := range regexp.MustCompile(`<(?:input|select)[^>]* id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
			if !strings.Contains(body, `for="`+m[1]+`"`) {
				t.Errorf("control %s has no label", m[1])
			}
		}
		// The other account's storefront is not offered.
		if strings.Contains(body, "Nordic Games") {
			t.Error("the storefront select offers another account's storefront")
		}
		if r.header.Get("Vary") != "HX-Request" {
			t.Errorf("Vary: got %q", r.header.Get("Vary"))
		}
	})

	t.Run("NewestFirstWithCount", func(t *testing.T) {
		body := string(u.get("/purchases", false).body)
		ids := rowIDs(body)
		api := e.walk("/api/v2/purchases?order=desc&per_page=25", e.ro)
		if len(ids) != 25 || ids[0] != fmt.Sprint(api[0].ID) {
			t.Fatalf("rows %v, want the 25 newest starting with %d", ids, api[0].ID)
		}
		if !strings.Contains(body, fmt.Sprintf(`<span class="font-semibold text-slate-900">%d</span> purchases`, len(e.walk("/api/v2/purchases?per_page=500", e.ro)))) {
			t.Error("the result count is missing or wrong")
		}
	})

	t.Run("FiltersMeanWhatTheAPIMeans", func(t *testing.T) {
		for _, q := range []string{
			"status=ACT&status=RFD", "customer_email=a&ship=1", e.path("storefront_id=%d&total=20&total_op=gt", 2), "date_min=2026-01-01&date_max=2026-06-01",
		} {
			page := rowIDs(string(u.get("/purchases?"+q, false).body))
			api := e.walk("/api/v2/purchases?order=desc&per_page=25&"+q, e.ro)
			want := pageIDs(api)
			if len(want) > 25 {
				want = want[:25]
			}
			if strings.Join(page, ",") != strings.Join(want, ",") {
				t.Errorf("%s: page %v, API %v", q, page, want)
			}
		}
	})

	t.Run("TypedBlanksTrimmed", func(t *testing.T) {
		// The dashboard trims what a person types around its fields before it reads
		// the filters; the API, which shares the parser, reads them as sent (400).
		typed := "customer_email=%20a%20&storefront_id=" + fmt.Sprint(e.id(2)) + "%20&total=%0920&total_op=gt"
		page := u.get("/purchases?"+typed, false)
		if page.status != 200 {
			t.Fatalf("got %d, want 200", page.status)
		}
		api := e.walk(e.path("/api/v2/purchases?order=desc&per_page=25&customer_email=a&storefront_id=%d&total=20&total_op=gt", 2), e.ro)
		want := pageIDs(api)
		if len(want) == 0 || strings.Join(rowIDs(string(page.body)), ",") != strings.Join(want, ",") {
			t.Fatalf("page %v, API without the blanks %v", rowIDs(string(page.body)), want)
		}
		if r := e.get("/api/v2/purchases?"+typed, e.ro); r.status != 400 {
			t.Fatalf("the API with the blanks: got %d, want 400", r.status)
		}
	})

	t.Run("Fragment", func(t *testing.T) {
		r := u.get("/purchases?customer_email=a&status=ACT&customer_first_name=&total=&total_op=eq", true)
		body := string(r.body)
		if strings.Contains(body, "<html") || strings.Contains(body, `id="filters"`) || !strings.Contains(body, "<table") {
			t.Fatal("the htmx answer is not the results fragment")
		}
		if got := r.header.Get("HX-Push-Url"); got != "/purchases?q=status%3AACT+email%3Aa" {
			t.Fatalf("HX-Push-Url: got %q, want the filters as one search, without blanks", got)
		}
		if !strings.Contains(body, `id="date_min-hint"`) || !strings.Contains(body, `hx-swap-oob="true"`) {
			t.Fatal("the fragment does not update the date hints")
		}
		// A history restore asks for the whole page.
		req := u.get("/purchases?status=ACT", false)
		if !strings.Contains(string(req.body), `id="filters"`) {
			t.Fatal("the full page lacks the form")
		}
	})

	t.Run("DateHints", func(t *testing.T) {
		body := string(u.get("/purchases?date_min=last+monday&date_max=2026-03-01+14:00", true).body)
		// now is Sunday 22 November 2026 in New York: last monday is the 16th.
		if !strings.Contains(body, "last monday → Mon 16 Nov 2026 00:00 EST") {
			t.Errorf("date_min hint missing: %s", body[:min(len(body), 400)])
		}
		if !strings.Contains(body, "2026-03-01 14:00 → Sun 1 Mar 2026 14:00 EST") {
			t.Error("date_max hint missing")
		}
		bad := u.get("/purchases?date_min=someday+soon", true)
		if bad.status != 200 || !strings.Contains(string(bad.body), "Cannot read this as a date or time.") || !strings.Contains(string(bad.body), "Created from:") {
			t.Errorf("bad date: %d %s", bad.status, bad.body)
		}
	})

	t.Run("BadInputInline", func(t *testing.T) {
		for _, q := range []string{"total=abc", "total=5&total_op=ge", "status=NOPE", "storefront_id=x", "cursor=forged", "before=forged", "foo=1"} {
			full := u.get("/purchases?"+q, false)
			if full.status != 400 || !strings.Contains(string(full.body), "These filters cannot be applied.") || !strings.Contains(string(full.body), `id="filters"`) {
				t.Errorf("%s: full page got %d", q, full.status)
			}
			frag := u.get("/purchases?"+q, true)
			if frag.status != 200 || !strings.Contains(string(frag.body), "These filters cannot be applied.") {
				t.Errorf("%s: fragment got %d", q, frag.status)
			}
		}
	})

	t.Run("OlderNewer", func(t *testing.T) {
		all := e.walk("/api/v2/purchases?order=desc&per_page=500&status=ACT", e.ro)
		want := pageIDs(all)
		var seen []string
		var pages []string
		path := "/purchases?status=ACT"
		for i := 0; path != ""; i++ {
			if i > 100 {
				t.Fatal("Older links do not end")
			}
			body := string(u.get(path, false).body)
			pages = append(pages, path)
			seen = append(seen, rowIDs(body)...)
			m := regexp.MustCompile(`href="([^"]+)" [^>]*rel="next"`).FindStringSubmatch(body)
			path = ""
			if m != nil {
				path = strings.ReplaceAll(m[1], "&amp;", "&")
			}
		}
		if strings.Join(seen, ",") != strings.Join(want, ",") {
			t.Fatalf("Older walk: %d rows, want %d without gaps or repeats", len(seen), len(want))
		}
		if len(pages) < 3 {
			t.Fatalf("only %d pages; the test needs more data", len(pages))
		}
		// Newer from the last page leads back to the page before it.
		last := string(u.get(pages[len(pages)-1], false).body)
		m := regexp.MustCompile(`href="([^"]+)" [^>]*rel="prev"`).FindStringSubmatch(last)
		if m == nil {
			t.Fatal("the last page has no Newer link")
		}
		back := rowIDs(string(u.get(strings.ReplaceAll(m[1], "&amp;", "&"), false).body))
		prev := rowIDs(string(u.get(pages[len(pages)-2], false).body))
		if strings.Join(back, ",") != strings.Join(prev, ",") {
			t.Fatalf("Newer: got %v, want %v", back, prev)
		}
		if strings.Contains(string(u.get(pages[0], false).body), `rel="prev"`) {
			t.Fatal("the first page offers Newer")
		}
	})

	t.Run("EmptyState", func(t *testing.T) {
		body := string(u.get("/purchases?customer_email="+url.QueryEscape("nobody-at-all@"), false).body)
		if !strings.Contains(body, "No purchases match these filters.") || strings.Contains(body, "<table") {
			t.Fatal("no empty state")
		}
	})

	t.Run("Escaped", func(t *testing.T) {
		var id int64
		e.db.QueryRow("SELECT MAX(id) FROM purchases WHERE account_id = ?", e.id(1)).Scan(&id)
		dbtest_exec(t, e, fmt.Sprintf(`UPDATE purchases SET buyer_firstname = '<script>alert(1)</script>', buyer_email = '"><img src=x onerror=alert(1)>@x.test' WHERE account_id = %d AND id = %d`, e.id(1), id))
		body := string(u.get("/purchases", false).body)
		if strings.Contains(body, "<script>alert(1)") || strings.Contains(body, "<img src=x") {
			t.Fatal("imported text is not escaped")
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Fatal("the escaped name is not shown")
		}
	})
}

// The count says what is listed, in the order it is listed: "1 purchase", and "oldest
// first" for order=asc, on the first page and on a page walked back to ("← Newer").
func TestDashboard_PurchasesCountSentence(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	count := regexp.MustCompile(`id="result-count"><span[^>]*>([^<]+)</span>\s*([^<]*)</p>`)
	sentence := func(path string) (string, string) {
		t.Helper()
		r := u.get(path, false)
		m := count.FindStringSubmatch(string(r.body))
		if r.status != 200 || m == nil {
			t.Fatalf("%s: got %d and no count", path, r.status)
		}
		return m[1] + " " + strings.TrimSpace(m[2]), string(r.body)
	}
	if got, _ := sentence("/purchases?q=" + url.QueryEscape(fmt.Sprintf("id:%d", e.id(42)))); got != "1 purchase, newest first" {
		t.Errorf("one purchase: got %q", got)
	}
	var n int
	var oldest int64
	if err := e.db.QueryRow("SELECT COUNT(*), MIN(id) FROM purchases WHERE account_id = ? AND status = 'ACT'", e.id(1)).Scan(&n, &oldest); err != nil || n < 60 {
		t.Fatalf("active purchases: %d, %v", n, err)
	}
	got, body := sentence("/purchases?status=ACT&order=asc")
	if want := fmt.Sprintf("%d purchases, oldest first", n); got != want {
		t.Errorf("order=asc: got %q, want %q", got, want)
	}
	if ids := rowIDs(body); len(ids) == 0 || ids[0] != fmt.Sprint(oldest) {
		t.Errorf("order=asc: first rows %v, want %d first", ids, oldest)
	}
	next := regexp.MustCompile(`href="([^"]+)" [^>]*rel="next"`).FindStringSubmatch(body)
	if next == nil {
		t.Fatal("order=asc: no next page")
	}
	_, body = sentence(html.UnescapeString(next[1]))
	prev := regexp.MustCompile(`href="([^"]+)" [^>]*rel="prev"`).FindStringSubmatch(body)
	if prev == nil {
		t.Fatal("order=asc, page 2: no link back")
	}
	if got, body := sentence(html.UnescapeString(prev[1])); got != fmt.Sprintf("%d purchases, oldest first", n) || rowIDs(body)[0] != fmt.Sprint(oldest) {
		t.Errorf("order=asc, walked back: got %q, first row %v", got, rowIDs(body)[:1])
	}
	if got, _ := sentence("/purchases?status=ACT"); got != fmt.Sprintf("%d purchases, newest first", n) {
		t.Errorf("newest first: got %q", got)
	}
}
