package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"storefront/internal/importer"
	"storefront/internal/shop"
)

// UpsertAccounts implements importer.Tx.
func (t *importTx) UpsertAccounts(ctx context.Context, accounts []*shop.Account) error {
	if len(accounts) == 0 {
		return nil
	}
	// A change of zone rebuilds the account's rollups from its rows: the changes
	// gathered so far are written first, in the zone they were counted in.
	if err := t.rollups.apply(ctx, t.tx); err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	t.rollups.forgetZones()
	args := make([]any, 0, 4*len(accounts))
	for _, a := range accounts {
		t.accounts[a.ID] = true
		args = append(args, a.ID, a.Name, a.APIUsername, a.Timezone)
	}
	zones, err := trackAccountZones(ctx, t.tx, accounts)
	if err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	err = t.insertRows(ctx, "INSERT INTO accounts (id, name, api_username, timezone)", 4,
		"ON DUPLICATE KEY UPDATE name = VALUES(name), api_username = VALUES(api_username), timezone = VALUES(timezone)", args)
	if err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	if err := zones.apply(ctx, t.tx); err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	return nil
}

// UpsertStorefronts implements importer.Tx.
func (t *importTx) UpsertStorefronts(ctx context.Context, storefronts []*shop.Storefront) error {
	if len(storefronts) == 0 {
		return nil
	}
	args := make([]any, 0, 7*len(storefronts))
	for _, s := range storefronts {
		t.accounts[s.AccountID] = true
		args = append(args, s.ID, s.AccountID, s.Name, importStr(s.Currency), s.DownloadLimit, s.DownloadDays, s.PastDueGraceDays)
	}
	err := t.insertRows(ctx, "INSERT INTO storefronts (id, account_id, name, currency, download_limit, download_days, past_due_grace_days)", 7,
		"ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), name = VALUES(name), currency = VALUES(currency), "+
			"download_limit = VALUES(download_limit), download_days = VALUES(download_days), past_due_grace_days = VALUES(past_due_grace_days)", args)
	if err != nil {
		return fmt.Errorf("upsert storefronts: %w", err)
	}
	return nil
}

