package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	netmail "net/mail"
	"slices"
	"strings"
	"time"

	"storefront/internal/shop"
)

// Outbox row states.
const (
	outboxQueued  = "queued"
	outboxSending = "sending"
	outboxSent    = "sent"
	outboxFailed  = "failed"
)

// EnqueueEmail queues e for sending, due at once, in tx when tx is not nil (so that
// the e-mail is sent only if tx commits; the sender finds it at its next poll) and
// otherwise in a transaction of its own, whose commit wakes the sender. It returns the
// outbox id. An address that is not one e-mail address, or a kind internal/mail does
// not write, is an EInvalid error.
func (s *Outbox) EnqueueEmail(ctx context.Context, tx *sql.Tx, e shop.Email) (int64, error) {
	db := s.db
	if tx != nil {
		return enqueueEmail(ctx, &Tx{Tx: tx}, e, db.Now())
	}
	var id int64
	err := db.inTx(ctx, func(tx *Tx) error {
		var err error
		id, err = enqueueEmail(ctx, tx, e, db.Now())
		return err
	})
	return id, err
}

// enqueueEmail inserts an e-mail into the outbox in tx, due at now, and returns its
// id.
func enqueueEmail(ctx context.Context, tx *Tx, e shop.Email, now time.Time) (int64, error) {
	if strings.ContainsAny(e.To, "\r\n") || len(e.To) > 320 {
		return 0, shop.Errorf(shop.EInvalid, "%q is not an e-mail address.", e.To)
	}
	if a, err := netmail.ParseAddress(e.To); err != nil || a.Name != "" {
		return 0, shop.Errorf(shop.EInvalid, "%q is not an e-mail address.", e.To)
	}
	if e.Kind != shop.EmailPurchaseReady && e.Kind != shop.EmailWebhookDisabled {
		return 0, shop.Errorf(shop.EInvalid, "%q is not a kind of e-mail.", e.Kind)
	}
	var pid any
	if e.PurchaseID != 0 {
		pid = e.PurchaseID
	}
	facts, err := json.Marshal(e.Facts)
	if err != nil {
		return 0, fmt.Errorf("queue e-mail: %w", err)
	}
	now = now.UTC().Truncate(time.Second)
	res, err := tx.ExecContext(ctx, `INSERT INTO email_outbox
		(account_id, purchase_id, kind, facts, to_address, status, attempts, next_attempt_at, created_at, traceparent)
		VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
		e.AccountID, pid, e.Kind, string(facts), e.To, outboxQueued, now, now, traceParent(ctx))
	if err != nil {
		return 0, fmt.Errorf("queue e-mail: %w", translate(err))
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("queue e-mail: %w", err)
	}
	tx.queue(WorkEmails)
	return id, nil
}

// ClaimEmails implements the outbox a mail sender drains. The claim is one short READ COMMITTED
// transaction: SELECT ... FOR UPDATE SKIP LOCKED picks due rows no other claimer is
// holding, and one UPDATE leases them, so that concurrent claimers (in this process or
// others) never get the same row.
func (s *Outbox) ClaimEmails(ctx context.Context, now, leaseUntil time.Time, limit, maxAttempts int) ([]shop.ClaimedEmail, error) {
	now = now.UTC().Truncate(time.Second)
	leaseUntil = leaseUntil.UTC().Truncate(time.Second)
	if !leaseUntil.After(now) {
		return nil, errors.New("claim e-mails: the lease must end after now")
	}
	// READ COMMITTED takes no gap locks, so a claim never holds up an enqueue.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return nil, fmt.Errorf("claim e-mails: %w", translate(err))
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT id, account_id, purchase_id, kind, facts, to_address, subject, body, attempts, status, traceparent
		FROM email_outbox
		WHERE status IN (?, ?) AND next_attempt_at <= ?
		ORDER BY next_attempt_at, id
		LIMIT ?
		FOR UPDATE SKIP LOCKED`, outboxQueued, outboxSending, now, limit)
	if err != nil {
		return nil, fmt.Errorf("claim e-mails: %w", translate(err))
	}
	var claimed []shop.ClaimedEmail
	var claimIDs, expiredIDs []any
	for rows.Next() {
		var c shop.ClaimedEmail
		var status string
		var purchaseID sql.NullInt64
		var facts, subject, body, parent sql.NullString
		if err := rows.Scan(&c.ID, &c.AccountID, &purchaseID, &c.Kind, &facts, &c.To, &subject, &body, &c.Attempts, &status, &parent); err != nil {
			rows.Close()
			return nil, fmt.Errorf("claim e-mails: %w", translate(err))
		}
		c.PurchaseID, c.Subject, c.Body, c.TraceParent = purchaseID.Int64, subject.String, body.String, parent.String
		if facts.Valid {
			if err := json.Unmarshal([]byte(facts.String), &c.Facts); err != nil {
				rows.Close()
				return nil, fmt.Errorf("claim e-mails: the facts of e-mail %d: %w", c.ID, err)
			}
		}
		if status == outboxSending && c.Attempts >= maxAttempts {
			// Its last attempt never reported back (the process stopped): give up.
			expiredIDs = append(expiredIDs, c.ID)
			continue
		}
		c.Attempts++
		c.LeaseUntil = leaseUntil
		claimed = append(claimed, c)
		claimIDs = append(claimIDs, c.ID)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("claim e-mails: %w", translate(err))
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("claim e-mails: %w", translate(err))
	}
	if len(claimIDs) > 0 {
		args := append([]any{outboxSending, leaseUntil}, claimIDs...)
		if _, err := tx.ExecContext(ctx, `UPDATE email_outbox
			SET status = ?, attempts = attempts + 1, next_attempt_at = ?
			WHERE id IN (`+placeholders(len(claimIDs))+`)`, args...); err != nil {
			return nil, fmt.Errorf("claim e-mails: %w", translate(err))
		}
	}
	if len(expiredIDs) > 0 {
		args := append([]any{outboxFailed, "the last attempt did not finish (its lease expired)"}, expiredIDs...)
		if _, err := tx.ExecContext(ctx, `UPDATE email_outbox SET status = ?, last_error = ?
			WHERE id IN (`+placeholders(len(expiredIDs))+`)`, args...); err != nil {
			return nil, fmt.Errorf("claim e-mails: %w", translate(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("claim e-mails: %w", translate(err))
	}
	return claimed, nil
}

// The sender's statements below are deadlock-free by construction: each runs alone in a
// READ COMMITTED transaction (no gap locks) and locks only its own rows, by primary key,
// in ascending order; the claim above locks with SKIP LOCKED and so never waits. Two
// instances' senders, and the transactions that queue e-mails, can then wait for one
// another but never in a cycle.

// outboxExec runs one statement of the sender in a READ COMMITTED transaction and
// reports how many rows it matched.
func (s *Outbox) outboxExec(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := s.db.inTxWith(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}

// MarkEmailSent implements the outbox a mail sender drains.
func (s *Outbox) MarkEmailSent(ctx context.Context, id int64, subject string, at time.Time) error {
	_, err := s.outboxExec(ctx, `UPDATE email_outbox SET status = ?, subject = ?, sent_at = ?, last_error = NULL
		WHERE id = ? AND status <> ?`, outboxSent, subject, at.UTC().Truncate(time.Second), id, outboxSent)
	if err != nil {
		return fmt.Errorf("mark e-mail %d sent: %w", id, err)
	}
	return nil
}

// RetryEmail implements the outbox a mail sender drains. The claim is identified by its lease: a later
// claim of the same row always has a later lease.
func (s *Outbox) RetryEmail(ctx context.Context, id int64, leaseUntil, next time.Time, lastErr string, unreachable bool) (bool, error) {
	n, err := s.outboxExec(ctx, `UPDATE email_outbox SET status = ?, next_attempt_at = ?, last_error = ?, server_unreachable = ?
		WHERE id = ? AND status = ? AND next_attempt_at = ?`,
		outboxQueued, next.UTC().Truncate(time.Second), lastErr, unreachable, id, outboxSending, leaseUntil.UTC().Truncate(time.Second))
	if err != nil {
		return false, fmt.Errorf("schedule retry of e-mail %d: %w", id, err)
	}
	return n > 0, nil
}

// FailEmail implements the outbox a mail sender drains.
func (s *Outbox) FailEmail(ctx context.Context, id int64, leaseUntil time.Time, lastErr string) (bool, error) {
	n, err := s.outboxExec(ctx, `UPDATE email_outbox SET status = ?, last_error = ?
		WHERE id = ? AND status = ? AND next_attempt_at = ?`,
		outboxFailed, lastErr, id, outboxSending, leaseUntil.UTC().Truncate(time.Second))
	if err != nil {
		return false, fmt.Errorf("mark failed e-mail %d: %w", id, err)
	}
	return n > 0, nil
}

// RenewEmails implements the outbox a mail sender drains: one UPDATE by primary key.
func (s *Outbox) RenewEmails(ctx context.Context, ids []int64, leaseUntil, newLease time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	ids = slices.Sorted(slices.Values(ids))
	args := []any{newLease.UTC().Truncate(time.Second)}
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, outboxSending, leaseUntil.UTC().Truncate(time.Second))
	if _, err := s.outboxExec(ctx, `UPDATE email_outbox SET next_attempt_at = ?
		WHERE id IN (`+placeholders(len(ids))+`) AND status = ? AND next_attempt_at = ?
		ORDER BY id`, args...); err != nil {
		return fmt.Errorf("renew the lease of e-mails: %w", err)
	}
	return nil
}

// ReleaseEmail implements the outbox a mail sender drains.
func (s *Outbox) ReleaseEmail(ctx context.Context, id int64, leaseUntil, now time.Time) error {
	_, err := s.outboxExec(ctx, `UPDATE email_outbox SET status = ?, next_attempt_at = ?, attempts = GREATEST(attempts - 1, 0)
		WHERE id = ? AND status = ? AND next_attempt_at = ?`,
		outboxQueued, now.UTC().Truncate(time.Second), id, outboxSending, leaseUntil.UTC().Truncate(time.Second))
	if err != nil {
		return fmt.Errorf("release e-mail %d: %w", id, err)
	}
	return nil
}

// HurryEmails implements the outbox a mail sender drains. The rows are found by a plain
// read, which locks nothing, and updated by primary key, their condition checked again:
// a range UPDATE over the due index would lock index ranges that marking a row sent
// must insert into, in the opposite order (the deadlock of two instances' senders).
func (s *Outbox) HurryEmails(ctx context.Context, now time.Time) (int, error) {
	now = now.UTC().Truncate(time.Second)
	var ids []any
	err := eachRow(ctx, s.db.DB, `SELECT id FROM email_outbox
		WHERE status = ? AND next_attempt_at > ? AND server_unreachable ORDER BY id LIMIT 1000`,
		[]any{outboxQueued, now}, func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			ids = append(ids, id)
			return err
		})
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	n, err := s.outboxExec(ctx, `UPDATE email_outbox SET next_attempt_at = ?
		WHERE id IN (`+placeholders(len(ids))+`) AND status = ? AND next_attempt_at > ? AND server_unreachable
		ORDER BY id`, append(append([]any{now}, ids...), outboxQueued, now)...)
	if err != nil {
		return 0, fmt.Errorf("hurry e-mails: %w", err)
	}
	return int(n), nil
}
