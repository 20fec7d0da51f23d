package web

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the HTTP side's Prometheus metrics (docs/OPERATIONS.md#metrics). Label
// values are bounded: a route template, a method, a status class; never a raw path,
// an account or an e-mail.
type Metrics struct {
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	responseBytes *prometheus.CounterVec
	inFlight      prometheus.Gauge
	cacheHits     prometheus.Counter
	cacheMisses   prometheus.Counter
	rateLimited   prometheus.Counter
	signInRefused prometheus.Counter
	exportRows    *prometheus.CounterVec
	// cacheBytes reads the answer cache's size; the Server sets it when it builds its
	// handler.
	cacheBytes func() float64
}

// NewMetrics makes the metrics and registers them with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_http_requests_total", Help: "HTTP requests answered, by method, route template and status class.",
		}, []string{"method", "route", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "storefront_http_request_duration_seconds", Help: "Time from a request's arrival to its last byte written, by method, route template and status class.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"method", "route", "code"}),
		responseBytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_http_response_bytes_total", Help: "Bytes of response bodies written, by route template.",
		}, []string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "storefront_http_requests_in_flight", Help: "HTTP requests being answered now.",
		}),
		cacheHits:     counter("storefront_answer_cache_hits_total", "API answers served from the validated answer cache."),
		cacheMisses:   counter("storefront_answer_cache_misses_total", "Cacheable API answers built from the database (not in the cache at the current version, or no-cache asked)."),
		rateLimited:   counter("storefront_api_rate_limited_total", "API requests refused with 429 by their key's rate limit."),
		signInRefused: counter("storefront_signin_throttled_total", "Sign-ins and password changes refused by the failed sign-in throttle."),
		exportRows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_export_rows_total", Help: "CSV rows written by exports, by what was exported.",
		}, []string{"kind"}),
	}
	reg.MustRegister(m.requests, m.duration, m.responseBytes, m.inFlight, m.cacheHits, m.cacheMisses, m.rateLimited, m.signInRefused, m.exportRows,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "storefront_answer_cache_bytes", Help: "Bytes of answer bodies the answer cache holds.",
		}, func() float64 {
			if m.cacheBytes == nil {
				return 0
			}
			return m.cacheBytes()
		}))
	return m
}

func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
}

// statusClasses are the code label's values, by status/100.
var statusClasses = [...]string{"other", "1xx", "2xx", "3xx", "4xx", "5xx"}

func statusClass(status int) string {
	if i := status / 100; i >= 1 && i <= 5 {
		return statusClasses[i]
	}
	return statusClasses[0]
}

// knownMethod bounds the method label: anything else is "other".
func knownMethod(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return m
	}
	return "other"
}

func (m *Metrics) observeRequest(method, route string, status int, took time.Duration, size int) {
	method, class := knownMethod(method), statusClass(status)
	m.requests.WithLabelValues(method, route, class).Inc()
	m.duration.WithLabelValues(method, route, class).Observe(took.Seconds())
	m.responseBytes.WithLabelValues(route).Add(float64(size))
}

// count adds one to c when metrics are on.
func (m *Metrics) count(c func(*Metrics) prometheus.Counter) {
	if m != nil {
		c(m).Inc()
	}
}

// The counters the handlers add to, for Metrics.count.
func cacheHit(m *Metrics) prometheus.Counter      { return m.cacheHits }
func cacheMiss(m *Metrics) prometheus.Counter     { return m.cacheMisses }
func rateLimited(m *Metrics) prometheus.Counter   { return m.rateLimited }
func signInRefused(m *Metrics) prometheus.Counter { return m.signInRefused }
