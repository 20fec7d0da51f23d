package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// maxKeyNameLen and maxUserEmailLen are the widths of the columns they are stored in.
const (
	maxKeyNameLen   = 255
	maxUserEmailLen = 191
)

// accountView loads both sections of the account page.
func (s *Server) accountView(c *gin.Context) (templates.AccountView, error) {
	v := templates.AccountView{Chrome: s.chrome(c, "Keys & users", "account")}
	v.TwoFactor.On = currentAccount(c).RequireTwoFactor
	var err error
	if v.Keys, err = s.keysSection(c); err != nil {
		return v, err
	}
	v.Users, err = s.usersSection(c)
	return v, err
}

func (s *Server) keysSection(c *gin.Context) (templates.KeysSection, error) {
	k := templates.KeysSection{Scope: shop.ScopeRead, APIUsername: currentAccount(c).APIUsername, APIBase: s.BaseURL + "/api/v2"}
	keys, err := s.Admin.FindAPIKeys(c.Request.Context(), currentAccount(c).ID)
	if err != nil {
		return k, err
	}
	loc := s.zone(c)
	for _, key := range keys {
		r := templates.APIKeyRow{
			ID: key.ID, Name: key.Name, Scope: key.Scope,
			Created: templates.FormatTime(key.CreatedAt.Time, loc), CreatedISO: key.CreatedAt.UTC().Format(time.RFC3339),
			LastUsed: "never", Active: key.RevokedAt == nil, Status: "Active",
			RevokeURL: fmt.Sprintf("/account/keys/%d/revoke", key.ID),
		}
		if r.Name == "" {
			r.Name = fmt.Sprintf("Key %d", key.ID)
		}
		if key.LastUsedAt != nil {
			r.LastUsed = templates.FormatTime(key.LastUsedAt.Time, loc)
			r.LastUsedISO = key.LastUsedAt.UTC().Format(time.RFC3339)
		}
		if key.RevokedAt != nil {
			r.Status = "Revoked " + templates.FormatTime(key.RevokedAt.Time, loc)
		}
		k.Rows = append(k.Rows, r)
	}
	return k, nil
}

func accountRoleOptions(selected string) []templates.Option {
	var out []templates.Option
	for _, r := range []struct{ v, l string }{{shop.RoleOwner, "Owner"}, {shop.RoleStaff, "Staff"}, {shop.RoleViewer, "Viewer"}} {
		out = append(out, templates.Option{Value: r.v, Label: r.l, Selected: r.v == selected})
	}
	return out
}

func (s *Server) usersSection(c *gin.Context) (templates.UsersSection, error) {
	u := templates.UsersSection{Roles: accountRoleOptions(shop.RoleViewer)}
	users, err := s.Admin.FindUsers(c.Request.Context(), currentAccount(c).ID)
	if err != nil {
		return u, err
	}
	me := currentUser(c).ID
	loc := s.zone(c)
	for _, usr := range users {
		u.Rows = append(u.Rows, templates.UserRow{
			ID: usr.ID, Email: usr.Email, Role: usr.Role, Roles: accountRoleOptions(usr.Role), IsMe: usr.ID == me,
			Created: templates.FormatTime(usr.CreatedAt.Time, loc), CreatedISO: usr.CreatedAt.UTC().Format(time.RFC3339),
			RoleURL: fmt.Sprintf("/account/users/%d/role", usr.ID), RemoveURL: fmt.Sprintf("/account/users/%d/remove", usr.ID),
		})
	}
	return u, nil
}

func (s *Server) accountPage(c *gin.Context) error {
	v, err := s.accountView(c)
	if err != nil {
		return err
	}
	return render(c, templates.Account(v))
}

// showSection shows the keys section (k) or the users section (u) as a form's answer:
// alone for htmx, else in the whole page with the other section loaded.
func (s *Server) showSection(c *gin.Context, k *templates.KeysSection, u *templates.UsersSection) view {
	return func(fragment bool) (templ.Component, error) {
		switch {
		case fragment && k != nil:
			return templates.AccountKeys(*k), nil
		case fragment:
			return templates.AccountUsers(*u), nil
		}
		v := templates.AccountView{Chrome: s.chrome(c, "Keys & users", "account")}
		v.TwoFactor.On = currentAccount(c).RequireTwoFactor
		var err error
		if k != nil {
			v.Keys = *k
			v.Users, err = s.usersSection(c)
		} else {
			v.Users = *u
			v.Keys, err = s.keysSection(c)
		}
		return templates.Account(v), err
	}
}

