package web

import (
	"fmt"
	"net/http"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// Password lengths: bcrypt reads at most 72 bytes, and a longer password is refused
// rather than cut.
const (
	minPasswordBytes = 8
	maxPasswordBytes = 72
)

// passwordChanged is the notice after a successful change.
const passwordChanged = "Password changed; other sessions were signed out."

func (s *Server) passwordPage(c *gin.Context) error {
	return render(c, templates.Password(templates.PasswordView{Chrome: s.chrome(c, "Change your password", "")}))
}

// changePassword checks the form, changes the password, signs every other session of
// the user out and renews the current one (a new session id), then shows the page
// again with a notice (post/redirect/get). Problems are shown next to their field.
func (s *Server) changePassword(c *gin.Context) error {
	ctx := c.Request.Context()
	user := currentUser(c)
	if err := readForm(c); err != nil {
		return err
	}
	current := c.Request.PostForm.Get("current_password")
	next := c.Request.PostForm.Get("new_password")
	confirm := c.Request.PostForm.Get("confirm_password")

	errs := map[string]string{}
	refuse := func(code string) error {
		return &formError{shop.Errorf(code, "The password was not changed."), func(bool) (templ.Component, error) {
			return templates.Password(templates.PasswordView{Chrome: s.chrome(c, "Change your password", ""), Errors: errs}), nil
		}}
	}
	// A wrong current password counts as a failed sign-in: a session left open on a
	// shared computer must not become a way to guess the password.
	ip := clientIP(c.Request)
	wait, err := s.throttle.wait(ctx, ip, user.Email)
	if err != nil {
		return err
	}
	if wait > 0 {
		s.Metrics.count(signInRefused)
		errs["current_password"] = fmt.Sprintf("Too many wrong passwords. Try again in %d seconds.", retryAfter(c, wait))
		return refuse(shop.ERateLimited)
	}
	switch {
	case current == "":
		errs["current_password"] = "Enter your current password."
	case len(current) > maxPasswordBytes:
		errs["current_password"] = "The current password is not right."
	}
	switch {
	case len(next) < minPasswordBytes:
		errs["new_password"] = fmt.Sprintf("The new password must have at least %d characters.", minPasswordBytes)
	case len(next) > maxPasswordBytes:
		errs["new_password"] = fmt.Sprintf("The new password must have at most %d bytes.", maxPasswordBytes)
	case next != confirm:
		errs["confirm_password"] = "The two new passwords are not the same."
	}
	if len(errs) > 0 {
		return refuse(shop.EInvalid)
	}

	token, err := s.Users.ChangePassword(ctx, user.AccountID, user.ID, current, next, sessionClient(c))
	if err != nil {
		field := shop.ErrorParam(err)
		if shop.ErrorCode(err) != shop.EInvalid || (field != "current_password" && field != "new_password") {
			return err
		}
		if field == "current_password" {
			if err := s.throttle.fail(ctx, ip, user.Email); err != nil {
				return err
			}
		}
		errs[field] = shop.ErrorMessage(err)
		return refuse(shop.EInvalid)
	}
	// Every session of the user ended with the change, this one too: it goes on
	// under the new token, in a new cookie.
	if err := s.startSession(c, user.AccountID, token, passwordChanged); err != nil {
		return err
	}
	c.Redirect(http.StatusSeeOther, "/account/password")
	return nil
}
