package mysql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// rollupRows reads a rollup table as "key → figures" lines, leaving out rows that count
// nothing.
func rollupRows(t *testing.T, db *sql.DB, query string) map[string]string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var key, n, total string
		if err := rows.Scan(&key, &n, &total); err != nil {
			t.Fatal(err)
		}
		r, _ := new(big.Rat).SetString(total)
		if n == "0" && r.Sign() == 0 {
			continue
		}
		out[key] = n + " " + r.FloatString(4)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rollupsFromRows computes, from the purchases', line items' and subscriptions' rows
// alone, what each rollup table must hold.
func rollupsFromRows(t *testing.T, db *sql.DB) (purchases, products, subscribers map[string]string) {
	t.Helper()
	zones := map[int64]*time.Location{}
	rows, err := db.Query("SELECT id, timezone FROM accounts")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			t.Fatal(err)
		}
		loc, err := time.LoadLocation(name)
		if err != nil {
			loc = time.UTC
		}
		zones[id] = loc
	}
	rows.Close()
	type agg struct {
		n     int64
		total *big.Rat
	}
	sum := func(m map[string]*agg, k, total string, n int64) {
		if m[k] == nil {
			m[k] = &agg{total: new(big.Rat)}
		}
		r, _ := new(big.Rat).SetString(total)
		m[k].n += n
		m[k].total.Add(m[k].total, r)
	}
	p, pr := map[string]*agg{}, map[string]*agg{}
	rows, err = db.Query("SELECT p.id, p.account_id, p.storefront_id, p.currency, p.created_at, p.status, p.total FROM purchases p")
	if err != nil {
		t.Fatal(err)
	}
	heads := map[int64]string{}
	for rows.Next() {
		var (
			id, account, sf int64
			cur, st, total  string
			created         time.Time
		)
		if err := rows.Scan(&id, &account, &sf, &cur, &created, &st, &total); err != nil {
			t.Fatal(err)
		}
		day := created.In(zones[account]).Format(time.DateOnly)
		sum(p, fmt.Sprintf("%d|%s|%d|%s|%s", account, day, sf, cur, st), total, 1)
		heads[id] = fmt.Sprintf("%d|%s|%s|%d|%s", account, st, day, sf, cur)
	}
	rows.Close()
	rows, err = db.Query("SELECT purchase_id, product_id, SUM(total) FROM line_items GROUP BY purchase_id, product_id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, product int64
		var total string
		if err := rows.Scan(&id, &product, &total); err != nil {
			t.Fatal(err)
		}
		sum(pr, fmt.Sprintf("%s|%d", heads[id], product), total, 1)
	}
	rows.Close()
	flat := func(m map[string]*agg) map[string]string {
		out := map[string]string{}
		for k, a := range m {
			out[k] = fmt.Sprintf("%d %s", a.n, a.total.FloatString(4))
		}
		return out
	}

	subs := map[string][2]int64{}
	rows, err = db.Query(`SELECT sf.account_id, sb.storefront_id, ss.status, ss.created_at, ss.updated_at, ss.started_at, ss.ended_at, ss.trial_started_at, ss.next_payment_at
		FROM subscriptions ss JOIN subscribers sb ON sb.id = ss.subscriber_id JOIN storefronts sf ON sf.id = sb.storefront_id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			account, sf int64
			ss          shop.Subscription
		)
		if err := rows.Scan(&account, &sf, &ss.Status, &ss.CreatedAt, &ss.UpdatedAt, &ss.StartedAt, &ss.EndedAt, &ss.TrialStartedAt, &ss.NextPaymentAt); err != nil {
			t.Fatal(err)
		}
		start, end, ok := shop.ServiceTerm(&ss)
		if !ok {
			continue
		}
		k := fmt.Sprintf("%d|%s|%d", account, start.In(zones[account]).Format(time.DateOnly), sf)
		v := subs[k]
		v[0]++
		subs[k] = v
		if end != nil {
			k := fmt.Sprintf("%d|%s|%d", account, end.In(zones[account]).Format(time.DateOnly), sf)
			v := subs[k]
			v[1]++
			subs[k] = v
		}
	}
	rows.Close()
	subscribers = map[string]string{}
	for k, v := range subs {
		subscribers[k] = fmt.Sprintf("%d %d.0000", v[0], v[1])
	}
	return flat(p), flat(pr), subscribers
}

// storedRollups reads the three rollup tables in the form of rollupsFromRows.
func storedRollups(t *testing.T, db *sql.DB) (purchases, products, subscribers map[string]string) {
	return rollupRows(t, db, "SELECT CONCAT_WS('|', account_id, day, storefront_id, currency, status), purchases, total FROM purchase_rollups"),
		rollupRows(t, db, "SELECT CONCAT_WS('|', account_id, status, day, storefront_id, currency, product_id), purchases, total FROM product_rollups"),
		rollupRows(t, db, "SELECT CONCAT_WS('|', account_id, day, storefront_id), started, ended FROM subscriber_rollups")
}

func diffMaps(t *testing.T, after, what string, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("after %s: %s %s: got %q, want %q", after, what, k, got[k], want[k])
		}
	}
}

// customerRollups reads customer_rollups (stored) or sums the purchases' rows as it
// should hold them: by account, address as its key compares (the weights of
// utf8mb4_unicode_nopad_ci), currency and status, "purchases/to ship total".
func customerRollups(t *testing.T, db *sql.DB, stored bool) map[string]string {
	t.Helper()
	const key = "CONCAT_WS('|', account_id, HEX(WEIGHT_STRING(%s COLLATE utf8mb4_unicode_nopad_ci)), currency, status)"
	if stored {
		return rollupRows(t, db, "SELECT "+fmt.Sprintf(key, "email")+", CONCAT(purchases, '/', to_ship), total FROM customer_rollups WHERE purchases <> 0 OR to_ship <> 0 OR total <> 0")
	}
	return rollupRows(t, db, "SELECT "+fmt.Sprintf(key, "buyer_email")+", CONCAT(COUNT(*), '/', SUM(to_ship)), SUM(total) FROM purchases WHERE buyer_email IS NOT NULL GROUP BY 1")
}

// checkBuyerEmails fails the test when an entry of a purchase's timeline or a note on
// a purchase does not carry the purchase's buyer address.
func checkBuyerEmails(t *testing.T, db *sql.DB, after string) {
	t.Helper()
	for what, q := range map[string]string{
		"purchase_activity": "SELECT COUNT(*) FROM purchase_activity a JOIN purchases p ON p.account_id = a.account_id AND p.id = a.purchase_id WHERE NOT (BINARY a.buyer_email <=> BINARY p.buyer_email)",
		"notes":             "SELECT COUNT(*) FROM notes n JOIN purchases p ON p.account_id = n.account_id AND p.id = n.purchase_id WHERE NOT (BINARY n.customer_email <=> BINARY p.buyer_email)",
	} {
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("after %s: %d rows of %s without their purchase's buyer address", after, n, what)
		}
	}
}

// checkRollups fails the test when the rollups differ from the figures computed from
// the rows, or from what a rebuild from scratch writes.
func checkRollups(t *testing.T, db *mysql.DB, after string) {
	t.Helper()
	wc := customerRollups(t, db.DB, false)
	diffMaps(t, after, "customer_rollups", customerRollups(t, db.DB, true), wc)
	checkBuyerEmails(t, db.DB, after)
	gp, gpr, gs := storedRollups(t, db.DB)
	wp, wpr, ws := rollupsFromRows(t, db.DB)
	if len(wp) == 0 {
		t.Fatalf("after %s: no purchases to roll up", after)
	}
	diffMaps(t, after, "purchase_rollups", gp, wp)
	diffMaps(t, after, "purchase_rollups_monthly", purchaseMonthlyRows(t, db.DB), byMonth(wp, 1))
	diffMaps(t, after, "purchase_rollups_weekly", purchaseWeeklyRows(t, db.DB), byWeek(wp))
	diffMaps(t, after, "product_rollups", gpr, wpr)
	diffMaps(t, after, "product_rollups_monthly", monthlyRows(t, db.DB), byMonth(wpr, 2))
	diffMaps(t, after, "subscriber_rollups", gs, ws)
	if _, err := mysql.RebuildRollups(context.Background(), db.DB); err != nil {
		t.Fatal(err)
	}
	rp, rpr, rs := storedRollups(t, db.DB)
	diffMaps(t, after+" and a rebuild", "purchase_rollups", rp, wp)
	diffMaps(t, after+" and a rebuild", "purchase_rollups_monthly", purchaseMonthlyRows(t, db.DB), byMonth(wp, 1))
	diffMaps(t, after+" and a rebuild", "purchase_rollups_weekly", purchaseWeeklyRows(t, db.DB), byWeek(wp))
	diffMaps(t, after+" and a rebuild", "product_rollups", rpr, wpr)
	diffMaps(t, after+" and a rebuild", "product_rollups_monthly", monthlyRows(t, db.DB), byMonth(wpr, 2))
	diffMaps(t, after+" and a rebuild", "subscriber_rollups", rs, ws)
	diffMaps(t, after+" and a rebuild", "customer_rollups", customerRollups(t, db.DB, true), wc)
	checkBuyerEmails(t, db.DB, after+" and a rebuild")
}

func TestRollups_EqualRows(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	checkRollups(t, db, "import")
	importFile(t, db, importFixturePath)
	checkRollups(t, db, "the same import again")

	// A re-import that moves purchase 1 to another day, refunds it and changes its
	// total, and moves account 1 to another zone (its days begin at other instants).
	var full struct {
		Accounts  []map[string]any  `json:"accounts"`
		Purchases []json.RawMessage `json:"purchases"`
	}
	raw, err := os.ReadFile(importFixturePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &full); err != nil {
		t.Fatal(err)
	}
	var p1 map[string]any
	if err := json.Unmarshal(full.Purchases[0], &p1); err != nil {
		t.Fatal(err)
	}
	p1["created_at"] = 1700090000
	p1["status"] = "RFD"
	p1["total"] = "61.03"
	p1["shipping"] = "14.25"
	full.Accounts[0]["timezone"] = "America/Los_Angeles"
	doc, _ := json.Marshal(map[string]any{"accounts": full.Accounts[:1], "purchases": []any{p1}})
	if _, err := importer.Run(ctx, db, strings.NewReader(string(doc)), nil); err != nil {
		t.Fatal(err)
	}
	checkRollups(t, db, "a re-import that changes a purchase's day, status and total and the account's zone")

	// Reactivation of an ERR and a PND purchase.
	for _, id := range []int64{4, 2} {
		account := int64(1)
		if id == 2 {
			account = 9007199254740993
		}
		if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: account, PurchaseID: id, Actor: "test", CustomerEmail: "support@example.com"}); err != nil {
			t.Fatalf("reactivate %d: %v", id, err)
		}
		checkRollups(t, db, fmt.Sprintf("reactivating purchase %d", id))
	}

	// A re-import that gives purchase 4, now with a timeline and a note, a buyer address
	// and goods to ship: its customer's rollup, timeline and note follow.
	if _, err := db.ExecContext(ctx, "INSERT INTO notes (account_id, purchase_id, author_id, author, body, created_at) VALUES (1, 4, 1, 'a@x.test', 'n', NOW())"); err != nil {
		t.Fatal(err)
	}
	var p4 map[string]any
	if err := json.Unmarshal(full.Purchases[3], &p4); err != nil {
		t.Fatal(err)
	}
	p4["buyer_email"] = "New@Example.com"
	p4["requires_shipping"], p4["tangibles_to_ship"] = true, 3
	doc, _ = json.Marshal(map[string]any{"purchases": []any{p4}})
	if _, err := importer.Run(ctx, db, strings.NewReader(string(doc)), nil); err != nil {
		t.Fatal(err)
	}
	var e sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT MAX(buyer_email) FROM purchase_activity WHERE account_id = 1 AND purchase_id = 4").Scan(&e); err != nil || e.String != "New@Example.com" {
		t.Fatalf("purchase 4's timeline: got %v, %v", e, err)
	}
	checkRollups(t, db, "a re-import that changes a purchase's buyer address")

	// The past-due sweeper ends a subscription's term.
	db.Now = func() time.Time { return time.Now().AddDate(5, 0, 0) }
	closed, err := db.ClosePastDue(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if closed == 0 {
		t.Fatal("the sweeper closed nothing; the fixture's PAST_DUE subscription should close")
	}
	db.Now = time.Now
	checkRollups(t, db, "closing past-due subscriptions")

	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 400, Subscribers: 60, Seed: 7}, nil); err != nil {
		t.Fatal(err)
	}
	checkRollups(t, db, "a seed")
}

// TestRollups_MigrateFillsMonths: a database with purchases gets its monthly and weekly
// purchase rollups from migrations 00111 and 00113, both from rollups kept before 00110
// and from migration 90's rebuild, which runs before those tables exist.
func TestRollups_MigrateFillsMonths(t *testing.T) {
	ctx := context.Background()
	for _, to := range []int64{111, 109, 89} {
		t.Run(fmt.Sprint("down to ", to), func(t *testing.T) {
			db := dbtest.New(t)
			importFile(t, db, importFixturePath)
			if err := db.MigrateDownTo(ctx, to); err != nil {
				t.Fatalf("down: %v", err)
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("up again: %v", err)
			}
			wp, _, _ := rollupsFromRows(t, db.DB)
			got := purchaseMonthlyRows(t, db.DB)
			if len(got) == 0 {
				t.Fatal("no monthly purchase rollups after migrating up")
			}
			diffMaps(t, fmt.Sprint("migrating down to ", to, " and up"), "purchase_rollups_monthly", got, byMonth(wp, 1))
			diffMaps(t, fmt.Sprint("migrating down to ", to, " and up"), "purchase_rollups_weekly", purchaseWeeklyRows(t, db.DB), byWeek(wp))
			checkRollups(t, db, fmt.Sprint("migrating down to ", to, " and up"))
		})
	}
}

func TestOverview_FiguresEqualRows(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	now := time.Now()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 1500, Subscribers: 300, Seed: 3, Now: now, IDBase: dbtest.IDBase(t)}, nil); err != nil {
		t.Fatal(err)
	}
	var account int64
	var zone string
	if err := db.QueryRow("SELECT id, timezone FROM accounts WHERE id > ? ORDER BY id LIMIT 1", dbtest.IDBase(t)).Scan(&account, &zone); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	var oldest, newest time.Time
	if err := db.QueryRow("SELECT MIN(created_at), MAX(created_at) FROM purchases WHERE account_id = ?", account).Scan(&oldest, &newest); err != nil {
		t.Fatal(err)
	}
	span := newest.Sub(oldest)
	var middle time.Time
	if err := db.QueryRow("SELECT created_at FROM purchases WHERE account_id = ? ORDER BY created_at LIMIT 1 OFFSET 500", account).Scan(&middle); err != nil {
		t.Fatal(err)
	}
	day := midnightIn(middle, loc)
	var storefronts []int64
	rows, err := db.Query("SELECT id FROM storefronts WHERE account_id = ? ORDER BY id", account)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		storefronts = append(storefronts, id)
	}
	rows.Close()
	ranges := []struct {
		name         string
		from, before time.Time
	}{
		{"everything", oldest, newest.Add(time.Second)},
		{"ragged edges", oldest.Add(span / 3).Add(7*time.Hour + 13*time.Minute), oldest.Add(2 * span / 3).Add(5 * time.Hour)},
		{"whole days", midnightIn(oldest.Add(span/4), loc), midnightIn(oldest.Add(span/2), loc)},
		// Ends longer than half their day (read as the day less its rest) and shorter.
		{"long ends", midnightIn(oldest.Add(span/3), loc).Add(2 * time.Hour), midnightIn(oldest.Add(2*span/3), loc).Add(20 * time.Hour)},
		{"short ends", midnightIn(oldest.Add(span/3), loc).Add(20 * time.Hour), midnightIn(oldest.Add(2*span/3), loc).Add(3 * time.Hour)},
		// Parts of a month at either end longer than half of it (read as the month less
		// its other days) and shorter.
		{"long month ends", monthDay(oldest.Add(span/4), 3, loc).Add(5 * time.Hour), monthDay(oldest.Add(span/4), 27, loc).AddDate(0, 3, 0).Add(2 * time.Hour)},
		{"short month ends", monthDay(oldest.Add(span/4), 26, loc), monthDay(oldest.Add(span/4), 4, loc).AddDate(0, 3, 0)},
		{"within a day", maxTime(day.Add(time.Second), middle.Add(-time.Hour)), middle.Add(time.Second)},
		{"across one midnight", day.Add(-3 * time.Hour), middle.Add(time.Second)},
	}
	for _, r := range ranges {
		t.Run(r.name, func(t *testing.T) {
			q := shop.FigureQuery{AccountID: account, From: r.from, Before: r.before, Loc: loc}
			cells, err := mysql.NewOverviewService(db).PurchaseFigures(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, c := range cells {
				got[fmt.Sprintf("%s|%s|%s", c.Day.Format(time.DateOnly), c.Currency, c.Status)] = fmt.Sprintf("%d %s", c.Purchases, c.Total.FloatString(4))
			}
			want := map[string]string{}
			rows, err := db.Query(`SELECT created_at, currency, status, total FROM purchases WHERE account_id = ? AND created_at >= ? AND created_at < ?`,
				account, r.from.UTC(), r.before.UTC())
			if err != nil {
				t.Fatal(err)
			}
			type agg struct {
				n int64
				t *big.Rat
			}
			sums := map[string]*agg{}
			for rows.Next() {
				var created time.Time
				var cur, st, total string
				if err := rows.Scan(&created, &cur, &st, &total); err != nil {
					t.Fatal(err)
				}
				k := fmt.Sprintf("%s|%s|%s", created.In(loc).Format(time.DateOnly), cur, st)
				if sums[k] == nil {
					sums[k] = &agg{t: new(big.Rat)}
				}
				v, _ := new(big.Rat).SetString(total)
				sums[k].n++
				sums[k].t.Add(sums[k].t, v)
			}
			rows.Close()
			for k, a := range sums {
				want[k] = fmt.Sprintf("%d %s", a.n, a.t.FloatString(4))
			}
			if len(want) == 0 {
				t.Fatal("no purchases in the range")
			}
			diffMaps(t, r.name, "purchases", got, want)

			// By weeks from the range's first day, and the range as a whole: the same
			// purchases summed by step.
			first := midnightIn(r.from, loc)
			for _, step := range []int{7, 100000} {
				q := q
				q.Step = step
				cells, err := mysql.NewOverviewService(db).PurchaseFigures(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for _, c := range cells {
					got[fmt.Sprintf("%s|%s|%s", c.Day.Format(time.DateOnly), c.Currency, c.Status)] = fmt.Sprintf("%d %s", c.Purchases, c.Total.FloatString(4))
				}
				bySteps := map[string]*agg{}
				for k, a := range sums {
					day, rest, _ := strings.Cut(k, "|")
					d, err := time.ParseInLocation(time.DateOnly, day, loc)
					if err != nil {
						t.Fatal(err)
					}
					days := int(math.Round(float64(d.Sub(first)) / float64(24*time.Hour)))
					k := first.AddDate(0, 0, days/step*step).Format(time.DateOnly) + "|" + rest
					if bySteps[k] == nil {
						bySteps[k] = &agg{t: new(big.Rat)}
					}
					bySteps[k].n += a.n
					bySteps[k].t.Add(bySteps[k].t, a.t)
				}
				want := map[string]string{}
				for k, a := range bySteps {
					want[k] = fmt.Sprintf("%d %s", a.n, a.t.FloatString(4))
				}
				diffMaps(t, r.name, fmt.Sprintf("purchases by %d days", step), got, want)
			}

			// The top products: whole months, days and ends, against the line items.
			top, err := mysql.NewOverviewService(db).TopProducts(ctx, q, 1000)
			if err != nil {
				t.Fatal(err)
			}
			gotTop := map[string]string{}
			for _, p := range top {
				gotTop[fmt.Sprintf("%d|%s", p.ProductID, p.Currency)] = fmt.Sprintf("%d %s", p.Purchases, p.Revenue.FloatString(4))
			}
			wantTop := map[string]string{}
			rows, err = db.Query(`SELECT li.product_id, p.currency, COUNT(DISTINCT p.id), SUM(li.total) FROM purchases p JOIN line_items li ON li.purchase_id = p.id
				WHERE p.account_id = ? AND p.status = 'ACT' AND p.created_at >= ? AND p.created_at < ? GROUP BY li.product_id, p.currency`, account, r.from.UTC(), r.before.UTC())
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var product, n int64
				var cur, total string
				if err := rows.Scan(&product, &cur, &n, &total); err != nil {
					t.Fatal(err)
				}
				v, _ := new(big.Rat).SetString(total)
				wantTop[fmt.Sprintf("%d|%s", product, cur)] = fmt.Sprintf("%d %s", n, v.FloatString(4))
			}
			rows.Close()
			diffMaps(t, r.name, "top products", gotTop, wantTop)

			// The subscriber figures, of every storefront and of each, against the
			// subscriptions' service terms; "now" inside the range, and after it.
			for _, now := range []time.Time{r.from.Add(r.before.Sub(r.from) / 2), r.before.Add(time.Hour)} {
				for _, sf := range append([]int64{0}, storefronts...) {
					q := q
					q.StorefrontID = sf
					got, err := mysql.NewOverviewService(db).SubscriberFigures(ctx, q, now)
					if err != nil {
						t.Fatal(err)
					}
					want := subscriberFiguresFromRows(t, db.DB, account, sf, r.from, r.before, now)
					if *got != want {
						t.Errorf("%s, storefront %d, now %s: subscriber figures: got %+v, want %+v", r.name, sf, now, *got, want)
					}
				}
			}
		})
	}

	// Subscribers receiving service now, per the entitlement rule.
	figures, err := mysql.NewOverviewService(db).SubscriberFigures(ctx, shop.FigureQuery{AccountID: account, From: now.AddDate(0, 0, -30), Before: now.Add(time.Hour), Loc: loc}, now)
	if err != nil {
		t.Fatal(err)
	}
	var receiving int64
	rows, err = db.Query(`SELECT ss.status, ss.created_at, ss.updated_at, ss.started_at, ss.ended_at, ss.trial_started_at, ss.next_payment_at
		FROM subscriptions ss JOIN subscribers sb ON sb.id = ss.subscriber_id JOIN storefronts sf ON sf.id = sb.storefront_id WHERE sf.account_id = ?`, account)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ss shop.Subscription
		if err := rows.Scan(&ss.Status, &ss.CreatedAt, &ss.UpdatedAt, &ss.StartedAt, &ss.EndedAt, &ss.TrialStartedAt, &ss.NextPaymentAt); err != nil {
			t.Fatal(err)
		}
		if shop.Entitle(&ss, now).ReceivingService {
			receiving++
		}
	}
	rows.Close()
	if receiving == 0 || figures.ActiveAtEnd != receiving {
		t.Errorf("active subscribers now: got %d, want %d receiving service", figures.ActiveAtEnd, receiving)
	}
}

// subscriberFiguresFromRows computes the subscriber figures of [from, before) from the
// subscriptions' service terms: terms started in the range, ended in it until now, and
// receiving service at the range's end (now, when it ends later).
func subscriberFiguresFromRows(t *testing.T, db *sql.DB, account, storefront int64, from, before, now time.Time) shop.SubscriberFigures {
	t.Helper()
	rows, err := db.Query(`SELECT sb.storefront_id, ss.status, ss.created_at, ss.updated_at, ss.started_at, ss.ended_at, ss.trial_started_at, ss.next_payment_at
		FROM subscriptions ss JOIN subscribers sb ON sb.id = ss.subscriber_id JOIN storefronts sf ON sf.id = sb.storefront_id WHERE sf.account_id = ?`, account)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	end := before
	if now.Before(end) {
		end = now
	}
	in := func(t, a, b time.Time) bool { return !t.Before(a) && t.Before(b) }
	var f shop.SubscriberFigures
	for rows.Next() {
		var (
			sf int64
			ss shop.Subscription
		)
		if err := rows.Scan(&sf, &ss.Status, &ss.CreatedAt, &ss.UpdatedAt, &ss.StartedAt, &ss.EndedAt, &ss.TrialStartedAt, &ss.NextPaymentAt); err != nil {
			t.Fatal(err)
		}
		start, stop, ok := shop.ServiceTerm(&ss)
		if !ok || storefront != 0 && sf != storefront {
			continue
		}
		if in(start, from, before) {
			f.Started++
		}
		if stop != nil && in(*stop, from, end) {
			f.Ended++
		}
		// Receiving service at the end: its term [start, stop) holds it.
		if !start.After(end) && (stop == nil || stop.After(end)) {
			f.ActiveAtEnd++
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return f
}

// monthDay is midnight of day d of t's month in loc.
func monthDay(t time.Time, d int, loc *time.Location) time.Time {
	y, m, _ := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

func midnightIn(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// monthlyRows reads product_rollups_monthly in the form of product_rollups' keys.
func monthlyRows(t *testing.T, db *sql.DB) map[string]string {
	return rollupRows(t, db, "SELECT CONCAT_WS('|', account_id, status, month, storefront_id, currency, product_id), purchases, total FROM product_rollups_monthly")
}

// purchaseMonthlyRows reads purchase_rollups_monthly in the form of purchase_rollups' keys.
func purchaseMonthlyRows(t *testing.T, db *sql.DB) map[string]string {
	return rollupRows(t, db, "SELECT CONCAT_WS('|', account_id, month, storefront_id, currency, status), purchases, total FROM purchase_rollups_monthly")
}

// purchaseWeeklyRows reads purchase_rollups_weekly in the form of purchase_rollups' keys.
func purchaseWeeklyRows(t *testing.T, db *sql.DB) map[string]string {
	return rollupRows(t, db, "SELECT CONCAT_WS('|', account_id, week, storefront_id, currency, status), purchases, total FROM purchase_rollups_weekly")
}

// byWeek sums purchase rollup lines ("account|day|…" → "n total") into the seven-day
// weeks of purchase_rollups_weekly: the week of each day and of the six before it.
func byWeek(days map[string]string) map[string]string {
	return regroup(days, func(parts []string) []string {
		day, err := time.Parse(time.DateOnly, parts[1])
		if err != nil {
			panic(err)
		}
		var keys []string
		for back := 0; back < 7; back++ {
			parts[1] = day.AddDate(0, 0, -back).Format(time.DateOnly)
			keys = append(keys, strings.Join(parts, "|"))
		}
		return keys
	})
}

// byMonth sums rollup lines ("account|…|day|…" → "n total", the day the field at index
// field) by month.
func byMonth(days map[string]string, field int) map[string]string {
	return regroup(days, func(parts []string) []string {
		parts[field] = parts[field][:8] + "01"
		return []string{strings.Join(parts, "|")}
	})
}

// regroup sums rollup lines ("key|…" → "n total") into the lines whose keys to gives
// for each line's key fields.
func regroup(days map[string]string, to func(parts []string) []string) map[string]string {
	type agg struct {
		n int64
		t *big.Rat
	}
	sums := map[string]*agg{}
	for k, v := range days {
		var n int64
		var total string
		fmt.Sscan(v, &n, &total)
		r, _ := new(big.Rat).SetString(total)
		for _, gk := range to(strings.Split(k, "|")) {
			if sums[gk] == nil {
				sums[gk] = &agg{t: new(big.Rat)}
			}
			sums[gk].n += n
			sums[gk].t.Add(sums[gk].t, r)
		}
	}
	out := map[string]string{}
	for k, a := range sums {
		out[k] = fmt.Sprintf("%d %s", a.n, a.t.FloatString(4))
	}
	return out
}
