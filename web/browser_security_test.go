package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// enterCode types a code into the code form the page shows and submits it; it
// returns the status of the page that answers.
func (tb *tab) enterCode(t *testing.T, label, button, code string) int64 {
	t.Helper()
	tb.waitFor(t, "the code form", `byLabel(`+js(label)+`)`, `location.href`)
	tb.do(t, "type the code", chromedp.SendKeys(byLabel(label), code))
	return tb.follow(t, "send the code", chromedp.Click(buttonByText(button)))
}

// TestBrowser_Security sets an authenticator app up from the key the page shows,
// signs in with a code computed from it, is refused a reused code, signs in with a
// recovery code, and signs a second browser out with "Sign out everywhere else", at
// both sizes; axe and the console are clean on every page.
func TestBrowser_Security(t *testing.T) {
	br := startBrowser(t)
	e := newAPI(t, 0)
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			e := e.with(t)
			e.forgetFailures()
			email := e.newUser(e.id(1), "staff")
			tb := signedInTab(t, br, e.url, "/account/security", email)
			tb.openAt(t, v, "/account/security")
			tb.checkAxe(t, "Security")

			// Set-up: the QR code and the key as text; the first code turns it on.
			if st := tb.follow(t, "open the set-up", chromedp.Click(chromedp.JSPath(withHelpers(`[...document.querySelectorAll('a')].find(a => a.textContent.trim() === 'Set up an authenticator app')`)))); st != http.StatusOK {
				t.Fatalf("set-up page: %d", st)
			}
			tb.waitFor(t, "the QR code", `document.querySelector('img[alt^="QR code"]') && document.querySelector('img[alt^="QR code"]').naturalWidth > 0`, `document.body.innerText`)
			secret := eval[string](t, tb, `text(document.getElementById('totp-secret'))`)
			tb.checkAxe(t, "Set up an authenticator app")
			if st := tb.enterCode(t, "Code from the app", "Turn on", codeAt(t, secret, e.clock.now())); st != http.StatusOK {
				t.Fatalf("turn on: %d", st)
			}
			codes := eval[[]string](t, tb, `[...document.querySelectorAll('#recovery-codes li')].map(text)`)
			if len(codes) != 10 {
				t.Fatalf("%d recovery codes shown", len(codes))
			}
			tb.checkAxe(t, "Recovery codes")

			// Sign out, and in with the password and a code of the next period.
			signOut := func() {
				if st := tb.follow(t, "sign out", chromedp.Click(buttonByText("Sign out"))); st != http.StatusOK {
					t.Fatalf("sign out: %d", st)
				}
			}
			signOut()
			tb.signIn(t, email)
			tb.waitFor(t, "the code page", `location.pathname === '/login/code'`, `location.href`)
			tb.checkAxe(t, "Enter your code")
			e.clock.advance(30 * time.Second)
			code := codeAt(t, secret, e.clock.now())
			tb.enterCode(t, "Code", "Sign in", code)
			tb.waitFor(t, "signed in", `location.pathname === '/'`, `document.body.innerText`)

			// The same code again is refused, saying why; a recovery code signs in.
			signOut()
			tb.signIn(t, email)
			if st := tb.enterCode(t, "Code", "Sign in", code); st != http.StatusUnauthorized {
				t.Fatalf("reused code: %d", st)
			}
			if msg := eval[string](t, tb, `text(document.getElementById('code-note'))`); !strings.Contains(msg, "used already") {
				t.Fatalf("reused code: message %q", msg)
			}
			tb.checkAxe(t, "a refused code")
			// The refusal is a 401, which the browser reports; nothing else is.
			tb.checkConsole(t, failedLoad{http.StatusUnauthorized, e.url + "/login/code"})
			tb.enterCode(t, "Code", "Sign in", codes[0])
			tb.waitFor(t, "signed in with a recovery code", `location.pathname === '/'`, `document.body.innerText`)

			// A second browser signs in; "Sign out everywhere else" here ends it.
			other := newTab(t, br, e.url)
			other.setViewport(t, v)
			other.open(t, "/account/security")
			other.signIn(t, email)
			e.clock.advance(30 * time.Second)
			other.enterCode(t, "Code", "Sign in", codeAt(t, secret, e.clock.now()))
			other.waitFor(t, "the second browser signed in", `location.pathname === '/account/security'`, `document.body.innerText`)
			tb.openAt(t, v, "/account/security")
			if st := tb.follow(t, "sign out everywhere else", chromedp.Click(buttonByText("Sign out everywhere else"))); st != http.StatusOK {
				t.Fatalf("sign out everywhere else: %d", st)
			}
			tb.waitFor(t, "the notice", `document.body.innerText.includes('Signed out everywhere else (1 session).')`, `document.body.innerText`)
			tb.checkAxe(t, "Security after signing out elsewhere")
			other.open(t, "/account/security")
			other.waitFor(t, "the second browser signed out", `location.pathname === '/login'`, `location.href`)
			tb.checkConsole(t)
			other.checkConsole(t)
		})
	}
}
