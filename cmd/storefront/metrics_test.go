package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"storefront/internal/mail"
	"storefront/internal/webhook"
)

// fakeOutbox answers every record as the real one does when its claim holds, and fails
// when told to.
type fakeOutbox struct {
	mail.Outbox
	err error
}

func (o fakeOutbox) MarkEmailSent(context.Context, int64, string, time.Time) error { return o.err }
func (o fakeOutbox) RetryEmail(context.Context, int64, time.Time, time.Time, string, bool) (bool, error) {
	return o.err == nil, o.err
}
func (o fakeOutbox) FailEmail(context.Context, int64, time.Time, string) (bool, error) {
	return o.err == nil, o.err
}

type fakeDeliveries struct {
	webhook.Store
	err error
}

func (s fakeDeliveries) RecordAttempts(context.Context, []webhook.Result) error { return s.err }

func TestWorkMetrics(t *testing.T) {
	_, m := newRegistry()
	ctx, now := context.Background(), time.Now()
	o := countedOutbox{fakeOutbox{}, m}
	_ = o.MarkEmailSent(ctx, 1, "s", now)
	_ = o.MarkEmailSent(ctx, 2, "s", now)
	_, _ = o.RetryEmail(ctx, 3, now, now, "x", false)
	_, _ = o.FailEmail(ctx, 4, now, "x")
	broken := countedOutbox{fakeOutbox{err: errors.New("down")}, m}
	_ = broken.MarkEmailSent(ctx, 5, "s", now)
	_, _ = broken.FailEmail(ctx, 6, now, "x")
	for outcome, want := range map[string]float64{"sent": 2, "retry": 1, "failed": 1} {
		if got := testutil.ToFloat64(m.emails.WithLabelValues(outcome)); got != want {
			t.Errorf("e-mails %s: %v, want %v", outcome, got, want)
		}
	}

	results := []webhook.Result{
		{Outcome: webhook.Outcome{Delivered: true}},
		{Outcome: webhook.Outcome{NextAttemptAt: now}},
		{Outcome: webhook.Outcome{}},
		{Outcome: webhook.Outcome{Delivered: true}},
	}
	_ = countedDeliveries{fakeDeliveries{}, m}.RecordAttempts(ctx, results)
	_ = countedDeliveries{fakeDeliveries{err: errors.New("down")}, m}.RecordAttempts(ctx, results)
	for outcome, want := range map[string]float64{"delivered": 2, "retry": 1, "failed": 1} {
		if got := testutil.ToFloat64(m.deliveries.WithLabelValues(outcome)); got != want {
			t.Errorf("deliveries %s: %v, want %v", outcome, got, want)
		}
	}
}