// UpsertSubscribers implements importer.Tx.
func (t *importTx) UpsertSubscribers(ctx context.Context, subs []*shop.Subscriber) error {
	if len(subs) == 0 {
		return nil
	}
	hookBefore, err := t.subscriptionsBefore(ctx, subs)
	if err != nil {
		return fmt.Errorf("subscriptions before: %w", err)
	}
	sfIDs := make([]int64, len(subs))
	for i, s := range subs {
		sfIDs[i] = s.StorefrontID
	}
	// Subscribers and their subscriptions carry their storefront's account.
	accountOf, err := t.lookupPairs(ctx, "SELECT id, account_id FROM storefronts WHERE id IN %s", sfIDs)
	if err != nil {
		return fmt.Errorf("find storefront accounts: %w", err)
	}
	ids := make([]int64, len(subs))
	var subIDs []int64
	args := make([]any, 0, 7*len(subs))
	var subArgs []any
	for i, s := range subs {
		t.storefronts[s.StorefrontID] = true
		ids[i] = s.ID
		account := accountOf[s.StorefrontID]
		// The subscription's status on the row as written (syncSubscribers then finds
		// nothing to change): an update of every row just inserted cost the import.
		var status any
		if s.Subscription != nil {
			status = string(s.Subscription.Status)
		}
		args = append(args, s.ID, account, s.StorefrontID, s.Username, s.CreatedAt.Time, s.UpdatedAt.Time, importTime(s.LastLoginAt), status)
		if ss := s.Subscription; ss != nil {
			subIDs = append(subIDs, ss.ID)
			subArgs = append(subArgs, ss.ID, account, s.ID, string(ss.Status), string(ss.Price), ss.Period, ss.Unit, string(ss.TaxAmount),
				importMoney(ss.TrialPrice), importInt(ss.TrialPeriod), importStr(ss.TrialUnit), importMoney(ss.TrialTaxAmount),
				ss.CreatedAt.Time, ss.UpdatedAt.Time, importTime(ss.StartedAt), importTime(ss.EndedAt), importTime(ss.TrialStartedAt),
				importTime(ss.LastPaymentAt), importTime(ss.NextPaymentAt))
		}
	}
	roll, err := trackSubscriberRollups(ctx, t.tx, ids, subIDs)
	if err != nil {
		return err
	}
	// A subscriber that moves to another account's storefront changes its account, the
	// sharding key under Vitess, which no statement can change in place there
	// (VT12001): its row and its timeline are deleted from the old account and written
	// again under the new one (moveSubscribers), on MariaDB alike.
	timeline, err := t.moveSubscribers(ctx, ids, accountOf, subs)
	if err != nil {
		return fmt.Errorf("move subscribers: %w", err)
	}
	err = t.insertRows(ctx, "INSERT INTO subscribers (id, account_id, storefront_id, username, created_at, updated_at, last_login_at, status)", 8,
		"ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), storefront_id = VALUES(storefront_id), username = VALUES(username), created_at = VALUES(created_at), "+
			"updated_at = VALUES(updated_at), last_login_at = VALUES(last_login_at), status = VALUES(status)", args)
	if err != nil {
		return fmt.Errorf("upsert subscribers: %w", err)
	}
	// The timeline of a subscriber that moved to another account's storefront goes with it.
	if len(timeline) > 0 {
		if err := t.insertRows(ctx, "INSERT INTO subscriber_activity (id, account_id, subscriber_id, actor, action, details, created_at)", 7, "", timeline); err != nil {
			return fmt.Errorf("move subscriber activity: %w", err)
		}
	}
	// The imported subscription replaces the subscriber's, and takes its id from
	// whichever subscriber held it.
	if err := t.deleteIn(ctx, "subscriptions", "subscriber_id", ids); err != nil {
		return fmt.Errorf("replace subscriptions: %w", err)
	}
	if err := t.deleteIn(ctx, "subscriptions", "id", subIDs); err != nil {
		return fmt.Errorf("replace subscriptions: %w", err)
	}
	if len(subArgs) > 0 {
		err = t.insertRows(ctx, "INSERT INTO subscriptions (id, account_id, subscriber_id, status, price, period, unit, tax_amount, trial_price, "+
			"trial_period, trial_unit, trial_tax_amount, created_at, updated_at, started_at, ended_at, trial_started_at, "+
			"last_payment_at, next_payment_at)", 19, "", subArgs)
		if err != nil {
			return fmt.Errorf("insert subscriptions: %w", err)
		}
	}
	if err := t.subscriptionEvents(ctx, subs, hookBefore); err != nil {
		return fmt.Errorf("subscription events: %w", err)
	}
	return roll.apply(ctx, t.tx)
}

