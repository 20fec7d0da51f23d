package faults_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"storefront/internal/mysql"
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

// dbDownRateLimit is the API rate limit (a minute, per key) of TestDatabaseDown: on,
// with the bucket shared through the database as whenever STOREFRONT_DSN is set, and
// high enough that the test's 8 clients stay under it, so that any 429 is wrong.
const dbDownRateLimit = 1_000_000

// TestDatabaseDown stops the database under load and starts it again, with the real
// binary and its wiring: the API rate limit on and its bucket in the database, failed
// sign-ins counted in the database. While the database is down every request — API
// lists, single purchases, reactivations and dashboard pages — is answered 503 with
// Retry-After (the API with its JSON error, docs/API.md#errors; never a 429: an
// unreachable rate-limit bucket lets the request through to its 503, docs/SCALING.md),
// and a sign-in, with the right password or a wrong one, gets a page saying the
// database is unavailable; no request fails any other way, before, during or after.
// Once mariadbd answers again the service must answer every request, and sign in,
// within 5 s without being restarted, and take its rate-limit tokens from the database
// again. Once the load stops no goroutine is left over (counted in a goroutine dump,
// against a second process that saw the same traffic without the outage), no
// transaction is left open, and the database server holds exactly the connections the
// program's pool holds.
func TestDatabaseDown(t *testing.T) {
	f := seeded(t, 3000)
	admin, err := sql.Open("mysql", f.db.AdminDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	admin.SetMaxOpenConns(1)
	env := []string{fmt.Sprintf("STOREFRONT_RATE_LIMIT=%d", dbDownRateLimit), "GOTRACEBACK=all"}

	// The baseline: a process that gets the same warm-up traffic and no outage.
	before := startServer(t, f.db.DSN(), env...)
	quiesce(warmUp(t, before.base, f))
	g0 := goroutineDump(t, before)
	t.Logf("baseline: %d goroutines (%d of them the driver's, one per database connection)", g0.total(), g0.byCreator[driverConnGoroutine])

	srv := startServer(t, f.db.DSN(), env...)
	client := warmUp(t, srv.base, f)
	tr := &traffic{base: srv.base, client: client, key: f.key, ids: f.ids, pagePercent: 20}

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
	limitHeader := fmt.Sprint(dbDownRateLimit)
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
		// Every API request the limiter admitted carries its headers.
		if o.kind != kindPage && o.status == 200 && o.rateLimit != limitHeader {
			ok = false
			mu.Lock()
			if len(badAnswers) < 10 {
				badAnswers = append(badAnswers, fmt.Sprintf("%s: 200 with RateLimit-Limit %q, want %q", o.kind, o.rateLimit, limitHeader))
			}
			mu.Unlock()
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

	// Sign-ins during the outage, with the right password and a wrong one, from a
	// browser that is not signed in.
	visitor := newClient(1)
	for _, password := range []string{f.userPassword, "not-the-password"} {
		if problem := signInDuringOutage(visitor, srv.base, f.userEmail, password); problem != "" {
			t.Errorf("sign-in while the database is down: %s", problem)
		}
	}
	time.Sleep(3*time.Second - time.Since(downAt.Load().(time.Time)))
	phase.Store(phaseStarting)
	f.db.Start()
	mu.Lock()
	restarted = time.Now()
	mu.Unlock()
	phase.Store(phaseBack)
	t.Logf("mariadbd answers again after %s down", time.Since(stopAt).Round(time.Millisecond))

	// The sign-ins during the outage signed nobody in, and signing in works again.
	if r := get(t, visitor, srv.base+"/purchases"); r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
		t.Errorf("after the outage, /purchases for the visitor: %d to %q, want 303 to /login", r.StatusCode, r.Header.Get("Location"))
	}
	waitSignIn(t, visitor, srv.base, f.userEmail, f.userPassword, 5*time.Second)
	t.Logf("signed in again %s after mariadbd answered", time.Since(restarted).Round(time.Millisecond))
	if r := get(t, visitor, srv.base+"/purchases"); r.StatusCode != http.StatusOK {
		t.Errorf("after signing in again, /purchases: %d, want 200", r.StatusCode)
	}

	time.Sleep(6*time.Second - time.Since(restarted))
	cancel()
	<-loadDone

	for i, tl := range byPhase {
		t.Logf("phase %s: %s", phaseNames[i], tl)
		if tl.nErrors > 0 {
			t.Errorf("phase %s: %d requests were answered wrongly", phaseNames[i], tl.nErrors)
		}
	}
	for _, b := range badAnswers {
		t.Errorf("answer: %s", b)
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
	sinceRestart := time.Since(restarted)
	mu.Unlock()
	if n := strings.Count(srv.Log(), "shared rate limit unavailable"); n > 0 {
		t.Logf("%d requests found the rate-limit bucket unreachable after their key was checked, and were let through", n)
	}

	// The rate limit was the database's bucket, before and after the outage: the
	// key's row was refilled since mariadbd came back.
	var buckets int
	var age int64
	if err := admin.QueryRow("SELECT COUNT(*), COALESCE(MIN(TIMESTAMPDIFF(MICROSECOND, refilled_at, UTC_TIMESTAMP(6))), -1) FROM storefront.api_rate_buckets").Scan(&buckets, &age); err != nil {
		t.Fatal(err)
	}
	if buckets != 1 || age < 0 || time.Duration(age)*time.Microsecond > sinceRestart {
		t.Errorf("api_rate_buckets: %d rows, last refilled %d µs ago; want the key's row, refilled after mariadbd came back %s ago", buckets, age, sinceRestart.Round(time.Millisecond))
	}

	// Leaks: with the load stopped and the clients' connections closed, no transaction
	// is open, the database server holds as many connections as the program's driver
	// (one goroutine each), and the program has the baseline's goroutines besides.
	quiesce(client, visitor)
	var openTx int
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.INNODB_TRX").Scan(&openTx); err != nil {
			t.Fatal(err)
		}
		if openTx == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if openTx != 0 {
		t.Errorf("%d transactions still open once the load stopped", openTx)
	}
	var serverConns int
	if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = 'storefront'").Scan(&serverConns); err != nil {
		t.Fatal(err)
	}
	g1 := goroutineDump(t, srv)
	if pool := g1.byCreator[driverConnGoroutine]; serverConns != pool {
		t.Errorf("the database server has %d connections to storefront, the program %d", serverConns, pool)
	} else {
		t.Logf("the database server has %d connections to storefront, as many as the program holds", serverConns)
	}
	leaked := (g1.total() - g1.byCreator[driverConnGoroutine]) - (g0.total() - g0.byCreator[driverConnGoroutine])
	t.Logf("after: %d goroutines (%d of them the driver's); baseline %d (%d)", g1.total(), g1.byCreator[driverConnGoroutine], g0.total(), g0.byCreator[driverConnGoroutine])
	if n := g1.byCreator["net/http.(*Server).Serve"]; n > 0 {
		t.Errorf("%d connections still served after the clients closed theirs", n)
	}
	if leaked > 2 {
		t.Errorf("leak: %d goroutines more than the baseline, not counting the driver's; by creator, after %v, baseline %v",
			leaked, g1.byCreator, g0.byCreator)
	}
}

