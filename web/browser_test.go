package web_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// The browser tests drive Debian's Chromium (headless) through the flows a merchant
// follows on the dashboard, against the whole app on an httptest server.

// stepTimeout bounds every browser step: a navigation, a click, a wait.
const stepTimeout = 30 * time.Second

// screenshotDir is where the screenshots of the main pages go (git-ignored).
const screenshotDir = "testdata/screenshots"

// chromiumFlags are the flags Chromium runs with: headless, no network of its own
// (updates, sync, QUIC), nothing but the test server.
var chromiumFlags = []string{"headless", "no-sandbox", "disable-gpu", "disable-background-networking",
	"disable-component-update", "disable-sync", "disable-quic", "no-first-run"}

// chromiumPath finds the browser; outside CI a missing browser skips the browser
// tests, in CI it fails them.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/chromium", "chromium", "chromium-browser"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("Chromium is not installed, and CI must run the browser tests: run `bash scripts/deps.sh` " +
			"(it installs Debian's chromium) before the tests")
	}
	t.Skip("Chromium is not installed: `sudo apt-get install -y chromium` (or `bash scripts/deps.sh`) to run the browser tests")
	return ""
}

// startBrowser starts one Chromium for the test, with a fresh profile; it stops when
// the test ends.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath(t)
	profile := t.TempDir()
	var output syncBuffer
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(profile),
		chromedp.CombinedOutput(&output),
	}
	for _, f := range chromiumFlags {
		opts = append(opts, chromedp.Flag(f, true))
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	// Cleanups run last-in first-out: the browser stops before its profile is removed.
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := firstRun(ctx); err != nil {
		t.Fatalf("start %s: %v\n%s", path, err, output.String())
	}
	return ctx
}

// firstRun starts the browser or opens the tab of a new context. That first run must
// not carry a timeout (the browser or tab lives only as long as the context of its
// first run), so a watchdog bounds it instead.
func firstRun(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx) }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		_ = chromedp.Cancel(ctx)
		return errors.New("no answer within 30s")
	}
}

// tab is one browser tab in a browser context of its own (its own cookies), as one
// person at their own computer.
type tab struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu      sync.Mutex
	dialogs []string // messages of the dialogs accepted
	console []chromedp.ConsoleMessage
}

