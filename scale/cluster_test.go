// Package scale tests storefront as a merchant who outgrew one machine runs it
// (docs/SCALING.md): three instances of the real binary on one MariaDB primary, with a
// MariaDB replica for reads, behind a round-robin reverse proxy. The test starts its
// own primary and replica (two private mariadbd processes with GTID replication),
// never touching the database the other tests use.
package scale

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"storefront/internal/mariadb"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/smtptest"
)

// cluster is a primary and a replica, the storefront instances and the proxy in front.
type cluster struct {
	t        *testing.T
	dir      string
	primary  *mariadb.Server
	replica  *mariadb.Server
	replOpt  mariadb.Options
	pdb, rdb *sql.DB   // root on each server, database storefront
	db       *mysql.DB // the primary as the program sees it
	smtp     *smtptest.Server
	bin      string
	env      []string
	inst     []*instance
	proxy    *httptest.Server
}

type instance struct {
	addr string
	cmd  *exec.Cmd
	log  *bytes.Buffer
	done chan error
}

// freePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// needMariaDB fails in CI and skips elsewhere when mariadbd is missing.
func needMariaDB(t *testing.T) {
	t.Helper()
	if mariadb.Installed() {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatal("mariadbd is not installed; the scale tests need it (apt-get install -y mariadb-server)")
	}
	t.Skip("mariadbd is not installed (apt-get install -y mariadb-server); CI fails here instead of skipping")
}

// startCluster starts a primary and a replica, loads demo data, and starts n instances
// of the program behind a round-robin proxy. beforeStart runs on the primary after the
// data is loaded and before the instances start.
func startCluster(t *testing.T, n int, beforeStart func(c *cluster)) *cluster {
	needMariaDB(t)
	ctx := context.Background()
	dir := t.TempDir()
	c := &cluster{t: t, dir: dir}

	var err error
	c.primary, err = mariadb.StartWith(ctx, filepath.Join(dir, "primary"), mariadb.Options{Port: freePort(t), ServerID: 1, LogBin: true})
	if err != nil {
		t.Fatalf("start primary: %v", err)
	}
	t.Cleanup(func() { c.primary.Stop() })
	c.replOpt = mariadb.Options{Port: freePort(t), ServerID: 2, Args: []string{"--read-only"}}
	c.replica, err = mariadb.StartWith(ctx, filepath.Join(dir, "replica"), c.replOpt)
	if err != nil {
		t.Fatalf("start replica: %v", err)
	}
	t.Cleanup(func() { c.replica.Stop() })

	root := func(s *mariadb.Server) *sql.DB {
		db, err := sql.Open("mysql", s.DSN(""))
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(4)
		t.Cleanup(func() { db.Close() })
		return db
	}
	padmin, radmin := root(c.primary), root(c.replica)
	mustExec(t, padmin,
		"CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY 'repl'",
		"GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1'",
		"CREATE DATABASE storefront CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
	mustExec(t, radmin,
		fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%d, MASTER_USER='repl', MASTER_PASSWORD='repl', MASTER_USE_GTID=slave_pos", c.primary.Port),
		"START SLAVE")

	c.db, err = mysql.Open(ctx, c.primary.DSN("storefront"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.db.Close() })
	if err := c.db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := seed.Run(ctx, c.db.DB, seed.Options{Purchases: 1500, Subscribers: 300, Seed: 7, Now: time.Now()}, io.Discard); err != nil {
		t.Fatalf("seed: %v", err)
	}
	c.pdb = c.db.DB
	rdb, err := sql.Open("mysql", c.replica.DSN("storefront"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	c.rdb = rdb
	if beforeStart != nil {
		beforeStart(c)
	}
	c.waitReplica(30 * time.Second)

	c.bin = filepath.Join(dir, "storefront")
	build := exec.Command("go", "build", "-o", c.bin, "storefront/cmd/storefront")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	c.smtp = smtptest.Start(t)
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	proxyLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.env = []string{
		"STOREFRONT_DSN=" + c.primary.DSN("storefront"),
		"STOREFRONT_READ_DSN=" + c.replica.DSN("storefront"),
		"STOREFRONT_SESSION_KEY=" + hex.EncodeToString(key),
		"STOREFRONT_SMTP_URL=" + c.smtp.URL(),
		"STOREFRONT_BASE_URL=http://" + proxyLn.Addr().String(),
		"STOREFRONT_RATE_LIMIT=6000",
		// The webhook sink listens on loopback.
		"STOREFRONT_WEBHOOK_ALLOW_PRIVATE=1",
	}
	// All at once, as after a deploy: migrations and the PAST_DUE sweep race.
	for range n {
		c.inst = append(c.inst, c.startInstance())
	}
	for _, in := range c.inst {
		c.waitHealthy(in)
	}

	var next atomic.Uint64
	targets := make([]*httputil.ReverseProxy, len(c.inst))
	for i, in := range c.inst {
		u, _ := url.Parse("http://" + in.addr)
		targets[i] = httputil.NewSingleHostReverseProxy(u)
	}
	c.proxy = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targets[next.Add(1)%uint64(len(targets))].ServeHTTP(w, r)
	}))
	c.proxy.Listener.Close()
	c.proxy.Listener = proxyLn
	c.proxy.Start()
	t.Cleanup(c.proxy.Close)
	t.Cleanup(func() {
		if t.Failed() {
			for i, in := range c.inst {
				t.Logf("instance %d log (last 3000 bytes):\n%s", i, tail(in.log.String(), 3000))
			}
		}
	})
	return c
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func (c *cluster) startInstance() *instance {
	in := &instance{addr: fmt.Sprintf("127.0.0.1:%d", freePort(c.t)), log: &bytes.Buffer{}, done: make(chan error, 1)}
	in.cmd = exec.Command(c.bin, "serve")
	in.cmd.Env = append(os.Environ(), append(c.env, "STOREFRONT_ADDR="+in.addr)...)
	in.cmd.Stdout, in.cmd.Stderr = in.log, in.log
	if err := in.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	go func() { in.done <- in.cmd.Wait() }()
	c.t.Cleanup(func() {
		_ = in.cmd.Process.Signal(os.Interrupt)
		select {
		case <-in.done:
		case <-time.After(20 * time.Second):
			_ = in.cmd.Process.Kill()
			<-in.done
		}
	})
	return in
}

func (c *cluster) waitHealthy(in *instance) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-in.done:
			c.t.Fatalf("instance %s exited: %v\n%s", in.addr, err, in.log.String())
		default:
		}
		if r, err := http.Get("http://" + in.addr + "/healthz"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("instance %s did not answer within 30s\n%s", in.addr, in.log.String())
}

