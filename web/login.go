package web

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"

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

func (s *Server) loginPage(c *gin.Context) {
	if currentUser(c) != nil {
		c.Redirect(http.StatusSeeOther, safeNext(c.Query("next")))
		return
	}
	renderStatus(c, http.StatusOK, templates.Login(templates.LoginView{Next: safeNext(c.Query("next"))}))
}

func (s *Server) login(c *gin.Context) {
	email := strings.TrimSpace(c.PostForm("email"))
	password := c.PostForm("password")
	next := safeNext(c.PostForm("next"))
	v := templates.LoginView{Email: email, Next: next}
	ip := clientIP(c.Request)
	wait, err := s.throttle.wait(c.Request.Context(), ip, email)
	if err != nil {
		s.pageError(c, err)
		return
	}
	if wait > 0 {
		v.Error = fmt.Sprintf("Too many failed sign-ins. Try again in %d seconds.", int(math.Ceil(wait.Seconds())))
		c.Header("Retry-After", fmt.Sprint(int(math.Ceil(wait.Seconds()))))
		renderStatus(c, http.StatusTooManyRequests, templates.Login(v))
		return
	}
	if email == "" || password == "" {
		v.Error = "Enter your e-mail and password."
		renderStatus(c, http.StatusBadRequest, templates.Login(v))
		return
	}
	u, err := s.Users.CheckPassword(c.Request.Context(), email, password)
	if err != nil {
		if shop.ErrorCode(err) != shop.EUnauthenticated {
			s.pageError(c, err)
			return
		}
		if err := s.throttle.fail(c.Request.Context(), ip, email); err != nil {
			s.pageError(c, err)
			return
		}
		v.Error = "The e-mail or the password is not right."
		renderStatus(c, http.StatusUnauthorized, templates.Login(v))
		return
	}
	if err := s.throttle.succeed(c.Request.Context(), email); err != nil {
		s.pageError(c, err)
		return
	}
	token, err := s.Users.CreateSession(c.Request.Context(), u.ID)
	if err != nil {
		s.pageError(c, err)
		return
	}
	// A new session on sign-in: whatever cookie came in is replaced.
	old, _ := s.store.Get(c.Request, sessionName)
	if t, ok := old.Values[sessionToken].(string); ok && t != "" {
		_ = s.Users.DeleteSession(c.Request.Context(), t)
	}
	sess, _ := s.store.New(c.Request, sessionName)
	sess.Values[sessionToken] = token
	if err := sess.Save(c.Request, c.Writer); err != nil {
		s.pageError(c, err)
		return
	}
	c.Redirect(http.StatusSeeOther, next)
}

func (s *Server) logout(c *gin.Context) {
	sess, _ := s.store.Get(c.Request, sessionName)
	if t, ok := sess.Values[sessionToken].(string); ok && t != "" {
		if err := s.Users.DeleteSession(c.Request.Context(), t); err != nil {
			s.pageError(c, err)
			return
		}
	}
	sess.Options.MaxAge = -1
	_ = sess.Save(c.Request, c.Writer)
	c.Redirect(http.StatusSeeOther, "/login")
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
