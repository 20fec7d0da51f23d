package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"storefront/internal/shop"
)

// outboxEntry is one row of email_outbox, as the timeline needs it.
type outboxEntry struct {
	id         int64
	to, status string
	// subject is the text's subject: a composed row's, or the one sent; "" before.
	subject              string
	attempts             int64
	lastError            sql.NullString
	createdAt, nextTryAt time.Time
	sentAt               sql.NullTime
	matched              bool
}

// FindPurchaseTimeline returns a purchase's activity merged with the state of its
// e-mails, newest first. Each "email_queued" entry gains the outbox row's delivery
// state (EmailStatus, Attempts, LastError, SentAt, NextAttemptAt); a delivered e-mail
// adds an "email_sent" entry at the time it was sent; an outbox row about the purchase
// with no activity entry of its own appears as an "email_queued" entry by "system".
// An unknown purchase, or one of another account, has an empty timeline.
func (s *PurchaseService) FindPurchaseTimeline(ctx context.Context, accountID, purchaseID int64) ([]shop.TimelineEntry, error) {
	acts, err := s.FindPurchaseActivity(ctx, accountID, purchaseID)
	if err != nil {
		return nil, err
	}
	var mails []*outboxEntry
	err = eachRow(ctx, s.db.DB, `SELECT id, to_address, COALESCE(subject, ''), status, attempts, last_error, created_at, next_attempt_at, sent_at
		FROM email_outbox WHERE purchase_id = ? AND account_id = ? ORDER BY id`,
		[]any{purchaseID, accountID}, func(rows *sql.Rows) error {
			m := &outboxEntry{}
			if err := rows.Scan(&m.id, &m.to, &m.subject, &m.status, &m.attempts, &m.lastError, &m.createdAt, &m.nextTryAt, &m.sentAt); err != nil {
				return err
			}
			mails = append(mails, m)
			return nil
		})
	if err != nil {
		return nil, err
	}

	out := make([]shop.TimelineEntry, 0, len(acts)+2*len(mails))
	// Activity comes newest first; match queued entries to outbox rows oldest first so
	// that two e-mails queued in the same second to the same address pair up in order.
	for i := len(acts) - 1; i >= 0; i-- {
		e := shop.TimelineEntry{Activity: acts[i]}
		// Details written by this program are JSON objects; any other text is shown as
		// it is.
		var d activityDetails
		if json.Unmarshal([]byte(e.Details), &d) == nil {
			e.To, e.Subject, e.Refulfill, e.KeysGenerated, e.FromStatus, e.ToStatus = d.To, d.Subject, d.Refulfill, d.KeysGenerated, d.FromStatus, d.ToStatus
		}
		if e.Action == shop.ActionEmailQueued {
			if m := matchOutbox(mails, e.To, e.CreatedAt.Time); m != nil {
				m.delivery(&e)
			}
		}
		out = append(out, e)
	}
	for _, m := range mails {
		if !m.matched {
			e := shop.TimelineEntry{Activity: shop.Activity{Actor: "system", Action: shop.ActionEmailQueued, CreatedAt: shop.NewTime(m.createdAt)}, To: m.to, Subject: m.subject}
			m.delivery(&e)
			out = append(out, e)
		}
		if m.status == outboxSent && m.sentAt.Valid {
			out = append(out, shop.TimelineEntry{
				Activity: shop.Activity{Actor: "mailer", Action: shop.ActionEmailSent, CreatedAt: shop.NewTime(m.sentAt.Time)},
				To:       m.to, Subject: m.subject, Attempts: int(m.attempts),
			})
		}
	}
	// Newest first; within one second a delivery comes after what queued it, and
	// recorded entries keep the order they were written in.
	rank := func(e shop.TimelineEntry) int {
		if e.Action == shop.ActionEmailSent {
			return 1
		}
		return 0
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if !a.CreatedAt.Equal(b.CreatedAt.Time) {
			return a.CreatedAt.After(b.CreatedAt.Time)
		}
		if rank(a) != rank(b) {
			return rank(a) > rank(b)
		}
		return a.ID > b.ID
	})
	return out, nil
}

// activityDetails are the fields of an activity entry's details (JSON) that the
// timeline reads.
type activityDetails struct {
	To            string `json:"to"`
	Subject       string `json:"subject"`
	Refulfill     bool   `json:"refulfill"`
	KeysGenerated int    `json:"keys_generated"`
	FromStatus    string `json:"from_status"`
	ToStatus      string `json:"to_status"`
}

// matchOutbox finds the first unmatched outbox row queued to the address at that
// second (the activity entry and the row are written in one transaction with one time).
func matchOutbox(mails []*outboxEntry, to string, at time.Time) *outboxEntry {
	for _, m := range mails {
		if !m.matched && m.to == to && m.createdAt.Truncate(time.Second).Equal(at.Truncate(time.Second)) {
			m.matched = true
			return m
		}
	}
	return nil
}

