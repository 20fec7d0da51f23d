package web_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/internal/search"
)

// getFrom asks for a fragment as htmx does when the form with the given id changed.
func (u *dashUser) getFrom(path, trigger string) response {
	req, _ := http.NewRequest("GET", u.e.url+path, nil)
	req.Header.Set("HX-Request", "true")
	req.Header.Set("HX-Trigger", trigger)
	return u.do(req)
}

func TestDashboard_PurchasesPageSearch(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")

	t.Run("BoxFillsFields", func(t *testing.T) {
		r := u.get("/purchases?q="+url.QueryEscape("status:act -total:9.5 domain:example.com"), false)
		body := string(r.body)
		if r.status != 200 {
			t.Fatalf("got %d, want 200", r.status)
		}
		for _, want := range []string{`<label for="f-q"`, `>Search</label>`, `value="status:ACT -total:9.5 domain:example.com"`,
			`href="/docs/search"`, `name="status" value="ACT" checked`} {
			if !strings.Contains(body, want) {
				t.Errorf("the page has no %s", want)
			}
		}
		// What no field holds travels hidden with the filter form.
		if !strings.Contains(body, `<input type="hidden" name="q" value="domain:example.com">`) {
			t.Error("the filter form does not carry the rest of the search")
		}
		if !strings.Contains(body, `name="total" value="9.5"`) || !strings.Contains(body, `<option value="ne" selected>`) {
			t.Error("the Total field does not show -total:9.5")
		}
	})

	t.Run("SameRowsAsAPI", func(t *testing.T) {
		q := "status:act,pnd OR email:a"
		page := u.get("/purchases?q="+url.QueryEscape(q), false)
		want := pageIDs(e.walk("/api/v2/purchases?order=desc&per_page=25&q="+url.QueryEscape(q), e.ro))
		if len(want) > 25 {
			want = want[:25]
		}
		if len(want) == 0 || strings.Join(rowIDs(string(page.body)), ",") != strings.Join(want, ",") {
			t.Fatalf("page %v, API %v", rowIDs(string(page.body)), want)
		}
		// Export CSV, the API request panel and the bulk selection use the one query.
		enc := url.Values{"q": {"status:ACT,PND OR email:a"}}.Encode()
		for _, want := range []string{`href="/purchases.csv?order=desc&amp;` + enc, `purchases?order=desc&amp;per_page=25&amp;` + enc, `purchases.csv?order=desc&amp;` + enc} {
			if !strings.Contains(string(page.body), want) {
				t.Errorf("the page has no %s", want)
			}
		}
		if !strings.Contains(string(page.body), "(set by the search)") {
			t.Error("an OR of statuses and e-mails does not say the fields are set by the search")
		}
	})

	t.Run("ErrUnreadable", func(t *testing.T) {
		r := u.get("/purchases?q="+url.QueryEscape("emial:zoe"), false)
		body := string(r.body)
		if r.status != 400 {
			t.Errorf("got %d, want 400 (the page, with the message)", r.status)
		}
		if !strings.Contains(body, `aria-invalid="true"`) || !strings.Contains(body, `unknown field &#34;emial&#34; at 1: did you mean &#34;email&#34;?`) {
			t.Error("the box does not say what it cannot read")
		}
		if len(rowIDs(body)) != 0 {
			t.Error("an unreadable search lists purchases")
		}
		f := u.getFrom("/purchases?q="+url.QueryEscape("status:act total>"), "search")
		if f.status != 200 || !regexp.MustCompile(`<p id="q-error"[^>]*hx-swap-oob="true">[^<]+</p>`).Match(f.body) {
			t.Errorf("fragment: got %d, want 200 with the box's message swapped in", f.status)
		}
		if len(rowIDs(string(f.body))) != 0 {
			t.Error("the fragment of an unreadable search lists purchases")
		}
	})

	t.Run("FieldsUpdateBox", func(t *testing.T) {
		r := u.getFrom("/purchases?status=ACT&customer_email=a&q="+url.QueryEscape("domain:example.com"), "filters")
		body := string(r.body)
		if !strings.Contains(body, `id="search-field" hx-swap-oob="true"`) || !strings.Contains(body, `value="status:ACT email:a domain:example.com"`) {
			t.Error("the box does not show the fields' query")
		}
		if got := r.header.Get("HX-Push-Url"); got != "/purchases?q="+url.QueryEscape("status:ACT email:a domain:example.com") {
			t.Errorf("HX-Push-Url: got %q", got)
		}
	})

	t.Run("BoxUpdatesFields", func(t *testing.T) {
		r := u.getFrom("/purchases?q="+url.QueryEscape("status:rfd"), "search")
		body := string(r.body)
		if !strings.Contains(body, `id="filters" action="/purchases" method="get" role="search" aria-label="Filter purchases" hx-swap-oob="true"`) ||
			!strings.Contains(body, `name="status" value="RFD" checked`) {
			t.Error("the fields do not follow the box")
		}
	})

	t.Run("Suggestions", func(t *testing.T) {
		for _, tt := range []struct{ q, want string }{
			{"sta", `data-value="status:"`},
			{"total>5 status:act,r", `data-value="total&gt;5 status:act,RFD "`},
			{"-st", `data-value="-status:"`},
			{"product:", `role="option"`},
		} {
			r := u.get("/purchases/suggest?q="+url.QueryEscape(tt.q), true)
			if r.status != 200 || !strings.Contains(string(r.body), `role="listbox"`) || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("%q: got %d %.400s, want %s", tt.q, r.status, r.body, tt.want)
			}
		}
		if r := u.get("/purchases/suggest?q=zzz", true); strings.Contains(string(r.body), `role="option"`) || !strings.Contains(string(r.body), "hidden") {
			t.Errorf("no suggestion: got %.300s, want a hidden empty list", r.body)
		}
	})

	// A bare word is also offered as the fields it may stand for, the word replaced and
	// the negation kept: a status by its name, a keyword, a storefront by a part of its
	// name, an e-mail domain by its start. A whole number is a purchase id, nothing else.
	t.Run("BareWordSuggestions", func(t *testing.T) {
		var sfID int64
		var sfName, domain string
		if err := e.db.QueryRow("SELECT id, name FROM storefronts WHERE account_id = ? ORDER BY id LIMIT 1", e.id(1)).Scan(&sfID, &sfName); err != nil {
			t.Fatal(err)
		}
		if err := e.db.QueryRow(`SELECT SUBSTRING_INDEX(buyer_email, '@', -1) FROM purchases
			WHERE account_id = ? AND buyer_email LIKE '%_@_%' ORDER BY id LIMIT 1`, e.id(1)).Scan(&domain); err != nil {
			t.Fatal(err)
		}
		part := strings.ToLower(strings.Fields(sfName)[0][1:])
		// A product's name typed in two words: the run of both is read as the name.
		var productID int64
		var productName string
		if err := e.db.QueryRow("SELECT id, name FROM products WHERE account_id = ? AND name LIKE '% %' ORDER BY id LIMIT 1", e.id(1)).Scan(&productID, &productName); err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(productName)
		second := []rune(words[1])
		twoWords := strings.ToLower(words[0] + " " + string(second[:min(3, len(second))]))
		for _, tt := range []struct{ q, want string }{
			{"refu", `data-value="status:RFD "`},
			{"total>5 -refunded", `data-value="total&gt;5 -status:RFD "`},
			{"NOT unsh", `data-value="NOT is:unshipped "`},
			{part, fmt.Sprintf(`data-value="storefront:%d "`, sfID)},
			{domain, `data-value="domain:` + html.EscapeString(domain) + ` "`},
			{"domain:" + domain, `data-value="domain:` + html.EscapeString(domain) + ` "`},
			{"status:RFD " + twoWords, fmt.Sprintf(`data-value="status:RFD product:%d "`, productID)},
			{"NOT " + twoWords, fmt.Sprintf(`data-value="NOT product:%d "`, productID)},
			{"(-" + twoWords, fmt.Sprintf(`data-value="(-product:%d "`, productID)},
		} {
			r := u.get("/purchases/suggest?q="+url.QueryEscape(tt.q), true)
			if r.status != 200 || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("%q: got %d %.600s, want %s", tt.q, r.status, r.body, tt.want)
			}
		}
		// A date typed bare, in the account's zone: a whole day as that day, an
		// instant as the time since it, or as the word before it says; the label says
		// when. A letter (a military time zone to strtotime) and a month's name are no
		// date. "not" before a word negates it.
		var zone string
		if err := e.db.QueryRow("SELECT timezone FROM accounts WHERE id = ?", e.id(1)).Scan(&zone); err != nil {
			t.Fatal(err)
		}
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		today := e.clock.now().In(loc)
		yesterday := time.Date(today.Year(), today.Month(), today.Day()-1, 0, 0, 0, 0, loc).Format("Mon 2 Jan 2006")
		for _, tt := range []struct{ path, q, value, label string }{
			{"/purchases/suggest", "yesterday", "created:yesterday ", "created:yesterday · " + yesterday},
			{"/purchases/suggest", "status:RFD since yesterday", "status:RFD created>=yesterday ", "created>=yesterday · since " + yesterday},
			{"/purchases/suggest", "2 weeks ago", `created>="2 weeks ago" `, `created>="2 weeks ago" · since ` + today.AddDate(0, 0, -14).Format("Mon 2 Jan 2006 15:04 MST")},
			{"/purchases/suggest", "before 2024-11-01", "created<2024-11-01 ", "created<2024-11-01 · before Fri 1 Nov 2024"},
			{"/purchases/suggest", "total>5 not refunded", "total>5 -status:RFD ", "status:RFD · Refunded"},
			{"/subscribers/suggest", "until 2024-11-01", "started<=2024-11-01 ", "started<=2024-11-01 · through Fri 1 Nov 2024"},
		} {
			body := string(u.get(tt.path+"?q="+url.QueryEscape(tt.q), true).body)
			if !strings.Contains(body, `data-value="`+html.EscapeString(tt.value)+`"`) || !strings.Contains(body, html.EscapeString(tt.label)) {
				t.Errorf("%s %q: got %.600s, want %s labelled %s", tt.path, tt.q, body, tt.value, tt.label)
			}
		}
		for _, q := range []string{"a", "z", "may", "2026"} {
			if body := string(u.get("/purchases/suggest?q="+url.QueryEscape(q), true).body); strings.Contains(body, "created") {
				t.Errorf("%q: got %.600s, want no date", q, body)
			}
		}
		// The whole text read, first, when every word of it stands for something; not
		// when a word stands for nothing (a name, or a word still being typed).
		fragment := "the " + domain + " order since 2000-01-01 not refunded"
		if body := string(u.get("/purchases/suggest?q="+url.QueryEscape(fragment), true).body); !strings.Contains(body, `data-value="`+html.EscapeString("domain:"+domain+" created>=2000-01-01 -status:RFD ")+`"`) ||
			!strings.Contains(body, "the whole search, read") {
			t.Errorf("%q: got %.600s, want the whole search read", fragment, body)
		}
		if body := string(u.get("/purchases/suggest?q="+url.QueryEscape("zz9q "+domain+" not refunded"), true).body); strings.Contains(body, "the whole search, read") {
			t.Errorf("a word that stands for nothing: got %.600s, want no whole reading", body)
		}
		if r := u.get("/purchases/suggest?q=42", true); strings.Contains(string(r.body), `role="option"`) {
			t.Errorf("a number: got %.300s, want no suggestion", r.body)
		}
		if r := u.get("/subscribers/suggest?q="+url.QueryEscape("-past"), true); !strings.Contains(string(r.body), `data-value="-status:PAST_DUE "`) {
			t.Errorf("subscribers, -past: got %.400s, want -status:PAST_DUE", r.body)
		}

		// A search that finds nothing offers its last bare word as those fields, as
		// links to the list with the query so changed; one that finds something, or
		// whose last word has a field, offers none.
		var n int
		if err := e.db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email LIKE ?", e.id(1), "%@"+domain).Scan(&n); err != nil || n == 0 {
			t.Fatalf("purchases of %s: %d, %v", domain, n, err)
		}
		for _, tt := range []struct {
			q    string
			want string
		}{
			{domain, "/purchases?q=" + url.QueryEscape("domain:"+domain)},
			{"status:RFD " + domain, "/purchases?q=" + url.QueryEscape("status:RFD domain:"+domain)},
			{"refun", "/purchases?q=" + url.QueryEscape("status:RFD")},
		} {
			for _, fragment := range []bool{false, true} {
				body := string(u.get("/purchases?q="+url.QueryEscape(tt.q), fragment).body)
				if !strings.Contains(body, "No purchases match") || !strings.Contains(body, `id="alternatives"`) || !strings.Contains(body, `href="`+html.EscapeString(tt.want)+`"`) {
					t.Errorf("%q (fragment %v): no link to %s in %.300s", tt.q, fragment, tt.want, body[max(0, strings.Index(body, "No purchases")):])
				}
			}
		}
		// The whole query read as a person may have meant it: the domain, a date and
		// "not refunded" at once, filler words and a sentence's comma left out. Its
		// link finds what the words meant; a query the language refuses offers it too.
		var kept int
		if err := e.db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email LIKE ? AND status <> 'RFD' AND created_at >= '2000-01-01'",
			e.id(1), "%@"+domain).Scan(&kept); err != nil || kept == 0 {
			t.Fatalf("purchases of %s not refunded: %d, %v", domain, kept, err)
		}
		whole := "/purchases?q=" + url.QueryEscape("domain:"+domain+" created>=2000-01-01 -status:RFD")
		for _, tt := range []struct {
			q    string
			code int
			lead string
		}{
			{"the " + domain + " order since 2000-01-01 not refunded", 200, "No purchases match"},
			{"the " + domain + " order since 2000-01-01, not refunded", 400, "is a list without a field"},
		} {
			for _, fragment := range []bool{false, true} {
				r := u.get("/purchases?q="+url.QueryEscape(tt.q), fragment)
				body := string(r.body)
				code := tt.code
				if fragment {
					code = 200 // htmx swaps only a 2xx answer in
				}
				if r.status != code || !strings.Contains(body, tt.lead) || !strings.Contains(body, `href="`+html.EscapeString(whole)+`"`) {
					t.Errorf("%q (fragment %v): got %d, no link to %s in %.400s", tt.q, fragment, r.status, whole, body[max(0, strings.Index(body, tt.lead)-200):])
				}
			}
		}
		if body := string(u.get(whole, false).body); !strings.Contains(body, fmt.Sprintf(`<span class="font-semibold text-slate-900">%d</span>`, kept)) {
			t.Errorf("%s: want %d purchases listed", whole, kept)
		}
		// A clause the language refuses for its value links to the value meant: a
		// status by its name, a storefront by part of its name, a customer by e-mail.
		for _, tt := range []struct{ q, want string }{
			{"status:refunded", "status:RFD"},
			{"storefront:" + part, fmt.Sprintf("storefront:%d", sfID)},
			{"-customer:someone@" + domain, "-email:someone@" + domain},
		} {
			r := u.get("/purchases?q="+url.QueryEscape(tt.q), false)
			link := "/purchases?q=" + url.QueryEscape(tt.want)
			if r.status != 400 || !strings.Contains(string(r.body), `href="`+html.EscapeString(link)+`"`) {
				t.Errorf("%q: got %d, no link to %s", tt.q, r.status, link)
			}
		}

		// A From line pasted whole reads as its address, in the box as it is pasted and
		// on the page the language refuses it on; the link lists that buyer's purchases.
		var addr string
		var theirs int
		if err := e.db.QueryRow(`SELECT buyer_email, COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email REGEXP '^[a-z0-9._]+@[a-z0-9.]+$'
			GROUP BY buyer_email ORDER BY MIN(id) LIMIT 1`, e.id(1)).Scan(&addr, &theirs); err != nil {
			t.Fatal(err)
		}
		from := `"Ann O'Neil" <` + addr + ">"
		if body := string(u.get("/purchases/suggest?q="+url.QueryEscape(from), true).body); !strings.Contains(body, `data-value="email:`+html.EscapeString(addr)+` "`) {
			t.Errorf("pasted %q: got %.400s, want email:%s", from, body, addr)
		}
		r := u.get("/purchases?q="+url.QueryEscape(from), false)
		link := "/purchases?q=" + url.QueryEscape("email:"+addr)
		if r.status != 400 || !strings.Contains(string(r.body), `href="`+html.EscapeString(link)+`"`) {
			t.Errorf("pasted %q: got %d, no link to %s", from, r.status, link)
		}
		if body := string(u.get(link, false).body); !strings.Contains(body, fmt.Sprintf(`<span class="font-semibold text-slate-900">%d</span>`, theirs)) {
			t.Errorf("%s: want %d purchases listed", link, theirs)
		}
		for _, q := range []string{"domain:" + domain, "status:RFD", "status:ACT zz9zz"} {
			if body := string(u.get("/purchases?q="+url.QueryEscape(q), false).body); strings.Contains(body, `id="alternatives"`) {
				t.Errorf("%q: alternatives offered", q)
			}
		}

		// A payment reference or a product key pasted whole (here in lower case) is
		// offered as ref: or key:, as its row holds it, in the box and on the empty list
		// it finds; the link lists its purchase. "#" and an id finds the purchase.
		for _, tt := range []struct{ field, query string }{
			{"ref", `SELECT reference, purchase_id FROM transactions WHERE account_id = ? AND reference REGEXP '^[A-Za-z_]+[0-9a-z]{6,}$' ORDER BY id LIMIT 1`},
			{"key", `SELECT key_value, purchase_id FROM product_keys WHERE account_id = ? AND key_value REGEXP '^[A-Z0-9-]{8,}$' ORDER BY purchase_id, line_item_id LIMIT 1`},
		} {
			var text string
			var id int64
			if err := e.db.QueryRow(tt.query, e.id(1)).Scan(&text, &id); err != nil {
				t.Fatalf("a %s of the demo data: %v", tt.field, err)
			}
			pasted := strings.ToLower(text)
			if pasted == text {
				pasted = strings.ToUpper(text)
			}
			value := tt.field + ":" + text
			body := string(u.get("/purchases/suggest?q="+url.QueryEscape(pasted), true).body)
			if !strings.Contains(body, `data-value="`+html.EscapeString(value)+` "`) || !strings.Contains(body, fmt.Sprintf(" of purchase #%d", id)) {
				t.Errorf("pasted %q: got %.500s, want %s, of purchase #%d", pasted, body, value, id)
			}
			link := "/purchases?q=" + url.QueryEscape(value)
			for _, fragment := range []bool{false, true} {
				body := string(u.get("/purchases?q="+url.QueryEscape(pasted), fragment).body)
				if !strings.Contains(body, "No purchases match") || !strings.Contains(body, `href="`+html.EscapeString(link)+`"`) {
					t.Errorf("%q (fragment %v): no link to %s", pasted, fragment, link)
				}
			}
			for _, q := range []string{value, fmt.Sprintf("#%d", id)} {
				body := string(u.get("/purchases?q="+url.QueryEscape(q), false).body)
				if !strings.Contains(body, `<span class="font-semibold text-slate-900">1</span>`) || !strings.Contains(body, fmt.Sprintf(`href="/purchases/%d"`, id)) {
					t.Errorf("%s: want purchase %d listed alone", q, id)
				}
			}
		}
		if body := string(u.get("/purchases/suggest?q="+url.QueryEscape("abcdefgh"), true).body); strings.Contains(body, "ref:") || strings.Contains(body, "key:") {
			t.Errorf("a word without a digit: got %.300s, want no ref: or key:", body)
		}
	})

	// The help is docs/SEARCH.md as HTML: headings with the ids its contents link to,
	// tables, the grammar as code; no link out of the page; and examples that read.
	t.Run("Help", func(t *testing.T) {
		r := u.get("/docs/search", false)
		body := string(r.body)
		if r.status != 200 || !strings.Contains(body, "query        = blank* , or , blank* ;") {
			t.Errorf("got %d, want the grammar", r.status)
		}
		for _, want := range []string{`<h2 id="grammar">Grammar</h2>`, `<a href="#grammar">Grammar</a>`, `<th>Field (purchases)</th>`, `<pre><code class="language-ebnf">`} {
			if !strings.Contains(body, want) {
				t.Errorf("the help has no %s", want)
			}
		}
		for _, unwanted := range []string{"## Grammar", "| Field (purchases) |", `href="../`, ` style=`} {
			if strings.Contains(body, unwanted) {
				t.Errorf("the help shows %q: not rendered", unwanted)
			}
		}
		examples := regexp.MustCompile(`<dt><code[^>]*>([^<]+)</code></dt>`).FindAllStringSubmatch(body, -1)
		if len(examples) < 4 {
			t.Fatalf("%d examples, want at least 4", len(examples))
		}
		for _, m := range examples {
			if _, err := search.Parse(search.Purchases, html.UnescapeString(m[1])); err != nil {
				t.Errorf("the example %q does not read: %v", html.UnescapeString(m[1]), err)
			}
		}
	})
}

