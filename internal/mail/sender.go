package mail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"syscall"
	"time"
)

// SenderOptions tune a Sender. The zero value of each field means its default.
type SenderOptions struct {
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Log receives one line per delivery failure (default slog.Default()).
	Log *slog.Logger
	// PollInterval is how often Run looks for due messages (default 1s).
	PollInterval time.Duration
	// Lease is how long a claimed message is reserved for this Sender (default 5m). It
	// must exceed SendTimeout by a wide margin: a send that outlives its lease may be
	// repeated by another Sender.
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
}

// Sender drains an Outbox through a Transport. Run it in one goroutine; Kick and
// SendDue are safe to call from others.
type Sender struct {
	outbox    Outbox
	composer  *Composer
	transport Transport
	opt       SenderOptions
	kick      chan struct{}

	// mu serialises rounds of SendDue and guards unmarked.
	mu sync.Mutex
	// unmarked holds messages delivered whose 'sent' mark did not reach the database
	// yet, with the time of delivery: they are marked again, never sent again.
	unmarked map[int64]sentMark
}

// sentMark is what marking a row sent records.
type sentMark struct {
	subject string
	at      time.Time
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
	if opt.PollInterval <= 0 {
		opt.PollInterval = time.Second
	}
	if opt.Lease <= 0 {
		opt.Lease = 5 * time.Minute
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
	return &Sender{
		outbox:    outbox,
		composer:  composer,
		transport: transport,
		opt:       opt,
		kick:      make(chan struct{}, 1),
		unmarked:  map[int64]sentMark{},
	}
}

// Kick wakes Run at once, for a message that was just queued. It never blocks.
func (s *Sender) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Run sends due messages every PollInterval, and at once when kicked, until ctx ends;
// then it returns nil. A message being delivered when ctx ends is finished first.
// Errors of the outbox (the database is unreachable) are logged and retried.
func (s *Sender) Run(ctx context.Context) error {
	t := time.NewTicker(s.opt.PollInterval)
	defer t.Stop()
	for {
		if _, err := s.SendDue(ctx); err != nil && ctx.Err() == nil {
			s.opt.Log.Error("mail outbox", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-s.kick:
		}
	}
}

// SendDue sends every message due now, batch after batch, and returns how many were
// delivered. It stops early, releasing what it claimed but did not try, when ctx ends.
func (s *Sender) SendDue(ctx context.Context) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.markUnmarked(ctx)
	sent, hurried := 0, false
	for ctx.Err() == nil {
		now := s.opt.Now()
		batch, err := s.outbox.ClaimEmails(ctx, now, now.Add(s.opt.Lease), s.opt.BatchSize, s.opt.MaxAttempts)
		if err != nil {
			return sent, fmt.Errorf("claim e-mails: %w", err)
		}
		delivered := 0
		for i, c := range batch {
			if ctx.Err() != nil {
				s.release(ctx, batch[i:])
				return sent + delivered, nil
			}
			if s.deliver(ctx, c) {
				delivered++
			}
		}
		sent += delivered
		// A delivery went through: messages that waited for the server need not wait
		// any longer, whichever Sender saw them fail. Once a round, so that a message
		// that fails again waits for its back-off or the next round.
		more := false
		if delivered > 0 && !hurried {
			hurried = true
			more = s.hurryWaiting(ctx)
		}
		if len(batch) < s.opt.BatchSize && !more {
			break
		}
	}
	return sent, nil
}

// deliver sends one claimed message and records the outcome; it reports whether the
// message was delivered.
func (s *Sender) deliver(ctx context.Context, c Claimed) bool {
	// Outcomes are recorded even when ctx ends meanwhile: a delivery that is not
	// recorded would be repeated.
	rctx := context.WithoutCancel(ctx)
	if m, ok := s.unmarked[c.ID]; ok {
		// Delivered already by this Sender; its lease lapsed before the mark got through.
		s.markSent(rctx, c.ID, m)
		return false
	}
	// A send is not cut off by shutdown either: cutting it after the server accepted
	// the message but before its reply arrives would send it twice.
	sctx, cancel := context.WithTimeout(rctx, s.opt.SendTimeout)
	// The text is written now, from the data as it is (Composer).
	subject, body, err := s.composer.Compose(sctx, c)
	sent := err == nil
	if sent {
		err = s.transport.Send(sctx, Message{ID: c.ID, To: c.To, Subject: subject, Body: body, Date: s.opt.Now()})
	}
	cancel()
	if err == nil {
		s.markSent(rctx, c.ID, sentMark{subject: subject, at: s.opt.Now()})
		return true
	}
	msg := err.Error()
	if len(msg) > 2000 {
		msg = msg[:2000]
	}
	if IsPermanent(err) || c.Attempts >= s.opt.MaxAttempts {
		s.opt.Log.Error("e-mail failed; giving up", "outbox_id", c.ID, "attempts", c.Attempts, "err", err)
		if _, ferr := s.outbox.FailEmail(rctx, c.ID, c.LeaseUntil, msg); ferr != nil {
			s.opt.Log.Error("mail outbox: mark failed", "outbox_id", c.ID, "err", ferr)
		}
		return false
	}
	next := s.opt.Now().Add(s.Backoff(c.Attempts))
	s.opt.Log.Warn("e-mail not sent; will retry", "outbox_id", c.ID, "attempts", c.Attempts, "next_attempt_at", next, "err", err)
	// Only a failed send says the mail server could not be reached; a failed read of
	// what the e-mail is about (the database) does not.
	if _, rerr := s.outbox.RetryEmail(rctx, c.ID, c.LeaseUntil, next, msg, sent && unreachable(err)); rerr != nil {
		// The lease lapses and the message is tried again then.
		s.opt.Log.Error("mail outbox: schedule retry", "outbox_id", c.ID, "err", rerr)
	}
	return false
}

// hurryWaiting makes the messages that waited for the mail server due now, after a
// delivery showed it is back, and reports whether any became due.
func (s *Sender) hurryWaiting(ctx context.Context) bool {
	n, err := s.outbox.HurryEmails(ctx, s.opt.Now())
	if err != nil {
		s.opt.Log.Error("mail outbox: hurry e-mails that waited for the mail server", "err", err)
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

// markSent records a delivery, remembering it for a later try when the database does
// not take it now.
func (s *Sender) markSent(ctx context.Context, id int64, m sentMark) {
	mctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.outbox.MarkEmailSent(mctx, id, m.subject, m.at); err != nil {
		s.opt.Log.Error("mail outbox: e-mail delivered but not marked sent; will mark it again", "outbox_id", id, "err", err)
		s.unmarked[id] = m
		return
	}
	delete(s.unmarked, id)
}

// markUnmarked retries the marks that failed before.
func (s *Sender) markUnmarked(ctx context.Context) {
	for id, m := range s.unmarked {
		s.markSent(context.WithoutCancel(ctx), id, m)
	}
}

// release hands claimed messages that were not tried back to the queue.
func (s *Sender) release(ctx context.Context, batch []Claimed) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, c := range batch {
		if err := s.outbox.ReleaseEmail(rctx, c.ID, c.LeaseUntil, s.opt.Now()); err != nil {
			s.opt.Log.Error("mail outbox: release", "outbox_id", c.ID, "err", err)
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
