package main

import (
	"context"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"storefront/internal/mail"
	"storefront/internal/webhook"
)

// workMetrics count what the background workers do (docs/OPERATIONS.md#metrics); nil
// counts nothing.
type workMetrics struct {
	emails     *prometheus.CounterVec
	deliveries *prometheus.CounterVec
}

// newRegistry makes the registry /metrics serves: the Go runtime's and the process's
// metrics, and the workers'.
func newRegistry() (*prometheus.Registry, *workMetrics) {
	reg := prometheus.NewRegistry()
	w := &workMetrics{
		emails: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_emails_total", Help: "E-mail send attempts, by outcome: sent, retry (tried again later) or failed (given up).",
		}, []string{"outcome"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_webhook_deliveries_total", Help: "Webhook delivery attempts, by outcome: delivered, retry (tried again later) or failed (given up).",
		}, []string{"outcome"}),
	}
	// Every outcome is there from the start, at 0, so that rates over them are defined.
	for _, o := range []string{"sent", "retry", "failed"} {
		w.emails.WithLabelValues(o)
	}
	for _, o := range []string{"delivered", "retry", "failed"} {
		w.deliveries.WithLabelValues(o)
	}
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), w.emails, w.deliveries)
	return reg, w
}

// metricsHandler serves the registry at /metrics, and nothing else.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return mux
}

// countedOutbox counts the e-mails' outcomes as the sender records them.
type countedOutbox struct {
	mail.Outbox
	m *workMetrics
}

func (o countedOutbox) MarkEmailSent(ctx context.Context, id int64, subject string, at time.Time) error {
	err := o.Outbox.MarkEmailSent(ctx, id, subject, at)
	if err == nil {
		o.m.emails.WithLabelValues("sent").Inc()
	}
	return err
}

func (o countedOutbox) RetryEmail(ctx context.Context, id int64, leaseUntil, next time.Time, lastErr string, unreachable bool) (bool, error) {
	ok, err := o.Outbox.RetryEmail(ctx, id, leaseUntil, next, lastErr, unreachable)
	if ok {
		o.m.emails.WithLabelValues("retry").Inc()
	}
	return ok, err
}

func (o countedOutbox) FailEmail(ctx context.Context, id int64, leaseUntil time.Time, lastErr string) (bool, error) {
	ok, err := o.Outbox.FailEmail(ctx, id, leaseUntil, lastErr)
	if ok {
		o.m.emails.WithLabelValues("failed").Inc()
	}
	return ok, err
}

// countedDeliveries counts the webhook attempts' outcomes as the deliverer records them.
type countedDeliveries struct {
	webhook.Store
	m *workMetrics
}

func (s countedDeliveries) RecordAttempts(ctx context.Context, results []webhook.Result) error {
	if err := s.Store.RecordAttempts(ctx, results); err != nil {
		return err
	}
	for _, r := range results {
		switch {
		case r.Delivered:
			s.m.deliveries.WithLabelValues("delivered").Inc()
		case r.NextAttemptAt.IsZero():
			s.m.deliveries.WithLabelValues("failed").Inc()
		default:
			s.m.deliveries.WithLabelValues("retry").Inc()
		}
	}
	return nil
}
