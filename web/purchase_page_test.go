package web_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
)

// htmlPage is a parsed HTML answer.
type htmlPage struct {
	t    *testing.T
	root *html.Node
	raw  string
}

func parsePage(t *testing.T, r response) htmlPage {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	return htmlPage{t, root, string(r.body)}
}

// seePurchase checks that a dashboard reactivation of purchase id answered with the
// way to the purchase's page (a form: 303 there; htmx: HX-Location, the page loaded
// into the body) and returns the page as the browser then shows it.
func (u *dashUser) seePurchase(t *testing.T, r response, id int64, htmx bool) htmlPage {
	t.Helper()
	page := fmt.Sprintf("/purchases/%d", id)
	if htmx {
		var loc struct{ Path, Target string }
		if err := json.Unmarshal([]byte(r.header.Get("HX-Location")), &loc); r.status != http.StatusOK || err != nil || loc.Path != page || loc.Target != "body" {
			t.Fatalf("got %d with HX-Location %q, want 200 loading %s into the body", r.status, r.header.Get("HX-Location"), page)
		}
	} else if r.status != http.StatusSeeOther || r.header.Get("Location") != page {
		t.Fatalf("got %d to %q, want 303 to %s", r.status, r.header.Get("Location"), page)
	}
	return parsePage(t, u.get(page, htmx))
}

