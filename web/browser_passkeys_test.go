package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// addVirtualAuthenticator gives the tab's browser an authenticator of its own, through
// the DevTools protocol's WebAuthn domain: built in (as a laptop's or a phone's), it
// keeps discoverable credentials and verifies its user, as a screen lock does.
func (tb *tab) addVirtualAuthenticator(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Call(ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		t.Fatalf("WebAuthn.enable: %v", err)
	}
	if _, err := chromedp.Call(ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{Options: &webauthn.VirtualAuthenticatorOptions{
		Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21, Transport: webauthn.AuthenticatorTransportInternal,
		HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
	}}); err != nil {
		t.Fatalf("WebAuthn.addVirtualAuthenticator: %v", err)
	}
}

// visible is a JavaScript test that the button saying text is shown.
func visible(text string) string {
	return `buttonByText(` + js(text) + `) && !buttonByText(` + js(text) + `).closest('[hidden]')`
}

// addPasskey names a passkey on the Security page and adds it with the tab's
// authenticator.
func (tb *tab) addPasskey(t *testing.T, name string) {
	t.Helper()
	tb.waitFor(t, "the passkey form", `location.pathname === '/account/security' && byLabel('Passkey name') && `+visible("Add a passkey"), `document.body.innerText`)
	tb.do(t, "name the passkey", chromedp.SendKeys(byLabel("Passkey name"), name))
	tb.do(t, "add the passkey", chromedp.Click(buttonByText("Add a passkey")))
	tb.waitFor(t, "the passkey added", `document.body.innerText.includes('The passkey "`+name+`" was added') && [...document.querySelectorAll('#passkeys li')].some(li => li.textContent.includes(`+js(name)+`))`,
		`document.body.innerText`)
}

// TestBrowser_Passkeys adds a passkey with Chromium's virtual authenticator, signs in
// with it alone, then with the password and it as the second step, and removes it,
// which signs a session opened elsewhere out; at both sizes, axe and the console clean.
func TestBrowser_Passkeys(t *testing.T) {
	br := startBrowser(t)
	e := newAPI(t, 0)
	base := passkeyOrigin(e.url)
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			e := e.with(t)
			e.forgetFailures()
			email := e.newUser(e.id(1), "staff")
			id := e.acctUserID(email)
			elsewhere := e.signInAs(email, dashPassword)
			tb := newTab(t, br, base)
			tb.addVirtualAuthenticator(t)
			tb.openAt(t, v, "/account/security")
			tb.signIn(t, email)
			tb.waitFor(t, "Security", `location.pathname === '/account/security' && `+visible("Add a passkey"), `document.body.innerText`)
			tb.checkAxe(t, "Security, with the passkey form")
			tb.addPasskey(t, "Test laptop")
			tb.checkAxe(t, "Security, with a passkey")
			tb.screenshot(t, "security-passkey", v)
			if n := e.count("SELECT COUNT(*) FROM user_passkeys WHERE account_id = ? AND user_id = ? AND name = 'Test laptop'", e.id(1), id); n != 1 {
				t.Fatalf("%d passkeys stored", n)
			}

			// Signed out, the passkey alone signs in.
			signOut := func() {
				if st := tb.follow(t, "sign out", chromedp.Click(buttonByText("Sign out"))); st != http.StatusOK {
					t.Fatalf("sign out: %d", st)
				}
			}
			signOut()
			tb.waitFor(t, "the passkey button", `location.pathname === '/login' && `+visible("Sign in with a passkey"), `document.body.innerText`)
			tb.checkAxe(t, "Sign in, with the passkey button")
			tb.screenshot(t, "login-passkey", v)
			tb.do(t, "sign in with the passkey", chromedp.Click(buttonByText("Sign in with a passkey")))
			tb.waitFor(t, "signed in with the passkey", `location.pathname === '/'`, `document.body.innerText`)
			if n := e.count("SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND user_id = ? AND action = 'sign_in' AND details = 'passkey: Test laptop'", e.id(1), id); n != 1 {
				t.Fatalf("%d records of the passkey sign-in", n)
			}
			if n := e.count("SELECT sign_count FROM user_passkeys WHERE account_id = ? AND user_id = ?", e.id(1), id); n < 1 {
				t.Fatalf("sign counter %d after a sign-in", n)
			}

			// The password then asks for the passkey.
			signOut()
			tb.signIn(t, email)
			tb.waitFor(t, "the second step", `location.pathname === '/login/code' && `+visible("Sign in with a passkey"), `document.body.innerText`)
			tb.checkAxe(t, "Use your passkey")
			tb.do(t, "use the passkey", chromedp.Click(buttonByText("Sign in with a passkey")))
			tb.waitFor(t, "signed in with password and passkey", `location.pathname === '/'`, `document.body.innerText`)

			// Removing it ends the session opened elsewhere.
			if elsewhere.signedOut(t) {
				t.Fatal("the other session ended before the passkey was removed")
			}
			tb.openAt(t, v, "/account/security")
			if st := tb.follow(t, "remove the passkey", chromedp.Click(buttonByText("Remove"))); st != http.StatusOK {
				t.Fatalf("remove: %d", st)
			}
			tb.waitFor(t, "the passkey removed", `document.body.innerText.includes('The passkey was removed') && !document.querySelector('#passkeys')`, `document.body.innerText`)
			tb.checkAxe(t, "Security, the passkey removed")
			if !elsewhere.signedOut(t) {
				t.Fatal("the session opened elsewhere lives after the passkey was removed")
			}
			tb.checkConsole(t)
		})
	}
}

