package web_test

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestFindSuggestions checks the header Find box's listbox, asked for as the user
// types: a purchase number offers the purchase and then its buyer; a name offers the
// addresses that person bought under; the last option is always the Find page with
// the text; one character, blanks, or text that cannot be searched offer nothing; and
// another account is never offered account 1's records.
func TestFindSuggestions(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	other := e.signIn(e.id(2), "owner")
	var id int64
	var email, first, last string
	if err := e.db.QueryRow(`SELECT id, buyer_email, buyer_firstname, buyer_lastname FROM purchases WHERE account_id = ?
		AND buyer_email REGEXP '^[a-z0-9._]+@[a-z0-9.]+$' AND buyer_firstname REGEXP '^[A-Za-z]{3,}$' AND buyer_lastname REGEXP '^[A-Za-z]{3,}$'
		ORDER BY id DESC LIMIT 1`, e.id(1)).Scan(&id, &email, &first, &last); err != nil {
		t.Fatal(err)
	}
	hrefs := func(u *dashUser, q string) []string {
		t.Helper()
		r := u.get("/find/suggest?q="+url.QueryEscape(q), true)
		if r.status != 200 || !strings.Contains(string(r.body), `id="find-suggest"`) {
			t.Fatalf("%q: got %d %.300s, want the listbox", q, r.status, r.body)
		}
		var out []string
		for _, m := range regexp.MustCompile(`role="option"[^>]*data-href="([^"]*)"`).FindAllStringSubmatch(string(r.body), -1) {
			out = append(out, html.UnescapeString(m[1]))
		}
		return out
	}
	findPage := func(q string) string { return "/find?" + url.Values{"q": {q}}.Encode() }
	customer := "/customers/" + url.PathEscape(email)

	q := fmt.Sprintf("#%d", id)
	if got := hrefs(u, q); len(got) != 3 || got[0] != fmt.Sprintf("/purchases/%d", id) || got[1] != customer || got[2] != findPage(q) {
		t.Errorf("%q: got %q, want the purchase, its buyer and the Find page", q, got)
	}
	q = first + " " + last
	if got := hrefs(u, q); len(got) < 2 || len(got) > 6 || !strings.Contains(strings.Join(got, " "), customer) || got[len(got)-1] != findPage(q) {
		t.Errorf("%q: got %q, want at most 5 buyers, %s among them, then the Find page", q, got, customer)
	}
	for _, q := range []string{"", "a", "   ", "\xff\xfe", strings.Repeat("a", 600)} {
		if got := hrefs(u, q); len(got) != 0 {
			t.Errorf("%q: got %q, want nothing offered", q, got)
		}
	}
	for _, q := range []string{fmt.Sprintf("#%d", id), email, first + " " + last} {
		for _, h := range hrefs(other, q) {
			if h == fmt.Sprintf("/purchases/%d", id) || h == customer {
				t.Errorf("%q: account 2 is offered account 1's %s", q, h)
			}
		}
	}
}