// TestDashboard_SearchExamples reads the example query in each list's Search box as
// that list's search does: an example of another list's fields would be an error there.
func TestDashboard_SearchExamples(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	for _, tt := range []struct {
		path string
		kind search.Kind
	}{{"/purchases", search.Purchases}, {e.path("/storefronts/%d/subscribers", 1), search.Subscribers}, {"/subscribers/all", search.Subscribers}} {
		m := regexp.MustCompile(`id="f-q"[^>]* placeholder="e\.g\. ([^"]+)"`).FindStringSubmatch(string(u.get(tt.path, false).body))
		if m == nil {
			t.Errorf("%s: no example in the Search box", tt.path)
			continue
		}
		if _, err := search.Parse(tt.kind, html.UnescapeString(m[1])); err != nil {
			t.Errorf("%s: the example %q does not read: %v", tt.path, html.UnescapeString(m[1]), err)
		}
	}
}

func TestDashboard_SubscribersPageSearch(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	sf1 := e.path("/storefronts/%d/subscribers", 1)

	t.Run("BoxFillsFields", func(t *testing.T) {
		r := u.get(sf1+"?q="+url.QueryEscape("status:active,trial started>=-30days"), false)
		body := string(r.body)
		if r.status != 200 || !strings.Contains(body, `<label for="f-q"`) {
			t.Fatalf("got %d, want the page with its search box: %s", r.status, regexp.MustCompile(`(?s)role="alert".{0,400}`).FindString(body))
		}
		for _, want := range []string{`value="status:ACTIVE,TRIAL started&gt;=-30days"`, `href="/docs/search"`, `role="combobox"`, `hx-get="/subscribers/suggest"`,
			`name="status" value="ACTIVE" checked`, `name="status" value="TRIAL" checked`, `name="started_min" value="-30days"`} {
			if !strings.Contains(body, want) {
				t.Errorf("the page has no %s", want)
			}
		}
		if strings.Contains(body, `name="status" value="NEW" checked`) {
			t.Error("a status the search does not name is ticked")
		}
	})

	t.Run("FieldsUpdateBox", func(t *testing.T) {
		idGT5 := fmt.Sprintf("id>%d", e.id(5))
		r := u.getFrom(sf1+"?status=ACTIVE&email=a&receiving_at=today&q="+url.QueryEscape(idGT5), "filters")
		body := string(r.body)
		want := `status:ACTIVE email:a active:"today 00:00:00" ` + idGT5
		if !strings.Contains(body, `id="search-field" hx-swap-oob="true"`) || !strings.Contains(body, `value="`+html.EscapeString(want)+`"`) {
			t.Errorf("the box does not show the fields' query %s: %.600s", want, body)
		}
		if got := r.header.Get("HX-Push-Url"); got != sf1+"?q="+url.QueryEscape(want) {
			t.Errorf("HX-Push-Url: got %q", got)
		}
		if strings.Contains(body, `id="filters"`) {
			t.Error("the fields are sent back to the fields that changed")
		}
	})

	t.Run("BoxUpdatesFields", func(t *testing.T) {
		r := u.getFrom(sf1+"?q="+url.QueryEscape(`status:trial email:zo active:"today 00:00:00" -status:new`), "search")
		body := string(r.body)
		for _, want := range []string{`id="filters" action="` + sf1 + `" method="get" role="search" aria-label="Filter subscribers" hx-swap-oob="true"`,
			`name="email" value="zo"`, `name="receiving_at" value="today"`, `<input type="hidden" name="q" value="status:TRIAL -status:NEW">`, "(set by the search)"} {
			if !strings.Contains(body, want) {
				t.Errorf("the fields do not follow the box: no %s", want)
			}
		}
		// status:trial and -status:new both name the status: the boxes cannot show it.
		if !regexp.MustCompile(`<fieldset[^>]*disabled`).MatchString(body) {
			t.Error("the status boxes are not set by the search")
		}
	})

	t.Run("SameRowsAsAPI", func(t *testing.T) {
		for _, q := range []string{"status:active,trial OR email:a", "started>=-120days -status:closed"} {
			page := u.get(sf1+"?q="+url.QueryEscape(q), false)
			body := string(page.body)
			cmd := codeText(body, "api-request-list")
			prefix := "curl -u " + e.user + ":$STOREFRONT_KEY 'http://shop.test/api/v2" + sf1 + "?"
			if !strings.HasPrefix(cmd, prefix) {
				t.Fatalf("%s: API request %q, want %s…", q, cmd, prefix)
			}
			r := e.get("/api/v2"+sf1+"?"+strings.TrimSuffix(strings.TrimPrefix(cmd, prefix), "'"), e.ro)
			var api []struct{ ID int64 }
			r.json(t, &api)
			var want, got []string
			for _, s := range api {
				want = append(want, fmt.Sprintf("%s/%d", sf1, s.ID))
			}
			for _, row := range subscriberRows(t, page) {
				got = append(got, row.href)
			}
			if len(got) == 0 || !slices.Equal(got, want) {
				t.Errorf("%s: the page lists %v, the API call %v", q, got, want)
			}
			if codeText(body, "api-request-q") != r.header.Get("Storefront-Query") {
				t.Errorf("%s: q shown %q, the API read %q", q, codeText(body, "api-request-q"), r.header.Get("Storefront-Query"))
			}
			if got, want := codeText(body, "api-request-dates"), r.header.Get("Storefront-Query-Dates"); got != want {
				t.Errorf("%s: dates shown %q, the API's header %q", q, got, want)
			}
			if x := `href="` + sf1 + `.csv?` + html.EscapeString(url.Values{"q": {r.header.Get("Storefront-Query")}}.Encode()) + `"`; !strings.Contains(body, x) {
				t.Errorf("%s: no Export CSV of the search (%s)", q, x)
			}
		}
		if got := codeText(string(u.get(sf1+"?started_min=-120+days", false).body), "api-request-dates"); !strings.HasPrefix(got, `"-120 days"=2026-07-`) {
			t.Errorf("the date of a field: got %q, want it resolved", got)
		}
	})

	t.Run("ErrUnreadable", func(t *testing.T) {
		f := u.get(sf1+"?q="+url.QueryEscape("emial:zoe"), true)
		body := string(f.body)
		if f.status != 200 || !strings.Contains(body, `id="search-field" hx-swap-oob="true"`) || !strings.Contains(body, `aria-invalid="true"`) ||
			!strings.Contains(body, `did you mean &#34;email&#34;?`) {
			t.Errorf("got %d, want the box message swapped in: %.600s", f.status, body)
		}
		if strings.Contains(body, "<table") {
			t.Error("an unreadable search lists subscribers")
		}
	})

	t.Run("Suggestions", func(t *testing.T) {
		for _, tt := range []struct{ q, want string }{
			{"sta", `data-value="status:"`},
			{"act", `data-value="active:"`},
			{"email:a status:active,tr", `data-value="email:a status:active,TRIAL "`},
			{"-status:past", `data-value="-status:PAST_DUE "`},
		} {
			r := u.get("/subscribers/suggest?q="+url.QueryEscape(tt.q), true)
			if r.status != 200 || !strings.Contains(string(r.body), `role="listbox"`) || !strings.Contains(string(r.body), tt.want) {
				t.Errorf("%q: got %d %.400s, want %s", tt.q, r.status, r.body, tt.want)
			}
		}
		// Purchase fields and statuses are not the subscribers'.
		for _, q := range []string{"tot", "status:rf"} {
			if r := u.get("/subscribers/suggest?q="+url.QueryEscape(q), true); strings.Contains(string(r.body), `role="option"`) {
				t.Errorf("%q: got %.300s, want no suggestion", q, r.body)
			}
		}
	})
}

