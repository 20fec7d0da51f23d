package web_test

import (
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"slices"
	"testing"
	"time"
)

// auditActions returns the actions of the user's audit records, oldest first.
func (e *apiEnv) auditActions(email string) []string {
	e.t.Helper()
	var out []string
	rows, err := e.db.Query(`SELECT a.action FROM audit_records a JOIN users u ON u.account_id = a.account_id AND u.id = a.user_id
		WHERE a.account_id = ? AND u.account_id = ? AND u.email = ? ORDER BY a.id`, e.id(1), e.id(1), email)
	if err != nil {
		e.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			e.t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// TestAudit does each action of signing in and guarding the account once and finds
// exactly one record of each, none of a refused change, in order.
func TestAudit(t *testing.T) {
	e := newAPI(t, 0)
	e.forgetFailures()
	email := e.newUser(e.id(1), "staff")
	var want []string
	step := func(what string, actions ...string) {
		t.Helper()
		want = append(want, actions...)
		if got := e.auditActions(email); !slices.Equal(got, want) {
			t.Fatalf("after %s: records %v, want %v", what, got, want)
		}
	}
	u := e.signInAs(email, dashPassword)
	step("sign-in", "sign_in")

	jar, _ := cookiejar.New(nil)
	stranger := &dashUser{e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	stranger.post("/login", url.Values{"email": {email}, "password": {"not the password"}})
	stranger.post("/login", url.Values{"email": {"nobody@shop.test"}, "password": {"not the password"}})
	step("a wrong password, and an unknown e-mail", "sign_in_failed")

	e.signInAs(email, dashPassword)
	step("a second sign-in", "sign_in")
	u.post("/account/security/sessions/end-others", nil)
	u.post("/account/security/sessions/end-others", nil)
	step("sign out everywhere else, twice", "session_ended")

	e.signInAs(email, dashPassword)
	m := sessionFormRE.FindStringSubmatch(string(u.get("/account/security", false).body))
	u.post(m[1], nil)
	if r := u.post(m[1], nil); r.status != http.StatusNotFound {
		t.Fatalf("again: %d", r.status)
	}
	step("sign one session out, and again", "sign_in", "session_ended")

	u.post("/account/security/authenticator/remove", nil)
	u.get("/account/security/authenticator", false)
	u.post("/account/security/authenticator", url.Values{"code": {"12345"}})
	step("refused: removal of no app, a malformed first code")
	secret, codes := u.setUpAuthenticator(t)
	step("set-up", "factor_added")

	e.clock.advance(30 * time.Second)
	v := e.password(email)
	step("the password step")
	v.code(t, "111111", 401, "not right")
	v.code(t, codeAt(t, secret, e.clock.now().Add(-30*time.Second)), 401, "used already")
	v.code(t, codeAt(t, secret, e.clock.now()), 303, "")
	step("a wrong code, a used one, the right one", "sign_in_second_factor_failed", "sign_in_second_factor_failed", "sign_in_second_factor", "sign_in")

	e.forgetFailures() // every client is 127.0.0.1
	w := e.password(email)
	w.code(t, "aaaaa-aaaaa", 401, "recovery code")
	w.code(t, codes[0], 303, "")
	step("a wrong recovery code, a right one", "sign_in_second_factor_failed", "sign_in_second_factor", "sign_in")

	w.post("/logout", nil)
	step("sign-out", "session_ended")
	u.post("/account/security/authenticator/remove", nil)
	step("removal", "factor_removed")

	// Each record names the client it came from (those of the keys the set-up made
	// have none: the system made them).
	var bad int
	if err := e.db.QueryRow(`SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND actor <> 'system' AND (address <> '127.0.0.1' OR user_agent NOT LIKE 'Go-http-client%' OR created_at IS NULL)`, e.id(1)).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d records without the client (%v)", bad, err)
	}
}
