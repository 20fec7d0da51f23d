package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
)

// metricValue is the value of the metric name with exactly the labels given (a counter's
// or a gauge's, a histogram's count), or -1 when there is none.
func metricValue(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	fs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue metrics
				}
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue()
			case m.Gauge != nil:
				return m.GetGauge().GetValue()
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return -1
}

func TestMetrics(t *testing.T) {
	e := newAPI(t, 0)
	var id string
	if err := e.db.QueryRow("SELECT id FROM purchases WHERE account_id = ? ORDER BY id LIMIT 1", e.id(1)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	get := func(path, key string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	get("/api/v2/purchases/"+id, e.ro)
	get("/api/v2/purchases/"+id, e.ro)
	get("/api/v2/purchases/"+id, e.other)
	get("/no/such/"+url.PathEscape("someone@example.com"), "")
	// A request is counted when its handler returns, which may be just after its
	// client has read the answer.
	for deadline := time.Now().Add(10 * time.Second); metricValue(t, e.metrics, "storefront_http_requests_in_flight", map[string]string{}) != 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	one := map[string]string{"method": "GET", "route": "/api/v2/purchases/:id", "code": "2xx"}
	if v := metricValue(t, e.metrics, "storefront_http_requests_total", one); v != 2 {
		t.Errorf("requests of GET one purchase answered 2xx: %v", v)
	}
	if v := metricValue(t, e.metrics, "storefront_http_request_duration_seconds", one); v != 2 {
		t.Errorf("durations of GET one purchase: %v", v)
	}
	if v := metricValue(t, e.metrics, "storefront_http_requests_total", map[string]string{"method": "GET", "route": "/api/v2/purchases/:id", "code": "4xx"}); v != 1 {
		t.Errorf("another account's purchase, 4xx: %v", v)
	}
	if v := metricValue(t, e.metrics, "storefront_http_requests_total", map[string]string{"method": "GET", "route": "unmatched", "code": "4xx"}); v != 1 {
		t.Errorf("an unknown path: %v", v)
	}
	if v := metricValue(t, e.metrics, "storefront_http_response_bytes_total", map[string]string{"route": "/api/v2/purchases/:id"}); v < 200 {
		t.Errorf("response bytes: %v", v)
	}
	if v := metricValue(t, e.metrics, "storefront_http_requests_in_flight", map[string]string{}); v != 0 {
		t.Errorf("in flight after the requests: %v", v)
	}
	// The first read misses the answer cache and fills it; the second is answered from it.
	if h, m := metricValue(t, e.metrics, "storefront_answer_cache_hits_total", map[string]string{}), metricValue(t, e.metrics, "storefront_answer_cache_misses_total", map[string]string{}); h != 1 || m < 1 {
		t.Errorf("answer cache hits %v, misses %v", h, m)
	}
	if v := metricValue(t, e.metrics, "storefront_answer_cache_bytes", map[string]string{}); v < 200 {
		t.Errorf("answer cache bytes: %v", v)
	}
	// No raw path, no e-mail, no account in any label.
	out, err := testutil.CollectAndFormat(e.metrics, expfmt.TypeTextPlain)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{id, "someone", "/no/such"} {
		if strings.Contains(string(out), bad) {
			t.Errorf("the metrics name %q", bad)
		}
	}

	// Six wrong passwords: the sixth sign-in is refused by the throttle.
	u := e.with(t).signIn(e.id(1), "staff")
	for range 7 {
		u.post("/login", url.Values{"email": {"nobody-metrics@shop.test"}, "password": {"wrong"}})
	}
	if v := metricValue(t, e.metrics, "storefront_signin_throttled_total", map[string]string{}); v < 1 {
		t.Errorf("sign-ins refused by the throttle: %v", v)
	}
}

func TestMetricsRateLimited(t *testing.T) {
	e := newAPI(t, 1)
	for range 3 {
		res, err := http.Get(e.url + "/api/v2/purchases?api_key=x")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	req, _ := http.NewRequest(http.MethodGet, e.url+"/api/v2/purchases", nil)
	req.Header.Set("Authorization", "Bearer "+e.ro)
	for range 3 {
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	if v := metricValue(t, e.metrics, "storefront_api_rate_limited_total", map[string]string{}); v != 2 {
		t.Errorf("requests refused by the rate limit: %v, want 2 of 3 at one a minute", v)
	}
	if v := metricValue(t, e.metrics, "storefront_http_requests_total", map[string]string{"method": "GET", "route": "/api/v2/purchases", "code": "4xx"}); v != 5 {
		t.Errorf("4xx of the list: %v (3 without a key, 2 limited)", v)
	}
}
