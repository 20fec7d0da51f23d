package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// acctNewKey returns the key shown once on the page, "" when none is shown.
func acctNewKey(t *testing.T, r response) string {
	t.Helper()
	p := subsParse(t, r)
	btns := p.all("button", "data-copy=", "type=button")
	if len(btns) == 0 {
		return ""
	}
	// The key's, and the command's that tries it.
	if len(btns) > 2 {
		t.Fatalf("%d copy buttons", len(btns))
	}
	if blockText(btns[0]) != "Copy" {
		t.Errorf("copy button says %q", blockText(btns[0]))
	}
	key, _ := subsAttr(btns[0], "data-copy")
	box := blockText(p.byID("new-key"))
	if !strings.Contains(box, key) || !strings.Contains(box, "will not be shown again") {
		t.Errorf("the new key box says %q", box)
	}
	return key
}

// acctTryCurl checks the command shown with a new key: curl with the account's user
// name and the key, at the API's address, calling path, which answers it 200 with a
// body, the key being of a scope that may.
func acctTryCurl(t *testing.T, e *apiEnv, r response, key, path string) {
	t.Helper()
	p := subsParse(t, r)
	want := "curl -u " + e.user + ":" + key + " 'http://shop.test" + path + "'"
	if got := blockText(p.byID("new-key-curl")); got != want {
		t.Fatalf("the command shown: %q, want %q", got, want)
	}
	if keys := blockText(p.byID("keys")); !strings.Contains(keys, "http://shop.test/api/v2") || !strings.Contains(keys, e.user+":KEY") {
		t.Errorf("the section does not give the API's address and user name: %q", keys)
	}
	got := e.get(path, key)
	if got.status != 200 || len(got.body) < 3 {
		t.Fatalf("%s as shown: got %d %s", path, got.status, got.body)
	}
}

func (e *apiEnv) acctKeyID(name string) int64 {
	e.t.Helper()
	return int64(e.count("SELECT id FROM api_keys WHERE account_id IN (?, ?) AND name = ? ORDER BY id DESC LIMIT 1", e.id(1), e.id(2), name))
}