// newTab opens a tab in a fresh browser context. It accepts every JavaScript dialog
// (hx-confirm) and records it, and records the console, which is checked once more
// when the test ends.
func newTab(t *testing.T, browser context.Context, base string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	tb := &tab{t: t, ctx: ctx, base: base}
	if err := firstRun(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	// What the pages write at the end of a test is checked too; this cleanup runs
	// before the tab closes.
	t.Cleanup(func() { tb.checkConsole(t) })
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	console := chromedp.Console(ctx)
	follow(&wg, dialogs, func(ev page.EventJavascriptDialogOpening) {
		tb.mu.Lock()
		tb.dialogs = append(tb.dialogs, ev.Message)
		tb.mu.Unlock()
		// The page is blocked until the dialog is answered.
		_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
	})
	follow(&wg, console, func(m chromedp.ConsoleMessage) {
		tb.mu.Lock()
		tb.console = append(tb.console, m)
		tb.mu.Unlock()
	})
	return tb
}

// follow hands each event of a tab's stream to fn, in a goroutine of wg, until the
// stream ends.
func follow[T any](wg *sync.WaitGroup, events iter.Seq2[T, error], fn func(T)) {
	wg.Go(func() {
		for ev, err := range events {
			if err != nil {
				return
			}
			fn(ev)
		}
	})
}

// failedLoad is a load that fails on purpose: the browser reports it in the console
// as an error ("Failed to load resource: the server responded with a status of 403").
type failedLoad struct {
	status int64
	url    string
}

func (f failedLoad) matches(m chromedp.ConsoleMessage) bool {
	return m.Source == "network" && m.URL == f.url &&
		strings.Contains(m.Text, fmt.Sprintf("status of %d ", f.status))
}

// consoleFailure reports whether a console message is one no page may write: an
// uncaught exception, a failed console.assert, a console.error or console.warn call
// (htmx reports its errors so), or a browser log entry of level warning or error
// (Content-Security-Policy violations, failed loads).
func consoleFailure(m chromedp.ConsoleMessage) bool {
	switch m.Type {
	case chromedp.ConsoleException, chromedp.ConsoleError, chromedp.ConsoleWarning, "assert":
		return true
	}
	return false
}

// checkConsole fails the test for every error or warning the pages wrote to the
// console since the last check. The expected failed loads must be among them (it
// waits for them, as the browser reports them a moment after the page) and are not
// failures.
func (tb *tab) checkConsole(t *testing.T, expected ...failedLoad) {
	t.Helper()
	var msgs []chromedp.ConsoleMessage
	deadline := time.Now().Add(stepTimeout)
	for {
		tb.mu.Lock()
		msgs = append(msgs, tb.console...)
		tb.console = nil
		tb.mu.Unlock()
		missing := expected[:0:0]
		for _, f := range expected {
			if !slices.ContainsFunc(msgs, f.matches) {
				missing = append(missing, f)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("browser console: no report of the failed loads %v", missing)
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	for _, m := range msgs {
		if consoleFailure(m) && !slices.ContainsFunc(expected, func(f failedLoad) bool { return f.matches(m) }) {
			t.Errorf("browser console: %s (%s:%d)", m, m.URL, m.Line+1)
		}
	}
}

// takeDialogs returns the dialogs accepted since the last call.
func (tb *tab) takeDialogs() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	d := tb.dialogs
	tb.dialogs = nil
	return d
}

// do runs the steps within stepTimeout.
func (tb *tab) do(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// open navigates to the path and returns the status of the document's answer.
func (tb *tab) open(t *testing.T, path string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, chromedp.Navigate(tb.base+path))
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	if res == nil {
		return 0
	}
	return res.Status
}

// follow runs the steps (a click on a link or a submit button) and waits for the page
// they load; it returns the status of the final answer.
func (tb *tab) follow(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	res, err := chromedp.RunResponse(ctx, steps...)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if res == nil {
		return 0
	}
	return res.Status
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](withHelpers(expr)))
	for err != nil && staleContext(err) && ctx.Err() == nil {
		v, err = chromedp.Run(ctx, chromedp.Evaluate[T](withHelpers(expr)))
	}
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// staleContext reports whether err says the page's JavaScript context went away under
// the call, as it does when a document is replaced just then.
func staleContext(err error) bool {
	return strings.Contains(err.Error(), "Cannot find context with specified id") ||
		strings.Contains(err.Error(), "Execution context was destroyed") ||
		// A script's own navigation (location.assign) under a poll.
		strings.Contains(err.Error(), "Inspected target navigated or closed")
}

// waitFor waits until the JavaScript condition holds in the page. On time-out it
// reports what, and the value of the diagnostic expression diag.
func (tb *tab) waitFor(t *testing.T, what, cond, diag string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	var err error
	for {
		_, err = chromedp.Run(ctx, chromedp.Poll[bool]("!!("+withHelpers(cond)+")",
			chromedp.WithPollingInterval(25*time.Millisecond), chromedp.WithPollingTimeout(stepTimeout-time.Second)))
		// A document that replaced itself while the poll started (its JavaScript
		// context gone) is polled again in the new one.
		if err == nil || !staleContext(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		state := "(no diagnostic)"
		if diag != "" {
			dctx, dcancel := context.WithTimeout(tb.ctx, 2*time.Second)
			defer dcancel()
			if v, derr := chromedp.Run(dctx, chromedp.Evaluate[any](withHelpers(diag))); derr == nil {
				b, _ := json.Marshal(v)
				state = string(b)
			} else {
				state = derr.Error()
			}
		}
		t.Fatalf("%s: %v; page state: %s", what, err, state)
	}
}

// jsHelpers find elements the way a person does: by their label, by their text.
const jsHelpers = `
const byLabel = (text) => {
	const l = [...document.querySelectorAll('label')].find(l => l.textContent.trim().replace(/\s+/g, ' ').startsWith(text));
	return l ? l.control : null;
};
const buttonByText = (text) => [...document.querySelectorAll('button, input[type=submit]')]
	.find(b => (b.textContent || b.value).trim() === text) || null;
const text = (el) => el ? el.textContent.trim().replace(/\s+/g, ' ') : null;
const results = () => {
	const heads = [...document.querySelectorAll('#results thead th')].map(th => th.textContent.trim().toLowerCase());
	const e = heads.indexOf('e-mail'), s = heads.indexOf('status');
	return [...document.querySelectorAll('#results tbody tr')].map(r => ({email: text(r.cells[e]), status: text(r.cells[s])}));
};
`

// withHelpers wraps an expression so it can use jsHelpers.
func withHelpers(expr string) string {
	return "(() => {" + jsHelpers + "return (" + expr + ");})()"
}

// byLabel selects the control a visible label names (the label text starts with
// text).
func byLabel(text string) chromedp.JSPath {
	return chromedp.JSPath(withHelpers("byLabel(" + js(text) + ")"))
}

// buttonByText selects the button that says text.
func buttonByText(text string) chromedp.JSPath {
	return chromedp.JSPath(withHelpers("buttonByText(" + js(text) + ")"))
}

// js writes a Go value as a JavaScript literal.
func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// signedInTab opens path signed out in a new tab at the desktop size, which shows the
// sign-in page, and signs in as email (back on path).
func signedInTab(t *testing.T, browser context.Context, base, path, email string) *tab {
	t.Helper()
	tb := newTab(t, browser, base)
	tb.setViewport(t, viewports[0])
	if st := tb.open(t, path); st != http.StatusOK {
		t.Fatalf("signed-out %s: got %d, want 200 (the sign-in page)", path, st)
	}
	tb.signIn(t, email)
	return tb
}

// atViewports runs check in a subtest for each viewport, with path opened at its size.
func (tb *tab) atViewports(t *testing.T, path string, check func(t *testing.T, v viewport)) {
	t.Helper()
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			tb.openAt(t, v, path)
			check(t, v)
		})
	}
}

