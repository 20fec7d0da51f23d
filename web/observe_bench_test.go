package web

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkObserve measures what the access log, the metrics and the tracing add to a
// request of a route that answers "ok": go test -run '^$' -bench Observe -benchmem ./web
func BenchmarkObserve(b *testing.B) {
	gin.SetMode(gin.ReleaseMode)
	for _, tc := range []struct {
		name           string
		chain          func(s *Server) []gin.HandlerFunc
		metrics, trace bool
	}{
		{"bare", func(s *Server) []gin.HandlerFunc { return []gin.HandlerFunc{requestID} }, false, false},
		{"log", func(s *Server) []gin.HandlerFunc { return []gin.HandlerFunc{requestID, s.observe} }, false, false},
		{"log+metrics", func(s *Server) []gin.HandlerFunc { return []gin.HandlerFunc{requestID, s.observe} }, true, false},
		{"log+metrics+trace", func(s *Server) []gin.HandlerFunc { return []gin.HandlerFunc{requestID, s.observe, s.traced} }, true, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := &Server{Logger: slog.New(slog.NewJSONHandler(discard{}, nil))}
			if tc.metrics {
				s.Metrics = NewMetrics(prometheus.NewRegistry())
			}
			if tc.trace {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				defer tp.Shutdown(b.Context())
				s.Tracer = tp.Tracer("bench")
			}
			r := gin.New()
			r.Use(tc.chain(s)...)
			r.GET("/api/v2/purchases/:id", func(c *gin.Context) { c.String(http.StatusOK, "ok") })
			req := httptest.NewRequest(http.MethodGet, "/api/v2/purchases/42", nil)
			b.ReportAllocs()
			for b.Loop() {
				r.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