func TestAccountPage_APIKeys(t *testing.T) {
	e := newAPI(t, 0)
	owner := e.signIn(e.id(1), "owner")

	t.Run("Page", func(t *testing.T) {
		r := owner.get("/account", false)
		if r.status != 200 {
			t.Fatalf("got %d", r.status)
		}
		p := subsParse(t, r)
		form := p.all("form", "action=/account/keys", "method=post")
		if len(form) != 1 {
			t.Fatal("no create form")
		}
		for _, id := range []string{"key-name", "key-scope"} {
			if len(p.all("label", "for="+id)) != 1 || len(p.all("", "id="+id)) != 1 {
				t.Errorf("no labelled %s", id)
			}
		}
		var scopes []string
		for _, o := range subsAll(p.byID("key-scope"), "option") {
			v, _ := subsAttr(o, "value")
			scopes = append(scopes, v)
		}
		if strings.Join(scopes, ",") != "read,read_write,audit" {
			t.Errorf("scopes: got %v", scopes)
		}
		// The keys newAPI made are listed, never with their secret.
		if strings.Contains(string(r.body), e.rw) || acctNewKey(t, r) != "" {
			t.Error("a stored key's secret is shown")
		}
		if !strings.Contains(blockText(p.byID("keys")), "tests Read and write") {
			t.Errorf("the key named tests is not listed: %q", blockText(p.byID("keys")))
		}
		if strings.Contains(blockText(p.byID("keys")), e.other) {
			t.Error("another account's key is listed")
		}
	})

	var key string
	t.Run("CreateWorksAgainstTheAPI", func(t *testing.T) {
		r := owner.post("/account/keys", url.Values{"name": {"Billing sync"}, "scope": {"read"}})
		if r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		key = acctNewKey(t, r)
		if !strings.HasPrefix(key, "sfk_") {
			t.Fatalf("no new key shown: %q", key)
		}
		if got := e.get("/api/v2/", key); got.status != 200 {
			t.Fatalf("GET /api/v2/ with the new key: got %d", got.status)
		}
		acctTryCurl(t, e, r, key, "/api/v2/purchases?per_page=1")
		// Read scope: reactivating is forbidden.
		var pid int64
		e.db.QueryRow("SELECT id FROM purchases WHERE account_id = ? LIMIT 1", e.id(1)).Scan(&pid)
		if got := e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", pid), key, nil, nil); got.status != http.StatusForbidden {
			t.Errorf("reactivate with a read key: got %d, want 403", got.status)
		}
		// Shown once: the next page has no secret.
		again := owner.get("/account", false)
		if strings.Contains(string(again.body), key) || acctNewKey(t, again) != "" {
			t.Fatal("the key is shown again")
		}
		row := blockText(subsParse(t, again).byID("keys"))
		if !strings.Contains(row, "Billing sync Read only") {
			t.Errorf("list: %q", row)
		}
	})

	t.Run("CreateHTMX", func(t *testing.T) {
		r := owner.postHTMX("/account/keys", url.Values{"name": {"Shop sync"}, "scope": {"read_write"}})
		if r.status != 200 || subsIsFullPage(r) {
			t.Fatalf("got %d, full page %v", r.status, subsIsFullPage(r))
		}
		subsWantVary(t, r)
		k := acctNewKey(t, r)
		if got := e.get("/api/v2/", k); got.status != 200 {
			t.Fatalf("GET /api/v2/ with the new key: got %d", got.status)
		}
		if !strings.HasPrefix(strings.TrimSpace(string(r.body)), `<section id="keys"`) {
			t.Errorf("fragment: %.80s", r.body)
		}
	})

	t.Run("AuditKeyTriesTheAuditLog", func(t *testing.T) {
		r := owner.post("/account/keys", url.Values{"name": {"Auditor"}, "scope": {"audit"}})
		acctTryCurl(t, e, r, acctNewKey(t, r), "/api/v2/audit")
	})

	t.Run("LastUse", func(t *testing.T) {
		e.server.Wait() // the last use is written in the background
		p := subsParse(t, owner.get("/account", false))
		for _, tr := range subsAll(p.byID("keys"), "tr") {
			cells := blockText(tr)
			if strings.HasPrefix(cells, "Billing sync") && strings.Contains(cells, "never") {
				t.Errorf("a used key says never: %q", cells)
			}
			if strings.HasPrefix(cells, "Unused") && !strings.Contains(cells, "never") {
				t.Errorf("got %q", cells)
			}
		}
		owner.post("/account/keys", url.Values{"name": {"Unused"}, "scope": {"read"}})
		found := false
		for _, tr := range subsAll(subsParse(t, owner.get("/account", false)).byID("keys"), "tr") {
			if cells := blockText(tr); strings.HasPrefix(cells, "Unused") {
				found = true
				if !strings.Contains(cells, "never") {
					t.Errorf("an unused key: got %q, want never", cells)
				}
			}
		}
		if !found {
			t.Error("the unused key is not listed")
		}
	})

	t.Run("Revoke", func(t *testing.T) {
		id := e.acctKeyID("Billing sync")
		path := fmt.Sprintf("/account/keys/%d/revoke", id)
		p := subsParse(t, owner.get("/account", false))
		forms := p.all("form", "action="+path, "method=post", "hx-post="+path, "hx-confirm=")
		if len(forms) != 1 {
			t.Fatal("no revoke form with hx-confirm")
		}
		// Without JavaScript a confirmation page comes first, and nothing is revoked yet.
		r := owner.post(path, url.Values{})
		if r.status != 200 || len(subsParse(t, r).all("input", "name=confirm", "value=yes")) != 1 {
			t.Fatalf("confirmation: got %d %s", r.status, r.body)
		}
		if got := e.get("/api/v2/", key); got.status != 200 {
			t.Fatalf("before confirming: got %d", got.status)
		}
		r = owner.post(path, url.Values{"confirm": {"yes"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/account#keys" {
			t.Fatalf("got %d %q", r.status, r.header.Get("Location"))
		}
		if got := e.get("/api/v2/", key); got.status != http.StatusUnauthorized {
			t.Fatalf("after revoking: got %d, want 401", got.status)
		}
		page := owner.get("/account", false)
		if !strings.Contains(string(page.body), "The key “Billing sync” is revoked.") {
			t.Error("no flash after revoking")
		}
		if len(subsParse(t, page).all("form", "action="+path)) != 0 {
			t.Error("a revoked key still offers Revoke")
		}
		// htmx: the section comes back with the notice.
		other := e.acctKeyID("Shop sync")
		r = owner.postHTMX(fmt.Sprintf("/account/keys/%d/revoke", other), url.Values{"confirm": {"yes"}})
		if r.status != 200 || subsIsFullPage(r) || !strings.Contains(string(r.body), "The key “Shop sync” is revoked.") {
			t.Fatalf("htmx: got %d %s", r.status, r.body)
		}
	})

	t.Run("RevokeNotFound", func(t *testing.T) {
		var otherAccount int64
		e.db.QueryRow("SELECT id FROM api_keys WHERE account_id = ? LIMIT 1", e.id(2)).Scan(&otherAccount)
		for path, want := range map[string]int{
			fmt.Sprintf("/account/keys/%d/revoke", otherAccount): 404,
			"/account/keys/99999/revoke":                         404,
			"/account/keys/abc/revoke":                           400,
			"/account/keys/0/revoke":                             400,
		} {
			if r := owner.post(path, url.Values{"confirm": {"yes"}}); r.status != want {
				t.Errorf("%s: got %d, want %d", path, r.status, want)
			}
		}
		if got := e.do("GET", "/api/v2/", "", nil, map[string]string{"Authorization": "Bearer " + e.other}); got.status != 200 {
			t.Error("another account's key was revoked")
		}
	})

	t.Run("Validation", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			form  url.Values
			field string
		}{
			{"NoName", url.Values{"name": {"  "}, "scope": {"read"}}, "key-name-error"},
			{"LongName", url.Values{"name": {strings.Repeat("é", 256)}, "scope": {"read"}}, "key-name-error"},
			{"BadUTF8", url.Values{"name": {"a\xff"}, "scope": {"read"}}, "key-name-error"},
			{"BadScope", url.Values{"name": {"x"}, "scope": {"admin"}}, "key-scope-error"},
			{"NoScope", url.Values{"name": {"x"}}, "key-scope-error"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.count("SELECT COUNT(*) FROM api_keys WHERE account_id IN (?, ?)", e.id(1), e.id(2))
				r := owner.post("/account/keys", tc.form)
				if r.status != http.StatusBadRequest {
					t.Fatalf("got %d, want 400", r.status)
				}
				p := subsParse(t, r)
				if msg := blockText(p.byID(tc.field)); msg == "" {
					t.Error("no message next to the field")
				}
				if acctNewKey(t, r) != "" || e.count("SELECT COUNT(*) FROM api_keys WHERE account_id IN (?, ?)", e.id(1), e.id(2)) != before {
					t.Error("a key was made")
				}
				// htmx swaps only 2xx: the section comes back with the message.
				r = owner.postHTMX("/account/keys", tc.form)
				if r.status != 200 || subsIsFullPage(r) || !subsParse(t, r).has(tc.field) {
					t.Errorf("htmx: got %d %s", r.status, r.body)
				}
			})
		}
		// What was typed stays in the form.
		r := owner.post("/account/keys", url.Values{"name": {"Kept"}, "scope": {"nope"}})
		if v, _ := subsAttr(subsParse(t, r).byID("key-name"), "value"); v != "Kept" {
			t.Errorf("name: got %q, want Kept", v)
		}
	})

	t.Run("Escaped", func(t *testing.T) {
		evil := `<script>alert("k")</script>`
		r := owner.post("/account/keys", url.Values{"name": {evil}, "scope": {"read"}})
		if r.status != 200 {
			t.Fatalf("got %d", r.status)
		}
		page := string(owner.get("/account", false).body)
		if strings.Contains(page, evil) || !strings.Contains(page, "&lt;script&gt;") {
			t.Error("the key name is not escaped")
		}
	})
}

