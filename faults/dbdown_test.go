package faults_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/internal/mail"
	"storefront/internal/mysql"
	"storefront/web"
)

// Phases of TestDatabaseDown.
const (
	phaseUp       = iota // the database runs
	phaseStopping        // mariadbd was told to stop
	phaseDown            // mariadbd has exited
	phaseStarting        // mariadbd is starting again
	phaseBack            // mariadbd answers again
)

var phaseNames = []string{"up", "stopping", "down", "starting", "back"}

// TestDatabaseDown stops the database under load and starts it again. The server runs in
// this process (web.Server on mysql.DB, with the mail sender), so that its goroutines and
// connection pool can be counted. While the database is down every request — API lists,
// single purchases, reactivations and dashboard pages — is answered 503 with Retry-After
// (the API with its JSON error, docs/API.md#errors); no request fails any other way,
// before, during or after. Once mariadbd answers again the service must answer every
// request within 5 s without being restarted, and once the load stops no goroutine or
// database connection is left over.
func TestDatabaseDown(t *testing.T) {
	f := seeded(t, 3000)
	db, err := mysql.Open(context.Background(), f.db.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The server's log keeps errors only: a failing test shows them.
	var logBuf lockedBuffer
	serverLog := slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelError}))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server's internal errors:\n%s", internalErrors(logBuf.String()))
		}
	})
	sender := mail.NewSender(db, &mail.LogTransport{Log: quiet}, mail.SenderOptions{Log: quiet, PollInterval: 200 * time.Millisecond})
	bgCtx, stopBg := context.WithCancel(context.Background())
	senderDone := make(chan struct{})
	go func() { defer close(senderDone); _ = sender.Run(bgCtx) }()
	defer func() { stopBg(); <-senderDone }()

	handler := (&web.Server{
		Purchases: db, Writer: db, Subscribers: db, Keys: db, Accounts: db, Users: db, Admin: db,
		Logger: serverLog, BaseURL: "http://127.0.0.1", OnEmailQueued: sender.Kick,
		SessionKey: []byte("0123456789abcdef0123456789abcdef"),
	}).Handler()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan struct{})
	go func() { defer close(served); _ = hs.Serve(ln) }()
	defer func() { hs.Close(); <-served }()
	base := "http://" + ln.Addr().String()

	client := newClient(16)
	signIn(t, client, base, f.userEmail, f.userPassword)
	tr := &traffic{base: base, client: client, key: f.key, ids: f.ids, pagePercent: 20}

	// Warm up, then take the baseline with the load stopped and idle client
	// connections closed.
	warm, cancelWarm := context.WithTimeout(context.Background(), time.Second)
	tr.run(warm, 8, func(outcome) {})
	cancelWarm()
	g0, s0 := settle(client, db)
	t.Logf("baseline: %d goroutines, %d open database connections (%d in use)", g0, s0.OpenConnections, s0.InUse)

	var (
		phase      atomic.Int32
		mu         sync.Mutex
		byPhase    [5]*tally
		seen503    = map[string]int{}
		restarted  time.Time // when mariadbd answered again
		lastFail   time.Time // the last non-200 answer after that
		firstOK    time.Time // the first 200 after that
		badAnswers []string
	)
	for i := range byPhase {
		byPhase[i] = newTally()
	}
	record := func(o outcome) {
		ph := int(phase.Load())
		// An answer belongs to the phase its request started in, unless it started
		// before a change and ended after it: that one is judged leniently.
		ok := o.err == nil && (o.status == 200 || o.status == 503)
		if ph == phaseUp && o.status != 200 {
			ok = false
		}
		if o.status == 503 {
			if problem := check503(o); problem != "" {
				ok = false
				mu.Lock()
				if len(badAnswers) < 10 {
					badAnswers = append(badAnswers, problem)
				}
				mu.Unlock()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if o.status == 503 {
			seen503[o.kind]++
		}
		if ph == phaseDown && o.status != 503 && o.start.After(downAt.Load().(time.Time)) {
			ok = false
		}
		if ph == phaseBack && o.start.After(restarted) {
			if o.status != 200 {
				lastFail = o.end
			} else if firstOK.IsZero() {
				firstOK = o.end
			}
		}
		byPhase[ph].add(o, ok)
	}
	downAt.Store(time.Time{})

	ctx, cancel := context.WithCancel(context.Background())
	loadDone := make(chan struct{})
	go func() { defer close(loadDone); tr.run(ctx, 8, record) }()
	defer func() { cancel(); <-loadDone }()

	time.Sleep(time.Second)
	phase.Store(phaseStopping)
	stopAt := time.Now()
	f.db.Stop()
	downAt.Store(time.Now())
	phase.Store(phaseDown)
	t.Logf("mariadbd stopped in %s", time.Since(stopAt).Round(time.Millisecond))
	time.Sleep(3 * time.Second)
	phase.Store(phaseStarting)
	f.db.Start()
	mu.Lock()
	restarted = time.Now()
	mu.Unlock()
	phase.Store(phaseBack)
	t.Logf("mariadbd answers again after %s down", time.Since(stopAt).Round(time.Millisecond))
	time.Sleep(6 * time.Second)
	cancel()
	<-loadDone

	for i, tl := range byPhase {
		t.Logf("phase %s: %s", phaseNames[i], tl)
		if tl.nErrors > 0 {
			t.Errorf("phase %s: %d requests were answered wrongly", phaseNames[i], tl.nErrors)
		}
	}
	for _, b := range badAnswers {
		t.Errorf("503 answer: %s", b)
	}
	t.Logf("503 answers by kind: %v", seen503)
	for _, k := range []string{kindList, kindGet, kindReactivate, kindPage} {
		if seen503[k] == 0 {
			t.Errorf("no %s request was answered 503 while the database was down", k)
		}
	}
	mu.Lock()
	recovery := time.Duration(0)
	if !lastFail.IsZero() {
		recovery = lastFail.Sub(restarted)
	}
	t.Logf("recovery: first 200 %s after mariadbd answered, last failure %s after",
		firstOK.Sub(restarted).Round(time.Millisecond), recovery.Round(time.Millisecond))
	if firstOK.IsZero() {
		t.Errorf("no request succeeded after the database came back")
	}
	if recovery > 5*time.Second {
		t.Errorf("requests still failed %s after the database came back, want under 5s", recovery)
	}
	mu.Unlock()

	// Leaks: with the load stopped and idle client connections closed, the process
	// has the baseline's goroutines (up to the database connections' own, which
	// the pool may hold more or fewer of than before) and the pool holds no
	// connection in use; the server sees exactly the connections the pool holds.
	deadline := time.Now().Add(10 * time.Second)
	for {
		g1, s1 := settle(client, db)
		leaked := (g1 - s1.OpenConnections) - (g0 - s0.OpenConnections)
		if leaked <= 2 && s1.InUse == 0 {
			t.Logf("after: %d goroutines, %d open database connections (%d in use); database stats %+v", g1, s1.OpenConnections, s1.InUse, s1)
			break
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			_ = pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Fatalf("leak: %d goroutines with %d database connections (%d in use), baseline %d with %d\n%s",
				g1, s1.OpenConnections, s1.InUse, g0, s0.OpenConnections, b.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	admin, err := sql.Open("mysql", f.db.AdminDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	var serverConns int
	if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = 'storefront'").Scan(&serverConns); err != nil {
		t.Fatal(err)
	}
	if open := db.Stats().OpenConnections; serverConns != open {
		t.Errorf("the database server has %d connections to storefront, the pool %d", serverConns, open)
	} else {
		t.Logf("the database server has %d connections to storefront, as many as the pool holds", serverConns)
	}
}

// downAt is when mariadbd had exited in TestDatabaseDown.
var downAt atomic.Value

// settle closes idle client connections, lets the server notice, and returns the
// number of goroutines and the pool's statistics.
func settle(c *http.Client, db *mysql.DB) (int, sql.DBStats) {
	c.CloseIdleConnections()
	time.Sleep(300 * time.Millisecond)
	runtime.GC()
	return runtime.NumGoroutine(), db.Stats()
}

// check503 returns what is wrong with a 503 answer, or "".
func check503(o outcome) string {
	if o.retryAfter == "" {
		return o.kind + ": no Retry-After"
	}
	if o.kind == kindPage {
		if !strings.Contains(o.body, "<html") && !strings.Contains(o.body, "<!doctype") {
			return o.kind + ": not a page: " + o.body
		}
		return ""
	}
	var body struct {
		Status string `json:"status"`
		Error  struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(o.body), &body); err != nil {
		return o.kind + ": body is not JSON: " + o.body
	}
	if body.Status != "UNAVAILABLE" || body.Error.Code != "unavailable" || body.Error.Message == "" {
		return o.kind + ": body " + o.body
	}
	return ""
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// internalErrors returns the log lines of internal errors (answered 500).
func internalErrors(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "internal error") || strings.Contains(l, "panic") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