// UpsertPurchases implements importer.Tx.
func (t *importTx) UpsertPurchases(ctx context.Context, b *importer.PurchaseBatch) error {
	for _, p := range b.Purchases {
		t.accounts[p.AccountID] = true
	}
	for _, c := range b.Customers {
		t.accounts[c.AccountID] = true
	}
	// What exists of the batch's rows, as read by its references' lookup.
	found := t.looked
	t.looked = nil
	if found == nil || found.batch != b {
		var err error
		if found, err = t.lookupBatch(ctx, b, nil); err != nil {
			return fmt.Errorf("find existing rows: %w", err)
		}
	}
	// Documents embed their customer: a customer that this batch changes changes the
	// documents of its other purchases too.
	changedCustomers := found.changedCustomers()
	// A customer stored as the batch gives it (written by an earlier batch, or by an
	// earlier import) is left as it is.
	var custArgs []any
	for _, c := range b.Customers {
		if !found.unchanged(c) {
			custArgs = append(custArgs, c.ID, c.AccountID, importStr(c.Firstname), importStr(c.Lastname), importStr(c.Email), c.ReceivesEmail, c.CreatedAt.Time, c.UpdatedAt.Time)
		}
	}
	if len(custArgs) > 0 {
		err := t.insertRows(ctx, "INSERT INTO customers (id, account_id, firstname, lastname, email, receives_email, created_at, updated_at)", 8,
			"ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), firstname = VALUES(firstname), lastname = VALUES(lastname), "+
				"email = VALUES(email), receives_email = VALUES(receives_email), created_at = VALUES(created_at), updated_at = VALUES(updated_at)", custArgs)
		if err != nil {
			return fmt.Errorf("upsert customers: %w", err)
		}
	}
	if len(b.Products) > 0 {
		sfIDs := make([]int64, len(b.Products))
		for i, p := range b.Products {
			sfIDs[i] = p.StorefrontID
		}
		accountOf, err := t.lookupPairs(ctx, "SELECT id, account_id FROM storefronts WHERE id IN %s", sfIDs)
		if err != nil {
			return fmt.Errorf("find storefront accounts: %w", err)
		}
		args := make([]any, 0, 4*len(b.Products))
		for _, p := range b.Products {
			args = append(args, p.ID, accountOf[p.StorefrontID], p.StorefrontID, p.Name)
		}
		// An existing product keeps its name: line items carry their own.
		if err := t.insertRows(ctx, "INSERT INTO products (id, account_id, storefront_id, name)", 4, "ON DUPLICATE KEY UPDATE id = id", args); err != nil {
			return fmt.Errorf("insert products: %w", err)
		}
	}
	if len(b.Purchases) == 0 {
		return nil
	}

	// Under Vitess a purchase's account is its sharding key, and its many derived rows
	// (paths, pairs, documents, rollups, timeline, notes) would all have to be deleted
	// and written again on another shard: an import that moves one is refused.
	if t.db.Vitess {
		to := make(map[int64]int64, len(b.Purchases))
		for _, p := range b.Purchases {
			to[p.ID] = p.AccountID
		}
		for id, account := range found.purchases {
			if to[id] != account {
				return fmt.Errorf("purchase %d belongs to account %d: moving it to account %d is not supported on Vitess (the account is the sharding key); delete it there and import it anew", id, account, to[id])
			}
		}
	}
	w := t.prepared(b)
	if w.err != nil {
		return w.err
	}
	// Nested collections are replaced: what the purchases had goes, and so do line
	// items and transactions whose ids the batch takes over from other purchases.
	// Foreign key checks are off, so nothing cascades: product keys go explicitly.
	// The batch's lookup found what exists; a batch of new purchases deletes nothing.
	roll, err := trackImportRollups(ctx, t.tx, found.purchases)
	if err != nil {
		return err
	}
	old := make([]int64, 0, len(found.purchases))
	for id := range found.purchases {
		old = append(old, id)
	}
	// moved returns the ids held by purchases other than those replaced here.
	moved := func(held map[int64]int64) []int64 {
		var out []int64
		for id, purchase := range held {
			if _, replaced := found.purchases[purchase]; !replaced {
				out = append(out, id)
			}
		}
		return out
	}
	movedItems, movedTxns := moved(found.items), moved(found.txns)
	oldByAccount := map[int64][]int64{}
	for id, account := range found.purchases {
		oldByAccount[account] = append(oldByAccount[account], id)
	}
	// The pairs' rows of replaced purchases are found by the keys their rows and
	// product paths give them, so before those change.
	for account, old := range oldByAccount {
		if err := deletePairs(ctx, t.tx, account, old); err != nil {
			return fmt.Errorf("replace purchase_pairs: %w", err)
		}
	}
	for _, d := range []struct {
		table, col string
		ids        []int64
	}{
		{"product_keys", "purchase_id", old},
		{"product_keys", "line_item_id", movedItems},
		{"line_items", "purchase_id", old},
		{"line_items", "id", movedItems},
		{"transactions", "purchase_id", old},
		{"transactions", "id", movedTxns},
		{"coupons", "purchase_id", old},
		{"custom_fields", "purchase_id", old},
	} {
		if err := t.deleteIn(ctx, d.table, d.col, d.ids); err != nil {
			return fmt.Errorf("replace %s: %w", d.table, err)
		}
	}
	// The product paths and documents of replaced purchases go with their old account
	// (an import may move a purchase); the new ones are written below.
	newAccount := make(map[int64]int64, len(b.Purchases))
	for _, p := range b.Purchases {
		newAccount[p.ID] = p.AccountID
	}
	for account, old := range oldByAccount {
		if err := t.deleteInAccount(ctx, "purchase_products", account, old); err != nil {
			return fmt.Errorf("replace purchase_products: %w", err)
		}
		var moved []int64
		for _, id := range old {
			if newAccount[id] != account {
				moved = append(moved, id)
			}
		}
		if err := t.deleteInAccount(ctx, "purchase_documents", account, moved); err != nil {
			return fmt.Errorf("replace purchase_documents: %w", err)
		}
		// Found by the keys the old rows give them, so before the rows change.
		if err := deletePrefixes(ctx, t.tx, account, old); err != nil {
			return fmt.Errorf("replace purchase_prefixes: %w", err)
		}
	}
	if err := t.insertRows(ctx, importPurchaseInsert, importPurchaseCols, importPurchaseUpdate, w.args); err != nil {
		return fmt.Errorf("upsert purchases: %w", err)
	}
	// The timeline of a purchase that moved to another account goes with it.
	var movedAccount []int64
	for id, account := range found.purchases {
		if newAccount[id] != account {
			movedAccount = append(movedAccount, id)
		}
	}
	if err := t.followAccount(ctx, "UPDATE purchase_activity a JOIN purchases p ON p.id = a.purchase_id SET a.account_id = p.account_id WHERE a.purchase_id IN ", movedAccount); err != nil {
		return fmt.Errorf("move purchase activity: %w", err)
	}
	if err := t.followAccount(ctx, "UPDATE notes n JOIN purchases p ON p.id = n.purchase_id SET n.account_id = p.account_id WHERE n.purchase_id IN ", movedAccount); err != nil {
		return fmt.Errorf("move purchase notes: %w", err)
	}
	// The buyer address on the timelines and notes of replaced purchases, which the
	// batch may have changed (the customer page reads them by it).
	replaced := map[int64][]int64{}
	for id := range found.purchases {
		replaced[newAccount[id]] = append(replaced[newAccount[id]], id)
	}
	for account, ids := range replaced {
		if err := syncBuyerEmails(ctx, t.tx, account, ids); err != nil {
			return err
		}
	}
	if err := t.rollups.add(ctx, t.tx, roll, b.Purchases, w.facts); err != nil {
		return err
	}
	for _, in := range []struct {
		head string
		cols int
		args []any
		tail string
	}{
		{"INSERT INTO purchase_products (account_id, product_id, created_at, purchase_id, email_initial, first_initial, last_initial)", 7, w.products, "ON DUPLICATE KEY UPDATE purchase_id = purchase_id"},
		{"INSERT INTO line_items (id, account_id, purchase_id, product_id, price, quantity, subtotal, tax, discount, total, product_name, " +
			"download_limit, download_count, expires_at, has_all_keys)", 15, w.items, ""},
		{"INSERT INTO product_keys (line_item_id, position, account_id, purchase_id, key_value)", 5, w.keys, ""},
		{"INSERT INTO coupons (account_id, purchase_id, position, name, code, discount_amount, discount_type)", 7, w.coupons, ""},
		{"INSERT INTO custom_fields (account_id, purchase_id, position, label, response)", 5, w.fields, ""},
		{"INSERT INTO transactions (id, account_id, purchase_id, action, amount, currency, gateway, is_success, reference, message, " +
			"created_at, updated_at)", 12, w.txns, ""},
	} {
		if len(in.args) == 0 {
			continue
		}
		if err := t.insertRows(ctx, in.head, in.cols, in.tail, in.args); err != nil {
			return fmt.Errorf("insert %s: %w", strings.Fields(in.head)[2], err)
		}
	}
	for _, rows := range <-w.search {
		if err := rows.write(ctx, t.tx); err != nil {
			return err
		}
	}
	if err := t.writeDocuments(ctx, b, changedCustomers, w.docs); err != nil {
		return fmt.Errorf("write documents: %w", err)
	}
	return nil
}

