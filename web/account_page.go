package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// maxKeyNameLen and maxUserEmailLen are the widths of the columns they are stored in.
const (
	maxKeyNameLen   = 255
	maxUserEmailLen = 191
)

// accountRoutes registers the owner's pages: API keys and users. The group lets only
// owners through.
func (s *Server) accountRoutes(d *gin.RouterGroup) {
	d.GET("/account", s.accountPage)
	d.POST("/account/keys", s.createKey)
	d.POST("/account/keys/:id/revoke", s.revokeKey)
	d.POST("/account/users", s.createUser)
	d.POST("/account/users/:id/role", s.setUserRole)
	d.POST("/account/users/:id/remove", s.removeUser)
}

// accountView loads both sections of the account page.
func (s *Server) accountView(c *gin.Context) (templates.AccountView, error) {
	v := templates.AccountView{Chrome: s.chrome(c, "Keys & users", "account")}
	var err error
	if v.Keys, err = s.keysSection(c); err != nil {
		return v, err
	}
	v.Users, err = s.usersSection(c)
	return v, err
}

func (s *Server) accountLoc(c *gin.Context) *time.Location {
	if a, err := s.account(c); err == nil {
		return s.location(a.Timezone)
	}
	return time.UTC
}

func (s *Server) keysSection(c *gin.Context) (templates.KeysSection, error) {
	k := templates.KeysSection{Scope: shop.ScopeRead}
	keys, err := s.Admin.FindAPIKeys(c.Request.Context(), currentUser(c).AccountID)
	if err != nil {
		return k, err
	}
	loc := s.accountLoc(c)
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
	users, err := s.Admin.FindUsers(c.Request.Context(), currentUser(c).AccountID)
	if err != nil {
		return u, err
	}
	me := currentUser(c).ID
	loc := s.accountLoc(c)
	for _, usr := range users {
		u.Rows = append(u.Rows, templates.UserRow{
			ID: usr.ID, Email: usr.Email, Role: usr.Role, Roles: accountRoleOptions(usr.Role), IsMe: usr.ID == me,
			Created: templates.FormatTime(usr.CreatedAt.Time, loc), CreatedISO: usr.CreatedAt.UTC().Format(time.RFC3339),
			RoleURL: fmt.Sprintf("/account/users/%d/role", usr.ID), RemoveURL: fmt.Sprintf("/account/users/%d/remove", usr.ID),
		})
	}
	return u, nil
}

