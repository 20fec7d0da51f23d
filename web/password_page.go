package web

import (
	"context"
	"fmt"
	"math"
	"net/http"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// passwordChanger is the storage side of the password change; *mysql.DB has it.
type passwordChanger interface {
	// ChangePassword checks current, sets next, ends all of the user's sessions and
	// returns the token of a new one. Returns EInvalid with param current_password or
	// new_password.
	ChangePassword(ctx context.Context, accountID, userID int64, current, next string) (string, error)
}

// Password lengths: bcrypt reads at most 72 bytes, and a longer password is refused
// rather than cut.
const (
	minPasswordBytes = 8
	maxPasswordBytes = 72
)

// passwordChanged is the notice after a successful change.
const passwordChanged = "Password changed; other sessions were signed out."

// passwordRoutes registers the password change, open to every signed-in user.
func (s *Server) passwordRoutes(d *gin.RouterGroup) {
	d.GET("/account/password", s.passwordPage)
	d.POST("/account/password", s.changePassword)
}

func (s *Server) passwordPage(c *gin.Context) {
	renderStatus(c, http.StatusOK, templates.Password(templates.PasswordView{Chrome: s.chrome(c, "Change your password", "")}))
}

// changePassword checks the form, changes the password, signs every other session of
// the user out and renews the current one (a new session id), then shows the page
// again with a notice (post/redirect/get). Problems are shown next to their field.
func (s *Server) changePassword(c *gin.Context) {
	user := currentUser(c)
	pc, ok := s.Users.(passwordChanger)
	if !ok {
		s.pageError(c, shop.Errorf(shop.ENotFound, "Passwords cannot be changed here."))
		return
	}
	if c.Request.ContentLength > MaxBodyBytes {
		s.pageError(c, &statusError{shop.Errorf(shop.ETooLarge, "The form is larger than %d bytes.", MaxBodyBytes), http.StatusRequestEntityTooLarge})
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes)
	if err := c.Request.ParseForm(); err != nil {
		if isMaxBytes(err) {
			s.pageError(c, &statusError{shop.Errorf(shop.ETooLarge, "The form is larger than %d bytes.", MaxBodyBytes), http.StatusRequestEntityTooLarge})
			return
		}
		s.pageError(c, shop.Errorf(shop.EInvalid, "The form could not be read."))
		return
	}
	current := c.Request.PostForm.Get("current_password")
	next := c.Request.PostForm.Get("new_password")
	confirm := c.Request.PostForm.Get("confirm_password")

	v := templates.PasswordView{Errors: map[string]string{}}
	render := func(status int) {
		v.Chrome = s.chrome(c, "Change your password", "")
		renderStatus(c, status, templates.Password(v))
	}
	// A wrong current password counts as a failed sign-in: a session left open on a
	// shared computer must not become a way to guess the password.
	ip := clientIP(c.Request)
	wait, err := s.throttle.wait(c.Request.Context(), ip, user.Email)
	if err != nil {
		s.pageError(c, err)
		return
	}
	if wait > 0 {
		secs := int(math.Ceil(wait.Seconds()))
		v.Errors["current_password"] = fmt.Sprintf("Too many wrong passwords. Try again in %d seconds.", secs)
		c.Header("Retry-After", fmt.Sprint(secs))
		render(http.StatusTooManyRequests)
		return
	}
	switch {
	case current == "":
		v.Errors["current_password"] = "Enter your current password."
	case len(current) > maxPasswordBytes:
		v.Errors["current_password"] = "The current password is not right."
	}
	switch {
	case len(next) < minPasswordBytes:
		v.Errors["new_password"] = fmt.Sprintf("The new password must have at least %d characters.", minPasswordBytes)
	case len(next) > maxPasswordBytes:
		v.Errors["new_password"] = fmt.Sprintf("The new password must have at most %d bytes.", maxPasswordBytes)
	case next != confirm:
		v.Errors["confirm_password"] = "The two new passwords are not the same."
	}
	if len(v.Errors) > 0 {
		render(http.StatusBadRequest)
		return
	}

	token, err := pc.ChangePassword(c.Request.Context(), user.AccountID, user.ID, current, next)
	if err != nil {
		field := shop.ErrorParam(err)
		if shop.ErrorCode(err) != shop.EInvalid || (field != "current_password" && field != "new_password") {
			s.pageError(c, err)
			return
		}
		if field == "current_password" {
			if err := s.throttle.fail(c.Request.Context(), ip, user.Email); err != nil {
				s.pageError(c, err)
				return
			}
		}
		v.Errors[field] = shop.ErrorMessage(err)
		render(http.StatusBadRequest)
		return
	}
	// Every session of the user ended with the change, this one too: it goes on
	// under the new token, in a new cookie.
	sess, _ := s.store.New(c.Request, sessionName)
	sess.Values[sessionToken] = token
	sess.Values[sessionFlash] = passwordChanged
	if err := sess.Save(c.Request, c.Writer); err != nil {
		s.pageError(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, "/account/password")
}
