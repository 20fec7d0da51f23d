package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// Webhook events are written in the transaction of the change they report: an event
// row (webhook_events) with the exact body to deliver, and one delivery row per
// enabled endpoint of the account that takes its type (webhook_deliveries). An account
// without such an endpoint gets no event: there is no one to deliver it to.

// hookTarget is an enabled endpoint, as event writers need it.
type hookTarget struct {
	id    int64
	types []string
}

func (h hookTarget) takes(typ string) bool {
	e := shop.WebhookEndpoint{EventTypes: h.types}
	return e.Takes(typ)
}

// hookTargets returns the account's enabled endpoints.
func hookTargets(ctx context.Context, q queryer, accountID int64) ([]hookTarget, error) {
	var out []hookTarget
	err := eachRow(ctx, q, "SELECT id, event_types FROM webhook_endpoints WHERE account_id = ? AND enabled ORDER BY id",
		[]any{accountID}, func(rows *sql.Rows) error {
			var h hookTarget
			var types string
			if err := rows.Scan(&h.id, &types); err != nil {
				return err
			}
			h.types = splitTypes(types)
			out = append(out, h)
			return nil
		})
	return out, err
}

// hookedAccounts returns the accounts that have an enabled endpoint, among all: one
// cheap read, so that a bulk writer does the work of events only for them.
func hookedAccounts(ctx context.Context, q queryer) (map[int64]bool, error) {
	out := map[int64]bool{}
	err := eachRow(ctx, q, "SELECT DISTINCT account_id FROM webhook_endpoints WHERE enabled", nil, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		out[id] = true
		return nil
	})
	return out, err
}

