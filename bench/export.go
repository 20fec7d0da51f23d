package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"slices"
	"time"
)

// exportRow is one measured CSV export (docs/API.md#get-apiv2purchasescsv): the whole
// file once, read as fast as the client can, and the time to its first byte beside
// that of the first JSON page of the same filters.
type exportRow struct {
	name, query    string
	rows, bytes    int64
	want           int64 // purchases the filters match, from the database
	dur            time.Duration
	ttfb, jsonTTFB time.Duration // medians
	rssBefore      int64
	rssPeak, hwm   int64
	// cpu is the server's CPU time during the whole file: what the export costs the
	// server itself, which the machine's other load changes less than the time.
	cpu time.Duration
}

// exportCases are the exports measured: every purchase of the bench account, per
// purchase and per line item, and one filtered export.
var exportCases = []struct{ name, query, count string }{
	{"all purchases, oldest first", "", "SELECT COUNT(*) FROM purchases WHERE account_id = 1"},
	{"all purchases, newest first", "order=desc", "SELECT COUNT(*) FROM purchases WHERE account_id = 1"},
	{"all line items", "rows=line_items", ""},
	{"status=ACT, newest first", "status=ACT&order=desc", "SELECT COUNT(*) FROM purchases WHERE account_id = 1 AND status = 'ACT'"},
}

// ttfbSamples is how many first bytes are timed for each median.
const ttfbSamples = 15

// measureExports runs each export case: the medians of the time to first byte of the
// CSV (each request closed after its first bytes, which also stops the server's read)
// and of the first JSON page read from the database (Cache-Control: no-cache, as every
// list measurement of the bench is: an export never comes from the kept answers, and
// a kept page costs one read of the account's version), then the whole file once while
// the server's resident memory is sampled.
func measureExports(ctx context.Context, o options, base string, h http.Header, bdb *sql.DB, pid int) ([]exportRow, error) {
	// No time limit: a whole export takes longer than a page.
	client := &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
	var out []exportRow
	for _, c := range exportCases {
		if !o.cases.MatchString(c.name) {
			continue
		}
		row := exportRow{name: c.name, query: c.query, want: -1}
		if c.count != "" {
			if err := bdb.QueryRowContext(ctx, c.count).Scan(&row.want); err != nil {
				return nil, err
			}
		}
		jsonPath := "/api/v2/purchases"
		if q := withoutRows(c.query); q != "" {
			jsonPath += "?" + q
		}
		csvPath := "/api/v2/purchases.csv"
		if c.query != "" {
			csvPath += "?" + c.query
		}
		logf("export %s: time to first byte", c.name)
		jh := h.Clone()
		jh.Set("Cache-Control", "no-cache")
		var js, cs []time.Duration
		for range ttfbSamples {
			d, err := firstByte(ctx, client, base+jsonPath, jh, false)
			if err != nil {
				return nil, err
			}
			js = append(js, d)
			if d, err = firstByte(ctx, client, base+csvPath, h, true); err != nil {
				return nil, err
			}
			cs = append(cs, d)
		}
		row.jsonTTFB, row.ttfb = median(js), median(cs)

		logf("export %s: the whole file", c.name)
		// Let the server return what the aborted requests left.
		time.Sleep(2 * time.Second)
		row.rssBefore = procStatus(pid, "VmRSS")
		rss := startRSS(pid)
		cpu0 := procCPU(pid)
		start := time.Now()
		n, size, err := readExport(ctx, client, base+csvPath, h)
		row.dur = time.Since(start)
		row.cpu = procCPU(pid) - cpu0
		row.rssPeak, row.hwm = rss.Stop()
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", c.name, err)
		}
		row.rows, row.bytes = n, size
		if row.want >= 0 && row.want != n {
			return nil, fmt.Errorf("export %s: %d rows, but the database holds %d matching purchases", c.name, n, row.want)
		}
		out = append(out, row)
	}
	return out, nil
}

func withoutRows(q string) string {
	if q == "rows=line_items" {
		return ""
	}
	return q
}

// firstByte times a GET to the first byte of its answer; a CSV request is closed right
// after it.
func firstByte(ctx context.Context, client *http.Client, url string, h http.Header, abort bool) (time.Duration, error) {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var first time.Time
	start := time.Now()
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { first = time.Now() }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(rctx, trace), "GET", url, nil)
	if err != nil {
		return 0, err
	}
	req.Header = h.Clone()
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 500))
		return 0, fmt.Errorf("GET %s: %d %s", url, res.StatusCode, b)
	}
	if !abort {
		_, _ = io.Copy(io.Discard, res.Body)
	}
	return first.Sub(start), nil
}

// readExport reads a whole export and returns its data rows (lines after the header)
// and bytes.
func readExport(ctx context.Context, client *http.Client, url string, h http.Header) (rows, size int64, err error) {
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return 0, 0, err
	}
	req.Header = h.Clone()
	res, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 500))
		return 0, 0, fmt.Errorf("%d %s", res.StatusCode, b)
	}
	// Rows end with CRLF; a line break inside a quoted cell is CRLF too, and the bench
	// data has none.
	r := bufio.NewReaderSize(res.Body, 1<<16)
	buf := make([]byte, 1<<16)
	var lines int64
	var last byte // the previous read's last byte: a CRLF may straddle two reads
	for {
		n, err := r.Read(buf)
		size += int64(n)
		lines += int64(bytes.Count(buf[:n], []byte("\r\n")))
		if n > 0 {
			if last == '\r' && buf[0] == '\n' {
				lines++
			}
			last = buf[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, err
		}
	}
	return lines - 1, size, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// printExports writes the export table, in markdown.
func printExports(w io.Writer, rows []exportRow) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| export (GET /api/v2/purchases.csv) | rows | MB | time | rows/s | server CPU | server µs/row | first byte p50 | first JSON page p50 | ratio | server RSS before / peak (MB) |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		q := r.query
		if q == "" {
			q = "(no parameters)"
		}
		fmt.Fprintf(w, "| %s: `%s` | %d | %.0f | %s | %.0f | %s | %.1f | %s ms | %s ms | %.2f | %d / %d |\n",
			r.name, q, r.rows, float64(r.bytes)/1e6, r.dur.Round(time.Millisecond), float64(r.rows)/r.dur.Seconds(),
			r.cpu.Round(10*time.Millisecond), float64(r.cpu.Microseconds())/float64(max(r.rows, 1)),
			ms(r.ttfb), ms(r.jsonTTFB), float64(r.ttfb)/float64(r.jsonTTFB), r.rssBefore/1024, r.rssPeak/1024)
	}
}
