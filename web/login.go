package web

import (
	"context"
	"math"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// safeNext keeps a post-sign-in destination on this site: the address asked for, else
// the Overview.
func safeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") ||
		strings.ContainsAny(next, "\r\n") || strings.HasPrefix(next, "/login") {
		return "/"
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
		s.Metrics.count(signInRefused)
		return refuse(shop.Errorf(shop.ERateLimited, "Too many failed sign-ins. Try again in %d seconds.", retryAfter(c, wait)))
	}
	if email == "" || password == "" {
		return refuse(shop.Errorf(shop.EMissing, "Enter your e-mail and password."))
	}
	u, err := s.Users.CheckPassword(ctx, email, password, sessionClient(c))
	if err != nil {
		if shop.ErrorCode(err) != shop.EUnauthenticated {
			return err
		}
		if err := s.throttle.fail(ctx, ip, email); err != nil {
			return err
		}
		return refuse(shop.Errorf(shop.EUnauthenticated, "The e-mail or the password is not right."))
	}
	// A user with a second factor gives it next; their failures are forgotten only
	// then, so that a known password does not reset the count of guessed codes.
	if has, err := s.Users.HasSecondFactor(ctx, u.AccountID, u.ID); err != nil {
		return err
	} else if has {
		return s.startSecondStep(c, u, next)
	}
	if err := s.throttle.succeed(ctx, email); err != nil {
		return err
	}
	token, err := s.Users.CreateSession(ctx, u.AccountID, u.ID, sessionClient(c))
	if err != nil {
		return err
	}
	// A new session on sign-in: whatever cookie came in is replaced.
	if t, a := s.cookieSession(c); t != "" {
		_ = s.Users.DeleteSession(ctx, a, t, sessionClient(c))
	}
	if err := s.startSession(c, u.AccountID, token, ""); err != nil {
		return err
	}
	c.Redirect(http.StatusSeeOther, next)
	return nil
}

func (s *Server) logout(c *gin.Context) error {
	if t, a := s.cookieSession(c); t != "" {
		if err := s.Users.DeleteSession(c.Request.Context(), a, t, sessionClient(c)); err != nil {
			return err
		}
	}
	sess, _ := s.store.Get(c.Request, sessionName)
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

// retryAfter sets the Retry-After header of a refused attempt and returns its whole
// seconds.
func retryAfter(c *gin.Context, wait time.Duration) int {
	secs := int(math.Ceil(wait.Seconds()))
	c.Header("Retry-After", strconv.Itoa(secs))
	return secs
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
