// Command bench measures the storefront server against the floor of what the database
// itself needs for the same answers, and prints one markdown table (docs/PERFORMANCE.md):
//
//   - GET /api/v2/purchases for each of its filters (docs/API.md#get-apiv2purchases)
//     and five combinations, on the first page, a deep cursor page and page 200:
//     latency at 1 and 32 clients, beside the median time of the same SQL sent by a
//     minimal database/sql loop;
//   - GET /api/v2/purchases/:id requests/s beside a bare Gin handler serving the same
//     bytes from memory;
//   - the dashboard's purchases fragment (an htmx request);
//   - import and seed rates, and the server's peak resident memory;
//   - GET /api/v2/purchases.csv of every purchase of the bench account (per purchase and
//     per line item) and of a filtered set: rows/s, the server's resident memory during
//     the export, and the time to the first byte beside that of the first JSON page.
//
// It builds and starts the real server (cmd/storefront) on a loopback port against the
// bench database, which it seeds first when it is missing or too small. Progress goes
// to standard error, the table to standard output.
//
//	go run ./bench            # or: make bench
//
// The rates alone, from import files kept for the next run, into scratch databases of
// one's own, with a given binary:
//
//	go run ./bench -only rates -import-dir bench-out/import -scratch sf_mine [-bin ./storefront] [-seed 0]
//
// What tracing costs (docs/OPERATIONS.md#what-tracing-costs): GET of one purchase and the
// first list page, uncached, with the server's metrics on and its tracing off, then on
// (to an OTLP collector in the bench process that discards), in turn twice:
//
//	go run ./bench -only observe [-db NAME -purchases N]
//
// The Search box's domain suggestions, straight on the bench database (bench/suggest.go):
//
//	go run ./bench -only suggest
//
// The list page and one purchase through a vtgate beside MariaDB directly (bench/vitess.go):
//
//	bash scripts/vitess.sh go run ./bench -only vitess [-vitess-db NAME] [-vitess-purchases 10000]
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/mariadb"
)

