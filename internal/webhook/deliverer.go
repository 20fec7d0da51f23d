package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"storefront/internal/worker"
)

// traceContext writes the W3C traceparent header of an attempt.
var traceContext = propagation.TraceContext{}

// Limits of one attempt (docs/WEBHOOKS.md).
const (
	// Timeout bounds one POST, from connecting to the end of the response body.
	Timeout = 10 * time.Second
	// MaxResponse is how much of a response body is read.
	MaxResponse = 64 << 10
	// KeptResponse is how much of it the log keeps.
	KeptResponse = 2 << 10
	// RetryFor is how long a delivery is retried before it fails.
	RetryFor = 72 * time.Hour
	// UserAgent is sent with every delivery.
	UserAgent = "storefront-webhooks/1"
)

// Claimed is a delivery claimed for one attempt.
type Claimed struct {
	ID         int64
	AccountID  int64
	EndpointID int64
	EventID    string
	URL        string
	// Secrets sign the attempt: the endpoint's, then the previous one while a rotation
	// lasts.
	Secrets []string
	Body    []byte
	// TraceParent is the W3C traceparent of the work that wrote the event, when it was
	// traced; "" when not.
	TraceParent string
	// Attempt counts this attempt (1 for the first).
	Attempt    int
	LeaseUntil time.Time
	GiveUpAt   time.Time
}

// Outcome is what came of one attempt, for the log.
type Outcome struct {
	StartedAt      time.Time
	Duration       time.Duration
	RequestHeaders string
	// StatusCode is 0 when no response came.
	StatusCode   int
	Err          string
	ResponseBody []byte
	Delivered    bool
	// NextAttemptAt is when to try again; zero when the delivery has failed for good.
	NextAttemptAt time.Time
}

// Store is the outbox of deliveries (the database's webhook_deliveries table).
type Store interface {
	// ClaimDeliveries leases up to limit due deliveries until leaseUntil; no two
	// claimers get the same one. Deliveries of an endpoint that is gone or disabled
	// are failed rather than claimed.
	ClaimDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]Claimed, error)
	// RecordAttempts logs attempts and moves each delivery on (delivered, due again,
	// or failed), unless the claim's lease was taken over meanwhile. An endpoint whose
	// attempts have all failed for RetryFor is disabled and its owners told.
	RecordAttempts(ctx context.Context, results []Result) error
	// RenewDeliveries moves the lease of the claimed deliveries that the claim
	// identified by leaseUntil still holds on to newLease.
	RenewDeliveries(ctx context.Context, claimed []Claimed, leaseUntil, newLease time.Time) error
}

// Result is an attempt of a claimed delivery and its outcome.
type Result struct {
	Claimed
	Outcome
}

// Options tune a Deliverer. The zero value of each field means its default.
type Options struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Log receives failures (default slog.Default()).
	Log *slog.Logger
	// Guard checks the addresses connected to (default: public addresses only).
	Guard *Guard
	// Lease reserves a claimed delivery (default 20s); the Deliverer renews it every
	// third of it while the batch's attempts run, so that a delivery whose Deliverer
	// died is attempted again within a lease.
	Lease time.Duration
	// BatchSize is how many deliveries one claim takes (default 32).
	BatchSize int
	// Workers is how many attempts run at once (default: BatchSize, so that a batch
	// takes at most one Timeout however many of its receivers do not answer).
	Workers int
	// Timeout bounds one attempt (default Timeout).
	Timeout time.Duration
	// BackoffBase is the middle of the first wait: it is 5-15 s by default (10 s with
	// ±50% jitter), and doubles after each failure up to BackoffMax.
	BackoffBase time.Duration
	// BackoffMax caps the wait between attempts (default 6h).
	BackoffMax time.Duration
}

// Deliverer drains the deliveries' outbox, one batch a Step. Run its steps from one
// worker (internal/worker); DeliverDue is for tests and tools.
type Deliverer struct {
	store  Store
	opt    Options
	client *http.Client
	// mu serialises steps (worker.Locked).
	mu sync.Mutex
}

