package web_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
)

var (
	secretRE   = regexp.MustCompile(`id="totp-secret"[^>]*>([A-Z2-7]+)<`)
	recoveryRE = regexp.MustCompile(`<li>([a-z2-9]{5}-[a-z2-9]{5})</li>`)
)

// codeAt is the authenticator app's code for secret at t.
func codeAt(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// setUpAuthenticator turns u's authenticator app on and returns its secret and
// recovery codes.
func (u *dashUser) setUpAuthenticator(t *testing.T) (string, []string) {
	t.Helper()
	page := string(u.get("/account/security/authenticator", false).body)
	m := secretRE.FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `src="data:image/png;base64,`) {
		t.Fatalf("set-up page without a secret or QR code: %s", page)
	}
	r := u.post("/account/security/authenticator", url.Values{"code": {codeAt(t, m[1], u.e.clock.now())}})
	codes := recoveryRE.FindAllStringSubmatch(string(r.body), -1)
	if r.status != http.StatusOK || len(codes) != 10 {
		t.Fatalf("turn on: %d, %d recovery codes: %s", r.status, len(codes), r.body)
	}
	var out []string
	for _, c := range codes {
		out = append(out, c[1])
	}
	return m[1], out
}

// password gives email's password on a new client and returns it, waiting for its code.
func (e *apiEnv) password(email string) *dashUser {
	e.t.Helper()
	jar, _ := cookiejar.New(nil)
	u := &dashUser{e: e, email: email, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	r := u.post("/login", url.Values{"email": {email}, "password": {dashPassword}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login/code" {
		e.t.Fatalf("password of %s: got %d to %q", email, r.status, r.header.Get("Location"))
	}
	return u
}

// code sends a code of the second step and wants status and, in the page, msg.
func (u *dashUser) code(t *testing.T, code string, status int, msg string) response {
	t.Helper()
	r := u.post("/login/code", url.Values{"code": {code}})
	if r.status != status || !strings.Contains(string(r.body), msg) {
		t.Fatalf("code %q: got %d (want %d) without %q: %s", code, r.status, status, msg, r.body)
	}
	return r
}

// forgetFailures forgets failed sign-ins: every test client signs in from 127.0.0.1,
// whose count a success does not clear.
func (e *apiEnv) forgetFailures() { e.exec("DELETE FROM sign_in_failures") }

func TestAuthenticator(t *testing.T) {
	e := newAPI(t, 0)

	t.Run("SetUp", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "viewer")
		if page := string(u.get("/account/security", false).body); !strings.Contains(page, "Set up an authenticator app") {
			t.Fatal("no set-up link on the Security page")
		}
		first := secretRE.FindStringSubmatch(string(u.get("/account/security/authenticator", false).body))[1]
		again := secretRE.FindStringSubmatch(string(u.get("/account/security/authenticator", false).body))[1]
		if first != again {
			t.Fatal("a reload shows another key")
		}
		now := e.clock.now()
		for _, tc := range []struct{ code, msg string }{
			{"", "Enter the 6-digit code"},
			{"12345", "The code is the 6 digits"},
			{codeAt(t, first, now.Add(30*time.Second)), "not right or has expired"},
			{codeAt(t, first, now.Add(-60*time.Second)), "not right or has expired"},
		} {
			r := u.post("/account/security/authenticator", url.Values{"code": {tc.code}})
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), tc.msg) {
				t.Fatalf("code %q: %d %s", tc.code, r.status, r.body)
			}
		}
		if n := e.count("SELECT COUNT(*) FROM user_totp WHERE account_id = ? AND user_id = ?", e.id(1), e.acctUserID(u.email)); n != 0 {
			t.Fatal("a refused code turned the app on")
		}
		secret, codes := u.setUpAuthenticator(t)
		if secret != first {
			t.Fatal("the key turned on is not the one shown")
		}
		id := e.acctUserID(u.email)
		if n := e.count("SELECT COUNT(*) FROM user_recovery_codes WHERE account_id = ? AND user_id = ? AND used_at IS NULL", e.id(1), id); n != 10 {
			t.Fatalf("%d recovery codes stored", n)
		}
		if n := e.count("SELECT COUNT(*) FROM user_recovery_codes WHERE account_id = ? AND user_id = ? AND code_hash = ?", e.id(1), id, codes[0]); n != 0 {
			t.Fatal("a recovery code is stored as it is")
		}
		page := string(u.get("/account/security", false).body)
		if !strings.Contains(page, "Authenticator app: on") || !strings.Contains(page, "Recovery codes left: 10 of 10.") || strings.Contains(page, codes[0]) {
			t.Fatalf("security page after: %s", page)
		}
		// Set-up again goes back to the Security page.
		if r := u.get("/account/security/authenticator", false); r.status != http.StatusSeeOther {
			t.Fatalf("set-up again: %d", r.status)
		}
	})

	t.Run("SignIn", func(t *testing.T) {
		e := e.with(t)
		e.forgetFailures()
		email := e.newUser(e.id(1), "staff")
		owner := e.signInAs(email, dashPassword)
		secret, codes := owner.setUpAuthenticator(t)
		// The password alone no longer signs in.
		u := e.password(email)
		if !u.signedOut(t) {
			t.Fatal("signed in with the password alone")
		}
		if r := u.get("/login/code", false); r.status != http.StatusOK || !strings.Contains(string(r.body), `autocomplete="one-time-code"`) {
			t.Fatalf("code page: %d", r.status)
		}
		now := e.clock.now()
		// The code that turned the app on was used.
		u.code(t, codeAt(t, secret, now), 401, "That code was used already.")
		e.clock.advance(30 * time.Second)
		now = e.clock.now()
		u.code(t, codeAt(t, secret, now.Add(30*time.Second)), 401, "not right or has expired")
		u.code(t, codeAt(t, secret, now.Add(-60*time.Second)), 401, "not right or has expired")
		u.code(t, "000000"[:6], 401, "")
		if r := u.code(t, " "+codeAt(t, secret, now)[:3]+" "+codeAt(t, secret, now)[3:], 303, ""); r.header.Get("Location") != "/" {
			t.Fatalf("signed in to %q", r.header.Get("Location"))
		}
		if u.signedOut(t) {
			t.Fatal("not signed in after the code")
		}
		// Every client here is 127.0.0.1: its failures are forgotten between steps.
		e.forgetFailures()
		// The same code, or the step before, in another browser: used.
		v := e.password(email)
		v.code(t, codeAt(t, secret, now), 401, "That code was used already.")
		v.code(t, codeAt(t, secret, now.Add(-30*time.Second)), 401, "That code was used already.")
		// A recovery code works once, in any case and with spaces.
		v.code(t, strings.ToUpper(codes[3]), 303, "")
		e.forgetFailures()
		w := e.password(email)
		w.code(t, codes[3], 401, "not right or was used already")
		w.code(t, "aaaaa-aaaaa", 401, "not right or was used already")
		w.code(t, "", 400, "Enter the code")
		if page := string(v.get("/account/security", false).body); !strings.Contains(page, "Recovery codes left: 9 of 10.") {
			t.Fatal("the used recovery code still counts")
		}
	})

	t.Run("Throttled", func(t *testing.T) {
		e := e.with(t)
		e.forgetFailures()
		email := e.newUser(e.id(1), "staff")
		secret, _ := e.signInAs(email, dashPassword).setUpAuthenticator(t)
		e.clock.advance(30 * time.Second)
		u := e.password(email)
		for range 5 {
			u.code(t, "111111", 401, "not right")
		}
		// The right code is refused too while the wait lasts, and so is the password
		// step: a known password does not reset the count.
		r := u.code(t, codeAt(t, secret, e.clock.now()), 429, "Too many wrong codes.")
		if r.header.Get("Retry-After") == "" {
			t.Fatal("no Retry-After")
		}
		if r := u.post("/login", url.Values{"email": {email}, "password": {dashPassword}}); r.status != http.StatusTooManyRequests {
			t.Fatalf("password during the wait: %d", r.status)
		}
		e.clock.advance(2 * time.Second)
		u.code(t, codeAt(t, secret, e.clock.now()), 303, "")
	})

	t.Run("ExpiredOrMissingSecondStep", func(t *testing.T) {
		e := e.with(t)
		e.forgetFailures()
		email := e.newUser(e.id(1), "viewer")
		secret, _ := e.signInAs(email, dashPassword).setUpAuthenticator(t)
		u := e.password(email)
		e.clock.advance(6 * time.Minute)
		u.code(t, codeAt(t, secret, e.clock.now()), 401, "Your sign-in has expired")
		jar, _ := cookiejar.New(nil)
		stranger := &dashUser{e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
		stranger.code(t, "123456", 401, "Your sign-in has expired")
		if r := stranger.get("/login/code", false); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
			t.Fatalf("code page without a password: %d", r.status)
		}
	})

	t.Run("Remove", func(t *testing.T) {
		e := e.with(t)
		e.forgetFailures()
		email := e.newUser(e.id(1), "owner")
		a := e.signInAs(email, dashPassword)
		x := e.signInAs(email, dashPassword)
		a.setUpAuthenticator(t)
		e.clock.advance(30 * time.Second)
		b := e.password(email)
		if r := a.post("/account/security/authenticator/remove", nil); r.status != http.StatusSeeOther {
			t.Fatalf("remove: %d", r.status)
		}
		if page := string(a.get("/account/security", false).body); !strings.Contains(page, "Set up an authenticator app") || !strings.Contains(page, "your other sessions were signed out") {
			t.Fatalf("page after removal: %s", page)
		}
		if !x.signedOut(t) || a.signedOut(t) {
			t.Fatal("after removal: the other session lives, or this one ended")
		}
		if r := b.post("/login/code", url.Values{"code": {"123456"}}); r.status != http.StatusUnauthorized {
			t.Fatalf("a pending sign-in after removal: %d", r.status)
		}
		// The password alone signs in again.
		e.signInAs(email, dashPassword)
		if r := a.post("/account/security/authenticator/remove", nil); r.status != http.StatusNotFound {
			t.Fatalf("remove again: %d", r.status)
		}
	})
}
