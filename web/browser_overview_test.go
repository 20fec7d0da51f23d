package web_test

import (
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowser_Overview walks the overview at phone and desktop widths: the key figures
// under their headings, the chart with its data table behind "Show data", a figure
// followed to the purchases it counts; screenshots in testdata/screenshots. No page
// writes an error or a warning to the console (the CSP refuses inline styles and
// scripts, which the browser would report).
func TestBrowser_Overview(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	owner := signedInTab(t, browser, e.url, "/", e.newUser(e.id(1), "owner"))
	owner.atViewports(t, "/?date_min=-6+months&date_max=now", func(t *testing.T, v viewport) {
		for _, h := range []string{"Revenue", "Purchases", "Refunds", "Average order", "Active subscribers", "New subscribers", "Churned"} {
			if !eval[bool](t, owner, `[...document.querySelectorAll('main h2')].some(h => text(h) === `+js(h)+`)`) {
				t.Errorf("no heading %q", h)
			}
		}
		if !eval[bool](t, owner, `[...document.querySelectorAll('nav[aria-label=Main] a')].map(text).join('|') .startsWith('Overview|Purchases|Subscribers|Jobs')`) {
			t.Errorf("navigation: %s", eval[string](t, owner, `[...document.querySelectorAll('nav[aria-label=Main] a')].map(text).join('|')`))
		}
		// The chart's bars are drawn and coloured by the stylesheet.
		if n := eval[int](t, owner, `document.querySelectorAll('#main svg[role=img] rect').length`); n < 20 {
			t.Errorf("the charts draw %d bars, want a bar per week or day", n)
		}
		if fill := eval[string](t, owner, `getComputedStyle(document.querySelector('#main svg[role=img] rect')).fill`); fill == "rgb(0, 0, 0)" || fill == "" {
			t.Errorf("the bars are not coloured by the stylesheet: fill %q", fill)
		}
		// The data behind the chart is a table a screen reader can reach.
		if eval[bool](t, owner, `document.querySelector('figure details table').checkVisibility()`) {
			t.Error("the data table shows before Show data is pressed")
		}
		owner.do(t, "press Show data", chromedp.Click(chromedp.JSPath(withHelpers(`[...document.querySelectorAll('summary')].find(s => text(s) === 'Show data')`))))
		owner.waitFor(t, "the data table", `document.querySelector('figure details[open] table').checkVisibility()`, `document.querySelector('figure details').outerHTML.slice(0, 200)`)
		owner.screenshot(t, "overview", v)
		owner.checkConsole(t)
	})
	owner.setViewport(t, viewports[0])

	t.Run("FigureLinksToPurchases", func(t *testing.T) {
		owner.open(t, "/?date_min=-6+months&date_max=now")
		want := eval[string](t, owner, `[...document.querySelectorAll('main h2')].find(h => text(h) === 'Purchases').parentElement.querySelector('a').textContent.trim()`)
		if st := owner.follow(t, "follow the Purchases figure",
			chromedp.Click(chromedp.JSPath(withHelpers(`[...document.querySelectorAll('main h2')].find(h => text(h) === 'Purchases').parentElement.querySelector('a')`)))); st != http.StatusOK {
			t.Fatalf("got %d", st)
		}
		owner.waitFor(t, "the purchases page", `location.pathname === '/purchases' && document.querySelector('#result-count')`, `location.href`)
		got := eval[string](t, owner, `text(document.querySelector('#result-count span'))`)
		if got != want && !(len(want) > 5 && got == "10,000+") {
			t.Errorf("the purchases list counts %s, the overview %s", got, want)
		}
		owner.checkConsole(t)
	})
}

// TestBrowser_SavedViews saves the filters as they are after htmx changed them, finds
// the view as a tab at phone and desktop widths, renames and deletes it.
func TestBrowser_SavedViews(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	tb := signedInTab(t, browser, e.url, "/purchases", e.newUser(e.id(1), "staff"))

	// Tick Refunded: htmx updates the results and the address, not the page.
	tb.do(t, "tick Refunded", chromedp.Click(chromedp.JSPath(`document.querySelector('#filters input[name=status][value=RFD]')`)))
	tb.waitFor(t, "the address to follow the filters", `location.search === '?q=status%3ARFD'`, `location.search`)
	tb.do(t, "name the view", chromedp.SendKeys(byLabel("View name"), "Refunds to check"))
	if st := tb.follow(t, "save the view", chromedp.Click(buttonByText("Save view"))); st != http.StatusOK {
		t.Fatalf("save view: got %d", st)
	}
	tb.waitFor(t, "the new tab, current", `text(document.querySelector('nav[aria-label="Saved views"] [aria-current=page]')) === 'Refunds to check'`,
		`document.querySelector('nav[aria-label="Saved views"]').outerHTML`)
	if got := eval[string](t, tb, `location.search`); got != "?q=status%3ARFD" {
		t.Errorf("after saving: address %s, want ?q=status%%3ARFD", got)
	}
	for _, v := range []viewport{viewports[1], viewports[0]} {
		tb.setViewport(t, v)
		tb.open(t, "/purchases")
		if st := tb.follow(t, "open the view's tab", chromedp.Click(chromedp.JSPath(withHelpers(
			`[...document.querySelectorAll('nav[aria-label="Saved views"] a')].find(a => text(a) === 'Refunds to check')`)))); st != http.StatusOK {
			t.Fatalf("tab: got %d", st)
		}
		tb.waitFor(t, "the view's filters", `location.search === '?q=status%3ARFD' && document.querySelector('#filters input[value=RFD]').checked`, `location.search`)
		tb.screenshot(t, "purchases-saved-view", v)
	}
	tb.do(t, "open Manage views", chromedp.Click(chromedp.JSPath(withHelpers(`[...document.querySelectorAll('summary')].find(s => text(s) === 'Manage views')`))))
	tb.do(t, "rename", chromedp.SetValue(byLabel("Name of view 1"), "Refunds"))
	if st := tb.follow(t, "press Rename", chromedp.Click(buttonByText("Rename"))); st != http.StatusOK {
		t.Fatalf("rename: got %d", st)
	}
	tb.waitFor(t, "the renamed tab", `[...document.querySelectorAll('nav[aria-label="Saved views"] a')].some(a => text(a) === 'Refunds')`, `document.querySelector('nav[aria-label="Saved views"]').outerHTML`)
	tb.do(t, "open Manage views", chromedp.Click(chromedp.JSPath(withHelpers(`[...document.querySelectorAll('summary')].find(s => text(s) === 'Manage views')`))))
	if st := tb.follow(t, "press Delete", chromedp.Click(buttonByText("Delete"))); st != http.StatusOK {
		t.Fatalf("delete: got %d", st)
	}
	tb.waitFor(t, "no tab but All purchases", `document.querySelectorAll('nav[aria-label="Saved views"] a').length === 1`, `document.querySelector('nav[aria-label="Saved views"]').outerHTML`)
	if d := tb.takeDialogs(); len(d) != 1 || d[0] != "Delete the view “Refunds”?" {
		t.Errorf("dialogs: got %q, want the delete confirmation", d)
	}
	tb.checkConsole(t)
}

// TestBrowser_BulkReactivation ticks purchases (table rows at desktop width, cards on
// a phone), confirms, and follows the job to its summary on the Jobs page.
func TestBrowser_BulkReactivation(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	tb := signedInTab(t, browser, e.url, "/purchases", e.newUser(e.id(1), "staff"))
	tb.atViewports(t, "/purchases?status=ERR&status=RFD", func(t *testing.T, v viewport) {
		// The first two visible boxes: the table's at desktop width, the cards' on phones.
		eval[int](t, tb, `(() => { const boxes = [...document.querySelectorAll('input[form=bulk][name=id]')].filter(b => b.checkVisibility()); boxes.slice(0, 2).forEach(b => b.click()); return boxes.length; })()`)
		ticked := eval[int](t, tb, `[...document.querySelectorAll('input[form=bulk][name=id]')].filter(b => b.checked && b.checkVisibility()).length`)
		if ticked != 2 {
			t.Fatalf("%d boxes ticked, want 2", ticked)
		}
		tb.screenshot(t, "purchases-selected", v)
		if st := tb.follow(t, "press Reactivate selected", chromedp.Click(buttonByText("Reactivate selected"))); st != http.StatusOK {
			t.Fatalf("confirmation: %d", st)
		}
		tb.waitFor(t, "the confirmation", `location.pathname === '/purchases/reactivate' && document.body.textContent.includes('purchases are selected')`, `document.body.textContent.slice(0, 300)`)
		tb.screenshot(t, "bulk-confirm", v)
		if !eval[bool](t, tb, `!!buttonByText('Reactivate 0 purchases') || !!buttonByText('Reactivate 1 purchase') || !!buttonByText('Reactivate 2 purchases')`) {
			t.Fatal("no confirm button")
		}
		confirm := chromedp.JSPath(withHelpers(`[...document.querySelectorAll('button')].find(b => text(b).startsWith('Reactivate '))`))
		tb.do(t, "tick Refulfill", chromedp.Click(byLabel("Refulfill")))
		if st := tb.follow(t, "confirm", chromedp.Click(confirm)); st != http.StatusOK {
			t.Fatalf("job page: %d", st)
		}
		tb.waitFor(t, "the job to finish", `/^\/jobs\/\d+$/.test(location.pathname) && document.querySelector('#job-progress').textContent.includes('Finished')`,
			`document.querySelector('main').textContent.slice(0, 400)`)
		if got := eval[string](t, tb, `document.querySelector('#job-progress progress').value + '/' + document.querySelector('#job-progress progress').max`); got != "2/2" {
			t.Errorf("progress: got %s, want 2/2", got)
		}
		tb.screenshot(t, "job", v)
		if st := tb.follow(t, "open Jobs", chromedp.Click(chromedp.JSPath(withHelpers(`[...document.querySelectorAll('nav[aria-label=Main] a')].find(a => text(a) === 'Jobs')`)))); st != http.StatusOK {
			t.Fatalf("jobs: %d", st)
		}
		tb.waitFor(t, "the Jobs page", `location.pathname === '/jobs' && document.querySelectorAll('main li').length > 0`, `location.href`)
		tb.screenshot(t, "jobs", v)
		tb.checkConsole(t)
	})
}
