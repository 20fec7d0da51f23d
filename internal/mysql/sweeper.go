package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"strings"
	"time"
)

// PastDueBatch is how many subscriptions one ClosePastDue call handles at most.
const PastDueBatch = 1000

// ClosePastDue closes PAST_DUE subscriptions whose payment has not arrived within the
// storefront's grace period, counted from next_payment_at (docs/API.md#entitlement): the
// status becomes CLOSED, ended_at the end of the grace period, and the subscriber's
// activity records it. Rows are claimed with SKIP LOCKED, so that several instances
// running the job at once act on each subscription once. Returns how many it closed.
func (db *DB) ClosePastDue(ctx context.Context) (int, error) {
	now := db.nowSecond()
	closed := 0
	fence := map[int64]bool{}
	hooks := hookCache{}
	// terms holds the closed subscriptions' subscribers by account: their service terms
	// end, in the rollups, in the same transaction.
	terms := map[int64][]int64{}
	err := db.inTx(ctx, func(tx *Tx) error {
		type due struct {
			id, subscriberID, accountID, storefrontID int64
			end                                       time.Time
		}
		var rows []due
		err := eachRow(ctx, tx, `SELECT ss.id, ss.subscriber_id, sf.account_id, sf.id, ss.next_payment_at + INTERVAL sf.past_due_grace_days DAY
			FROM subscriptions ss
			JOIN subscribers sb ON sb.account_id = ss.account_id AND sb.id = ss.subscriber_id
			JOIN storefronts sf ON sf.account_id = sb.account_id AND sf.id = sb.storefront_id
			WHERE ss.status = 'PAST_DUE' AND ss.next_payment_at IS NOT NULL
			  AND ss.next_payment_at + INTERVAL sf.past_due_grace_days DAY <= ?
			ORDER BY ss.id
			LIMIT ?`, []any{now, PastDueBatch}, func(r *sql.Rows) error {
			var d due
			if err := r.Scan(&d.id, &d.subscriberID, &d.accountID, &d.storefrontID, &d.end); err != nil {
				return err
			}
			rows = append(rows, d)
			return nil
		})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		// Lock only the subscription rows, skipping those another instance holds.
		ids := make([]any, len(rows))
		for i, d := range rows {
			ids[i] = d.id
		}
		mine := map[int64]bool{}
		err = eachRow(ctx, tx, "SELECT id FROM subscriptions WHERE id IN (?"+strings.Repeat(",?", len(ids)-1)+") AND status = 'PAST_DUE' FOR UPDATE SKIP LOCKED",
			ids, func(r *sql.Rows) error {
				var id int64
				if err := r.Scan(&id); err != nil {
					return err
				}
				mine[id] = true
				return nil
			})
		if err != nil {
			return err
		}
		for _, d := range rows {
			if !mine[d.id] {
				continue
			}
			res, err := tx.ExecContext(ctx, "UPDATE subscriptions SET status = 'CLOSED', ended_at = ?, updated_at = ? WHERE account_id = ? AND id = ? AND status = 'PAST_DUE'", d.end, now, d.accountID, d.id)
			if err != nil {
				return translate(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue
			}
			details, _ := json.Marshal(map[string]any{"from": "PAST_DUE", "to": "CLOSED", "grace_ended_at": d.end.Unix()})
			if _, err := tx.ExecContext(ctx, "INSERT INTO subscriber_activity (account_id, subscriber_id, actor, action, details, created_at) VALUES (?, ?, 'system', 'closed_past_due', ?, ?)",
				d.accountID, d.subscriberID, string(details), now); err != nil {
				return translate(err)
			}
			if err := db.closedEvent(ctx, tx, hooks, d.accountID, d.storefrontID, d.subscriberID, now); err != nil {
				return err
			}
			closed++
			fence[d.accountID] = true
			terms[d.accountID] = append(terms[d.accountID], d.subscriberID)
		}
		for account, ids := range terms {
			if err := syncSubscribers(ctx, tx, account, ids); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && len(fence) > 0 {
		// The closed subscriptions' accounts read from the primary until a replica has
		// the change (docs/SCALING.md); the closing stands if that cannot be recorded.
		ids := make([]int64, 0, len(fence))
		for id := range fence {
			ids = append(ids, id)
		}
		if ferr := db.RecordReadFences(ctx, ids...); ferr != nil {
			slog.Warn("past-due subscriptions closed; their accounts may read them open from a lagging replica", "err", ferr)
		}
	}
	return closed, err
}