func TestDashboard_PurchasesPageSearchKeepsUnreadFields(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	for _, tt := range []struct{ name, query string }{
		{"ErrDate", "date_min=not+a+date&status=ACT"},
		{"ErrSearch", "q=emial%3Azoe&status=ACT"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := u.getFrom("/purchases?"+tt.query, "filters")
			if got := r.header.Get("HX-Push-Url"); got != "/purchases?"+tt.query {
				t.Errorf("HX-Push-Url: got %q, want the parameters as sent", got)
			}
		})
	}
}

// TestDashboard_PurchasesOneCustomer: a list whose purchases are all one address's, on
// one page, links to that customer's page; a list of several buyers does not.
func TestDashboard_PurchasesOneCustomer(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	// An address of a few purchases that no other address starts with (a bare word
	// finds the addresses that start with it).
	var email string
	var n int
	rows, err := e.db.Query(`SELECT buyer_email, COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email LIKE '%_@_%'
		GROUP BY buyer_email HAVING COUNT(*) BETWEEN 2 AND 20 ORDER BY buyer_email`, e.id(1))
	if err != nil {
		t.Fatal(err)
	}
	type candidate struct {
		email string
		n     int
	}
	var cands []candidate
	for rows.Next() {
		var c candidate
		if err := rows.Scan(&c.email, &c.n); err != nil {
			t.Fatal(err)
		}
		cands = append(cands, c)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		var starting int
		if err := e.db.QueryRow(`SELECT COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email LIKE ?`, e.id(1),
			strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(c.email)+"%").Scan(&starting); err != nil {
			t.Fatal(err)
		}
		if starting == c.n {
			email, n = c.email, c.n
			break
		}
	}
	if email == "" {
		t.Fatalf("no address of 2 to 20 purchases in %d candidates", len(cands))
	}
	body := string(u.get("/purchases?q="+url.QueryEscape(email), false).body)
	if !strings.Contains(body, fmt.Sprintf(`<span class="font-semibold text-slate-900">%d</span> purchases`, n)) {
		t.Fatalf("%s: the list does not hold its %d purchases", email, n)
	}
	link := regexp.MustCompile(`(?s)id="one-customer".*?href="([^"]+)"`).FindStringSubmatch(body)
	if link == nil || link[1] != html.EscapeString("/customers/"+url.PathEscape(email)) {
		t.Fatalf("%s: got %v, want a link to its customer page", email, link)
	}
	if r := u.get(html.UnescapeString(link[1]), false); r.status != 200 || !strings.Contains(string(r.body), html.EscapeString(email)) {
		t.Errorf("the customer page of %s: got %d", email, r.status)
	}
	for _, q := range []string{"", "status:ACT"} {
		if body := string(u.get("/purchases?q="+url.QueryEscape(q), false).body); strings.Contains(body, `id="one-customer"`) {
			t.Errorf("%q: several buyers' purchases link to one customer's page", q)
		}
	}
}

