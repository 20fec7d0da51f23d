package seed_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
	"storefront/internal/sqlrows"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// now is the fixed end of the seeded window.
var now = time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)

var small = seed.Options{Purchases: 2000, Subscribers: 200, Seed: 7, Now: now}

func seedDB(t *testing.T, db *sql.DB, opt seed.Options) seed.Stats {
	t.Helper()
	var progress bytes.Buffer
	st, err := seed.Run(context.Background(), db, opt, &progress)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.Contains(progress.String(), "seed: done") {
		t.Errorf("progress: got %q, want a final line", progress.String())
	}
	return st
}

func count(t *testing.T, db *sql.DB, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func distinct(t *testing.T, db *sql.DB, query string) map[string]bool {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	got := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got[s] = true
	}
	return got
}

// zero runs named checks that each count violations.
func zero(t *testing.T, db *sql.DB, checks map[string]string) {
	t.Helper()
	for name, q := range checks {
		if n := count(t, db, q); n != 0 {
			t.Errorf("%s: got %d violations, want 0\n%s", name, n, q)
		}
	}
}

func TestRun(t *testing.T) {
	db := dbtest.New(t).DB
	st := seedDB(t, db, small)

	t.Run("Stats", func(t *testing.T) {
		for table, want := range map[string]int64{"purchases": 2000, "subscribers": 200, "accounts": 2, "storefronts": 4} {
			if st.Rows[table] != want {
				t.Errorf("Rows[%s]: got %d, want %d", table, st.Rows[table], want)
			}
			if n := count(t, db, "SELECT COUNT(*) FROM "+table); n != want {
				t.Errorf("%s: got %d rows, want %d", table, n, want)
			}
		}
		for _, table := range []string{"line_items", "product_keys", "coupons", "custom_fields", "transactions", "customers", "subscriptions", "products"} {
			if n := count(t, db, "SELECT COUNT(*) FROM "+table); n == 0 || n != st.Rows[table] {
				t.Errorf("%s: got %d rows, stats say %d", table, n, st.Rows[table])
			}
		}
		if st.Elapsed <= 0 || st.Total() == 0 {
			t.Errorf("stats: got %v", st)
		}
	})

	t.Run("Layout", func(t *testing.T) {
		got := distinct(t, db, "SELECT CONCAT(a.api_username, '/', s.name, '/', s.currency, '/', s.download_limit, '/', s.download_days) FROM storefronts s JOIN accounts a ON a.id = s.account_id")
		for _, want := range []string{"demo/Pixel Fonts/USD/5/30", "demo/Sound Packs/EUR/0/0", "nordic/Nordic Games/JPY/3/7", "demo/Color Picker/USD/10/365"} {
			if !got[want] {
				t.Errorf("storefronts: got %v, want %s", got, want)
			}
		}
		// Roughly 45/35/20/4 (of 104).
		for id, share := range map[int]float64{1: 45.0 / 104, 2: 35.0 / 104, 3: 20.0 / 104, 4: 4.0 / 104} {
			n := float64(count(t, db, "SELECT COUNT(*) FROM purchases WHERE storefront_id = ?", id)) / 2000
			if n < share-0.05 || n > share+0.05 || n == 0 {
				t.Errorf("storefront %d: got share %.3f, want about %.3f", id, n, share)
			}
		}
		if n := count(t, db, "SELECT COUNT(*) FROM products WHERE storefront_id = 3"); n < 20 {
			t.Errorf("products of storefront 3: got %d, want ≥ 20", n)
		}
		// The single-product storefront: one product, held by every purchase of it, which
		// holds nothing else; no subscriptions, since there is no plan.
		if n := count(t, db, "SELECT COUNT(*) FROM products WHERE storefront_id = 4"); n != 1 {
			t.Errorf("products of storefront 4: got %d, want 1", n)
		}
		zero(t, db, map[string]string{
			"purchase of storefront 4 without its product": "SELECT COUNT(*) FROM purchases p WHERE p.storefront_id = 4 AND NOT EXISTS (SELECT 1 FROM line_items l JOIN products x ON x.id = l.product_id WHERE l.purchase_id = p.id AND x.storefront_id = 4)",
			"other line of storefront 4":                   "SELECT COUNT(*) FROM line_items l JOIN purchases p ON p.id = l.purchase_id JOIN products x ON x.id = l.product_id WHERE p.storefront_id = 4 AND x.storefront_id <> 4",
			"subscription in storefront 4":                 "SELECT COUNT(*) FROM subscriptions s JOIN subscribers b ON b.id = s.subscriber_id WHERE b.storefront_id = 4",
		})
		if n := count(t, db, "SELECT COUNT(*) FROM purchases WHERE storefront_id = 4 AND account_id = 1"); n == 0 {
			t.Error("purchases of storefront 4 in account 1: got 0, want some")
		}
	})

	t.Run("EveryStatus", func(t *testing.T) {
		got := distinct(t, db, "SELECT status FROM purchases")
		for _, s := range shop.PurchaseStatuses {
			if !got[string(s)] {
				t.Errorf("purchase status %s: missing (got %v)", s, got)
			}
		}
		got = distinct(t, db, "SELECT status FROM subscriptions")
		for _, s := range shop.SubscriptionStatuses {
			if !got[string(s)] {
				t.Errorf("subscription status %s: missing (got %v)", s, got)
			}
		}
		got = distinct(t, db, "SELECT unit FROM subscriptions")
		for _, u := range []string{"D", "W", "M", "Y"} {
			if !got[u] {
				t.Errorf("unit %s: missing (got %v)", u, got)
			}
		}
		if act := count(t, db, "SELECT COUNT(*) FROM purchases WHERE status = 'ACT'"); act < 1500 {
			t.Errorf("ACT purchases: got %d of 2000, want most", act)
		}
		if n := count(t, db, "SELECT COUNT(*) FROM subscribers b LEFT JOIN subscriptions s ON s.subscriber_id = b.id WHERE s.id IS NULL"); n == 0 {
			t.Error("subscribers without a subscription: got 0, want some")
		}
	})

	t.Run("Money", func(t *testing.T) {
		zero(t, db, map[string]string{
			"purchase total":            "SELECT COUNT(*) FROM purchases WHERE total <> subtotal + discount + tax + shipping",
			"purchase sign":             "SELECT COUNT(*) FROM purchases WHERE discount > 0 OR subtotal < 0 OR tax < 0 OR shipping < 0",
			"line total":                "SELECT COUNT(*) FROM line_items WHERE total <> subtotal + discount + tax",
			"line subtotal":             "SELECT COUNT(*) FROM line_items WHERE subtotal <> price * quantity",
			"line discount":             "SELECT COUNT(*) FROM line_items WHERE discount > 0 OR -discount > subtotal OR quantity < 1",
			"sums of lines":             "SELECT COUNT(*) FROM purchases p JOIN (SELECT purchase_id, SUM(subtotal) s, SUM(discount) d, SUM(tax) x FROM line_items GROUP BY purchase_id) l ON l.purchase_id = p.id WHERE p.subtotal <> l.s OR p.discount <> l.d OR p.tax <> l.x",
			"purchase w/o line":         "SELECT COUNT(*) FROM purchases p LEFT JOIN line_items l ON l.purchase_id = p.id WHERE l.id IS NULL",
			"shipping fee w/o shipping": "SELECT COUNT(*) FROM purchases WHERE requires_shipping = 0 AND shipping <> 0",
			"fee":                       "SELECT COUNT(*) FROM purchases WHERE processor_fee IS NOT NULL AND (processor_fee <= 0 OR processor_fee >= total)",
		})
		// Digits of the currency: none for JPY, two for USD and EUR, in every amount.
		for _, c := range []struct{ code, scale string }{{"JPY", "1"}, {"USD", "100"}, {"EUR", "100"}} {
			frac := func(cols ...string) string {
				var parts []string
				for _, col := range cols {
					parts = append(parts, "COALESCE("+col+", 0) * "+c.scale+" <> FLOOR(COALESCE("+col+", 0) * "+c.scale+")")
				}
				return strings.Join(parts, " OR ")
			}
			zero(t, db, map[string]string{
				c.code + " purchases":     "SELECT COUNT(*) FROM purchases WHERE currency = '" + c.code + "' AND (" + frac("subtotal", "discount", "tax", "shipping", "total", "processor_fee") + ")",
				c.code + " line items":    "SELECT COUNT(*) FROM line_items l JOIN purchases p ON p.id = l.purchase_id WHERE p.currency = '" + c.code + "' AND (" + frac("l.price", "l.subtotal", "l.discount", "l.tax", "l.total") + ")",
				c.code + " transactions":  "SELECT COUNT(*) FROM transactions WHERE currency = '" + c.code + "' AND (" + frac("amount") + ")",
				c.code + " subscriptions": "SELECT COUNT(*) FROM subscriptions s JOIN subscribers b ON b.id = s.subscriber_id JOIN storefronts f ON f.id = b.storefront_id WHERE f.currency = '" + c.code + "' AND (" + frac("s.price", "s.tax_amount", "s.trial_price", "s.trial_tax_amount") + ")",
				c.code + " coupons":       "SELECT COUNT(*) FROM coupons c JOIN purchases p ON p.id = c.purchase_id WHERE p.currency = '" + c.code + "' AND c.discount_type = 'money' AND " + frac("CAST(c.discount_amount AS DECIMAL(19,4))"),
			})
		}
		if n := count(t, db, "SELECT COUNT(*) FROM purchases WHERE currency = 'JPY'"); n == 0 {
			t.Error("JPY purchases: got 0")
		}
		got := distinct(t, db, "SELECT discount_type FROM coupons")
		if !got["money"] || !got["percent"] {
			t.Errorf("coupon types: got %v, want money and percent", got)
		}
		if n := count(t, db, "SELECT COUNT(*) FROM purchases WHERE processor_fee IS NULL"); n == 0 {
			t.Error("purchases without processor fee: got 0, want some")
		}
	})

	t.Run("Shipping", func(t *testing.T) {
		zero(t, db, map[string]string{
			"digital with tangibles_to_ship": "SELECT COUNT(*) FROM purchases WHERE requires_shipping = 0 AND tangibles_to_ship IS NOT NULL",
			"shipping without count":         "SELECT COUNT(*) FROM purchases WHERE requires_shipping = 1 AND tangibles_to_ship IS NULL",
			"shipping without address":       "SELECT COUNT(*) FROM purchases WHERE requires_shipping = 1 AND (shipping_street IS NULL OR shipping_city IS NULL OR shipping_country_code IS NULL)",
			"address without shipping":       "SELECT COUNT(*) FROM purchases WHERE requires_shipping = 0 AND (shipping_street IS NOT NULL OR shipping_carrier IS NOT NULL)",
			"shipped without carrier":        "SELECT COUNT(*) FROM purchases WHERE shipping_carrier IS NULL AND tangibles_to_ship = 0 AND status IN ('ACT')",
			"to_ship column":                 "SELECT COUNT(*) FROM purchases WHERE to_ship <> (COALESCE(tangibles_to_ship, 0) > 0)",
		})
		for name, q := range map[string]string{
			"to ship":        "SELECT COUNT(*) FROM purchases WHERE tangibles_to_ship > 0",
			"shipped":        "SELECT COUNT(*) FROM purchases WHERE tangibles_to_ship = 0 AND shipping_tracking_number IS NOT NULL",
			"digital":        "SELECT COUNT(*) FROM purchases WHERE requires_shipping = 0",
			"card numbers":   "SELECT COUNT(*) FROM purchases WHERE billing_card_number LIKE '************____'",
			"notes":          "SELECT COUNT(*) FROM purchases WHERE customer_notes IS NOT NULL",
			"custom fields":  "SELECT COUNT(DISTINCT purchase_id) FROM custom_fields",
			"opt-in":         "SELECT COUNT(*) FROM purchases WHERE marketing_optin",
			"guests":         "SELECT COUNT(*) FROM purchases WHERE customer_id IS NULL",
			"repeat buyers":  "SELECT COUNT(*) FROM (SELECT customer_id FROM purchases WHERE customer_id IS NOT NULL GROUP BY customer_id HAVING COUNT(*) > 1) x",
			"subscriptions":  "SELECT COUNT(*) FROM purchases WHERE subscriber_id IS NOT NULL",
			"accent search":  "SELECT COUNT(*) FROM purchases WHERE buyer_lastname LIKE 'muller%' OR buyer_firstname LIKE 'zoe%' OR buyer_lastname LIKE 'angstrom%'",
			"missing keys":   "SELECT COUNT(*) FROM line_items WHERE has_all_keys = 0 AND (SELECT COUNT(*) FROM product_keys k WHERE k.line_item_id = line_items.id) BETWEEN 1 AND quantity - 1",
			"partial refund": "SELECT COUNT(*) FROM transactions t JOIN purchases p ON p.id = t.purchase_id WHERE t.action = 'Refund' AND t.amount < p.total",
		} {
			if n := count(t, db, q); n == 0 {
				t.Errorf("%s: got 0, want some\n%s", name, q)
			}
		}
		lines := float64(count(t, db, "SELECT COUNT(*) FROM line_items")) / 2000
		if lines < 2.7 || lines > 3.3 {
			t.Errorf("line items per purchase: got %.2f, want about 3", lines)
		}
	})

	t.Run("Consistency", func(t *testing.T) {
		nowSQL := "'" + now.Format(time.DateTime) + "'"
		beginSQL := "'" + now.AddDate(-2, 0, 0).Format(time.DateTime) + "'"
		zero(t, db, map[string]string{
			"purchase updated":        "SELECT COUNT(*) FROM purchases WHERE updated_at < created_at OR created_at > " + nowSQL + " OR created_at < " + beginSQL,
			"subscription times":      "SELECT COUNT(*) FROM subscriptions WHERE updated_at < created_at OR started_at < created_at OR last_payment_at > " + nowSQL + " OR (ended_at IS NOT NULL AND started_at IS NOT NULL AND ended_at < started_at)",
			"trial fields":            "SELECT COUNT(*) FROM subscriptions WHERE (trial_unit IS NULL) <> (trial_price IS NULL) OR (trial_unit IS NULL) <> (trial_period IS NULL) OR (trial_unit IS NULL) <> (trial_tax_amount IS NULL) OR (trial_unit IS NULL AND trial_started_at IS NOT NULL)",
			"new has no times":        "SELECT COUNT(*) FROM subscriptions WHERE status = 'NEW' AND (started_at IS NOT NULL OR last_payment_at IS NOT NULL OR next_payment_at IS NOT NULL)",
			"active pays later":       "SELECT COUNT(*) FROM subscriptions WHERE status IN ('ACTIVE', 'TRIAL') AND (next_payment_at IS NULL OR next_payment_at <= " + nowSQL + ")",
			"past due is overdue":     "SELECT COUNT(*) FROM subscriptions WHERE status = 'PAST_DUE' AND next_payment_at > " + nowSQL,
			"closed has ended":        "SELECT COUNT(*) FROM subscriptions WHERE status = 'CLOSED' AND (ended_at IS NULL OR ended_at > " + nowSQL + ")",
			"customer updated":        "SELECT COUNT(*) FROM customers WHERE updated_at < created_at",
			"subscriber updated":      "SELECT COUNT(*) FROM subscribers WHERE updated_at < created_at OR last_login_at < created_at",
			"download limit":          "SELECT COUNT(*) FROM line_items l JOIN purchases p ON p.id = l.purchase_id JOIN storefronts s ON s.id = p.storefront_id WHERE l.download_limit <> s.download_limit OR (l.download_count > s.download_limit AND s.download_limit > 0) OR (l.expires_at IS NULL) <> (s.download_days = 0)",
			"keys beyond quantity":    "SELECT COUNT(*) FROM (SELECT line_item_id, COUNT(*) n FROM product_keys GROUP BY line_item_id) k JOIN line_items l ON l.id = k.line_item_id WHERE k.n > l.quantity OR (k.n = l.quantity) <> l.has_all_keys",
			"ACT paid":                "SELECT COUNT(*) FROM purchases p WHERE status = 'ACT' AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.purchase_id = p.id AND t.is_success AND t.action = 'AuthorizeAndCapture' AND t.amount = p.total)",
			"ERR failed":              "SELECT COUNT(*) FROM purchases p WHERE status = 'ERR' AND (EXISTS (SELECT 1 FROM transactions t WHERE t.purchase_id = p.id AND t.is_success) OR NOT EXISTS (SELECT 1 FROM transactions t WHERE t.purchase_id = p.id))",
			"RFD refunded":            "SELECT COUNT(*) FROM purchases p WHERE status = 'RFD' AND NOT EXISTS (SELECT 1 FROM transactions t WHERE t.purchase_id = p.id AND t.action = 'Refund' AND t.is_success AND t.amount > 0 AND t.amount <= p.total)",
			"transaction currency":    "SELECT COUNT(*) FROM transactions t JOIN purchases p ON p.id = t.purchase_id WHERE t.currency <> p.currency OR t.created_at < p.created_at",
			"subscriber buyer":        "SELECT COUNT(*) FROM purchases p JOIN subscribers b ON b.id = p.subscriber_id WHERE p.buyer_email <> b.username OR b.storefront_id <> p.storefront_id",
			"username per storefront": "SELECT COUNT(*) FROM (SELECT storefront_id, username FROM subscribers GROUP BY storefront_id, username HAVING COUNT(*) > 1) d",
			"positions":               "SELECT COUNT(*) FROM (SELECT purchase_id FROM custom_fields GROUP BY purchase_id HAVING MAX(position) <> COUNT(*) - 1) x",
		})
	})

	t.Run("References", func(t *testing.T) {
		// Foreign-key checks are off while seeding: every reference must still resolve.
		zero(t, db, map[string]string{
			"storefront account":      "SELECT COUNT(*) FROM storefronts s LEFT JOIN accounts a ON a.id = s.account_id WHERE a.id IS NULL",
			"product storefront":      "SELECT COUNT(*) FROM products p LEFT JOIN storefronts s ON s.id = p.storefront_id WHERE s.id IS NULL",
			"customer account":        "SELECT COUNT(*) FROM customers c LEFT JOIN accounts a ON a.id = c.account_id WHERE a.id IS NULL",
			"subscriber storefront":   "SELECT COUNT(*) FROM subscribers b LEFT JOIN storefronts s ON s.id = b.storefront_id WHERE s.id IS NULL",
			"subscription subscriber": "SELECT COUNT(*) FROM subscriptions x LEFT JOIN subscribers b ON b.id = x.subscriber_id WHERE b.id IS NULL",
			"purchase account":        "SELECT COUNT(*) FROM purchases p LEFT JOIN storefronts s ON s.id = p.storefront_id AND s.account_id = p.account_id WHERE s.id IS NULL",
			"purchase customer":       "SELECT COUNT(*) FROM purchases p LEFT JOIN customers c ON c.id = p.customer_id AND c.account_id = p.account_id WHERE p.customer_id IS NOT NULL AND c.id IS NULL",
			"purchase subscriber":     "SELECT COUNT(*) FROM purchases p LEFT JOIN subscribers b ON b.id = p.subscriber_id WHERE p.subscriber_id IS NOT NULL AND b.id IS NULL",
			"line item purchase":      "SELECT COUNT(*) FROM line_items l LEFT JOIN purchases p ON p.id = l.purchase_id WHERE p.id IS NULL",
			"line item product":       "SELECT COUNT(*) FROM line_items l JOIN purchases p ON p.id = l.purchase_id LEFT JOIN products x ON x.id = l.product_id AND x.storefront_id = p.storefront_id WHERE x.id IS NULL",
			"product name":            "SELECT COUNT(*) FROM line_items l JOIN products x ON x.id = l.product_id WHERE x.name <> l.product_name",
			"key line item":           "SELECT COUNT(*) FROM product_keys k LEFT JOIN line_items l ON l.id = k.line_item_id AND l.purchase_id = k.purchase_id WHERE l.id IS NULL",
			"coupon purchase":         "SELECT COUNT(*) FROM coupons c LEFT JOIN purchases p ON p.id = c.purchase_id WHERE p.id IS NULL",
			"custom field purchase":   "SELECT COUNT(*) FROM custom_fields c LEFT JOIN purchases p ON p.id = c.purchase_id WHERE p.id IS NULL",
			"transaction purchase":    "SELECT COUNT(*) FROM transactions t LEFT JOIN purchases p ON p.id = t.purchase_id WHERE p.id IS NULL",
		})
	})
}

