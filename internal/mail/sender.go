package mail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"storefront/internal/worker"
)

// SenderOptions tune a Sender. The zero value of each field means its default.
type SenderOptions struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Log receives one line per delivery failure (default slog.Default()).
	Log *slog.Logger
	// Lease is how long a claim reserves a message for this Sender (default 20s); the
	// Sender renews it every third of it while it holds the message, so that a message
	// whose Sender died is claimed again within a lease, however long a send takes.
	Lease time.Duration
	// SendTimeout bounds one delivery (default 60s).
	SendTimeout time.Duration
	// BatchSize is how many messages one claim takes (default 10).
	BatchSize int
	// MaxAttempts is how many attempts a message gets before it is marked failed
	// (default 10).
	MaxAttempts int
	// BackoffBase is the wait after the first failed attempt; each further failure
	// doubles it (default 30s).
	BackoffBase time.Duration
	// BackoffMax caps the wait between attempts (default 1h).
	BackoffMax time.Duration
	// MarkRetry is the first wait before marking a delivered message 'sent' again when
	// the database did not take the mark; it doubles up to 5s (default 100ms).
	MarkRetry time.Duration
}

// Sender drains an Outbox through a Transport, one batch a Step. Run its steps from
// one worker (internal/worker); SendDue is for tests and tools.
type Sender struct {
	outbox    Outbox
	composer  *Composer
	transport Transport
	opt       SenderOptions

	// mu serialises steps (worker.Locked) and so guards hurried.
	mu sync.Mutex
	// hurried is set once a step of the current round has made the messages that
	// waited for the mail server due (hurryWaiting); a round ends with a step that
	// leaves nothing due.
	hurried bool
}

// NewSender returns a Sender of the outbox's messages, written by composer as they
// are sent.
func NewSender(outbox Outbox, composer *Composer, transport Transport, opt SenderOptions) *Sender {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	if opt.Lease <= 0 {
		opt.Lease = 20 * time.Second
	}
	if opt.SendTimeout <= 0 {
		opt.SendTimeout = time.Minute
	}
	if opt.BatchSize <= 0 {
		opt.BatchSize = 10
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = 10
	}
	if opt.BackoffBase <= 0 {
		opt.BackoffBase = 30 * time.Second
	}
	if opt.BackoffMax <= 0 {
		opt.BackoffMax = time.Hour
	}
	if opt.MarkRetry <= 0 {
		opt.MarkRetry = 100 * time.Millisecond
	}
	return &Sender{outbox: outbox, composer: composer, transport: transport, opt: opt}
}

// SendDue sends every message due now, step after step, and returns how many were
// delivered.
func (s *Sender) SendDue(ctx context.Context) (int, error) {
	return worker.Locked(&s.mu, s.step).Drain(ctx)
}

// Step claims one batch of due messages and sends it (a worker's step): it reports
// whether more messages are due. When ctx ends it finishes the message under way and
// releases the rest of the batch.
func (s *Sender) Step(ctx context.Context) (bool, error) {
	return worker.Locked(&s.mu, s.step).Step(ctx)
}

// step is the sender's step, run holding s.mu.
func (s *Sender) step(ctx context.Context) (delivered int, more bool, err error) {
	defer func() {
		if !more {
			s.hurried = false
		}
	}()
	now := s.opt.Now()
	batch, err := s.outbox.ClaimEmails(ctx, now, now.Add(s.opt.Lease), s.opt.BatchSize, s.opt.MaxAttempts)
	if err != nil || len(batch) == 0 {
		return 0, false, err
	}
	held := newClaim(s.outbox, batch)
	stop := worker.KeepLeased(ctx, s.opt.Lease/3, s.opt.Log, func(rctx context.Context) error {
		return held.renew(rctx, s.opt.Now().Add(s.opt.Lease))
	})
	defer stop()
	for i, c := range batch {
		if ctx.Err() != nil {
			s.release(ctx, held, batch[i:])
			return delivered, false, nil
		}
		if s.deliver(ctx, held, c) {
			delivered++
		}
	}
	// A delivery went through: messages that waited for the server need not wait any
	// longer, whichever Sender saw them fail. Once a round, so that a message that
	// fails again waits for its back-off or the next round.
	if delivered > 0 && !s.hurried {
		s.hurried = true
		more = s.hurryWaiting(ctx)
	}
	return delivered, more || len(batch) == s.opt.BatchSize, nil
}

// claim is a batch of claimed messages: the lease that identifies the claim, moved on
// by renewals, and the messages not yet settled.
type claim struct {
	outbox Outbox
	// mu is held while the lease is renewed or a message's outcome recorded, so that
	// an outcome names the lease the row has.
	mu    sync.Mutex
	lease time.Time
	open  map[int64]bool
}

func newClaim(outbox Outbox, batch []Claimed) *claim {
	c := &claim{outbox: outbox, lease: batch[0].LeaseUntil, open: map[int64]bool{}}
	for _, m := range batch {
		c.open[m.ID] = true
	}
	return c
}

// renew moves the lease of the messages still open to newLease.
func (c *claim) renew(ctx context.Context, newLease time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.open) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(c.open))
	for id := range c.open {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if err := c.outbox.RenewEmails(ctx, ids, c.lease, newLease); err != nil {
		return fmt.Errorf("renew the lease of e-mails %v: %w", ids, err)
	}
	c.lease = newLease
	return nil
}