// openAt opens path at the viewport's size; it must answer 200.
func (tb *tab) openAt(t *testing.T, v viewport, path string) {
	t.Helper()
	tb.setViewport(t, v)
	if st := tb.open(t, path); st != http.StatusOK {
		t.Fatalf("%s at %s: got %d, want 200", path, v.name, st)
	}
}

// signIn fills the sign-in form the page shows and submits it.
func (tb *tab) signIn(t *testing.T, email string) {
	t.Helper()
	tb.waitFor(t, "the sign-in form", `location.pathname === '/login' && byLabel('E-mail') && byLabel('Password')`, `location.href`)
	tb.do(t, "fill the sign-in form",
		chromedp.SendKeys(byLabel("E-mail"), email),
		chromedp.SendKeys(byLabel("Password"), dashPassword))
	if st := tb.follow(t, "sign in", chromedp.Click(buttonByText("Sign in"))); st != http.StatusOK {
		t.Fatalf("sign in as %s: got %d, want 200", email, st)
	}
}

// emailPrefix finds a two-letter e-mail prefix that matches purchases of account 1 of
// both statuses (and not all purchases), so that typing it and ticking the second
// status each change the table.
func emailPrefix(t *testing.T, e *apiEnv, first, second string) string {
	t.Helper()
	var p string
	err := e.db.QueryRow(`SELECT LOWER(LEFT(buyer_email, 2)) p FROM purchases
		WHERE account_id = ? AND buyer_email REGEXP '^[a-z]{2}'
		GROUP BY p HAVING SUM(status = ?) BETWEEN 1 AND 20 AND SUM(status = ?) > 0
		ORDER BY COUNT(*) DESC, p LIMIT 1`, e.id(1), first, second).Scan(&p)
	if err != nil {
		t.Fatalf("find an e-mail prefix: %v", err)
	}
	return p
}

// pickPurchase sets a purchase of account 1 that has a buyer e-mail and line items to
// the status and returns it; it picks none twice (used).
func pickPurchase(t *testing.T, e *apiEnv, used map[int64]bool, status string) (int64, string) {
	t.Helper()
	type candidate struct {
		id    int64
		email string
	}
	candidates := dbtest.Query(t, e.db.DB, func(rows *sql.Rows) (c candidate, err error) { err = rows.Scan(&c.id, &c.email); return c, err },
		`SELECT p.id, p.buyer_email FROM purchases p
		WHERE p.account_id = ? AND p.buyer_email LIKE '%@%' AND p.customer_id IS NOT NULL
		AND EXISTS (SELECT 1 FROM line_items li WHERE li.purchase_id = p.id)
		ORDER BY p.id DESC LIMIT 100`, e.id(1))
	for _, c := range candidates {
		if used[c.id] {
			continue
		}
		used[c.id] = true
		if _, err := e.db.Exec(`UPDATE purchases SET status = ? WHERE id = ?`, status, c.id); err != nil {
			t.Fatal(err)
		}
		e.rebuild()
		return c.id, c.email
	}
	t.Fatal("no purchase left to use")
	return 0, ""
}

// whatReactivationDoes is the sentence the server writes under the reactivation form of
// purchase id of account 1 for these values.
func whatReactivationDoes(t *testing.T, e *apiEnv, id int64, to string, refulfill bool) string {
	t.Helper()
	ctx := context.Background()
	p, err := mysql.NewPurchaseService(e.db).FindPurchaseByID(ctx, e.id(1), id)
	if err != nil {
		t.Fatal(err)
	}
	sfs, err := mysql.NewAccountService(e.db).FindStorefronts(ctx, e.id(1))
	if err != nil {
		t.Fatal(err)
	}
	var sf *shop.Storefront
	for _, x := range sfs {
		if x.ID == p.StorefrontID {
			sf = x
		}
	}
	return p.WhatReactivationDoes(sf, to, refulfill)
}

// purchaseState is a purchase's status and number of activity entries.
func purchaseState(t *testing.T, e *apiEnv, id int64) (string, int) {
	t.Helper()
	var status string
	var n int
	// The count by the id, not correlated: vtgate plans a correlated subquery for EXISTS only.
	if err := e.db.QueryRow(`SELECT status, (SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ?)
		FROM purchases WHERE id = ?`, id, id).Scan(&status, &n); err != nil {
		t.Fatal(err)
	}
	return status, n
}