func (s *Server) accountPage(c *gin.Context) {
	v, err := s.accountView(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	renderStatus(c, http.StatusOK, templates.Account(v))
}

// renderKeys answers a key action: the keys section for htmx (200, which htmx swaps,
// errors included), else the whole page with the given status.
func (s *Server) renderKeys(c *gin.Context, status int, k templates.KeysSection) {
	if isFragment(c) {
		renderStatus(c, http.StatusOK, templates.AccountKeys(k))
		return
	}
	users, err := s.usersSection(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	renderStatus(c, status, templates.Account(templates.AccountView{Chrome: s.chrome(c, "Keys & users", "account"), Keys: k, Users: users}))
}

// renderUsers is renderKeys for the users section.
func (s *Server) renderUsers(c *gin.Context, status int, u templates.UsersSection) {
	if isFragment(c) {
		renderStatus(c, http.StatusOK, templates.AccountUsers(u))
		return
	}
	keys, err := s.keysSection(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	renderStatus(c, status, templates.Account(templates.AccountView{Chrome: s.chrome(c, "Keys & users", "account"), Keys: keys, Users: u}))
}

// accountDone ends a successful action: htmx gets the fresh section with the notice; a
// browser without JavaScript is sent back to the page (post/redirect/get).
func (s *Server) accountDone(c *gin.Context, notice, anchor string, section func() error) {
	if isFragment(c) {
		if err := section(); err != nil {
			s.pageError(c, err)
		}
		return
	}
	s.flash(c, notice)
	c.Redirect(http.StatusSeeOther, "/account#"+anchor)
}

// accountTextField reads a form field as text: trimmed, valid UTF-8, at most max characters.
func accountTextField(c *gin.Context, name, label string, max int) (string, string) {
	v := strings.TrimSpace(c.PostForm(name))
	switch {
	case !utf8.ValidString(v):
		return "", label + " contains characters that cannot be read."
	case utf8.RuneCountInString(v) > max:
		return v, fmt.Sprintf("%s must have at most %d characters.", label, max)
	}
	return v, ""
}

func (s *Server) createKey(c *gin.Context) {
	k, err := s.keysSection(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	k.Errors = map[string]string{}
	name, msg := accountTextField(c, "name", "The name", maxKeyNameLen)
	if msg == "" && name == "" {
		msg = "Give the key a name, so that you know later which program uses it."
	}
	if msg != "" {
		k.Errors["name"] = msg
	}
	scope := strings.TrimSpace(c.PostForm("scope"))
	if scope != shop.ScopeRead && scope != shop.ScopeReadWrite {
		k.Errors["scope"] = "Choose read only or read and write."
	}
	k.Name, k.Scope = name, scope
	if len(k.Errors) > 0 {
		s.renderKeys(c, http.StatusBadRequest, k)
		return
	}
	key, err := s.Admin.CreateAPIKey(c.Request.Context(), currentUser(c).AccountID, name, scope)
	if err != nil {
		if shop.ErrorCode(err) == shop.EInvalid && shop.ErrorParam(err) != "" {
			k.Errors[shop.ErrorParam(err)] = shop.ErrorMessage(err)
			s.renderKeys(c, http.StatusBadRequest, k)
			return
		}
		s.pageError(c, err)
		return
	}
	// The page is answered directly, not redirected: the key must not be kept
	// anywhere (not even in the session) to be shown after a redirect.
	fresh, err := s.keysSection(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	fresh.NewKey, fresh.NewKeyName = key, name
	s.renderKeys(c, http.StatusOK, fresh)
}

// accountConfirmed reports whether a destructive action was confirmed: htmx confirms with
// its dialog and sends confirm=yes; without JavaScript a confirmation page is shown.
func (s *Server) accountConfirmed(c *gin.Context, heading, message, button string) bool {
	if c.PostForm("confirm") == "yes" {
		return true
	}
	renderStatus(c, http.StatusOK, templates.Confirm(templates.ConfirmView{
		Chrome: s.chrome(c, heading, "account"), Heading: heading, Message: message,
		Action: c.Request.URL.Path, Button: button, CancelURL: "/account",
	}))
	return false
}

func (s *Server) revokeKey(c *gin.Context) {
	ctx := c.Request.Context()
	id, err := pathID(c, "id")
	if err != nil {
		s.pageError(c, err)
		return
	}
	acct := currentUser(c).AccountID
	keys, err := s.Admin.FindAPIKeys(ctx, acct)
	if err != nil {
		s.pageError(c, err)
		return
	}
	var key *shop.APIKeyInfo
	for _, k := range keys {
		if k.ID == id {
			key = k
		}
	}
	if key == nil {
		s.pageError(c, shop.Errorf(shop.ENotFound, "API key %d was not found.", id))
		return
	}
	name := key.Name
	if name == "" {
		name = fmt.Sprintf("Key %d", key.ID)
	}
	if !s.accountConfirmed(c, "Revoke the API key?", fmt.Sprintf("Programs using the key “%s” will stop working within %d seconds. This cannot be undone.", name, int(KeyCacheTTL/time.Second)), "Revoke key") {
		return
	}
	if err := s.Admin.RevokeAPIKey(ctx, acct, id); err != nil {
		s.pageError(c, err)
		return
	}
	// This instance refuses the key from now on; the others within KeyCacheTTL.
	s.keys.forget(id)
	notice := fmt.Sprintf("The key “%s” is revoked.", name)
	s.accountDone(c, notice, "keys", func() error {
		k, err := s.keysSection(c)
		if err != nil {
			return err
		}
		k.Notice = notice
		renderStatus(c, http.StatusOK, templates.AccountKeys(k))
		return nil
	})
}

func (s *Server) createUser(c *gin.Context) {
	u, err := s.usersSection(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	u.Errors = map[string]string{}
	email, msg := accountTextField(c, "email", "The e-mail", maxUserEmailLen)
	if msg == "" && email == "" {
		msg = "Enter the new user's e-mail address."
	}
	if msg != "" {
		u.Errors["email"] = msg
	}
	role := strings.TrimSpace(c.PostForm("role"))
	if !shop.ValidRole(role) {
		u.Errors["role"] = "Choose owner, staff or viewer."
	}
	password := c.PostForm("password")
	if len(password) < 8 {
		u.Errors["password"] = "The password must have at least 8 characters."
	}
	u.Email, u.Roles = email, accountRoleOptions(role)
	if len(u.Errors) > 0 {
		s.renderUsers(c, http.StatusBadRequest, u)
		return
	}
	if _, err := s.Admin.CreateUser(c.Request.Context(), currentUser(c).AccountID, email, role, password); err != nil {
		if shop.ErrorCode(err) == shop.EInvalid {
			field := shop.ErrorParam(err)
			if field != "email" && field != "role" && field != "password" {
				field = "email"
			}
			u.Errors[field] = shop.ErrorMessage(err)
			s.renderUsers(c, http.StatusBadRequest, u)
			return
		}
		s.pageError(c, err)
		return
	}
	notice := fmt.Sprintf("%s was added as %s. Tell them their initial password.", email, role)
	s.accountDone(c, notice, "users", func() error {
		fresh, err := s.usersSection(c)
		if err != nil {
			return err
		}
		fresh.Notice = notice
		renderStatus(c, http.StatusOK, templates.AccountUsers(fresh))
		return nil
	})
}

// accountTargetUser reads the user of the path: 400 when malformed, 404 when not in the
// account. It returns the account's users too, to count owners.
func (s *Server) accountTargetUser(c *gin.Context) (*shop.User, []*shop.User, error) {
	id, err := filter.ParseID("id", c.Param("id"))
	if err != nil {
		return nil, nil, err
	}
	users, err := s.Admin.FindUsers(c.Request.Context(), currentUser(c).AccountID)
	if err != nil {
		return nil, nil, err
	}
	for _, u := range users {
		if u.ID == id {
			return u, users, nil
		}
	}
	return nil, nil, shop.Errorf(shop.ENotFound, "User %d was not found.", id)
}

// isLastOwner reports whether u is the account's only owner.
func isLastOwner(u *shop.User, users []*shop.User) bool {
	if u.Role != shop.RoleOwner {
		return false
	}
	for _, o := range users {
		if o.ID != u.ID && o.Role == shop.RoleOwner {
			return false
		}
	}
	return true
}

// accountUserError answers a refused user action with the message next to the user's row.
func (s *Server) accountUserError(c *gin.Context, userID int64, msg string) {
	u, err := s.usersSection(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	for i := range u.Rows {
		if u.Rows[i].ID == userID {
			u.Rows[i].Error = msg
		}
	}
	u.Error = msg
	s.renderUsers(c, http.StatusBadRequest, u)
}

// leaveAccountPage sends a user who just lost ownership (or their account) away from
// the owner's page.
func (s *Server) leaveAccountPage(c *gin.Context, target, notice string) {
	if notice != "" {
		s.flash(c, notice)
	}
	if c.GetHeader("HX-Request") == "true" {
		c.Header("HX-Redirect", target)
		c.Status(http.StatusOK)
		return
	}
	c.Redirect(http.StatusSeeOther, target)
}

func (s *Server) setUserRole(c *gin.Context) {
	target, users, err := s.accountTargetUser(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	role := strings.TrimSpace(c.PostForm("role"))
	if !shop.ValidRole(role) {
		s.accountUserError(c, target.ID, "Choose owner, staff or viewer.")
		return
	}
	if role != shop.RoleOwner && isLastOwner(target, users) {
		s.accountUserError(c, target.ID, fmt.Sprintf("%s is the account's only owner and must stay one. Make another user an owner first.", target.Email))
		return
	}
	if err := s.Admin.SetUserRole(c.Request.Context(), currentUser(c).AccountID, target.ID, role); err != nil {
		if shop.ErrorCode(err) == shop.EInvalid {
			s.accountUserError(c, target.ID, shop.ErrorMessage(err))
			return
		}
		s.pageError(c, err)
		return
	}
	notice := fmt.Sprintf("%s is now %s.", target.Email, role)
	if target.ID == currentUser(c).ID && role != shop.RoleOwner {
		s.leaveAccountPage(c, "/purchases", "You are now "+role+"; only owners manage users and keys.")
		return
	}
	s.accountDone(c, notice, "users", func() error {
		fresh, err := s.usersSection(c)
		if err != nil {
			return err
		}
		fresh.Notice = notice
		renderStatus(c, http.StatusOK, templates.AccountUsers(fresh))
		return nil
	})
}

func (s *Server) removeUser(c *gin.Context) {
	target, users, err := s.accountTargetUser(c)
	if err != nil {
		s.pageError(c, err)
		return
	}
	if isLastOwner(target, users) {
		s.accountUserError(c, target.ID, fmt.Sprintf("%s is the account's only owner and cannot be removed. Make another user an owner first.", target.Email))
		return
	}
	self := target.ID == currentUser(c).ID
	message := fmt.Sprintf("%s will be signed out at once and can no longer sign in.", target.Email)
	if self {
		message = "You are removing yourself: you will be signed out at once and can no longer sign in."
	}
	if !s.accountConfirmed(c, "Remove the user?", message, "Remove user") {
		return
	}
	if err := s.Admin.DeleteUser(c.Request.Context(), currentUser(c).AccountID, target.ID); err != nil {
		if shop.ErrorCode(err) == shop.EInvalid {
			s.accountUserError(c, target.ID, shop.ErrorMessage(err))
			return
		}
		s.pageError(c, err)
		return
	}
	if self {
		// The user's sessions went with them.
		s.leaveAccountPage(c, "/login", "")
		return
	}
	notice := fmt.Sprintf("%s was removed.", target.Email)
	s.accountDone(c, notice, "users", func() error {
		fresh, err := s.usersSection(c)
		if err != nil {
			return err
		}
		fresh.Notice = notice
		renderStatus(c, http.StatusOK, templates.AccountUsers(fresh))
		return nil
	})
}
