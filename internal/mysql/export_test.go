package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"storefront/internal/importer"
	"storefront/internal/shop"
)

// countingQueryer counts the statements sent through it.
type countingQueryer struct {
	queryer
	n int
}

func (c *countingQueryer) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	c.n++
	return c.queryer.QueryContext(ctx, q, args...)
}

func (c *countingQueryer) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	c.n++
	return c.queryer.QueryRowContext(ctx, q, args...)
}

// FindPurchasesCounted is FindPurchases that also reports how many queries it sent.
func (db *DB) FindPurchasesCounted(ctx context.Context, f shop.PurchaseFilter) (*shop.PurchasePage, int, error) {
	c := &countingQueryer{queryer: db.DB}
	page, err := db.findPurchases(ctx, c, f)
	return page, c.n, err
}

// DerivedMismatches rebuilds, from the normalised rows, every purchase's document, its
// product-path rows and its prefix rows, and lists what differs from what is stored:
// purchases whose stored document is missing or different, stored documents of no
// purchase, and product-path or prefix rows missing, different or extra.
func (db *DB) DerivedMismatches(ctx context.Context) ([]string, error) {
	var out []string
	byAccount := map[int64][]int64{}
	err := eachRow(ctx, db.DB, "SELECT account_id, id FROM purchases ORDER BY id", nil, func(rows *sql.Rows) error {
		var a, id int64
		if err := rows.Scan(&a, &id); err != nil {
			return err
		}
		byAccount[a] = append(byAccount[a], id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for account, ids := range byAccount {
		page, err := readPurchases(ctx, db.DB, &shop.PurchasePage{}, account, ids, len(ids))
		if err != nil {
			return nil, err
		}
		for _, p := range page.Purchases {
			want, err := purchaseDocument(p)
			if err != nil {
				return nil, err
			}
			var got []byte
			err = db.QueryRowContext(ctx, "SELECT document FROM purchase_documents WHERE account_id = ? AND purchase_id = ?", account, p.ID).Scan(&got)
			if err == sql.ErrNoRows {
				out = append(out, fmt.Sprintf("purchase %d: no document", p.ID))
				continue
			} else if err != nil {
				return nil, err
			}
			if string(got) != string(want) {
				out = append(out, fmt.Sprintf("purchase %d: stored document\n%s\nrebuilt\n%s", p.ID, got, want))
			}
		}
	}
	for _, q := range []struct{ what, query string }{
		{"document of no purchase", `SELECT d.purchase_id FROM purchase_documents d
			LEFT JOIN purchases p ON p.account_id = d.account_id AND p.id = d.purchase_id WHERE p.id IS NULL`},
		{"product path row missing", `SELECT DISTINCT p.id FROM purchases p JOIN line_items li ON li.purchase_id = p.id
			LEFT JOIN purchase_products pp ON pp.account_id = p.account_id AND pp.product_id = li.product_id
			AND pp.created_at = p.created_at AND pp.purchase_id = p.id WHERE pp.purchase_id IS NULL`},
		{"product path row extra", `SELECT pp.purchase_id FROM purchase_products pp
			LEFT JOIN purchases p ON p.account_id = pp.account_id AND p.id = pp.purchase_id AND p.created_at = pp.created_at
			WHERE p.id IS NULL OR NOT EXISTS (SELECT 1 FROM line_items li WHERE li.purchase_id = p.id AND li.product_id = pp.product_id)`},
		{"product path row's initials differ from the purchase's", `SELECT pp.purchase_id FROM purchase_products pp
			JOIN purchases p ON p.account_id = pp.account_id AND p.id = pp.purchase_id
			WHERE NOT (BINARY pp.email_initial <=> BINARY LEFT(p.buyer_email, 1)) OR NOT (BINARY pp.first_initial <=> BINARY LEFT(p.buyer_firstname, 1))
			OR NOT (BINARY pp.last_initial <=> BINARY LEFT(p.buyer_lastname, 1))`},
	} {
		err := eachRow(ctx, db.DB, q.query, nil, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("purchase %d: %s", id, q.what))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	// Every row's account is its parent's (migrations 00040-00048 and every write).
	for _, q := range []struct{ table, query string }{
		{"line_items", "SELECT c.purchase_id FROM line_items c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"product_keys", "SELECT c.purchase_id FROM product_keys c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"coupons", "SELECT c.purchase_id FROM coupons c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"custom_fields", "SELECT c.purchase_id FROM custom_fields c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"transactions", "SELECT c.purchase_id FROM transactions c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"purchase_activity", "SELECT c.purchase_id FROM purchase_activity c JOIN purchases p ON p.id = c.purchase_id WHERE c.account_id <> p.account_id"},
		{"subscribers", "SELECT c.id FROM subscribers c JOIN storefronts sf ON sf.id = c.storefront_id WHERE c.account_id <> sf.account_id"},
		{"products", "SELECT c.id FROM products c JOIN storefronts sf ON sf.id = c.storefront_id WHERE c.account_id <> sf.account_id"},
		{"subscriptions", "SELECT c.subscriber_id FROM subscriptions c JOIN subscribers sb ON sb.id = c.subscriber_id WHERE c.account_id <> sb.account_id"},
		{"subscriber_activity", "SELECT c.subscriber_id FROM subscriber_activity c JOIN subscribers sb ON sb.id = c.subscriber_id WHERE c.account_id <> sb.account_id"},
		{"user_sessions", "SELECT c.user_id FROM user_sessions c JOIN users u ON u.id = c.user_id WHERE c.account_id <> u.account_id"},
	} {
		err := eachRow(ctx, db.DB, q.query, nil, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%s of %d: another account than its parent's", q.table, id))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	bad, err := prefixMismatches(ctx, db)
	if err != nil {
		return nil, err
	}
	out = append(out, bad...)
	bad, err = pairMismatches(ctx, db)
	if err != nil {
		return nil, err
	}
	out = append(out, bad...)
	bad, err = subscriberStatusMismatches(ctx, db)
	return append(out, bad...), err
}

// subscriberStatusMismatches lists the subscribers whose row's status (migration
// 00232) is not their subscription's (NULL for none).
func subscriberStatusMismatches(ctx context.Context, db *DB) ([]string, error) {
	var out []string
	err := eachRow(ctx, db.DB, `SELECT sb.id, COALESCE(sb.status, '-'), COALESCE(ss.status, '-') FROM subscribers sb
		LEFT JOIN subscriptions ss ON ss.account_id = sb.account_id AND ss.subscriber_id = sb.id
		WHERE NOT (sb.status <=> ss.status) ORDER BY sb.id`, nil, func(rows *sql.Rows) error {
		var id int64
		var have, want string
		if err := rows.Scan(&id, &have, &want); err != nil {
			return err
		}
		out = append(out, fmt.Sprintf("subscriber %d: status %s on its row, %s on its subscription", id, have, want))
		return nil
	})
	return out, err
}

// analyzingQueryer runs each statement sent through it under ANALYZE first and keeps
// the most index entries (or rows) one read.
type analyzingQueryer struct {
	db   *sql.DB
	most float64
	err  error
}

func (a *analyzingQueryer) analyze(ctx context.Context, q string, args []any) {
	n, err := EntriesRead(ctx, a.db, Statement{q, args})
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("%s: %w", q, err)
	}
	a.most = max(a.most, n)
}

func (a *analyzingQueryer) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	a.analyze(ctx, q, args)
	return a.db.QueryContext(ctx, q, args...)
}

func (a *analyzingQueryer) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	a.analyze(ctx, q, args)
	return a.db.QueryRowContext(ctx, q, args...)
}

func (a *analyzingQueryer) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	return a.db.ExecContext(ctx, q, args...)
}

// AnalyzeSubscribers reads the subscriber list's page (and count, when asked) of the
// filter, each statement run under ANALYZE too, and returns the page and the most
// index entries (or rows) one of its statements read.
func (db *DB) AnalyzeSubscribers(ctx context.Context, f shop.SubscriberFilter) (*shop.SubscriberPage, float64, error) {
	a := &analyzingQueryer{db: db.DB}
	page, err := db.findSubscribers(ctx, a, f, 0)
	if err == nil {
		err = a.err
	}
	return page, a.most, err
}

// prefixMismatches rebuilds in Go, from the purchases' rows, the prefix rows each
// should have (its first 1 to 3 characters of e-mail, first and last name, as runes,
// the initials of its names and its e-mail's domain)
// and lists those missing, different or extra in purchase_prefixes.
func prefixMismatches(ctx context.Context, db *DB) ([]string, error) {
	type key struct {
		account, id  int64
		field, n     int
		prefix, when string
	}
	type row struct {
		value      string
		storefront int64
		products   string
		status     string
	}
	// The products of each purchase, in order, as its prefix rows of two and three
	// characters of e-mail and names hold them.
	products := map[int64]string{}
	err := eachRow(ctx, db.DB, "SELECT purchase_id, product_id FROM purchase_products ORDER BY purchase_id, product_id", nil, func(rows *sql.Rows) error {
		var id, product int64
		if err := rows.Scan(&id, &product); err != nil {
			return err
		}
		if products[id] != "" {
			products[id] += ","
		}
		products[id] += strconv.FormatInt(product, 10)
		return nil
	})
	if err != nil {
		return nil, err
	}
	want := map[key]row{}
	err = eachRow(ctx, db.DB, "SELECT account_id, id, created_at, storefront_id, status, buyer_email, buyer_firstname, buyer_lastname FROM purchases", nil,
		func(rows *sql.Rows) error {
			var account, id, storefront int64
			var created time.Time
			var status string
			var vals [3]sql.NullString
			if err := rows.Scan(&account, &id, &created, &storefront, &status, &vals[0], &vals[1], &vals[2]); err != nil {
				return err
			}
			for i, v := range vals {
				runes := []rune(v.String)
				for n := 1; n <= 3 && n <= len(runes); n++ {
					r := row{v.String, storefront, "", status}
					if n >= 2 {
						r.products = products[id]
					}
					want[key{account, id, i + 1, n, string(runes[:n]), created.UTC().Format(time.DateTime)}] = r
				}
			}
			// The initials: both names' first characters, when both have one.
			if first, last := []rune(vals[1].String), []rune(vals[2].String); len(first) > 0 && len(last) > 0 {
				want[key{account, id, 4, 2, string(first[:1]) + string(last[:1]), created.UTC().Format(time.DateTime)}] = row{"", storefront, "", status}
			}
			// The domain: the e-mail's text after its last "@", up to 63 characters, with
			// the whole e-mail.
			if e := vals[0]; e.Valid && strings.Contains(e.String, "@") {
				domain := []rune(e.String[strings.LastIndex(e.String, "@")+1:])
				want[key{account, id, 5, 0, string(domain[:min(len(domain), 63)]), created.UTC().Format(time.DateTime)}] = row{e.String, storefront, "", status}
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	var out []string
	err = eachRow(ctx, db.DB, "SELECT account_id, purchase_id, field, prefix_len, prefix, created_at, value, storefront_id, COALESCE(products, ''), COALESCE(status, '') FROM purchase_prefixes", nil,
		func(rows *sql.Rows) error {
			var k key
			var created time.Time
			var got row
			if err := rows.Scan(&k.account, &k.id, &k.field, &k.n, &k.prefix, &created, &got.value, &got.storefront, &got.products, &got.status); err != nil {
				return err
			}
			k.when = created.UTC().Format(time.DateTime)
			w, ok := want[k]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("purchase %d: prefix row extra: %+v", k.id, k))
			case w != got:
				out = append(out, fmt.Sprintf("purchase %d: prefix row %+v holds %+v, want %+v", k.id, k, got, w))
			}
			delete(want, k)
			return nil
		})
	for k := range want {
		out = append(out, fmt.Sprintf("purchase %d: prefix row missing: %+v", k.id, k))
	}
	return out, err
}

// MigrateDownTo undoes the migrations after version.
func (db *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}

// AnalyzeList runs the list statement of the filter's page under ANALYZE and returns
// the plan's path and the index entries (or rows) it read, over all tables.
func (db *DB) AnalyzeList(ctx context.Context, f shop.PurchaseFilter) (string, float64, error) {
	path, err := planPurchases(ctx, db.DB, f)
	if err != nil {
		return "", 0, err
	}
	query, args, err := purchaseListQuery(f, perPage(f.PerPage), path)
	if err != nil {
		return "", 0, err
	}
	read, err := EntriesRead(ctx, db.DB, Statement{query, args})
	return path.path.String(), read, err
}

// PathIDs lists every purchase matching the filter, in list order, reading it n at a
// time by cursor from the named access path (accessPath.String()), whatever the plan
// rule would choose. The total bands are named "total bands, own sorted" or "total
// bands, own walked": the own band's matches read either way, whatever their number,
// and the bands read whatever theirs.
func (db *DB) PathIDs(ctx context.Context, f shop.PurchaseFilter, path string, n int) ([]int64, error) {
	var pl plan
	if rest, ok := strings.CutPrefix(path, "total bands, own "); ok {
		var err error
		if pl, err = planBands(ctx, db.DB, f); err != nil {
			return nil, err
		}
		if pl.path != pathTotalBands { // past maxBandBranches: read the bands all the same
			query, args, err := edgeStatement(f)
			if err != nil {
				return nil, err
			}
			var edge, probe, version sql.NullInt64
			if err := db.QueryRowContext(ctx, query, args...).Scan(&edge, &probe, &version); err != nil {
				return nil, err
			}
			pl = plan{path: pathTotalBands, bands: bandsBeyond(totalBand(f.Total), edge, f.TotalOp == shop.TotalGt)}
		}
		pl.sortOwn = rest == "sorted"
	} else {
		for pl.path = pathList; pl.path.String() != path; pl.path++ {
			if int(pl.path) >= len(pathNames)-1 {
				return nil, fmt.Errorf("no path %q", path)
			}
		}
	}
	var out []int64
	for {
		query, args, err := purchaseListQuery(f, n, pl)
		if err != nil {
			return nil, err
		}
		var page []shop.Cursor
		err = eachRow(ctx, db.DB, query, args, func(rows *sql.Rows) error {
			var c shop.Cursor
			if err := rows.Scan(&c.ID, &c.CreatedAt); err != nil {
				return err
			}
			page = append(page, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, c := range page[:min(n, len(page))] {
			out = append(out, c.ID)
		}
		if len(page) <= n {
			return out, nil
		}
		f.After = &page[n-1]
	}
}

// Explain returns the plan MariaDB gives query on db, each row of EXPLAIN by column name.
func Explain(ctx context.Context, db *DB, query string) ([]map[string]string, error) {
	return explainRows(ctx, db.DB, query)
}

// PrefixProductsFill is the fill of the prefix rows' products (migration 00221's too).
const PrefixProductsFill = prefixProductsFill

// BackfillPrefixes runs migration 00033's backfill of the prefix rows, then 00221's fill of
// their products.
func (db *DB) BackfillPrefixes(ctx context.Context) error {
	if err := backfillPrefixes(ctx, db.DB); err != nil {
		return err
	}
	// Then migration 00221's fill of the products the longer prefixes' rows hold, and
	// 00222's of the status every row holds.
	for _, fill := range []string{prefixProductsFill, prefixStatusFill} {
		if _, err := db.ExecContext(ctx, fill); err != nil {
			return err
		}
	}
	return nil
}

// BackfillDomains runs migration 00131's backfill of the domains' prefix rows, then
// 00222's fill of the status the rows hold.
func (db *DB) BackfillDomains(ctx context.Context) error {
	if err := backfillDomains(ctx, db.DB); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, prefixStatusFill)
	return err
}

// ExportDense runs fn with the export's density rule set to dense (every batch read as
// ranges of the primary keys) or not (every batch read by its id list).
func ExportDense(dense bool, fn func()) {
	old := exportDense
	defer func() { exportDense = old }()
	exportDense = 0
	if dense {
		exportDense = 1 << 40
	}
	fn()
}

// TotalBand is totalBand, for the bands' tests.
var TotalBand = totalBand

// BandWalkProbe and BandSortLimit are the bands' plan limits, for their tests.
const (
	BandWalkProbe = bandWalkProbe
	BandSortLimit = bandSortLimit
)

// ImportRowsRead returns how many rows and index entries the import transaction tx
// (from BeginImport) has read so far: the sum of its connection's Handler_read
// counters.
func ImportRowsRead(ctx context.Context, tx importer.Tx) (int64, error) {
	var n int64
	err := eachRow(ctx, tx.(*importTx).tx, "SHOW SESSION STATUS LIKE 'Handler\\_read\\_%'", nil, func(rows *sql.Rows) error {
		var name string
		var v int64
		if err := rows.Scan(&name, &v); err != nil {
			return err
		}
		n += v
		return nil
	})
	return n, err
}

// StorePrefixes writes the prefix rows alone of the given purchases of an account, as
// StoreSearchRows writes them.
func StorePrefixes(ctx context.Context, sqlTx *sql.Tx, accountID int64, ps []*shop.Purchase) error {
	return prefixTable.insert.write(ctx, &Tx{Tx: sqlTx}, prefixTable.args(accountID, ps))
}

// StorePairs writes the pairs' rows alone of the given purchases of an account, as
// StoreSearchRows writes them.
func StorePairs(ctx context.Context, sqlTx *sql.Tx, accountID int64, ps []*shop.Purchase) error {
	return pairTable.insert.write(ctx, &Tx{Tx: sqlTx}, pairTable.args(accountID, ps))
}

// WriteRowsInTx runs upsertChunks in one transaction of the store and reports how many
// statements the transaction prepared for it.
func (db *DB) WriteRowsInTx(ctx context.Context, head string, cols int, args []any) (prepared int, err error) {
	err = db.inTx(ctx, func(tx *Tx) error {
		if err := upsertChunks(ctx, tx, head, cols, "", args); err != nil {
			return err
		}
		prepared = len(tx.prepared)
		return nil
	})
	return prepared, err
}

// StatementRows is statementRows.
const StatementRows = statementRows

// BandLimits returns the read limits of the plan the API takes for the next page of a
// total comparison alone: each band's beyond the own band (0: up to the page's end) and
// the own band's walk (0: bandWalkProbe), from the comparison's remembered shares.
func (db *DB) BandLimits(ctx context.Context, f shop.PurchaseFilter) (limits []int, walk int, err error) {
	pl, err := db.bandEdges().plan(ctx, db.DB, f)
	return pl.limits, pl.walk, err
}

// UnderstateBandShares has the comparison's remembered shares say that its last page
// held no row of any band: the next page reads each band up to shareSlack rows and the
// own band's walk to its shortest.
func (db *DB) UnderstateBandShares(f shop.PurchaseFilter) {
	k := shareKeyOf(f)
	s, _ := db.bandEdges().shares.Get(k)
	s.counts, s.own = make([]int, len(s.bands)), 0
	db.bandEdges().shares.Add(k, s)
}

// MaxNamed sets how many purchases one text of ref: or key: may name, until the
// returned function puts it back.
func MaxNamed(n int) (restore func()) {
	was := maxNamed
	maxNamed = n
	return func() { maxNamed = was }
}

// SetNarrowMost sets how many matches a narrower way into the subscriber lists may
// find for the page to be read from it, and how many of the list order's first
// subscribers a page of more is looked for in; it returns the function that restores
// them.
func SetNarrowMost(n int64, window uint64) (restore func()) {
	was, wasWindow := narrowMost, listWindow
	narrowMost, listWindow = n, window
	return func() { narrowMost, listWindow = was, wasWindow }
}