// checksum sums the checksums of the seeded tables.
func checksum(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query("CHECKSUM TABLE accounts, storefronts, products, customers, subscribers, subscriptions, purchases, line_items, product_keys, coupons, custom_fields, transactions")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var name string
		var sum sql.NullInt64
		if err := rows.Scan(&name, &sum); err != nil {
			t.Fatal(err)
		}
		b.WriteString(name[strings.LastIndex(name, ".")+1:])
		fmt.Fprintf(&b, "=%d ", sum.Int64)
	}
	return b.String()
}

func TestRun_Deterministic(t *testing.T) {
	a := dbtest.New(t).DB
	b := dbtest.New(t).DB
	opt := seed.Options{Purchases: 500, Subscribers: 80, Seed: 42, Now: now}
	seedDB(t, a, opt)
	seedDB(t, b, opt)
	if ca, cb := checksum(t, a), checksum(t, b); ca != cb {
		t.Errorf("same seed: got %s and %s, want equal checksums", ca, cb)
	}
	c := dbtest.New(t).DB
	opt.Seed = 43
	seedDB(t, c, opt)
	if ca, cc := checksum(t, a), checksum(t, c); ca == cc {
		t.Errorf("different seeds: got equal checksums %s", ca)
	}
}

func TestRun_Append(t *testing.T) {
	db := dbtest.New(t).DB
	opt := seed.Options{Purchases: 600, Subscribers: 100, Seed: 3, Now: now}
	seedDB(t, db, opt)
	// The same seed again: ids, salts and addresses must not collide with the first run.
	st := seedDB(t, db, opt)
	if st.Rows["accounts"] != 0 || st.Rows["storefronts"] != 0 || st.Rows["products"] != 0 {
		t.Errorf("second run: got %v, want no new accounts, storefronts or products", st.Rows)
	}
	for table, want := range map[string]int64{"accounts": 2, "storefronts": 4, "purchases": 1200, "subscribers": 200} {
		if n := count(t, db, "SELECT COUNT(*) FROM "+table); n != want {
			t.Errorf("%s: got %d, want %d", table, n, want)
		}
	}
	zero(t, db, map[string]string{
		"username per storefront":     "SELECT COUNT(*) FROM (SELECT storefront_id, username FROM subscribers GROUP BY storefront_id, username HAVING COUNT(*) > 1) d",
		"subscription per subscriber": "SELECT COUNT(*) FROM (SELECT subscriber_id FROM subscriptions GROUP BY subscriber_id HAVING COUNT(*) > 1) d",
		"salt":                        "SELECT COUNT(*) FROM (SELECT salt FROM purchases GROUP BY salt HAVING COUNT(*) > 1) d",
		"line item purchase":          "SELECT COUNT(*) FROM line_items l LEFT JOIN purchases p ON p.id = l.purchase_id WHERE p.id IS NULL",
		"subscriber buyer":            "SELECT COUNT(*) FROM purchases p JOIN subscribers b ON b.id = p.subscriber_id WHERE p.buyer_email <> b.username",
	})
}

