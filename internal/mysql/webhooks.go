package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// Delivery states.
const (
	deliveryQueued    = "queued"
	deliverySending   = "sending"
	deliveryDelivered = "delivered"
	deliveryFailed    = "failed"
)

// rotationWindow is how long a replaced secret still signs deliveries.
const rotationWindow = 24 * time.Hour

func (db *DB) guard() *webhook.Guard {
	if db.WebhookGuard != nil {
		return db.WebhookGuard
	}
	return &webhook.Guard{}
}

const endpointColumns = "id, account_id, url, event_types, enabled, COALESCE(disabled_reason, ''), previous_secret_until, failing_since, created_at"

func scanEndpoint(rows interface{ Scan(...any) error }, now time.Time) (*shop.WebhookEndpoint, error) {
	var e shop.WebhookEndpoint
	var types string
	if err := rows.Scan(&e.ID, &e.AccountID, &e.URL, &types, &e.Enabled, &e.DisabledReason, &e.PreviousSecretUntil, &e.FailingSince, &e.CreatedAt); err != nil {
		return nil, err
	}
	e.EventTypes = splitTypes(types)
	if e.PreviousSecretUntil != nil && e.PreviousSecretUntil.After(now) {
		e.Rotating = true
	} else {
		e.PreviousSecretUntil = nil
	}
	return &e, nil
}

// CreateWebhookEndpoint implements shop.WebhookService.
func (s *WebhookService) CreateWebhookEndpoint(ctx context.Context, accountID int64, url string, types []string) (*shop.WebhookEndpoint, string, error) {
	db := s.db
	for _, t := range types {
		if _, err := shop.ParseEventTypes(t); err != nil {
			return nil, "", err
		}
	}
	if err := db.guard().CheckURL(ctx, url); err != nil {
		return nil, "", err
	}
	now := db.nowSecond()
	secret := webhook.NewSecret()
	var id int64
	err := db.inTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO webhook_endpoints (account_id, url, event_types, secret, enabled, created_at, updated_at)
		VALUES (?, ?, ?, ?, TRUE, ?, ?)`, accountID, url, strings.Join(types, ","), secret, now, now)
		if err != nil {
			return fmt.Errorf("create webhook endpoint: %w", translate(err))
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		events := strings.Join(types, ", ")
		if events == "" {
			events = "every event"
		}
		return recordAudit(ctx, tx, now, accountID, shop.AuditWebhookAdded, fmt.Sprintf("endpoint %d %s (%s)", id, url, events))
	})
	if err != nil {
		return nil, "", err
	}
	e, err := s.FindWebhookEndpoint(ctx, accountID, id)
	return e, secret, err
}

// FindWebhookEndpoints implements shop.WebhookService.
func (s *WebhookService) FindWebhookEndpoints(ctx context.Context, accountID int64) ([]*shop.WebhookEndpoint, error) {
	db := s.db
	out := []*shop.WebhookEndpoint{}
	now := db.Now()
	err := eachRow(ctx, db.DB, "SELECT "+endpointColumns+" FROM webhook_endpoints WHERE account_id = ? ORDER BY id", []any{accountID},
		func(rows *sql.Rows) error {
			e, err := scanEndpoint(rows, now)
			if err != nil {
				return err
			}
			out = append(out, e)
			return nil
		})
	return out, err
}

// FindWebhookEndpoint implements shop.WebhookService.
func (s *WebhookService) FindWebhookEndpoint(ctx context.Context, accountID, id int64) (*shop.WebhookEndpoint, error) {
	db := s.db
	row := db.QueryRowContext(ctx, "SELECT "+endpointColumns+" FROM webhook_endpoints WHERE account_id = ? AND id = ?", accountID, id)
	e, err := scanEndpoint(row, db.Now())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shop.Errorf(shop.ENotFound, "Webhook endpoint %d was not found.", id)
	}
	if err != nil {
		return nil, translate(err)
	}
	return e, nil
}

// WebhookEndpointAccount returns the account of an endpoint, for the command that
// deletes one by id alone. Returns ENotFound.
func (s *WebhookService) WebhookEndpointAccount(ctx context.Context, id int64) (int64, error) {
	var account int64
	err := s.db.QueryRowContext(ctx, "SELECT account_id FROM webhook_endpoints WHERE id = ?", id).Scan(&account)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, shop.Errorf(shop.ENotFound, "Webhook endpoint %d was not found.", id)
	}
	return account, translate(err)
}

// endpointChanged reports ENotFound when an UPDATE of an endpoint matched no row.
func endpointChanged(res sql.Result, err error, id int64) error {
	ok, err := affected(res, err, "change webhook endpoint", id)
	if err != nil {
		return err
	}
	if !ok {
		return shop.Errorf(shop.ENotFound, "Webhook endpoint %d was not found.", id)
	}
	return nil
}

// SetWebhookEndpointEnabled implements shop.WebhookService. Enabling starts a new run:
// the failures before it no longer count towards disabling.
func (s *WebhookService) SetWebhookEndpointEnabled(ctx context.Context, accountID, id int64, enabled bool) error {
	db := s.db
	now := db.nowSecond()
	return db.inTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET enabled = ?, disabled_reason = NULL, failing_since = NULL, updated_at = ?
		WHERE account_id = ? AND id = ?`, enabled, now, accountID, id)
		if err := endpointChanged(res, err, id); err != nil {
			return err
		}
		what := map[bool]string{true: "enabled", false: "disabled"}[enabled]
		return recordAudit(ctx, tx, now, accountID, shop.AuditWebhookChanged, fmt.Sprintf("endpoint %d %s", id, what))
	})
}