// writeDocuments stores the documents of the batch's purchases, built from what the
// batch wrote (each with its customer as the batch leaves it), and rebuilds from their
// rows those of other purchases whose customer the batch changed.
func (t *importTx) writeDocuments(ctx context.Context, b *importer.PurchaseBatch, changedCustomers map[int64][]int64, built <-chan *batchDocuments) error {
	docs := <-built
	if docs.err != nil {
		return docs.err
	}
	inBatch := make(map[int64]bool, len(b.Purchases))
	for _, p := range b.Purchases {
		inBatch[p.ID] = true
	}
	for _, account := range docs.accounts {
		ids := docs.ids[account]
		before, err := t.documentsBefore(ctx, account, ids)
		if err != nil {
			return err
		}
		if err := putDocuments(ctx, t.tx, account, ids, docs.docs[account]); err != nil {
			return err
		}
		if err := t.purchaseEvents(ctx, account, ids, before); err != nil {
			return err
		}
	}
	for account, custIDs := range changedCustomers {
		list, args := inList(custIDs)
		var others []int64
		err := eachRow(ctx, t.tx, "SELECT id FROM purchases WHERE account_id = ? AND customer_id IN "+list, append([]any{account}, args...),
			func(rows *sql.Rows) error {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				if !inBatch[id] {
					others = append(others, id)
				}
				return nil
			})
		if err != nil {
			return err
		}
		before, err := t.documentsBefore(ctx, account, others)
		if err != nil {
			return err
		}
		if err := writeDocuments(ctx, t.tx, account, others); err != nil {
			return err
		}
		if err := t.purchaseEvents(ctx, account, others, before); err != nil {
			return err
		}
	}
	return nil
}