// crossSite serves, on another origin (127.0.0.1, another port), a page that posts a
// form to target as soon as it loads, as a hostile page would.
func crossSite(t *testing.T, target string, form url.Values) string {
	t.Helper()
	var inputs strings.Builder
	for k, vs := range form {
		for _, v := range vs {
			fmt.Fprintf(&inputs, `<input type="hidden" name="%s" value="%s">`, html.EscapeString(k), html.EscapeString(v))
		}
	}
	page := fmt.Sprintf(`<!DOCTYPE html><title>Win a prize</title>
<form method="post" action="%s">%s</form>
<script>document.forms[0].submit()</script>`, html.EscapeString(target), inputs.String())
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	}))
	t.Cleanup(hs.Close)
	return hs.URL + "/"
}

// postFromOtherSite opens the hostile page in the tab and returns where its form post
// ended: the status and address of the document the dashboard answered with.
func (tb *tab) postFromOtherSite(t *testing.T, target string, form url.Values) (int64, string) {
	t.Helper()
	attacker := crossSite(t, target, form)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	// The first document after the hostile page: the answer to the post, or where a
	// redirect led.
	ev, err := chromedp.Run(ctx, chromedp.WaitEvent(network.ResponseReceived, func(ev network.EventResponseReceived) bool {
		return ev.Type == network.ResourceTypeDocument && ev.Response != nil && ev.Response.URL != attacker
	}, chromedp.Navigate(attacker)))
	if err != nil {
		t.Fatalf("post from %s to %s: %v", attacker, target, err)
	}
	return ev.Response.Status, ev.Response.URL
}

// viewport is a screen size the screenshots are taken at.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

var viewports = []viewport{{"desktop", 1440, 900, false}, {"mobile", 390, 844, true}}

// setViewport makes the tab's window the size of v.
func (tb *tab) setViewport(t *testing.T, v viewport) {
	t.Helper()
	opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
	if v.mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
	}
	tb.do(t, "set the viewport to "+v.name, chromedp.EmulateViewport(v.width, v.height, opts...))
}

// fullScreenshot captures the whole page (not only the viewport) as PNG.
func fullScreenshot() chromedp.Action[[]byte] {
	return func(ctx context.Context, t *chromedp.Target) ([]byte, error) {
		// The document's scroll size: what a person can scroll to.
		size, err := chromedp.Evaluate[[]float64](`[document.documentElement.scrollWidth, document.documentElement.scrollHeight]`)(ctx, t)
		if err != nil {
			return nil, err
		}
		r, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			CaptureBeyondViewport: new(true),
			FromSurface:           new(true),
			Clip:                  &page.Viewport{Width: size[0], Height: size[1], Scale: 1},
		})
		if err != nil {
			return nil, err
		}
		return r.Data, nil
	}
}

// screenshot saves the page as it is to testdata/screenshots/NAME-WxH.png, and logs
// what makes a phone screen scroll sideways.
func (tb *tab) screenshot(t *testing.T, name string, v viewport) {
	t.Helper()
	tb.waitFor(t, "the page to settle before the screenshot "+name,
		`document.readyState === 'complete' && document.fonts.status === 'loaded' && !document.querySelector('.htmx-request')`, `location.href`)
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, fullScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(screenshotDir, fmt.Sprintf("%s-%dx%d.png", name, v.width, v.height))
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Fatal(err)
	}
	// Elements past the right edge of the screen, not inside a scrolling box: each
	// makes the whole page scroll sideways (or a phone zoom out).
	overflow := eval[[]string](t, tb, fmt.Sprintf(`(() => {
		const w = %d, out = [];
		const scrolls = (el) => { for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
			if (getComputedStyle(p).overflowX !== 'visible') return true; } return false; };
		for (const el of document.body.querySelectorAll('*')) {
			const r = el.getBoundingClientRect();
			if (r.width === 0 || r.right + window.scrollX <= w + 1 || scrolls(el)) continue;
			const p = el.parentElement.getBoundingClientRect();
			if (p.right + window.scrollX > w + 1 && el.parentElement !== document.body && !scrolls(el.parentElement)) continue;
			out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.classList.length ? '.' + [...el.classList].slice(0, 5).join('.') : '') +
				' ends at ' + Math.round(r.right + window.scrollX) + 'px');
		}
		return out.slice(0, 6);
	})()`, v.width))
	if len(overflow) > 0 {
		t.Errorf("LAYOUT %s at %dx%d: the page scrolls sideways; outermost elements past the edge: %s",
			name, v.width, v.height, strings.Join(overflow, "; "))
	}
}

