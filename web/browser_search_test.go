package web_test

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowser_Search types into the purchases page's Search box at phone and desktop
// widths: the filter fields follow the box, the box follows the fields, the address
// carries the query, and a query that cannot be read is shown at the box.
func TestBrowser_Search(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	tb := signedInTab(t, browser, e.url, "/purchases", e.newUser(e.id(1), "staff"))
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

		// A suggestion chosen by keyboard alone: the arrow keys, then Enter.
		eval[bool](t, tb, `(document.querySelector('#f-q').value = '', true)`)
		tb.do(t, "type the start of a field", chromedp.SendKeys(byLabel("Search"), "statu"))
		tb.waitFor(t, "the suggestions", `document.querySelector('#f-q').getAttribute('aria-expanded') === 'true' && document.querySelectorAll('#q-suggestions [role=option]').length > 0`,
			`document.querySelector('#q-suggestions').outerHTML.slice(0, 400)`)
		tb.do(t, "press the down arrow", chromedp.KeyEvent(kb.ArrowDown))
		if got := eval[string](t, tb, `document.querySelector('#f-q').getAttribute('aria-activedescendant') + ' ' + document.querySelector('#q-opt-0').getAttribute('aria-selected')`); got != "q-opt-0 true" {
			t.Errorf("after the down arrow: got %q, want the first option active", got)
		}
		tb.screenshot(t, "purchases-search-suggestions", v)
		axeCheck(t, tb, "#search")
		tb.do(t, "press Enter", chromedp.KeyEvent(kb.Enter))
		// The chosen field's own values may already be offered again (the box asks
		// for suggestions of its new text).
		tb.waitFor(t, "the box to take the suggestion", `document.querySelector('#f-q').value === 'status:' && (document.querySelector('#f-q').getAttribute('aria-expanded') === 'false' || [...document.querySelectorAll('#q-suggestions [role=option]')].every(o => o.dataset.value.startsWith('status:')))`,
			`document.querySelector('#f-q').value`)
		tb.do(t, "type a status", chromedp.SendKeys(byLabel("Search"), "ac"))
		// The list of the text typed, not the one of "status:" still showing: ACT alone.
		tb.waitFor(t, "the status suggestion", `(o => o.length > 0 && o.every(o => o.dataset.value === 'status:ACT '))([...document.querySelectorAll('#q-suggestions [role=option]')])`,
			`document.querySelector('#q-suggestions').outerHTML.slice(0, 400)`)
		tb.do(t, "choose it", chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter))
		tb.waitFor(t, "the fields to follow the chosen suggestion", `location.search === '?q=status%3AACT' && document.querySelector('#filters input[name=status][value=ACT]').checked`,
			`location.search + ' ' + document.querySelector('#f-q').value`)
		tb.do(t, "type again, then Escape", chromedp.SendKeys(byLabel("Search"), "cur"))
		tb.waitFor(t, "the field suggestion", `document.querySelector('#f-q').getAttribute('aria-expanded') === 'true'`, `document.querySelector('#q-suggestions').outerHTML.slice(0, 300)`)
		tb.do(t, "press Escape", chromedp.KeyEvent(kb.Escape))
		if got := eval[string](t, tb, `document.querySelector('#f-q').getAttribute('aria-expanded') + ' ' + document.querySelector('#q-suggestions').hidden + ' ' + document.querySelector('#f-q').value`); got != "false true status:ACT cur" {
			t.Errorf("after Escape: got %q, want the list closed and the text kept", got)
		}

		eval[bool](t, tb, `(document.querySelector('#f-q').value = '', true)`)
		tb.do(t, "type a query with a typo", chromedp.SendKeys(byLabel("Search"), "emial:zoe"))
		tb.waitFor(t, "the message at the box",
			`document.querySelector('#q-error').textContent.includes('unknown field "emial" at 1: did you mean "email"?') && document.querySelector('#f-q').getAttribute('aria-invalid') === 'true' && !document.querySelector('#results table')`,
			`document.querySelector('#search-field').outerHTML.slice(0, 600)`)
		if got := eval[string](t, tb, `document.querySelector('#f-q').value`); got != "emial:zoe" {
			t.Errorf("the box after the message: got %q, want the text as typed", got)
		}
		tb.screenshot(t, "purchases-search-error", v)
		axeCheck(t, tb, "#search")
		axeCheck(t, tb, "#filters")
	})
	tb.checkConsole(t)
}

