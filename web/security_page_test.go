package web_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/internal/mysql"
	"storefront/web"
)

// instance serves the environment's database from another server with the session
// key, as a second instance of the program behind a load balancer would.
func (e *apiEnv) instance(key []byte) string {
	e.t.Helper()
	db := e.db
	s := &web.Server{Purchases: mysql.NewPurchaseService(db), Writer: mysql.NewPurchaseService(db), Subscribers: mysql.NewSubscriberService(db), Keys: mysql.NewAPIKeyService(db),
		Accounts: mysql.NewAccountService(db), Users: mysql.NewUserService(db), Admin: mysql.NewAdminService(db), Webhooks: mysql.NewWebhookService(db),
		Overview: mysql.NewOverviewService(db), Views: mysql.NewSavedViewService(db), Jobs: mysql.NewJobService(db), Customers: mysql.NewCustomerService(db),
		Activity: mysql.NewAccountActivityService(db), Logger: serverLog, BaseURL: "http://shop.test", Now: e.clock.now,
		SignInStore: mysql.NewSignInStore(db), SessionKey: key}
	hs := httptest.NewServer(s.Handler())
	e.t.Cleanup(s.Wait)
	e.t.Cleanup(hs.Close)
	return hs.URL
}

// on returns the client talking to the server at base.
func (u *dashUser) on(base string) *dashUser {
	e := *u.e
	e.url = base
	return &dashUser{e: &e, client: u.client, email: u.email}
}

// signedOut reports whether a page of the dashboard sends the client to sign in.
func (u *dashUser) signedOut(t *testing.T) bool {
	t.Helper()
	r := u.get("/account/security", false)
	switch {
	case r.status == http.StatusOK:
		return false
	case r.status == http.StatusSeeOther && strings.HasPrefix(r.header.Get("Location"), "/login"):
		return true
	}
	t.Fatalf("security page: got %d %s", r.status, r.body)
	return false
}

var sessionFormRE = regexp.MustCompile(`action="(/account/security/sessions/\d+/end)"`)

