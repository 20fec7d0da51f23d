package seed

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// demoAccount is an account of the tenancy layout created in an empty database.
type demoAccount struct {
	name, apiUsername, timezone string
}

// demoStorefront is a storefront of the layout: acct indexes demoAccounts; weight is
// its share of the purchases and subscribers (relative to the others').
type demoStorefront struct {
	acct                    int
	name, currency          string
	dlLimit, dlDays, graceD int
	weight                  int
}

var demoAccounts = []demoAccount{
	{"Demo Store Co.", "demo", "America/New_York"},
	{"Nordic Games AB", "nordic", "Europe/Stockholm"},
}

// demoStorefronts, in id order: three storefronts with full catalogs, three currencies
// (JPY has no minor unit) and three download policies (limited, unlimited and never
// expiring, strict), then a small storefront of the first account that sells one
// product only, so that every purchase of it holds that product. It comes last so
// that the first three keep their ids.
var demoStorefronts = []demoStorefront{
	{0, "Pixel Fonts", "USD", 5, 30, 14, 45},
	{0, "Sound Packs", "EUR", 0, 0, 7, 35},
	{1, "Nordic Games", "JPY", 3, 7, 14, 20},
	{0, "Color Picker", "USD", 10, 365, 14, 4},
}

// storefrontWeights split purchases and subscribers over storefronts that are not
// the demo ones, in id order: 45/35/20 for three, 20 for each further one.
var storefrontWeights = []int{45, 35, 20}

// catalogByName gives the demo storefronts their own ranges; other storefronts take
// the first sharedCatalogs catalogs in turn.
var catalogByName = map[string]int{"Pixel Fonts": 0, "Sound Packs": 1, "Nordic Games": 2, "Color Picker": 3}

const sharedCatalogs = 3

var keyPrefixes = []string{"PXF", "SND", "", "CLR"}

// weightOf is the share of the i-th storefront (in id order) named name.
func weightOf(i int, name string) int {
	for _, d := range demoStorefronts {
		if d.name == name {
			return d.weight
		}
	}
	if i < len(storefrontWeights) {
		return storefrontWeights[i]
	}
	return 20
}

// prepare makes sure there are storefronts and products to seed into, in the accounts
// above base, and returns them with the next free ids (above base).
func prepare(ctx context.Context, conn *sql.Conn, now time.Time, base int64, noBackslashEscapes bool, stats *Stats) ([]*storefront, ids, error) {
	var next ids
	var nAccounts int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts WHERE id > ?", base).Scan(&nAccounts); err != nil {
		return nil, next, err
	}
	if nAccounts == 0 {
		if err := createLayout(ctx, conn, now, base, stats); err != nil {
			return nil, next, fmt.Errorf("create demo accounts: %w", err)
		}
	}

	accounts := map[int64]*account{}
	rows, err := conn.QueryContext(ctx, `SELECT id, account_id, name, COALESCE(currency, ''),
		download_limit, download_days, past_due_grace_days FROM storefronts WHERE account_id > ? ORDER BY id`, base)
	if err != nil {
		return nil, next, err
	}
	var sfs []*storefront
	for rows.Next() {
		sf := &storefront{}
		var acctID int64
		var cur string
		if err := rows.Scan(&sf.id, &acctID, &sf.name, &cur, &sf.dlLimit, &sf.dlDays, &sf.graceDays); err != nil {
			rows.Close()
			return nil, next, err
		}
		if accounts[acctID] == nil {
			accounts[acctID] = &account{id: acctID, emails: emailSet{}}
		}
		sf.acct = accounts[acctID]
		sf.cur = newCurrency(cur)
		sfs = append(sfs, sf)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, next, err
	}
	if len(sfs) == 0 {
		return nil, next, errors.New("the database has accounts but no storefronts to add data to")
	}
	for i, sf := range sfs {
		sf.weight = weightOf(i, sf.name)
	}

	if err := addProducts(ctx, conn, sfs, base, noBackslashEscapes, stats); err != nil {
		return nil, next, fmt.Errorf("products: %w", err)
	}
	if err := loadEmails(ctx, conn, accounts); err != nil {
		return nil, next, fmt.Errorf("existing addresses: %w", err)
	}
	for _, m := range []struct {
		table string
		id    *int64
	}{
		{"customers", &next.customer}, {"subscribers", &next.subscriber}, {"subscriptions", &next.subscription},
		{"purchases", &next.purchase}, {"line_items", &next.lineItem}, {"transactions", &next.transaction},
	} {
		if err := conn.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM "+m.table).Scan(m.id); err != nil {
			return nil, next, err
		}
		*m.id = max(*m.id, base)
	}
	return sfs, next, nil
}

