package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowser_AuditLog opens Account → Audit log from Keys & users at both sizes,
// filters it by action and a free-form date, is told which date cannot be read, and
// finds the page whole at 390 px (the table scrolls within its frame); axe and the
// console are clean.
func TestBrowser_AuditLog(t *testing.T) {
	br := startBrowser(t)
	e := newAPI(t, 0)
	staff := e.signIn(e.id(1), "staff")
	for i := range 3 {
		staff.post("/purchases/views", url.Values{"name": {fmt.Sprintf("Browser view %d", i)}, "query": {"status=RFD"}})
	}
	email := e.newUser(e.id(1), "owner")
	tb := signedInTab(t, br, e.url, "/account", email)
	tb.atViewports(t, "/account", func(t *testing.T, v viewport) {
		if st := tb.follow(t, "open the audit log", chromedp.Click(chromedp.JSPath(withHelpers(`[...document.querySelectorAll('a')].find(a => a.textContent.trim() === 'Audit log')`)))); st != http.StatusOK {
			t.Fatalf("audit log: %d", st)
		}
		tb.waitFor(t, "the records", `location.pathname === '/account/audit' && document.querySelectorAll('tr[data-record]').length > 0`, `document.body.innerText`)
		tb.checkAxe(t, "the audit log at "+v.name)
		if over := eval[bool](t, tb, `document.documentElement.scrollWidth > window.innerWidth`); over {
			t.Errorf("the page is wider than the window at %s", v.name)
		}

		tb.do(t, "choose the action and a date",
			chromedp.SetValue(byLabel("Action"), "view_saved"),
			chromedp.SendKeys(byLabel("From"), "yesterday"))
		if st := tb.follow(t, "filter", chromedp.Click(buttonByText("Filter"))); st != http.StatusOK {
			t.Fatalf("filter: %d", st)
		}
		actions := eval[[]string](t, tb, `[...document.querySelectorAll('tr[data-record] td:nth-child(3)')].map(text)`)
		if len(actions) != 3 {
			t.Fatalf("%d rows after filtering, want the 3 saved views: %v", len(actions), actions)
		}
		for _, a := range actions {
			if a != "View saved" {
				t.Errorf("a row of %q", a)
			}
		}
		if hint := eval[string](t, tb, `text(document.getElementById('a-date_min-hint'))`); hint == "" {
			t.Error("the date's reading is not shown")
		}
		tb.checkAxe(t, "the filtered audit log at "+v.name)
		tb.screenshot(t, "audit-log", v)

		eval[string](t, tb, `document.getElementById('a-date-min').value = ''`)
		tb.do(t, "a date that cannot be read", chromedp.SendKeys(byLabel("From"), "next blursday"))
		if st := tb.follow(t, "filter", chromedp.Click(buttonByText("Filter"))); st != http.StatusBadRequest {
			t.Fatalf("a bad date: %d", st)
		}
		if msg := eval[string](t, tb, `text(document.getElementById('audit-error'))`); msg == "" {
			t.Fatal("no message for the bad date")
		}
		if inv := eval[string](t, tb, `document.getElementById('a-date-min').getAttribute('aria-invalid')`); inv != "true" {
			t.Errorf("the bad date's field: aria-invalid %q", inv)
		}
		tb.checkAxe(t, "the audit log with a bad date at "+v.name)
		// The refusal is a 400, which the browser reports; nothing else is.
		tb.checkConsole(t, failedLoad{http.StatusBadRequest, e.url + "/account/audit?actor=&action=view_saved&date_min=next+blursday&date_max="})
	})
}