func (e *apiEnv) acctUserID(email string) int64 {
	e.t.Helper()
	return int64(e.count("SELECT id FROM users WHERE email = ?", email))
}

func (e *apiEnv) acctUserRole(email string) string {
	e.t.Helper()
	var role string
	if err := e.db.QueryRow("SELECT role FROM users WHERE email = ?", email).Scan(&role); err != nil {
		return ""
	}
	return role
}

func TestAccountPage_Users(t *testing.T) {
	e := newAPI(t, 0)
	owner := e.signIn(e.id(1), "owner")

	t.Run("Add", func(t *testing.T) {
		p := subsParse(t, owner.get("/account", false))
		for _, id := range []string{"user-email", "user-role", "user-password"} {
			if len(p.all("label", "for="+id)) != 1 {
				t.Errorf("no label for %s", id)
			}
		}
		r := owner.post("/account/users", url.Values{"email": {"new.staff@shop.test"}, "role": {"staff"}, "password": {"initial password"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/account#users" {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		if got := e.acctUserRole("new.staff@shop.test"); got != "staff" {
			t.Fatalf("role: got %q, want staff", got)
		}
		if _, err := mysql.NewUserService(e.db).CheckPassword(t.Context(), "new.staff@shop.test", "initial password", shop.SessionClient{}); err != nil {
			t.Fatalf("the new user cannot sign in: %v", err)
		}
		page := owner.get("/account", false)
		if !strings.Contains(string(page.body), "new.staff@shop.test was added as staff.") {
			t.Error("no flash")
		}
		// htmx: the users section with the notice.
		r = owner.postHTMX("/account/users", url.Values{"email": {"new.viewer@shop.test"}, "role": {"viewer"}, "password": {"initial password"}})
		if r.status != 200 || subsIsFullPage(r) || !strings.Contains(string(r.body), "new.viewer@shop.test was added as viewer.") {
			t.Fatalf("htmx: got %d %s", r.status, r.body)
		}
		subsWantVary(t, r)
	})

	t.Run("AddValidation", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			form  url.Values
			field string
		}{
			{"NoEmail", url.Values{"email": {""}, "role": {"staff"}, "password": {"initial password"}}, "user-email-error"},
			{"BadEmail", url.Values{"email": {"not an address"}, "role": {"staff"}, "password": {"initial password"}}, "user-email-error"},
			{"LongEmail", url.Values{"email": {strings.Repeat("a", 190) + "@shop.test"}, "role": {"staff"}, "password": {"initial password"}}, "user-email-error"},
			{"Taken", url.Values{"email": {owner.email}, "role": {"staff"}, "password": {"initial password"}}, "user-email-error"},
			{"BadRole", url.Values{"email": {"x@shop.test"}, "role": {"root"}, "password": {"initial password"}}, "user-role-error"},
			{"ShortPassword", url.Values{"email": {"x@shop.test"}, "role": {"staff"}, "password": {"short"}}, "user-password-error"},
			{"LongPassword", url.Values{"email": {"x@shop.test"}, "role": {"staff"}, "password": {strings.Repeat("p", 73)}}, "user-password-error"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := e.count("SELECT COUNT(*) FROM users WHERE account_id IN (?, ?)", e.id(1), e.id(2))
				r := owner.post("/account/users", tc.form)
				if r.status != http.StatusBadRequest {
					t.Fatalf("got %d, want 400", r.status)
				}
				if blockText(subsParse(t, r).byID(tc.field)) == "" {
					t.Error("no message next to the field")
				}
				if e.count("SELECT COUNT(*) FROM users WHERE account_id IN (?, ?)", e.id(1), e.id(2)) != before {
					t.Error("a user was added")
				}
				r = owner.postHTMX("/account/users", tc.form)
				if r.status != 200 || subsIsFullPage(r) || !subsParse(t, r).has(tc.field) {
					t.Errorf("htmx: got %d", r.status)
				}
			})
		}
	})

	t.Run("ChangeRole", func(t *testing.T) {
		id := e.acctUserID("new.staff@shop.test")
		path := fmt.Sprintf("/account/users/%d/role", id)
		p := subsParse(t, owner.get("/account", false))
		if len(p.all("form", "action="+path, "method=post")) != 1 || len(p.all("label", fmt.Sprintf("for=role-%d", id))) != 1 {
			t.Fatal("no labelled role form")
		}
		r := owner.post(path, url.Values{"role": {"viewer"}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		if got := e.acctUserRole("new.staff@shop.test"); got != "viewer" {
			t.Fatalf("got %q, want viewer", got)
		}
		r = owner.postHTMX(path, url.Values{"role": {"staff"}})
		if r.status != 200 || !strings.Contains(string(r.body), "new.staff@shop.test is now staff.") || e.acctUserRole("new.staff@shop.test") != "staff" {
			t.Fatalf("htmx: got %d %s", r.status, r.body)
		}
		if r := owner.post(path, url.Values{"role": {"king"}}); r.status != http.StatusBadRequest || e.acctUserRole("new.staff@shop.test") != "staff" {
			t.Errorf("bad role: got %d", r.status)
		}
	})

	t.Run("Remove", func(t *testing.T) {
		victim := e.signIn(e.id(1), "viewer")
		id := e.acctUserID(victim.email)
		path := fmt.Sprintf("/account/users/%d/remove", id)
		if len(subsParse(t, owner.get("/account", false)).all("form", "action="+path, "hx-confirm=")) != 1 {
			t.Fatal("no remove form with hx-confirm")
		}
		if r := owner.post(path, url.Values{}); r.status != 200 || e.acctUserRole(victim.email) == "" {
			t.Fatalf("without confirmation: got %d, user removed %v", r.status, e.acctUserRole(victim.email) == "")
		}
		r := owner.post(path, url.Values{"confirm": {"yes"}})
		if r.status != http.StatusSeeOther || e.acctUserRole(victim.email) != "" {
			t.Fatalf("got %d, role %q", r.status, e.acctUserRole(victim.email))
		}
		// The removed user's session ended.
		if r := victim.get("/purchases", false); r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/login") {
			t.Errorf("removed user: got %d %q", r.status, r.header.Get("Location"))
		}
	})

	t.Run("OtherAccount", func(t *testing.T) {
		stranger := e.newUser(e.id(2), "owner")
		id := e.acctUserID(stranger)
		for path, want := range map[string]int{
			fmt.Sprintf("/account/users/%d/role", id):   404,
			fmt.Sprintf("/account/users/%d/remove", id): 404,
			"/account/users/abc/role":                   400,
			"/account/users/-1/remove":                  400,
		} {
			if r := owner.post(path, url.Values{"role": {"viewer"}, "confirm": {"yes"}}); r.status != want {
				t.Errorf("%s: got %d, want %d", path, r.status, want)
			}
		}
		if e.acctUserRole(stranger) != "owner" {
			t.Error("another account's user was changed")
		}
	})

	t.Run("Escaped", func(t *testing.T) {
		evil := `"><b>x</b>@shop.test`
		r := owner.post("/account/users", url.Values{"email": {evil}, "role": {"viewer"}, "password": {"initial password"}})
		if r.status != http.StatusSeeOther {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		page := string(owner.get("/account", false).body)
		if strings.Contains(page, "<b>x</b>") || !strings.Contains(page, "&lt;b&gt;x&lt;/b&gt;") {
			t.Error("the e-mail is not escaped")
		}
	})
}

func TestAccountPage_LastOwner(t *testing.T) {
	e := newAPI(t, 0)
	// Account 2 gets one owner: the only one.
	owner := e.signIn(e.id(2), "owner")
	me := e.acctUserID(owner.email)

	for _, tc := range []struct {
		name, path string
		form       url.Values
	}{
		{"Demote", fmt.Sprintf("/account/users/%d/role", me), url.Values{"role": {"staff"}}},
		{"Remove", fmt.Sprintf("/account/users/%d/remove", me), url.Values{"confirm": {"yes"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := owner.post(tc.path, tc.form)
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "the account&#39;s only owner") {
				t.Fatalf("got %d %s", r.status, r.body)
			}
			if e.acctUserRole(owner.email) != "owner" {
				t.Fatal("the last owner lost ownership")
			}
			r = owner.postHTMX(tc.path, tc.form)
			if r.status != 200 || !strings.Contains(string(r.body), "only owner") || e.acctUserRole(owner.email) != "owner" {
				t.Fatalf("htmx: got %d %s", r.status, r.body)
			}
		})
	}

	t.Run("StayingOwnerIsFine", func(t *testing.T) {
		if r := owner.post(fmt.Sprintf("/account/users/%d/role", me), url.Values{"role": {"owner"}}); r.status != http.StatusSeeOther {
			t.Fatalf("got %d", r.status)
		}
	})

	t.Run("WithAnotherOwner", func(t *testing.T) {
		second := e.newUser(e.id(2), "owner")
		r := owner.post(fmt.Sprintf("/account/users/%d/role", me), url.Values{"role": {"staff"}})
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/purchases" {
			t.Fatalf("got %d %q", r.status, r.header.Get("Location"))
		}
		if e.acctUserRole(owner.email) != "staff" {
			t.Fatal("not demoted")
		}
		if r := owner.get("/account", false); r.status != http.StatusForbidden {
			t.Errorf("a demoted owner: got %d, want 403", r.status)
		}
		// Now second is the last owner.
		if r := owner.post(fmt.Sprintf("/account/users/%d/remove", e.acctUserID(second)), url.Values{"confirm": {"yes"}}); r.status != http.StatusForbidden {
			t.Errorf("staff removing an owner: got %d, want 403", r.status)
		}
	})
}