func TestFormatMinor(t *testing.T) {
	// The seeder's fast formatter must agree with the domain's.
	for _, digits := range []int{0, 2, 3, 4} {
		for _, n := range []int64{0, 1, -1, 5, -5, 99, 100, 101, -100, 1999, -1999, 123456789, -123456789, 1 << 40} {
			if got, want := seed.FormatMinorForTest(n, digits), string(shop.FormatMinor(n, digits)); got != want {
				t.Errorf("formatMinor(%d, %d): got %s, want %s", n, digits, got, want)
			}
		}
	}
}

// TestSeedMillion seeds the database named by SEED_MILLION_DSN (default: a database
// storefront_bench on the test server, created and migrated) with a million purchases
// and 100,000 subscribers. It runs only when SEED_MILLION=1.
func TestSeedMillion(t *testing.T) {
	if os.Getenv("SEED_MILLION") != "1" {
		t.Skip("set SEED_MILLION=1 to seed a million purchases")
	}
	dsn := os.Getenv("SEED_MILLION_DSN")
	if dsn == "" {
		t.Fatal("set SEED_MILLION_DSN to the database to fill, e.g. root@tcp(127.0.0.1:3306)/storefront_bench")
	}
	ctx := context.Background()
	db, err := mysql.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	st, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 1_000_000, Subscribers: 100_000}, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", st)
}

