package web_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowser_Find goes to the header's Find box with "/" from a page, at phone and
// desktop widths, types a purchase's "#id" and Enter: the Find page names the purchase
// and links to it, and passes axe. "/" typed in a field stays a character. Typed again,
// the box offers the purchase as the user types; ArrowDown and Enter open it.
func TestBrowser_Find(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	var id int64
	if err := e.db.QueryRow("SELECT id FROM purchases WHERE account_id = ? ORDER BY id DESC LIMIT 1", e.id(1)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	tb := signedInTab(t, browser, e.url, "/purchases", e.newUser(e.id(1), "viewer"))
	tb.atViewports(t, "/purchases", func(t *testing.T, v viewport) {
		tb.do(t, "type a slash in the Search box", chromedp.SendKeys(byLabel("Search"), "a/"))
		if got := eval[string](t, tb, `document.activeElement.id + ' ' + document.querySelector('#f-q').value`); got != "f-q a/" {
			t.Errorf("a slash typed in the Search box: got %q, want it typed there", got)
		}
		// "/" on the page, outside a field: the Find box takes the focus, and the key's
		// default (typing the slash) is cancelled. (The browser's own key events would
		// type it through a separate "char" event, which a page cannot cancel; a person's
		// key press is cancelled with its keydown.)
		got := eval[string](t, tb, `(() => {
			document.activeElement.blur();
			const typed = document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true, cancelable: true}));
			return document.activeElement.id + (typed ? ' typed' : ' cancelled');
		})()`)
		if got != "find-q cancelled" {
			t.Fatalf("after /: got %q, want the Find box focused and the slash cancelled", got)
		}
		tb.do(t, "type a purchase number and Enter", chromedp.KeyEvent(fmt.Sprintf("#%d", id)), chromedp.KeyEvent(kb.Enter))
		tb.waitFor(t, "the Find page naming the purchase",
			fmt.Sprintf(`location.pathname === '/find' && !!document.querySelector('#find-hits a[href="/purchases/%d"]')`, id),
			`location.href + ' ' + (document.querySelector('main') || document.body).innerText.slice(0, 300)`)
		axeCheck(t, tb, "main")
		tb.screenshot(t, "find", v)

		// As the user types, the box offers the purchase and its buyer; the arrow
		// keys and Enter open the purchase's page.
		tb.open(t, "/purchases")
		tb.do(t, "type a purchase number in the Find box", chromedp.Click(chromedp.JSPath(`document.querySelector("#find-q")`)), chromedp.SendKeys(chromedp.JSPath(`document.querySelector("#find-q")`), fmt.Sprintf("#%d", id)))
		tb.waitFor(t, "the purchase offered",
			fmt.Sprintf(`document.querySelector('#find-q').getAttribute('aria-expanded') === 'true' && !!document.querySelector('#find-suggest [role=option][data-href="/purchases/%d"]')`, id),
			`document.querySelector('#find-suggest') ? document.querySelector('#find-suggest').outerHTML.slice(0, 600) : 'no listbox'`)
		axeCheck(t, tb, "header")
		tb.screenshot(t, "find-typed", v)
		tb.do(t, "choose the first option", chromedp.KeyEvent(kb.ArrowDown))
		if got := eval[string](t, tb, `document.querySelector('#find-q').getAttribute('aria-activedescendant') + ' ' + document.querySelector('#find-opt-0').getAttribute('aria-selected')`); got != "find-opt-0 true" {
			t.Errorf("after ArrowDown: got %q, want the first option active", got)
		}
		tb.do(t, "Enter", chromedp.KeyEvent(kb.Enter))
		tb.waitFor(t, "the purchase's page", fmt.Sprintf(`location.pathname === '/purchases/%d'`, id), `location.href`)
	})
}
