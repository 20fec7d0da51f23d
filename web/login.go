package web

import (
	"net"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// safeNext keeps a post-sign-in destination on this site.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\r\n") || strings.HasPrefix(next, "/login") {
		return "/purchases"
	}
	return next
}

func (s *Server) loginPage(c *gin.Context) error {
	if currentUser(c) != nil {
		c.Redirect(http.StatusSeeOther, safeNext(c.Query("next")))
		return nil
	}
	return render(c, templates.Login(templates.LoginView{Next: safeNext(c.Query("next"))}))
}

// login signs a user in with a new session. A refused sign-in shows the form again
// with the reason, the e-mail kept.
func (s *Server) login(c *gin.Context) error {
	ctx := c.Request.Context()
	email := strings.TrimSpace(c.PostForm("email"))
	password := c.PostForm("password")
	next := safeNext(c.PostForm("next"))
	refuse := func(err *shop.Error) error {
		return &formError{err, func(bool) (templ.Component, error) {
			return templates.Login(templates.LoginView{Email: email, Next: next, Error: err.Message}), nil
		}}
	}
	ip := clientIP(c.Request)
	wait, err := s.throttle.wait(ctx, ip, email)
	if err != nil {
		return err
	}
	if wait > 0 {
		return refuse(shop.Errorf(shop.ERateLimited, "Too many failed sign-ins. Try again in %d seconds.", retryAfter(c, wait)))
	}
	if email == "" || password == "" {
		return refuse(shop.Errorf(shop.EMissing, "Enter your e-mail and password."))
	}
	u, err := s.Users.CheckPassword(ctx, email, password)
	if err != nil {
		if shop.ErrorCode(err) != shop.EUnauthenticated {
			return err
		}
		if err := s.throttle.fail(ctx, ip, email); err != nil {
			return err
		}
		return refuse(shop.Errorf(shop.EUnauthenticated, "The e-mail or the password is not right."))
	}
	if err := s.throttle.succeed(ctx, email); err != nil {
		return err
	}
	token, err := s.Users.CreateSession(ctx, u.AccountID, u.ID)
	if err != nil {
		return err
	}
	// A new session on sign-in: whatever cookie came in is replaced.
	old, _ := s.store.Get(c.Request, sessionName)
	if t, ok := old.Values[sessionToken].(string); ok && t != "" {
		_ = s.Users.DeleteSession(ctx, t)
	}
	if err := s.startSession(c, token, ""); err != nil {
		return err
	}
	c.Redirect(http.StatusSeeOther, next)
	return nil
}

func (s *Server) logout(c *gin.Context) error {
	sess, _ := s.store.Get(c.Request, sessionName)
	if t, ok := sess.Values[sessionToken].(string); ok && t != "" {
		if err := s.Users.DeleteSession(c.Request.Context(), t); err != nil {
			return err
		}
	}
	sess.Options.MaxAge = -1
	_ = sess.Save(c.Request, c.Writer)
	c.Redirect(http.StatusSeeOther, "/login")
	return nil
}

// clientIP is the address a request came from (the direct peer: no proxy headers are
// trusted, so they cannot be forged to escape the sign-in throttle).
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// loginThrottle slows repeated failed sign-ins down, per address and per account