type options struct {
	rootDSN                string
	db                     string
	purchases, subscribers int
	addr, ginAddr          string
	metricsAddr            string
	dur, sqlDur            time.Duration
	cases                  *regexp.Regexp
	rates                  bool
	importN                int
	seedN                  int
	keep                   bool
	only                   string
	vitessDB               string
	vitessN                int
	importDir              string
	scratch                string
	bin                    string
	sweepDur               time.Duration
	hooks, hookRate        int
	bufferPool, redoLog    int64
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "bare-gin" {
		if err := bareGin(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "bench bare-gin:", err)
			os.Exit(1)
		}
		return
	}
	var o options
	var cases string
	flag.StringVar(&o.rootDSN, "dsn", "root@tcp(127.0.0.1:3306)/", "DSN of the database server, without a database name")
	flag.StringVar(&o.db, "db", "storefront_bench", "bench database (seeded when missing or too small)")
	flag.IntVar(&o.purchases, "purchases", 1_000_000, "purchases the bench database must hold")
	flag.IntVar(&o.subscribers, "subscribers", 100_000, "subscribers to seed with them")
	flag.StringVar(&o.addr, "addr", "127.0.0.1:18480", "loopback address of the server under test")
	flag.StringVar(&o.ginAddr, "gin-addr", "127.0.0.1:18481", "loopback address of the bare Gin handler")
	flag.StringVar(&o.metricsAddr, "metrics-addr", "127.0.0.1:18482", "loopback address of the server's /metrics in the observe part")
	flag.DurationVar(&o.dur, "duration", 2*time.Second, "length of each measured load run")
	flag.DurationVar(&o.sqlDur, "sql-duration", time.Second, "length of each bare-SQL timing")
	flag.StringVar(&cases, "cases", "", "only the list cases and sweep values whose name matches this regexp (the sweep always measures the unfiltered list)")
	flag.BoolVar(&o.rates, "rates", true, "measure import and seed rates (about a minute)")
	flag.IntVar(&o.importN, "import", 100_000, "purchases in the import file")
	flag.IntVar(&o.seedN, "seed", 100_000, "purchases of the seed-rate run (a tenth as many subscribers); 0 skips it")
	flag.Int64Var(&o.bufferPool, "buffer-pool", 4<<30, "bytes: raise the server's InnoDB buffer pool to at least this (SET GLOBAL) before measuring, as a server holding a million purchases is configured; 0 leaves it as it is")
	flag.Int64Var(&o.redoLog, "redo-log", 1<<30, "bytes: raise the server's InnoDB redo log to at least this (SET GLOBAL); 0 leaves it as it is")
	flag.BoolVar(&o.keep, "keep", false, "leave the server running at the end (for pprof or a look)")
	flag.StringVar(&o.only, "only", "", "run only one part: table (the one table), sweep (the shape sweep), export (the CSV exports), webhooks (delivery rate and latency), rates (the import and seed rates), observe (metrics on, tracing off and on; not part of all), suggest (the Search box's domain suggestions, on the database; not part of all) or vitess (list and GET through a vtgate beside MariaDB directly, under scripts/vitess.sh; not part of all); all when empty")
	flag.StringVar(&o.vitessDB, "vitess-db", "storefront_bench_vitess", "database on the MariaDB server that -only vitess (re)creates for its direct side")
	flag.IntVar(&o.vitessN, "vitess-purchases", 10000, "purchases -only vitess seeds on each side")
	flag.StringVar(&o.importDir, "import-dir", "", "keep the import files in this directory and reuse them when present (written afresh each run when empty)")
	flag.StringVar(&o.scratch, "scratch", "", "name prefix of the scratch databases of the rates (<prefix>_import, <prefix>_seed); -db when empty")
	flag.StringVar(&o.bin, "bin", "", "storefront binary to measure instead of building ./cmd/storefront (to compare builds)")
	flag.DurationVar(&o.sweepDur, "sweep-duration", time.Second, "length of each measured run of the shape sweep")
	flag.IntVar(&o.hooks, "hooks", 2000, "purchases reactivated for the webhook part: half as a backlog, half at -hook-rate")
	flag.IntVar(&o.hookRate, "hook-rate", 100, "reactivations a second while commit-to-delivery latency is measured")
	flag.Parse()
	switch o.only {
	case "", "table", "sweep", "export", "webhooks", "rates", "observe", "suggest", "vitess":
	default:
		fmt.Fprintln(os.Stderr, "bench: -only must be table, sweep, export, webhooks, rates, observe, suggest or vitess")
		os.Exit(2)
	}
	if o.scratch == "" {
		o.scratch = o.db
	}
	if o.only == "sweep" || o.only == "export" || o.only == "observe" || o.only == "suggest" {
		o.rates = false
	}
	o.cases = regexp.MustCompile(cases)
	if !strings.HasSuffix(o.rootDSN, "/") {
		fmt.Fprintln(os.Stderr, "bench: -dsn must end with / (no database name)")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.only == "webhooks" {
		rep, err := benchWebhooks(ctx, o.rootDSN, o.hooks, o.hookRate)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		fmt.Printf("Storefront bench, webhooks, %s: %d CPUs, %s; code %s; load average at start %s.\n",
			time.Now().Format("2006-01-02 15:04"), runtime.NumCPU(), runtime.Version(), gitCommit(), loadavg())
		printWebhooks(os.Stdout, rep)
		return
	}
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// report collects everything the table shows.
type report struct {
	rows             []listRow
	getAPI, getGin   stats
	getAPI1, getGin1 stats
	// The first list page (unfiltered, newest first, 100 a page) at 32 clients, from
	// the API and from the bare Gin handler serving its bytes.
	listAPI, listGin stats
	// The same from the database (Cache-Control: no-cache).
	listAPIU, getAPIU, getAPIU1 stats
	getSQL1, getSQL             stats
	fragments                   []fragRow
	pages                       []fragRow
	importDur, seedDur          time.Duration
	importN, seedN              int
	benchSeedDur                time.Duration
	peakRSS, hwm, idleRSS       int64
	load1, load5                string
	started                     time.Time
	benchPurchases              int
	goVersion, cpus             string
	commit                      string
	server                      string
}

type listRow struct {
	name, page, matches string
	c1, c32             stats
	sql                 time.Duration
	sql32               stats
}

type fragRow struct {
	name    string
	c1, c32 stats
	// paired and ref are, for a customer page, its requests at one client sent in turn
	// with the purchases page's (pairedRun), so that the machine's drift falls on both.
	paired, ref stats
}

func run(ctx context.Context, o options) error {
	rep := &report{started: time.Now(), importN: o.importN, seedN: o.seedN, goVersion: runtime.Version(), cpus: fmt.Sprint(runtime.NumCPU())}
	rep.load1 = loadavg()
	rep.commit = gitCommit()
	if _, err := os.Stat("go.mod"); err != nil {
		return fmt.Errorf("run from the repository root (go run ./bench)")
	}
	dir, err := os.MkdirTemp("", "storefront-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := o.bin
	if bin == "" {
		bin = filepath.Join(dir, "storefront")
		logf("building the server")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/storefront")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	} else {
		rep.commit = "binary " + bin
	}
	root, err := openDB(ctx, o.rootDSN)
	if err != nil {
		// A fresh machine has no server on the TCP port (or root only over the
		// socket): run the program's own private MariaDB, keeping its data for reuse.
		if !mariadb.Installed() {
			return fmt.Errorf("%s does not answer (%v) and mariadbd is not installed", o.rootDSN, err)
		}
		logf("%s does not answer (%v): starting a private MariaDB in bench-out/mariadb", o.rootDSN, err)
		srv, serr := mariadb.Start(ctx, filepath.Join("bench-out", "mariadb"))
		if serr != nil {
			return serr
		}
		defer srv.Stop()
		o.rootDSN = srv.DSN("")
		if root, err = openDB(ctx, o.rootDSN); err != nil {
			return err
		}
	}
	defer root.Close()
	if o.only == "vitess" {
		return benchVitess(ctx, o, bin, root)
	}
	if rep.server, err = sizeServer(ctx, root, o); err != nil {
		return err
	}
	t := tool{bin: bin, rootDSN: o.rootDSN}
	importDir := dir
	if o.importDir != "" {
		importDir = o.importDir
	}
	// The rates alone, from import files kept earlier, need nothing of the bench
	// database.
	if o.only != "rates" || o.importN > 0 && !importFilesExist(importDir, o.importN) {
		if rep.benchSeedDur, err = ensureBenchDB(ctx, t, root, o); err != nil {
			return err
		}
	}
	rep.benchPurchases = o.purchases
	if o.only == "suggest" {
		rows, err := benchSuggest(ctx, o)
		if err != nil {
			return err
		}
		printSuggest(os.Stdout, rows)
		return nil
	}

	if o.rates || o.only == "rates" {
		if o.importN > 0 {
			logf("import rate: %d purchases into a scratch database", o.importN)
			if rep.importDur, err = measureImport(ctx, t, root, o, importDir, o.importN); err != nil {
				return err
			}
		}
		if o.seedN > 0 {
			logf("seed rate: %d purchases into a scratch database", o.seedN)
			if rep.seedDur, err = measureSeed(ctx, t, root, o.scratch+"_seed", o.seedN, o.seedN/10); err != nil {
				return err
			}
		}
	}
	if o.only == "rates" {
		printHeader(os.Stdout, rep, o)
		fmt.Println()
		printRates(os.Stdout, rep)
		return nil
	}

	// Credentials for the API and the dashboard.
	out, err := t.run(ctx, o.db, "", "apikey", "create", "--account", "1", "--name", "bench", "--scope", "read_write")
	if err != nil {
		return err
	}
	key := strings.TrimSpace(out)
	email := fmt.Sprintf("bench-%d@example.test", time.Now().UnixNano())
	password := "bench-password-0123"
	if _, err := t.run(ctx, o.db, password+"\n", "user", "create", "--account", "1", "--email", email, "--role", "owner"); err != nil {
		return err
	}
	defer func() {
		c := context.Background()
		root.ExecContext(c, "DELETE FROM "+o.db+".api_keys WHERE name = 'bench'")
		root.ExecContext(c, "DELETE FROM "+o.db+".users WHERE email LIKE 'bench-%@example.test'")
	}()

	if o.only == "observe" {
		ids, err := purchaseIDs(ctx, root, "SELECT id FROM "+o.db+".purchases WHERE account_id = 1 ORDER BY id DESC LIMIT 400")
		if err != nil {
			return err
		}
		rows, err := measureObserve(ctx, o, t, key, purchasePaths(ids))
		if err != nil {
			return err
		}
		rep.load5 = loadavg()
		printHeader(os.Stdout, rep, o)
		fmt.Println()
		printObserve(os.Stdout, rows)
		return nil
	}

	srv, err := startServer(ctx, t, o)
	if err != nil {
		return err
	}
	defer srv.stop()
	rep.idleRSS = procStatus(srv.cmd.Process.Pid, "VmRSS")
	rss := startRSS(srv.cmd.Process.Pid)

	base := "http://" + o.addr
	client := newClient()
	apiHeader := http.Header{"Authorization": {"Bearer " + key}}
	// Every list measurement but the rows marked "validated cache" reads from the
	// database: Cache-Control: no-cache keeps the server from answering from the
	// answers it keeps (docs/API.md#conditional-requests).
	uncached := apiHeader.Clone()
	uncached.Set("Cache-Control", "no-cache")

	bdb, err := openBare(ctx, o.rootDSN+o.db)
	if err != nil {
		return err
	}
	defer bdb.Close()
	if o.only == "" || o.only == "table" {
		if err := measureTable(ctx, o, rep, client, base, apiHeader, uncached, bdb, dir, email, password); err != nil {
			return err
		}
	}
	var sw *sweepReport
	if o.only == "" || o.only == "sweep" {
		if sw, err = runSweep(ctx, o, client, base, uncached, bdb); err != nil {
			return err
		}
	}

	rep.peakRSS, rep.hwm = rss.Stop()
	// The exports come last, with memory sampled during each alone.
	var exports []exportRow
	if o.only == "" || o.only == "export" {
		if exports, err = measureExports(ctx, o, base, apiHeader, bdb, srv.cmd.Process.Pid); err != nil {
			return err
		}
	}
	rep.load5 = loadavg()
	if o.keep {
		logf("server left running at %s (pid %d); interrupt to stop", base, srv.cmd.Process.Pid)
		<-ctx.Done()
	}
	if o.only == "sweep" || o.only == "export" {
		printHeader(os.Stdout, rep, o)
	} else {
		printReport(os.Stdout, rep, o)
	}
	if sw != nil {
		printSweep(os.Stdout, sw)
	}
	if exports != nil {
		printExports(os.Stdout, exports)
	}
	if o.only == "" {
		hooks, err := benchWebhooks(ctx, o.rootDSN, o.hooks, o.hookRate)
		if err != nil {
			return err
		}
		printWebhooks(os.Stdout, hooks)
	}
	return nil
}

// measureTable measures the rows of the one table: the lists, GET of one purchase and
// the dashboard's fragment.
func measureTable(ctx context.Context, o options, rep *report, client *http.Client, base string, apiHeader, uncached http.Header,
	bdb *sql.DB, dir, email, password string) error {
	var tz string
	if err := bdb.QueryRowContext(ctx, "SELECT timezone FROM accounts WHERE id = 1").Scan(&tz); err != nil {
		return err
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return err
	}
	b := bare{db: bdb, account: 1, loc: loc}
	v, err := findValues(ctx, bdb, 1)
	if err != nil {
		return err
	}

	// Lists.
	for _, lc := range listCases(v) {
		if !o.cases.MatchString(lc.name) {
			continue
		}
		q := url.Values{}
		for k, vs := range lc.query {
			q[k] = vs
		}
		q.Set("order", "desc")
		q.Set("per_page", "100")
		f, err := b.filterOf(q)
		if err != nil {
			return fmt.Errorf("%s: %w", lc.name, err)
		}
		cursor, matches, more, err := b.deepCursor(ctx, f)
		if err != nil {
			return fmt.Errorf("%s: %w", lc.name, err)
		}
		m := fmt.Sprint(matches)
		if more {
			m = fmt.Sprintf("> %d", deepDepth+100)
		}
		pages := []struct {
			name string
			set  func(url.Values)
		}{
			{"first", func(url.Values) {}},
			{"deep cursor", func(q url.Values) { q.Set("cursor", cursor) }},
			{"page=200", func(q url.Values) { q.Set("page", "200") }},
		}
		for _, pg := range pages {
			if pg.name == "deep cursor" && cursor == "" {
				continue
			}
			pq := url.Values{}
			for k, vs := range q {
				pq[k] = vs
			}
			pg.set(pq)
			path := "/api/v2/purchases?" + pq.Encode()
			pf, err := b.filterOf(pq)
			if err != nil {
				return fmt.Errorf("%s %s: %w", lc.name, pg.name, err)
			}
			logf("%s, %s", lc.name, pg.name)
			row := listRow{name: lc.name, page: pg.name, matches: m}
			if row.sql, err = b.time(ctx, pf, o.sqlDur); err != nil {
				return fmt.Errorf("%s %s: %w", lc.name, pg.name, err)
			}
			if row.sql32, err = b.timeConc(ctx, pf, 32, o.sqlDur); err != nil {
				return fmt.Errorf("%s %s: %w", lc.name, pg.name, err)
			}
			row.c1 = load(client, 1, o.dur, getter(base, []string{path}, uncached))
			row.c32 = load(client, 32, o.dur, getter(base, []string{path}, uncached))
			rep.rows = append(rep.rows, row)
		}
	}

	// GET one purchase, beside a bare Gin handler serving the same bytes.
	if o.cases.MatchString("get") || o.cases.String() == "" {
		if err := measureGet(ctx, o, client, base, apiHeader, uncached, bdb, dir, rep); err != nil {
			return err
		}
	}

	// The dashboard's purchases fragment.
	if o.cases.MatchString("fragment") || o.cases.String() == "" {
		cookie, err := signIn(client, base, email, password)
		if err != nil {
			return err
		}
		h := http.Header{"Hx-Request": {"true"}, "Cookie": {cookie}, "Hx-Current-Url": {base + "/purchases"}}
		var n int64
		var ref string // a payment reference half-way through the table
		if err := bdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM transactions WHERE account_id = 1").Scan(&n); err != nil {
			return err
		}
		if err := bdb.QueryRowContext(ctx, `SELECT reference FROM transactions WHERE account_id = 1 AND reference IS NOT NULL
			ORDER BY id LIMIT 1 OFFSET ?`, n/2).Scan(&ref); err != nil {
			return err
		}
		frags := []struct{ name, query string }{
			{"(none)", ""},
			{"status=RFD", "status=RFD"},
			{"customer_email=jo + storefront_id=1", "customer_email=jo&storefront_id=1"},
			// Searches that find nothing, which the page then reads for what their words
			// may have meant: a support fragment (one domain statement), and twelve words
			// that stand for nothing (a domain statement each, the most it reads).
			{"q found nothing, read whole: a domain, a date, not refunded", "q=" + url.QueryEscape("the hooli order since last monday not refunded")},
			{"q found nothing, 12 words that stand for nothing", "q=" + url.QueryEscape("zq1 zq2 zq3 zq4 zq5 zq6 zq7 zq8 zq9 zq10 zq11 zq12")},
			// A payment reference pasted bare (found nothing, then looked up as ref: and
			// key:, and as a domain), and the same as ref:, which finds its purchase.
			{"q found nothing, a payment reference pasted bare", "q=" + url.QueryEscape(ref)},
			{"q ref: (one purchase)", "q=" + url.QueryEscape("ref:"+ref)},
		}
		for _, fr := range frags {
			logf("dashboard fragment %s", fr.name)
			path := []string{"/purchases?" + fr.query}
			rep.fragments = append(rep.fragments, fragRow{name: fr.name,
				c1:  load(client, 1, o.dur, getter(base, path, h)),
				c32: load(client, 32, o.dur, getter(base, path, h))})
		}
	}

	// The overview (from the rollups) and the customer pages beside the purchases
	// page's first page, all whole pages as a browser asks for them, in the same run.
	overview := o.cases.MatchString("overview") || o.cases.String() == ""
	customers := o.cases.MatchString("customer") || o.cases.String() == ""
	if overview || customers {
		cookie, err := signIn(client, base, email, password)
		if err != nil {
			return err
		}
		h := http.Header{"Cookie": {cookie}}
		pages := []struct{ name, path string }{{"purchases page, first page", "/purchases"}}
		if overview {
			pages = append(pages, []struct{ name, path string }{
				{"overview, last 30 days", "/"},
				{"overview, a year to now (weekly, ragged ends)", "/?date_min=-1+year&date_max=now"},
				{"overview, 90 days of storefront 1", "/?date_min=today+-89+days&date_max=tomorrow&storefront_id=1"},
			}...)
		}
		if customers {
			most, single, err := customerEmails(ctx, bdb, 1)
			if err != nil {
				return err
			}
			pages = append(pages, []struct{ name, path string }{
				{fmt.Sprintf("customer page, most purchases (%d)", most.purchases), "/customers/" + url.PathEscape(most.email)},
				{"customer page, one purchase", "/customers/" + url.PathEscape(single.email)},
			}...)
		}
		for _, pg := range pages {
			logf("dashboard page %s", pg.name)
			path := []string{pg.path}
			row := fragRow{name: pg.name,
				c1:  load(client, 1, o.dur, getter(base, path, h)),
				c32: load(client, 32, o.dur, getter(base, path, h))}
			if strings.HasPrefix(pg.name, "customer page") {
				row.paired, row.ref = pairedRun(client, base, pg.path, pages[0].path, h, o.dur)
			}
			rep.pages = append(rep.pages, row)
		}
	}

	return nil
}

// customerOf is an address of the account and how many purchases it has.
type customerOf struct {
	email     string
	purchases int64
}

// customerEmails finds the account's address with the most purchases and one with a
// single purchase, grouped as the customer page compares addresses (the column's
// collation: case and accents ignored).
func customerEmails(ctx context.Context, db *sql.DB, account int64) (most, single customerOf, err error) {
	err = db.QueryRowContext(ctx, `SELECT MIN(buyer_email), COUNT(*) n FROM purchases
		WHERE account_id = ? AND buyer_email IS NOT NULL AND buyer_email <> ''
		GROUP BY buyer_email ORDER BY n DESC, MIN(buyer_email) LIMIT 1`, account).Scan(&most.email, &most.purchases)
	if err != nil {
		return most, single, fmt.Errorf("the customer with the most purchases: %w", err)
	}
	err = db.QueryRowContext(ctx, `SELECT MIN(buyer_email), COUNT(*) n FROM purchases
		WHERE account_id = ? AND buyer_email IS NOT NULL AND buyer_email <> ''
		GROUP BY buyer_email HAVING n = 1 ORDER BY MIN(buyer_email) LIMIT 1`, account).Scan(&single.email, &single.purchases)
	if err != nil {
		return most, single, fmt.Errorf("a customer with one purchase: %w", err)
	}
	return most, single, nil
}

// server is the storefront server under test.
type server struct {
	cmd  *exec.Cmd
	done chan error
}

func startServer(ctx context.Context, t tool, o options, env ...string) (*server, error) {
	cmd := exec.Command(t.bin, "serve")
	cmd.Env = t.env(o.db, append([]string{"STOREFRONT_RATE_LIMIT=0", "STOREFRONT_ADDR=" + o.addr, "STOREFRONT_BASE_URL=http://" + o.addr,
		"STOREFRONT_SESSION_KEY=" + strings.Repeat("5b", 32)}, env...)...)
	logPath := filepath.Join(os.TempDir(), "storefront-bench-server.log")
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait(); lf.Close() }()
	logf("server pid %d on %s, log in %s", cmd.Process.Pid, o.addr, logPath)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("the server stopped at start (%v); see %s", err, logPath)
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := http.Get("http://" + o.addr + "/api/v2")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
	}
	s.stop()
	return nil, fmt.Errorf("the server did not answer within a minute; see %s", logPath)
}