// The subscribers lists offer what a search's words may have meant, as the purchases
// list does: when it finds nothing, and when the language refuses it (a From line).
func TestDashboard_SubscribersAlternatives(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	for _, tt := range []struct {
		q    string
		code int
		want string
	}{
		{"not canceled", 200, "-status:CANCELED"},
		{"past due since 2000-01-01", 200, "status:PAST_DUE started>=2000-01-01"},
		{`"Ann Lee" <ann@example.com>`, 400, "email:ann@example.com"},
	} {
		r := u.get("/subscribers/all?q="+url.QueryEscape(tt.q), false)
		link := "/subscribers/all?q=" + url.QueryEscape(tt.want)
		if r.status != tt.code || !strings.Contains(string(r.body), `id="alternatives"`) || !strings.Contains(string(r.body), `href="`+html.EscapeString(link)+`"`) {
			t.Errorf("%q: got %d, no link to %s", tt.q, r.status, link)
		}
	}
	var n int
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM subscribers s JOIN storefronts f ON f.id = s.storefront_id AND f.account_id = ?
		LEFT JOIN subscriptions b ON b.subscriber_id = s.id WHERE b.status IS NULL OR b.status <> 'CANCELED'`, e.id(1)).Scan(&n); err != nil || n == 0 {
		t.Fatalf("subscribers not canceled: %d, %v", n, err)
	}
	if body := string(u.get("/subscribers/all?q="+url.QueryEscape("-status:CANCELED"), false).body); !strings.Contains(body, fmt.Sprintf(`<span class="font-semibold text-slate-900">%d</span>`, n)) {
		t.Errorf("-status:CANCELED: want %d subscribers listed", n)
	}
	if body := string(u.get("/subscribers/all?q="+url.QueryEscape("-status:CANCELED"), false).body); strings.Contains(body, `id="alternatives"`) {
		t.Error("a search that found subscribers offers alternatives")
	}
}