// RotateWebhookSecret implements shop.WebhookService.
func (s *WebhookService) RotateWebhookSecret(ctx context.Context, accountID, id int64) (string, error) {
	db := s.db
	now := db.nowSecond()
	secret := webhook.NewSecret()
	err := db.inTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = ?, secret = ?, updated_at = ?
		WHERE account_id = ? AND id = ?`, now.Add(rotationWindow), secret, now, accountID, id)
		if err := endpointChanged(res, err, id); err != nil {
			return err
		}
		return recordAudit(ctx, tx, now, accountID, shop.AuditWebhookRotated, fmt.Sprintf("endpoint %d", id))
	})
	if err != nil {
		return "", err
	}
	return secret, nil
}

// DeleteWebhookEndpoint implements shop.WebhookService. The events stay: other
// endpoints may have them.
func (s *WebhookService) DeleteWebhookEndpoint(ctx context.Context, accountID, id int64) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		var url string
		err := tx.QueryRowContext(ctx, "SELECT url FROM webhook_endpoints WHERE account_id = ? AND id = ? FOR UPDATE", accountID, id).Scan(&url)
		if errors.Is(err, sql.ErrNoRows) {
			return shop.Errorf(shop.ENotFound, "Webhook endpoint %d was not found.", id)
		}
		if err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM webhook_endpoints WHERE account_id = ? AND id = ?", accountID, id); err != nil {
			return translate(err)
		}
		if err := recordAudit(ctx, tx, s.db.Now(), accountID, shop.AuditWebhookDeleted, fmt.Sprintf("endpoint %d %s", id, url)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE a FROM webhook_attempts a
			JOIN webhook_deliveries d ON d.account_id = a.account_id AND d.id = a.delivery_id
			WHERE a.account_id = ? AND d.account_id = ? AND d.endpoint_id = ?`, accountID, accountID, id); err != nil {
			return translate(err)
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ?", accountID, id)
		return translate(err)
	})
}

// SendTestEvent implements shop.WebhookService.
func (s *WebhookService) SendTestEvent(ctx context.Context, accountID, id int64) (string, error) {
	db := s.db
	e, err := s.FindWebhookEndpoint(ctx, accountID, id)
	if err != nil {
		return "", err
	}
	if !e.Enabled {
		return "", shop.Errorf(shop.EInvalid, "Webhook endpoint %d is disabled; enable it first.", id)
	}
	object := fmt.Appendf(nil, `{"object":"test","endpoint_id":%d,"message":"A test event from storefront."}`, id)
	var eventID string
	err = db.inTx(ctx, func(tx *Tx) error {
		var err error
		eventID, err = recordEvent(ctx, tx, accountID, []hookTarget{{id: id}}, shop.EventTest, object, db.Now())
		return err
	})
	return eventID, err
}