func (s *server) stop() {
	if s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// signIn posts the sign-in form and returns the session cookie.
func signIn(client *http.Client, base, email, password string) (string, error) {
	resp, err := client.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}, "next": {"/purchases"}})
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		return "", fmt.Errorf("sign-in: status %d", resp.StatusCode)
	}
	var parts []string
	for _, c := range resp.Cookies() {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; "), nil
}

// measureGet times GET /api/v2/purchases/:id over a set of ids, then the bare Gin
// handler serving the bytes the server answered for the same ids.
func measureGet(ctx context.Context, o options, client *http.Client, base string, h, uncached http.Header, bdb *sql.DB, dir string, rep *report) error {
	ids, err := purchaseIDs(ctx, bdb, "SELECT id FROM purchases WHERE account_id = 1 AND id % 1999 = 0 ORDER BY id LIMIT 400")
	if err != nil {
		return err
	}
	paths := purchasePaths(ids)
	bodies := map[string]string{}
	get := getter(base, paths, h)
	for i, id := range ids {
		body, err := fetch(client, get(i))
		if err != nil {
			return err
		}
		bodies[strconv.FormatInt(id, 10)] = body
	}
	// The first list page, kept for the bare handler (it answers a page as stored).
	listPath := "/api/v2/purchases?order=desc&per_page=100"
	listGet := getter(base, []string{listPath}, h)
	if bodies["list"], err = fetch(client, listGet(0)); err != nil {
		return err
	}
	logf("GET purchase: %d ids, validated cache, then uncached", len(paths))
	rep.getAPI1 = load(client, 1, o.dur, get)
	rep.getAPI = load(client, 32, o.dur, get)
	getU := getter(base, paths, uncached)
	rep.getAPIU1 = load(client, 1, o.dur, getU)
	rep.getAPIU = load(client, 32, o.dur, getU)

	logf("GET purchase: bare SQL")
	b := bare{db: bdb, account: 1}
	one := func(n int) error { return b.getOne(ctx, ids[n%len(ids)]) }
	if rep.getSQL1, err = loop(1, o.dur, one); err != nil {
		return err
	}
	if rep.getSQL, err = loop(32, o.dur, one); err != nil {
		return err
	}

	file := filepath.Join(dir, "bodies.json")
	raw, _ := json.Marshal(bodies)
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "bare-gin", o.ginAddr, file)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ginBase := "http://" + o.ginAddr
	for i := 0; ; i++ {
		resp, err := http.Get(ginBase + paths[0])
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 100 {
			return fmt.Errorf("bare Gin handler did not start: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	logf("GET purchase: bare Gin")
	gget := getter(ginBase, paths, nil)
	rep.getGin1 = load(client, 1, o.dur, gget)
	rep.getGin = load(client, 32, o.dur, gget)
	logf("first list page: API (validated cache, uncached) and bare Gin at 32 clients")
	rep.listAPI = load(client, 32, o.dur, listGet)
	rep.listAPIU = load(client, 32, o.dur, getter(base, []string{listPath}, uncached))
	rep.listGin = load(client, 32, o.dur, getter(ginBase, []string{listPath}, nil))
	return nil
}

// bareGin serves, from memory, the answers saved in file (a JSON object from purchase
// id to body, and "list" to the first list page's) at /api/v2/purchases/:id and
// /api/v2/purchases: the ceiling of a Gin handler on this machine.
func bareGin(addr, file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return err
	}
	bodies := make(map[string][]byte, len(m))
	for k, v := range m {
		bodies[k] = []byte(v)
	}
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.GET("/api/v2/purchases", func(c *gin.Context) {
		c.Data(http.StatusOK, "application/json; charset=utf-8", bodies["list"])
	})
	r.GET("/api/v2/purchases/:id", func(c *gin.Context) {
		b, ok := bodies[c.Param("id")]
		if !ok {
			c.Status(http.StatusNotFound)
			return
		}
		c.Data(http.StatusOK, "application/json; charset=utf-8", b)
	})
	return http.ListenAndServe(addr, r)
}

// gitCommit names the commit of the code measured, "-dirty" when the worktree has
// changes; "?" outside a git checkout.
func gitCommit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty", "--abbrev=12").Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
