package web

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

const securityURL = "/account/security"

// currentSessionID is the id of the request's session (0 when signed out).
func currentSessionID(c *gin.Context) int64 {
	id, _ := c.Get(ctxSessionID)
	n, _ := id.(int64)
	return n
}

// securityView builds the Security page for the signed-in user.
func (s *Server) securityView(c *gin.Context) (templates.SecurityView, error) {
	u := currentUser(c)
	v := templates.SecurityView{Chrome: s.chrome(c, "Security", "")}
	sessions, err := s.Users.FindSessions(c.Request.Context(), u.AccountID, u.ID)
	if err != nil {
		return v, err
	}
	if v.Authenticator, err = s.authenticatorView(c); err != nil {
		return v, err
	}
	if v.Passkeys, err = s.passkeysView(c); err != nil {
		return v, err
	}
	v.Authenticator.HasPasskey = len(v.Passkeys.Rows) > 0
	if a := currentAccount(c); a != nil && a.RequireTwoFactor && !v.Authenticator.On && len(v.Passkeys.Rows) == 0 {
		v.Required = true
	}
	loc := s.zone(c)
	for _, ss := range sessions {
		v.Sessions = append(v.Sessions, templates.SessionRow{
			Device: ss.Client.Device, Address: ss.Client.Address,
			SignedIn: templates.FormatTime(ss.SignedInAt.Time, loc), SignedInISO: ss.SignedInAt.UTC().Format(time.RFC3339),
			LastSeen: templates.FormatTime(ss.LastSeenAt.Time, loc), LastSeenISO: ss.LastSeenAt.UTC().Format(time.RFC3339),
			Current: ss.ID == currentSessionID(c), SignOutURL: fmt.Sprintf("%s/sessions/%d/end", securityURL, ss.ID),
		})
	}
	return v, nil
}

func (s *Server) securityPage(c *gin.Context) error {
	v, err := s.securityView(c)
	if err == nil {
		err = render(c, templates.Security(v))
	}
	return err
}

// endSession signs one of the user's other sessions out. The current session is
// ended by "Sign out" in the header instead.
func (s *Server) endSession(c *gin.Context) error {
	id, err := pathID(c, "id")
	switch {
	case err != nil:
		return err
	case id == currentSessionID(c):
		return shop.Errorf(shop.EInvalid, "This is the session you are using; sign out with the button at the top of the page.")
	}
	u := currentUser(c)
	if err := s.Users.EndSession(c.Request.Context(), u.AccountID, u.ID, id, sessionClient(c)); err != nil {
		return err
	}
	s.flash(c, "That session was signed out.")
	c.Redirect(http.StatusSeeOther, securityURL)
	return nil
}

// endOtherSessions signs out every session of the user but this one.
func (s *Server) endOtherSessions(c *gin.Context) error {
	u := currentUser(c)
	n, err := s.Users.EndOtherSessions(c.Request.Context(), u.AccountID, u.ID, currentSessionID(c), sessionClient(c))
	if err != nil {
		return err
	}
	s.flash(c, fmt.Sprintf("Signed out everywhere else (%s).", plural(n, "session", "sessions")))
	c.Redirect(http.StatusSeeOther, securityURL)
	return nil
}

// requireSecondFactor keeps a user without a second factor, in an account that
// requires one, on the Security page: every other dashboard page sends them there
// (an htmx request is told to go there, with 403). Signing out and the assets are
// outside the dashboard's routes; API keys are not affected.
func (s *Server) requireSecondFactor(c *gin.Context) {
	a := currentAccount(c)
	if a == nil || !a.RequireTwoFactor || c.Request.URL.Path == securityURL || strings.HasPrefix(c.Request.URL.Path, securityURL+"/") {
		c.Next()
		return
	}
	u := currentUser(c)
	ok, err := s.Users.HasSecondFactor(c.Request.Context(), u.AccountID, u.ID)
	if err != nil {
		s.abort(c, err)
		return
	}
	if ok {
		c.Next()
		return
	}
	if isHTMX(c) {
		c.Header("HX-Redirect", securityURL)
		c.Status(http.StatusForbidden)
		c.Abort()
		return
	}
	c.Redirect(http.StatusSeeOther, securityURL)
	c.Abort()
}

// setRequireTwoFactor turns the account's requirement of two-step sign-in on or off.
func (s *Server) setRequireTwoFactor(c *gin.Context) error {
	var on bool
	switch c.PostForm("require") {
	case "on":
		on = true
	case "off":
	default:
		return shop.ParamErrorf(shop.EInvalid, "require", "Say require=on or require=off.")
	}
	u := currentUser(c)
	err := s.Admin.SetRequireTwoFactor(c.Request.Context(), u.AccountID, u.ID, on, sessionClient(c))
	if shop.ErrorCode(err) == shop.EInvalid {
		return &formError{err, func(bool) (templ.Component, error) {
			v, verr := s.accountView(c)
			v.TwoFactor.Error = shop.ErrorMessage(err)
			return templates.Account(v), verr
		}}
	}
	if err != nil {
		return err
	}
	if on {
		s.flash(c, "Two-step sign-in is now required: users without a passkey or an authenticator app are taken to the Security page.")
	} else {
		s.flash(c, "Two-step sign-in is no longer required.")
	}
	c.Redirect(http.StatusSeeOther, "/account#two-factor")
	return nil
}
