package main

import (
	"context"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"storefront/internal/mail"
	"storefront/internal/mysql"
	"storefront/internal/webhook"
	"storefront/internal/worker"
)

// workerGrace is how long a stopping instance waits for the background work under way
// (an e-mail being sent, webhook attempts, a job's purchase) after its HTTP server has
// drained (docs/RELIABILITY.md#shutdown).
const workerGrace = 30 * time.Second

// workers returns the instance's background workers, one of each kind; every instance
// runs all of them, and the database hands each piece of work to one (docs/SCALING.md).
// A transaction that queues work wakes its worker when it commits (mysql.DB.Wake).
// With metrics, the e-mails' and deliveries' outcomes are counted; with tp, every step
// is traced.
func (e *env) workers(db *mysql.DB, transport mail.Transport, metrics *workMetrics, tp *sdktrace.TracerProvider) (*worker.Group, error) {
	opt := worker.Options{Log: e.log}
	if tp != nil {
		// Every step is a span (docs/OPERATIONS.md#traces).
		opt.Tracer = tp.Tracer("storefront")
	}
	// E-mails are written as they are sent, from the primary's data, with links to the
	// public URL.
	composer := &mail.Composer{Purchases: mysql.NewPurchaseService(db), Storefronts: mysql.NewAccountService(db), BaseURL: e.cfg.BaseURL}
	var outbox mail.Outbox = mysql.NewOutbox(db)
	var deliveries webhook.Store = mysql.NewWebhookDeliveryStore(db)
	if metrics != nil {
		outbox, deliveries = countedOutbox{outbox, metrics}, countedDeliveries{deliveries, metrics}
	}
	sender := mail.NewSender(outbox, composer, transport, mail.SenderOptions{Log: e.log})
	// Webhook events are delivered from their outbox (docs/WEBHOOKS.md).
	deliverer := webhook.NewDeliverer(deliveries, webhook.Options{Log: e.log, Guard: db.WebhookGuard})
	sweepOpt := opt
	sweepOpt.Poll = 5 * time.Minute
	g := worker.NewGroup(
		worker.New(mysql.WorkEmails, sender.Step, opt),
		worker.New(mysql.WorkWebhooks, deliverer.Step, opt),
		// Bulk reactivations, a purchase a step.
		worker.New(mysql.WorkJobs, mysql.NewJobService(db).RunJobStep, opt),
		worker.New("past-due", e.closePastDue(db), sweepOpt),
	)
	db.Wake = g.Wake
	return g, nil
}

// closePastDue is the step of the sweeper that closes PAST_DUE subscriptions past their
// grace period, at start and every five minutes (docs/API.md#entitlement).
func (e *env) closePastDue(db *mysql.DB) worker.Step {
	return func(ctx context.Context) (bool, error) {
		n, err := db.ClosePastDue(ctx)
		if n > 0 {
			e.log.Info("closed past-due subscriptions", "count", n)
		}
		return n == mysql.PastDueBatch, err
	}
}

// The outbox the mail sender drains, and the store its composer reads.
var (
	_ mail.Outbox           = (*mysql.Outbox)(nil)
	_ mail.PurchaseFinder   = (*mysql.PurchaseService)(nil)
	_ mail.StorefrontFinder = (*mysql.AccountService)(nil)
)
