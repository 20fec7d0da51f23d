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

func TestTwoFactor_Requirement(t *testing.T) {
	e := newAPI(t, 0)
	e.exec("UPDATE accounts SET require_two_factor = FALSE WHERE id IN (?, ?)", e.id(1), e.id(2))
	t.Cleanup(func() { e.exec("UPDATE accounts SET require_two_factor = FALSE WHERE id IN (?, ?)", e.id(1), e.id(2)) })
	ownerEmail := e.newUser(e.id(1), "owner")
	owner := e.signInAs(ownerEmail, dashPassword)
	staff := e.signIn(e.id(1), "staff")

	// An owner without a factor cannot turn it on: it would lock them out.
	r := owner.post("/account/two-factor", url.Values{"require": {"on"}})
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "Add a passkey or an authenticator app to your own sign-in first") {
		t.Fatalf("on without a factor: %d %s", r.status, r.body)
	}
	if r := owner.post("/account/two-factor", url.Values{"require": {"maybe"}}); r.status != http.StatusBadRequest {
		t.Fatalf("require=maybe: %d", r.status)
	}
	if r := staff.post("/account/two-factor", url.Values{"require": {"on"}}); r.status != http.StatusForbidden {
		t.Fatalf("staff turns it on: %d", r.status)
	}
	ownerKey := newSoftKey(t, e.id(1), e.acctUserID(ownerEmail))
	ownerKey.store(t, e, "Owner's key")
	if r := owner.post("/account/two-factor", url.Values{"require": {"on"}}); r.status != http.StatusSeeOther {
		t.Fatalf("on: %d %s", r.status, r.body)
	}
	if page := string(owner.get("/account", false).body); !strings.Contains(page, "Two-step sign-in is now required") || !strings.Contains(page, "Stop requiring two-step sign-in") {
		t.Fatalf("account page after: %s", page)
	}
	if n := e.count("SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND action = 'require_two_factor' AND details = 'on'", e.id(1)); n != 1 {
		t.Fatalf("%d records of the requirement on", n)
	}

	t.Run("UserWithoutFactorKeptOnSecurity", func(t *testing.T) {
		for _, path := range []string{"/", "/purchases", "/account/password", "/jobs", "/docs/api"} {
			if r := staff.get(path, false); r.status != http.StatusSeeOther || r.header.Get("Location") != "/account/security" {
				t.Errorf("GET %s: %d %q", path, r.status, r.header.Get("Location"))
			}
		}
		if r := staff.get("/purchases", true); r.status != http.StatusForbidden || r.header.Get("HX-Redirect") != "/account/security" {
			t.Errorf("htmx GET: %d %q", r.status, r.header.Get("HX-Redirect"))
		}
		if r := staff.post("/purchases/views", url.Values{"name": {"x"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/account/security" {
			t.Errorf("POST: %d %q", r.status, r.header.Get("Location"))
		}
		r := staff.get("/account/security", false)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), "owners require two-step sign-in") {
			t.Fatalf("Security: %d %s", r.status, r.body)
		}
		if r := staff.get("/account/security/authenticator", false); r.status != http.StatusOK {
			t.Errorf("authenticator set-up: %d", r.status)
		}
		// The assets, the API and signing out are not held.
		if r := staff.get("/static/app.css", false); r.status != http.StatusOK {
			t.Errorf("asset: %d", r.status)
		}
		if r := e.get("/api/v2/purchases?per_page=1", e.rw); r.status != http.StatusOK {
			t.Errorf("API: %d", r.status)
		}
		// Signing in again lands on Security too.
		fresh := e.signInAs(staff.email, dashPassword)
		if r := fresh.get("/", false); r.header.Get("Location") != "/account/security" {
			t.Errorf("after sign-in: %d %q", r.status, r.header.Get("Location"))
		}
		if r := fresh.post("/logout", nil); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" {
			t.Errorf("sign out: %d %q", r.status, r.header.Get("Location"))
		}
		// With a factor, everything opens.
		newSoftKey(t, e.id(1), e.acctUserID(staff.email)).store(t, e, "Staff key")
		if r := staff.get("/purchases", false); r.status != http.StatusOK {
			t.Errorf("with a passkey: %d", r.status)
		}
		if page := string(staff.get("/account/security", false).body); strings.Contains(page, "require two-step sign-in") {
			t.Error("the notice stays after a factor was added")
		}
	})

	t.Run("LastOwnerKeepsTheirFactor", func(t *testing.T) {
		var pid int64
		if err := e.db.QueryRow("SELECT id FROM user_passkeys WHERE account_id = ? AND user_id = ?", e.id(1), e.acctUserID(ownerEmail)).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		remove := fmt.Sprintf("/account/security/passkeys/%d/remove", pid)
		r := owner.post(remove, nil)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "last second factor of its last owner") {
			t.Fatalf("last owner's last factor: %d %s", r.status, r.body)
		}
		if n := e.count("SELECT COUNT(*) FROM user_passkeys WHERE id = ? AND account_id = ?", pid, e.id(1)); n != 1 {
			t.Fatal("the passkey was removed")
		}
		// Another owner with a factor: now it may go.
		other := e.newUser(e.id(1), "owner")
		newSoftKey(t, e.id(1), e.acctUserID(other)).store(t, e, "Other owner's key")
		if r := owner.post(remove, nil); r.status != http.StatusSeeOther {
			t.Fatalf("with another owner holding a factor: %d %s", r.status, r.body)
		}
		// The owner, now without a factor, is kept on Security too; off again, free.
		if r := owner.get("/account", false); r.header.Get("Location") != "/account/security" {
			t.Fatalf("owner without a factor: %d", r.status)
		}
		otherOwner := e.signInAs(other, dashPassword)
		_ = otherOwner
	})

	t.Run("LastOwnerKeepsTheirApp", func(t *testing.T) {
		// Another account, whose only owner has an authenticator app and no passkey.
		e.exec("UPDATE accounts SET require_two_factor = FALSE WHERE id = ?", e.id(2))
		t.Cleanup(func() { e.exec("UPDATE accounts SET require_two_factor = FALSE WHERE id = ?", e.id(2)) })
		e.exec("DELETE FROM users WHERE account_id = ? AND role = 'owner'", e.id(2))
		email := e.newUser(e.id(2), "owner")
		o := e.signInAs(email, dashPassword)
		if err := mysql.NewUserService(e.db).AddAuthenticator(t.Context(), e.id(2), e.acctUserID(email), "JBSWY3DPEHPK3PXP", 1, nil, shop.SessionClient{}); err != nil {
			t.Fatal(err)
		}
		if r := o.post("/account/two-factor", url.Values{"require": {"on"}}); r.status != http.StatusSeeOther {
			t.Fatalf("on: %d %s", r.status, r.body)
		}
		r := o.post("/account/security/authenticator/remove", nil)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "last second factor of its last owner") {
			t.Fatalf("remove the app: %d %s", r.status, r.body)
		}
		if n := e.count("SELECT COUNT(*) FROM user_totp WHERE account_id = ?", e.id(2)); n != 1 {
			t.Fatal("the app was removed")
		}
		if r := o.post("/account/two-factor", url.Values{"require": {"off"}}); r.status != http.StatusSeeOther {
			t.Fatalf("off: %d", r.status)
		}
		if r := o.post("/account/security/authenticator/remove", nil); r.status != http.StatusSeeOther {
			t.Fatalf("remove with the requirement off: %d %s", r.status, r.body)
		}
	})

	t.Run("Off", func(t *testing.T) {
		e.exec("UPDATE accounts SET require_two_factor = FALSE WHERE id IN (?, ?)", e.id(1), e.id(2))
		if r := owner.get("/account", false); r.status != http.StatusOK {
			t.Fatalf("after the requirement is off: %d", r.status)
		}
		e.exec("UPDATE accounts SET require_two_factor = TRUE WHERE id IN (?, ?)", e.id(1), e.id(2))
		ownerKey2 := newSoftKey(t, e.id(1), e.acctUserID(ownerEmail))
		ownerKey2.store(t, e, "Owner's second key")
		if r := owner.post("/account/two-factor", url.Values{"require": {"off"}}); r.status != http.StatusSeeOther {
			t.Fatalf("off: %d %s", r.status, r.body)
		}
		if n := e.count("SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND action = 'require_two_factor' AND details = 'off'", e.id(1)); n != 1 {
			t.Fatalf("%d records of the requirement off", n)
		}
	})
}
