package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"time"

	"storefront/internal/shop"
)

// The rollups (purchase_rollups, product_rollups, db/README.md#rollups) hold, per day in
// the account's zone, what the overview sums; purchase_rollups_monthly and
// product_rollups_monthly the same by calendar month, purchase_rollups_weekly by the
// seven days from each day. Every change to a purchase's storefront,
// currency, creation time, status, total or line items changes them in its own
// transaction: the write path reads what the purchases counted for before the change,
// what they count for after, and adds the difference.

// rollupKey is one row of purchase_rollups within an account.
type rollupKey struct {
	day        string // 2006-01-02 in the account's zone
	storefront int64
	currency   string
	status     shop.PurchaseStatus
}

// productKey is one row of product_rollups within an account.
type productKey struct {
	rollupKey
	product int64
}

// sums is a change to one rollup row.
type sums struct {
	n     int64
	total *big.Rat
}

// purchaseFact is what one purchase counts for in the rollups.
type purchaseFact struct {
	storefront int64
	currency   string
	created    time.Time
	status     shop.PurchaseStatus
	total      *big.Rat
	// items holds the sum of the line items' totals by product.
	items map[int64]*big.Rat
}

// rollupDelta gathers the changes one transaction makes to one account's rollups.
type rollupDelta struct {
	account   int64
	loc       *time.Location
	purchases map[rollupKey]*sums
	products  map[productKey]*sums
	// tablesOf90 writes only the rollup tables that exist at migration 90, for its
	// rebuild: not purchase_rollups_monthly (00110, filled from the days by 00111) nor
	// purchase_rollups_weekly (00112, filled by 00113).
	tablesOf90 bool
}

func newRollupDelta(account int64, loc *time.Location) *rollupDelta {
	return &rollupDelta{account: account, loc: loc, purchases: map[rollupKey]*sums{}, products: map[productKey]*sums{}}
}

// byMonth sums rows of a day's key by the month of the day (its first day).
func byMonth[K comparable](days map[K]*sums, month func(K) K) map[K]*sums {
	out := map[K]*sums{}
	for k, s := range days {
		m := month(k)
		if out[m] == nil {
			out[m] = &sums{total: new(big.Rat)}
		}
		out[m].n += s.n
		out[m].total.Add(out[m].total, s.total)
	}
	return out
}

// monthOf is the first day of a day's month, both written 2006-01-02.
func monthOf(day string) string { return day[:8] + "01" }

// byWeek sums purchase rollup rows of days into the weeks of purchase_rollups_weekly:
// each day counts in the seven weeks that begin on it and on the six days before it.
func byWeek(days map[rollupKey]*sums) (map[rollupKey]*sums, error) {
	out := map[rollupKey]*sums{}
	for k, s := range days {
		day, err := time.Parse(time.DateOnly, k.day)
		if err != nil {
			return nil, err
		}
		for back := range 7 {
			w := k
			w.day = day.AddDate(0, 0, -back).Format(time.DateOnly)
			if out[w] == nil {
				out[w] = &sums{total: new(big.Rat)}
			}
			out[w].n += s.n
			out[w].total.Add(out[w].total, s.total)
		}
	}
	return out, nil
}

// add counts a purchase in (sign 1) or out of (sign -1) the rollups.
func (d *rollupDelta) add(f *purchaseFact, sign int64) {
	k := rollupKey{day: f.created.In(d.loc).Format(time.DateOnly), storefront: f.storefront, currency: f.currency, status: f.status}
	bump(d.purchases, k, sign, f.total)
	for product, total := range f.items {
		bump(d.products, productKey{k, product}, sign, total)
	}
}

// bump counts a purchase in (sign 1) or out of (sign -1) a rollup row, with amount.
func bump[K comparable](m map[K]*sums, k K, sign int64, amount *big.Rat) {
	s := m[k]
	if s == nil {
		s = &sums{total: new(big.Rat)}
		m[k] = s
	}
	s.n += sign
	if sign < 0 {
		s.total.Sub(s.total, amount)
	} else {
		s.total.Add(s.total, amount)
	}
}