// NewDeliverer returns a Deliverer of the store's deliveries.
func NewDeliverer(store Store, opt Options) *Deliverer {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Guard == nil {
		opt.Guard = &Guard{}
	}
	if opt.Lease <= 0 {
		opt.Lease = 20 * time.Second
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = 32
	}
	if opt.Workers <= 0 {
		opt.Workers = opt.BatchSize
	}
	if opt.Timeout <= 0 {
		opt.Timeout = Timeout
	}
	if opt.BackoffBase <= 0 {
		opt.BackoffBase = 10 * time.Second
	}
	if opt.BackoffMax <= 0 {
		opt.BackoffMax = 6 * time.Hour
	}
	tr := &http.Transport{
		DialContext:           opt.Guard.Dialer().DialContext,
		TLSHandshakeTimeout:   opt.Timeout,
		ResponseHeaderTimeout: opt.Timeout,
		MaxIdleConnsPerHost:   opt.Workers,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
		// No proxy: a proxy would connect on our behalf, past the guard.
		Proxy: nil,
	}
	client := &http.Client{
		Transport: tr,
		Timeout:   opt.Timeout,
		// Redirects are not followed: a 3xx is an answer that is not 2xx.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &Deliverer{store: store, opt: opt, client: client}
}

// DeliverDue makes one attempt of every delivery due now, step after step, and
// returns how many attempts were delivered.
func (d *Deliverer) DeliverDue(ctx context.Context) (int, error) {
	return worker.Locked(&d.mu, d.step).Drain(ctx)
}

// Step claims one batch of due deliveries and attempts each (a worker's step); it
// reports whether a full batch was claimed, so that more may be due. Attempts under
// way when ctx ends run to their own timeout and are recorded.
func (d *Deliverer) Step(ctx context.Context) (bool, error) {
	return worker.Locked(&d.mu, d.step).Step(ctx)
}

// step is the deliverer's step, run holding d.mu.
func (d *Deliverer) step(ctx context.Context) (delivered int, more bool, err error) {
	now := d.opt.Now()
	batch, err := d.store.ClaimDeliveries(ctx, now, now.Add(d.opt.Lease), d.opt.BatchSize)
	if err != nil {
		return 0, false, fmt.Errorf("claim deliveries: %w", err)
	}
	if len(batch) == 0 {
		return 0, false, nil
	}
	lease := batch[0].LeaseUntil
	stopRenewing := worker.KeepLeased(ctx, d.opt.Lease/3, d.opt.Log, func(rctx context.Context) error {
		next := d.opt.Now().Add(d.opt.Lease)
		if err := d.store.RenewDeliveries(rctx, batch, lease, next); err != nil {
			return fmt.Errorf("renew the lease of %d webhook deliveries: %w", len(batch), err)
		}
		lease = next
		return nil
	})
	var (
		wg      sync.WaitGroup
		sem     = make(chan struct{}, d.opt.Workers)
		results = make([]Result, len(batch))
	)
	for i, c := range batch {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			results[i] = Result{c, d.attempt(ctx, c)}
		}()
	}
	wg.Wait()
	// The renewals have stopped: lease is the claim's now.
	stopRenewing()
	for i := range results {
		results[i].LeaseUntil = lease
		if results[i].Delivered {
			delivered++
		}
	}
	// One transaction records the batch. Attempts under way when ctx ended ran to
	// their own timeout and are recorded: one left unrecorded is made again.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	err = d.store.RecordAttempts(rctx, results)
	cancel()
	if err != nil {
		// The leases lapse and the deliveries are attempted again: at least once.
		d.opt.Log.Warn("webhook outbox: recording attempts failed; they are made again when their lease lapses", "count", len(results), "err", err)
	}
	return delivered, len(batch) == d.opt.BatchSize, nil
}

