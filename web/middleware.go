package web

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
)

// Keys of values kept on the gin context.
const (
	ctxRequestID = "request_id"
	ctxAPIKey    = "api_key"
)

// Size limits of API requests (docs/API.md#limits).
const (
	MaxQueryBytes = 8 << 10
	MaxBodyBytes  = 64 << 10
)

// requestID gives every response an X-Request-Id: a sane incoming one is echoed, else
// a new one is made.
func requestID(c *gin.Context) {
	id := c.GetHeader("X-Request-Id")
	if !saneRequestID(id) {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b)
	}
	c.Set(ctxRequestID, id)
	c.Header("X-Request-Id", id)
	c.Next()
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		ch := id[i]
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == '.' || ch == ':') {
			return false
		}
	}
	return true
}

// isAPI reports whether the path belongs to the JSON API.
func isAPI(path string) bool { return path == "/api" || strings.HasPrefix(path, "/api/") }

// isAPIv2 reports whether the path is under /api/v2, where credentials are asked first.
func isAPIv2(path string) bool { return path == "/api/v2" || strings.HasPrefix(path, "/api/v2/") }

// apiGate marks requests that write (shop.WithPrimaryReads) and runs, for /api/v2 paths,
// the checks that come before routing (docs/API.md#order-of-checks): size limits (414,
// 413), then credentials (401), then the key's rate limit (429).
func (s *Server) apiGate(c *gin.Context) {
	// A request that changes data reads what it changes from the primary database,
	// never from a replica that may lag behind.
	if c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead {
		c.Request = c.Request.WithContext(shop.WithPrimaryReads(c.Request.Context()))
	}
	if !isAPIv2(c.Request.URL.Path) {
		c.Next()
		return
	}
	if len(c.Request.URL.RawQuery) > MaxQueryBytes {
		s.abort(c, &statusError{shop.Errorf(shop.ETooLarge, "The query string is longer than %d bytes.", MaxQueryBytes), http.StatusRequestURITooLong})
		return
	}
	if c.Request.ContentLength > MaxBodyBytes {
		s.abort(c, tooLarge("request body"))
		return
	}
	// A body sent without Content-Length (chunked) is read here, within the limit, so
	// that its size is judged before anything else too.
	if c.Request.Body != nil && c.Request.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(c.Request.Body, MaxBodyBytes+1))
		if err != nil {
			s.abort(c, shop.Errorf(shop.EInvalid, "The request body could not be read."))
			return
		}
		if len(body) > MaxBodyBytes {
			s.abort(c, tooLarge("request body"))
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
	}

	key, err := s.authenticate(c.Request.Context(), c.Request)
	if err != nil {
		s.abort(c, err)
		return
	}
	c.Set(ctxAPIKey, key)
	// The key is the actor of the request's changes, in their audit records.
	c.Request = c.Request.WithContext(shop.WithActor(c.Request.Context(), shop.Actor{APIKeyID: key.ID, Name: key.Name, Client: auditClient(c)}))
	if s.limiter != nil {
		d, err := s.limiter.take(c.Request.Context(), key.ID)
		if err != nil {
			s.Logger.Warn("shared rate limit unavailable; request let through", "key", key.ID, "err", err)
		}
		c.Header("RateLimit-Limit", strconv.Itoa(d.limit))
		c.Header("RateLimit-Remaining", strconv.Itoa(d.remaining))
		c.Header("RateLimit-Reset", strconv.Itoa(d.reset))
		if !d.ok {
			c.Header("Retry-After", strconv.Itoa(d.retryAfter))
			s.Metrics.count(rateLimited)
			s.abort(c, shop.Errorf(shop.ERateLimited, "Too many requests: this key may make %d a minute. Try again in %d s.", d.limit, d.retryAfter))
			return
		}
	}
	// A key of the audit scope reads the audit log alone, whatever the path.
	if key.Scope == shop.ScopeAudit && !auditKeyPath(c.Request.URL.Path) {
		s.abort(c, shop.Errorf(shop.EForbidden, "This API key has the audit scope: it reads the audit log (GET /api/v2/audit) and nothing else."))
		return
	}
	if s.touched.due(key.ID) {
		s.recordKeyUse(c.Request.Context(), key)
	}
	c.Next()
}

// recordKeyUse writes the key's last use in the background: the request does not wait
// for it, nor does the write end with the request.
func (s *Server) recordKeyUse(ctx context.Context, key *shop.APIKey) {
	ctx = context.WithoutCancel(ctx)
	s.background.Go(func() {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := s.Keys.TouchAPIKey(ctx, key.AccountID, key.ID); err != nil {
			s.Logger.Warn("record API key use", "key", key.ID, "err", err)
		}
	})
}

// authenticate reads HTTP Basic api_username:KEY or Bearer KEY
// (docs/API.md#authentication).
func (s *Server) authenticate(ctx context.Context, r *http.Request) (*shop.APIKey, error) {
	unauth := shop.Errorf(shop.EUnauthenticated, "Send your API user name and key with HTTP Basic authentication, or the key as a Bearer token.")
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, unauth
	}
	scheme, cred, _ := strings.Cut(h, " ")
	cred = strings.TrimSpace(cred)
	var user, secret string
	switch strings.ToLower(scheme) {
	case "bearer":
		secret = cred
	case "basic":
		b, err := base64.StdEncoding.DecodeString(cred)
		if err != nil {
			return nil, unauth
		}
		var ok bool
		user, secret, ok = strings.Cut(string(b), ":")
		if !ok {
			return nil, unauth
		}
	default:
		return nil, unauth
	}
	if secret == "" || len(secret) > 256 {
		return nil, unauth
	}
	// Answered from memory for up to KeyCacheTTL (keycache.go).
	key, err := s.keys.authenticate(ctx, s.Keys, secret)
	if err != nil {
		if shop.ErrorCode(err) == shop.EUnauthenticated {
			return nil, unauth
		}
		return nil, err
	}
	if scheme != "" && strings.EqualFold(scheme, "basic") && !strings.EqualFold(user, key.APIUsername) {
		return nil, unauth
	}
	return key, nil
}

// auditKeyPath reports whether a key with the audit scope may reach path: the audit
// log, and the routes that answer any key (ping, the OpenAPI document).
func auditKeyPath(path string) bool {
	switch path {
	case "/api/v2", "/api/v2/", "/api/v2/openapi.json", "/api/v2/audit":
		return true
	}
	return false
}

// apiKey returns the authenticated key of an API request.
func apiKey(c *gin.Context) *shop.APIKey {
	v, _ := c.Get(ctxAPIKey)
	k, _ := v.(*shop.APIKey)
	return k
}

// keyActor names an API key in activity records.
func keyActor(key *shop.APIKey) string {
	actor := "API key " + strconv.FormatInt(key.ID, 10)
	if key.Name != "" {
		actor += " (" + key.Name + ")"
	}
	return actor
}

// requireWrite answers 403 unless the key may change data.
func requireWrite(c *gin.Context) error {
	if k := apiKey(c); k == nil || k.Scope != shop.ScopeReadWrite {
		return shop.Errorf(shop.EForbidden, "This API key is read-only; reactivating needs a read_write key.")
	}
	return nil
}

// isMaxBytes reports whether err comes from reading past the body limit.
func isMaxBytes(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

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
