package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/internal/webhook"
	"storefront/internal/worker"
)

// hookReport is what the webhook part measures (docs/WEBHOOKS.md).
type hookReport struct {
	drainN  int
	drain   time.Duration
	pacedN  int
	rate    int
	latency []time.Duration
	writers int
}

// hookReceiver is a webhook endpoint on loopback that checks each signature and notes
// when each purchase's event arrived.
type hookReceiver struct {
	secret  string
	mu      sync.Mutex
	arrived map[int64]time.Time
	bad     int
	got     chan struct{}
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	at := time.Now()
	sig := r.Header.Get("Storefront-Signature")
	ts, v1, _ := strings.Cut(strings.TrimPrefix(sig, "t="), ",v1=")
	m := hmac.New(sha256.New, []byte(h.secret))
	m.Write([]byte(ts + "."))
	m.Write(body)
	var e struct {
		Data struct {
			Object struct {
				ID int64 `json:"id"`
			} `json:"object"`
		} `json:"data"`
	}
	ok := hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(v1)) && json.Unmarshal(body, &e) == nil
	h.mu.Lock()
	if !ok {
		h.bad++
	} else if _, seen := h.arrived[e.Data.Object.ID]; !seen {
		h.arrived[e.Data.Object.ID] = at
	}
	h.mu.Unlock()
	if !ok {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	select {
	case h.got <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

func (h *hookReceiver) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.arrived)
}

// benchWebhooks measures webhook delivery to a receiver on loopback, on a scratch
// database of n reactivatable purchases: the rate at which a backlog of n/2
// purchase.reactivated events is delivered, and the latency from a reactivation's
// commit to its event's arrival while reactivations come at a steady rate.
func benchWebhooks(ctx context.Context, rootDSN string, n, rate int) (*hookReport, error) {
	root, err := openDB(ctx, rootDSN)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	const name = "storefront_bench_hooks"
	for _, q := range []string{"DROP DATABASE IF EXISTS " + name, "CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"} {
		if _, err := root.ExecContext(ctx, q); err != nil {
			return nil, err
		}
	}
	defer root.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name)
	db, err := mysql.Open(ctx, rootDSN+name)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return nil, err
	}
	logf("webhooks: %d purchases into %s", n, name)
	var doc strings.Builder
	doc.WriteString(`{"accounts":[{"id":1,"name":"Hooks","api_username":"hooks","timezone":"UTC"}],` +
		`"storefronts":[{"id":1,"account_id":1,"name":"Hooks","download_limit":3,"download_days":30,"currency":"USD"}],"purchases":[`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"id":%d,"created_at":1700000000,"updated_at":1700000000,"storefront_id":1,"salt":"s%d","status":"PND",`+
			`"currency":"USD","subtotal":"10.00","discount":"0.00","tax":"0.00","shipping":"0.00","total":"10.00","customer":null,`+
			`"buyer_email":"buyer%d@example.com","custom_fields":[],"requires_shipping":false,"line_items":[{"id":%d,"purchase_id":%d,"product_id":7,`+
			`"price":"10.00","quantity":1,"subtotal":"10.00","tax":"0.00","discount":"0.00","total":"10.00","product_name":"P","download_limit":3,`+
			`"download_count":0,"expires_at":null,"product_keys":[],"has_all_keys":true}],"coupons":[],"marketing_optin":false,"transactions":[]}`,
			i, i, i, i, i)
	}
	doc.WriteString("]}")
	if _, err := importer.Run(ctx, db, strings.NewReader(doc.String()), io.Discard); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}

	guard := &webhook.Guard{AllowPrivate: true}
	db.WebhookGuard = guard
	rcv := &hookReceiver{arrived: map[int64]time.Time{}, got: make(chan struct{}, 1)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := &http.Server{Handler: rcv}
	go hs.Serve(ln)
	defer hs.Close()
	_, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, "http://"+ln.Addr().String()+"/hooks", []string{shop.EventPurchaseReactivated})
	if err != nil {
		return nil, err
	}
	rcv.secret = secret
	opt := webhook.Options{Guard: guard, Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))}
	d := webhook.NewDeliverer(mysql.NewWebhookDeliveryStore(db), opt)
	rep := &hookReport{drainN: n / 2, pacedN: n - n/2, rate: rate, writers: 4}

	reactivate := func(id int64) error {
		_, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: id, Actor: "bench"})
		return err
	}
	// A backlog: events committed while no deliverer runs, then drained.
	logf("webhooks: %d events queued, then delivered", rep.drainN)
	var wg sync.WaitGroup
	errs := make(chan error, rep.writers)
	for w := 0; w < rep.writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := int64(1 + w); id <= int64(rep.drainN); id += int64(rep.writers) {
				if err := reactivate(id); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-errs:
		return nil, err
	default:
	}
	start := time.Now()
	for rcv.count() < rep.drainN {
		if _, err := d.DeliverDue(ctx); err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	rep.drain = time.Since(start)

	// Steady traffic: a running deliverer, woken by each commit.
	logf("webhooks: %d events at %d/s, commit to delivery", rep.pacedN, rate)
	w := worker.New(mysql.WorkWebhooks, d.Step, worker.Options{})
	db.Wake = func(work ...string) {
		if slices.Contains(work, mysql.WorkWebhooks) {
			w.Wake()
		}
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(rctx) }()
	committed := map[int64]time.Time{}
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for id := int64(rep.drainN + 1); id <= int64(n); id++ {
		<-tick.C
		if err := reactivate(id); err != nil {
			stop()
			return nil, err
		}
		committed[id] = time.Now()
	}
	tick.Stop()
	deadline := time.Now().Add(30 * time.Second)
	for rcv.count() < n && time.Now().Before(deadline) {
		select {
		case <-rcv.got:
		case <-time.After(100 * time.Millisecond):
		}
	}
	stop()
	<-done
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if rcv.bad > 0 {
		return nil, fmt.Errorf("webhooks: %d deliveries failed the signature check", rcv.bad)
	}
	for id, c := range committed {
		if a, ok := rcv.arrived[id]; ok {
			rep.latency = append(rep.latency, a.Sub(c))
		}
	}
	if len(rep.latency) != rep.pacedN {
		return nil, fmt.Errorf("webhooks: %d of %d events arrived within 30 s", len(rep.latency), rep.pacedN)
	}
	slices.Sort(rep.latency)
	return rep, nil
}

// printWebhooks writes the webhook part's table.
func printWebhooks(w io.Writer, r *hookReport) {
	pct := func(p float64) time.Duration { return r.latency[min(len(r.latency)-1, int(p*float64(len(r.latency))))] }
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| webhooks (receiver on loopback, one endpoint, `purchase.reactivated`) | figure |")
	fmt.Fprintln(w, "|---|---:|")
	fmt.Fprintf(w, "| backlog of %d events delivered (one deliverer, batches of %d attempted at once) | %.0f events/s |\n",
		r.drainN, 32, float64(r.drainN)/r.drain.Seconds())
	fmt.Fprintf(w, "| commit → delivery at %d events/s, %d events: p50 | %s ms |\n", r.rate, r.pacedN, ms(pct(0.5)))
	fmt.Fprintf(w, "| commit → delivery: p99 | %s ms |\n", ms(pct(0.99)))
	fmt.Fprintf(w, "| commit → delivery: max | %s ms |\n", ms(r.latency[len(r.latency)-1]))
}