func TestSecurity_Sessions(t *testing.T) {
	e := newAPI(t, 0)

	t.Run("ListsSessionsAndLinksFromHeader", func(t *testing.T) {
		e := e.with(t)
		a := e.signIn(e.id(1), "viewer")
		e.signInAs(a.email, dashPassword)
		r := a.get("/account/security", false)
		body := string(r.body)
		if r.status != http.StatusOK {
			t.Fatalf("got %d", r.status)
		}
		for _, want := range []string{`href="/account/security"`, "Signed-in sessions", "This session", "Sign out everywhere else", "From 127.0.0.1", "Go-http-client"} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %q", want)
			}
		}
		if n := strings.Count(body, "This session"); n != 1 {
			t.Errorf("%d sessions marked current, want 1", n)
		}
		if n := len(sessionFormRE.FindAllString(body, -1)); n != 1 {
			t.Errorf("%d per-session sign-out forms, want 1 (the other session)", n)
		}
	})

	t.Run("SignOutOne", func(t *testing.T) {
		e := e.with(t)
		a := e.signIn(e.id(1), "staff")
		b := e.signInAs(a.email, dashPassword)
		c := e.signInAs(a.email, dashPassword)
		// c's page names a and b; the first form is the most recently seen other
		// session.
		m := sessionFormRE.FindAllStringSubmatch(string(c.get("/account/security", false).body), -1)
		if len(m) != 2 {
			t.Fatalf("%d forms, want 2", len(m))
		}
		if r := c.post(m[0][1], nil); r.status != http.StatusSeeOther {
			t.Fatalf("sign out one: %d %s", r.status, r.body)
		}
		ended := 0
		for _, u := range []*dashUser{a, b} {
			if u.signedOut(t) {
				ended++
			}
		}
		if ended != 1 || c.signedOut(t) {
			t.Fatalf("%d of the two other sessions ended (want 1); current signed out: %v", ended, c.signedOut(t))
		}
		// Again: the session is gone, a clear 404.
		if r := c.post(m[0][1], nil); r.status != http.StatusNotFound || !strings.Contains(string(r.body), "it may have ended already") {
			t.Fatalf("again: %d %s", r.status, r.body)
		}
		// Another user's session, or nonsense, is not found / refused, never a 500.
		other := e.signIn(e.id(1), "staff")
		om := sessionFormRE.FindAllStringSubmatch(string(e.signInAs(other.email, dashPassword).get("/account/security", false).body), -1)
		if r := c.post(om[0][1], nil); r.status != http.StatusNotFound {
			t.Fatalf("another user's session: %d", r.status)
		}
		if other.signedOut(t) {
			t.Fatal("another user's session was ended")
		}
		if r := c.post("/account/security/sessions/abc/end", nil); r.status != http.StatusBadRequest {
			t.Fatalf("bad id: %d", r.status)
		}
	})

	t.Run("SignOutEverywhereElseOnEveryInstance", func(t *testing.T) {
		e := e.with(t)
		key := []byte("a key both instances share, 32b")
		one, two := e.instance(key), e.instance(key)
		email := e.newUser(e.id(1), "owner")
		e1 := *e
		e1.url = one
		a := (&e1).signInAs(email, dashPassword)
		b := (&e1).signInAs(email, dashPassword)
		// b's cookie is good on the other instance ...
		if b.on(two).signedOut(t) {
			t.Fatal("b's session is refused on the second instance")
		}
		r := a.post("/account/security/sessions/end-others", nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/account/security" {
			t.Fatalf("end others: %d %s", r.status, r.body)
		}
		if page := string(a.get("/account/security", false).body); !strings.Contains(page, "Signed out everywhere else (1 session).") || strings.Contains(page, "Sign out everywhere else<") {
			t.Fatalf("page after: %s", page)
		}
		// ... and refused there, and here, at once.
		if !b.on(two).signedOut(t) || !b.signedOut(t) {
			t.Fatal("b's session still works after Sign out everywhere else")
		}
		if a.signedOut(t) || a.on(two).signedOut(t) {
			t.Fatal("the session that signed the others out ended too")
		}
		// A POST with b's cookie goes to the sign-in page too.
		if r := b.post("/account/security/sessions/end-others", nil); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
			t.Fatalf("b POST: %d %q", r.status, r.header.Get("Location"))
		}
	})

	t.Run("PasswordChangeAndRemovalEndSessions", func(t *testing.T) {
		e := e.with(t)
		owner := e.signIn(e.id(1), "owner")
		email := e.newUser(e.id(1), "staff")
		a := e.signInAs(email, dashPassword)
		b := e.signInAs(email, dashPassword)
		a.setUpAuthenticator(t)
		if r := a.post("/account/password", url.Values{"current_password": {dashPassword}, "new_password": {"another password"}, "confirm_password": {"another password"}}); r.status != http.StatusSeeOther {
			t.Fatalf("change: %d", r.status)
		}
		if !b.signedOut(t) || a.signedOut(t) {
			t.Fatal("after a password change: the other session lives or this one ended")
		}
		if r := owner.post(fmt.Sprintf("/account/users/%d/remove", e.acctUserID(email)), url.Values{"confirm": {"yes"}}); r.status >= 400 {
			t.Fatalf("remove: %d %s", r.status, r.body)
		}
		if !a.signedOut(t) {
			t.Fatal("a removed user's session lives")
		}
		if n := e.count("SELECT COUNT(*) FROM user_sessions WHERE account_id = ? AND user_id NOT IN (SELECT id FROM users WHERE account_id = ?)", e.id(1), e.id(1)); n != 0 {
			t.Fatalf("%d sessions of removed users", n)
		}
		for _, table := range []string{"user_totp", "user_recovery_codes", "user_passkeys"} {
			if n := e.count("SELECT COUNT(*) FROM "+table+" WHERE account_id = ? AND user_id NOT IN (SELECT id FROM users WHERE account_id = ?)", e.id(1), e.id(1)); n != 0 {
				t.Fatalf("%d rows of %s left of removed users", n, table)
			}
		}
	})

	t.Run("ForgedOrOldCookie", func(t *testing.T) {
		e := e.with(t)
		a := e.signIn(e.id(1), "viewer")
		// The session of account 1 presented as account 2's (an old cookie without
		// the account reads as 0) is not found.
		if _, _, err := mysql.NewUserService(e.db).FindSession(t.Context(), e.id(2), "x"); err == nil {
			t.Fatal("nonsense token found")
		}
		a.client.Jar.SetCookies(mustURL(e.url), []*http.Cookie{{Name: "storefront_session", Value: "garbage", Path: "/"}})
		if !a.signedOut(t) {
			t.Fatal("a garbage cookie is signed in")
		}
	})
}

func mustURL(s string) *url.URL { u, _ := url.Parse(s); return u }