// attempt POSTs one claimed delivery and returns the outcome, with the time of the
// next attempt when it failed.
func (d *Deliverer) attempt(ctx context.Context, c Claimed) (a Outcome) {
	// The attempt's span is sent to the receiver as its traceparent (post).
	ctx, span := worker.StartSpan(ctx, "webhook deliver", c.TraceParent, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		attribute.Int64("storefront.webhook.delivery_id", c.ID), attribute.String("storefront.webhook.event_id", c.EventID),
		attribute.Int64("storefront.webhook.endpoint_id", c.EndpointID), attribute.Int("storefront.webhook.attempt", c.Attempt),
		attribute.Int64("storefront.account_id", c.AccountID), attribute.String("http.request.method", http.MethodPost)))
	defer func() {
		if a.StatusCode != 0 {
			span.SetAttributes(attribute.Int("http.response.status_code", a.StatusCode))
		}
		span.SetAttributes(attribute.Bool("storefront.webhook.delivered", a.Delivered))
		if !a.Delivered {
			span.SetStatus(codes.Error, a.Err)
		}
		span.End()
	}()
	// An attempt under way when ctx ends runs to its own timeout: one cut off would be
	// sent again.
	a = d.post(context.WithoutCancel(ctx), c)
	if !a.Delivered {
		next := a.StartedAt.Add(d.Backoff(c.Attempt))
		if next.Before(c.GiveUpAt) {
			a.NextAttemptAt = next
		}
		d.opt.Log.Warn("webhook not delivered", "delivery", c.ID, "event", c.EventID, "attempt", c.Attempt,
			"status", a.StatusCode, "err", a.Err, "next_attempt_at", a.NextAttemptAt)
	}
	return a
}

// post makes the HTTP request of one attempt.
func (d *Deliverer) post(ctx context.Context, c Claimed) Outcome {
	start := d.opt.Now()
	a := Outcome{StartedAt: start}
	ts := start.Unix()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(c.Body))
	if err != nil {
		a.Err = "the URL cannot be requested: " + err.Error()
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Storefront-Event-Id", c.EventID)
	req.Header.Set("Storefront-Signature", SignatureHeader(ts, c.Body, c.Secrets...))
	// The attempt's span, when traced: the receiver's spans join the trace.
	traceContext.Inject(ctx, propagation.HeaderCarrier(req.Header))
	a.RequestHeaders = headerText(req.Header)
	t0 := time.Now()
	resp, err := d.client.Do(req)
	if err == nil {
		var body []byte
		body, err = io.ReadAll(io.LimitReader(resp.Body, MaxResponse))
		resp.Body.Close()
		a.StatusCode = resp.StatusCode
		a.ResponseBody = body[:min(len(body), KeptResponse)]
		a.Delivered = resp.StatusCode >= 200 && resp.StatusCode < 300
		if err != nil && a.Delivered {
			// A 2xx whose body broke off still reached the receiver.
			err = nil
		}
	}
	a.Duration = time.Since(t0)
	if err != nil {
		a.Err = describe(err)
	} else if !a.Delivered {
		a.Err = "the receiver answered " + strconv.Itoa(a.StatusCode) + " " + http.StatusText(a.StatusCode)
	}
	return a
}

// describe turns a client error into a sentence for the log.
func describe(err error) string {
	var ne net.Error
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			return "refused: " + oe.Err.Error()
		}
		return "refused: " + err.Error()
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return "timed out (no answer within 10 seconds)"
	}
	msg := err.Error()
	if len(msg) > 1000 {
		msg = msg[:1000]
	}
	return msg
}

// headerText writes headers one a line, sorted, for the log.
func headerText(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range h[k] {
			b.WriteString(k + ": " + v + "\n")
		}
	}
	return b.String()
}

// Backoff is the wait after the given failed attempt (1 for the first): BackoffBase
// doubled for each attempt after the first, capped at BackoffMax, with ±50% jitter so
// that deliveries that failed together do not come back together. It never exceeds
// BackoffMax.
func (d *Deliverer) Backoff(attempt int) time.Duration {
	w := d.opt.BackoffBase
	for i := 1; i < attempt && w < d.opt.BackoffMax; i++ {
		w *= 2
	}
	w = min(w, d.opt.BackoffMax)
	j := time.Duration(float64(w) * (0.5 + rand.Float64()))
	return min(j, d.opt.BackoffMax)
}
