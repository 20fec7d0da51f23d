package web_test

import (
	"html"
	"net/url"
	"strings"
	"testing"
)

// searchErrors are the faults the search language names (docs/SEARCH.md#errors), each
// with the message every list answers: the position, the text at fault and what was
// expected.
var searchErrors = []struct {
	name, purchases, subscribers, msg string
}{
	{"UnknownField", "emial:zoe", "emial:zoe", `unknown field "emial" at 1: did you mean "email"?`},
	{"NotADate", `created>"last mundane"`, `started>"last mundane"`, `"last mundane" at 9 is not a date`},
	{"TooLong", strings.Repeat("a ", 256) + "zoë", strings.Repeat("a ", 256) + "zoë",
		`the query is 515 characters long: "zoë" at 513 is past the limit of 512 characters`},
	{"TooManyClauses", strings.Repeat("a ", 20) + "email:zoe", strings.Repeat("a ", 20) + "email:zoe",
		`"email:zoe" at 41 is clause 21: at most 20 clauses are allowed (bare words count)`},
	{"TooManyBranches", "(a OR b) (c OR d) (e OR f) OR g", "(a OR b) (c OR d) (e OR f) OR g",
		`"g" at 31 takes the query past 8 alternatives (OR branches, with negations expanded): at most 8 are allowed`},
	{"TooDeep", "((((a))))", "((((a))))", `"(" at 4 nests deeper than 3 levels of parentheses`},
}

// TestSearch_Errors sends each fault of the language to every list that reads a
// search: the API's lists and exports answer 400 invalid_parameter naming q with the
// message, and without Storefront-Query (nothing was understood); the dashboard's lists
// show the message at the Search box, on the page and in the htmx fragment, and list
// nothing. A field of the other list is such a fault too.
func TestSearch_Errors(t *testing.T) {
	e := newAPI(t, 0)
	u := e.signIn(e.id(1), "viewer")
	cases := searchErrors
	cases = append(cases, struct{ name, purchases, subscribers, msg string }{"SubscriberFieldOnPurchases", "status:act username:ann@example.com", "", `unknown field "username" at 12: username is a subscriber field, not a purchase field; purchase fields are id, status, product, storefront, customer, subscriber, email, first, last, name, domain, currency, total, created, ship, is, ref, key`},
		struct{ name, purchases, subscribers, msg string }{"PurchaseFieldOnSubscribers", "", "status:active domain:acme.io", `unknown field "domain" at 15: domain is a purchase field, not a subscriber field; subscriber fields are id, status, email, username, started, ended, active`})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := e.with(t)
			type target struct{ query, api, csv, page, all string }
			var targets []target
			if c.purchases != "" {
				targets = append(targets, target{c.purchases, "/api/v2/purchases", "/api/v2/purchases.csv", "/purchases", ""})
			}
			if c.subscribers != "" {
				targets = append(targets, target{c.subscribers, e.path("/api/v2/storefronts/%d/subscribers", 1), e.path("/api/v2/storefronts/%d/subscribers.csv", 1), e.path("/storefronts/%d/subscribers", 1), "/subscribers/all"})
			}
			for _, tg := range targets {
				qs := "?q=" + url.QueryEscape(tg.query)
				for _, path := range []string{tg.api, tg.csv} {
					r := e.get(path+qs, e.ro)
					eb := wantError(t, r, 400, "INVALID", "invalid_parameter", "q")
					if eb.Error.Message != c.msg {
						t.Errorf("%s: message %q, want %q", path, eb.Error.Message, c.msg)
					}
					if _, ok := r.header["Storefront-Query"]; ok {
						t.Errorf("%s: an unreadable search answers with Storefront-Query", path)
					}
				}
				want := html.EscapeString(c.msg)
				for _, page := range []string{tg.page, tg.all} {
					if page == "" {
						continue
					}
					for _, htmx := range []bool{false, true} {
						var r response
						if htmx {
							r = u.getFrom(page+qs, "search")
						} else {
							r = u.get(page+qs, false)
						}
						// A page marks the box invalid; a fragment swaps the message in
						// (static/app.js marks the box).
						body := string(r.body)
						mark := `aria-invalid="true"`
						if htmx {
							mark = `hx-swap-oob="true"`
						}
						if !strings.Contains(body, want) || !strings.Contains(body, mark) {
							t.Errorf("%s (htmx %v): %d, the box does not show %q", page, htmx, r.status, c.msg)
						}
						if strings.Contains(body, "<table") {
							t.Errorf("%s (htmx %v): an unreadable search lists rows", page, htmx)
						}
					}
				}
			}
		})
	}
}