// delivery puts an outbox row's delivery state on an e-mail's timeline entry.
func (m *outboxEntry) delivery(e *shop.TimelineEntry) {
	e.EmailStatus, e.Attempts = m.status, int(m.attempts)
	if e.Subject == "" {
		e.Subject = m.subject
	}
	if m.lastError.Valid {
		e.LastError = m.lastError.String
	}
	if m.sentAt.Valid {
		t := shop.NewTime(m.sentAt.Time)
		e.SentAt = &t
	}
	if m.status == outboxQueued {
		t := shop.NewTime(m.nextTryAt)
		e.NextAttemptAt = &t
	}
}

// readActivity runs a query of activity entries (id, actor, action, details,
// created_at) and returns them in its order; none is an empty list, not nil.
func readActivity(ctx context.Context, q queryer, query string, args ...any) ([]shop.Activity, error) {
	out := []shop.Activity{}
	err := eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var a shop.Activity
		if err := rows.Scan(&a.ID, &a.Actor, &a.Action, &a.Details, &a.CreatedAt); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	return out, err
}

// RecordAccountActivity implements shop.AccountActivityService.
func (s *AccountActivityService) RecordAccountActivity(ctx context.Context, accountID int64, a shop.Activity) error {
	at := a.CreatedAt.Time
	if at.IsZero() {
		at = time.Now()
	}
	return s.db.inTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO account_activity (account_id, actor, action, details, created_at) VALUES (?, ?, ?, ?, ?)`,
			accountID, a.Actor, a.Action, a.Details, at.UTC().Truncate(time.Second)); err != nil {
			return translate(err)
		}
		if a.Action != shop.ActionExport {
			return nil
		}
		return recordAudit(ctx, tx, at, accountID, shop.AuditExport, exportAuditDetails(a.Details))
	})
}

// exportAuditDetails describes an export for its audit record from the details of
// its activity entry (JSON: what, filters, rows, complete).
func exportAuditDetails(details string) string {
	var d struct {
		What     string `json:"what"`
		Filters  string `json:"filters"`
		Rows     int64  `json:"rows"`
		Complete bool   `json:"complete"`
	}
	if json.Unmarshal([]byte(details), &d) != nil {
		return details
	}
	s := fmt.Sprintf("%s CSV, %d rows", d.What, d.Rows)
	if !d.Complete {
		s += " (stopped before the end)"
	}
	if d.Filters != "" {
		s += ", filters: " + d.Filters
	}
	return s
}

// FindAccountActivity implements shop.AccountActivityService.
func (s *AccountActivityService) FindAccountActivity(ctx context.Context, accountID int64, limit int) ([]shop.Activity, error) {
	return readActivity(ctx, s.db.DB, `SELECT id, actor, action, details, created_at FROM account_activity
		WHERE account_id = ? ORDER BY id DESC LIMIT ?`, accountID, max(limit, 1))
}

// FindSubscriberActivity returns a subscriber's timeline (the PAST_DUE job's closings,
// among others), newest first. A subscriber of another account has no activity.
func (s *SubscriberService) FindSubscriberActivity(ctx context.Context, accountID, storefrontID, subscriberID int64) ([]shop.Activity, error) {
	return readActivity(ctx, s.db.DB, `SELECT a.id, a.actor, a.action, a.details, a.created_at FROM subscriber_activity a
		JOIN subscribers sb ON sb.account_id = a.account_id AND sb.id = a.subscriber_id
		WHERE a.account_id = ? AND a.subscriber_id = ? AND sb.storefront_id = ? ORDER BY a.id DESC LIMIT 200`,
		accountID, subscriberID, storefrontID)
}

// addActivity records one entry of a purchase's timeline, with the purchase's buyer
// address (null for none), by which the customer page reads it.
func addActivity(ctx context.Context, tx *Tx, accountID, purchaseID int64, buyerEmail sql.NullString, actor, action, details string, at time.Time) error {
	if len(actor) > 255 {
		actor = actor[:255]
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO purchase_activity (account_id, purchase_id, buyer_email, actor, action, details, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		accountID, purchaseID, buyerEmail, actor, action, details, at)
	return translate(err)
}

// FindPurchaseActivity returns a purchase's timeline, newest first.
func (s *PurchaseService) FindPurchaseActivity(ctx context.Context, accountID, purchaseID int64) ([]shop.Activity, error) {
	return readActivity(ctx, s.db.DB, `SELECT a.id, a.actor, a.action, a.details, a.created_at FROM purchase_activity a
		WHERE a.account_id = ? AND a.purchase_id = ? ORDER BY a.id DESC`,
		accountID, purchaseID)
}
