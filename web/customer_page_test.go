package web_test

import (
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"golang.org/x/net/html"

	"storefront/templates"
	"storefront/web/openapi"
)

// busiestCustomer returns the address of account 1 with purchases in the most
// storefronts and currencies (most purchases breaking ties), with its purchases.
func busiestCustomer(t *testing.T, e *apiEnv) (string, []purchaseRow) {
	t.Helper()
	rows, err := e.db.Query(`SELECT id, buyer_email, storefront_id, currency, status, total, COALESCE(tangibles_to_ship, 0)
		FROM purchases WHERE account_id = ? AND buyer_email IS NOT NULL`, e.id(1))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	by := map[string][]purchaseRow{}
	for rows.Next() {
		var p purchaseRow
		if err := rows.Scan(&p.id, &p.email, &p.storefront, &p.currency, &p.status, &p.total, &p.toShip); err != nil {
			t.Fatal(err)
		}
		k := strings.ToLower(p.email)
		by[k] = append(by[k], p)
	}
	score := func(ps []purchaseRow) int {
		sfs, curs := map[int64]bool{}, map[string]bool{}
		for _, p := range ps {
			sfs[p.storefront], curs[p.currency] = true, true
		}
		return len(sfs)*10000 + len(curs)*1000 + len(ps)
	}
	best := ""
	for k, ps := range by {
		if best == "" || score(ps) > score(by[best]) || (score(ps) == score(by[best]) && k < best) {
			best = k
		}
	}
	return by[best][0].email, by[best]
}

type purchaseRow struct {
	id                      int64
	email, currency, status string
	total                   string
	storefront, toShip      int64
}

// lifetime sums totals of the purchases with the status per currency, as the page
// writes them: "12.50 USD · 2 purchases".
func lifetime(ps []purchaseRow, status string) []string {
	sum, n := map[string]*big.Rat{}, map[string]int{}
	for _, p := range ps {
		if p.status != status {
			continue
		}
		r, _ := new(big.Rat).SetString(p.total)
		if sum[p.currency] == nil {
			sum[p.currency] = new(big.Rat)
		}
		sum[p.currency].Add(sum[p.currency], r)
		n[p.currency]++
	}
	var out []string
	for cur, r := range sum {
		digits := 2
		if cur == "JPY" {
			digits = 0
		}
		word := "purchases"
		if n[cur] == 1 {
			word = "purchase"
		}
		out = append(out, fmt.Sprintf("%s %s · %d %s", r.FloatString(digits), cur, n[cur], word))
	}
	sort.Strings(out)
	return out
}

// lifetimeShown is lifetime as the page shows it: the amounts' thousands separated
// ("12,345.60 EUR · 3 purchases"), sorted.
func lifetimeShown(ps []purchaseRow, status string) []string {
	out := lifetime(ps, status)
	for i, l := range out {
		digits := strings.IndexFunc(l, func(r rune) bool { return r < '0' || r > '9' })
		if n, err := strconv.ParseInt(l[:digits], 10, 64); err == nil {
			out[i] = templates.FormatCount(n) + l[digits:]
		}
	}
	sort.Strings(out)
	return out
}

