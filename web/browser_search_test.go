package web_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowser_Search types into the purchases page's Search box at phone and desktop
// widths: the filter fields follow the box, the box follows the fields, the address
// carries the query, and a query that cannot be read is shown at the box.
func TestBrowser_Search(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	tb := signedInTab(t, browser, e.url, "/purchases", e.newUser(1, "staff"))
	tb.atViewports(t, "/purchases", func(t *testing.T, v viewport) {
		tb.do(t, "type a search", chromedp.SendKeys(byLabel("Search"), "status:rfd"))
		tb.waitFor(t, "the fields and the address to follow the box",
			`location.search === '?q=status%3ARFD' && document.querySelector('#filters input[name=status][value=RFD]').checked && !document.querySelector('#filters input[name=status][value=ACT]').checked`,
			`location.search + ' ' + document.querySelector('#filters').outerHTML.slice(0, 300)`)
		if got := eval[string](t, tb, `document.activeElement && document.activeElement.id`); got != "f-q" {
			t.Errorf("focus after the fields followed: got %q, want the box", got)
		}

		tb.do(t, "tick Pending", chromedp.Click(chromedp.JSPath(`document.querySelector('#filters input[name=status][value=PND]')`)))
		tb.waitFor(t, "the box to follow the fields", `document.querySelector('#f-q').value === 'status:PND,RFD' && location.search === '?q=status%3APND%2CRFD'`,
			`document.querySelector('#f-q').value + ' ' + location.search`)
		tb.screenshot(t, "purchases-search", v)

		eval[bool](t, tb, `(document.querySelector('#f-q').value = '', true)`)
		tb.do(t, "type a query with a typo", chromedp.SendKeys(byLabel("Search"), "emial:zoe"))
		tb.waitFor(t, "the message at the box",
			`document.querySelector('#q-error').textContent.includes('unknown field "emial" at 1: did you mean "email"?') && document.querySelector('#f-q').getAttribute('aria-invalid') === 'true' && !document.querySelector('#results table')`,
			`document.querySelector('#search-field').outerHTML.slice(0, 600)`)
		if got := eval[string](t, tb, `document.querySelector('#f-q').value`); got != "emial:zoe" {
			t.Errorf("the box after the message: got %q, want the text as typed", got)
		}
		tb.screenshot(t, "purchases-search-error", v)
	})
	tb.checkConsole(t)
}