// accountDone ends a successful action: htmx gets the fresh section with the notice; a
// browser without JavaScript is sent back to the page (post/redirect/get).
func (s *Server) accountDone(c *gin.Context, notice, anchor string) error {
	if !isFragment(c) {
		s.flash(c, notice)
		c.Redirect(http.StatusSeeOther, "/account#"+anchor)
		return nil
	}
	if anchor == "keys" {
		k, err := s.keysSection(c)
		k.Notice = notice
		return s.keep(c, err, templates.AccountKeys(k))
	}
	u, err := s.usersSection(c)
	u.Notice = notice
	return s.keep(c, err, templates.AccountUsers(u))
}

// keep renders comp unless err (from loading what it shows) is set.
func (s *Server) keep(c *gin.Context, err error, comp templ.Component) error {
	if err != nil {
		return err
	}
	return render(c, comp)
}

// requiredText reads a required form field as text: trimmed, valid UTF-8, at most max
// characters. A problem is noted in errs under the field's name; missing says what to
// do when the field is blank.
func requiredText(c *gin.Context, errs map[string]string, name, label string, max int, missing string) string {
	v := strings.TrimSpace(c.PostForm(name))
	switch {
	case !utf8.ValidString(v):
		v, errs[name] = "", label+" contains characters that cannot be read."
	case utf8.RuneCountInString(v) > max:
		errs[name] = fmt.Sprintf("%s must have at most %d characters.", label, max)
	case v == "":
		errs[name] = missing
	}
	return v
}

// formRefused is the error of a form whose messages stand next to its fields.
func formRefused() *shop.Error { return shop.Errorf(shop.EInvalid, "Correct the fields marked.") }

func (s *Server) createKey(c *gin.Context) error {
	errs := map[string]string{}
	name := requiredText(c, errs, "name", "The name", maxKeyNameLen, "Give the key a name, so that you know later which program uses it.")
	scope := strings.TrimSpace(c.PostForm("scope"))
	if !shop.ValidScope(scope) {
		errs["scope"] = "Choose read only, read and write, or audit log."
	}
	if len(errs) == 0 {
		key, err := s.Admin.CreateAPIKey(c.Request.Context(), currentAccount(c).ID, name, scope)
		if err == nil {
			// The page is answered directly, not redirected: the key must not be kept
			// anywhere (not even in the session) to be shown after a redirect.
			fresh, err := s.keysSection(c)
			if err != nil {
				return err
			}
			fresh.NewKey, fresh.NewKeyName = key, name
			// A call the key may make: an audit key reads the audit log only.
			try := "/purchases?per_page=1"
			if scope == shop.ScopeAudit {
				try = "/audit"
			}
			fresh.NewKeyCurl = "curl -u " + fresh.APIUsername + ":" + key + " '" + fresh.APIBase + try + "'"
			return answer(c, s.showSection(c, &fresh, nil))
		}
		if shop.ErrorCode(err) != shop.EInvalid || shop.ErrorParam(err) == "" {
			return err
		}
		errs[shop.ErrorParam(err)] = shop.ErrorMessage(err)
	}
	k, err := s.keysSection(c)
	if err != nil {
		return err
	}
	k.Errors, k.Name, k.Scope = errs, name, scope
	return &formError{formRefused(), s.showSection(c, &k, nil)}
}

// confirm shows the page that asks to confirm a destructive action without
// JavaScript; htmx confirms with its dialog and sends confirm=yes.
func (s *Server) confirm(c *gin.Context, heading, message, button string) error {
	return render(c, templates.Confirm(templates.ConfirmView{
		Chrome: s.chrome(c, heading, "account"), Heading: heading, Message: message,
		Action: c.Request.URL.Path, Button: button, CancelURL: "/account",
	}))
}

// confirmed reports whether a destructive action was confirmed.
func confirmed(c *gin.Context) bool { return c.PostForm("confirm") == "yes" }

func (s *Server) revokeKey(c *gin.Context) error {
	key, _, err := pathRecord(c, "id", "API key", s.Admin.FindAPIKeys, func(k *shop.APIKeyInfo) int64 { return k.ID })
	if err != nil {
		return err
	}
	name := key.Name
	if name == "" {
		name = fmt.Sprintf("Key %d", key.ID)
	}
	if !confirmed(c) {
		return s.confirm(c, "Revoke the API key?", fmt.Sprintf("Programs using the key “%s” will stop working within %d seconds. This cannot be undone.", name, int(KeyCacheTTL/time.Second)), "Revoke key")
	}
	if err := s.Admin.RevokeAPIKey(c.Request.Context(), currentAccount(c).ID, key.ID); err != nil {
		return err
	}
	// This instance refuses the key from now on; the others within KeyCacheTTL.
	s.keys.forget(key.ID)
	return s.accountDone(c, fmt.Sprintf("The key “%s” is revoked.", name), "keys")
}