func splitTypes(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// pendingEvent is an event to record: its type and its data.object.
type pendingEvent struct {
	typ    string
	object []byte
}

// recordEvent writes an event of the account whose data.object is object, with a
// delivery to each of targets that takes its type, due at now. It writes nothing when
// none takes it, and returns the event id, or "".
func recordEvent(ctx context.Context, tx *Tx, accountID int64, targets []hookTarget, typ string, object []byte, now time.Time) (string, error) {
	ids, err := recordEvents(ctx, tx, accountID, targets, []pendingEvent{{typ, object}}, now)
	if err != nil || len(ids) == 0 {
		return "", err
	}
	return ids[0], nil
}

// eventBatch bounds the events written in one statement.
const eventBatch = 500

// recordEvents writes events of the account as recordEvent does, a batch to a
// statement, and returns the ids of those it wrote.
func recordEvents(ctx context.Context, tx *Tx, accountID int64, targets []hookTarget, events []pendingEvent, now time.Time) ([]string, error) {
	now = now.UTC().Truncate(time.Second)
	var ids []string
	// The deliveries of a batch stay well below the protocol's 65,535 placeholders.
	batch := max(1, min(eventBatch, 8000/max(1, len(targets))))
	parent := traceParent(ctx)
	for start := 0; start < len(events); start += batch {
		var evArgs, dlArgs []any
		nEv, nDl := 0, 0
		for _, e := range events[start:min(start+batch, len(events))] {
			var to []int64
			for _, h := range targets {
				if h.takes(e.typ) {
					to = append(to, h.id)
				}
			}
			if len(to) == 0 {
				continue
			}
			id := webhook.NewEventID()
			body, err := webhook.EventBody(id, e.typ, now.Unix(), accountID, e.object)
			if err != nil {
				return ids, fmt.Errorf("event body: %w", err)
			}
			evArgs = append(evArgs, accountID, id, e.typ, now, body, parent)
			nEv++
			for _, ep := range to {
				dlArgs = append(dlArgs, accountID, ep, id, now, now.Add(webhook.RetryFor), now)
				nDl++
			}
			ids = append(ids, id)
		}
		if nEv == 0 {
			continue
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO webhook_events (account_id, event_id, type, created_at, body, traceparent) VALUES "+
			rowPlaceholders(nEv, 6), evArgs...); err != nil {
			return ids, fmt.Errorf("record events: %w", translate(err))
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO webhook_deliveries (account_id, endpoint_id, event_id, next_attempt_at, give_up_at, created_at) VALUES "+
			rowPlaceholders(nDl, 6), dlArgs...); err != nil {
			return ids, fmt.Errorf("record deliveries: %w", translate(err))
		}
		tx.queue(WorkWebhooks)
	}
	return ids, nil
}

// recordAccountEvent is recordEvent for a writer that has not read the account's
// endpoints: a reactivation, the past-due sweeper.
func recordAccountEvent(ctx context.Context, tx *Tx, accountID int64, typ string, object []byte, now time.Time) (string, error) {
	targets, err := hookTargets(ctx, tx, accountID)
	if err != nil || len(targets) == 0 {
		return "", err
	}
	return recordEvent(ctx, tx, accountID, targets, typ, object, now)
}

// storedDocuments reads the stored documents of an account's purchases, as they are,
// by purchase id; a purchase without one is absent.
func storedDocuments(ctx context.Context, q queryer, accountID int64, ids []int64) (map[int64][]byte, error) {
	out := make(map[int64][]byte, len(ids))
	for start := 0; start < len(ids); start += documentBatch {
		part := ids[start:min(start+documentBatch, len(ids))]
		list, args := inList(part)
		err := eachRow(ctx, q, "SELECT purchase_id, document FROM purchase_documents WHERE account_id = ? AND purchase_id IN "+list,
			append([]any{accountID}, args...), func(rows *sql.Rows) error {
				var id int64
				var doc []byte
				if err := rows.Scan(&id, &doc); err != nil {
					return err
				}
				out[id] = doc
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// recordPurchaseChanges writes purchase.created for each purchase of ids that had no
// document before and purchase.updated for each whose document changed, comparing
// before with the documents stored now.
func recordPurchaseChanges(ctx context.Context, tx *Tx, accountID int64, targets []hookTarget, ids []int64, before map[int64][]byte, now time.Time) (int, error) {
	after, err := storedDocuments(ctx, tx, accountID, ids)
	if err != nil {
		return 0, err
	}
	var events []pendingEvent
	for _, id := range ids {
		doc, ok := after[id]
		if !ok {
			continue
		}
		old, existed := before[id]
		typ := shop.EventPurchaseCreated
		if existed {
			if bytes.Equal(old, doc) {
				continue
			}
			typ = shop.EventPurchaseUpdated
		}
		events = append(events, pendingEvent{typ, doc})
	}
	written, err := recordEvents(ctx, tx, accountID, targets, events, now)
	return len(written), err
}

// subscriberDocument is what the subscriber route answers for a subscriber, read in q.
func (db *DB) subscriberDocument(ctx context.Context, q queryer, accountID, storefrontID, subscriberID int64) ([]byte, error) {
	page, err := db.findSubscribers(ctx, q, shop.SubscriberFilter{AccountID: accountID, StorefrontID: storefrontID, PerPage: 1}, subscriberID)
	if err != nil {
		return nil, err
	}
	if len(page.Subscribers) == 0 {
		return nil, shop.Errorf(shop.ENotFound, "Subscriber %d was not found.", subscriberID)
	}
	return json.Marshal(page.Subscribers[0])
}

// recordSubscriptionChange writes subscription.updated for a subscriber whose
// subscription's status went from one value to another ("" for none).
func (db *DB) recordSubscriptionChange(ctx context.Context, tx *Tx, accountID int64, targets []hookTarget, storefrontID, subscriberID int64, now time.Time) error {
	doc, err := db.subscriberDocument(ctx, tx, accountID, storefrontID, subscriberID)
	if err != nil {
		return err
	}
	_, err = recordEvent(ctx, tx, accountID, targets, shop.EventSubscriptionUpdated, doc, now)
	return err
}

// reactivatedEvent records purchase.reactivated with the purchase's new document.
func reactivatedEvent(ctx context.Context, tx *Tx, accountID int64, p *shop.Purchase, now time.Time) error {
	doc, err := purchaseDocument(p)
	if err != nil {
		return err
	}
	_, err = recordAccountEvent(ctx, tx, accountID, shop.EventPurchaseReactivated, doc, now)
	return err
}

// hookCache holds the accounts' enabled endpoints for one transaction that writes
// events of several rows.
type hookCache map[int64][]hookTarget

func (h hookCache) targets(ctx context.Context, q queryer, accountID int64) ([]hookTarget, error) {
	if ts, ok := h[accountID]; ok {
		return ts, nil
	}
	ts, err := hookTargets(ctx, q, accountID)
	if err == nil {
		h[accountID] = ts
	}
	return ts, err
}

// closedEvent records subscription.updated for a subscription the past-due sweeper
// closed.
func (db *DB) closedEvent(ctx context.Context, tx *Tx, hooks hookCache, accountID, storefrontID, subscriberID int64, now time.Time) error {
	targets, err := hooks.targets(ctx, tx, accountID)
	if err != nil || len(targets) == 0 {
		return err
	}
	return db.recordSubscriptionChange(ctx, tx, accountID, targets, storefrontID, subscriberID, now)
}