// createLayout writes the demo accounts and storefronts into a database with no
// accounts above base, with ids after base.
func createLayout(ctx context.Context, conn *sql.Conn, now time.Time, base int64, stats *Stats) error {
	var acctID, sfID int64
	if err := conn.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM accounts").Scan(&acctID); err != nil {
		return err
	}
	if err := conn.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM storefronts").Scan(&sfID); err != nil {
		return err
	}
	acctID, sfID = max(acctID, base), max(sfID, base)
	created := now.UTC().AddDate(-2, 0, -1).Truncate(time.Second)
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback() }()
	first := acctID + 1
	for _, a := range demoAccounts {
		acctID++
		// API user names are unique: above a base, they carry it.
		username := a.apiUsername
		if base > 0 {
			username = fmt.Sprintf("%s-%d", username, base)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO accounts (id, name, api_username, timezone, created_at) VALUES (?, ?, ?, ?, ?)",
			acctID, a.name, username, a.timezone, created); err != nil {
			return err
		}
		stats.Rows["accounts"]++
	}
	for _, s := range demoStorefronts {
		sfID++
		if _, err := tx.ExecContext(ctx, `INSERT INTO storefronts (id, account_id, name, currency,
			download_limit, download_days, past_due_grace_days) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			sfID, first+int64(s.acct), s.name, s.currency, s.dlLimit, s.dlDays, s.graceD); err != nil {
			return err
		}
		stats.Rows["storefronts"]++
	}
	return tx.Commit()
}

// addProducts gives every storefront its catalog: products already there (by name)
// are reused, the others are inserted.
func addProducts(ctx context.Context, conn *sql.Conn, sfs []*storefront, base int64, noBackslashEscapes bool, stats *Stats) error {
	type key struct {
		sf   int64
		name string
	}
	existing := map[key]int64{}
	rows, err := conn.QueryContext(ctx, "SELECT id, storefront_id, name FROM products ORDER BY id")
	if err != nil {
		return err
	}
	maxID := base
	for rows.Next() {
		var id, sf int64
		var name string
		if err := rows.Scan(&id, &sf, &name); err != nil {
			rows.Close()
			return err
		}
		if _, ok := existing[key{sf, name}]; !ok {
			existing[key{sf, name}] = id
		}
		maxID = max(maxID, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}

	c := newChunk()
	b := newBatch(newTable("products", "id", "account_id", "storefront_id", "name"), noBackslashEscapes)
	b.reset(c)
	productID := func(sf *storefront, name string) int64 {
		if id, ok := existing[key{sf.id, name}]; ok {
			return id
		}
		maxID++
		b.add(maxID, sf.acct.id, sf.id, name)
		existing[key{sf.id, name}] = maxID
		return maxID
	}
	for i, sf := range sfs {
		ci, ok := catalogByName[sf.name]
		if !ok {
			ci = i % sharedCatalogs
		}
		sf.setCatalog(ci, func(name string) int64 { return productID(sf, name) })
	}
	b.flush()
	if err := writeChunk(ctx, conn, c); err != nil {
		return err
	}
	stats.Rows["products"] += c.rows["products"]
	return nil
}

// loadEmails records the addresses of existing customers and subscribers, so that
// new ones do not repeat them.
func loadEmails(ctx context.Context, conn *sql.Conn, accounts map[int64]*account) error {
	for _, q := range []string{
		"SELECT account_id, email FROM customers WHERE email IS NOT NULL",
		"SELECT s.account_id, b.username FROM subscribers b JOIN storefronts s ON s.id = b.storefront_id",
	} {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id int64
			var email string
			if err := rows.Scan(&id, &email); err != nil {
				rows.Close()
				return err
			}
			if a := accounts[id]; a != nil {
				a.emails.add(email)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// setCatalog gives sf the products and plans of catalog ci, with the product ids
// that productID returns for their names.
func (sf *storefront) setCatalog(ci int, productID func(name string) int64) {
	cat := &catalogs[ci]
	sf.keyPrefix = keyPrefixes[ci]
	sum := 0
	// product is what a product and a plan have alike: an id, a name and a price.
	product := func(name string, usdCents int64) sfProduct {
		return sfProduct{id: productID(name), name: name, price: sf.cur.price(usdCents)}
	}
	for _, p := range cat.products {
		sp := product(p.name, p.usdCents)
		sp.tangible = p.tangible
		sp.keyed = p.keyed || !p.tangible // digital goods are delivered with license keys
		sf.products = append(sf.products, sp)
		sum += p.weight
		sf.cumWeight = append(sf.cumWeight, sum)
	}
	for _, p := range cat.plans {
		sf.plans = append(sf.plans, sfPlan{
			sfProduct:   product(p.name, p.usdCents),
			period:      p.period,
			unit:        p.unit,
			trialPrice:  sf.cur.price(p.trialCents),
			trialPeriod: p.trialPeriod,
			trialUnit:   p.trialUnit,
		})
	}
}
