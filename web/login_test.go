package web_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"storefront/internal/mysql"
	"storefront/web"
)

func TestDashboard_SignIn(t *testing.T) {
	e := newAPI(t, 0)

	client := func(e *apiEnv) *dashUser {
		jar, _ := cookiejar.New(nil)
		return &dashUser{e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	}

	t.Run("SignedOutGoesToSignInAndBack", func(t *testing.T) {
		e := e.with(t)
		u := client(e)
		r := u.get("/purchases?status=ACT&customer_email=a", false)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login?next="+url.QueryEscape("/purchases?status=ACT&customer_email=a") {
			t.Fatalf("got %d to %q", r.status, r.header.Get("Location"))
		}
		page := u.get(r.header.Get("Location"), false)
		if page.status != 200 || !strings.Contains(string(page.body), `name="next" value="/purchases?status=ACT&amp;customer_email=a"`) {
			t.Fatalf("sign-in page: %d, next field missing", page.status)
		}
		email := e.newUser(e.id(1), "staff")
		r = u.post("/login", url.Values{"email": {email}, "password": {dashPassword}, "next": {"/purchases?status=ACT&customer_email=a"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/purchases?status=ACT&customer_email=a" {
			t.Fatalf("after sign-in: %d to %q", r.status, r.header.Get("Location"))
		}
		if p := u.get("/purchases?status=ACT&customer_email=a", false); p.status != 200 {
			t.Fatalf("the page after sign-in: %d", p.status)
		}
	})

	t.Run("NextStaysOnSite", func(t *testing.T) {
		e := e.with(t)
		u := client(e)
		email := e.newUser(e.id(1), "viewer")
		for _, next := range []string{"https://evil.test/", "//evil.test/", `/\evil.test`, "javascript:alert(1)"} {
			r := u.post("/login", url.Values{"email": {email}, "password": {dashPassword}, "next": {next}})
			if loc := r.header.Get("Location"); loc != "/" {
				t.Fatalf("next %q: redirected to %q, want the Overview (/)", next, loc)
			}
		}
	})

	t.Run("LandsOnOverview", func(t *testing.T) {
		e := e.with(t)
		u := client(e)
		if page := u.get("/login", false); page.status != 200 || !strings.Contains(string(page.body), `name="next" value="/"`) {
			t.Fatalf("sign-in page: got %d, want 200 with next=/", page.status)
		}
		r := u.post("/login", url.Values{"email": {e.newUser(e.id(1), "staff")}, "password": {dashPassword}})
		if loc := r.header.Get("Location"); r.status != http.StatusSeeOther || loc != "/" {
			t.Fatalf("after sign-in: got %d to %q, want 303 to /", r.status, loc)
		}
		if again := u.get("/login", false); again.header.Get("Location") != "/" {
			t.Fatalf("the sign-in page when signed in: got %d to %q, want a redirect to /", again.status, again.header.Get("Location"))
		}
		if p := u.get("/", false); p.status != 200 || !strings.Contains(string(p.body), "Overview") {
			t.Fatalf("the Overview after sign-in: got %d", p.status)
		}
	})

	t.Run("CookieFlags", func(t *testing.T) {
		e := e.with(t)
		u := client(e)
		r := u.post("/login", url.Values{"email": {e.newUser(e.id(1), "owner")}, "password": {dashPassword}})
		c := r.header.Get("Set-Cookie")
		if !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") || strings.Contains(c, "Secure") {
			t.Fatalf("cookie flags over plain HTTP: %s", c)
		}
	})

	t.Run("WrongPassword", func(t *testing.T) {
		e := e.with(t)
		u := client(e)
		email := e.newUser(e.id(1), "staff")
		r := u.post("/login", url.Values{"email": {email}, "password": {"nope"}})
		if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), "The e-mail or the password is not right.") {
			t.Fatalf("got %d", r.status)
		}
		r = u.post("/login", url.Values{"email": {"nobody@shop.test"}, "password": {"nope"}})
		if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), "The e-mail or the password is not right.") {
			t.Fatalf("unknown e-mail: got %d", r.status)
		}
		r = u.post("/login", url.Values{"email": {""}, "password": {""}})
		if r.status != http.StatusBadRequest {
			t.Fatalf("empty form: got %d", r.status)
		}
		// The failures above count against this address; let them age out.
		e.clock.advance(2 * time.Hour)
	})

	t.Run("RepeatedFailuresSlowedDown", func(t *testing.T) {
		e := e.with(t)
		u := client(e)
		email := e.newUser(e.id(1), "staff")
		defer e.clock.advance(2 * time.Hour)
		for i := 0; i < 5; i++ {
			if r := u.post("/login", url.Values{"email": {email}, "password": {"wrong"}}); r.status != http.StatusUnauthorized {
				t.Fatalf("failure %d: got %d", i+1, r.status)
			}
		}
		// The sixth try must wait, even with the right password.
		r := u.post("/login", url.Values{"email": {email}, "password": {dashPassword}})
		if r.status != http.StatusTooManyRequests || !strings.Contains(string(r.body), "Too many failed sign-ins. Try again in") || r.header.Get("Retry-After") == "" {
			t.Fatalf("after 5 failures: got %d %s", r.status, r.body)
		}
		// Once the wait is over, the right password works.
		e.clock.advance(2 * time.Minute)
		if r := u.post("/login", url.Values{"email": {email}, "password": {dashPassword}}); r.status != http.StatusSeeOther {
			t.Fatalf("after the wait: got %d", r.status)
		}
	})

	t.Run("NewSessionAtSignInAndSignOutEndsIt", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "owner")
		base, _ := url.Parse(e.url)
		before := u.client.Jar.Cookies(base)
		email := e.newUser(e.id(1), "staff")
		u.post("/login", url.Values{"email": {email}, "password": {dashPassword}})
		after := u.client.Jar.Cookies(base)
		if len(before) != 1 || len(after) != 1 || before[0].Value == after[0].Value {
			t.Fatal("signing in again kept the old session cookie")
		}
		// The replaced session no longer works.
		stale := client(e)
		stale.client.Jar.SetCookies(base, before)
		if r := stale.get("/purchases", false); r.status != http.StatusSeeOther {
			t.Fatalf("replaced session: got %d, want a redirect to sign-in", r.status)
		}
		// Sign-out ends the session on the server: the cookie, kept, opens nothing.
		r := u.post("/logout", nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
			t.Fatalf("sign-out: got %d to %q", r.status, r.header.Get("Location"))
		}
		kept := client(e)
		kept.client.Jar.SetCookies(base, after)
		if r := kept.get("/purchases", false); r.status != http.StatusSeeOther {
			t.Fatalf("after sign-out: got %d, want a redirect to sign-in", r.status)
		}
		if n := e.count("SELECT COUNT(*) FROM user_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ?", email); n != 0 {
			t.Fatalf("sessions left after sign-out: %d", n)
		}
	})

	t.Run("CrossSitePostRefused", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "owner")
		req, _ := http.NewRequest("POST", e.url+"/logout", nil)
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.Header.Set("Origin", "https://evil.test")
		if r := u.do(req); r.status != http.StatusForbidden {
			t.Fatalf("cross-site sign-out: got %d, want 403", r.status)
		}
		if r := u.get("/purchases", false); r.status != 200 {
			t.Fatalf("the session must survive a refused cross-site post: %d", r.status)
		}
	})

	t.Run("SecurityHeaders", func(t *testing.T) {
		e := e.with(t)
		u := client(e)
		r := u.get("/login", false)
		for h, want := range map[string]string{
			"X-Content-Type-Options": "nosniff",
			"Referrer-Policy":        "same-origin",
			"X-Frame-Options":        "DENY",
		} {
			if r.header.Get(h) != want {
				t.Errorf("%s: got %q, want %q", h, r.header.Get(h), want)
			}
		}
		csp := r.header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %s", csp, want)
			}
		}
		if strings.Contains(string(r.body), "<script>") || strings.Contains(string(r.body), " style=") {
			t.Error("inline script or style on the sign-in page")
		}
	})

	t.Run("SecureCookieOverHTTPS", func(t *testing.T) {
		e := e.with(t)
		// The same app with an https base URL, as behind a TLS proxy.
		s := &web.Server{Purchases: mysql.NewPurchaseService(e.db), Writer: mysql.NewPurchaseService(e.db), Subscribers: mysql.NewSubscriberService(e.db), Keys: mysql.NewAPIKeyService(e.db), Accounts: mysql.NewAccountService(e.db), Users: mysql.NewUserService(e.db), Admin: mysql.NewAdminService(e.db), Overview: mysql.NewOverviewService(e.db), Views: mysql.NewSavedViewService(e.db), Jobs: mysql.NewJobService(e.db),
			Logger: serverLog, BaseURL: "https://shop.test", Now: e.clock.now}
		hs := httptest.NewServer(s.Handler())
		defer hs.Close()
		form := url.Values{"email": {e.newUser(e.id(1), "staff")}, "password": {dashPassword}}
		req, _ := http.NewRequest("POST", hs.URL+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		c := res.Header.Get("Set-Cookie")
		if res.StatusCode != http.StatusSeeOther || !strings.Contains(c, "; Secure") || !strings.Contains(c, "HttpOnly") || !strings.Contains(c, "SameSite=Lax") {
			t.Fatalf("sign-in over https: %d, cookie %q; want Secure, HttpOnly, SameSite=Lax", res.StatusCode, c)
		}
	})

	t.Run("HeadersOnEveryAnswer", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "owner")
		pages := []string{"/login", "/purchases", "/purchases?status=nope", e.path("/purchases/%d", 1), "/purchases/999999999", e.path("/storefronts/%d/subscribers", 1),
			"/account", "/account/password", "/docs/api", "/no-such-page"}
		for _, p := range pages {
			for _, htmx := range []bool{false, true} {
				r := u.get(p, htmx)
				for h, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"} {
					if got := r.header.Get(h); got != want {
						t.Errorf("%s (htmx %v): %s %q, want %q", p, htmx, h, got, want)
					}
				}
				csp := r.header.Get("Content-Security-Policy")
				for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'", "form-action 'self'"} {
					if !strings.Contains(csp, want) {
						t.Errorf("%s (htmx %v): CSP %q lacks %s", p, htmx, csp, want)
					}
				}
				if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
					t.Errorf("%s: CSP %q allows inline script or eval", p, csp)
				}
				if strings.HasPrefix(r.header.Get("Content-Type"), "text/html") && r.header.Get("Cache-Control") != "no-store" && (r.status < 300 || r.status >= 400) {
					t.Errorf("%s: an HTML page without Cache-Control: no-store (%q)", p, r.header.Get("Cache-Control"))
				}
			}
		}
		// The API answers JSON that no browser may sniff into a page.
		for _, p := range []string{"/api/v2/purchases?per_page=1", "/api/v2/nope", "/api/v2/purchases?x=1"} {
			for _, key := range []string{e.ro, ""} {
				r := e.get(p, key)
				if r.header.Get("X-Content-Type-Options") != "nosniff" || r.header.Get("Referrer-Policy") != "same-origin" || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
					t.Errorf("%s: %d with X-Content-Type-Options %q, Referrer-Policy %q, Content-Type %q", p, r.status,
						r.header.Get("X-Content-Type-Options"), r.header.Get("Referrer-Policy"), r.header.Get("Content-Type"))
				}
			}
		}
	})

	t.Run("SessionsDoNotOpenTheAPI", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "owner")
		if r := u.get("/api/v2/purchases", false); r.status != http.StatusUnauthorized {
			t.Fatalf("API with a dashboard session: got %d, want 401", r.status)
		}
		req, _ := http.NewRequest("GET", e.url+"/purchases", nil)
		req.SetBasicAuth(e.user, e.rw)
		res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("dashboard with an API key: got %d, want a redirect to sign-in", res.StatusCode)
		}
	})
}
