package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"storefront/internal/shop"
)

// subscriberTerm is one row of subscriber_terms.
type subscriberTerm struct {
	storefront int64
	start      time.Time
	end        *time.Time
}

// syncSubscribers brings what is derived from the subscriptions of the account's
// subscribers with these ids (every subscriber of the account when ids is nil) in line
// with them, in tx: the subscribers' statuses, their terms and the subscriber rollups.
// Every writer of subscribers or subscriptions calls it.
func syncSubscribers(ctx context.Context, tx queryer, account int64, ids []int64) error {
	if err := syncSubscriberStatuses(ctx, tx, account, ids); err != nil {
		return err
	}
	return syncSubscriberTerms(ctx, tx, account, ids)
}

// syncSubscriberTerms brings the terms of the account's subscribers with these ids (every
// subscriber of the account when ids is nil) and the subscriber rollups in line with
// their subscriptions, in tx. Subscribers that left the account lose their terms in it.
func syncSubscriberTerms(ctx context.Context, tx queryer, account int64, ids []int64) error {
	if ids != nil && len(ids) == 0 {
		return nil
	}
	loc, err := accountZone(ctx, tx, account)
	if err != nil {
		return err
	}
	// The terms' and the subscribers' conditions: every row of the account, or those ids.
	termsWhere, subscribersWhere, args := "", "", []any{account}
	if ids != nil {
		list, a := inList(ids)
		termsWhere, subscribersWhere = " AND subscriber_id IN "+list, " AND sb.id IN "+list
		args = append(args, a...)
	}
	old := map[int64]subscriberTerm{}
	err = eachRow(ctx, tx, "SELECT subscriber_id, storefront_id, start_at, end_at FROM subscriber_terms WHERE account_id = ?"+termsWhere+" FOR UPDATE", args,
		func(rows *sql.Rows) error {
			var (
				id int64
				t  subscriberTerm
			)
			if err := rows.Scan(&id, &t.storefront, &t.start, &t.end); err != nil {
				return err
			}
			old[id] = t
			return nil
		})
	if err != nil {
		return fmt.Errorf("subscriber terms: %w", err)
	}
	// The whole account's subscribers are read through its storefronts; a list of them
	// by id (subscribersByID).
	from := "subscribers sb JOIN storefronts sf ON sf.id = sb.storefront_id AND sf.account_id = ? JOIN subscriptions ss ON ss.subscriber_id = sb.id"
	if ids != nil {
		from = subscribersByID + " AND sf.account_id = ? STRAIGHT_JOIN subscriptions ss ON ss.subscriber_id = sb.id"
	}
	now := map[int64]subscriberTerm{}
	err = eachRow(ctx, tx, `SELECT sb.id, sb.storefront_id, ss.status, ss.created_at, ss.updated_at, ss.started_at, ss.ended_at, ss.trial_started_at, ss.next_payment_at
		FROM `+from+` WHERE 1 = 1`+subscribersWhere, args,
		func(rows *sql.Rows) error {
			var (
				id, storefront int64
				ss             shop.Subscription
			)
			if err := rows.Scan(&id, &storefront, &ss.Status, &ss.CreatedAt, &ss.UpdatedAt, &ss.StartedAt, &ss.EndedAt, &ss.TrialStartedAt, &ss.NextPaymentAt); err != nil {
				return err
			}
			if start, end, ok := shop.ServiceTerm(&ss); ok {
				now[id] = subscriberTerm{storefront: storefront, start: start.UTC(), end: end}
			}
			return nil
		})
	if err != nil {
		return fmt.Errorf("subscriptions: %w", err)
	}
	type dayKey struct {
		day        string
		storefront int64
	}
	delta := map[dayKey]*[2]int64{}
	count := func(t subscriberTerm, sign int64) {
		bumpDay := func(at time.Time, i int) {
			k := dayKey{at.In(loc).Format(time.DateOnly), t.storefront}
			if delta[k] == nil {
				delta[k] = &[2]int64{}
			}
			delta[k][i] += sign
		}
		bumpDay(t.start, 0)
		if t.end != nil {
			bumpDay(*t.end, 1)
		}
	}
	var (
		del []int64
		ins []any
	)
	for id, t := range old {
		if n, ok := now[id]; ok && sameTerm(n, t) {
			delete(now, id)
			continue
		}
		count(t, -1)
		del = append(del, id)
	}
	for id, t := range now {
		count(t, 1)
		var end any
		if t.end != nil {
			end = t.end.UTC()
		}
		ins = append(ins, account, id, t.storefront, t.start, end)
	}
	for start := 0; start < len(del); start += 10000 {
		chunk := del[start:min(start+10000, len(del))]
		list, a := inList(chunk)
		if _, err := tx.ExecContext(ctx, "DELETE FROM subscriber_terms WHERE account_id = ? AND subscriber_id IN "+list, append([]any{account}, a...)...); err != nil {
			return translate(err)
		}
	}
	if err := upsertChunks(ctx, tx, "INSERT INTO subscriber_terms (account_id, subscriber_id, storefront_id, start_at, end_at)", 5, "", ins); err != nil {
		return fmt.Errorf("subscriber terms: %w", err)
	}
	var rows []any
	for k, v := range delta {
		if v[0] != 0 || v[1] != 0 {
			rows = append(rows, account, k.day, k.storefront, v[0], v[1])
		}
	}
	if err := upsertChunks(ctx, tx, "INSERT INTO subscriber_rollups (account_id, day, storefront_id, started, ended)", 5,
		"ON DUPLICATE KEY UPDATE started = started + VALUES(started), ended = ended + VALUES(ended)", rows); err != nil {
		return fmt.Errorf("subscriber rollups: %w", err)
	}
	return nil
}