// apply writes the gathered changes; rows left at zero stay (they count nothing).
// Each table's rows are written in the order of its primary key, so that transactions
// changing the same rows (concurrent reactivations of purchases of one day) lock them
// in the same order and wait for each other instead of deadlocking.
func (d *rollupDelta) apply(ctx context.Context, q queryer) error {
	purchaseRows := func(m map[rollupKey]*sums) []any {
		var args []any
		for _, k := range slices.SortedFunc(maps.Keys(m), cmpPurchaseKey) {
			s := m[k]
			if s.n == 0 && s.total.Sign() == 0 {
				continue
			}
			args = append(args, d.account, k.day, k.storefront, k.currency, string(k.status), s.n, s.total.FloatString(4))
		}
		return args
	}
	productRows := func(m map[productKey]*sums) []any {
		var args []any
		for _, k := range slices.SortedFunc(maps.Keys(m), cmpProductKey) {
			s := m[k]
			if s.n == 0 && s.total.Sign() == 0 {
				continue
			}
			args = append(args, d.account, string(k.status), k.day, k.storefront, k.currency, k.product, s.n, s.total.FloatString(4))
		}
		return args
	}
	const add = "ON DUPLICATE KEY UPDATE purchases = purchases + VALUES(purchases), total = total + VALUES(total)"
	if err := upsertChunks(ctx, q, "INSERT INTO purchase_rollups (account_id, day, storefront_id, currency, status, purchases, total)", 7,
		add, purchaseRows(d.purchases)); err != nil {
		return fmt.Errorf("purchase rollups: %w", err)
	}
	if !d.tablesOf90 {
		months := byMonth(d.purchases, func(k rollupKey) rollupKey { k.day = monthOf(k.day); return k })
		if err := upsertChunks(ctx, q, "INSERT INTO purchase_rollups_monthly (account_id, month, storefront_id, currency, status, purchases, total)", 7,
			add, purchaseRows(months)); err != nil {
			return fmt.Errorf("monthly purchase rollups: %w", err)
		}
		weeks, err := byWeek(d.purchases)
		if err != nil {
			return err
		}
		if err := upsertChunks(ctx, q, "INSERT INTO purchase_rollups_weekly (account_id, week, storefront_id, currency, status, purchases, total)", 7,
			add, purchaseRows(weeks)); err != nil {
			return fmt.Errorf("weekly purchase rollups: %w", err)
		}
	}
	if err := upsertChunks(ctx, q, "INSERT INTO product_rollups (account_id, status, day, storefront_id, currency, product_id, purchases, total)", 8,
		add, productRows(d.products)); err != nil {
		return fmt.Errorf("product rollups: %w", err)
	}
	months := byMonth(d.products, func(k productKey) productKey { k.day = monthOf(k.day); return k })
	if err := upsertChunks(ctx, q, "INSERT INTO product_rollups_monthly (account_id, status, month, storefront_id, currency, product_id, purchases, total)", 8,
		add, productRows(months)); err != nil {
		return fmt.Errorf("monthly product rollups: %w", err)
	}
	return nil
}

// cmpPurchaseKey orders purchase_rollups rows as its primary key does, and those of
// purchase_rollups_monthly and _weekly: (day, month or week, storefront_id, currency,
// status) within the account.
func cmpPurchaseKey(a, b rollupKey) int {
	return cmp.Or(cmp.Compare(a.day, b.day), cmp.Compare(a.storefront, b.storefront),
		cmp.Compare(a.currency, b.currency), cmp.Compare(a.status, b.status))
}

// cmpProductKey orders product rows as the primary keys of product_rollups and
// product_rollups_monthly do: (status, day or month, storefront_id, currency,
// product_id) within the account.
func cmpProductKey(a, b productKey) int {
	return cmp.Or(cmp.Compare(a.status, b.status), cmp.Compare(a.day, b.day), cmp.Compare(a.storefront, b.storefront),
		cmp.Compare(a.currency, b.currency), cmp.Compare(a.product, b.product))
}