// settle records a message's outcome with fn, given the claim's lease, and takes the
// message out of the renewals.
func (c *claim) settle(id int64, fn func(lease time.Time) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := fn(c.lease)
	if err == nil {
		delete(c.open, id)
	}
	return err
}

// deliver sends one claimed message and records the outcome; it reports whether the
// message was delivered.
func (s *Sender) deliver(ctx context.Context, held *claim, c Claimed) (sent bool) {
	ctx, span := worker.StartSpan(ctx, "email send", c.TraceParent, trace.WithAttributes(
		attribute.Int64("storefront.email.id", c.ID), attribute.String("storefront.email.kind", c.Kind),
		attribute.Int("storefront.email.attempt", c.Attempts), attribute.Int64("storefront.account_id", c.AccountID)))
	defer func() {
		span.SetAttributes(attribute.Bool("storefront.email.sent", sent))
		if !sent {
			span.SetStatus(codes.Error, "not sent")
		}
		span.End()
	}()
	// Outcomes are recorded even when ctx ends meanwhile: a delivery that is not
	// recorded would be repeated.
	rctx := context.WithoutCancel(ctx)
	// A send is not cut off by shutdown either: cutting it after the server accepted
	// the message but before its reply arrives would send it twice.
	sctx, cancel := context.WithTimeout(rctx, s.opt.SendTimeout)
	// The text is written now, from the data as it is (Composer).
	subject, body, err := s.composer.Compose(sctx, c)
	composed := err == nil
	if composed {
		err = s.transport.Send(sctx, Message{ID: c.ID, To: c.To, Subject: subject, Body: body, Date: s.opt.Now()})
	}
	cancel()
	if err == nil {
		s.markSent(rctx, held, c.ID, subject, s.opt.Now())
		return true
	}
	msg := err.Error()
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	if IsPermanent(err) || c.Attempts >= s.opt.MaxAttempts {
		s.opt.Log.Error("e-mail failed; giving up", "outbox_id", c.ID, "attempts", c.Attempts, "err", err)
		if ferr := held.settle(c.ID, func(lease time.Time) error {
			_, err := s.outbox.FailEmail(rctx, c.ID, lease, msg)
			return err
		}); ferr != nil {
			s.opt.Log.Warn("mail outbox: mark failed; the lease lapses and the e-mail is tried again", "outbox_id", c.ID, "err", ferr)
		}
		return false
	}
	next := s.opt.Now().Add(s.Backoff(c.Attempts))
	s.opt.Log.Warn("e-mail not sent; will retry", "outbox_id", c.ID, "attempts", c.Attempts, "next_attempt_at", next, "err", err)
	// Only a failed send says the mail server could not be reached; a failed read of
	// what the e-mail is about (the database) does not.
	if rerr := held.settle(c.ID, func(lease time.Time) error {
		_, err := s.outbox.RetryEmail(rctx, c.ID, lease, next, msg, composed && unreachable(err))
		return err
	}); rerr != nil {
		s.opt.Log.Warn("mail outbox: schedule retry; the lease lapses and the e-mail is tried again", "outbox_id", c.ID, "err", rerr)
	}
	return false
}

// markSent records a delivery, trying again until the database takes it: a delivered
// message must never look unsent. The claim's lease is renewed meanwhile, so that no
// other Sender takes the message.
func (s *Sender) markSent(ctx context.Context, held *claim, id int64, subject string, at time.Time) {
	wait := s.opt.MarkRetry
	for failures := 1; ; failures++ {
		err := held.settle(id, func(time.Time) error {
			mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			return s.outbox.MarkEmailSent(mctx, id, subject, at)
		})
		if err == nil {
			return
		}
		s.opt.Log.Warn("mail outbox: e-mail delivered but not marked sent yet; marking it again", "outbox_id", id, "failures", failures, "retry_in", wait, "err", err)
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Second)
	}
}

// hurryWaiting makes the messages that waited for the mail server due now, after a
// delivery showed it is back, and reports whether any became due.
func (s *Sender) hurryWaiting(ctx context.Context) bool {
	n, err := s.outbox.HurryEmails(ctx, s.opt.Now())
	if err != nil {
		// They keep their back-off: nothing is lost.
		s.opt.Log.Warn("mail outbox: hurry e-mails that waited for the mail server", "err", err)
		return false
	}
	if n > 0 {
		s.opt.Log.Info("mail server reachable again; retrying e-mails now", "count", n)
	}
	return n > 0
}

// unreachable reports whether a delivery failed because the mail server could not be
// reached or the connection broke, rather than because the server answered with a
// refusal (a 4xx reply such as greylisting, which must keep its back-off).
func unreachable(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, context.DeadlineExceeded)
}

// release hands claimed messages that were not tried back to the queue.
func (s *Sender) release(ctx context.Context, held *claim, batch []Claimed) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, c := range batch {
		if err := held.settle(c.ID, func(lease time.Time) error {
			return s.outbox.ReleaseEmail(rctx, c.ID, lease, s.opt.Now())
		}); err != nil {
			s.opt.Log.Warn("mail outbox: release; the lease lapses and the e-mail is tried again", "outbox_id", c.ID, "err", err)
		}
	}
}

// Backoff is the wait after the given number of failed attempts (1 for the first):
// BackoffBase doubled for each attempt after the first, capped at BackoffMax.
func (s *Sender) Backoff(attempts int) time.Duration {
	d := s.opt.BackoffBase
	for i := 1; i < attempts; i++ {
		d *= 2
		if d >= s.opt.BackoffMax {
			return s.opt.BackoffMax
		}
	}
	return min(d, s.opt.BackoffMax)
}