// FindWebhookDeliveries implements shop.WebhookService.
func (s *WebhookService) FindWebhookDeliveries(ctx context.Context, accountID, endpointID int64, limit int) ([]*shop.WebhookDelivery, error) {
	db := s.db
	if _, err := s.FindWebhookEndpoint(ctx, accountID, endpointID); err != nil {
		return nil, err
	}
	out := []*shop.WebhookDelivery{}
	byID := map[int64]*shop.WebhookDelivery{}
	err := eachRow(ctx, db.DB, `SELECT d.id, d.endpoint_id, d.event_id, e.type, d.status, d.attempts, d.next_attempt_at, d.last_status,
			COALESCE(d.last_error, ''), d.created_at, d.delivered_at, e.body
		FROM webhook_deliveries d
		JOIN webhook_events e ON e.account_id = d.account_id AND e.event_id = d.event_id
		WHERE d.account_id = ? AND e.account_id = ? AND d.endpoint_id = ?
		ORDER BY d.id DESC LIMIT ?`, []any{accountID, accountID, endpointID, limit}, func(rows *sql.Rows) error {
		var d shop.WebhookDelivery
		var next shop.Time
		if err := rows.Scan(&d.ID, &d.EndpointID, &d.EventID, &d.EventType, &d.Status, &d.Attempts, &next, &d.LastStatus,
			&d.LastError, &d.CreatedAt, &d.DeliveredAt, &d.Body); err != nil {
			return err
		}
		if d.Status == deliveryQueued || d.Status == deliverySending {
			d.NextAttemptAt = &next
		}
		d.Log = []shop.WebhookAttempt{}
		out = append(out, &d)
		byID[d.ID] = &d
		return nil
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	ids := make([]int64, len(out))
	for i, d := range out {
		ids[i] = d.ID
	}
	list, args := inList(ids)
	err = eachRow(ctx, db.DB, `SELECT delivery_id, attempt, started_at, duration_ms, request_headers, status_code, COALESCE(error, ''), COALESCE(response_body, '')
		FROM webhook_attempts WHERE account_id = ? AND delivery_id IN `+list+` ORDER BY id DESC`, append([]any{accountID}, args...),
		func(rows *sql.Rows) error {
			var a shop.WebhookAttempt
			var id, ms int64
			if err := rows.Scan(&id, &a.Attempt, &a.StartedAt, &ms, &a.RequestHeaders, &a.StatusCode, &a.Error, &a.ResponseBody); err != nil {
				return err
			}
			a.Duration = time.Duration(ms) * time.Millisecond
			d := byID[id]
			d.Log = append(d.Log, a)
			return nil
		})
	return out, err
}

// ResendWebhookDelivery implements shop.WebhookService: the delivery is due now, with
// a new three-day window of retries, its event unchanged.
func (s *WebhookService) ResendWebhookDelivery(ctx context.Context, accountID, deliveryID int64) error {
	db := s.db
	now := db.nowSecond()
	err := db.inTx(ctx, func(tx *Tx) error {
		var endpointID int64
		var status string
		err := tx.QueryRowContext(ctx, "SELECT endpoint_id, status FROM webhook_deliveries WHERE account_id = ? AND id = ? FOR UPDATE",
			accountID, deliveryID).Scan(&endpointID, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return shop.Errorf(shop.ENotFound, "Webhook delivery %d was not found.", deliveryID)
		}
		if err != nil {
			return translate(err)
		}
		var enabled bool
		if err := tx.QueryRowContext(ctx, "SELECT enabled FROM webhook_endpoints WHERE account_id = ? AND id = ?", accountID, endpointID).Scan(&enabled); err != nil {
			return translate(err)
		}
		if !enabled {
			return shop.Errorf(shop.EInvalid, "Webhook endpoint %d is disabled; enable it to resend.", endpointID)
		}
		if status == deliverySending {
			return shop.Errorf(shop.EInvalid, "Delivery %d is being attempted now; resend it once the attempt ends.", deliveryID)
		}
		_, err = tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, give_up_at = ?
			WHERE account_id = ? AND id = ?`, deliveryQueued, now, now.Add(webhook.RetryFor), accountID, deliveryID)
		tx.queue(WorkWebhooks)
		return translate(err)
	})
	return err
}

// ClaimDeliveries implements webhook.Store, as ClaimEmails does: one short READ
// COMMITTED transaction picks due rows with SKIP LOCKED and leases them. The queue is
// read across accounts (webhook_deliveries_due); everything after names the account.
func (s *WebhookDeliveryStore) ClaimDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]webhook.Claimed, error) {
	now = now.UTC().Truncate(time.Second)
	leaseUntil = leaseUntil.UTC().Truncate(time.Second)
	if !leaseUntil.After(now) {
		return nil, errors.New("claim deliveries: the lease must end after now")
	}
	var claimed []webhook.Claimed
	err := s.db.inTxWith(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *Tx) error {
		claimed = claimed[:0]
		// A 'sending' row that is due again lost its attempt (its process stopped):
		// it is attempted again.
		err := eachRow(ctx, tx, `SELECT account_id, id, endpoint_id, event_id, attempts, give_up_at
			FROM webhook_deliveries
			WHERE status IN (?, ?) AND next_attempt_at <= ?
			ORDER BY next_attempt_at, id
			LIMIT ?
			FOR UPDATE SKIP LOCKED`, []any{deliveryQueued, deliverySending, now, limit}, func(rows *sql.Rows) error {
			var c webhook.Claimed
			if err := rows.Scan(&c.AccountID, &c.ID, &c.EndpointID, &c.EventID, &c.Attempt, &c.GiveUpAt); err != nil {
				return err
			}
			c.Attempt++
			c.LeaseUntil = leaseUntil
			claimed = append(claimed, c)
			return nil
		})
		if err != nil || len(claimed) == 0 {
			return err
		}
		type endpoint struct {
			url, secret, previous string
			until                 *time.Time
			enabled               bool
		}
		byAccount := map[int64][]int{}
		for i, c := range claimed {
			byAccount[c.AccountID] = append(byAccount[c.AccountID], i)
		}
		var dead []webhook.Claimed
		kept := claimed[:0:0]
		for account, idx := range byAccount {
			epIDs, evIDs := make([]any, 0, len(idx)), make([]any, 0, len(idx))
			for _, i := range idx {
				epIDs = append(epIDs, claimed[i].EndpointID)
				evIDs = append(evIDs, claimed[i].EventID)
			}
			eps := map[int64]*endpoint{}
			err := eachRow(ctx, tx, "SELECT id, url, secret, COALESCE(previous_secret, ''), previous_secret_until, enabled FROM webhook_endpoints WHERE account_id = ? AND id IN ("+placeholders(len(epIDs))+")",
				append([]any{account}, epIDs...), func(rows *sql.Rows) error {
					var id int64
					var e endpoint
					if err := rows.Scan(&id, &e.url, &e.secret, &e.previous, &e.until, &e.enabled); err != nil {
						return err
					}
					eps[id] = &e
					return nil
				})
			if err != nil {
				return err
			}
			bodies, parents := map[string][]byte{}, map[string]string{}
			err = eachRow(ctx, tx, "SELECT event_id, body, traceparent FROM webhook_events WHERE account_id = ? AND event_id IN ("+placeholders(len(evIDs))+")",
				append([]any{account}, evIDs...), func(rows *sql.Rows) error {
					var id string
					var body []byte
					var parent sql.NullString
					if err := rows.Scan(&id, &body, &parent); err != nil {
						return err
					}
					bodies[id], parents[id] = body, parent.String
					return nil
				})
			if err != nil {
				return err
			}
			for _, i := range idx {
				c := claimed[i]
				e := eps[c.EndpointID]
				if e == nil || !e.enabled || bodies[c.EventID] == nil {
					dead = append(dead, c)
					continue
				}
				c.URL, c.Body, c.Secrets, c.TraceParent = e.url, bodies[c.EventID], []string{e.secret}, parents[c.EventID]
				if e.previous != "" && e.until != nil && e.until.After(now) {
					c.Secrets = append(c.Secrets, e.previous)
				}
				kept = append(kept, c)
			}
		}
		// One UPDATE per account leases what was claimed.
		leased := map[int64][]any{}
		for _, c := range kept {
			leased[c.AccountID] = append(leased[c.AccountID], c.ID)
		}
		for account, ids := range leased {
			if _, err := tx.ExecContext(ctx, "UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ? WHERE account_id = ? AND id IN ("+placeholders(len(ids))+")",
				append([]any{deliverySending, leaseUntil, account}, ids...)...); err != nil {
				return translate(err)
			}
		}
		for _, c := range dead {
			if _, err := tx.ExecContext(ctx, "UPDATE webhook_deliveries SET status = ?, last_error = ? WHERE account_id = ? AND id = ?",
				deliveryFailed, "the endpoint is disabled or deleted", c.AccountID, c.ID); err != nil {
				return translate(err)
			}
		}
		claimed = kept
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("claim deliveries: %w", err)
	}
	return claimed, nil
}

// RenewDeliveries implements webhook.Store: one UPDATE per account, by primary key in
// ascending order, in a READ COMMITTED transaction of its own.
func (s *WebhookDeliveryStore) RenewDeliveries(ctx context.Context, claimed []webhook.Claimed, leaseUntil, newLease time.Time) error {
	cs := slices.Clone(claimed)
	slices.SortFunc(cs, func(a, b webhook.Claimed) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.ID, b.ID))
	})
	return s.db.inTxWith(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *Tx) error {
		for len(cs) > 0 {
			account := cs[0].AccountID
			args := []any{newLease.UTC().Truncate(time.Second), account}
			for len(cs) > 0 && cs[0].AccountID == account {
				args = append(args, cs[0].ID)
				cs = cs[1:]
			}
			args = append(args, deliverySending, leaseUntil.UTC().Truncate(time.Second))
			if _, err := tx.ExecContext(ctx, "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE account_id = ? AND id IN ("+
				placeholders(len(args)-4)+") AND status = ? AND next_attempt_at = ?", args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// RecordAttempts implements webhook.Store: in one transaction, each attempt's log row,
// its delivery's new state (if the lease is still that claim's), and each endpoint's
// run of failures, which disables it after webhook.RetryFor with an e-mail to each of
// the account's owners. Rows are changed in the order of their keys, deliveries before
// endpoints, so that deliverers recording at once wait for each other rather than
// deadlock; a deadlock that happens anyway is run again.
func (s *WebhookDeliveryStore) RecordAttempts(ctx context.Context, results []webhook.Result) error {
	db := s.db
	if len(results) == 0 {
		return nil
	}
	rs := slices.Clone(results)
	slices.SortFunc(rs, func(a, b webhook.Result) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.ID, b.ID))
	})
	var err error
	for try := 0; try < 3; try++ {
		err = db.inTxWith(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted}, func(tx *Tx) error {
			return db.recordAttempts(ctx, tx, rs)
		})
		if !isDeadlock(err) {
			break
		}
		if try < 2 {
			db.deadlockRetried(retryWebhookAttempts)
		}
	}
	if err != nil {
		return fmt.Errorf("record %d attempts: %w", len(rs), err)
	}
	return nil
}

func (db *DB) recordAttempts(ctx context.Context, tx *Tx, rs []webhook.Result) error {
	args := make([]any, 0, 9*len(rs))
	for _, r := range rs {
		var status, errText any
		if r.StatusCode != 0 {
			status = r.StatusCode
		}
		if r.Err != "" {
			errText = truncate(r.Err, 2000)
		}
		args = append(args, r.AccountID, r.ID, r.Attempt, r.StartedAt.UTC(), r.Duration.Milliseconds(), r.RequestHeaders,
			status, errText, r.ResponseBody)
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO webhook_attempts (account_id, delivery_id, attempt, started_at, duration_ms, request_headers, status_code, error, response_body) VALUES "+
		rowPlaceholders(len(rs), 9), args...); err != nil {
		return translate(err)
	}
	type endpointKey struct{ account, id int64 }
	succeeded := map[endpointKey]bool{}
	// Each account's deliveries move on in one UPDATE, joined to their new states; a
	// delivery whose lease another claim took over (its next_attempt_at moved) is left
	// alone.
	states := map[int64][]any{}
	for _, r := range rs {
		var status, errText, deliveredAt any
		if r.StatusCode != 0 {
			status = r.StatusCode
		}
		if r.Err != "" {
			errText = truncate(r.Err, 2000)
		}
		next, state := r.NextAttemptAt, deliveryQueued
		switch {
		case r.Delivered:
			state, next, deliveredAt = deliveryDelivered, r.StartedAt, r.StartedAt.UTC().Truncate(time.Second)
			succeeded[endpointKey{r.AccountID, r.EndpointID}] = true
		case next.IsZero():
			state, next = deliveryFailed, r.StartedAt
		}
		states[r.AccountID] = append(states[r.AccountID], r.ID, r.LeaseUntil.UTC().Truncate(time.Second), state,
			next.UTC().Truncate(time.Second), status, errText, deliveredAt)
	}
	for account, args := range states {
		rows := len(args) / 7
		values := "SELECT CAST(? AS SIGNED) AS id, CAST(? AS DATETIME) AS lease, CAST(? AS CHAR(16)) AS status, CAST(? AS DATETIME) AS next_at, " +
			"CAST(? AS SIGNED) AS last_status, CAST(? AS CHAR(2000)) AS last_error, CAST(? AS DATETIME) AS delivered_at" +
			strings.Repeat(" UNION ALL SELECT ?, ?, ?, ?, ?, ?, ?", rows-1)
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(`UPDATE webhook_deliveries d JOIN (%s) v ON v.id = d.id
			SET d.status = v.status, d.next_attempt_at = v.next_at, d.last_status = v.last_status, d.last_error = v.last_error, d.delivered_at = v.delivered_at
			WHERE d.account_id = ? AND d.status = ? AND d.next_attempt_at = v.lease`, values), append(args, account, deliverySending)...); err != nil {
			return translate(err)
		}
	}
	// Endpoints, in key order: a delivery ends a run of failures; otherwise each
	// failure counts.
	byEndpoint := slices.Clone(rs)
	slices.SortStableFunc(byEndpoint, func(a, b webhook.Result) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.EndpointID, b.EndpointID))
	})
	done := map[endpointKey]bool{}
	for _, r := range byEndpoint {
		k := endpointKey{r.AccountID, r.EndpointID}
		if succeeded[k] {
			if !done[k] {
				done[k] = true
				if _, err := tx.ExecContext(ctx, "UPDATE webhook_endpoints SET failing_since = NULL WHERE account_id = ? AND id = ? AND failing_since IS NOT NULL",
					r.AccountID, r.EndpointID); err != nil {
					return translate(err)
				}
			}
			continue
		}
		if err := db.countFailure(ctx, tx, r.Claimed, r.StartedAt, r.NextAttemptAt.IsZero()); err != nil {
			return err
		}
	}
	return nil
}

// countFailure records a failed attempt against its endpoint, and disables the
// endpoint when every attempt has failed for webhook.RetryFor: its pending deliveries
// fail and its account's owners are sent an e-mail.
//
// The run of failures starts when the first failed delivery was queued (its window
// of retries began then), and a delivery that fails for good ends it at its deadline:
// so the first delivery that is never delivered disables the endpoint.
func (db *DB) countFailure(ctx context.Context, tx *Tx, c webhook.Claimed, at time.Time, gaveUp bool) error {
	accountID, endpointID := c.AccountID, c.EndpointID
	at = at.UTC().Truncate(time.Second)
	start := at
	if queued := c.GiveUpAt.UTC().Add(-webhook.RetryFor).Truncate(time.Second); queued.Before(at) {
		start = queued
	}
	end := at
	if gaveUp && c.GiveUpAt.After(at) {
		end = c.GiveUpAt.UTC()
	}
	var (
		url     string
		enabled bool
		since   *time.Time
	)
	err := tx.QueryRowContext(ctx, "SELECT url, enabled, failing_since FROM webhook_endpoints WHERE account_id = ? AND id = ? FOR UPDATE",
		accountID, endpointID).Scan(&url, &enabled, &since)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return translate(err)
	}
	if since == nil {
		if _, err := tx.ExecContext(ctx, "UPDATE webhook_endpoints SET failing_since = ? WHERE account_id = ? AND id = ?", start, accountID, endpointID); err != nil {
			return translate(err)
		}
		since = &start
	}
	if !enabled || end.Sub(*since) < webhook.RetryFor {
		return nil
	}
	reason := fmt.Sprintf("Every attempt failed from %s to %s.", since.UTC().Format("2006-01-02 15:04 MST"), end.Format("2006-01-02 15:04 MST"))
	if _, err := tx.ExecContext(ctx, "UPDATE webhook_endpoints SET enabled = FALSE, disabled_reason = ?, updated_at = ? WHERE account_id = ? AND id = ?",
		reason, at, accountID, endpointID); err != nil {
		return translate(err)
	}
	if _, err := tx.ExecContext(ctx, "UPDATE webhook_deliveries SET status = ?, last_error = ? WHERE account_id = ? AND endpoint_id = ? AND status = ?",
		deliveryFailed, "the endpoint was disabled", accountID, endpointID, deliveryQueued); err != nil {
		return translate(err)
	}
	var owners []string
	err = eachRow(ctx, tx, "SELECT email FROM users WHERE account_id = ? AND role = ? ORDER BY id", []any{accountID, shop.RoleOwner}, func(rows *sql.Rows) error {
		var e string
		if err := rows.Scan(&e); err != nil {
			return err
		}
		owners = append(owners, e)
		return nil
	})
	if err != nil {
		return err
	}
	for _, to := range owners {
		if _, err := enqueueEmail(ctx, tx, shop.Email{AccountID: accountID, Kind: shop.EmailWebhookDisabled, To: to,
			Facts: shop.EmailFacts{EndpointID: endpointID, EndpointURL: url, Reason: reason}}, at); err != nil {
			return err
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
