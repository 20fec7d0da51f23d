package faults_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Kinds of request the traffic sends.
const (
	kindList       = "list"
	kindGet        = "get"
	kindReactivate = "reactivate"
	kindPage       = "page" // a dashboard page, signed in
)

// traffic is a mix of API requests against one server: 80% lists with varied
// filters, 15% single purchases, 5% reactivations, and optionally some dashboard pages.
type traffic struct {
	base   string
	client *http.Client
	key    string
	ids    accountIDs
	// pagePercent of the requests are dashboard pages (the client must be signed in).
	pagePercent int
}

// outcome is one request's result.
type outcome struct {
	kind       string
	start, end time.Time
	status     int // 0 when err is set
	err        error
	retryAfter string
	rateLimit  string // the RateLimit-Limit header
	body       string // of a non-2xx answer, cut short
}

// listQuery returns the query of a list request with varied filters
// (docs/API.md#get-apiv2purchases).
func (tr *traffic) listQuery(r *rand.Rand) string {
	v := url.Values{}
	sf := tr.ids.storefronts[r.IntN(len(tr.ids.storefronts))]
	switch r.IntN(14) {
	case 0:
	case 1:
		v.Set("status", "ACT")
	case 2:
		v.Set("status", "act,rfd")
		v.Set("order", "desc")
	case 3:
		v.Set("storefront_id", fmt.Sprint(sf))
		v.Set("per_page", "50")
	case 4:
		v.Set("customer_email", string(rune('a'+r.IntN(26))))
	case 5:
		v.Set("total", fmt.Sprintf("%d.%02d", r.IntN(100), r.IntN(100)))
		v.Set("total_op", []string{"gt", "lt", "ne"}[r.IntN(3)])
	case 6:
		v.Set("date_min", "-30 days")
		v.Set("order", "desc")
	case 7:
		v.Set("date_min", "first day of last month")
		v.Set("date_max", "today")
	case 8:
		v.Set("ship", "1")
	case 9:
		v.Set("status", "ACT")
		v.Set("include_count", "1")
		v.Set("per_page", "20")
	case 10:
		v.Set("product_id", fmt.Sprint(tr.ids.products[r.IntN(len(tr.ids.products))]))
	case 11:
		v.Set("page", fmt.Sprint(1+r.IntN(5)))
		v.Set("per_page", "20")
	case 12:
		v.Set("customer_last_name", string(rune('a'+r.IntN(26))))
		v.Set("storefront_id", fmt.Sprint(sf))
	case 13:
		v.Set("per_page", "500")
		v.Set("status", "PND,ERR,HLD")
	}
	return v.Encode()
}

// request builds the next request: its kind and the *http.Request.
func (tr *traffic) request(ctx context.Context, r *rand.Rand) (string, *http.Request) {
	n := r.IntN(100)
	var kind, method, target string
	var body io.Reader
	switch {
	case n < tr.pagePercent:
		kind, method = kindPage, http.MethodGet
		if r.IntN(2) == 0 {
			target = "/purchases?" + tr.listQuery(r)
		} else {
			target = fmt.Sprintf("/purchases/%d", tr.ids.purchases[r.IntN(len(tr.ids.purchases))])
		}
	case n < tr.pagePercent+(100-tr.pagePercent)*80/100:
		kind, method, target = kindList, http.MethodGet, "/api/v2/purchases?"+tr.listQuery(r)
	case n < tr.pagePercent+(100-tr.pagePercent)*95/100:
		kind, method = kindGet, http.MethodGet
		target = fmt.Sprintf("/api/v2/purchases/%d", tr.ids.purchases[r.IntN(len(tr.ids.purchases))])
	default:
		kind, method = kindReactivate, http.MethodPost
		target = fmt.Sprintf("/api/v2/purchases/%d/reactivate", tr.ids.reactivable[r.IntN(len(tr.ids.reactivable))])
		body = strings.NewReader("refulfill=0")
	}
	req, _ := http.NewRequestWithContext(ctx, method, tr.base+target, body)
	if kind != kindPage {
		req.Header.Set("Authorization", "Bearer "+tr.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Idempotency-Key", randomKey())
	}
	return kind, req
}

// do sends one request and reads the whole answer.
func (tr *traffic) do(kind string, req *http.Request) outcome {
	o := outcome{kind: kind, start: time.Now()}
	resp, err := tr.client.Do(req)
	if err != nil {
		o.end, o.err = time.Now(), err
		return o
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	o.end, o.status = time.Now(), resp.StatusCode
	if err != nil {
		o.err = fmt.Errorf("read body: %w", err)
	}
	o.retryAfter = resp.Header.Get("Retry-After")
	o.rateLimit = resp.Header.Get("RateLimit-Limit")
	if resp.StatusCode >= 300 {
		o.body = string(b[:min(len(b), 4000)])
	}
	return o
}

// run sends requests from workers concurrent clients until ctx ends, handing each
// outcome to record (called concurrently). Requests in flight when ctx ends are
// finished, not cancelled: the clients stop sending new ones.
func (tr *traffic) run(ctx context.Context, workers int, record func(outcome)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w)+1, uint64(time.Now().UnixNano())))
			for ctx.Err() == nil {
				kind, req := tr.request(context.Background(), r)
				record(tr.do(kind, req))
			}
		}()
	}
	wg.Wait()
}

// tally counts outcomes by kind and status.
type tally struct {
	mu        sync.Mutex
	n         int
	byKind    map[string]int
	byStatus  map[int]int
	errors    []outcome // transport errors and unexpected statuses (first 20 kept)
	nErrors   int
	latencies map[string][]time.Duration
}

func newTally() *tally {
	return &tally{byKind: map[string]int{}, byStatus: map[int]int{}, latencies: map[string][]time.Duration{}}
}

// add records o; ok says whether it counts as a success.
func (t *tally) add(o outcome, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	t.byKind[o.kind]++
	t.byStatus[o.status]++
	t.latencies[o.kind] = append(t.latencies[o.kind], o.end.Sub(o.start))
	if !ok {
		t.nErrors++
		if len(t.errors) < 20 {
			t.errors = append(t.errors, o)
		}
	}
}

func (t *tally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%d requests, %d errors; by kind:", t.n, t.nErrors)
	kinds := make([]string, 0, len(t.byKind))
	for k := range t.byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		l := t.latencies[k]
		sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
		fmt.Fprintf(&b, " %s=%d (p50 %s, p99 %s)", k, t.byKind[k], pct(l, 50), pct(l, 99))
	}
	b.WriteString("; by status:")
	codes := make([]int, 0, len(t.byStatus))
	for c := range t.byStatus {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	for _, c := range codes {
		fmt.Fprintf(&b, " %d=%d", c, t.byStatus[c])
	}
	for _, o := range t.errors {
		fmt.Fprintf(&b, "\n  %s at %s: status %d err %v body %.300s", o.kind, o.start.Format("15:04:05.000"), o.status, o.err, o.body)
	}
	return b.String()
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, len(sorted)*p/100)].Round(100 * time.Microsecond)
}