// warmUp signs a new client in to the server and sends a second of the mixed traffic
// through it; every answer must be 200. It returns the client.
func warmUp(t *testing.T, base string, f *fixture) *http.Client {
	t.Helper()
	client := newClient(16)
	signIn(t, client, base, f.userEmail, f.userPassword)
	tr := &traffic{base: base, client: client, key: f.key, ids: f.ids, pagePercent: 20}
	tl := newTally()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	tr.run(ctx, 8, func(o outcome) { tl.add(o, o.err == nil && o.status == 200) })
	cancel()
	if tl.nErrors > 0 {
		t.Fatalf("warm-up: %s", tl)
	}
	return client
}

// quiesce closes the clients' idle connections and gives the server a second to
// notice.
func quiesce(clients ...*http.Client) {
	for _, c := range clients {
		c.CloseIdleConnections()
	}
	time.Sleep(time.Second)
}

// signInDuringOutage posts the sign-in form and returns what is wrong with the answer,
// or "": it must be a 503 page with Retry-After saying that the database is
// unavailable.
func signInDuringOutage(c *http.Client, base, email, password string) string {
	resp, err := c.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		return err.Error()
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	body := string(b)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(body, "<html") || !strings.Contains(body, mysql.ErrUnavailable.Message) {
		return fmt.Sprintf("got %d, Retry-After %q, want 503 with Retry-After and a page saying %q:\n%.2000s",
			resp.StatusCode, resp.Header.Get("Retry-After"), mysql.ErrUnavailable.Message, body)
	}
	return ""
}

// waitSignIn posts the sign-in form until it signs in (303) or within has passed.
func waitSignIn(t *testing.T, c *http.Client, base, email, password string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		resp, err := c.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}})
		status := 0
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status = resp.StatusCode
		}
		if status == http.StatusSeeOther {
			return
		}
		if status != http.StatusServiceUnavailable && err == nil {
			t.Fatalf("sign-in after the outage: got %d, want 303 (or 503 while the database comes back)", status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no sign-in within %s of mariadbd answering (last: %d %v)", within, status, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// get GETs a URL and returns the answer with its body read.
func get(t *testing.T, c *http.Client, u string) *http.Response {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// driverConnGoroutine is the creator of the goroutine the MySQL driver runs for each
// open connection.
const driverConnGoroutine = "github.com/go-sql-driver/mysql.(*mysqlConn).startWatcher"

// goroutines is a goroutine dump, counted by the function that created each
// goroutine ("main" for the main goroutine).
type goroutines struct{ byCreator map[string]int }

func (g goroutines) total() int {
	n := 0
	for _, c := range g.byCreator {
		n += c
	}
	return n
}

// goroutineDump ends the server with SIGQUIT, on which the Go runtime writes every
// goroutine's stack to standard error (the server runs with GOTRACEBACK=all), and
// counts them.
func goroutineDump(t *testing.T, s *server) goroutines {
	t.Helper()
	s.Signal(syscall.SIGQUIT)
	s.Wait(30 * time.Second)
	_, dump, ok := strings.Cut(s.Log(), "SIGQUIT: quit")
	if !ok {
		t.Fatalf("no goroutine dump in the server's output:\n%s", lastLines(s.Log(), 20))
	}
	g := goroutines{byCreator: map[string]int{}}
	creator := ""
	flush := func() {
		if creator != "" {
			g.byCreator[creator]++
		}
	}
	for _, l := range strings.Split(dump, "\n") {
		switch {
		case strings.HasPrefix(l, "goroutine "):
			flush()
			creator = "main"
			if strings.HasPrefix(l, "goroutine 0 ") { // the thread that took the signal
				creator = ""
			}
		case strings.HasPrefix(l, "created by ") && creator != "":
			creator, _, _ = strings.Cut(strings.TrimPrefix(l, "created by "), " in goroutine ")
		}
	}
	flush()
	if g.byCreator["main"] == 0 {
		t.Fatalf("the goroutine dump has no main goroutine:\n%s", lastLines(dump, 40))
	}
	return g
}

// downAt is when mariadbd had exited in TestDatabaseDown.
var downAt atomic.Value

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
