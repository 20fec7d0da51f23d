package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// axeScript is axe-core, the accessibility checker, as npm installs it (package.json's
// devDependencies; CI runs npm install before the tests).
var axeScript = filepath.Join("..", "node_modules", "axe-core", "axe.min.js")

// axeViolation is one rule axe found broken, with the elements that break it.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// checkAxe runs axe-core on the page as it is and fails the test for each violation
// (WCAG 2.1 A and AA, and axe's best practices). Outside CI a missing axe-core (no npm
// install yet) skips the check with a note.
func (tb *tab) checkAxe(t *testing.T, what string) {
	t.Helper()
	tb.runAxe(t, what, "document", "{resultTypes: ['violations']}")
}

// runAxe runs axe-core on scope (a JavaScript expression: document, or a selector)
// with the given options, and fails the test for each violation.
func (tb *tab) runAxe(t *testing.T, what, scope, options string) {
	t.Helper()
	src, err := os.ReadFile(axeScript)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("axe-core is missing (%v): CI must run npm install before the tests", err)
		}
		t.Logf("axe not run on %s: %v (npm install brings it)", what, err)
		return
	}
	// Audit the page at rest: a request still in flight, or the "Updating…" indicator
	// fading out, is a frame no one reads, and its half-transparent text is no contrast fact.
	tb.waitFor(t, "the page to settle before axe on "+what,
		`!document.querySelector('.htmx-request') && document.getAnimations().every(a => a.playState !== 'running')`,
		`Array.from(document.querySelectorAll('.htmx-request')).map(e => e.id || e.tagName).join(',') + ' / ' + document.getAnimations().length + ' animations'`)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](string(src)+";true")); err != nil {
		t.Fatalf("load axe-core in %s: %v", what, err)
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Violations []axeViolation `json:"violations"`
		Passes     int            `json:"passes"`
	}](`axe.run(`+scope+`, `+options+`).then(r => ({violations: r.violations, passes: r.passes.length}))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("run axe on %s: %v", what, err)
	}
	t.Logf("axe on %s: %d rules pass, %d violated", what, res.Passes, len(res.Violations))
	for _, x := range res.Violations {
		var where []string
		for i, n := range x.Nodes {
			if i == 3 {
				where = append(where, fmt.Sprintf("and %d more", len(x.Nodes)-3))
				break
			}
			where = append(where, fmt.Sprintf("%v %s", n.Target, n.HTML))
		}
		t.Errorf("axe on %s: %s (%s): %s\n\t%s", what, x.ID, x.Impact, x.Help, strings.Join(where, "\n\t"))
	}
}

// customerLinks lists the visible links to customer pages in the page's main part:
// the address each names, whether the list cuts its text short (an ellipsis), its
// accessible name (aria-label, else its text) and its tooltip (the nearest title).
const customerLinks = `[...document.querySelectorAll('main a[href^="/customers/"]')].filter(a => a.checkVisibility()).map(a => {
	const cut = [a, a.parentElement].some(el => getComputedStyle(el).textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth);
	return {email: decodeURIComponent(a.getAttribute('href').slice('/customers/'.length)), text: text(a), cut,
		name: a.getAttribute('aria-label') || text(a), tip: a.closest('[title]')?.getAttribute('title') || ''};
})`

type customerLink struct {
	Email, Text, Name, Tip string
	Cut                    bool
}

// checkCutAddresses fails the test when an address the page cuts short is not whole in
// its link's accessible name and tooltip, or when the page cuts none (the long address
// of the test must not fit).
func (tb *tab) checkCutAddresses(t *testing.T, what, email string) {
	t.Helper()
	links := eval[[]customerLink](t, tb, customerLinks)
	cut := 0
	for _, l := range links {
		if !l.Cut || !strings.Contains(l.Text, "@") {
			continue
		}
		cut++
		if !strings.Contains(l.Name, l.Email) || l.Tip != l.Email {
			t.Errorf("%s: the cut address %s reads %q to a screen reader and %q as a tooltip, want the whole address in both", what, l.Email, l.Name, l.Tip)
		}
	}
	if cut == 0 {
		t.Errorf("%s: no link cuts %s short; the test's address is meant not to fit (links: %+v)", what, email, links)
	}
}

// TestBrowser_CustomerPage: a staff member follows a buyer's e-mail from the purchases
// list to the customer's page, at phone and desktop sizes; the sections and figures
// are there, an address the list cuts short is whole for screen readers and as a
// tooltip, the page's purchases leave out the buyer's columns for the storefront and
// items, a note with markup added by keyboard is shown as text; no console error, no
// axe violation.
func TestBrowser_CustomerPage(t *testing.T) {
	br := startBrowser(t)
	e := newAPI(t, 0)
	// Long enough that lists cut it at both sizes.
	long := "margaret.hamilton-oduya+support-orders@accounts.very-long-subdomain.example.test"
	email, ps := customerFixture(t, e, long)
	path := "/customers/" + url.PathEscape(email)
	list := "/purchases?customer_email=" + url.QueryEscape(email)
	staff := signedInTab(t, br, e.url, list, e.newUser(e.id(1), "staff"))

	t.Run("FollowFromList", func(t *testing.T) {
		staff.atViewports(t, list, func(t *testing.T, v viewport) {
			staff.waitFor(t, "the purchases of "+email, `results().length > 0`, `location.href`)
			staff.checkCutAddresses(t, "purchases list at "+v.name, email)
			link := chromedp.JSPath(withHelpers(`[...document.querySelectorAll(` + js(`#results a[aria-label="Customer `+email+`"]`) + `)].find(a => a.checkVisibility())`))
			if st := staff.follow(t, "follow the buyer's e-mail", chromedp.Click(link)); st != 200 {
				t.Fatalf("the customer's page: got %d, want 200", st)
			}
			if got := eval[string](t, staff, `location.pathname`); got != path {
				t.Errorf("the e-mail led to %s, want %s", got, path)
			}
		})
		staff.checkConsole(t)
	})

	mark := `<b>VIP</b> & <script>alert(1)</script> asked by phone`
	t.Run("AddNoteByKeyboard", func(t *testing.T) {
		staff.openAt(t, viewports[0], path)
		marker := eval[int](t, staff, `window.__marker = 7`)
		staff.do(t, "write the note", chromedp.Focus(byLabel("New note")), chromedp.SendKeys(byLabel("New note"), mark))
		staff.do(t, "tab to the button", chromedp.KeyEvent(kb.Tab))
		if got := eval[string](t, staff, `text(document.activeElement)`); got != "Add note" {
			t.Fatalf("Tab after the note reaches %q, want the Add note button", got)
		}
		staff.do(t, "press Enter on Add note", chromedp.KeyEvent(kb.Enter))
		staff.waitFor(t, "the note in the list",
			`!document.querySelector('.htmx-request') && [...document.querySelectorAll('#notes [data-note-body]')].some(p => p.textContent === `+js(mark)+`)`,
			`text(document.querySelector('#notes'))`)
		got := eval[map[string]any](t, staff, `({marker: window.__marker ?? null, markup: document.querySelectorAll('#notes b, #notes script').length, box: byLabel('New note').value})`)
		if got["marker"] != float64(marker) {
			t.Errorf("adding the note reloaded the whole page")
		}
		if got["markup"] != float64(0) || got["box"] != "" {
			t.Errorf("after the note: %v elements made of its markup (want 0), the box holds %q (want it empty)", got["markup"], got["box"])
		}
		staff.checkConsole(t)
	})

	t.Run("Page", func(t *testing.T) {
		staff.atViewports(t, path, func(t *testing.T, v viewport) {
			sections := eval[map[string]bool](t, staff, `Object.fromEntries(['Purchases', 'Subscriptions', 'Activity', 'E-mails', 'Notes'].map(title => {
				const h = [...document.querySelectorAll('main h2')].find(h => text(h) === title);
				return [title, !!h && h.checkVisibility() && h.getBoundingClientRect().width > 0];
			}))`)
			for _, title := range []string{"Purchases", "Subscriptions", "Activity", "E-mails", "Notes"} {
				if !sections[title] {
					t.Errorf("section %q not visible at %s", title, v.name)
				}
			}
			type figures struct {
				Heading, Purchases string
				Lifetime, Refunded []string
				Hidden             []string
				Subs, Mails, Note  string
			}
			f := eval[figures](t, staff, `({heading: text(document.querySelector('h1')), purchases: text(document.querySelector('[data-field=purchases]')),
				lifetime: [...document.querySelectorAll('[data-field=lifetime] span')].map(text),
				refunded: [...document.querySelectorAll('[data-field=refunded] span')].map(text),
				hidden: [...document.querySelectorAll('[data-field]')].filter(el => !el.checkVisibility()).map(el => el.dataset.field),
				subs: text(document.querySelector('#subscriptions')), mails: text(document.querySelector('#emails')),
				note: text(document.querySelector('#notes [data-note-body]'))})`)
			sort.Strings(f.Lifetime)
			sort.Strings(f.Refunded)
			if f.Heading != email || f.Purchases != fmt.Sprint(len(ps)) {
				t.Errorf("heading %q with %s purchases, want %s with %d", f.Heading, f.Purchases, email, len(ps))
			}
			if want := lifetimeShown(ps, "ACT"); strings.Join(f.Lifetime, "|") != strings.Join(want, "|") {
				t.Errorf("lifetime value: got %q, want %q", f.Lifetime, want)
			}
			if want := lifetimeShown(ps, "RFD"); strings.Join(f.Refunded, "|") != strings.Join(want, "|") {
				t.Errorf("refunded: got %q, want %q", f.Refunded, want)
			}
			if len(f.Hidden) > 0 {
				t.Errorf("figures not visible at %s: %v", v.name, f.Hidden)
			}
			if !strings.Contains(f.Subs, "Not receiving service") || !strings.Contains(f.Subs, "Receiving service") {
				t.Errorf("subscriptions: got %q, want one receiving service and one not", f.Subs)
			}
			if !strings.Contains(f.Mails, "Sent") || !strings.Contains(f.Mails, "Failed") || !strings.Contains(f.Mails, "no such mailbox") {
				t.Errorf("e-mails: got %q, want one sent and one failed with the server's reason", f.Mails)
			}
			if f.Note != mark {
				t.Errorf("note after a reload: got %q, want %q", f.Note, mark)
			}
			// The page is one buyer's: their address is its heading, not a column of
			// its purchases; the storefront and the items are shown at every width.
			if got := eval[string](t, staff, `[...document.querySelectorAll('main table thead th')].map(th => th.textContent.trim()).filter(Boolean).join('|')`); got != "Select|Date|Purchase|Storefront|Items|Total|Status" {
				t.Errorf("customer page at %s: the purchases' columns are %q, want Select|Date|Purchase|Storefront|Items|Total|Status", v.name, got)
			}
			if n := eval[int](t, staff, `[...document.querySelectorAll('main a')].filter(a => a.textContent.includes('@')).length`); n != 0 {
				t.Errorf("customer page at %s: %d links show an address; the buyer's is the heading", v.name, n)
			}
			staff.screenshot(t, "customer", v)
			staff.checkAxe(t, "the customer page at "+v.name)
		})
		staff.checkConsole(t)
	})
}
