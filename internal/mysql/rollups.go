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

// customerKey is one row of customer_rollups within an account.
type customerKey struct {
	email    string
	currency string
	status   shop.PurchaseStatus
}

// sums is a change to one rollup row; toShip only in customer_rollups.
type sums struct {
	n      int64
	total  *big.Rat
	toShip int64
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
	// email is the buyer's address, nil for none; toShip tells that goods are still to
	// ship (the column to_ship).
	email  *string
	toShip bool
}

// rollupDelta gathers the changes one transaction makes to one account's rollups.
type rollupDelta struct {
	account   int64
	loc       *time.Location
	purchases map[rollupKey]*sums
	products  map[productKey]*sums
	customers map[customerKey]*sums
	// tablesOf90 writes only the rollup tables that exist at migration 90, for its
	// rebuild: not purchase_rollups_monthly (00110, filled from the days by 00111) nor
	// purchase_rollups_weekly (00112, filled by 00113).
	tablesOf90 bool
}

func newRollupDelta(account int64, loc *time.Location) *rollupDelta {
	return &rollupDelta{account: account, loc: loc, purchases: map[rollupKey]*sums{}, products: map[productKey]*sums{}, customers: map[customerKey]*sums{}}
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
	if f.email != nil {
		c := customerKey{email: *f.email, currency: f.currency, status: f.status}
		bump(d.customers, c, sign, f.total)
		if f.toShip {
			d.customers[c].toShip += sign
		}
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
		return rollupArgs(m, cmpPurchaseKey, func(args []any, k rollupKey, s *sums) []any {
			return append(args, d.account, k.day, k.storefront, k.currency, string(k.status), s.n, s.total.FloatString(4))
		})
	}
	productRows := func(m map[productKey]*sums) []any {
		return rollupArgs(m, cmpProductKey, func(args []any, k productKey, s *sums) []any {
			return append(args, d.account, string(k.status), k.day, k.storefront, k.currency, k.product, s.n, s.total.FloatString(4))
		})
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
	if d.tablesOf90 {
		return nil
	}
	args := rollupArgs(d.customers, cmpCustomerKey, func(args []any, k customerKey, s *sums) []any {
		return append(args, d.account, k.email, k.currency, string(k.status), s.n, s.total.FloatString(4), s.toShip)
	})
	if err := upsertChunks(ctx, q, "INSERT INTO customer_rollups (account_id, email, currency, status, purchases, total, to_ship)", 7,
		add+", to_ship = to_ship + VALUES(to_ship)", args); err != nil {
		return fmt.Errorf("customer rollups: %w", err)
	}
	return nil
}

// rollupArgs returns the values of the rows of m for an upsert, row after row in the
// order of cmpKey, leaving out the rows that change nothing; row appends one row's
// values to args.
func rollupArgs[K comparable](m map[K]*sums, cmpKey func(a, b K) int, row func(args []any, k K, s *sums) []any) []any {
	var args []any
	for _, k := range slices.SortedFunc(maps.Keys(m), cmpKey) {
		s := m[k]
		if s.n == 0 && s.total.Sign() == 0 && s.toShip == 0 {
			continue
		}
		args = row(args, k, s)
	}
	return args
}

// cmpCustomerKey orders customer_rollups rows about as its primary key does (email,
// currency, status): the address by its lower case, as the key's collation ignores
// case, so that writers of one customer's rows lock them in one order (two spellings
// of one row stand side by side).
func cmpCustomerKey(a, b customerKey) int {
	return cmp.Or(cmp.Compare(strings.ToLower(a.email), strings.ToLower(b.email)),
		cmp.Compare(a.currency, b.currency), cmp.Compare(a.status, b.status), cmp.Compare(a.email, b.email))
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
		list, args := inList(ids[start:min(start+10000, len(ids))])
		args = append([]any{account}, args...)
		err := eachRow(ctx, q, "SELECT id, storefront_id, currency, created_at, status, total, buyer_email, to_ship FROM purchases WHERE account_id = ? AND id IN "+list, args,
			func(rows *sql.Rows) error {
				var (
					id    int64
					f     purchaseFact
					total string
				)
				if err := rows.Scan(&id, &f.storefront, &f.currency, &f.created, &f.status, &total, &f.email, &f.toShip); err != nil {
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
	f := &purchaseFact{storefront: p.StorefrontID, currency: p.Currency, created: p.CreatedAt.Time, status: p.Status, total: total, items: map[int64]*big.Rat{},
		email: p.BuyerEmail, toShip: p.TangiblesToShip != nil && *p.TangiblesToShip > 0}
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
func AddPurchaseRollups(ctx context.Context, sqlTx *sql.Tx, account int64, ps []*shop.Purchase) error {
	tx := &Tx{Tx: sqlTx} // the seed's transaction queues no background work
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
