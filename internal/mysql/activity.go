package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"sort"
	"time"

	"storefront/internal/shop"
)

// Timeline actions made from the e-mail outbox, beside those recorded in
// purchase_activity ("reactivated", "email_queued").
const (
	// ActionEmailSent is an e-mail the mailer delivered; its time is sent_at.
	ActionEmailSent = "email_sent"
)

// outboxEntry is one row of email_outbox, as the timeline needs it.
type outboxEntry struct {
	id                   int64
	to, subject, status  string
	attempts             int64
	lastError            sql.NullString
	createdAt, nextTryAt time.Time
	sentAt               sql.NullTime
	matched              bool
}

// FindPurchaseTimeline returns a purchase's activity merged with the state of its
// e-mails, newest first. Each "email_queued" entry gains the outbox row's delivery
// state in its details ("email_status": queued, sending, sent or failed; "attempts";
// "last_error"; "sent_at" and "next_attempt_at" as UNIX seconds); a delivered e-mail
// adds an "email_sent" entry at the time it was sent; an outbox row about the purchase
// with no activity entry of its own appears as an "email_queued" entry by "system".
// An unknown purchase, or one of another account, has an empty timeline.
func (db *DB) FindPurchaseTimeline(ctx context.Context, accountID, purchaseID int64) ([]shop.Activity, error) {
	acts, err := db.FindPurchaseActivity(ctx, accountID, purchaseID)
	if err != nil {
		return nil, err
	}
	var mails []*outboxEntry
	err = eachRow(ctx, db.DB, `SELECT id, to_address, subject, status, attempts, last_error, created_at, next_attempt_at, sent_at
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

	out := make([]shop.Activity, 0, len(acts)+2*len(mails))
	// Activity comes newest first; match queued entries to outbox rows oldest first so
	// that two e-mails queued in the same second to the same address pair up in order.
	for i := len(acts) - 1; i >= 0; i-- {
		a := acts[i]
		if a.Action == "email_queued" {
			var d map[string]any
			if json.Unmarshal([]byte(a.Details), &d) == nil && d != nil {
				to, _ := d["to"].(string)
				if m := matchOutbox(mails, to, a.CreatedAt.Time); m != nil {
					a.Details = mergeOutbox(d, m)
				}
			}
		}
		out = append(out, a)
	}
	for _, m := range mails {
		if !m.matched {
			d := map[string]any{"to": m.to, "subject": m.subject}
			out = append(out, shop.Activity{Actor: "system", Action: "email_queued", Details: mergeOutbox(d, m), CreatedAt: shop.NewTime(m.createdAt)})
		}
		if m.status == outboxSent && m.sentAt.Valid {
			d, _ := json.Marshal(map[string]any{"to": m.to, "subject": m.subject, "attempts": m.attempts})
			out = append(out, shop.Activity{Actor: "mailer", Action: ActionEmailSent, Details: string(d), CreatedAt: shop.NewTime(m.sentAt.Time)})
		}
	}
	// Newest first; within one second a delivery comes after what queued it, and
	// recorded entries keep the order they were written in.
	rank := func(a shop.Activity) int {
		if a.Action == ActionEmailSent {
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

// mergeOutbox adds an outbox row's delivery state to an entry's details.
func mergeOutbox(d map[string]any, m *outboxEntry) string {
	d["email_status"] = m.status
	d["attempts"] = m.attempts
	if m.lastError.Valid && m.lastError.String != "" {
		d["last_error"] = m.lastError.String
	}
	if m.sentAt.Valid {
		d["sent_at"] = m.sentAt.Time.Unix()
	}
	if m.status == outboxQueued {
		d["next_attempt_at"] = m.nextTryAt.Unix()
	}
	b, _ := json.Marshal(d)
	return string(b)
}