func waitEmail(t *testing.T, e *apiEnv, purchaseID int64, status string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		var st string
		err := e.db.QueryRow("SELECT status FROM email_outbox WHERE account_id = ? AND purchase_id = ? ORDER BY id DESC LIMIT 1", e.id(1), purchaseID).Scan(&st)
		if err == nil && st == status {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the e-mail of purchase %d did not become %s", purchaseID, status)
}

// customerFixture makes the busiest customer of account 1 (renamed to rename when it
// is not "") one with purchases in two storefronts and two currencies, a refund, two
// subscriber records (one whose term ended, one in its term) and two e-mails through
// the SMTP server (one sent, one refused), and returns its address and purchases.
func customerFixture(t *testing.T, e *apiEnv, rename string) (string, []purchaseRow) {
	t.Helper()
	email, ps := busiestCustomer(t, e)
	if rename != "" {
		// The address of the customer record too: a reactivation mails the customer's.
		for _, q := range []string{
			"UPDATE customers SET email = ? WHERE account_id = ? AND email = ?",
			"UPDATE purchases SET buyer_email = ? WHERE account_id = ? AND buyer_email = ?",
		} {
			if _, err := e.db.Exec(q, rename, e.id(1), email); err != nil {
				t.Fatal(err)
			}
		}
		e.rebuild()
		email = rename
		for i := range ps {
			ps[i].email = rename
		}
	}
	sfs, curs, refunds := map[int64]bool{}, map[string]bool{}, 0
	for _, p := range ps {
		sfs[p.storefront], curs[p.currency] = true, true
		if p.status == "RFD" {
			refunds++
		}
	}
	if len(sfs) < 2 || len(curs) < 2 || refunds == 0 {
		t.Fatalf("want purchases of %s in two storefronts and two currencies with a refund, got %d storefronts, %d currencies, %d refunds",
			email, len(sfs), len(curs), refunds)
	}

	// Two subscriber records of the address in two storefronts: one whose term ended,
	// one in its term.
	var subs []int64
	rows, err := e.db.Query("SELECT id FROM subscribers WHERE account_id = ? GROUP BY storefront_id ORDER BY storefront_id LIMIT 2", e.id(1))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		subs = append(subs, id)
	}
	rows.Close()
	if len(subs) < 2 {
		t.Fatalf("want subscribers in two storefronts, got %v", subs)
	}
	past, future := now.Add(-48*time.Hour), now.Add(48*time.Hour)
	for i, q := range []struct {
		sql  string
		args []any
	}{
		{"UPDATE subscribers SET username = ? WHERE account_id = ? AND id IN (?, ?)", []any{strings.ToUpper(email), e.id(1), subs[0], subs[1]}},
		{"UPDATE subscriptions SET status = 'CANCELED', ended_at = ? WHERE account_id = ? AND subscriber_id = ?", []any{past, e.id(1), subs[0]}},
		{"UPDATE subscriptions SET status = 'CANCELED', ended_at = ? WHERE account_id = ? AND subscriber_id = ?", []any{future, e.id(1), subs[1]}},
	} {
		if res, err := e.db.Exec(q.sql, q.args...); err != nil {
			t.Fatalf("%d: %v", i, err)
		} else if n, _ := res.RowsAffected(); n == 0 {
			t.Fatalf("%d: changed nothing", i)
		}
	}

	// Two e-mails to the address: one sent, one the mail server refuses.
	var reactivatable []int64
	for _, p := range ps {
		if p.status == "ACT" || p.status == "PND" || p.status == "ERR" {
			reactivatable = append(reactivatable, p.id)
		}
	}
	if len(reactivatable) < 2 {
		t.Fatalf("want two reactivatable purchases of %s, got %v", email, reactivatable)
	}
	if r := e.reactivate(reactivatable[0], e.rw, "", form, nil); r.status != 200 {
		t.Fatalf("reactivate: %d %s", r.status, r.body)
	}
	waitEmail(t, e, reactivatable[0], "sent")
	e.smtp.RefuseRcpt(&smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"})
	if r := e.reactivate(reactivatable[1], e.rw, "", form, nil); r.status != 200 {
		t.Fatalf("reactivate: %d %s", r.status, r.body)
	}
	waitEmail(t, e, reactivatable[1], "failed")
	e.smtp.RefuseRcpt(nil)
	// A reactivated purchase is active.
	for i := range ps {
		if ps[i].id == reactivatable[0] || ps[i].id == reactivatable[1] {
			ps[i].status = "ACT"
		}
	}
	return email, ps
}

func TestCustomerPage(t *testing.T) {
	e := newAPI(t, 0)
	staff := e.signIn(e.id(1), "staff")
	viewer := e.signIn(e.id(1), "viewer")
	owner2 := e.signIn(e.id(2), "owner")
	email, ps := customerFixture(t, e, "")

	// The address as a person would type it: another letter case.
	path := "/customers/" + url.PathEscape(strings.ToUpper(email))
	t.Run("Page", func(t *testing.T) {
		p := parsePage(t, viewer.get(path, false))
		if h := p.all(func(n *html.Node) bool { return n.Data == "h1" }); len(h) != 1 || text(h[0]) != email {
			t.Fatalf("heading: got %v, want %s", h, email)
		}
		for _, title := range []string{"Purchases", "Subscriptions", "Activity", "E-mails", "Notes"} {
			if p.byID(strings.ToLower(strings.ReplaceAll(title, "-", ""))+"-title") == nil && !strings.Contains(p.raw, ">"+title+"</h2>") {
				t.Errorf("no section %q", title)
			}
		}
		if got := strings.TrimSpace(text(p.all(hasAttr("data-field", "purchases"))[0])); got != fmt.Sprint(len(ps)) {
			t.Errorf("purchases: got %s, want %d", got, len(ps))
		}
		for field, status := range map[string]string{"lifetime": "ACT", "refunded": "RFD"} {
			var got []string
			for c := p.all(hasAttr("data-field", field))[0].FirstChild; c != nil; c = c.NextSibling {
				if c.Data == "span" {
					got = append(got, text(c))
				}
			}
			sort.Strings(got)
			if want := lifetimeShown(ps, status); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s: got %q, want %q", field, got, want)
			}
		}
		var toShip int
		for _, pr := range ps {
			if pr.toShip > 0 {
				toShip++
			}
		}
		if f := p.all(hasAttr("data-field", "to_ship")); (toShip > 0) != (len(f) == 1) {
			t.Errorf("still to ship: %d purchases, shown %d", toShip, len(f))
		}
		// Every purchase of the address, newest first, paged; each linked.
		seen := map[string]bool{}
		next := path
		for next != "" {
			pg := parsePage(t, viewer.get(next, false))
			for _, a := range pg.all(func(n *html.Node) bool {
				v, _ := attr(n, "href")
				return n.Data == "a" && strings.HasPrefix(v, "/purchases/")
			}) {
				if h, _ := attr(a, "href"); !strings.Contains(h, "#") {
					seen[h] = true
				}
			}
			next = ""
			if o := pg.all(hasAttr("rel", "next")); len(o) > 0 {
				next, _ = attr(o[0], "href")
			}
		}
		for _, pr := range ps {
			if !seen[fmt.Sprintf("/purchases/%d", pr.id)] {
				t.Errorf("purchase %d not listed", pr.id)
			}
		}
		subs := text(p.byID("subscriptions"))
		if !strings.Contains(subs, "canceled_term_ended") || !strings.Contains(subs, "canceled_until_term_end") || !strings.Contains(subs, "Receiving service") {
			t.Errorf("subscriptions: got %q", subs)
		}
		mails := text(p.byID("emails"))
		if !strings.Contains(mails, "Sent") || !strings.Contains(mails, "Failed") || !strings.Contains(mails, "no such mailbox") {
			t.Errorf("e-mails: got %q", mails)
		}
		if act := text(p.byID("activity")); !strings.Contains(act, "Reactivated") || !strings.Contains(act, "tests") {
			t.Errorf("activity: got %q", act)
		}
		if !strings.Contains(p.raw, `href="/purchases?q=`+url.QueryEscape(`email:"`+email+`"`)+`"`) {
			t.Errorf("no link to the full list as a q query")
		}
		if p.all(hasAttr("name", "body")) != nil {
			t.Errorf("a viewer is offered the note form")
		}
	})
	t.Run("Notes", func(t *testing.T) {
		mark := `<script>alert("x")</script> & <b>bold</b>`
		r := staff.post(path+"/notes", url.Values{"body": {mark}, "back": {path}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("add: got %d %s", r.status, r.body)
		}
		p := parsePage(t, viewer.get(path, false))
		body := p.all(hasAttr("data-note-body", ""))
		if len(body) != 1 || text(body[0]) != mark || strings.Contains(p.raw, "<script>alert") {
			t.Fatalf("note: got %v, want the text shown as text", body)
		}
		// On a purchase: shown there and on the customer's page.
		r = staff.postHTMX(fmt.Sprintf("/purchases/%d/notes", ps[0].id), url.Values{"body": {"refund asked by phone"}})
		if r.status != 200 || !strings.Contains(string(r.body), "refund asked by phone") {
			t.Fatalf("add to purchase: got %d %s", r.status, r.body)
		}
		if pp := viewer.get(fmt.Sprintf("/purchases/%d", ps[0].id), false); !strings.Contains(string(pp.body), "refund asked by phone") {
			t.Errorf("purchase page lacks the note")
		}
		if !strings.Contains(string(viewer.get(path, false).body), "refund asked by phone") {
			t.Errorf("customer page lacks the purchase's note")
		}
		// Refused text is shown inline, never a 500.
		r = staff.postHTMX(path+"/notes", url.Values{"body": {strings.Repeat("x", 2001)}})
		if r.status != 200 || !strings.Contains(string(r.body), "at most 2000 characters") {
			t.Errorf("too long (htmx): got %d %s", r.status, r.body)
		}
		if r := staff.post(path+"/notes", url.Values{"body": {"  "}}); r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), "Write the note") {
			t.Errorf("empty: got %d", r.status)
		}
		if r := viewer.post(path+"/notes", url.Values{"body": {"x"}}); r.status != http.StatusForbidden {
			t.Errorf("viewer: got %d, want 403", r.status)
		}
		// Its author deletes the customer's note: gone from the notes answered in place.
		var noteID string
		for _, li := range p.all(func(n *html.Node) bool { v, _ := attr(n, "id"); return n.Data == "li" && strings.HasPrefix(v, "note-") }) {
			if text(li) != "" && strings.Contains(text(li), mark) {
				noteID, _ = attr(li, "id")
			}
		}
		if noteID == "" {
			t.Fatal("no note element holds the note")
		}
		del := "/notes/" + strings.TrimPrefix(noteID, "note-") + "/delete"
		if r := viewer.post(del, url.Values{"back": {path}}); r.status != http.StatusForbidden {
			t.Errorf("viewer deletes: got %d, want 403", r.status)
		}
		r = staff.postHTMX(del, url.Values{"back": {path}})
		if r.status != 200 || strings.Contains(string(r.body), "alert(") || !strings.Contains(string(r.body), "refund asked by phone") {
			t.Errorf("delete: got %d %s", r.status, r.body)
		}
	})
	t.Run("API", func(t *testing.T) {
		r := e.get("/api/v2/customers/"+url.PathEscape(strings.ToUpper(email)), e.ro)
		if r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		var c struct {
			Email         string `json:"email"`
			Purchases     int    `json:"purchases"`
			LifetimeValue []struct {
				Currency, Amount string
				Purchases        int
			} `json:"lifetime_value"`
		}
		r.json(t, &c)
		checkCustomerAnswer(t, r)
		var got []string
		for _, a := range c.LifetimeValue {
			word := "purchases"
			if a.Purchases == 1 {
				word = "purchase"
			}
			got = append(got, fmt.Sprintf("%s %s · %d %s", a.Amount, a.Currency, a.Purchases, word))
		}
		sort.Strings(got)
		if c.Email != email || c.Purchases != len(ps) || strings.Join(got, "|") != strings.Join(lifetime(ps, "ACT"), "|") {
			t.Errorf("got %s", r.body)
		}
		for _, r := range []response{e.get("/api/v2/customers/nobody@example.invalid", e.ro), e.get("/api/v2/customers/"+url.PathEscape(email)+"?x=1", e.ro)} {
			checkCustomerAnswer(t, r)
		}
		wantError(t, e.get("/api/v2/customers/nobody@example.invalid", e.ro), 404, "NOTFOUND", "not_found", "")
		wantError(t, e.get("/api/v2/customers/"+url.PathEscape(email)+"?x=1", e.ro), 400, "INVALID", "unknown_parameter", "x")
	})
	t.Run("OtherAccount", func(t *testing.T) {
		// The same address in account 2 is another customer, or none.
		if _, err := e.db.Exec("UPDATE purchases SET buyer_email = 'someone@else.test' WHERE account_id = ? AND buyer_email = ?", e.id(2), email); err != nil {
			t.Fatal(err)
		}
		e.rebuild()
		if r := owner2.get(path, false); r.status != http.StatusNotFound || strings.Contains(string(r.body), "refund asked by phone") {
			t.Errorf("page: got %d, want 404", r.status)
		}
		wantError(t, e.do("GET", "/api/v2/customers/"+url.PathEscape(email), "", nil, map[string]string{"Authorization": "Bearer " + e.other}), 404, "NOTFOUND", "not_found", "")
		if r := owner2.post(path+"/notes", url.Values{"body": {"x"}}); r.status != http.StatusNotFound {
			t.Errorf("note: got %d, want 404", r.status)
		}
	})
	t.Run("Links", func(t *testing.T) {
		p := parsePage(t, viewer.get("/purchases", false))
		if len(p.all(func(n *html.Node) bool { v, _ := attr(n, "href"); return strings.HasPrefix(v, "/customers/") })) == 0 {
			t.Errorf("the purchases list links no customer")
		}
		pp := parsePage(t, viewer.get(fmt.Sprintf("/purchases/%d", ps[0].id), false))
		for _, field := range []string{"buyer_email", "buyer_firstname", "buyer_lastname"} {
			f := pp.all(hasAttr("data-field", field))
			if len(f) != 1 || f[0].FirstChild == nil {
				t.Fatalf("the purchase page has no %s", field)
			}
			var a *html.Node
			for c := f[0].FirstChild; c != nil; c = c.NextSibling {
				if c.Data == "a" {
					a = c
				}
			}
			if a == nil {
				t.Errorf("the purchase page's %s is no link", field)
			} else if href, _ := attr(a, "href"); href != "/customers/"+url.PathEscape(ps[0].email) {
				t.Errorf("the purchase page does not link its buyer's %s to the customer's page", field)
			}
		}
		// The subscriber records of the address: their pages link the customer's.
		var sub, sf int64
		var username string
		if err := e.db.QueryRow("SELECT id, storefront_id, username FROM subscribers WHERE account_id = ? AND username = ? LIMIT 1", e.id(1), email).Scan(&sub, &sf, &username); err != nil {
			t.Fatal(err)
		}
		sp := parsePage(t, viewer.get(fmt.Sprintf("/storefronts/%d/subscribers/%d", sf, sub), false))
		if len(sp.all(hasAttr("href", "/customers/"+url.PathEscape(username)))) == 0 {
			t.Errorf("the subscriber page does not link its e-mail to the customer's page")
		}
	})
}

