package web

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"
	"github.com/gorilla/sessions"

	"storefront/internal/shop"
	"storefront/static"
	"storefront/templates"
)

const (
	sessionName  = "storefront_session"
	ctxUser      = "user"
	ctxAccount   = "account"
	sessionToken = "t"
	sessionFlash = "flash"
)

// contentSecurityPolicy allows only the dashboard's own files: no inline script or
// style, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// securityHeaders sets the headers every answer carries.
func securityHeaders(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if !isAPI(c.Request.URL.Path) {
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
	}
	c.Next()
}

// sessionStore makes the cookie store: the cookie holds only a signed, encrypted
// random token; the session itself lives in the database.
func (s *Server) sessionStore() sessions.Store {
	key := s.SessionKey
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key)
	}
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	store := sessions.NewCookieStore(derive("storefront session authentication"), derive("storefront session encryption"))
	store.Options = &sessions.Options{
		Path:     "/",
		MaxAge:   int(shop.SessionTTL / time.Second),
		HttpOnly: true,
		Secure:   strings.HasPrefix(s.BaseURL, "https://"),
		SameSite: http.SameSiteLaxMode,
	}
	return store
}

// loadUser puts the signed-in user (if any) on the context of dashboard requests.
func (s *Server) loadUser(c *gin.Context) {
	if isAPI(c.Request.URL.Path) || strings.HasPrefix(c.Request.URL.Path, "/static/") {
		c.Next()
		return
	}
	sess, _ := s.store.Get(c.Request, sessionName)
	token, _ := sess.Values[sessionToken].(string)
	if token != "" {
		u, err := s.Users.FindSession(c.Request.Context(), token)
		switch shop.ErrorCode(err) {
		case "":
			c.Set(ctxUser, u)
		case shop.EUnauthenticated:
		default:
			s.pageError(c, err)
			c.Abort()
			return
		}
	}
	c.Next()
}

// currentUser returns the signed-in user, or nil.
func currentUser(c *gin.Context) *shop.User {
	v, _ := c.Get(ctxUser)
	u, _ := v.(*shop.User)
	return u
}

// requireUser sends a signed-out visitor to the sign-in page, remembering where they
// were going. An htmx request is told to redirect the whole page.
func (s *Server) requireUser(c *gin.Context) {
	if currentUser(c) != nil {
		c.Next()
		return
	}
	target := "/login?next=" + url.QueryEscape(c.Request.URL.RequestURI())
	if c.GetHeader("HX-Request") == "true" {
		c.Header("HX-Redirect", target)
		c.Status(http.StatusUnauthorized)
		c.Abort()
		return
	}
	if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead {
		target = "/login"
	}
	c.Redirect(http.StatusSeeOther, target)
	c.Abort()
}

// chrome builds the frame of a page for the signed-in user.
func (s *Server) chrome(c *gin.Context, title, active string) templates.Chrome {
	u := currentUser(c)
	ch := templates.Chrome{Title: title, Active: active}
	if u == nil {
		return ch
	}
	ch.UserEmail, ch.Role, ch.IsOwner = u.Email, u.Role, u.IsOwner()
	if a, err := s.account(c); err == nil {
		ch.AccountName = a.Name
	}
	if sess, err := s.store.Get(c.Request, sessionName); err == nil {
		if f, ok := sess.Values[sessionFlash].(string); ok && f != "" {
			ch.Flash = f
			delete(sess.Values, sessionFlash)
			_ = sess.Save(c.Request, c.Writer)
		}
	}
	return ch
}

// flash leaves a one-time notice for the next page.
func (s *Server) flash(c *gin.Context, msg string) {
	if sess, err := s.store.Get(c.Request, sessionName); err == nil {
		sess.Values[sessionFlash] = msg
		_ = sess.Save(c.Request, c.Writer)
	}
}

// account returns the signed-in user's account, loaded once per request.
func (s *Server) account(c *gin.Context) (*shop.Account, error) {
	if v, ok := c.Get(ctxAccount); ok {
		return v.(*shop.Account), nil
	}
	u := currentUser(c)
	if u == nil {
		return nil, shop.Errorf(shop.EUnauthenticated, "Please sign in.")
	}
	a, err := s.Accounts.FindAccountByID(c.Request.Context(), u.AccountID)
	if err != nil {
		return nil, err
	}
	c.Set(ctxAccount, a)
	return a, nil
}

// pageError answers an error on a dashboard page: inline for htmx (which swaps only
// 2xx answers), a whole page otherwise.
func (s *Server) pageError(c *gin.Context, err error) {
	status := errStatus(err)
	msg := shop.ErrorMessage(err)
	if status >= 500 {
		s.Logger.Error("page error", "request_id", c.GetString(ctxRequestID), "path", c.Request.URL.Path, "err", err)
		if status == http.StatusServiceUnavailable {
			c.Header("Retry-After", "5")
		} else {
			msg = "Something went wrong on our side. The request id is " + c.GetString(ctxRequestID) + "."
		}
	}
	if c.GetHeader("HX-Request") == "true" {
		renderStatus(c, http.StatusOK, templates.InlineError(msg))
		return
	}
	renderStatus(c, status, templates.ErrorPage(s.chrome(c, http.StatusText(status), ""), status, msg))
}

