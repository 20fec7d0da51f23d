package mysql

import (
	"context"
	"database/sql"

	"storefront/internal/shop"
)

// The webhook events of an import (webhook_events.go): purchase.created and
// purchase.updated for purchases whose API document it created or changed, and
// subscription.updated for subscribers whose subscription status it changed, all in
// the import's transaction. Accounts without an enabled endpoint cost one read per
// import.

// targets returns the account's enabled endpoints, read once per import; none for an
// account without any.
func (t *importTx) targets(ctx context.Context, accountID int64) ([]hookTarget, error) {
	if t.hooked == nil {
		h, err := hookedAccounts(ctx, t.tx)
		if err != nil {
			return nil, err
		}
		t.hooked, t.hookTargets = h, map[int64][]hookTarget{}
	}
	if !t.hooked[accountID] {
		return nil, nil
	}
	if ts, ok := t.hookTargets[accountID]; ok {
		return ts, nil
	}
	ts, err := hookTargets(ctx, t.tx, accountID)
	if err != nil {
		return nil, err
	}
	t.hookTargets[accountID] = ts
	return ts, nil
}

// documentsBefore returns the stored documents of an account's purchases before the
// import rewrites them, or nil when the account takes no events.
func (t *importTx) documentsBefore(ctx context.Context, accountID int64, ids []int64) (map[int64][]byte, error) {
	ts, err := t.targets(ctx, accountID)
	if err != nil || len(ts) == 0 || len(ids) == 0 {
		return nil, err
	}
	return storedDocuments(ctx, t.tx, accountID, ids)
}

// purchaseEvents records the events of the purchases whose documents were before
// (from documentsBefore) and are now rewritten.
func (t *importTx) purchaseEvents(ctx context.Context, accountID int64, ids []int64, before map[int64][]byte) error {
	if before == nil {
		return nil
	}
	ts, err := t.targets(ctx, accountID)
	if err != nil {
		return err
	}
	n, err := recordPurchaseChanges(ctx, t.tx, accountID, ts, ids, before, t.db.Now())
	t.events += n
	return err
}

// subscriptionBefore is a subscriber's account, storefront and subscription status
// ("" for none) before an import replaces its subscription.
type subscriptionBefore struct {
	account, storefront int64
	status              string
}

// subscriptionsBefore returns, for the subscribers of accounts that take events, their
// subscription's status before the import; nil when there are none.
func (t *importTx) subscriptionsBefore(ctx context.Context, subs []*shop.Subscriber) (map[int64]*subscriptionBefore, error) {
	if _, err := t.targets(ctx, 0); err != nil || len(t.hooked) == 0 {
		// No account takes events: nothing to compare.
		return nil, err
	}
	var out map[int64]*subscriptionBefore
	byStorefront := map[int64][]int64{}
	for _, s := range subs {
		byStorefront[s.StorefrontID] = append(byStorefront[s.StorefrontID], s.ID)
	}
	sfIDs := make([]int64, 0, len(byStorefront))
	for id := range byStorefront {
		sfIDs = append(sfIDs, id)
	}
	// The accounts of the storefronts the subscribers are written to.
	accounts, err := t.lookupPairs(ctx, "SELECT id, account_id FROM storefronts WHERE id IN %s", sfIDs)
	if err != nil {
		return nil, err
	}
	for sf, ids := range byStorefront {
		account := accounts[sf]
		ts, err := t.targets(ctx, account)
		if err != nil {
			return nil, err
		}
		if len(ts) == 0 {
			continue
		}
		if out == nil {
			out = map[int64]*subscriptionBefore{}
		}
		for _, id := range ids {
			out[id] = &subscriptionBefore{account: account, storefront: sf}
		}
		list, args := inList(ids)
		err = eachRow(ctx, t.tx, "SELECT subscriber_id, status FROM subscriptions WHERE account_id = ? AND subscriber_id IN "+list,
			append([]any{account}, args...), func(rows *sql.Rows) error {
				var id int64
				var status string
				if err := rows.Scan(&id, &status); err != nil {
					return err
				}
				out[id].status = status
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// subscriptionEvents records subscription.updated for each subscriber whose
// subscription status the import changed (from none, to none, or to another).
func (t *importTx) subscriptionEvents(ctx context.Context, subs []*shop.Subscriber, before map[int64]*subscriptionBefore) error {
	for _, s := range subs {
		b, ok := before[s.ID]
		if !ok {
			continue
		}
		status := ""
		if s.Subscription != nil {
			status = string(s.Subscription.Status)
		}
		if status == b.status {
			continue
		}
		ts, err := t.targets(ctx, b.account)
		if err != nil {
			return err
		}
		if err := t.db.recordSubscriptionChange(ctx, t.tx, b.account, ts, b.storefront, s.ID, t.db.Now()); err != nil {
			return err
		}
		t.events++
	}
	return nil
}