// syncSubscriberStatuses copies the status of the subscriptions of the account's
// subscribers with these ids (every subscriber of the account when ids is nil) onto
// the subscribers' rows, NULL for none (migration 00232), in tx: the lists read a
// status in list order there.
func syncSubscriberStatuses(ctx context.Context, tx queryer, account int64, ids []int64) error {
	if ids != nil && len(ids) == 0 {
		return nil
	}
	// A list of them by primary key (MariaDB would rather read the account's range of
	// another index, every subscriber written before them); the whole account by it.
	from, where, args := "subscribers sb", "", []any{account}
	if ids != nil {
		list, a := inList(ids)
		from, where, args = "subscribers sb FORCE INDEX (PRIMARY)", " AND sb.id IN "+list, append(args, a...)
	}
	changed := map[string][]int64{} // the status to set ("" for none) → subscribers
	err := eachRow(ctx, tx, `SELECT sb.id, COALESCE(sb.status, ''), COALESCE(ss.status, '') FROM `+from+`
		LEFT JOIN subscriptions ss ON ss.account_id = sb.account_id AND ss.subscriber_id = sb.id
		WHERE sb.account_id = ?`+where, args, func(rows *sql.Rows) error {
		var (
			id        int64
			old, want string
		)
		if err := rows.Scan(&id, &old, &want); err != nil {
			return err
		}
		if old != want {
			changed[want] = append(changed[want], id)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("subscriber statuses: %w", err)
	}
	for status, ids := range changed {
		var value any
		if status != "" {
			value = status
		}
		for start := 0; start < len(ids); start += 10000 {
			list, a := inList(ids[start:min(start+10000, len(ids))])
			if _, err := tx.ExecContext(ctx, "UPDATE subscribers SET status = ? WHERE account_id = ? AND id IN "+list, append([]any{value, account}, a...)...); err != nil {
				return translate(err)
			}
		}
	}
	return nil
}

func sameTerm(a, b subscriberTerm) bool {
	return a.storefront == b.storefront && a.start.Equal(b.start) && (a.end == nil) == (b.end == nil) && (a.end == nil || a.end.Equal(*b.end))
}

// subscribersByID joins subscribers, read by their ids (a "sb.id IN" list), to their
// storefronts. The order and the index are fixed: left to itself, MariaDB starts from
// the storefronts and reads every subscriber of each through
// subscribers_storefront_created whenever its statistics take subscribers for a small
// table, as they do in an import into a fresh database, where the table was analysed
// empty and the import's transaction has not committed. Each batch then read all the
// subscribers written before it, and an import of 100,000 slowed from 9,400 records/s
// to 2,200.
const subscribersByID = "subscribers sb FORCE INDEX (PRIMARY) STRAIGHT_JOIN storefronts sf ON sf.id = sb.storefront_id"

// subscriberAccounts maps subscribers to the accounts of their storefronts as the rows
// say now in tx.
func subscriberAccounts(ctx context.Context, tx queryer, ids []int64) (map[int64][]int64, error) {
	out := map[int64][]int64{}
	for start := 0; start < len(ids); start += 10000 {
		list, args := inList(ids[start:min(start+10000, len(ids))])
		err := eachRow(ctx, tx, "SELECT sb.id, sf.account_id FROM "+subscribersByID+" WHERE sb.id IN "+list, args,
			func(rows *sql.Rows) error {
				var id, account int64
				if err := rows.Scan(&id, &account); err != nil {
					return err
				}
				out[account] = append(out[account], id)
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// subscriberRollups follows subscribers through a change of their subscriptions: the
// accounts that held them before and after have their terms brought in line.
type subscriberRollups struct {
	ids    []int64
	before map[int64][]int64
}

// trackSubscriberRollups notes which accounts hold the subscribers before a change, and
// with them the holders of the subscriptions subIDs (which the change may take over).
func trackSubscriberRollups(ctx context.Context, tx queryer, ids, subIDs []int64) (*subscriberRollups, error) {
	ids = append([]int64(nil), ids...)
	for start := 0; start < len(subIDs); start += 10000 {
		list, args := inList(subIDs[start:min(start+10000, len(subIDs))])
		var err error
		ids, err = appendIDs(ctx, tx, ids, "SELECT subscriber_id FROM subscriptions WHERE id IN "+list, args...)
		if err != nil {
			return nil, fmt.Errorf("rollups: %w", err)
		}
	}
	before, err := subscriberAccounts(ctx, tx, ids)
	if err != nil {
		return nil, fmt.Errorf("rollups: %w", err)
	}
	return &subscriberRollups{ids: ids, before: before}, nil
}

// apply brings the terms and rollups of every account involved in line.
func (r *subscriberRollups) apply(ctx context.Context, tx queryer) error {
	after, err := subscriberAccounts(ctx, tx, r.ids)
	if err != nil {
		return fmt.Errorf("rollups: %w", err)
	}
	for account, ids := range after {
		r.before[account] = append(r.before[account], ids...)
	}
	for account, ids := range r.before {
		if err := syncSubscribers(ctx, tx, account, ids); err != nil {
			return err
		}
	}
	return nil
}

// SyncSubscriberRollups brings the statuses and terms of subscribers just written in tx
// (ids of one account) into their rows and the rollups: for writers of new subscribers,
// such as the seeder.
func SyncSubscriberRollups(ctx context.Context, sqlTx *sql.Tx, account int64, ids []int64) error {
	tx := &Tx{Tx: sqlTx} // the seed's transaction queues no background work
	return syncSubscribers(ctx, tx, account, ids)
}
