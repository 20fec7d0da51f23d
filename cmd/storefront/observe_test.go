package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/internal/dbtest"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServe runs serve with env and returns once /healthz answers at STOREFRONT_ADDR
// (within the time given); stop ends it and returns what serve returned (it runs at the
// test's end too, and stops only once).
func startServe(t *testing.T, env map[string]string, within time.Duration) (stderr *syncBuffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr = &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, strings.NewReader(""), io.Discard, stderr)
	}()
	stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(60 * time.Second):
			return errors.New("serve did not stop within 60 s of its context ending")
		}
	})
	t.Cleanup(func() { _ = stop() })
	deadline := time.Now().Add(within)
	for {
		res, err := http.Get("http://" + env["STOREFRONT_ADDR"] + "/healthz")
		if err == nil {
			res.Body.Close()
			return stderr, stop
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("the server did not come up:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestServeObservability runs serve with JSON logs, metrics on their own address and a
// drain delay: /readyz, /metrics (checked by promtool), the log lines, and the drain.
func TestServeObservability(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Fatal("promtool is missing: apt-get install prometheus (scripts/deps.sh installs it)")
	}
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	env := map[string]string{"STOREFRONT_DSN": dbtest.DSN(t), "STOREFRONT_ADDR": addr, "STOREFRONT_METRICS_ADDR": metricsAddr,
		"STOREFRONT_LOG_FORMAT": "json", "STOREFRONT_DRAIN_DELAY": "1s"}
	stderr, stop := startServe(t, env, time.Minute)

	if code, body := httpGet(t, "http://"+addr+"/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz: %d %q", code, body)
	}
	if code, _ := httpGet(t, "http://"+addr+"/metrics"); code != 404 {
		t.Errorf("/metrics on the public address: %d, want 404", code)
	}
	code, metrics := httpGet(t, "http://"+metricsAddr+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`storefront_http_requests_total{code="2xx",method="GET",route="/readyz"} 1`,
		`storefront_http_requests_total{code="4xx",method="GET",route="unmatched"} 1`,
		`storefront_db_connections_open{pool="primary"}`,
		`storefront_queue_depth{queue="email"} 0`, `storefront_queue_depth{queue="webhook"} 0`,
		`storefront_queue_oldest_due_age_seconds{queue="webhook"} 0`,
		`storefront_answer_cache_bytes 0`, `storefront_emails_total{outcome="sent"} 0`,
		`storefront_webhook_deliveries_total{outcome="failed"} 0`, `go_goroutines`, `process_resident_memory_bytes`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(metrics)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	if out, err := exec.Command(promtool, "check", "rules", "../../docs/alerts.yml").CombinedOutput(); err != nil {
		t.Errorf("promtool check rules docs/alerts.yml: %v\n%s", err, out)
	}
	// docs/OPERATIONS.md names every metric of storefront's own.
	ops, err := os.ReadFile("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(metrics, "\n") {
		if name, ok := strings.CutPrefix(l, "# HELP storefront_"); ok {
			name, _, _ = strings.Cut(name, " ")
			if !strings.Contains(string(ops), "`storefront_"+name+"`") {
				t.Errorf("docs/OPERATIONS.md does not list storefront_%s", name)
			}
		}
	}

	// Told to stop: /readyz answers 503 for the drain delay, then the server stops.
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	time.Sleep(200 * time.Millisecond)
	if code, body := httpGet(t, "http://"+addr+"/readyz"); code != 503 || !strings.Contains(body, "draining") {
		t.Errorf("/readyz while draining: %d %q", code, body)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("serve returned %v", err)
	}

	// Every log line is a JSON object; each request has its access line.
	var access int
	for _, l := range bytes.Split(bytes.TrimSpace([]byte(stderr.String())), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Errorf("a log line is not JSON: %q", l)
			continue
		}
		if m["msg"] == "request" && m["route"] == "/readyz" && m["request_id"] != "" {
			access++
		}
	}
	if access != 2 {
		t.Errorf("%d access lines of /readyz, want 2:\n%s", access, stderr.String())
	}
}

// TestServeTraces runs serve with OTEL_EXPORTER_OTLP_ENDPOINT at a collector of its
// own: the request spans arrive there as OTLP/HTTP protobuf, at the latest on shutdown.
func TestServeTraces(t *testing.T) {
	var mu sync.Mutex
	var posts []string
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	addr := freeAddr(t)
	env := map[string]string{"STOREFRONT_DSN": dbtest.DSN(t), "STOREFRONT_ADDR": addr, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}
	_, stop := startServe(t, env, time.Minute)
	if code, _ := httpGet(t, "http://"+addr+"/readyz"); code != 200 {
		t.Errorf("/readyz: %d", code)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) == 0 {
		t.Fatal("the collector got no spans")
	}
	// Every post is OTLP/HTTP protobuf; the request's span is in one of them (the
	// workers' steps are spans too, and may come first).
	for _, p := range posts {
		if !strings.HasPrefix(p, "POST /v1/traces application/x-protobuf") || !strings.Contains(p, "storefront") {
			t.Errorf("the collector got %q", p)
		}
	}
	if all := strings.Join(posts, "\n"); !strings.Contains(all, "GET /readyz") || !strings.Contains(all, "worker email") {
		t.Errorf("no span of the request or of the mail worker's steps among %d posts", len(posts))
	}
}
