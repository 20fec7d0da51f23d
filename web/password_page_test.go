package web_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// signInAs signs an existing user in on a new client (another browser).
func (e *apiEnv) signInAs(email, password string) *dashUser {
	e.t.Helper()
	jar, _ := cookiejar.New(nil)
	u := &dashUser{e: e, email: email, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	if r := u.post("/login", url.Values{"email": {email}, "password": {password}}); r.status != http.StatusSeeOther {
		e.t.Fatalf("sign-in as %s: got %d %s", email, r.status, r.body)
	}
	return u
}

// sessionCookie returns the value of the client's session cookie.
func (u *dashUser) sessionCookie() string {
	base, _ := url.Parse(u.e.url)
	for _, c := range u.client.Jar.Cookies(base) {
		if c.Name == "storefront_session" {
			return c.Value
		}
	}
	return ""
}

func TestDashboard_ChangePassword(t *testing.T) {
	e := newAPI(t, 0)
	form := func(current, next, confirm string) url.Values {
		return url.Values{"current_password": {current}, "new_password": {next}, "confirm_password": {confirm}}
	}

	t.Run("PageForEveryRole", func(t *testing.T) {
		e := e.with(t)
		for _, role := range []string{"owner", "staff", "viewer"} {
			u := e.signIn(e.id(1), role)
			r := u.get("/account/password", false)
			if r.status != http.StatusOK {
				t.Fatalf("%s: got %d", role, r.status)
			}
			body := string(r.body)
			for _, want := range []string{`action="/account/password"`, `method="post"`, `for="current_password"`, `for="new_password"`, `for="confirm_password"`, "Change password"} {
				if !strings.Contains(body, want) {
					t.Errorf("%s: page lacks %s", role, want)
				}
			}
			if !strings.Contains(body, `href="/account/password"`) {
				t.Errorf("%s: no link to the password page in the header", role)
			}
		}
	})

	t.Run("SignedOutGoesToSignIn", func(t *testing.T) {
		e := e.with(t)
		jar, _ := cookiejar.New(nil)
		u := &dashUser{e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
		if r := u.get("/account/password", false); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
			t.Fatalf("GET: got %d to %q", r.status, r.header.Get("Location"))
		}
		if r := u.post("/account/password", form(dashPassword, "new password 1", "new password 1")); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
			t.Fatalf("POST: got %d to %q", r.status, r.header.Get("Location"))
		}
	})

	t.Run("Refused", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "staff")
		for _, tc := range []struct {
			name, current, next, confirm, field, msg string
		}{
			{"WrongCurrent", "not my password", "new password 1", "new password 1", "current_password", "The current password is not right."},
			{"NoCurrent", "", "new password 1", "new password 1", "current_password", "Enter your current password."},
			{"TooShort", dashPassword, "1234567", "1234567", "new_password", "at least 8 characters"},
			{"TooLong", dashPassword, strings.Repeat("x", 73), strings.Repeat("x", 73), "new_password", "at most 72 bytes"},
			{"NotTheSame", dashPassword, "new password 1", "new password 2", "confirm_password", "are not the same"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := u.post("/account/password", form(tc.current, tc.next, tc.confirm))
				if r.status != http.StatusBadRequest {
					t.Fatalf("got %d, want 400", r.status)
				}
				body := string(r.body)
				if !strings.Contains(body, `id="`+tc.field+`-error"`) || !strings.Contains(body, tc.msg) {
					t.Fatalf("no message %q at %s in %s", tc.msg, tc.field, body)
				}
				// The passwords typed are never sent back.
				for _, p := range []string{tc.current, tc.next} {
					if len(p) >= 8 && strings.Contains(body, p) {
						t.Fatalf("the page echoes a password %q", p)
					}
				}
			})
		}
		// Nothing changed: the old password still signs in, the session goes on.
		if r := u.get("/purchases", false); r.status != http.StatusOK {
			t.Fatalf("session after refused changes: %d", r.status)
		}
		e.signInAs(u.email, dashPassword)
		e.clock.advance(2 * time.Hour) // let the failures age out of the throttle
	})

	t.Run("ChangeEndsOtherSessions", func(t *testing.T) {
		e := e.with(t)
		me := e.signIn(e.id(1), "viewer")
		other := e.signInAs(me.email, dashPassword)
		third := e.signInAs(me.email, dashPassword)
		bystander := e.signIn(e.id(1), "owner")
		before := me.sessionCookie()

		const next = "a much better passphrase"
		r := me.post("/account/password", form(dashPassword, next, next))
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/account/password" {
			t.Fatalf("change: got %d to %q %s", r.status, r.header.Get("Location"), r.body)
		}
		// The current session is renewed: a new id in a new cookie...
		after := me.sessionCookie()
		if after == "" || after == before {
			t.Fatal("the session cookie was not renewed")
		}
		page := me.get("/account/password", false)
		if page.status != http.StatusOK || !strings.Contains(string(page.body), "Password changed; other sessions were signed out.") {
			t.Fatalf("after the change: %d, no notice", page.status)
		}
		// ...and the old cookie opens nothing.
		stale := e.signInAs(bystander.email, dashPassword)
		base, _ := url.Parse(e.url)
		stale.client.Jar.SetCookies(base, []*http.Cookie{{Name: "storefront_session", Value: before, Path: "/"}})
		if r := stale.get("/purchases", false); r.status != http.StatusSeeOther {
			t.Fatalf("the session before the change: got %d, want a redirect to sign-in", r.status)
		}
		// Every other session of the user is over, server-side.
		for i, u := range []*dashUser{other, third} {
			if r := u.get("/purchases", false); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
				t.Fatalf("other session %d: got %d, want a redirect to sign-in", i, r.status)
			}
		}
		var n int
		if err := e.db.QueryRow("SELECT COUNT(*) FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ?", me.email).Scan(&n); err != nil || n != 1 {
			t.Fatalf("sessions of the user: got %d (%v), want 1", n, err)
		}
		// Another user's session is untouched.
		if r := bystander.get("/purchases", false); r.status != http.StatusOK {
			t.Fatalf("another user's session: got %d", r.status)
		}
		// The new password signs in, the old one no longer does.
		e.signInAs(me.email, next)
		if r := stale.post("/login", url.Values{"email": {me.email}, "password": {dashPassword}}); r.status != http.StatusUnauthorized {
			t.Fatalf("the old password: got %d, want 401", r.status)
		}
		e.clock.advance(2 * time.Hour)
	})

	t.Run("WrongCurrentIsThrottled", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "staff")
		defer e.clock.advance(2 * time.Hour)
		for i := 0; i < 5; i++ {
			if r := u.post("/account/password", form("wrong guess", "new password 1", "new password 1")); r.status != http.StatusBadRequest {
				t.Fatalf("guess %d: got %d", i+1, r.status)
			}
		}
		r := u.post("/account/password", form(dashPassword, "new password 1", "new password 1"))
		if r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" || !strings.Contains(string(r.body), "Too many wrong passwords") {
			t.Fatalf("after 5 wrong guesses: got %d", r.status)
		}
	})

	t.Run("CrossSiteRefused", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "owner")
		req, _ := http.NewRequest("POST", e.url+"/account/password", strings.NewReader(form(dashPassword, "hijacked pass", "hijacked pass").Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.test")
		if r := u.do(req); r.status != http.StatusForbidden {
			t.Fatalf("cross-site change: got %d, want 403", r.status)
		}
		e.signInAs(u.email, dashPassword)
	})
}
