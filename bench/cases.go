package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"sync"
	"time"

	"storefront/internal/filter"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// listCase is one filter, or combination of filters, of GET /purchases.
type listCase struct {
	name  string
	query url.Values
}

// values are filter values taken from the data itself, so that each filter matches.
type values struct {
	product, customer, subscriber int64
	total                         string
	newest                        time.Time
}

func findValues(ctx context.Context, db *sql.DB, account int64) (values, error) {
	var v values
	q := func(query string, dst ...any) error {
		if err := db.QueryRowContext(ctx, query, account).Scan(dst...); err != nil {
			return fmt.Errorf("%s: %w", query, err)
		}
		return nil
	}
	// A product with tangible goods, so that product + unshipped matches too.
	if err := q(`SELECT li.product_id FROM purchases p JOIN line_items li ON li.purchase_id = p.id
		WHERE p.account_id = ? AND p.to_ship = 1 ORDER BY p.created_at DESC, p.id DESC LIMIT 1`, &v.product); err != nil {
		return v, err
	}
	if err := q("SELECT customer_id FROM purchases WHERE account_id = ? AND customer_id IS NOT NULL ORDER BY id DESC LIMIT 1", &v.customer); err != nil {
		return v, err
	}
	if err := q("SELECT subscriber_id FROM purchases WHERE account_id = ? AND subscriber_id IS NOT NULL ORDER BY id DESC LIMIT 1", &v.subscriber); err != nil {
		return v, err
	}
	if err := q("SELECT total FROM purchases WHERE account_id = ? ORDER BY id DESC LIMIT 1", &v.total); err != nil {
		return v, err
	}
	if err := q("SELECT MAX(created_at) FROM purchases WHERE account_id = ?", &v.newest); err != nil {
		return v, err
	}
	return v, nil
}

func listCases(v values) []listCase {
	at := func(days int) string { return fmt.Sprintf("@%d", v.newest.AddDate(0, 0, -days).Unix()) }
	c := func(name string, kv ...string) listCase {
		q := url.Values{}
		for i := 0; i < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return listCase{name, q}
	}
	id := func(n int64) string { return fmt.Sprint(n) }
	return []listCase{
		c("(none)"),
		c("status=RFD", "status", "RFD"),
		c("product_id", "product_id", id(v.product)),
		c("storefront_id=1", "storefront_id", "1"),
		c("customer_id", "customer_id", id(v.customer)),
		c("subscriber_id", "subscriber_id", id(v.subscriber)),
		c("customer_email=jo", "customer_email", "jo"),
		c("customer_first_name=zoe", "customer_first_name", "zoe"),
		c("customer_last_name=muller", "customer_last_name", "muller"),
		c("date_min..date_max (-30d..-7d)", "date_min", at(30), "date_max", at(7)),
		c("total="+v.total, "total", v.total),
		c("ship=1", "ship", "1"),
		c("status=ACT + date range (-90d..-30d)", "status", "ACT", "date_min", at(90), "date_max", at(30)),
		c("customer_email=jo + storefront_id=1", "customer_email", "jo", "storefront_id", "1"),
		c("product_id + ship=1", "product_id", id(v.product), "ship", "1"),
		c("status=RFD + storefront_id=2", "status", "RFD", "storefront_id", "2"),
		c("customer_last_name=smi + total>50", "customer_last_name", "smi", "total", "50", "total_op", "gt"),
	}
}

// deepDepth is the position of the deep pages: page 200 of 100.
const deepDepth = 199 * 100

// bare sends the statements the server sends for a page, straight through
// database/sql with the server's driver settings, reading every column as raw bytes:
// the floor under the API's latency.
type bare struct {
	db      *sql.DB
	account int64
	loc     *time.Location
}

// openBare opens dsn as openDB does, with the pool settings of mysql.Open.
func openBare(ctx context.Context, dsn string) (*sql.DB, error) {
	db, err := openDB(ctx, dsn)
	if err == nil {
		db.SetMaxOpenConns(64)
		db.SetMaxIdleConns(64)
		db.SetConnMaxLifetime(30 * time.Minute)
	}
	return db, err
}

// filterOf reads the query as the API does.
func (b bare) filterOf(q url.Values) (shop.PurchaseFilter, error) {
	return filter.Purchases(q, b.account, time.Now(), b.loc)
}