func TestAccountPage_OnlyOwners(t *testing.T) {
	e := newAPI(t, 0)
	target := e.newUser(e.id(1), "viewer")
	id := e.acctUserID(target)
	var keyID int64
	e.db.QueryRow("SELECT id FROM api_keys WHERE account_id = ? LIMIT 1", e.id(1)).Scan(&keyID)
	for _, role := range []string{"staff", "viewer"} {
		t.Run(role, func(t *testing.T) {
			u := e.signIn(e.id(1), role)
			if r := u.get("/account", false); r.status != http.StatusForbidden || strings.Contains(string(r.body), `id="keys"`) {
				t.Errorf("GET /account: got %d", r.status)
			}
			// No link to the page either.
			if strings.Contains(string(u.get("/purchases", false).body), `href="/account"`) {
				t.Error("the navigation links to /account")
			}
			keys, users := e.count("SELECT COUNT(*) FROM api_keys WHERE account_id IN (?, ?)", e.id(1), e.id(2)), e.count("SELECT COUNT(*) FROM users WHERE account_id IN (?, ?)", e.id(1), e.id(2))
			for path, form := range map[string]url.Values{
				"/account/keys": {"name": {"sneaky"}, "scope": {"read_write"}},
				fmt.Sprintf("/account/keys/%d/revoke", keyID): {"confirm": {"yes"}},
				"/account/users": {"email": {"sneaky@shop.test"}, "role": {"owner"}, "password": {"initial password"}},
				fmt.Sprintf("/account/users/%d/role", id):   {"role": {"owner"}},
				fmt.Sprintf("/account/users/%d/remove", id): {"confirm": {"yes"}},
			} {
				if r := u.post(path, form); r.status != http.StatusForbidden {
					t.Errorf("POST %s: got %d, want 403", path, r.status)
				}
				if r := u.postHTMX(path, form); r.status != http.StatusOK || !strings.Contains(string(r.body), "Only the account") {
					t.Errorf("htmx POST %s: got %d %s", path, r.status, r.body)
				}
			}
			if e.count("SELECT COUNT(*) FROM api_keys WHERE account_id IN (?, ?)", e.id(1), e.id(2)) != keys || e.count("SELECT COUNT(*) FROM users WHERE account_id IN (?, ?)", e.id(1), e.id(2)) != users || e.acctUserRole(target) != "viewer" {
				t.Error("a forbidden request changed something")
			}
			if got := e.get("/api/v2/", e.rw); got.status != 200 {
				t.Error("a forbidden request revoked a key")
			}
		})
	}
}