// customerAddresses are addresses whose characters mean something in a URL or are not
// ASCII; each must reach its customer's page and the API through its links.
var customerAddresses = []string{
	"a/b@example.com", "a/../b@example.com", "50%off@example.com", "what?@example.com", "hash#tag@example.com",
	"plus+tag@example.com", "with space@example.com", "zoë.ünï@exämple.com",
}

// TestCustomerPage_Addresses: an address with "/", "%", "?", "#", "+", a space or
// letters beyond ASCII opens its customer's page from the link the purchase page gives
// it, answers the API at its percent-encoded path, and takes a note.
func TestCustomerPage_Addresses(t *testing.T) {
	e := newAPI(t, 0)
	staff := e.signIn(e.id(1), "staff")
	ids := e.ids("SELECT id FROM purchases WHERE account_id = ? ORDER BY id LIMIT ?", e.id(1), len(customerAddresses))
	for i, addr := range customerAddresses {
		if _, err := e.db.Exec("UPDATE purchases SET buyer_email = ? WHERE account_id = ? AND id = ?", addr, e.id(1), ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	e.rebuild()
	for i, addr := range customerAddresses {
		t.Run(addr, func(t *testing.T) {
			pp := parsePage(t, staff.get(fmt.Sprintf("/purchases/%d", ids[i]), false))
			var link string
			for _, a := range pp.all(func(n *html.Node) bool {
				v, _ := attr(n, "href")
				return n.Data == "a" && strings.HasPrefix(v, "/customers/")
			}) {
				if text(a) == addr {
					link, _ = attr(a, "href")
				}
			}
			if want := "/customers/" + url.PathEscape(addr); link != want {
				t.Fatalf("the purchase page links its buyer's address to %q, want %q", link, want)
			}
			p := parsePage(t, staff.get(link, false))
			if h := p.all(func(n *html.Node) bool { return n.Data == "h1" }); len(h) != 1 || text(h[0]) != addr {
				t.Fatalf("heading: got %v, want %s", h, addr)
			}
			if rows := p.all(hasAttr("href", fmt.Sprintf("/purchases/%d", ids[i]))); len(rows) == 0 {
				t.Errorf("the page does not list purchase %d", ids[i])
			}
			r := e.get("/api/v2/customers/"+url.PathEscape(addr), e.ro)
			var c struct {
				Email     string `json:"email"`
				Purchases int    `json:"purchases"`
			}
			if r.status != 200 {
				t.Fatalf("API: got %d %s", r.status, r.body)
			}
			r.json(t, &c)
			checkCustomerAnswer(t, r)
			if c.Email != addr || c.Purchases != 1 {
				t.Errorf("API: got %s", r.body)
			}
			n := staff.post(link+"/notes", url.Values{"body": {"note on " + addr}, "back": {link}})
			if n.status != http.StatusSeeOther || n.header.Get("Location") != link+"#notes" {
				t.Fatalf("note: got %d to %q", n.status, n.header.Get("Location"))
			}
			if !strings.Contains(string(staff.get(link, false).body), html.EscapeString("note on "+addr)) {
				t.Errorf("the page lacks the note")
			}
		})
	}
	// A path that stops inside an address names another customer, or none.
	if r := staff.get("/customers/a", false); r.status != http.StatusNotFound {
		t.Errorf("/customers/a: got %d, want 404", r.status)
	}
	wantError(t, e.get("/api/v2/customers/a", e.ro), 404, "NOTFOUND", "not_found", "")
}

// TestCustomerPage_Older: the activity, e-mails and notes of a customer show the newest
// 100 each, and "Older" reaches every older one, as a page and as htmx's swap of the
// list alone; a bad page is a 400.
func TestCustomerPage_Older(t *testing.T) {
	e := newAPI(t, 0)
	staff := e.signIn(e.id(1), "staff")
	email, ps := busiestCustomer(t, e)
	// The notes' author is the staff member (the first user, 1, of a fresh database).
	author := e.count("SELECT id FROM users WHERE account_id = ? AND email = ?", e.id(1), staff.email)
	const n = 230
	for i := range n {
		for _, q := range []string{
			`INSERT INTO purchase_activity (account_id, purchase_id, buyer_email, actor, action, details, created_at)
				VALUES (?, ?, ?, 'tests', 'reactivated', '{"to":"x@example.com"}', NOW())`,
			`INSERT INTO email_outbox (account_id, kind, purchase_id, to_address, subject, body, status, attempts, created_at, next_attempt_at)
				VALUES (?, 'purchase_ready', ?, ?, 'Your purchase', 'b', 'sent', 1, NOW(), NOW())`,
			`INSERT INTO notes (account_id, customer_email, author_id, author, body, created_at) VALUES (?, ?, ?, 'a@x.test', CONCAT('note ', ?), NOW())`,
		} {
			args := []any{e.id(1), ps[i%len(ps)].id, email}
			if strings.Contains(q, "INTO notes") {
				args = []any{e.id(1), email, author, i}
			}
			if _, err := e.db.Exec(q, args...); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := "/customers/" + url.PathEscape(email)
	for _, l := range []struct{ id string }{{"activity"}, {"emails"}, {"notes"}} {
		t.Run(l.id, func(t *testing.T) {
			seen := map[string]bool{}
			count := func(sec *html.Node) []string {
				var out []string
				var walk func(*html.Node)
				walk = func(x *html.Node) {
					if x.Type == html.ElementNode && x.Data == "li" {
						out = append(out, blockText(x))
					}
					for c := x.FirstChild; c != nil; c = c.NextSibling {
						walk(c)
					}
				}
				walk(sec)
				return out
			}
			// Whole pages, as a link without script opens them.
			next, pages, total := path, 0, 0
			for next != "" && pages < 10 {
				p := parsePage(t, staff.get(next, false))
				sec := p.byID(l.id)
				if sec == nil {
					t.Fatalf("%s: no #%s", next, l.id)
				}
				items := count(sec)
				if len(items) > 100 {
					t.Fatalf("%s: %d entries, want at most 100", next, len(items))
				}
				for _, it := range items {
					seen[it] = true
				}
				total += len(items)
				pages++
				next = ""
				if o := p.all(hasAttr("data-older", l.id)); len(o) == 1 {
					next, _ = attr(o[0], "href")
					next = strings.TrimSuffix(next, "#"+l.id)
				}
			}
			if pages != 3 {
				t.Errorf("%d pages of %d entries, want 3", pages, n)
			}
			if total != n || (l.id == "notes" && len(seen) != n) {
				t.Errorf("%d entries (%d distinct) reached, want %d", total, len(seen), n)
			}
			// htmx: the list alone, its older page in place.
			p := parsePage(t, staff.get(path, false))
			older, _ := attr(p.all(hasAttr("data-older", l.id))[0], "hx-get")
			req, _ := http.NewRequest("GET", e.url+older, nil)
			req.Header.Set("HX-Request", "true")
			req.Header.Set("HX-Target", l.id)
			r := staff.do(req)
			frag := parsePage(t, r)
			if r.status != 200 || frag.byID(l.id) == nil || frag.byID("purchases") != nil || len(count(frag.byID(l.id))) != 100 {
				t.Errorf("htmx older %s: got %d %.300s", l.id, r.status, r.body)
			}
			if len(frag.all(hasAttr("data-newest", l.id))) != 1 {
				t.Errorf("htmx older %s: no way back to the newest", l.id)
			}
			if r := staff.get(path+"?"+l.id+"=abc", false); r.status != http.StatusBadRequest {
				t.Errorf("a bad page: got %d, want 400", r.status)
			}
		})
	}
}

// checkCustomerAnswer fails the test when an answer of GET /api/v2/customers/{email}
// breaks the OpenAPI document (checkAnswer).
func checkCustomerAnswer(t *testing.T, r response) {
	t.Helper()
	doc, err := openapi.Parse(openapi.Document())
	if err != nil {
		t.Fatal(err)
	}
	checkAnswer(t, doc, "GET", "/customers/{email}", r)
}