// TestBrowser_Dashboard walks the dashboard as merchants do, in one Chromium: sign-in
// through the form back to the page asked for; the purchases filters updating the
// table in place, the address bar and Back; a subscriber search overtaking the one
// before it; reactivating a purchase (hx-confirm, Refulfill, the result in place, the
// timeline, the e-mail at the SMTP server); a viewer without the form; cross-site form
// posts refused; and screenshots of the main pages at desktop and phone sizes in
// testdata/screenshots. No page writes an error or a warning to the console.
func TestBrowser_Dashboard(t *testing.T) {
	start := time.Now()
	browser := startBrowser(t)
	e := newAPI(t, 0)
	t.Logf("browser and seeded app ready in %v", time.Since(start).Round(time.Millisecond))

	ownerEmail := e.newUser(e.id(1), "owner")
	viewerEmail := e.newUser(e.id(1), "viewer")
	owner := newTab(t, browser, e.url)
	// The flows run at the desktop size (the purchases table; phones get cards).
	owner.setViewport(t, viewports[0])
	used := map[int64]bool{}

	t.Run("SignInReturnsToPage", func(t *testing.T) {
		if st := owner.open(t, "/purchases?status=ACT"); st != http.StatusOK {
			t.Fatalf("signed-out /purchases?status=ACT: got %d, want 200 (the sign-in page)", st)
		}
		owner.signIn(t, ownerEmail)
		if got, want := eval[string](t, owner, `location.pathname + location.search`), "/purchases?status=ACT"; got != want {
			t.Fatalf("after sign-in: got %s, want %s", got, want)
		}
		if !eval[bool](t, owner, `document.querySelector('#filters input[name=status][value=ACT]').checked`) {
			t.Errorf("the ACT status box is not ticked after returning to /purchases?status=ACT")
		}
		owner.checkConsole(t)
	})

	t.Run("PurchaseFilters", func(t *testing.T) {
		prefix := emailPrefix(t, e, "ACT", "PND")
		if st := owner.open(t, "/purchases?status=ACT"); st != http.StatusOK {
			t.Fatalf("/purchases?status=ACT: got %d, want 200", st)
		}
		// A full reload would lose this marker; htmx swaps keep it.
		if eval[int](t, owner, `window.__marker = 1`) != 1 {
			t.Fatal("cannot set the marker")
		}
		countBefore := eval[string](t, owner, `text(document.querySelector('#result-count'))`)
		// Counts the requests htmx sends.
		eval[bool](t, owner, `(window.__requests = 0, document.addEventListener('htmx:beforeRequest', () => window.__requests++), true)`)

		owner.do(t, "type the e-mail prefix", chromedp.SendKeys(byLabel("Customer e-mail"), prefix))
		wantURL := func(status ...string) string {
			// The address carries the filters as one search, as the box shows it.
			return fmt.Sprintf(`(() => { const q = new URL(location.href).searchParams;
				return location.pathname === '/purchases' && q.get('q') === %s; })()`,
				js("status:"+strings.Join(status, ",")+" email:"+prefix))
		}
		rowsMatch := func(labels ...string) string {
			return fmt.Sprintf(`!document.querySelector('.htmx-request') && results().length > 0 &&
				results().every(r => r.email.toLowerCase().startsWith(%s) && %s.includes(r.status))`, js(prefix), js(labels))
		}
		diag := `({href: location.href, marker: window.__marker, rows: results().slice(0, 5), count: text(document.querySelector('#result-count')), results: text(document.querySelector('#results')).slice(0, 300)})`
		owner.waitFor(t, "the table filtered by the e-mail prefix "+prefix, wantURL("ACT")+" && "+rowsMatch("Active"), diag)
		if eval[any](t, owner, `window.__marker`) != float64(1) {
			t.Fatal("typing in Customer e-mail reloaded the whole page")
		}
		countPrefix := eval[string](t, owner, `text(document.querySelector('#result-count'))`)
		if countPrefix == countBefore {
			t.Errorf("count did not change with the e-mail filter: %q", countPrefix)
		}
		// Leaving the field fires its change event; the table shows its filters already.
		// htmx sends a request within the event, so the count tells at once.
		if n := eval[int](t, owner, `(() => { const n = window.__requests; byLabel('Customer e-mail').blur(); return window.__requests - n; })()`); n != 0 {
			t.Errorf("leaving Customer e-mail after the table followed it sent %d more requests, want 0", n)
		}

		owner.do(t, "tick Pending", chromedp.Click(chromedp.CSS(`#filters input[name=status][value=PND]`)))
		owner.waitFor(t, "the table filtered by ACT and PND", wantURL("ACT", "PND")+" && "+rowsMatch("Active", "Pending")+
			` && results().some(r => r.status === 'Pending')`, diag)
		if eval[any](t, owner, `window.__marker`) != float64(1) {
			t.Fatal("ticking a status reloaded the whole page")
		}

		owner.do(t, "go back", chromedp.NavigateBack())
		owner.waitFor(t, "Back restores the e-mail filter with ACT only", wantURL("ACT")+" && "+rowsMatch("Active"), diag)
		state := eval[map[string]any](t, owner, `({marker: window.__marker ?? null, email: byLabel('Customer e-mail').value,
			act: document.querySelector('#filters input[name=status][value=ACT]').checked,
			pnd: document.querySelector('#filters input[name=status][value=PND]').checked,
			count: text(document.querySelector('#result-count'))})`)
		if state["marker"] != float64(1) {
			t.Errorf("Back reloaded the whole page (htmx did not restore its history)")
		}
		if state["email"] != prefix || state["act"] != true || state["pnd"] != false {
			t.Errorf("after Back the form shows e-mail %q, ACT %v, PND %v; want %q, true, false (the state of the table)",
				state["email"], state["act"], state["pnd"], prefix)
		}
		if state["count"] != countPrefix {
			t.Errorf("after Back the count is %q, want %q", state["count"], countPrefix)
		}

		// "Created from" shows what the text resolves to, next to the field. The test
		// clock is Sunday 22 November 2026 in New York.
		owner.do(t, "type Created from", chromedp.SendKeys(byLabel("Created from"), "last monday"))
		hint := `(() => { const i = byLabel('Created from'); return document.getElementById(i.getAttribute('aria-describedby')); })()`
		owner.waitFor(t, "the resolved date next to Created from",
			`(new URL(location.href).searchParams.get('q') || '').endsWith(' created>="last monday"') && text(`+hint+`) === 'last monday → Mon 16 Nov 2026 00:00 EST'`,
			`({href: location.href, hint: text(`+hint+`)})`)
		near := eval[bool](t, owner, `(() => { const i = byLabel('Created from').getBoundingClientRect(), h = `+hint+`.getBoundingClientRect();
			return h.height > 0 && h.top >= i.bottom - 1 && h.top - i.bottom < 24 && h.left < i.right && h.right > i.left; })()`)
		if !near {
			t.Errorf("the date hint is not shown right under the Created from field")
		}
		owner.checkConsole(t)
	})
	t.Run("SubscriberSearch", func(t *testing.T) {
		if st := owner.open(t, "/subscribers"); st != http.StatusOK {
			t.Fatalf("/subscribers: got %d, want 200", st)
		}
		list := eval[string](t, owner, `location.pathname`)
		var storefront int64
		if _, err := fmt.Sscanf(list, "/storefronts/%d/subscribers", &storefront); err != nil {
			t.Fatalf("/subscribers led to %s, want a storefront's subscribers", list)
		}
		// A prefix of several subscribers' e-mails, and a longer one of fewer of them.
		var short, long string
		if err := e.db.QueryRow(`SELECT LOWER(LEFT(username, 1)), LOWER(LEFT(username, 2)) p FROM subscribers
			WHERE storefront_id = ? AND username REGEXP '^[a-z]{2}'
			GROUP BY p ORDER BY COUNT(*) DESC, p LIMIT 1`, storefront).Scan(&short, &long); err != nil {
			t.Fatalf("find an e-mail prefix: %v", err)
		}
		if eval[int](t, owner, `window.__marker = 3`) != 3 {
			t.Fatal("cannot set the marker")
		}
		// The second search starts while the first is on its way (both within one
		// task of the page): only the second reaches the table and the address bar,
		// in one swap, one new history entry, and no error in the console.
		// htmx fires afterSwap on each element swapped, the date hints swapped out of
		// band too (with the same detail): the table's swaps are those fired on it.
		before := eval[int](t, owner, `(window.__swaps = 0, document.addEventListener('htmx:afterSwap', ev => { if (ev.target.id === 'results') window.__swaps++ }), history.length)`)
		eval[bool](t, owner, `(() => { const i = byLabel('E-mail');
			for (const v of [`+js(short)+`, `+js(long)+`]) { i.value = v; i.dispatchEvent(new Event('change', {bubbles: true})); }
			return !!document.querySelector('.htmx-request'); })()`)
		owner.waitFor(t, "the table searched by "+long,
			`!document.querySelector('.htmx-request') && new URL(location.href).searchParams.get('q') === `+js("email:"+long)+
				` && results().length > 0 && results().every(r => r.email.toLowerCase().startsWith(`+js(long)+`))`,
			`({href: location.href, swaps: window.__swaps, rows: results().slice(0, 5)})`)
		got := eval[map[string]any](t, owner, `({marker: window.__marker ?? null, swaps: window.__swaps, entries: history.length - `+fmt.Sprint(before)+`})`)
		if got["marker"] != float64(3) {
			t.Fatal("searching reloaded the whole page")
		}
		if got["swaps"] != float64(1) || got["entries"] != float64(1) {
			t.Errorf("two searches in a row: %v swaps of the table and %v new history entries, want 1 and 1 (only the newest search)",
				got["swaps"], got["entries"])
		}
		owner.checkConsole(t)
	})

	t.Run("Reactivate", func(t *testing.T) {
		id, buyer := pickPurchase(t, e, used, "ERR")
		path := fmt.Sprintf("/purchases/%d", id)
		if st := owner.open(t, "/purchases?status=ERR&customer_email="+url.QueryEscape(buyer)); st != http.StatusOK {
			t.Fatalf("purchases of %s: got %d, want 200", buyer, st)
		}
		link := chromedp.CSS(fmt.Sprintf(`#results table a[href=%q]`, path))
		if st := owner.follow(t, "open the purchase from its row", chromedp.Click(link)); st != http.StatusOK {
			t.Fatalf("GET %s: got %d, want 200", path, st)
		}
		if got := eval[string](t, owner, `location.pathname`); got != path {
			t.Fatalf("after the row link: got %s, want %s", got, path)
		}
		if eval[int](t, owner, `window.__marker = 2`) != 2 {
			t.Fatal("cannot set the marker")
		}
		reactivated := `[...document.querySelectorAll('#timeline li')].filter(li => text(li).includes('Reactivated'))`
		before := eval[int](t, owner, reactivated+`.length`)
		entries := eval[int](t, owner, `history.length`)
		sendTo := "browser-reactivation@example.com"
		mails := len(e.smtp.Messages())
		owner.takeDialogs()

		owner.do(t, "fill the Reactivate form",
			chromedp.SendKeys(byLabel("Send to"), sendTo),
			chromedp.Click(byLabel("Refulfill")))
		if !eval[bool](t, owner, `byLabel('Refulfill').checked`) {
			t.Fatal("clicking the Refulfill label did not tick it")
		}
		// The sentence under the form and the confirmation follow what was entered,
		// word for word as the server writes it for the same values.
		what := eval[string](t, owner, `text(document.querySelector('#reactivate-what'))`)
		wantWhat := whatReactivationDoes(t, e, id, sendTo, true)
		if what != wantWhat || !strings.Contains(what, sendTo) {
			t.Errorf("after filling the form, it says %q, want %q", what, wantWhat)
		}
		wantConfirm := fmt.Sprintf("Reactivate purchase #%d? %s", id, wantWhat)
		// The click waits for the hx-confirm dialog, which the tab accepts.
		owner.do(t, "press Reactivate", chromedp.Click(buttonByText("Reactivate")))
		owner.waitFor(t, "the result in place and a new Reactivated entry on the timeline",
			`text(document.querySelector('#reactivate [role=status]'))?.includes(`+js(sendTo)+`) &&
			`+reactivated+`.length === `+fmt.Sprint(before+1)+` &&
			text(`+reactivated+`[0]).includes(`+js(sendTo)+`) && text(`+reactivated+`[0]).includes('Refulfilled') &&
			text(document.querySelector('#purchase-status')).includes('Active')`,
			`({href: location.href, result: text(document.querySelector('#reactivate')), timeline: text(document.querySelector('#timeline')).slice(0, 400), status: text(document.querySelector('#purchase-status'))})`)
		if eval[any](t, owner, `window.__marker`) != float64(2) {
			t.Error("reactivating reloaded the whole page")
		}
		if got := eval[int](t, owner, `history.length`); got != entries {
			t.Errorf("reactivating left %d new history entries, want none", got-entries)
		}
		if d := owner.takeDialogs(); len(d) != 1 || d[0] != wantConfirm {
			t.Errorf("confirm dialogs: got %q, want one question: %q", d, wantConfirm)
		} else {
			t.Logf("hx-confirm asked: %q", d[0])
		}
		msgs := e.smtp.Wait(mails+1, 10*time.Second)
		if got := msgs[len(msgs)-1].To; got != sendTo {
			t.Errorf("e-mail to %s, want %s", got, sendTo)
		}
		if st, _ := purchaseState(t, e, id); st != "ACT" {
			t.Errorf("status after reactivation: got %s, want ACT", st)
		}
		for _, v := range viewports {
			owner.setViewport(t, v)
			owner.screenshot(t, "purchase-reactivated", v)
		}
		owner.setViewport(t, viewports[0])
		owner.checkConsole(t)
	})

	t.Run("ViewerCannotReactivate", func(t *testing.T) {
		id, _ := pickPurchase(t, e, used, "PND")
		path := fmt.Sprintf("/purchases/%d", id)
		viewer := signedInTab(t, browser, e.url, path, viewerEmail)
		if got := eval[string](t, viewer, `location.pathname`); got != path {
			t.Fatalf("after the viewer's sign-in: got %s, want %s", got, path)
		}
		got := eval[map[string]any](t, viewer, `({button: !!buttonByText('Reactivate'), form: !!document.querySelector('form[action$="/reactivate"]'),
			sendTo: !!byLabel('Send to'), why: text(document.querySelector('#reactivate'))})`)
		if got["button"] != false || got["form"] != false || got["sendTo"] != false {
			t.Errorf("a viewer sees the Reactivate form: %v", got)
		}
		why, _ := got["why"].(string)
		if !strings.Contains(strings.ToLower(why), "not reactivate") {
			t.Errorf("the Reactivate panel for a viewer says %q, want the sentence saying why it cannot reactivate", why)
		}
		viewer.checkConsole(t)
	})

	t.Run("CrossSitePostRefused", func(t *testing.T) {
		// With the session valid, first the reactivation, then the sign-out.
		id, _ := pickPurchase(t, e, used, "ERR")
		status, entries := purchaseState(t, e, id)
		mails := len(e.smtp.Messages())
		target := fmt.Sprintf("%s/purchases/%d/reactivate", e.url, id)
		st, at := owner.postFromOtherSite(t, target, url.Values{"customer_email": {"thief@evil.test"}, "refulfill": {"1"}})
		if st != http.StatusForbidden || at != target {
			t.Errorf("cross-site POST %s: got %d at %s, want 403", target, st, at)
		}
		if st, n := purchaseState(t, e, id); st != status || n != entries {
			t.Errorf("after the cross-site reactivation: status %s with %d activity entries, want %s with %d", st, n, status, entries)
		}
		if n := len(e.smtp.Messages()); n != mails {
			t.Errorf("the cross-site reactivation sent %d e-mails", n-mails)
		}
		if st, at := owner.postFromOtherSite(t, e.url+"/logout", nil); st != http.StatusForbidden || at != e.url+"/logout" {
			t.Errorf("cross-site POST /logout: got %d at %s, want 403", st, at)
		}
		if st := owner.open(t, "/purchases"); st != http.StatusOK || eval[string](t, owner, `location.pathname`) != "/purchases" {
			t.Errorf("after the cross-site sign-out the session is gone: got %d at %s", st, eval[string](t, owner, `location.href`))
		}
		// The two refused posts are the only errors.
		owner.checkConsole(t, failedLoad{http.StatusForbidden, target}, failedLoad{http.StatusForbidden, e.url + "/logout"})
	})

	t.Run("Webhooks", func(t *testing.T) { browserWebhooks(t, e, owner) })

	t.Run("Screenshots", func(t *testing.T) {
		prefix := emailPrefix(t, e, "ACT", "PND")
		hooks := webhookScreens(t, e)
		anon := newTab(t, browser, e.url)
		for _, v := range viewports {
			anon.openAt(t, v, "/login")
			anon.screenshot(t, "sign-in", v)

			owner.setViewport(t, v)
			for _, p := range []struct{ name, path string }{
				{"purchases-filtered", "/purchases?status=ACT&status=PND&customer_email=" + prefix},
				{"subscribers", "/subscribers"},
				{"account", "/account"},
				{"password", "/account/password"},
				{"api-docs", "/docs/api"},
				{"search-help", "/docs/search"},
				{"webhooks", "/webhooks"},
				{"webhook", hooks},
			} {
				if st := owner.open(t, p.path); st != http.StatusOK {
					t.Fatalf("%s: got %d, want 200", p.path, st)
				}
				owner.screenshot(t, p.name, v)
				if p.name == "search-help" {
					// The rules numbered in the document are numbered on the page.
					if got := eval[string](t, owner, `[...new Set([...document.querySelectorAll('.api-docs ol')].map(o => getComputedStyle(o).listStyleType))].join()`); got != "decimal" {
						t.Errorf("search help: numbered lists styled %q, want decimal", got)
					}
				}
				if p.name == "subscribers" {
					// The first visible link: phones get cards, wider screens the table.
					link := chromedp.JSPath(`[...document.querySelectorAll('main a[href]')].find(a => a.offsetParent !== null && /^\/storefronts\/\d+\/subscribers\/\d+$/.test(a.getAttribute('href')))`)
					if st := owner.follow(t, "open a subscriber", chromedp.Click(link)); st != http.StatusOK {
						t.Fatalf("subscriber page: got %d, want 200", st)
					}
					owner.screenshot(t, "subscriber", v)
				}
			}
		}
		owner.setViewport(t, viewports[0])
		anon.checkConsole(t)
		owner.checkConsole(t)
		abs, _ := filepath.Abs(screenshotDir)
		t.Logf("screenshots in %s", abs)
	})
	t.Logf("browser tests took %v", time.Since(start).Round(time.Millisecond))
}