// waitReplica waits until the replica has applied everything the primary has written.
func (c *cluster) waitReplica(d time.Duration) {
	c.t.Helper()
	var pos string
	if err := c.pdb.QueryRow("SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		c.t.Fatal(err)
	}
	var res sql.NullInt64
	if err := c.rdb.QueryRow("SELECT MASTER_GTID_WAIT(?, ?)", pos, d.Seconds()).Scan(&res); err != nil {
		c.t.Fatal(err)
	}
	if !res.Valid || res.Int64 != 0 {
		c.t.Fatalf("replica did not reach %s within %v", pos, d)
	}
}

// replicaSelects is the replica's count of SELECT statements so far.
func (c *cluster) replicaSelects() int64 {
	c.t.Helper()
	var name string
	var n int64
	if err := c.rdb.QueryRow("SHOW GLOBAL STATUS LIKE 'Com_select'").Scan(&name, &n); err != nil {
		c.t.Fatal(err)
	}
	return n
}

// apiKey makes a read_write key of the account.
func (c *cluster) apiKey(account int64, name string) string {
	c.t.Helper()
	k, err := mysql.NewAdminService(c.db).CreateAPIKey(context.Background(), account, name, "read_write")
	if err != nil {
		c.t.Fatal(err)
	}
	return k
}

// call sends one API request through the proxy with a Bearer key.
func (c *cluster) call(method, path, key string, body io.Reader, header map[string]string) (int, http.Header, []byte, error) {
	req, err := http.NewRequest(method, c.proxy.URL+path, body)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b, err
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