// TestBrowser_PasskeysElsewhere opens the dashboard at 127.0.0.1, whose passkeys are kept
// at localhost: adding one and signing in with one say where to go instead of the
// browser's bare SecurityError.
func TestBrowser_PasskeysElsewhere(t *testing.T) {
	br := startBrowser(t)
	e := newAPI(t, 0)
	if !strings.Contains(e.url, "127.0.0.1") {
		t.Fatalf("the test server is not at 127.0.0.1: %s", e.url)
	}
	v := viewports[1]
	email := e.newUser(e.id(1), "staff")
	tb := newTab(t, br, e.url)
	tb.addVirtualAuthenticator(t)
	tb.openAt(t, v, "/account/security")
	tb.signIn(t, email)
	tb.waitFor(t, "the passkey form", `location.pathname === '/account/security' && byLabel('Passkey name') && `+visible("Add a passkey"), `document.body.innerText`)
	tb.do(t, "name the passkey", chromedp.SendKeys(byLabel("Passkey name"), "Phone"))
	tb.do(t, "add the passkey", chromedp.Click(buttonByText("Add a passkey")))
	want := `Passkeys of this dashboard are kept at localhost: open it at ` + passkeyOrigin(e.url)
	tb.waitFor(t, "where passkeys are kept", `text(document.querySelector('#passkey-error')).startsWith(`+js(want)+`)`, `text(document.querySelector('#passkey-error'))`)
	tb.checkAxe(t, "Security, the passkey refused at 127.0.0.1")
	if n := e.count("SELECT COUNT(*) FROM user_passkeys WHERE account_id = ?", e.id(1)); n != 0 {
		t.Fatalf("%d passkeys stored", n)
	}
	if st := tb.follow(t, "sign out", chromedp.Click(buttonByText("Sign out"))); st != http.StatusOK {
		t.Fatalf("sign out: %d", st)
	}
	tb.waitFor(t, "the passkey button", `location.pathname === '/login' && `+visible("Sign in with a passkey"), `document.body.innerText`)
	tb.do(t, "sign in with a passkey", chromedp.Click(buttonByText("Sign in with a passkey")))
	tb.waitFor(t, "where passkeys are kept", `[...document.querySelectorAll('[data-passkey-error]')].some(el => text(el).startsWith(`+js(want)+`))`, `document.body.innerText`)
	tb.checkConsole(t)
}

// TestBrowser_TwoFactorRequired has an owner require two-step sign-in on the Keys &
// users page; a user without a factor is then taken to Security after signing in, is
// sent back there from any other page, and goes on once they add a passkey.
func TestBrowser_TwoFactorRequired(t *testing.T) {
	br := startBrowser(t)
	e := newAPI(t, 0)
	base := passkeyOrigin(e.url)
	t.Cleanup(func() { e.exec("UPDATE accounts SET require_two_factor = FALSE WHERE id IN (?, ?)", e.id(1), e.id(2)) })
	for _, v := range viewports {
		t.Run(v.name, func(t *testing.T) {
			e := e.with(t)
			e.forgetFailures()
			e.exec("UPDATE accounts SET require_two_factor = FALSE WHERE id IN (?, ?)", e.id(1), e.id(2))
			ownerEmail := e.newUser(e.id(1), "owner")
			owner := newTab(t, br, base)
			owner.openAt(t, v, "/account")
			owner.signIn(t, ownerEmail)
			// The owner has a passkey (made in Go, as if added on another device).
			newSoftKey(t, e.id(1), e.acctUserID(ownerEmail)).store(t, e, "Owner's phone")
			owner.openAt(t, v, "/account")
			if st := owner.follow(t, "require two-step sign-in", chromedp.Click(buttonByText("Require two-step sign-in"))); st != http.StatusOK {
				t.Fatalf("require: %d", st)
			}
			owner.waitFor(t, "the requirement on", `document.body.innerText.includes('Two-step sign-in is now required') && `+visible("Stop requiring two-step sign-in"), `document.body.innerText`)
			owner.checkAxe(t, "Keys & users, two-step sign-in required")
			owner.screenshot(t, "account-two-factor", v)

			email := e.newUser(e.id(1), "viewer")
			tb := newTab(t, br, base)
			tb.addVirtualAuthenticator(t)
			tb.openAt(t, v, "/purchases")
			tb.signIn(t, email)
			tb.waitFor(t, "taken to Security", `location.pathname === '/account/security' && document.getElementById('two-factor-required')`, `location.href + ' ' + document.body.innerText`)
			tb.checkAxe(t, "Security, two-step sign-in required")
			tb.screenshot(t, "security-required", v)
			if st := tb.open(t, "/purchases"); st != http.StatusOK {
				t.Fatalf("purchases: %d", st)
			}
			tb.waitFor(t, "sent back to Security", `location.pathname === '/account/security'`, `location.href`)
			tb.addPasskey(t, "My phone")
			if st := tb.open(t, "/purchases"); st != http.StatusOK {
				t.Fatalf("purchases with a passkey: %d", st)
			}
			tb.waitFor(t, "the purchases", `location.pathname === '/purchases'`, `location.href`)

			owner.openAt(t, v, "/account")
			if st := owner.follow(t, "stop requiring", chromedp.Click(buttonByText("Stop requiring two-step sign-in"))); st != http.StatusOK {
				t.Fatalf("stop requiring: %d", st)
			}
			owner.waitFor(t, "the requirement off", `document.body.innerText.includes('Two-step sign-in is no longer required') && `+visible("Require two-step sign-in"), `document.body.innerText`)
			tb.checkConsole(t)
			owner.checkConsole(t)
		})
	}
}
