// Package web is the HTTP side of storefront: the dashboard (HTML) and the JSON API
// under /api/v2, both on one Gin engine.
package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gorilla/sessions"
	"go.opentelemetry.io/otel/trace"

	"storefront/internal/shop"
)

// Server holds the services the handlers use. Build it with its fields, then call
// Handler once.
type Server struct {
	Purchases   shop.PurchaseService
	Writer      shop.PurchaseWriter
	Subscribers shop.SubscriberService
	Keys        shop.APIKeyService
	Accounts    shop.AccountService
	Users       shop.UserService
	Admin       shop.AdminService
	// Webhooks manages the account's webhook endpoints; nil serves no Webhooks pages.
	Webhooks shop.WebhookService
	// Activity records the account's exports; nil records nothing.
	Activity shop.AccountActivityService
	// Audit reads the account's audit log; nil serves no audit log.
	Audit shop.AuditService
	// ExportBatch is how many rows an export reads at a time; 0 means shop.ExportBatch.
	ExportBatch int
	// Overview reads the overview's figures from the rollups.
	Overview shop.OverviewService
	// Views keeps the purchases page's saved views.
	Views shop.SavedViewService
	// Jobs keeps and runs background jobs (bulk reactivation).
	Jobs shop.JobService
	// Customers reads customers' pages and keeps notes; nil serves no customer pages.
	Customers shop.CustomerService
	Logger    *slog.Logger
	// BaseURL is the public URL, for links; passkeys are bound to its origin and host
	// unless PasskeyOrigin and PasskeyRPID say otherwise.
	BaseURL string
	// PasskeyOrigin is the origin the dashboard is served at, for passkeys
	// (scheme://host[:port]); "" means BaseURL's.
	PasskeyOrigin string
	// PasskeyRPID is the WebAuthn relying party id: PasskeyOrigin's host or a domain
	// above it; "" means the origin's host.
	PasskeyRPID string
	// RateLimit is API requests a minute per key; 0 means no limit.
	RateLimit int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// SessionKey signs and encrypts session cookies; nil means one made per run.
	SessionKey []byte
	// RateStore, when set, is the per-key bucket every instance shares, so that a key's
	// RateLimit holds across instances; nil keeps the buckets in this process.
	RateStore TokenStore
	// SignInStore, when set, keeps failed sign-ins where every instance sees them, so
	// that the sign-in throttle holds across instances; nil keeps them in this process.
	SignInStore shop.SignInThrottleStore

	// ResponseCacheBytes bounds the answers of the purchase list and of GET of one
	// purchase that this instance keeps, validated against the database on every
	// request (respcache.go); 0 means DefaultResponseCacheBytes, a negative value keeps
	// none.
	ResponseCacheBytes int64

	// Ready reports why the instance cannot serve (the database does not answer, its
	// schema is not current); /readyz answers 503 with it. nil checks nothing.
	Ready func(context.Context) error
	// Tracer, when set, makes every request a span (trace.go); nil traces nothing.
	Tracer trace.Tracer
	// Metrics, when set, records the HTTP requests and what the handlers count
	// (metrics.go); nil records nothing.
	Metrics *Metrics

	limiter *limiter
	keys    *keyCache
	answers *respCache
	// versions shares the reads of purchases versions among concurrent requests.
	versions versionReads
	touched  touchThrottle
	// background counts the writes started after a request, so that Wait can wait for
	// them.
	background sync.WaitGroup
	zones      sync.Map
	store      sessions.Store
	throttle   loginThrottle
	// webauthn is the passkeys' relying party; nil when its settings are wrong
	// (webauthnErr says how).
	webauthn    *webauthn.WebAuthn
	webauthnErr error
	draining    atomic.Bool
}

func (s *Server) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Wait waits for the writes the server started in the background (the last use of API
// keys) to end. Call it once the HTTP server has stopped, before closing the database.
func (s *Server) Wait() { s.background.Wait() }

// APIBurst is how many requests a key may make at once before the per-minute rate
// applies (docs/API.md#limits).
const APIBurst = 60

// Handler builds the HTTP handler.
func (s *Server) Handler() http.Handler {
	r := s.engine()
	// Cross-site requests that change state are refused on the dashboard; the API
	// authenticates every request with a key, never with a cookie.
	csrf := http.NewCrossOriginProtection().Handler(r)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if isAPI(req.URL.Path) {
			r.ServeHTTP(w, req)
			return
		}
		csrf.ServeHTTP(w, req)
	})
}

// engine builds the Gin engine with every route.
func (s *Server) engine() *gin.Engine {
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	if s.RateLimit > 0 {
		s.limiter = newLimiter(s.RateLimit, min(APIBurst, s.RateLimit), s.now)
		if s.RateStore != nil {
			s.limiter.useShared(s.RateStore)
		}
	}
	s.keys = newKeyCache(KeyCacheTTL, s.now)
	switch {
	case s.ResponseCacheBytes == 0:
		s.answers = newRespCache(DefaultResponseCacheBytes)
	case s.ResponseCacheBytes > 0:
		s.answers = newRespCache(s.ResponseCacheBytes)
	}
	s.touched.now = s.now
	if s.Metrics != nil && s.answers != nil {
		answers := s.answers
		s.Metrics.cacheBytes = func() float64 { return float64(answers.size.Load()) }
	}
	s.store = s.sessionStore()
	if s.webauthn, s.webauthnErr = s.relyingParty(); s.webauthnErr != nil {
		s.Logger.Error("passkeys are off: their settings are wrong", "err", s.webauthnErr)
	}
	s.throttle.now = s.now
	s.throttle.store = s.SignInStore
	if s.throttle.store == nil {
		s.throttle.store = &memorySignInStore{}
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.Use(requestID, s.observe)
	if s.Tracer != nil {
		r.Use(s.traced)
	}
	r.Use(securityHeaders, s.recovery, s.apiGate, s.loadUser)
	r.NoRoute(s.handle(s.noRoute))
	r.NoMethod(s.handle(s.noMethod))

	s.routes(r)
	return r
}

// recovery turns a panic into a 500 answer with the request id logged.
func (s *Server) recovery(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.abort(c, fmt.Errorf("panic: %v", v))
		}
	}()
	c.Next()
}

func (s *Server) noRoute(c *gin.Context) error {
	if isAPI(c.Request.URL.Path) {
		return shop.Errorf(shop.ENotFound, "There is no %s %s in this API.", c.Request.Method, c.Request.URL.Path)
	}
	return shop.Errorf(shop.ENotFound, "There is no such page.")
}

func (s *Server) noMethod(c *gin.Context) error {
	return shop.Errorf(shop.EMethodNotAllowed, "%s does not answer %s; see the Allow header.", c.Request.URL.Path, c.Request.Method)
}