// renderStatus writes a component into a buffer first, so that an error never leaves
// a half-written page. Pages vary by HX-Request (page or fragment).
func renderStatus(c *gin.Context, status int, comp templ.Component) {
	var buf bytes.Buffer
	if err := comp.Render(c.Request.Context(), &buf); err != nil {
		c.String(http.StatusInternalServerError, "internal error\n")
		return
	}
	c.Header("Vary", "HX-Request")
	c.Header("Cache-Control", "no-store")
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// isFragment reports whether an htmx request asks for a fragment (and not for a
// whole page to restore history).
func isFragment(c *gin.Context) bool {
	return c.GetHeader("HX-Request") == "true" && c.GetHeader("HX-History-Restore-Request") != "true"
}

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
	token, err := s.Users.CreateSession(c.Request.Context(), u.AccountID, u.ID)
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
// (e-mail): after a few free tries each further failure doubles the wait, up to 15
// minutes. The counts live in store: the database's, which every instance sees, or
// this process's memory.
type loginThrottle struct {
	now   func() time.Time
	store shop.SignInThrottleStore
}

const (
	freeLoginFailures = 5
	maxLoginWait      = 15 * time.Minute
	// loginFailureMemory is how long a failure counts: a count whose last failure is
	// older starts again.
	loginFailureMemory = time.Hour
)

func (t *loginThrottle) keys(ip, email string) []string {
	return []string{"ip:" + ip, "email:" + strings.ToLower(email)}
}

// wait returns how long the next attempt must wait.
func (t *loginThrottle) wait(ctx context.Context, ip, email string) (time.Duration, error) {
	now := t.now()
	fails, err := t.store.SignInFailures(ctx, t.keys(ip, email), now.Add(-loginFailureMemory))
	if err != nil {
		return 0, err
	}
	var longest time.Duration
	for _, f := range fails {
		if f.Count < freeLoginFailures {
			continue
		}
		d := min(time.Second<<min(f.Count-freeLoginFailures, 10), maxLoginWait)
		if left := f.Last.Add(d).Sub(now); left > longest {
			longest = left
		}
	}
	return longest, nil
}

// fail counts a failed attempt.
func (t *loginThrottle) fail(ctx context.Context, ip, email string) error {
	now := t.now()
	return t.store.AddSignInFailure(ctx, t.keys(ip, email), now, now.Add(-loginFailureMemory))
}

// succeed forgets the account's failures (the address's stay: one right password
// does not license guessing at other accounts).
func (t *loginThrottle) succeed(ctx context.Context, email string) error {
	return t.store.ClearSignInFailures(ctx, "email:"+strings.ToLower(email))
}

// memorySignInStore is a shop.SignInThrottleStore in this process, for a Server
// without a SignInStore.
type memorySignInStore struct {
	mu    sync.Mutex
	fails map[string]shop.SignInFailures
}

func (m *memorySignInStore) SignInFailures(_ context.Context, keys []string, since time.Time) (map[string]shop.SignInFailures, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]shop.SignInFailures{}
	for _, k := range keys {
		if f, ok := m.fails[k]; ok && !f.Last.Before(since) {
			out[k] = f
		}
	}
	return out, nil
}

func (m *memorySignInStore) AddSignInFailure(_ context.Context, keys []string, now, restart time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fails == nil || len(m.fails) > 100_000 {
		m.fails = map[string]shop.SignInFailures{}
	}
	for _, k := range keys {
		f := m.fails[k]
		if f.Last.Before(restart) {
			f.Count = 0
		}
		f.Count++
		f.Last = now
		m.fails[k] = f
	}
	return nil
}

func (m *memorySignInStore) ClearSignInFailures(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.fails, key)
	return nil
}

// staticFiles serves the embedded assets with long caching for versioned files.
func staticFiles() gin.HandlerFunc {
	fs := http.FileServer(http.FS(static.Files))
	return func(c *gin.Context) {
		name := strings.TrimPrefix(c.Param("path"), "/")
		if name == "" || strings.HasSuffix(name, ".go") {
			c.Status(http.StatusNotFound)
			return
		}
		c.Header("Cache-Control", "public, max-age=3600")
		c.Request.URL.Path = "/" + name
		fs.ServeHTTP(c.Writer, c.Request)
	}
}

// favicon answers the browsers that ask for /favicon.ico: the pages name their icon,
// but answers that are no page (a refused cross-site post) do not.
func favicon(c *gin.Context) {
	c.Header("Cache-Control", "public, max-age=3600")
	c.FileFromFS("favicon.svg", http.FS(static.Files))
}

// requireOwner lets only owners through (owners manage users and keys).
func (s *Server) requireOwner(c *gin.Context) {
	if u := currentUser(c); u == nil || !u.IsOwner() {
		s.pageError(c, shop.Errorf(shop.EForbidden, "Only the account's owners can manage users and API keys."))
		c.Abort()
		return
	}
	c.Next()
}
