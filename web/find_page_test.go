package web_test

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFindPage checks the header's Find box: what a text names exactly (a purchase by
// "#id" or its id with blanks around, by a payment reference or a product key in
// another letter case; a customer by a From line pasted whole), the purchases and
// subscribers lists that read it as their search with what they hold, another
// account's records never named, and a text that cannot be searched answered with a
// message, not an error.
func TestFindPage(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	other := e.signIn(e.id(2), "owner")

	var id int64
	var ref, key, addr string
	if err := e.db.QueryRow(`SELECT t.purchase_id, t.reference FROM transactions t WHERE t.account_id = ? AND t.reference REGEXP '^[A-Za-z0-9_]{8,}$'
		AND t.reference REGEXP '[0-9]' ORDER BY t.id LIMIT 1`, e.id(1)).Scan(&id, &ref); err != nil {
		t.Fatal(err)
	}
	var keyID int64
	if err := e.db.QueryRow(`SELECT purchase_id, key_value FROM product_keys WHERE account_id = ? AND key_value REGEXP '[0-9]'
		ORDER BY purchase_id DESC, line_item_id LIMIT 1`, e.id(1)).Scan(&keyID, &key); err != nil {
		t.Fatal(err)
	}
	var bought int
	if err := e.db.QueryRow(`SELECT buyer_email, COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email REGEXP '^[a-z0-9._]+@[a-z0-9.]+$'
		GROUP BY buyer_email ORDER BY COUNT(*) DESC, buyer_email LIMIT 1`, e.id(1)).Scan(&addr, &bought); err != nil {
		t.Fatal(err)
	}
	find := func(u *dashUser, q string) string {
		t.Helper()
		r := u.get("/find?q="+url.QueryEscape(q), false)
		if r.status != 200 {
			t.Fatalf("%q: %d %.300s", q, r.status, r.body)
		}
		return string(r.body)
	}
	hit := func(path string) string { return `href="` + html.EscapeString(path) + `"` }

	if body := string(u.get("/purchases", false).body); !strings.Contains(body, `action="/find"`) {
		t.Error("the purchases page has no Find box in its header")
	}
	for _, tt := range []struct{ q, hit, detail string }{
		{fmt.Sprintf("#%d", id), fmt.Sprintf("/purchases/%d", id), ""},
		{fmt.Sprintf("  %d \t", id), fmt.Sprintf("/purchases/%d", id), ""},
		{strings.ToLower(ref), fmt.Sprintf("/purchases/%d", id), "payment reference " + ref},
		{strings.ToLower(key), fmt.Sprintf("/purchases/%d", keyID), "product key " + key},
		{`"Ann O'Neil" <` + strings.ToUpper(addr) + ">", "/customers/" + url.PathEscape(addr), fmt.Sprintf("%d purchases", bought)},
	} {
		body := find(u, tt.q)
		if !strings.Contains(body, `id="find-hits"`) || !strings.Contains(body, hit(tt.hit)) || !strings.Contains(body, html.EscapeString(tt.detail)) {
			t.Errorf("%q: no hit %s (%s) in %.600s", tt.q, tt.hit, tt.detail, body[max(0, strings.Index(body, "<h1")):])
		}
		// Another account's purchase or customer is never named.
		if body := find(other, tt.q); strings.Contains(body, hit(tt.hit)) {
			t.Errorf("%q: account 2 is shown account 1's %s", tt.q, tt.hit)
		}
	}

	// A number is a subscriber's id too, on whichever storefront, not with "#" (a
	// purchase's mark); never another account's.
	var subID, subSF int64
	var subName string
	if err := e.db.QueryRow(`SELECT id, storefront_id, username FROM subscribers WHERE account_id = ? AND storefront_id <> ? ORDER BY id DESC LIMIT 1`,
		e.id(1), e.id(1)).Scan(&subID, &subSF, &subName); err != nil {
		t.Fatal(err)
	}
	subURL := fmt.Sprintf("/storefronts/%d/subscribers/%d", subSF, subID)
	if body := find(u, strconv.FormatInt(subID, 10)); !strings.Contains(body, hit(subURL)) || !strings.Contains(body, html.EscapeString(subName)) ||
		!strings.Contains(body, fmt.Sprintf("subscriber %d · ", subID)) {
		t.Errorf("%d: no hit of the subscriber %s in %.600s", subID, subURL, body[max(0, strings.Index(body, "<h1")):])
	}
	if body := find(u, fmt.Sprintf("#%d", subID)); strings.Contains(body, hit(subURL)) {
		t.Errorf("#%d names the subscriber: # marks a purchase", subID)
	}
	if body := find(other, strconv.FormatInt(subID, 10)); strings.Contains(body, hit(subURL)) {
		t.Errorf("%d: account 2 is shown account 1's subscriber", subID)
	}
	if r := u.get("/find/suggest?q="+strconv.FormatInt(subID, 10), true); !strings.Contains(string(r.body), `data-href="`+subURL+`"`) {
		t.Errorf("%d: typing ahead offers no subscriber", subID)
	}

	// The lists read the text as their search: a From line as its address.
	body := find(u, `"Ann" <`+addr+">")
	purchases := "/purchases?q=" + url.QueryEscape("email:"+addr)
	if !strings.Contains(body, hit(purchases)) || !strings.Contains(body, fmt.Sprintf("%d purchases</a>", bought)) || !strings.Contains(body, "read as email:"+addr) {
		t.Errorf("a From line: want %d purchases read as email:%s, linking to %s, in %.800s", bought, addr, purchases, body[max(0, strings.Index(body, "find-lists")):])
	}
	// A name's first letters: nothing named exactly, the lists' counts as the lists show them.
	var first string
	if err := e.db.QueryRow("SELECT LEFT(buyer_firstname, 3) FROM purchases WHERE account_id = ? AND buyer_firstname REGEXP '^[A-Za-z]{3}' ORDER BY id LIMIT 1", e.id(1)).Scan(&first); err != nil {
		t.Fatal(err)
	}
	body = find(u, first)
	if !strings.Contains(body, "No purchase or subscriber id, payment reference, product key or customer address is this text.") {
		t.Errorf("%q: want nothing named exactly", first)
	}
	list := string(u.get("/purchases?q="+url.QueryEscape(first), false).body)
	const count = `<span class="font-semibold text-slate-900">`
	i := strings.Index(list, count)
	if i < 0 {
		t.Fatalf("the purchases list of %q shows no count", first)
	}
	n := list[i+len(count) : i+len(count)+strings.Index(list[i+len(count):], "<")]
	if !strings.Contains(body, hit("/purchases?q="+url.QueryEscape(first))+` class="font-medium text-indigo-700 hover:text-indigo-900">`+n+" purchase") {
		t.Errorf("%q: want the list's count %s linking to it, in %.800s", first, n, body[max(0, strings.Index(body, "find-lists")):])
	}

	// Who bought the purchases found: their addresses, newest first, with how many of
	// the purchases found are theirs, each linking to the customer's page.
	var firstName, lastName string
	if err := e.db.QueryRow(`SELECT buyer_firstname, buyer_lastname FROM purchases WHERE account_id = ?
		AND buyer_firstname REGEXP '^[A-Za-z]{3,}$' AND buyer_lastname REGEXP '^[A-Za-z]{3,}$' AND buyer_email <> ''
		GROUP BY buyer_firstname, buyer_lastname HAVING COUNT(DISTINCT buyer_email) > 1 AND COUNT(*) <= 100
		ORDER BY COUNT(*) DESC, buyer_firstname LIMIT 1`, e.id(1)).Scan(&firstName, &lastName); err != nil {
		t.Fatal(err)
	}
	q := "first:" + firstName + " last:" + lastName
	rows, err := e.db.Query(`SELECT buyer_email, COUNT(*) FROM purchases WHERE account_id = ? AND buyer_firstname LIKE ? AND buyer_lastname LIKE ?
		AND buyer_email <> '' GROUP BY buyer_email ORDER BY MAX(created_at) DESC, MAX(id) DESC LIMIT 8`, e.id(1), firstName+"%", lastName+"%")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for rows.Next() {
		var email string
		var n int
		if err := rows.Scan(&email, &n); err != nil {
			t.Fatal(err)
		}
		noun := "purchases"
		if n == 1 {
			noun = "purchase"
		}
		want = append(want, hit("/customers/"+url.PathEscape(email))+".*?"+fmt.Sprintf("%d %s found", n, noun))
	}
	if err := rows.Err(); err != nil || len(want) < 2 {
		t.Fatalf("%q: %d buyers (%v)", q, len(want), err)
	}
	body = find(u, q)
	section := body[max(0, strings.Index(body, `id="find-customers"`)):]
	section = section[:max(0, strings.Index(section, "</ul>"))]
	if !regexp.MustCompile("(?s)"+strings.Join(want, ".*?")).MatchString(section) || strings.Count(section, "<li") != len(want) {
		t.Errorf("%q: want the buyers %q in that order, got %.1500s", q, want, section)
	}
	if strings.Contains(body, `id="find-customers-note"`) {
		t.Errorf("%q: every buyer is listed, yet the page says otherwise", q)
	}
	// A customer named exactly is not listed again as a buyer.
	if body := find(u, addr); strings.Contains(body, `id="find-customers"`) {
		t.Errorf("%s: the customer named exactly is listed again among the buyers", addr)
	}
	// Beyond the purchases read, the page says whose buyers it lists.
	if body := find(u, "status:act"); strings.Count(body, `<li><a href="/customers/`) != 8 ||
		!strings.Contains(body, "The buyers of the newest 100 of the ") {
		t.Errorf("status:act: want 8 buyers and a note on the others, in %.2000s", body[max(0, strings.Index(body, "find-customers")):])
	}
	if body := find(other, q); strings.Contains(body, `id="find-customers"`) && strings.Contains(body, want[0][:strings.Index(want[0], ".*?")]) {
		t.Errorf("%q: account 2 is shown account 1's buyers", q)
	}

	// A sentence about an order, which the language refuses (a comma) or which finds
	// nothing word by word, is read as the purchases list's box reads it: the domain, a
	// date and "not refunded" at once, with its count and its buyers.
	var domain string
	if err := e.db.QueryRow(`SELECT SUBSTRING_INDEX(buyer_email, '@', -1) FROM purchases
		WHERE account_id = ? AND buyer_email LIKE '%_@_%' AND status <> 'RFD' ORDER BY id LIMIT 1`, e.id(1)).Scan(&domain); err != nil {
		t.Fatal(err)
	}
	var kept int64
	var latest string
	if err := e.db.QueryRow(`SELECT COUNT(*), (SELECT buyer_email FROM purchases WHERE account_id = ? AND buyer_email LIKE ? AND status <> 'RFD' ORDER BY created_at DESC, id DESC LIMIT 1)
		FROM purchases WHERE account_id = ? AND buyer_email LIKE ? AND status <> 'RFD' AND created_at >= '2000-01-01'`,
		e.id(1), "%@"+domain, e.id(1), "%@"+domain).Scan(&kept, &latest); err != nil {
		t.Fatal(err)
	}
	meant := "domain:" + domain + " created>=2000-01-01 -status:RFD"
	for _, q := range []string{"the " + domain + " order since 2000-01-01, not refunded", "the " + domain + " order since 2000-01-01 not refunded"} {
		body := find(u, q)
		want := hit("/purchases?q="+url.QueryEscape(meant)) + ` class="font-medium text-indigo-700 hover:text-indigo-900">` + findCount(kept)
		if !strings.Contains(body, want) || !strings.Contains(body, html.EscapeString("read as "+meant)) ||
			!strings.Contains(body, `<ul id="find-customers" class="divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white"><li><a href="`+html.EscapeString("/customers/"+url.PathEscape(latest))+`"`) {
			t.Errorf("%q: want %s read as %s, first buyer %s, in %.1500s", q, findCount(kept), meant, latest, body[max(0, strings.Index(body, "<h1")):])
		}
	}

	// Nothing to search, or a text that cannot be: a message, never an error.
	for _, q := range []string{"", "   ", "\xff\xfe", strings.Repeat("a", 600)} {
		r := u.get("/find?q="+url.QueryEscape(q), false)
		if r.status != 200 || !strings.Contains(string(r.body), `id="find-message"`) {
			t.Errorf("%q: got %d, want the page with a message", q, r.status)
		}
	}
}

// findCount is how the Find page counts purchases below its cap.
func findCount(n int64) string {
	if n == 1 {
		return "1 purchase"
	}
	return fmt.Sprintf("%d purchases", n)
}