// insertRows runs "head VALUES (...),(...) tail" over args, a flat list of rows of
// cols values each, in as many statements as the limits require.
func (t *importTx) insertRows(ctx context.Context, head string, cols int, tail string, args []any) error {
	maxRows := min(importMaxParams/cols, statementRows)
	for start := 0; start < len(args); {
		rows, size := 0, 0
		end := start
		for end < len(args) && rows < maxRows && (rows == 0 || size < importMaxBytes) {
			for _, a := range args[end : end+cols] {
				if s, ok := a.(string); ok {
					size += 2*len(s) + 3
				} else {
					size += 24
				}
			}
			end += cols
			rows++
		}
		q := head + " VALUES " + rowPlaceholders(rows, cols) + " " + tail
		if err := execRows(ctx, t.tx, q, rows, args[start:end]); err != nil {
			return err
		}
		start = end
	}
	return nil
}

// deleteIn runs "DELETE FROM table WHERE col IN (ids)" in chunks.
func (t *importTx) deleteIn(ctx context.Context, table, col string, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), 10000)
		list, args := inList(ids[:n])
		if _, err := t.tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE "+col+" IN "+list, args...); err != nil {
			return translate(err)
		}
		ids = ids[n:]
	}
	return nil
}

// followAccount runs update, which ends in "IN ", with the ids as its list, in chunks.
func (t *importTx) followAccount(ctx context.Context, update string, ids []int64) error {
	for start := 0; start < len(ids); start += importMaxParams {
		list, args := inList(ids[start:min(start+importMaxParams, len(ids))])
		if _, err := t.tx.ExecContext(ctx, update+list, args...); err != nil {
			return translate(err)
		}
	}
	return nil
}

// deleteInAccount deletes the rows of an account's table whose purchase_id is in ids.
func (t *importTx) deleteInAccount(ctx context.Context, table string, account int64, ids []int64) error {
	for start := 0; start < len(ids); start += importMaxParams {
		list, args := inList(ids[start:min(start+importMaxParams, len(ids))])
		if _, err := t.tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE account_id = ? AND purchase_id IN "+list,
			append([]any{account}, args...)...); err != nil {
			return translate(err)
		}
	}
	return nil
}

// moveSubscribers deletes, of the given subscribers, those whose account (their
// storefront's, accountOf) is not the one their row has, with their timelines, and
// returns the timelines' rows under the new accounts, as insertRows takes them, for
// the caller to write once the subscribers' rows are written again.
func (t *importTx) moveSubscribers(ctx context.Context, ids []int64, accountOf map[int64]int64, subs []*shop.Subscriber) ([]any, error) {
	current, err := t.lookupPairs(ctx, "SELECT id, account_id FROM subscribers WHERE id IN %s", ids)
	if err != nil {
		return nil, err
	}
	newAccount := map[int64]int64{}
	movedFrom := map[int64][]int64{}
	for _, s := range subs {
		old, ok := current[s.ID]
		if to := accountOf[s.StorefrontID]; ok && old != to {
			newAccount[s.ID] = to
			movedFrom[old] = append(movedFrom[old], s.ID)
		}
	}
	var timeline []any
	for old, moved := range movedFrom {
		list, args := inList(moved)
		args = append([]any{old}, args...)
		err := eachRow(ctx, t.tx, "SELECT id, subscriber_id, actor, action, details, created_at FROM subscriber_activity WHERE account_id = ? AND subscriber_id IN "+list, args,
			func(rows *sql.Rows) error {
				var id, sub int64
				var actor, action, details string
				var at time.Time
				if err := rows.Scan(&id, &sub, &actor, &action, &details, &at); err != nil {
					return err
				}
				timeline = append(timeline, id, newAccount[sub], sub, actor, action, details, at)
				return nil
			})
		if err != nil {
			return nil, err
		}
		for _, table := range []string{"subscriber_activity WHERE account_id = ? AND subscriber_id IN ", "subscribers WHERE account_id = ? AND id IN "} {
			if _, err := t.tx.ExecContext(ctx, "DELETE FROM "+table+list, args...); err != nil {
				return nil, translate(err)
			}
		}
	}
	return timeline, nil
}