// page sends the page's statements (the plan's counts, then the one statement of the
// ids joined with their documents) and returns the number of purchases on it.
func (b bare) page(ctx context.Context, f shop.PurchaseFilter) (int, error) {
	plan, _, page, err := mysql.PurchasePageStatements(ctx, b.db, f)
	if err != nil {
		return 0, err
	}
	for _, s := range plan {
		if err := b.each(ctx, s, nil); err != nil {
			return 0, err
		}
	}
	n := 0
	if err := b.each(ctx, page, func(cols []sql.RawBytes) error {
		if cols[2] != nil { // the one row of an empty page has no id
			n++
		}
		return nil
	}); err != nil {
		return 0, err
	}
	return min(n, f.PerPage), nil
}

func (b bare) each(ctx context.Context, s mysql.Statement, fn func([]sql.RawBytes) error) error {
	rows, err := b.db.QueryContext(ctx, s.Query, s.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if fn != nil {
			if err := fn(vals); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}

// time runs the page for about d, one at a time, and returns the median.
func (b bare) time(ctx context.Context, f shop.PurchaseFilter, d time.Duration) (time.Duration, error) {
	if _, err := b.page(ctx, f); err != nil {
		return 0, err
	}
	var ts []time.Duration
	start := time.Now()
	for len(ts) < 5 || (time.Since(start) < d && len(ts) < 2000) {
		t0 := time.Now()
		if _, err := b.page(ctx, f); err != nil {
			return 0, err
		}
		ts = append(ts, time.Since(t0))
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

// getOne sends the statement GET /purchases/{id} sends: one primary-key read of the
// purchase's stored document, with the account's purchases version.
func (b bare) getOne(ctx context.Context, id int64) error {
	s, err := mysql.PurchaseDocumentStatement(b.account, id)
	if err != nil {
		return err
	}
	return b.each(ctx, s, nil)
}

// loop calls fn from conc goroutines at once for d and returns the latencies.
func loop(conc int, d time.Duration, fn func(n int) error) (stats, error) {
	var mu sync.Mutex
	var all []time.Duration
	var firstErr error
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conc {
		wg.Go(func() {
			for n := w; time.Since(start) < d; n += conc {
				t0 := time.Now()
				err := fn(n)
				dt := time.Since(t0)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				all = append(all, dt)
				mu.Unlock()
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	slices.Sort(all)
	return stats{lat: all, elapsed: time.Since(start)}, firstErr
}

// timeConc runs the page from conc goroutines at once for d and returns the latencies.
func (b bare) timeConc(ctx context.Context, f shop.PurchaseFilter, conc int, d time.Duration) (stats, error) {
	return loop(conc, d, func(int) error {
		_, err := b.page(ctx, f)
		return err
	})
}

// deepCursor returns the cursor the API would hand out for the page after position
// deepDepth of the filter's list, or of the middle of a shorter list; "" when the list
// has fewer than two purchases. It also returns how many purchases match, up to
// deepDepth+101 ("more" when there are more).
func (b bare) deepCursor(ctx context.Context, f shop.PurchaseFilter) (cursor string, matches int, more bool, err error) {
	g := f
	g.PerPage, g.Page, g.After = deepDepth+100, 0, nil
	// PurchasePageStatements caps the page size at the API's maximum; build the list by
	// pages of that size instead.
	var ids []int64
	for p := 1; len(ids) < deepDepth+101; p++ {
		h := g
		h.PerPage, h.Page = shop.MaxPerPage, p
		_, list, _, err := mysql.PurchasePageStatements(ctx, b.db, h)
		if err != nil {
			return "", 0, false, err
		}
		n := 0
		if err := b.each(ctx, list, func(cols []sql.RawBytes) error {
			var id int64
			_, err := fmt.Sscan(string(cols[0]), &id)
			if n < shop.MaxPerPage {
				ids = append(ids, id)
			}
			n++
			return err
		}); err != nil {
			return "", 0, false, err
		}
		if n <= shop.MaxPerPage {
			break
		}
	}
	matches, more = len(ids), len(ids) > deepDepth+100
	if len(ids) < 2 {
		return "", matches, more, nil
	}
	pos := min(deepDepth, len(ids)/2) - 1
	var c shop.Cursor
	c.ID = ids[pos]
	if err := b.db.QueryRowContext(ctx, "SELECT created_at FROM purchases WHERE id = ?", c.ID).Scan(&c.CreatedAt); err != nil {
		return "", 0, false, err
	}
	return filter.EncodeCursor(c, filter.KindPurchase, f.Desc), matches, more, nil
}