// TestBrowser_SearchSubscribers works the subscribers list's Search box by keyboard
// alone at phone and desktop widths: suggestions of fields and statuses chosen with the
// arrow keys and Enter, the fields and the address following the box, the box
// following the fields, a field the search sets in a way it cannot show, and the API
// request panel holding the same query.
func TestBrowser_SearchSubscribers(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	subs := e.path("/storefronts/%d/subscribers", 1)
	tb := signedInTab(t, browser, e.url, subs, e.newUser(e.id(1), "viewer"))
	tb.atViewports(t, subs, func(t *testing.T, v viewport) {
		tb.do(t, "type the start of a field", chromedp.SendKeys(byLabel("Search"), "sta"))
		tb.waitFor(t, "the suggestions", `document.querySelector('#f-q').getAttribute('aria-expanded') === 'true' && document.querySelector('#q-opt-0')`,
			`document.querySelector('#q-suggestions').outerHTML.slice(0, 400)`)
		tb.do(t, "press the down arrow", chromedp.KeyEvent(kb.ArrowDown))
		if got := eval[string](t, tb, `document.querySelector('#f-q').getAttribute('aria-activedescendant') + ' ' + document.querySelector('#q-opt-0').dataset.value`); got != "q-opt-0 status:" {
			t.Errorf("after the down arrow: got %q, want status: active", got)
		}
		tb.screenshot(t, "subscribers-search-suggestions", v)
		axeCheck(t, tb, "#search")
		tb.do(t, "press Enter", chromedp.KeyEvent(kb.Enter))
		tb.waitFor(t, "the box to take the field", `document.querySelector('#f-q').value === 'status:' && (document.querySelector('#f-q').getAttribute('aria-expanded') === 'false' || [...document.querySelectorAll('#q-suggestions [role=option]')].every(o => o.dataset.value.startsWith('status:')))`,
			`document.querySelector('#f-q').value`)
		tb.do(t, "type the start of a status", chromedp.SendKeys(byLabel("Search"), "tr"))
		// The list of the text typed, not the one of "status:" still showing: TRIAL alone.
		tb.waitFor(t, "the status suggestion", `(o => o.length > 0 && o.every(o => o.dataset.value === 'status:TRIAL '))([...document.querySelectorAll('#q-suggestions [role=option]')])`,
			`document.querySelector('#q-suggestions').outerHTML.slice(0, 400)`)
		tb.do(t, "choose it by keyboard", chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter))
		tb.waitFor(t, "the fields, the list and the address to follow the box",
			`location.search === '?q=status%3ATRIAL' && document.querySelector('#filters input[name=status][value=TRIAL]').checked &&
				!document.querySelector('#filters input[name=status][value=ACTIVE]').checked && results().length > 0 && results().every(r => r.status === 'Trial')`,
			`location.search + ' ' + document.querySelector('#filters').outerHTML.slice(0, 300)`)
		if got := eval[string](t, tb, `document.activeElement && document.activeElement.id`); got != "f-q" {
			t.Errorf("focus after the fields followed: got %q, want the box", got)
		}
		tb.do(t, "type again, then Escape", chromedp.SendKeys(byLabel("Search"), "ema"))
		tb.waitFor(t, "the field suggestion", `document.querySelector('#f-q').getAttribute('aria-expanded') === 'true'`, `document.querySelector('#q-suggestions').outerHTML.slice(0, 300)`)
		tb.do(t, "press Escape", chromedp.KeyEvent(kb.Escape))
		if got := eval[string](t, tb, `document.querySelector('#f-q').getAttribute('aria-expanded') + ' ' + document.querySelector('#q-suggestions').hidden`); got != "false true" {
			t.Errorf("after Escape: got %q, want the list closed", got)
		}
		eval[bool](t, tb, `(() => { const q = document.querySelector('#f-q'); q.value = 'status:TRIAL'; q.dispatchEvent(new Event('input', {bubbles: true})); return true; })()`)
		time.Sleep(500 * time.Millisecond) // the box's delay: its request is on its way
		tb.waitFor(t, "the search without the word typed", `location.search === '?q=status%3ATRIAL' && !document.querySelector('.htmx-request') && !document.querySelector('#filters input[name=q]')`,
			`location.search + ' ' + document.querySelector('#filters').outerHTML.slice(0, 300)`)

		// The box follows the fields.
		tb.do(t, "tick Active", chromedp.Click(chromedp.JSPath(`document.querySelector('#filters input[name=status][value=ACTIVE]')`)))
		tb.waitFor(t, "the box and the address to follow the fields",
			`document.querySelector('#f-q').value === 'status:TRIAL,ACTIVE' && location.search === '?q=status%3ATRIAL%2CACTIVE'`,
			`document.querySelector('#f-q').value + ' ' + location.search`)
		tb.do(t, "type in Receiving service at", chromedp.SendKeys(byLabel("Receiving service at"), "today"))
		tb.waitFor(t, "the box to say it as an instant",
			`document.querySelector('#f-q').value === 'status:TRIAL,ACTIVE active:"today 00:00:00"' && new URL(location.href).searchParams.get('q') === document.querySelector('#f-q').value`,
			`document.querySelector('#f-q').value + ' ' + location.search`)

		// A whole day is the search's alone: the field says so.
		eval[bool](t, tb, `(document.querySelector('#f-q').value = '', true)`)
		tb.do(t, "type a search the field cannot show", chromedp.SendKeys(byLabel("Search"), "active:today"))
		tb.waitFor(t, "the field to be set by the search",
			`location.search === '?q=active%3Atoday' && document.querySelector('#f-receiving_at').disabled && text(document.querySelector('label[for=f-receiving_at]')).includes('(set by the search)') && !document.querySelector('#filters input[name=status]:checked')`,
			`location.search + ' ' + document.querySelector('#filters').outerHTML.slice(0, 300)`)

		// The API request panel holds the one query.
		tb.do(t, "open API request", chromedp.Click(chromedp.CSS(`#api-request > summary`)))
		tb.waitFor(t, "the query in the panel", `document.querySelector('#api-request').open && text(document.querySelector('#api-request-q')) === 'active:today' &&
			text(document.querySelector('#api-request-dates')).startsWith('"today"=') && text(document.querySelector('#api-request-list')).includes('q=active%3Atoday')`,
			`text(document.querySelector('#api-request'))`)
		tb.screenshot(t, "subscribers-search", v)
		tb.checkAxe(t, "the subscribers list")
	})
	tb.checkConsole(t)
}

// axeCheck runs axe-core (npm's devDependency) on the part of the page the selector
// names, and fails on any WCAG 2 A or AA violation.
func axeCheck(t *testing.T, tb *tab, selector string) {
	t.Helper()
	tb.runAxe(t, selector, js(selector), "{runOnly: ['wcag2a', 'wcag2aa']}")
}