// all returns the elements for which match is true, in document order.
func (p htmlPage) all(match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(p.root)
	return out
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasAttr(key, val string) func(*html.Node) bool {
	return func(n *html.Node) bool { v, ok := attr(n, key); return ok && v == val }
}

// byID returns the element with the id, or nil.
func (p htmlPage) byID(id string) *html.Node {
	if ns := p.all(hasAttr("id", id)); len(ns) > 0 {
		return ns[0]
	}
	return nil
}

// text is the text of a node with runs of white space made one space; every text node
// is set apart by a space.
func text(n *html.Node) string {
	return nodeText(n, func(n *html.Node) bool { return n.Type == html.TextNode })
}

// blockText is the text of a node with runs of white space made one space; only blocks
// are set apart by a space.
func blockText(n *html.Node) string {
	return nodeText(n, func(n *html.Node) bool {
		return n.Type == html.ElementNode && (n.Data == "p" || n.Data == "div" || n.Data == "li" || n.Data == "td" || n.Data == "th" || n.Data == "dd" || n.Data == "dt")
	})
}

// nodeText joins the text under n, with a space after each node that apart picks.
func nodeText(n *html.Node, apart func(*html.Node) bool) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if apart(n) {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// within reports whether n lies inside an element with the id.
func within(n *html.Node, id string) bool {
	for ; n != nil; n = n.Parent {
		if v, _ := attr(n, "id"); v == id {
			return true
		}
	}
	return false
}

// reactivateForm returns the reactivation form of a page, or nil.
func (p htmlPage) reactivateForm() *html.Node {
	for _, f := range p.all(func(n *html.Node) bool { return n.Data == "form" }) {
		if a, _ := attr(f, "action"); strings.HasSuffix(a, "/reactivate") {
			return f
		}
	}
	return nil
}

// flatten writes a JSON value as path → leaf ("line_items.0.quantity").
func flatten(prefix string, v any, out map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			flatten(join(prefix, k), x, out)
		}
	case []any:
		for i, x := range v {
			flatten(join(prefix, fmt.Sprint(i)), x, out)
		}
	default:
		out[prefix] = v
	}
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func last(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// richPurchase picks a seeded purchase of account 1 with a customer, keys, coupons,
// custom fields, transactions and shipping.
func (e *apiEnv) richPurchase(used map[int64]bool) int64 {
	e.t.Helper()
	id := e.pick(`SELECT p.id FROM purchases p WHERE p.account_id = ? AND p.customer_id IS NOT NULL
		AND EXISTS (SELECT 1 FROM coupons c WHERE c.purchase_id = p.id)
		AND EXISTS (SELECT 1 FROM custom_fields f WHERE f.purchase_id = p.id)
		AND EXISTS (SELECT 1 FROM transactions x WHERE x.purchase_id = p.id)
		AND EXISTS (SELECT 1 FROM product_keys k WHERE k.purchase_id = p.id)
		ORDER BY p.requires_shipping AND p.shipping_carrier IS NOT NULL DESC, p.id`, used, e.id(1))
	if id == 0 {
		e.t.Fatal("the seed has no purchase with every collection")
	}
	return id
}

func (e *apiEnv) exec(query string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Exec(query, args...); err != nil {
		e.t.Fatal(err)
	}
	e.rebuild()
}

// rebuild brings the stored documents and product paths up to date with rows the test
// changed directly.
func (e *apiEnv) rebuild() {
	e.t.Helper()
	dbtest.EachShard(e.t, e.db.DB, func(db *sql.DB) error { return mysql.RebuildDerived(context.Background(), db) })
}

// ids answers a query of ids.
func (e *apiEnv) ids(query string, args ...any) []int64 {
	e.t.Helper()
	rows, err := e.db.Query(query, args...)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

// count answers a query of one number, such as COUNT(*).
func (e *apiEnv) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.QueryRow(query, args...).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// waitMailTo waits for a message to addr beyond the n already seen for it.
func (e *apiEnv) waitMailTo(addr string, seen int) {
	e.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		for _, m := range e.smtp.Messages() {
			if m.To == addr {
				n++
			}
		}
		if n > seen {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	e.t.Fatalf("no e-mail arrived for %s", addr)
}

func (e *apiEnv) mailsTo(addr string) int {
	n := 0
	for _, m := range e.smtp.Messages() {
		if m.To == addr {
			n++
		}
	}
	return n
}

// purchaseState is what a refused reactivation must leave as it was.
func (e *apiEnv) purchaseState(id int64) string {
	e.t.Helper()
	var status string
	var updated time.Time
	if err := e.db.QueryRow("SELECT status, updated_at FROM purchases WHERE id = ?", id).Scan(&status, &updated); err != nil {
		e.t.Fatal(err)
	}
	return fmt.Sprintf("%s %v activity=%d outbox=%d", status, updated.Unix(),
		e.count("SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ?", id),
		e.count("SELECT COUNT(*) FROM email_outbox WHERE purchase_id = ?", id))
}

func TestPurchasePage(t *testing.T) {
	e := newAPI(t, 0)
	used := map[int64]bool{}
	staff := e.signIn(e.id(1), "staff")

	t.Run("EveryFieldAsInTheAPI", func(t *testing.T) {
		e := e.with(t)
		id := e.richPurchase(used)
		// A null and an empty string, to see both shown.
		e.exec("UPDATE purchases SET customer_notes = NULL, shipping_street2 = '', processor_fee = NULL WHERE id = ?", id)
		r := e.get(fmt.Sprintf("/api/v2/purchases/%d", id), e.ro)
		var api map[string]any
		dec := json.NewDecoder(bytes.NewReader(r.body))
		dec.UseNumber()
		if err := dec.Decode(&api); err != nil {
			t.Fatal(err)
		}
		leaves := map[string]any{}
		flatten("", api, leaves)

		res := staff.get(fmt.Sprintf("/purchases/%d", id), false)
		if res.status != http.StatusOK {
			t.Fatalf("got %d, want 200", res.status)
		}
		p := parsePage(t, res)
		shown := map[string]*html.Node{}
		for _, n := range p.all(func(n *html.Node) bool { _, ok := attr(n, "data-field"); return ok }) {
			k, _ := attr(n, "data-field")
			if _, dup := shown[k]; !dup {
				shown[k] = n
			}
		}
		paths := make([]string, 0, len(leaves))
		for k := range leaves {
			paths = append(paths, k)
		}
		sort.Strings(paths)
		checked := 0
		for _, path := range paths {
			v := leaves[path]
			name := last(path)
			field := path
			switch {
			case name == "purchase_id":
				continue // the purchase's own id, in the title
			case name == "currency" && strings.HasPrefix(path, "transactions."):
				field = strings.TrimSuffix(path, "currency") + "amount"
			case name == "download_count" || name == "download_limit":
				field = strings.TrimSuffix(path, name) + "downloads"
			}
			n := shown[field]
			if n == nil {
				t.Errorf("%s (%v) is not on the page", path, v)
				continue
			}
			got := text(n)
			checked++
			switch v := v.(type) {
			case nil:
				want := "—"
				if name == "expires_at" {
					want = "never"
				}
				if got != want {
					t.Errorf("%s: got %q, want %q for null", path, got, want)
				}
			case bool:
				want := map[bool]string{true: "Yes", false: "No"}[v]
				if name == "is_success" {
					want = map[bool]string{true: "Succeeded", false: "Failed"}[v]
				}
				if got != want {
					t.Errorf("%s: got %q, want %q", path, got, want)
				}
			case string:
				want := strings.Join(strings.Fields(v), " ")
				if v == "" {
					want = "(blank)"
				}
				if !strings.Contains(got, want) {
					t.Errorf("%s: got %q, want it to show %q", path, got, want)
				}
			case json.Number:
				n64, _ := v.Int64()
				switch {
				case strings.HasSuffix(name, "_at"):
					tm := p.all(func(x *html.Node) bool { return x.Data == "time" && isIn(x, n) })
					if len(tm) != 1 {
						t.Errorf("%s: no <time> in %q", path, got)
						continue
					}
					if dt, _ := attr(tm[0], "datetime"); dt != time.Unix(n64, 0).UTC().Format(time.RFC3339) {
						t.Errorf("%s: datetime %s, want %d", path, dt, n64)
					}
				case name == "tangibles_to_ship":
					want := fmt.Sprintf("%d still to ship", n64)
					if n64 == 0 {
						want = "All shipped"
					}
					if got != want {
						t.Errorf("%s: got %q, want %q", path, got, want)
					}
				case name == "download_limit":
					want := fmt.Sprintf("of %d", n64)
					if n64 == 0 {
						want = "unlimited"
					}
					if !strings.Contains(got, want) {
						t.Errorf("%s: got %q, want %q", path, got, want)
					}
				case name == "download_count":
					if !strings.HasPrefix(got, v.String()+" ") {
						t.Errorf("%s: got %q, want it to start with %s", path, got, v)
					}
				default:
					if !strings.Contains(got, v.String()) {
						t.Errorf("%s: got %q, want %s", path, got, v)
					}
				}
			}
		}
		if checked < 80 {
			t.Fatalf("checked %d fields, want every field of the purchase", checked)
		}
		// The groups, each a section with a heading under the page's one h1.
		if h1 := p.all(func(n *html.Node) bool { return n.Data == "h1" }); len(h1) != 1 || strings.ReplaceAll(text(h1[0]), " ", "") != fmt.Sprintf("Purchase#%d", id) {
			t.Fatalf("h1: got %d headings", len(h1))
		}
		var h2 []string
		for _, n := range p.all(func(n *html.Node) bool { return n.Data == "h2" }) {
			h2 = append(h2, text(n))
		}
		for _, want := range []string{"Summary and money", "Buyer and customer", "Billing", "Shipping", "Line items", "Coupons", "Custom fields", "Payment transactions", "Reactivate", "Activity"} {
			if !strings.Contains(strings.Join(h2, "|"), want) {
				t.Errorf("no section %q among %v", want, h2)
			}
		}
		// Every product key has its copy button; tables label their columns.
		keys := p.all(func(n *html.Node) bool { _, ok := attr(n, "data-copy"); return ok && n.Data == "button" })
		nkeys := 0
		for k := range leaves {
			if strings.Contains(k, ".product_keys.") {
				nkeys++
			}
		}
		if len(keys) != nkeys || nkeys == 0 {
			t.Fatalf("%d copy buttons for %d keys", len(keys), nkeys)
		}
		for _, th := range p.all(func(n *html.Node) bool { return n.Data == "th" }) {
			if s, _ := attr(th, "scope"); s != "col" {
				t.Fatalf("th %q without scope", text(th))
			}
		}
		if len(p.all(hasAttr("href", "/purchases"))) == 0 || !strings.Contains(p.raw, "← All purchases") {
			t.Fatal("no link back to the purchases list")
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		var other int64
		if err := e.db.QueryRow("SELECT MIN(id) FROM purchases WHERE account_id = ?", e.id(2)).Scan(&other); err != nil || other == 0 {
			t.Fatalf("no purchase in account 2: %v", err)
		}
		for path, want := range map[string]int{
			fmt.Sprintf("/purchases/%d", other):          http.StatusNotFound,
			"/purchases/999999999":                       http.StatusNotFound,
			"/purchases/abc":                             http.StatusBadRequest,
			"/purchases/0":                               http.StatusBadRequest,
			fmt.Sprintf("/purchases/%d/activity", other): http.StatusNotFound,
		} {
			if r := staff.get(path, false); r.status != want {
				t.Errorf("GET %s: got %d, want %d", path, r.status, want)
			}
		}
		before := e.purchaseState(other)
		if r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", other), url.Values{}); r.status != http.StatusNotFound {
			t.Fatalf("POST to another account's purchase: got %d, want 404", r.status)
		}
		if after := e.purchaseState(other); after != before {
			t.Fatalf("another account's purchase changed: %s → %s", before, after)
		}
	})

	t.Run("ReactivateWithHTMX", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("PND", used)
		// A delivered key lost, so that refulfilling makes it again (and any others due).
		var li, pos int64
		if err := e.db.QueryRow("SELECT line_item_id, position FROM product_keys WHERE purchase_id = ? ORDER BY line_item_id, position DESC LIMIT 1", id).Scan(&li, &pos); err != nil {
			t.Fatal(err)
		}
		e.exec("DELETE FROM product_keys WHERE line_item_id = ? AND position = ?", li, pos)
		missing := e.count(`SELECT COALESCE(SUM(GREATEST(li.quantity - COALESCE(k.n, 0), 0)), 0) FROM line_items li
			LEFT JOIN (SELECT line_item_id, COUNT(*) AS n FROM product_keys WHERE purchase_id = ? GROUP BY line_item_id) k ON k.line_item_id = li.id
			WHERE li.purchase_id = ?`, id, id)
		wantMade := fmt.Sprintf("%d missing product keys were generated", missing)
		wantLine := fmt.Sprintf("Refulfilled: %d product keys generated", missing)
		if missing == 1 {
			wantMade, wantLine = "1 missing product key was generated", "Refulfilled: 1 product key generated"
		}
		before := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false))
		input := before.byID("reactivate-email")
		placeholder, _ := attr(input, "placeholder")
		if placeholder == "" {
			t.Fatal("Send to has no placeholder")
		}
		confirm, _ := attr(before.reactivateForm(), "hx-confirm")
		if !strings.Contains(confirm, fmt.Sprintf("Reactivate purchase #%d?", id)) || !strings.Contains(confirm, placeholder) {
			t.Fatalf("hx-confirm %q does not say what happens", confirm)
		}
		seen := e.mailsTo(placeholder)

		r := staff.postHTMX(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {""}, "refulfill": {"1"}})
		if len(r.body) != 0 {
			t.Fatalf("htmx got a body to swap, want only the way to the page: %s", r.body)
		}
		// htmx loads the page into the body: the outcome in the panel, the status, the
		// timeline and the line items as they are now.
		p := staff.seePurchase(t, r, id, true)
		panel := p.byID("reactivate")
		status := p.all(hasAttr("role", "status"))
		if panel == nil || len(status) == 0 || !within(status[0], "reactivate") ||
			!strings.Contains(text(status[0]), "was reactivated") || !strings.Contains(text(status[0]), placeholder) ||
			!strings.Contains(text(status[0]), wantMade) {
			t.Fatalf("no result in the panel: %s", p.raw)
		}
		for _, id := range []string{"timeline", "line-items", "summary", "purchase-status"} {
			if p.byID(id) == nil {
				t.Fatalf("no #%s on the page", id)
			}
		}
		tl := text(p.byID("timeline"))
		if !strings.Contains(tl, "Reactivated") || !strings.Contains(tl, "by "+staff.email) || !strings.Contains(tl, "Status changed from Pending (PND) to Active (ACT)") ||
			!strings.Contains(tl, wantLine) || !strings.Contains(tl, "E-mail queued to "+placeholder) {
			t.Fatalf("timeline does not show the reactivation: %s", tl)
		}
		if got := text(p.byID("purchase-status")); got != "Active (ACT)" {
			t.Fatalf("status badge %q, want Active (ACT)", got)
		}
		// The generated key is in the swapped line items.
		var newKey string
		e.db.QueryRow("SELECT key_value FROM product_keys WHERE line_item_id = ? AND position = ?", li, pos).Scan(&newKey)
		if newKey == "" || !strings.Contains(text(p.byID("line-items")), newKey) {
			t.Fatalf("line items do not show the new key %q", newKey)
		}

		// Blank Send to: the e-mail goes to the placeholder's address, and the timeline
		// learns that it was sent.
		e.waitMailTo(placeholder, seen)
		deadline := time.Now().Add(30 * time.Second)
		for {
			a := staff.get(fmt.Sprintf("/purchases/%d/activity", id), true)
			if a.status != http.StatusOK {
				t.Fatalf("activity: got %d", a.status)
			}
			tl := text(parsePage(t, a).byID("timeline"))
			if strings.Contains(tl, "E-mail sent to "+placeholder) && strings.Contains(tl, "Sent") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the timeline never shows the e-mail sent: %s", tl)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	t.Run("ReactivateWithoutJavaScript", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("ERR", used)
		r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {"nojs@example.org"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != fmt.Sprintf("/purchases/%d", id) {
			t.Fatalf("got %d to %q, want 303 to the purchase", r.status, r.header.Get("Location"))
		}
		p := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false))
		flash := p.all(hasAttr("role", "status"))
		if len(flash) == 0 || !strings.Contains(text(flash[0]), fmt.Sprintf("Purchase #%d was reactivated", id)) || !strings.Contains(text(flash[0]), "nojs@example.org") {
			t.Fatalf("no flash after the redirect: %s", p.raw)
		}
		if !strings.Contains(text(p.byID("timeline")), "E-mail queued to nojs@example.org") {
			t.Fatal("timeline does not show the e-mail")
		}
		if st := e.purchaseState(id); !strings.HasPrefix(st, "ACT ") {
			t.Fatalf("state %s, want ACT", st)
		}
		if again := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false)); strings.Contains(again.raw, "was reactivated.") {
			t.Fatal("the flash shows twice")
		}
		e.waitMailTo("nojs@example.org", 0)
	})

	t.Run("TypedSpacesTrimmed", func(t *testing.T) {
		// The form forgives what a person types around the address and the tick box
		// value; the API, given the same, answers 400.
		e := e.with(t)
		id := e.purchaseWithStatus("ERR", used)
		r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {"  typed@example.org\t"}, "refulfill": {" 1 "}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("got %d %s, want 303", r.status, r.body)
		}
		if st := e.purchaseState(id); !strings.HasPrefix(st, "ACT ") {
			t.Fatalf("state %s, want ACT", st)
		}
		e.waitMailTo("typed@example.org", 0)
		wantError(t, e.reactivate(id, e.rw, url.Values{"customer_email": {"  typed@example.org\t"}}.Encode(), form, nil), 400, "INVALID", "invalid_parameter", "customer_email")
	})

	t.Run("SubmittedTwiceReactivatesOnce", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("PND", used)
		page := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false))
		m := regexp.MustCompile(`name="form_token" value="([^"]+)"`).FindStringSubmatch(page.raw)
		if m == nil {
			t.Fatal("the reactivation form has no token")
		}
		form := url.Values{"customer_email": {"twice@example.org"}, "refulfill": {"1"}, "form_token": {m[1]}}
		for i := 0; i < 2; i++ {
			if r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", id), form); r.status != http.StatusSeeOther {
				t.Fatalf("submission %d: got %d", i+1, r.status)
			}
		}
		var n int
		e.db.QueryRow("SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ? AND action = 'reactivated'", id).Scan(&n)
		if n != 1 {
			t.Fatalf("one form submitted twice: %d reactivations, want 1", n)
		}
		// A fresh rendering of the form is a new request.
		again := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false))
		if m2 := regexp.MustCompile(`name="form_token" value="([^"]+)"`).FindStringSubmatch(again.raw); m2 == nil || m2[1] == m[1] {
			t.Fatal("the form token is not renewed")
		}
	})

	t.Run("EmailStateInTimeline", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("ACT", used)
		at := now.Add(-2 * time.Hour).UTC()
		// A delivery that gave up, and one still waiting after a failed attempt; the
		// mailer leaves rows in these states alone or not yet due.
		e.exec(`INSERT INTO purchase_activity (account_id, purchase_id, actor, action, details, created_at) VALUES
			(?, ?, 'system', 'email_queued', '{"to":"gone@example.org","subject":"Ready"}', ?),
			(?, ?, 'system', 'email_queued', '{"to":"later@example.org","subject":"Ready"}', ?)`, e.id(1), id, at, e.id(1), id, at.Add(time.Minute))
		e.exec(`INSERT INTO email_outbox (account_id, purchase_id, to_address, subject, body, status, attempts, next_attempt_at, last_error, created_at) VALUES
			(?, ?, 'gone@example.org', 'Ready', 'x', 'failed', 10, ?, '550 mailbox unavailable', ?),
			(?, ?, 'later@example.org', 'Ready', 'x', 'queued', 2, ?, '421 try again later', ?)`,
			e.id(1), id, at, at, e.id(1), id, now.Add(24*time.Hour), at.Add(time.Minute))
		p := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false))
		tl := p.byID("timeline")
		items := p.all(func(n *html.Node) bool { return n.Data == "li" && within(n, "timeline") })
		if len(items) < 2 {
			t.Fatalf("timeline: %s", text(tl))
		}
		// Newest first.
		if got := text(items[0]); !strings.Contains(got, "E-mail queued to later@example.org") || !strings.Contains(got, "Waiting to send") ||
			!strings.Contains(got, "2 attempts failed (421 try again later)") {
			t.Fatalf("waiting e-mail: %q", got)
		}
		if got := text(items[1]); !strings.Contains(got, "E-mail queued to gone@example.org") || !strings.Contains(got, "Failed") ||
			!strings.Contains(got, "Given up after 10 attempts: 550 mailbox unavailable") {
			t.Fatalf("failed e-mail: %q", got)
		}
		// While an e-mail waits, the timeline refreshes itself.
		if u, _ := attr(tl, "hx-get"); u != fmt.Sprintf("/purchases/%d/activity", id) {
			t.Fatalf("timeline hx-get %q", u)
		}
	})

	t.Run("Viewer", func(t *testing.T) {
		e := e.with(t)
		viewer := e.signIn(e.id(1), "viewer")
		id := e.purchaseWithStatus("ACT", used)
		p := parsePage(t, viewer.get(fmt.Sprintf("/purchases/%d", id), false))
		if p.reactivateForm() != nil || p.byID("reactivate-email") != nil {
			t.Fatal("a viewer sees the reactivation form")
		}
		if !strings.Contains(text(p.byID("reactivate")), "Your role (viewer) can look but not reactivate; ask an owner or staff member.") {
			t.Fatalf("no reason for the viewer: %s", text(p.byID("reactivate")))
		}
		before := e.purchaseState(id)
		if r := viewer.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"refulfill": {"1"}}); r.status != http.StatusForbidden {
			t.Fatalf("viewer POST: got %d, want 403", r.status)
		}
		// htmx 2 swaps only 2xx answers: the refusal comes as a 200 notice it shows.
		if r := viewer.postHTMX(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{}); r.status != http.StatusOK ||
			!strings.Contains(string(r.body), "Your role (viewer) can look but not reactivate") {
			t.Fatalf("viewer htmx POST: got %d %s, want 200 with the reason", r.status, r.body)
		}
		if after := e.purchaseState(id); after != before {
			t.Fatalf("a viewer changed the purchase: %s → %s", before, after)
		}
		// Staff and owners get the form.
		owner := e.signIn(e.id(1), "owner")
		if parsePage(t, owner.get(fmt.Sprintf("/purchases/%d", id), false)).reactivateForm() == nil {
			t.Fatal("an owner has no form")
		}
	})

	t.Run("NotReactivatable", func(t *testing.T) {
		e := e.with(t)
		for st, reason := range map[string]string{
			"RFD": "Refunded purchases cannot be reactivated.",
			"CAN": "Canceled purchases cannot be reactivated.",
			"HLD": "Held purchases cannot be reactivated.",
		} {
			id := e.purchaseWithStatus(st, used)
			p := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false))
			if p.reactivateForm() != nil {
				t.Fatalf("%s: the form is offered", st)
			}
			if got := text(p.byID("reactivate")); !strings.Contains(got, reason) {
				t.Fatalf("%s: panel %q, want %q", st, got, reason)
			}
			// A request anyway (a stale page) is a 409 shown as a message.
			before := e.purchaseState(id)
			r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{})
			alert := staff.seePurchase(t, r, id, false).all(hasAttr("role", "alert"))
			if len(alert) == 0 || !within(alert[0], "reactivate") || !strings.Contains(text(alert[0]), st) {
				t.Fatalf("%s: no message naming the status", st)
			}
			h := staff.postHTMX(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{})
			if h.status != http.StatusOK || !strings.Contains(string(h.body), "cannot be reactivated") {
				t.Fatalf("%s: htmx got %d %s", st, h.status, h.body)
			}
			if after := e.purchaseState(id); after != before {
				t.Fatalf("%s: changed %s → %s", st, before, after)
			}
		}
	})

	t.Run("InvalidEmail", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("ACT", used)
		before := e.purchaseState(id)
		// A line break at the end is refused too: the form trims typed spaces only.
		for _, bad := range []string{"not-an-address", "a@b.com\r\nBcc: x@evil.test", "Ann <ann@example.com>", "a@b.com\n", "a@b.com\r\n"} {
			r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {bad}, "refulfill": {"1"}})
			p := staff.seePurchase(t, r, id, false)
			msg := p.byID("reactivate-email-error")
			input := p.byID("reactivate-email")
			if msg == nil || input == nil || text(msg) == "" {
				t.Fatalf("%q: no inline error by the field", bad)
			}
			if strings.Contains(bad, "\n") != strings.Contains(text(msg), "line break") {
				t.Fatalf("%q: message %q", bad, text(msg))
			}
			if v, _ := attr(input, "aria-invalid"); v != "true" {
				t.Fatalf("%q: field not marked invalid", bad)
			}
			if d, _ := attr(input, "aria-describedby"); !strings.Contains(d, "reactivate-email-error") {
				t.Fatalf("%q: error not tied to the field", bad)
			}
			if v, _ := attr(input, "value"); v != strings.ReplaceAll(bad, "\r\n", "\n") {
				t.Fatalf("%q: field value %q, want what was typed", bad, v)
			}
			if _, ok := attr(p.byID("reactivate-refulfill"), "checked"); !ok {
				t.Fatalf("%q: Refulfill was unticked", bad)
			}
			if again := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false)); again.byID("reactivate-email-error") != nil {
				t.Fatalf("%q: the problem shows twice", bad)
			}
			h := staff.postHTMX(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {bad}})
			hp := parsePage(t, h)
			if h.status != http.StatusOK || hp.byID("reactivate-email-error") == nil || hp.byID("timeline") != nil {
				t.Fatalf("%q: htmx got %d %s, want the panel with the error", bad, h.status, h.body)
			}
		}
		if after := e.purchaseState(id); after != before {
			t.Fatalf("an invalid address changed the purchase: %s → %s", before, after)
		}
	})

	t.Run("BlankSendsToPlaceholder", func(t *testing.T) {
		e := e.with(t)
		// With a customer record its address wins over the buyer's; without one the
		// buyer's is used.
		withCustomer := e.purchaseWithStatus("ACT", used)
		e.exec("UPDATE purchases SET buyer_email = 'buyer.only@example.net' WHERE id = ?", withCustomer)
		var customerEmail string
		e.db.QueryRow("SELECT c.email FROM customers c JOIN purchases p ON p.customer_id = c.id WHERE p.id = ?", withCustomer).Scan(&customerEmail)
		noCustomer := e.purchaseWithStatus("ACT", used)
		e.exec("UPDATE purchases SET customer_id = NULL, buyer_email = 'lonely.buyer@example.net' WHERE id = ?", noCustomer)
		for id, want := range map[int64]string{withCustomer: customerEmail, noCustomer: "lonely.buyer@example.net"} {
			p := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", id), false))
			if ph, _ := attr(p.byID("reactivate-email"), "placeholder"); ph != want {
				t.Fatalf("purchase %d: placeholder %q, want %q", id, ph, want)
			}
			seen := e.mailsTo(want)
			if r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {"  "}}); r.status != http.StatusSeeOther {
				t.Fatalf("purchase %d: got %d %s", id, r.status, r.body)
			}
			e.waitMailTo(want, seen)
		}
	})

	t.Run("ImportedHTMLIsEscaped", func(t *testing.T) {
		e := e.with(t)
		id := e.richPurchase(used)
		const evil = `<script>alert(1)</script>`
		const attrEvil = `"><img src=x onerror=alert(2)>`
		e.exec("UPDATE purchases SET buyer_firstname = ?, customer_notes = ?, buyer_email = ? WHERE id = ?", evil, evil, attrEvil, id)
		e.exec("UPDATE customers c JOIN purchases p ON p.customer_id = c.id SET c.email = NULL WHERE p.id = ?", id)
		e.exec("UPDATE product_keys SET key_value = ? WHERE purchase_id = ? ORDER BY line_item_id, position LIMIT 1", attrEvil, id)
		e.exec("UPDATE custom_fields SET response = ? WHERE purchase_id = ?", evil, id)
		r := staff.get(fmt.Sprintf("/purchases/%d", id), false)
		body := string(r.body)
		if strings.Contains(body, evil) || strings.Contains(body, "<img") {
			t.Fatal("imported HTML reached the page unescaped")
		}
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Fatal("the escaped text is not shown")
		}
		p := parsePage(t, r)
		if len(p.all(func(n *html.Node) bool { return n.Data == "script" && strings.Contains(text(n), "alert") })) > 0 {
			t.Fatal("a script element came from the data")
		}
		copyBtn := p.all(hasAttr("data-copy", attrEvil))
		if len(copyBtn) != 1 {
			t.Fatal("the copy button does not carry the key as text")
		}
		if ph, _ := attr(p.byID("reactivate-email"), "placeholder"); ph != attrEvil {
			t.Fatalf("placeholder %q", ph)
		}
		confirm, _ := attr(p.reactivateForm(), "hx-confirm")
		if !strings.Contains(confirm, attrEvil) {
			t.Fatalf("hx-confirm %q", confirm)
		}
	})
}

// isIn reports whether n is inside (or is) parent.
func isIn(n, parent *html.Node) bool {
	for ; n != nil; n = n.Parent {
		if n == parent {
			return true
		}
	}
	return false
}