func TestRun_Errors(t *testing.T) {
	db := dbtest.New(t).DB
	t.Run("Negative", func(t *testing.T) {
		if _, err := seed.Run(context.Background(), db, seed.Options{Purchases: -1}, nil); err == nil {
			t.Error("got nil, want an error")
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := seed.Run(ctx, db, small, nil); err == nil {
			t.Error("got nil, want an error")
		}
	})
}

// derivedTables are the tables that mysql.RebuildDerived rebuilds from the normalised
// rows, each read as key → the rest; skip leaves out rollup rows that count nothing
// (a rebuild writes none).
var derivedTables = []struct{ name, key, rest, skip string }{
	{"purchase_documents", "account_id, purchase_id", "document", ""},
	{"purchase_products", "account_id, product_id, created_at, purchase_id", "COALESCE(email_initial, 'none'), COALESCE(first_initial, 'none'), COALESCE(last_initial, 'none')", ""},
	{"purchase_prefixes", "account_id, field, prefix_len, prefix, created_at, purchase_id", "value, storefront_id", ""},
	{"purchase_pairs", "account_id, mark, field, product_id, prefix_len, prefix, created_at, purchase_id", "value", ""},
	{"purchase_rollups", "account_id, day, storefront_id, currency, status", "purchases, total", "purchases = 0 AND total = 0"},
	{"purchase_rollups_monthly", "account_id, month, storefront_id, currency, status", "purchases, total", "purchases = 0 AND total = 0"},
	{"purchase_rollups_weekly", "account_id, week, storefront_id, currency, status", "purchases, total", "purchases = 0 AND total = 0"},
	{"product_rollups", "account_id, status, day, storefront_id, currency, product_id", "purchases, total", "purchases = 0 AND total = 0"},
	{"product_rollups_monthly", "account_id, status, month, storefront_id, currency, product_id", "purchases, total", "purchases = 0 AND total = 0"},
	{"subscriber_terms", "account_id, subscriber_id", "storefront_id, start_at, COALESCE(end_at, 'none')", ""},
	{"subscriber_rollups", "account_id, day, storefront_id", "started, ended", "started = 0 AND ended = 0"},
}

// derivedRows reads every derived table as table → key → the rest.
func derivedRows(t *testing.T, db *sql.DB) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, d := range derivedTables {
		q := "SELECT CONCAT_WS('|', " + d.key + "), CONCAT_WS('|', " + d.rest + ") FROM " + d.name
		if d.skip != "" {
			q += " WHERE NOT (" + d.skip + ")"
		}
		rows := dbtest.Query(t, db, func(rows *sql.Rows) ([2]string, error) {
			var r [2]string
			err := rows.Scan(&r[0], &r[1])
			return r, err
		}, q)
		m := map[string]string{}
		for _, r := range rows {
			m[r[0]] = r[1]
		}
		out[d.name] = m
	}
	return out
}

