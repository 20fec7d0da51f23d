package web

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// unmatchedRoute names, in the access log and the metrics, requests that matched no
// route: their raw paths are never a label.
const unmatchedRoute = "unmatched"

// route returns the route template of the request (gin's FullPath, e.g.
// /api/v2/purchases/:id), never its raw path.
func route(c *gin.Context) string {
	if r := c.FullPath(); r != "" {
		return r
	}
	return unmatchedRoute
}

// observe writes one access line per request and records the request's metrics. It
// runs after requestID, so that the line carries the id; deferred, so that a request
// aborted by a panic (an export cut off after its first bytes) is counted too.
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	if s.Metrics != nil {
		s.Metrics.inFlight.Inc()
	}
	defer s.observed(c, start)
	c.Next()
}

func (s *Server) observed(c *gin.Context, start time.Time) {
	took := time.Since(start)
	status, size := c.Writer.Status(), c.Writer.Size()
	if size < 0 {
		size = 0
	}
	rt := route(c)
	if s.Metrics != nil {
		s.Metrics.inFlight.Dec()
		s.Metrics.observeRequest(c.Request.Method, rt, status, took, size)
	}
	s.Logger.LogAttrs(c.Request.Context(), slog.LevelInfo, "request",
		slog.String("request_id", c.GetString(ctxRequestID)),
		slog.String("method", c.Request.Method),
		slog.String("route", rt),
		slog.Int("status", status),
		slog.Duration("duration", took),
		slog.Int("bytes", size),
		slog.Int64("account_id", requestAccount(c)))
}

// requestAccount is the account the request acted for: its API key's or its signed-in
// user's; 0 when neither.
func requestAccount(c *gin.Context) int64 {
	if k := apiKey(c); k != nil {
		return k.AccountID
	}
	if u := currentUser(c); u != nil {
		return u.AccountID
	}
	return 0
}

// ReadyTimeout bounds the database check of /readyz.
const ReadyTimeout = 2 * time.Second

// Drain makes /readyz answer 503 from now on: the program calls it when told to stop,
// so that load balancers send no new requests while the ones in flight finish.
func (s *Server) Drain() { s.draining.Store(true) }

// readyz answers 200 when this instance can serve: not draining, and Ready (the
// database answers, its schema is current) finds nothing wrong. Else 503 with the reason.
// /healthz stays the liveness probe: it never touches the database.
func (s *Server) readyz(c *gin.Context) {
	c.Header("Cache-Control", "no-store")
	if s.draining.Load() {
		c.String(http.StatusServiceUnavailable, "not ready: draining, the server is stopping\n")
		return
	}
	if s.Ready != nil {
		ctx, cancel := context.WithTimeout(c.Request.Context(), ReadyTimeout)
		defer cancel()
		if err := s.Ready(ctx); err != nil {
			c.String(http.StatusServiceUnavailable, "not ready: %s\n", err.Error())
			return
		}
	}
	c.String(http.StatusOK, "ready\n")
}
