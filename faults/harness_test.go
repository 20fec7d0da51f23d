package faults_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"storefront/internal/mariadb"
	"storefront/internal/mysql"
)

var (
	// binary is the storefront program built for this run.
	binary string

	loadDuration  = flag.Duration("load.duration", 10*time.Second, "how long TestLoad runs its mixed traffic")
	loadPurchases = flag.Int("load.purchases", 5000, "purchases TestLoad seeds")
	loadWorkers   = flag.Int("load.workers", 16, "concurrent clients of TestLoad")
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "sfbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "storefront")
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	build := exec.Command(gobin, "build", "-o", binary, "storefront/cmd/storefront")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "faults: go build ./cmd/storefront: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// privateDB is a mariadbd of the test's own, in a temporary folder, holding the
// database "storefront". It can be stopped and started again; it is stopped and
// removed when the test ends.
type privateDB struct {
	t       testing.TB
	dir     string
	mu      sync.Mutex
	srv     *mariadb.Server // nil while stopped
	running bool
}

// startDB starts a private mariadbd and creates an empty "storefront" database on it.
// A machine without mariadbd fails the test: these tests never skip.
func startDB(t testing.TB) *privateDB {
	t.Helper()
	// A short folder name: the unix socket path must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "sff")
	if err != nil {
		t.Fatal(err)
	}
	p := &privateDB{t: t, dir: dir}
	t.Cleanup(func() {
		p.Stop()
		os.RemoveAll(dir)
	})
	p.Start()
	admin, err := sql.Open("mysql", p.srv.DSN(""))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if _, err := admin.Exec("CREATE DATABASE storefront CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	return p
}

// Start starts the server (again) on its folder.
func (p *privateDB) Start() {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := mariadb.Start(ctx, p.dir)
	if err != nil {
		p.t.Fatalf("private mariadbd: %v", err)
	}
	p.mu.Lock()
	p.srv, p.running = srv, true
	p.mu.Unlock()
}

// Stop shuts the server down cleanly; stopping a stopped server does nothing.
func (p *privateDB) Stop() {
	p.mu.Lock()
	srv, running := p.srv, p.running
	p.running = false
	p.mu.Unlock()
	if running {
		if err := srv.Stop(); err != nil {
			p.t.Logf("stop mariadbd: %v", err)
		}
	}
}

// DSN is the DSN of the storefront database. The socket path stays the same across
// restarts.
func (p *privateDB) DSN() string { return p.srv.DSN("storefront") }

// AdminDSN names no database.
func (p *privateDB) AdminDSN() string { return p.srv.DSN("") }

// Open opens the storefront database for the test's own checks.
func (p *privateDB) Open(t testing.TB) *mysql.DB {
	t.Helper()
	db, err := mysql.Open(context.Background(), p.DSN())
	if err != nil {
		t.Fatalf("open private database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// storefrontEnv is the environment of a storefront command on the private database:
// the test's own environment without any STOREFRONT_* setting, plus extra.
func storefrontEnv(dsn string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STOREFRONT_") {
			env = append(env, kv)
		}
	}
	env = append(env, "STOREFRONT_DSN="+dsn, "STOREFRONT_RATE_LIMIT=0",
		"STOREFRONT_SESSION_KEY=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	return append(env, extra...)
}

// command runs one storefront command to completion and returns its standard output.
func command(t testing.TB, dsn string, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = storefrontEnv(dsn)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("storefront %s: %v\n%s", strings.Join(args, " "), err, lastLines(errb.String(), 20))
	}
	return out.String()
}

// fixture is a seeded private database with the credentials the traffic uses.
type fixture struct {
	db *privateDB
	// key is a read_write API key of account 1.
	key string
	// userEmail and userPassword sign in to the dashboard as staff of account 1.
	userEmail, userPassword string
	ids                     accountIDs
}

// accountIDs are ids of account 1 that requests name.
type accountIDs struct {
	purchases   []int64 // any status
	reactivable []int64 // ACT, PND or ERR
	storefronts []int64
	products    []int64
}

// seeded starts a private database and fills it with the real commands: migrate,
// seed, apikey create and user create.
func seeded(t testing.TB, purchases int) *fixture {
	t.Helper()
	p := startDB(t)
	start := time.Now()
	command(t, p.DSN(), "", "migrate")
	command(t, p.DSN(), "", "seed", "--purchases", strconv.Itoa(purchases), "--subscribers", strconv.Itoa(max(purchases/10, 10)))
	f := &fixture{db: p, userEmail: "ops@faults.test", userPassword: "faults-password-1"}
	f.key = strings.TrimSpace(command(t, p.DSN(), "", "apikey", "create", "--account", "1", "--name", "faults", "--scope", "read_write"))
	command(t, p.DSN(), f.userPassword+"\n", "user", "create", "--account", "1", "--email", f.userEmail, "--role", "staff")
	db, err := sql.Open("mysql", p.DSN())
	if err != nil {
		t.Fatal(err)
	}
	f.ids = loadIDs(t, db)
	db.Close()
	t.Logf("private database seeded with %d purchases in %s", purchases, time.Since(start).Round(time.Millisecond))
	return f
}

func loadIDs(t testing.TB, db *sql.DB) accountIDs {
	t.Helper()
	var ids accountIDs
	q := func(dst *[]int64, query string) {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			*dst = append(*dst, id)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(*dst) == 0 {
			t.Fatalf("%s: no rows", query)
		}
	}
	q(&ids.storefronts, "SELECT id FROM storefronts WHERE account_id = 1 ORDER BY id")
	q(&ids.purchases, "SELECT p.id FROM purchases p JOIN storefronts s ON s.id = p.storefront_id WHERE s.account_id = 1 ORDER BY RAND(1) LIMIT 2000")
	q(&ids.reactivable, "SELECT p.id FROM purchases p JOIN storefronts s ON s.id = p.storefront_id WHERE s.account_id = 1 AND p.status IN ('ACT','PND','ERR') ORDER BY RAND(2) LIMIT 2000")
	q(&ids.products, "SELECT DISTINCT li.product_id FROM line_items li JOIN purchases p ON p.id = li.purchase_id JOIN storefronts s ON s.id = p.storefront_id WHERE s.account_id = 1 LIMIT 50")
	return ids
}

// server is a storefront serve process.
type server struct {
	t    testing.TB
	cmd  *exec.Cmd
	base string
	log  string
	done chan struct{}
	err  error // of Wait, once done is closed
}

// freeAddr returns a loopback address nobody listens on right now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// startServer runs `storefront serve` on the database and waits until it answers
// /healthz. It is killed when the test ends if it still runs; a failed test shows
// the end of its log.
func startServer(t testing.TB, dsn string, extraEnv ...string) *server {
	t.Helper()
	return startServerAt(t, dsn, freeAddr(t), extraEnv...)
}

func startServerAt(t testing.TB, dsn, addr string, extraEnv ...string) *server {
	t.Helper()
	logFile, err := os.CreateTemp(t.TempDir(), "server-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "serve")
	cmd.Env = storefrontEnv(dsn, append([]string{"STOREFRONT_ADDR=" + addr}, extraEnv...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, base: "http://" + addr, log: logFile.Name(), done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		logFile.Close()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.Kill()
		if t.Failed() {
			t.Logf("server log, warnings and errors:\n%s\nlast lines:\n%s", problems(s.Log(), 20), lastLines(s.Log(), 10))
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-s.done:
			t.Fatalf("storefront serve exited at start (%v):\n%s", s.err, lastLines(s.Log(), 20))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("storefront serve did not answer /healthz within 60s:\n%s", lastLines(s.Log(), 20))
		}
	}
}

// Log is what the server wrote so far.
func (s *server) Log() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// Pid is the server's process id.
func (s *server) Pid() int { return s.cmd.Process.Pid }

// Signal sends sig to the server.
func (s *server) Signal(sig os.Signal) { _ = s.cmd.Process.Signal(sig) }

// Wait waits up to d for the server to exit and returns its exit code (-1 when it
// was killed by a signal), failing the test when it does not exit in time.
func (s *server) Wait(d time.Duration) int {
	s.t.Helper()
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		s.t.Fatalf("storefront serve did not exit within %s", d)
		return 0
	}
}

// Kill ends the server at once if it still runs.
func (s *server) Kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// newClient is an HTTP client for the server with its own connection pool and a
// cookie jar.
func newClient(conns int) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:     jar,
		Timeout: 30 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        conns,
			MaxIdleConnsPerHost: conns,
			IdleConnTimeout:     30 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// signIn signs the client in to the dashboard.
func signIn(t testing.TB, c *http.Client, base, email, password string) {
	t.Helper()
	resp, err := c.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}})
	if err != nil {
		t.Fatalf("sign in: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign in: got %d, want 303", resp.StatusCode)
	}
}

// randomKey is an Idempotency-Key: unique, so every call reactivates, and it makes
// the client's transport retry the POST on a connection the server closed while idle.
func randomKey() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// rssKiB reads VmRSS of a process from /proc.
func rssKiB(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, errors.New("no VmRSS line")
}

// checksums returns CHECKSUM TABLE of every table of the storefront database.
func checksums(t testing.TB, db *sql.DB) map[string]int64 {
	t.Helper()
	rows, err := db.Query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'storefront' AND table_type = 'BASE TABLE' ORDER BY table_name")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	sums := map[string]int64{}
	for _, tb := range tables {
		var name string
		var sum sql.NullInt64
		if err := db.QueryRow("CHECKSUM TABLE `"+tb+"` EXTENDED").Scan(&name, &sum); err != nil {
			t.Fatalf("checksum %s: %v", tb, err)
		}
		sums[tb] = sum.Int64
	}
	return sums
}

// problems returns the first n WARN and ERROR lines of a log.
func problems(log string, n int) string {
	// Errors first: a failure's cause is rarer than the warnings of a database outage.
	var errs, warns []string
	for _, l := range strings.Split(log, "\n") {
		switch {
		case strings.Contains(l, "level=ERROR") && len(errs) < n:
			errs = append(errs, l)
		case strings.Contains(l, "level=WARN") && len(warns) < n:
			warns = append(warns, l)
		}
	}
	out := append(errs, warns...)
	return strings.Join(out[:min(len(out), n)], "\n")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