// checkDerivedRebuilt fails the test when what the seed derived from its purchases and
// subscribers (stored documents, product and prefix paths, rollups) differs from what
// mysql.RebuildDerived rebuilds from the normalised rows: the documents through the
// read path of GET /purchases/{id}, the prefixes by MariaDB's LEFT.
func checkDerivedRebuilt(t *testing.T, db *sql.DB) {
	t.Helper()
	seeded := derivedRows(t, db)
	if err := mysql.RebuildDerived(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	rebuilt := derivedRows(t, db)
	for _, d := range derivedTables {
		got, want := seeded[d.name], rebuilt[d.name]
		if len(want) == 0 {
			t.Errorf("%s: the rebuild wrote no rows", d.name)
		}
		bad := 0
		for k, w := range want {
			if g, ok := got[k]; !ok || g != w {
				if bad++; bad <= 3 {
					t.Errorf("%s %s: seeded %s, rebuilt %s", d.name, k, around(g, w, ok), around(w, g, true))
				}
			}
		}
		for k, g := range got {
			if _, ok := want[k]; !ok {
				if bad++; bad <= 3 {
					t.Errorf("%s %s: seeded %q, not rebuilt", d.name, k, g)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d rows differ", d.name, bad, len(want))
		}
	}
}

// TestRun_DerivedEqual seeds in small chunks, so that the two writers commit many and
// purchases refer to customers of other chunks, twice into the same database, and
// checks everything derived from the rows against a rebuild from them: the seeder
// builds the documents and rollups from its own purchases, not from the rows.
func TestRun_DerivedEqual(t *testing.T) {
	defer seed.SetChunkSizes(400, 150)()
	db := dbtest.New(t).DB
	seedDB(t, db, seed.Options{Purchases: 3000, Subscribers: 400, Seed: 11, Now: now})
	seedDB(t, db, seed.Options{Purchases: 1000, Subscribers: 100, Seed: 12, Now: now})
	checkDerivedRebuilt(t, db)

	// The statements' literals written for a session where a backslash is a plain
	// character: the names and notes with apostrophes must arrive as they are.
	t.Run("NoBackslashEscapes", func(t *testing.T) {
		cfg, err := gomysql.ParseDSN(dbtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Params = map[string]string{"sql_mode": "CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')"}
		db, err := mysql.Open(context.Background(), cfg.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		seedDB(t, db.DB, seed.Options{Purchases: 1500, Subscribers: 150, Seed: 13, Now: now})
		if n := count(t, db.DB, "SELECT COUNT(*) FROM purchases WHERE buyer_lastname LIKE '%''%'"); n == 0 {
			t.Error("no buyer name with an apostrophe: the check proves nothing")
		}
		checkDerivedRebuilt(t, db.DB)
	})
}

// TestAppendLiteral reads back, through the server, the literals the seeder writes for
// texts that need escaping, in both of the sql_modes that escape differently.
func TestAppendLiteral(t *testing.T) {
	db := dbtest.New(t).DB
	ctx := context.Background()
	texts := []string{"", "plain", "O'Brien", `back\slash`, `\'`, `'\`, "quote \" dq", "nul \x00 byte", "line\nbreak\r\n",
		"ctrl-z \x1a", "tab\t", "Zoë 😀 李", "''", `\\`, `%_`}
	for _, noBackslash := range []bool{false, true} {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mode := "REPLACE(@@sql_mode, 'NO_BACKSLASH_ESCAPES', '')"
		if noBackslash {
			mode = "CONCAT(@@sql_mode, ',NO_BACKSLASH_ESCAPES')"
		}
		if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = "+mode); err != nil {
			t.Fatal(err)
		}
		for _, s := range texts {
			var got string
			q := "SELECT " + string(seed.AppendLiteral(nil, s, noBackslash))
			if err := conn.QueryRowContext(ctx, q).Scan(&got); err != nil {
				t.Errorf("noBackslashEscapes=%v: %s: %v", noBackslash, q, err)
			} else if got != s {
				t.Errorf("noBackslashEscapes=%v: %s: got %q, want %q", noBackslash, q, got, s)
			}
		}
		var got time.Time
		at := time.Date(2025, 2, 3, 4, 5, 6, 0, time.UTC)
		if err := conn.QueryRowContext(ctx, "SELECT CAST("+string(seed.AppendLiteral(nil, at, noBackslash))+" AS DATETIME)").Scan(&got); err != nil || !got.Equal(at) {
			t.Errorf("time: got %v (%v), want %v", got, err, at)
		}
		conn.Close()
	}
}

// around shows s where it first differs from other, or "none" when absent.
func around(s, other string, present bool) string {
	if !present {
		return "none"
	}
	i := 0
	for i < len(s) && i < len(other) && s[i] == other[i] {
		i++
	}
	from, to := max(0, i-40), min(len(s), i+40)
	return fmt.Sprintf("…%q… (at byte %d of %d)", s[from:to], i, len(s))
}

// TestRun_IDBase seeds the same options twice into one database, at base 0 and above
// a base: the second run makes accounts of its own, every id above the base, and the
// same data as the first but for the ids (the tests through a vtgate share one
// database, each in accounts of its own).
func TestRun_IDBase(t *testing.T) {
	db := dbtest.New(t).DB
	opt := seed.Options{Purchases: 300, Subscribers: 60, Seed: 9, Now: now}
	seedDB(t, db, opt)
	const base = 700000
	opt.IDBase = base
	st := seedDB(t, db, opt)
	if st.Rows["accounts"] != 2 || st.Rows["storefronts"] != 4 || st.Rows["purchases"] != 300 {
		t.Errorf("run above the base: got %v, want 2 accounts, 4 storefronts, 300 purchases of its own", st.Rows)
	}
	for _, table := range []string{"accounts", "storefronts", "products", "customers", "subscribers", "subscriptions", "purchases", "line_items", "transactions"} {
		if n := count(t, db, "SELECT COUNT(*) FROM "+table+" WHERE id > 0 AND id <= ?", base/2); n == 0 {
			t.Errorf("%s: no rows of the first run", table)
		}
		if n := count(t, db, "SELECT COUNT(*) FROM "+table+" WHERE id > ? AND id < ?", base/2, base+1); n != 0 {
			t.Errorf("%s: %d rows of the second run at or below the base", table, n)
		}
	}
	// Each run's rows, with ids counted from its base.
	rows := func(query string, b int64) []string {
		return dbtest.Query(t, db, sqlrows.Value[string], query, b, b, b, b, b, b+1, b+base/2)
	}
	for name, query := range map[string]string{
		"purchases": `SELECT CONCAT_WS('|', id - ?, account_id - ?, storefront_id - ?, COALESCE(customer_id - ?, ''), COALESCE(subscriber_id - ?, ''),
			status, total, currency, COALESCE(buyer_email, ''), created_at, salt) FROM purchases WHERE account_id BETWEEN ? AND ? ORDER BY id`,
		"line items": `SELECT CONCAT_WS('|', id - ?, purchase_id - ?, product_id - ?, account_id - ?, price, quantity, ? * 0)
			FROM line_items WHERE account_id BETWEEN ? AND ? ORDER BY id`,
		"subscribers": `SELECT CONCAT_WS('|', id - ?, storefront_id - ?, account_id - ?, username, created_at, ? * 0, ? * 0)
			FROM subscribers WHERE account_id BETWEEN ? AND ? ORDER BY id`,
		"customers": `SELECT CONCAT_WS('|', id - ?, account_id - ?, email, COALESCE(firstname, ''), COALESCE(lastname, ''), ? * 0, ? * 0, ? * 0)
			FROM customers WHERE account_id BETWEEN ? AND ? ORDER BY id`,
	} {
		at0, above := rows(query, 0), rows(query, base)
		if len(at0) == 0 || !slices.Equal(at0, above) {
			t.Errorf("%s: %d rows at base 0 and %d above the base, not the same but for the ids", name, len(at0), len(above))
		}
	}
}
