package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"time"

	"storefront/internal/sqlrows"
)

// observeRow is one round of the observability part (-only observe): the server with
// its metrics on and its tracing off or on.
type observeRow struct {
	name                  string
	get1, get32           stats
	list1, list32         stats
	otlpPosts, otlpBytes  int64
	serverCPU, serverWall time.Duration
}

// discardCollector is an OTLP/HTTP collector on loopback, in this process, that takes
// every export and keeps nothing but counts.
type discardCollector struct {
	srv          *httptest.Server
	posts, bytes atomic.Int64
}

func newDiscardCollector() *discardCollector {
	c := &discardCollector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		c.posts.Add(1)
		c.bytes.Add(n)
		// An empty ExportTraceServiceResponse: everything was taken.
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	return c
}

// measureObserve measures GET of one purchase and the first list page, both from the
// database (Cache-Control: no-cache), at 1 and 32 clients, with the server's metrics
// on (STOREFRONT_METRICS_ADDR) and its tracing off, then on (OTEL_EXPORTER_OTLP_ENDPOINT
// at a collector in this process that discards what it gets), in turn twice, so that
// the machine's drift falls on both. Each round starts the server afresh.
func measureObserve(ctx context.Context, o options, t tool, key string, paths []string) ([]observeRow, error) {
	col := newDiscardCollector()
	defer col.srv.Close()
	client := newClient()
	base := "http://" + o.addr
	h := http.Header{"Authorization": {"Bearer " + key}, "Cache-Control": {"no-cache"}}
	metrics := "STOREFRONT_METRICS_ADDR=" + o.metricsAddr
	var rows []observeRow
	for round := 1; round <= 2; round++ {
		for _, traced := range []bool{false, true} {
			env := []string{metrics}
			name := fmt.Sprintf("metrics on, tracing off (round %d)", round)
			if traced {
				env = append(env, "OTEL_EXPORTER_OTLP_ENDPOINT="+col.srv.URL)
				name = fmt.Sprintf("metrics on, tracing on (round %d)", round)
			}
			logf("observe: %s", name)
			srv, err := startServer(ctx, t, o, env...)
			if err != nil {
				return nil, err
			}
			posts, bytes := col.posts.Load(), col.bytes.Load()
			cpu0 := procCPU(srv.cmd.Process.Pid)
			start := time.Now()
			r := observeRow{name: name}
			get := getter(base, paths, h)
			list := getter(base, []string{"/api/v2/purchases?order=desc&per_page=100"}, h)
			r.get1 = load(client, 1, o.dur, get)
			r.get32 = load(client, 32, o.dur, get)
			r.list1 = load(client, 1, o.dur, list)
			r.list32 = load(client, 32, o.dur, list)
			r.serverCPU, r.serverWall = procCPU(srv.cmd.Process.Pid)-cpu0, time.Since(start)
			// Stopping sends the last spans.
			srv.stop()
			r.otlpPosts, r.otlpBytes = col.posts.Load()-posts, col.bytes.Load()-bytes
			rows = append(rows, r)
		}
	}
	return rows, nil
}

func printObserve(w io.Writer, rows []observeRow) {
	fmt.Fprintln(w, "| server | GET purchase, 1 client: req/s, p50, p99 | GET purchase, 32 clients: req/s, p99 | first list page, 1 client: req/s, p50, p99 | first list page, 32 clients: req/s, p99 | server CPU per request | OTLP exports received |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, r := range rows {
		n := len(r.get1.lat) + len(r.get32.lat) + len(r.list1.lat) + len(r.list32.lat)
		perReq := time.Duration(0)
		if n > 0 {
			perReq = r.serverCPU / time.Duration(n)
		}
		fmt.Fprintf(w, "| %s | %.0f/s, %s, %s ms | %.0f/s, %s ms | %.0f/s, %s, %s ms | %.0f/s, %s ms | %d µs | %d posts, %.1f MB |\n",
			r.name,
			r.get1.rps(), ms(r.get1.pct(0.5)), ms(r.get1.pct(0.99)), r.get32.rps(), ms(r.get32.pct(0.99)),
			r.list1.rps(), ms(r.list1.pct(0.5)), ms(r.list1.pct(0.99)), r.list32.rps(), ms(r.list32.pct(0.99)),
			perReq.Microseconds(), r.otlpPosts, float64(r.otlpBytes)/1e6)
		if errs := r.get1.errs + r.get32.errs + r.list1.errs + r.list32.errs; errs > 0 {
			fmt.Fprintf(os.Stderr, "observe: %s: %d requests failed\n", r.name, errs)
		}
	}
}

// purchaseIDs returns the ids of the purchases that query selects from db, and an
// error when it selects none.
func purchaseIDs(ctx context.Context, db *sql.DB, query string) ([]int64, error) {
	ids, err := sqlrows.Collect(ctx, db, sqlrows.Value[int64], query)
	if err == nil && len(ids) == 0 {
		err = fmt.Errorf("no purchases: %s", query)
	}
	return ids, err
}

// purchasePaths returns the API paths of the purchases of ids.
func purchasePaths(ids []int64) []string {
	paths := make([]string, len(ids))
	for i, id := range ids {
		paths[i] = fmt.Sprintf("/api/v2/purchases/%d", id)
	}
	return paths
}
