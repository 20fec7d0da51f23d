// Package mail composes the e-mails storefront sends and delivers them from the
// database outbox (docs/API.md#reactivation).
//
// An e-mail is queued as a row of the email_outbox table in the same transaction as
// the change that causes it (a reactivation, a webhook endpoint disabled), so that it
// is sent if and only if the change commits, and survives restarts. The row says what
// the e-mail is about (its kind, the purchase, the address and a few facts); the
// Composer writes its subject and body when it is sent, so that every message's text
// is written in this package. A Sender drains the outbox, one batch a step of the
// worker that runs it (internal/worker): it claims due rows in a short transaction
// (SELECT ... FOR UPDATE SKIP LOCKED, then status 'sending' with a lease of Lease,
// 20 s by default, which it renews while it holds them), sends them outside any
// transaction through a Transport, and records the outcome: 'sent', back to 'queued'
// with an exponential backoff, or 'failed' after MaxAttempts attempts or a permanent
// rejection. Any number of Senders, in one process or in several sharing a database,
// never claim the same row at once. A row whose lease expires while 'sending' (its
// process crashed) is claimed again, within a lease and a poll of the crash. Messages
// that wait because the mail server could not be reached (not because it refused them,
// as greylisting does) are marked so in the outbox, and are retried at once when a
// later delivery, by any Sender in any process, shows the server is back.
//
// # Delivery guarantee
//
// Delivery is at least once, and exactly once unless a process stops in one narrow
// window: after the SMTP server has accepted a message (its reply to the end of DATA)
// and before the row is marked 'sent', which is one UPDATE by primary key. The Sender
// narrows the window further: a send is not cut off by shutdown (it runs to completion
// or to its own timeout), and marking 'sent' is retried until it sticks, however long
// the database takes to answer, while the lease keeps the row the Sender's. Only a
// crash in that window, or an outage longer than the lease followed by another
// Sender's claim before the mark gets through, sends a message twice; the copy carries
// the same Message-ID header (derived from the outbox id), so that mail clients and
// people can recognise it.
package mail

import (
	"context"
	"errors"
	"time"

	"storefront/internal/shop"
)

// Message is one e-mail to send.
type Message struct {
	// ID is the outbox id; the Message-ID header is derived from it.
	ID      int64
	To      string
	Subject string
	// Body is plain text.
	Body string
	// Date is the time of sending, for the Date header.
	Date time.Time
}

// Email is an e-mail to queue in the outbox.
type Email = shop.Email

// Claimed is an outbox row claimed for sending.
type Claimed = shop.ClaimedEmail

// Outbox is the queue of e-mails a Sender drains (the database's email_outbox table).
// Times are those of the Sender's clock.
type Outbox interface {
	// ClaimEmails claims up to limit rows that are due at now ('queued' or 'sending'
	// with a lapsed lease, next_attempt_at <= now), oldest due first, skipping rows
	// another claimer holds: each becomes 'sending' with its attempts counted and a
	// lease until leaseUntil. A lapsed 'sending' row that already had maxAttempts
	// claims is marked 'failed' instead of being returned.
	ClaimEmails(ctx context.Context, now, leaseUntil time.Time, limit, maxAttempts int) ([]Claimed, error)
	// MarkEmailSent records the delivery of a row at the given time with the subject
	// it was sent with, whatever its state other than 'sent' (a delivered message is
	// delivered, even when its lease lapsed meanwhile).
	MarkEmailSent(ctx context.Context, id int64, subject string, at time.Time) error
	// RetryEmail puts a claimed row back to 'queued', due at next, with lastErr;
	// unreachable records that the mail server could not be reached (HurryEmails). It
	// does nothing (and reports false) when the claim identified by leaseUntil no longer
	// holds the row.
	RetryEmail(ctx context.Context, id int64, leaseUntil, next time.Time, lastErr string, unreachable bool) (bool, error)
	// FailEmail marks a claimed row 'failed' with lastErr; it gives up on the message.
	// It does nothing (and reports false) when the claim no longer holds the row.
	FailEmail(ctx context.Context, id int64, leaseUntil time.Time, lastErr string) (bool, error)
	// RenewEmails moves the lease of the claimed rows ids that the claim identified by
	// leaseUntil still holds on to newLease; rows another claim took over are left alone.
	RenewEmails(ctx context.Context, ids []int64, leaseUntil, newLease time.Time) error
	// ReleaseEmail returns a claimed row that was not tried to 'queued', due at now,
	// without counting the claim as an attempt.
	ReleaseEmail(ctx context.Context, id int64, leaseUntil, now time.Time) error
	// HurryEmails makes every 'queued' row that waits for the mail server (its last
	// attempt could not reach it) and is due after now due at now, without touching its
	// attempts, and reports how many it changed.
	HurryEmails(ctx context.Context, now time.Time) (int, error)
}

// Transport delivers one message.
type Transport interface {
	// Send delivers msg. An error wrapped by Permanent means retrying cannot help (the
	// recipient was refused); any other error is worth retrying.
	Send(ctx context.Context, msg Message) error
}

// PermanentError marks a delivery failure that retrying cannot cure.
type PermanentError struct{ Err error }

// Error implements error.
func (e *PermanentError) Error() string { return "permanent: " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err as a permanent failure.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err is a permanent delivery failure.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
