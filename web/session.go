package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gorilla/sessions"

	"storefront/internal/shop"
	"storefront/templates"
)

const (
	sessionName  = "storefront_session"
	ctxUser      = "user"
	ctxAccount   = "account"
	sessionToken = "t"
	// sessionAccount is the account of the session's user: every read of the session
	// names it (docs/SCALING.md).
	sessionAccount = "a"
	ctxSessionID   = "session"
	sessionFlash   = "flash"
	sessionPanel   = "reactivate"
)

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
	token, accountID := s.cookieSession(c)
	if token != "" {
		u, id, err := s.Users.FindSession(c.Request.Context(), accountID, token)
		switch shop.ErrorCode(err) {
		case "":
			c.Set(ctxUser, u)
			c.Set(ctxSessionID, id)
		case shop.EUnauthenticated:
		default:
			s.abort(c, err)
			return
		}
	}
	c.Next()
}

// requireUser sends a signed-out visitor to the sign-in page, remembering where they
// were going. An htmx request is told to redirect the whole page.
func (s *Server) requireUser(c *gin.Context) {
	if u := currentUser(c); u != nil {
		// Every signed-in page works in the user's account.
		if _, err := s.account(c); err != nil {
			s.abort(c, err)
			return
		}
		// The user is the actor of the request's changes, in their audit records.
		c.Request = c.Request.WithContext(shop.WithActor(c.Request.Context(), shop.Actor{UserID: u.ID, Name: u.Email, Client: auditClient(c)}))
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

// cookieSession returns the session token and account of the request's cookie ("" and
// 0 when there is none).
func (s *Server) cookieSession(c *gin.Context) (string, int64) {
	sess, _ := s.store.Get(c.Request, sessionName)
	token, _ := sess.Values[sessionToken].(string)
	accountID, _ := sess.Values[sessionAccount].(int64)
	return token, accountID
}

// sessionClient describes the request's client for the session list: its device,
// named from the user agent, and its address.
func sessionClient(c *gin.Context) shop.SessionClient {
	return shop.SessionClient{Device: deviceName(c.Request.UserAgent()), Address: clientIP(c.Request), UserAgent: c.Request.UserAgent()}
}

// auditClient is what an audit record keeps of the request's client: its address and
// user agent (the device's name, which sessions show, is not needed).
func auditClient(c *gin.Context) shop.SessionClient {
	return shop.SessionClient{Address: clientIP(c.Request), UserAgent: c.Request.UserAgent()}
}

// startSession puts a new session cookie holding token, for a user of accountID, with
// a notice for the next page when flash is not "".
func (s *Server) startSession(c *gin.Context, accountID int64, token, flash string) error {
	sess, _ := s.store.New(c.Request, sessionName)
	sess.Values[sessionToken] = token
	sess.Values[sessionAccount] = accountID
	if flash != "" {
		sess.Values[sessionFlash] = flash
	}
	return sess.Save(c.Request, c.Writer)
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

// requireReactivator refuses the routes that reactivate purchases to a user whose role
// may not (EForbidden).
func (s *Server) requireReactivator(c *gin.Context) {
	if err := currentUser(c).MayReactivate(); err != nil {
		s.abort(c, err)
		return
	}
	c.Next()
}

// requireOwner lets only owners through (owners manage users and keys).
func (s *Server) requireOwner(c *gin.Context) {
	if u := currentUser(c); u == nil || !u.IsOwner() {
		s.abort(c, shop.Errorf(shop.EForbidden, "Only the account's owners can manage users and API keys."))
		return
	}
	c.Next()
}

// pathRecord reads the id of the path parameter name and finds it among the records
// that load lists for the signed-in user's account: 400 when the id is malformed, 404
// (naming what) when no record of the account has it. It returns the list too.
func pathRecord[T any](c *gin.Context, name, what string, load func(ctx context.Context, accountID int64) ([]T, error), idOf func(T) int64) (T, []T, error) {
	var none T
	id, err := pathID(c, name)
	if err != nil {
		return none, nil, err
	}
	all, err := load(c.Request.Context(), currentAccount(c).ID)
	if err != nil {
		return none, nil, err
	}
	if i := slices.IndexFunc(all, func(r T) bool { return idOf(r) == id }); i >= 0 {
		return all[i], all, nil
	}
	return none, nil, shop.Errorf(shop.ENotFound, "%s %d was not found.", what, id)
}
