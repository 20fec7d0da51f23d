package webhook_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// receiver is a webhook endpoint for the tests: a real HTTP server on loopback that
// checks every request as an integrator would, with its own HMAC code, and records
// what it accepted.
type receiver struct {
	t    *testing.T
	ln   net.Listener
	srv  *http.Server
	addr string

	mu sync.Mutex
	// secrets are the secrets the receiver knows; one v1 of the header must match one.
	secrets []string
	// wantV1 is how many v1 signatures each request must carry (0: any).
	wantV1 int
	// fail answers this many requests with status before answering 200.
	fail   int
	status int
	// delay holds each answer back.
	delay time.Duration
	// got counts accepted requests by event id; bodies keeps each event's first body.
	got    map[string]int
	bodies map[string][]byte
	types  map[string]string
	// requests counts every request that reached the handler.
	requests int
	bad      []string
}

func newReceiver(t *testing.T, secrets ...string) *receiver {
	r := &receiver{t: t, secrets: secrets, got: map[string]int{}, bodies: map[string][]byte{}, types: map[string]string{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	r.start(ln)
	t.Cleanup(r.stop)
	return r
}

func (r *receiver) url() string { return "http://" + r.addr + "/hooks" }

func (r *receiver) start(ln net.Listener) {
	r.ln = ln
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve)}
	go r.srv.Serve(ln)
}

func (r *receiver) stop() {
	if r.srv != nil {
		r.srv.Close()
		r.srv = nil
	}
}

// restart listens again on the same address after stop.
func (r *receiver) restart() {
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		r.t.Fatalf("listen again on %s: %v", r.addr, err)
	}
	r.start(ln)
}

func (r *receiver) set(fn func(r *receiver)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(r)
}

// verify checks a Storefront-Signature header the way docs/WEBHOOKS.md tells
// receivers to: HMAC-SHA256 of "{t}.{body}", hex, compared in constant time.
func verify(header string, body []byte, secrets []string) (int, error) {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return 0, fmt.Errorf("no timestamp in %q", header)
	}
	if len(sigs) == 0 {
		return 0, fmt.Errorf("no v1 in %q", header)
	}
	for _, s := range secrets {
		m := hmac.New(sha256.New, []byte(s))
		m.Write([]byte(ts + "."))
		m.Write(body)
		want := hex.EncodeToString(m.Sum(nil))
		for _, sig := range sigs {
			if hmac.Equal([]byte(want), []byte(sig)) {
				return len(sigs), nil
			}
		}
	}
	return 0, fmt.Errorf("no signature of %q matches a secret the receiver knows", header)
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.requests++
	delay, secrets, wantV1, status := r.delay, r.secrets, r.wantV1, 0
	if r.fail > 0 {
		r.fail--
		status = r.status
	}
	r.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	bad := func(format string, args ...any) {
		r.bad = append(r.bad, fmt.Sprintf(format, args...))
		http.Error(w, "bad", http.StatusBadRequest)
	}
	if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" || req.Header.Get("User-Agent") != "storefront-webhooks/1" {
		bad("request %s with Content-Type %q, User-Agent %q", req.Method, req.Header.Get("Content-Type"), req.Header.Get("User-Agent"))
		return
	}
	n, err := verify(req.Header.Get("Storefront-Signature"), body, secrets)
	if err != nil {
		bad("signature: %v", err)
		return
	}
	if wantV1 > 0 && n != wantV1 {
		bad("got %d signatures, want %d", n, wantV1)
		return
	}
	var e struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.ID == "" {
		bad("body %s: %v", body, err)
		return
	}
	if h := req.Header.Get("Storefront-Event-Id"); h != e.ID {
		bad("Storefront-Event-Id %q, body id %q", h, e.ID)
		return
	}
	if prev, ok := r.bodies[e.ID]; ok && string(prev) != string(body) {
		bad("event %s came back with another body", e.ID)
		return
	}
	if status != 0 {
		w.WriteHeader(status)
		fmt.Fprintf(w, "failing on purpose with %d", status)
		return
	}
	r.got[e.ID]++
	r.bodies[e.ID] = body
	r.types[e.ID] = e.Type
	fmt.Fprintln(w, "ok")
}

// accepted returns how many distinct events were accepted, how many acceptances in
// all, and the problems found; the test fails on any problem.
func (r *receiver) accepted() (events, total int) {
	r.t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		r.t.Fatalf("the receiver refused requests: %v", r.bad)
	}
	for _, n := range r.got {
		total += n
	}
	return len(r.got), total
}
