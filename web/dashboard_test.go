package web_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"sync/atomic"

	"storefront/internal/mysql"
)

// userSeq numbers test users, so that each has its own e-mail.
var userSeq atomic.Int64

// dashPassword is the password of every test user.
const dashPassword = "correct horse battery"

// dashUser is a signed-in browser-like client of the dashboard.
type dashUser struct {
	e      *apiEnv
	client *http.Client
	email  string
}

// newUser creates a dashboard user in the account (bcrypt at its cheapest in tests).
func (e *apiEnv) newUser(account int64, role string) string {
	e.t.Helper()
	email := fmt.Sprintf("%s-%d-%d@shop.test", role, account, userSeq.Add(1))
	if _, err := mysql.NewAdminService(e.db).CreateUser(context.Background(), account, email, role, dashPassword); err != nil {
		e.t.Fatal(err)
	}
	return email
}

// signIn signs a new user of the account with the role in and returns its client.
func (e *apiEnv) signIn(account int64, role string) *dashUser {
	e.t.Helper()
	email := e.newUser(account, role)
	jar, _ := cookiejar.New(nil)
	u := &dashUser{e: e, email: email, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	r := u.post("/login", url.Values{"email": {email}, "password": {dashPassword}})
	if r.status != http.StatusSeeOther {
		e.t.Fatalf("sign-in as %s: got %d %s", email, r.status, r.body)
	}
	return u
}

func (u *dashUser) do(req *http.Request) response {
	u.e.t.Helper()
	res, err := u.client.Do(req)
	if err != nil {
		u.e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 500 && res.StatusCode != 503 {
		u.e.t.Fatalf("%s %s: %d %s", req.Method, req.URL, res.StatusCode, b)
	}
	return response{res.StatusCode, res.Header, b}
}

// get fetches a page; with htmx true it asks as htmx does, for a fragment.
func (u *dashUser) get(path string, htmx bool) response {
	req, _ := http.NewRequest("GET", u.e.url+path, nil)
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	return u.do(req)
}

// post sends a same-origin form, as the browser does from a dashboard page.
func (u *dashUser) post(path string, form url.Values) response { return u.postForm(path, form, false) }

// postHTMX sends a form as htmx does.
func (u *dashUser) postHTMX(path string, form url.Values) response {
	return u.postForm(path, form, true)
}

func (u *dashUser) postForm(path string, form url.Values, htmx bool) response {
	req, _ := http.NewRequest("POST", u.e.url+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", u.e.url)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	return u.do(req)
}