func (s *Server) createUser(c *gin.Context) error {
	u, err := s.usersSection(c)
	if err != nil {
		return err
	}
	u.Errors = map[string]string{}
	email := requiredText(c, u.Errors, "email", "The e-mail", maxUserEmailLen, "Enter the new user's e-mail address.")
	role := strings.TrimSpace(c.PostForm("role"))
	if !shop.ValidRole(role) {
		u.Errors["role"] = "Choose owner, staff or viewer."
	}
	password := c.PostForm("password")
	if len(password) < 8 {
		u.Errors["password"] = "The password must have at least 8 characters."
	}
	u.Email, u.Roles = email, accountRoleOptions(role)
	if len(u.Errors) == 0 {
		if _, err = s.Admin.CreateUser(c.Request.Context(), currentAccount(c).ID, email, role, password); err == nil {
			return s.accountDone(c, fmt.Sprintf("%s was added as %s. Tell them their initial password.", email, role), "users")
		}
		if shop.ErrorCode(err) != shop.EInvalid {
			return err
		}
		field := shop.ErrorParam(err)
		if field != "email" && field != "role" && field != "password" {
			field = "email"
		}
		u.Errors[field] = shop.ErrorMessage(err)
	}
	return &formError{formRefused(), s.showSection(c, nil, &u)}
}

// accountTargetUser reads the user of the path: 400 when malformed, 404 when not in the
// account. It returns the account's users too, to count owners.
func (s *Server) accountTargetUser(c *gin.Context) (*shop.User, []*shop.User, error) {
	return pathRecord(c, "id", "User", s.Admin.FindUsers, func(u *shop.User) int64 { return u.ID })
}

// userRefused answers a refused user action (an EInvalid error) with the message next
// to the user's row; any other error is answered as it is.
func (s *Server) userRefused(c *gin.Context, userID int64, err error) error {
	if shop.ErrorCode(err) != shop.EInvalid {
		return err
	}
	msg := shop.ErrorMessage(err)
	return &formError{err, func(fragment bool) (templ.Component, error) {
		u, err := s.usersSection(c)
		if err != nil {
			return nil, err
		}
		for i := range u.Rows {
			if u.Rows[i].ID == userID {
				u.Rows[i].Error = msg
			}
		}
		u.Error = msg
		return s.showSection(c, nil, &u)(fragment)
	}}
}

// leaveAccountPage sends a user who just lost ownership (or their account) away from
// the owner's page.
func (s *Server) leaveAccountPage(c *gin.Context, target, notice string) error {
	if notice != "" {
		s.flash(c, notice)
	}
	if isHTMX(c) {
		c.Header("HX-Redirect", target)
		c.Status(http.StatusOK)
		return nil
	}
	c.Redirect(http.StatusSeeOther, target)
	return nil
}

func (s *Server) setUserRole(c *gin.Context) error {
	target, users, err := s.accountTargetUser(c)
	if err != nil {
		return err
	}
	role := strings.TrimSpace(c.PostForm("role"))
	if !shop.ValidRole(role) {
		return s.userRefused(c, target.ID, shop.ParamErrorf(shop.EInvalid, "role", "Choose owner, staff or viewer."))
	}
	if err := shop.KeepAnOwner(users, target, role); err != nil {
		return s.userRefused(c, target.ID, err)
	}
	if err := s.Admin.SetUserRole(c.Request.Context(), currentAccount(c).ID, target.ID, role); err != nil {
		return s.userRefused(c, target.ID, err)
	}
	if target.ID == currentUser(c).ID && role != shop.RoleOwner {
		return s.leaveAccountPage(c, "/purchases", "You are now "+role+"; only owners manage users and keys.")
	}
	return s.accountDone(c, fmt.Sprintf("%s is now %s.", target.Email, role), "users")
}

func (s *Server) removeUser(c *gin.Context) error {
	target, users, err := s.accountTargetUser(c)
	if err != nil {
		return err
	}
	if err := shop.KeepAnOwner(users, target, ""); err != nil {
		return s.userRefused(c, target.ID, err)
	}
	self := target.ID == currentUser(c).ID
	if !confirmed(c) {
		message := fmt.Sprintf("%s will be signed out at once and can no longer sign in.", target.Email)
		if self {
			message = "You are removing yourself: you will be signed out at once and can no longer sign in."
		}
		return s.confirm(c, "Remove the user?", message, "Remove user")
	}
	if err := s.Admin.DeleteUser(c.Request.Context(), currentAccount(c).ID, target.ID); err != nil {
		return s.userRefused(c, target.ID, err)
	}
	if self {
		// The user's sessions went with them.
		return s.leaveAccountPage(c, "/login", "")
	}
	return s.accountDone(c, fmt.Sprintf("%s was removed.", target.Email), "users")
}