// accountZone returns an account's time zone, UTC when its name cannot be loaded (as
// the filters read dates).
func accountZone(ctx context.Context, q queryer, account int64) (*time.Location, error) {
	var name string
	err := q.QueryRowContext(ctx, "SELECT timezone FROM accounts WHERE id = ?", account).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		return time.UTC, nil
	}
	if err != nil {
		return nil, translate(err)
	}
	return zoneOf(name), nil
}

func zoneOf(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return loc
}

// readPurchaseFacts reads what the account's purchases with these ids count for now.
func readPurchaseFacts(ctx context.Context, q queryer, account int64, ids []int64) (map[int64]*purchaseFact, error) {
	out := make(map[int64]*purchaseFact, len(ids))
	for start := 0; start < len(ids); start += 10000 {
		list, args := importInList(ids[start:min(start+10000, len(ids))])
		args = append([]any{account}, args...)
		err := eachRow(ctx, q, "SELECT id, storefront_id, currency, created_at, status, total FROM purchases WHERE account_id = ? AND id IN "+list, args,
			func(rows *sql.Rows) error {
				var (
					id    int64
					f     purchaseFact
					total string
				)
				if err := rows.Scan(&id, &f.storefront, &f.currency, &f.created, &f.status, &total); err != nil {
					return err
				}
				var err error
				if f.total, err = decimal(total); err != nil {
					return err
				}
				f.items = map[int64]*big.Rat{}
				out[id] = &f
				return nil
			})
		if err != nil {
			return nil, err
		}
		err = eachRow(ctx, q, `SELECT li.purchase_id, li.product_id, li.total FROM line_items li
			JOIN purchases p ON p.account_id = li.account_id AND p.id = li.purchase_id WHERE li.account_id = ? AND li.purchase_id IN `+list, args,
			func(rows *sql.Rows) error {
				var (
					id, product int64
					total       string
				)
				if err := rows.Scan(&id, &product, &total); err != nil {
					return err
				}
				t, err := decimal(total)
				if err != nil {
					return err
				}
				if f := out[id]; f != nil {
					addTo(f.items, product, t)
				}
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func addTo(m map[int64]*big.Rat, k int64, v *big.Rat) {
	if m[k] == nil {
		m[k] = new(big.Rat)
	}
	m[k].Add(m[k], v)
}

// factOf is what a purchase about to be written counts for.
func factOf(p *shop.Purchase) (*purchaseFact, error) {
	total, err := decimal(string(p.Total))
	if err != nil {
		return nil, err
	}
	f := &purchaseFact{storefront: p.StorefrontID, currency: p.Currency, created: p.CreatedAt.Time, status: p.Status, total: total, items: map[int64]*big.Rat{}}
	for _, li := range p.LineItems {
		t, err := decimal(string(li.Total))
		if err != nil {
			return nil, err
		}
		addTo(f.items, li.ProductID, t)
	}
	return f, nil
}

// rollupChange follows purchases of one account through a change: track reads what they
// count for before it, apply what they count for after it and writes the difference.
type rollupChange struct {
	account int64
	ids     []int64
	before  map[int64]*purchaseFact
}

// trackRollups starts following the account's purchases ids through a change in tx.
func trackRollups(ctx context.Context, tx queryer, account int64, ids ...int64) (*rollupChange, error) {
	before, err := readPurchaseFacts(ctx, tx, account, ids)
	if err != nil {
		return nil, fmt.Errorf("rollups: %w", err)
	}
	return &rollupChange{account: account, ids: ids, before: before}, nil
}

// apply writes the change's difference to the rollups.
func (c *rollupChange) apply(ctx context.Context, tx queryer) error {
	after, err := readPurchaseFacts(ctx, tx, c.account, c.ids)
	if err != nil {
		return fmt.Errorf("rollups: %w", err)
	}
	loc, err := accountZone(ctx, tx, c.account)
	if err != nil {
		return err
	}
	d := newRollupDelta(c.account, loc)
	for _, f := range c.before {
		d.add(f, -1)
	}
	for _, f := range after {
		d.add(f, 1)
	}
	return d.apply(ctx, tx)
}

// AddPurchaseRollups counts purchases just written in tx (of one account) into the
// rollups from the purchases as given, as the rollups' rebuild counts them from their
// rows: for writers of new purchases that hold them as the read path would read them
// back (the seeder).
func AddPurchaseRollups(ctx context.Context, tx *sql.Tx, account int64, ps []*shop.Purchase) error {
	loc, err := accountZone(ctx, tx, account)
	if err != nil {
		return err
	}
	d := newRollupDelta(account, loc)
	for _, p := range ps {
		f, err := factOf(p)
		if err != nil {
			return fmt.Errorf("rollups: purchase %d: %w", p.ID, err)
		}
		d.add(f, 1)
	}
	return d.apply(ctx, tx)
}

// RebuildRollups rebuilds every account's rollups from the purchases' and the
// subscriptions' rows, one account per transaction, and returns how many accounts it
// rebuilt. For repairs after rows were changed by hand (`storefront rollups rebuild`).
func RebuildRollups(ctx context.Context, sqlDB *sql.DB) (int, error) {
	return rebuildRollups(ctx, sqlDB, false)
}

// rebuildRollups is RebuildRollups; tablesOf90 rebuilds only the rollup tables that
// exist at migration 90, for its rebuild (rollupDelta.tablesOf90).
func rebuildRollups(ctx context.Context, sqlDB *sql.DB, tablesOf90 bool) (int, error) {
	var accounts []int64
	err := eachRow(ctx, sqlDB, "SELECT id FROM accounts ORDER BY id", nil, func(rows *sql.Rows) error {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		accounts = append(accounts, id)
		return nil
	})
	if err != nil {
		return 0, err
	}
	for i, account := range accounts {
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return i, translate(err)
		}
		if err := rebuildAccountRollups(ctx, tx, account, tablesOf90); err != nil {
			_ = tx.Rollback()
			return i, fmt.Errorf("account %d: %w", account, err)
		}
		if err := tx.Commit(); err != nil {
			return i, translate(err)
		}
	}
	return len(accounts), nil
}

// rebuildAccountRollups replaces an account's rollups with sums of its rows, in tx;
// tablesOf90 rebuilds only the tables that exist at migration 90 (rebuildRollups).
func rebuildAccountRollups(ctx context.Context, tx *sql.Tx, account int64, tablesOf90 bool) error {
	loc, err := accountZone(ctx, tx, account)
	if err != nil {
		return err
	}
	tables := []string{"purchase_rollups", "product_rollups", "product_rollups_monthly", "subscriber_terms", "subscriber_rollups"}
	if !tablesOf90 {
		tables = append(tables, "purchase_rollups_monthly", "purchase_rollups_weekly")
	}
	for _, table := range tables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE account_id = ?", account); err != nil {
			return translate(err)
		}
	}
	d := newRollupDelta(account, loc)
	d.tablesOf90 = tablesOf90
	// The purchases' own figures, then their line items': two streams, so that neither
	// holds the whole account in memory.
	err = eachRow(ctx, tx, "SELECT storefront_id, currency, created_at, status, total FROM purchases WHERE account_id = ?", []any{account},
		func(rows *sql.Rows) error {
			var (
				f     purchaseFact
				total string
				err   error
			)
			if err := rows.Scan(&f.storefront, &f.currency, &f.created, &f.status, &total); err != nil {
				return err
			}
			if f.total, err = decimal(total); err != nil {
				return err
			}
			d.add(&f, 1)
			return nil
		})
	if err != nil {
		return err
	}
	err = eachRow(ctx, tx, `SELECT p.storefront_id, p.currency, p.created_at, p.status, li.product_id, SUM(li.total)
		FROM purchases p JOIN line_items li ON li.purchase_id = p.id
		WHERE p.account_id = ? GROUP BY p.id, li.product_id`, []any{account},
		func(rows *sql.Rows) error {
			var (
				f       purchaseFact
				product int64
				total   string
			)
			if err := rows.Scan(&f.storefront, &f.currency, &f.created, &f.status, &product, &total); err != nil {
				return err
			}
			t, err := decimal(total)
			if err != nil {
				return err
			}
			k := rollupKey{day: f.created.In(loc).Format(time.DateOnly), storefront: f.storefront, currency: f.currency, status: f.status}
			bump(d.products, productKey{k, product}, 1, t)
			return nil
		})
	if err != nil {
		return err
	}
	if err := d.apply(ctx, tx); err != nil {
		return err
	}
	return syncSubscriberTerms(ctx, tx, account, nil)
}

// subscriberTerm is one row of subscriber_terms.
type subscriberTerm struct {
	storefront int64
	start      time.Time
	end        *time.Time
}

// syncSubscriberTerms brings the terms of the account's subscribers with these ids (every
// subscriber of the account when ids is nil) and the subscriber rollups in line with
// their subscriptions, in tx. Subscribers that left the account lose their terms in it.
func syncSubscriberTerms(ctx context.Context, tx queryer, account int64, ids []int64) error {
	loc, err := accountZone(ctx, tx, account)
	if err != nil {
		return err
	}
	where, args := "", []any{account}
	if ids != nil {
		if len(ids) == 0 {
			return nil
		}
		list, a := importInList(ids)
		where, args = " AND subscriber_id IN "+list, append(args, a...)
	}
	old := map[int64]subscriberTerm{}
	err = eachRow(ctx, tx, "SELECT subscriber_id, storefront_id, start_at, end_at FROM subscriber_terms WHERE account_id = ?"+where+" FOR UPDATE", args,
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
		FROM `+from+` WHERE 1 = 1`+strings.ReplaceAll(where, "subscriber_id", "sb.id"), args,
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
	var del, ins []any
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
		list := "(" + strings.TrimSuffix(strings.Repeat("?,", len(chunk)), ",") + ")"
		if _, err := tx.ExecContext(ctx, "DELETE FROM subscriber_terms WHERE account_id = ? AND subscriber_id IN "+list, append([]any{account}, chunk...)...); err != nil {
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

func sameTerm(a, b subscriberTerm) bool {
	return a.storefront == b.storefront && a.start.Equal(b.start) && (a.end == nil) == (b.end == nil) && (a.end == nil || a.end.Equal(*b.end))
}

// importRollups follows the purchases of an import batch through their upsert: what the
// replaced ones counted for, by the account that held them, is counted out, and what
// the batch writes is counted in.
type importRollups struct {
	before map[int64]map[int64]*purchaseFact
}

// trackImportRollups reads what the batch's existing purchases (their accounts by id)
// count for, before their rows and collections are replaced.
func trackImportRollups(ctx context.Context, tx queryer, existing map[int64]int64) (*importRollups, error) {
	r := &importRollups{before: map[int64]map[int64]*purchaseFact{}}
	byAccount := map[int64][]int64{}
	for id, account := range existing {
		byAccount[account] = append(byAccount[account], id)
	}
	for account, ids := range byAccount {
		facts, err := readPurchaseFacts(ctx, tx, account, ids)
		if err != nil {
			return nil, fmt.Errorf("rollups: %w", err)
		}
		r.before[account] = facts
	}
	return r, nil
}

// importDeltas gathers the rollup changes of an import's batches, by account, so that
// the whole import writes each rollup row once (rollupDeltas.apply) instead of once a
// batch. Nothing in the import reads the rollups before they are written: the rebuild
// of an account whose zone changes (accountZones) writes them first.
type importDeltas struct {
	deltas map[int64]*rollupDelta
	// zones holds the accounts' zones read so far; an import of accounts clears it.
	zones map[int64]*time.Location
}

// delta returns the account's gathered changes, in its zone.
func (d *importDeltas) delta(ctx context.Context, tx queryer, account int64) (*rollupDelta, error) {
	if r := d.deltas[account]; r != nil {
		return r, nil
	}
	loc, ok := d.zones[account]
	if !ok {
		var err error
		if loc, err = accountZone(ctx, tx, account); err != nil {
			return nil, err
		}
		if d.zones == nil {
			d.zones = map[int64]*time.Location{}
		}
		d.zones[account] = loc
	}
	if d.deltas == nil {
		d.deltas = map[int64]*rollupDelta{}
	}
	d.deltas[account] = newRollupDelta(account, loc)
	return d.deltas[account], nil
}

// add gathers the difference made by the batch's purchases: r's replaced purchases out,
// the batch's in (facts[i] is what purchases[i] counts for, factOf).
func (d *importDeltas) add(ctx context.Context, tx queryer, r *importRollups, purchases []*shop.Purchase, facts []*purchaseFact) error {
	for account, facts := range r.before {
		delta, err := d.delta(ctx, tx, account)
		if err != nil {
			return err
		}
		for _, f := range facts {
			delta.add(f, -1)
		}
	}
	for i, p := range purchases {
		delta, err := d.delta(ctx, tx, p.AccountID)
		if err != nil {
			return err
		}
		delta.add(facts[i], 1)
	}
	return nil
}

// apply writes the gathered changes, the accounts in order, and starts afresh; the
// zones stay known.
func (d *importDeltas) apply(ctx context.Context, tx queryer) error {
	for _, account := range slices.Sorted(maps.Keys(d.deltas)) {
		if err := d.deltas[account].apply(ctx, tx); err != nil {
			return err
		}
	}
	d.deltas = nil
	return nil
}

// forgetZones drops the zones read so far: the import is about to write accounts.
func (d *importDeltas) forgetZones() { d.zones = nil }

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
		list, args := importInList(ids[start:min(start+10000, len(ids))])
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
		list, args := importInList(subIDs[start:min(start+10000, len(subIDs))])
		err := eachRow(ctx, tx, "SELECT subscriber_id FROM subscriptions WHERE id IN "+list, args, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
			return nil
		})
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
		if err := syncSubscriberTerms(ctx, tx, account, ids); err != nil {
			return err
		}
	}
	return nil
}

// SyncSubscriberRollups brings the terms of subscribers just written in tx (ids of one
// account) into the rollups: for writers of new subscribers, such as the seeder.
func SyncSubscriberRollups(ctx context.Context, tx *sql.Tx, account int64, ids []int64) error {
	return syncSubscriberTerms(ctx, tx, account, ids)
}

// accountZones follows accounts through a change of their time zones: an account whose
// zone changes has its rollups rebuilt, since its days begin at other instants.
type accountZones struct {
	before map[int64]string
}

// trackAccountZones reads the zones of the accounts before they are written.
func trackAccountZones(ctx context.Context, tx queryer, accounts []*shop.Account) (*accountZones, error) {
	z := &accountZones{before: map[int64]string{}}
	for _, a := range accounts {
		var zone string
		err := tx.QueryRowContext(ctx, "SELECT timezone FROM accounts WHERE id = ?", a.ID).Scan(&zone)
		if errors.Is(err, sql.ErrNoRows) {
			continue // a new account has no rollups yet
		}
		if err != nil {
			return nil, translate(err)
		}
		z.before[a.ID] = zone
	}
	return z, nil
}

// apply rebuilds the rollups of the accounts whose zone changed.
func (z *accountZones) apply(ctx context.Context, tx *sql.Tx) error {
	for id, zone := range z.before {
		var now string
		if err := tx.QueryRowContext(ctx, "SELECT timezone FROM accounts WHERE id = ?", id).Scan(&now); err != nil {
			return translate(err)
		}
		if now != zone {
			if err := rebuildAccountRollups(ctx, tx, id, false); err != nil {
				return fmt.Errorf("rollups of account %d: %w", id, err)
			}
		}
	}
	return nil
}
