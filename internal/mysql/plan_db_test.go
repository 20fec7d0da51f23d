package mysql_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestPlans_BoundedReads runs list pages of every kind of filter under ANALYZE on
// seeded data and checks how many index entries each read: an ordered path reads a
// page's worth whatever the number of matches, another account's identifiers read an
// empty range, and the sorted and walked ranges stay under their bounds.
func TestPlans_BoundedReads(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 6000, Subscribers: 300, Seed: 2}, nil); err != nil {
		t.Fatal(err)
	}
	one := func(query string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := db.QueryRow(query, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	// Products of account 1 by popularity, and identifiers of account 2.
	popular := one(`SELECT li.product_id FROM line_items li JOIN purchases p ON p.id = li.purchase_id WHERE p.account_id = 1
		GROUP BY li.product_id ORDER BY COUNT(*) DESC LIMIT 1`)
	rare := one(`SELECT li.product_id FROM line_items li JOIN purchases p ON p.id = li.purchase_id WHERE p.account_id = 1
		GROUP BY li.product_id ORDER BY COUNT(*), li.product_id LIMIT 1`)
	otherProduct := one(`SELECT li.product_id FROM line_items li JOIN purchases p ON p.id = li.purchase_id WHERE p.account_id = 2
		GROUP BY li.product_id ORDER BY COUNT(*) DESC LIMIT 1`)
	otherStorefront := one("SELECT id FROM storefronts WHERE account_id = 2 LIMIT 1")
	otherCustomer := one("SELECT customer_id FROM purchases WHERE account_id = 2 AND customer_id IS NOT NULL GROUP BY customer_id ORDER BY COUNT(*) DESC LIMIT 1")
	otherSubscriber := one("SELECT subscriber_id FROM purchases WHERE account_id = 2 AND subscriber_id IS NOT NULL GROUP BY subscriber_id ORDER BY COUNT(*) DESC LIMIT 1")
	storefront := one("SELECT storefront_id FROM purchases WHERE account_id = 1 GROUP BY storefront_id ORDER BY COUNT(*) DESC LIMIT 1")
	var rarePrefix string
	if err := db.QueryRow(`SELECT LEFT(buyer_email, 3) FROM purchases WHERE account_id = 1 GROUP BY LEFT(buyer_email, 3)
		HAVING COUNT(*) BETWEEN 3 AND 30 ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&rarePrefix); err != nil {
		t.Fatal(err)
	}
	var denseLetter, denseLast, denseFirst, rareLong string
	if err := db.QueryRow(`SELECT LEFT(buyer_email, 1) FROM purchases WHERE account_id = 1 GROUP BY LEFT(buyer_email, 1)
		ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&denseLetter); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT LEFT(buyer_lastname, 1) FROM purchases WHERE account_id = 1 GROUP BY LEFT(buyer_lastname, 1)
		ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&denseLast); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT LEFT(buyer_firstname, 1) FROM purchases WHERE account_id = 1 GROUP BY LEFT(buyer_firstname, 1)
		ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&denseFirst); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT LEFT(buyer_email, 5) FROM purchases WHERE account_id = 1 AND CHAR_LENGTH(buyer_email) >= 5
		GROUP BY LEFT(buyer_email, 5) HAVING COUNT(*) BETWEEN 3 AND 30 ORDER BY COUNT(*) DESC LIMIT 1`).Scan(&rareLong); err != nil {
		t.Fatal(err)
	}
	var total1pc string
	if err := db.QueryRow(`SELECT total FROM purchases WHERE account_id = 1 ORDER BY total DESC LIMIT 1 OFFSET ?`,
		one("SELECT COUNT(*) FROM purchases WHERE account_id = 1")/100).Scan(&total1pc); err != nil {
		t.Fatal(err)
	}
	var rareDomain, denseDomain string
	for dst, order := range map[*string]string{&rareDomain: "ASC", &denseDomain: "DESC"} {
		if err := db.QueryRow(`SELECT SUBSTRING_INDEX(buyer_email, '@', -1) d FROM purchases WHERE account_id = 1 AND buyer_email LIKE '%@%'
			GROUP BY d ORDER BY COUNT(*) ` + order + `, d LIMIT 1`).Scan(dst); err != nil {
			t.Fatal(err)
		}
	}
	rareLongRange := one("SELECT COUNT(*) FROM purchases WHERE account_id = 1 AND buyer_email LIKE ?", string([]rune(rareLong)[:3])+"%")
	yes := true

	const page = 101 // a page of 100 and the one that tells whether more follow
	for _, tc := range []struct {
		name     string
		f        shop.PurchaseFilter
		path     string
		maxReads float64
	}{
		{"popular product", shop.PurchaseFilter{ProductID: popular, Desc: true}, "product", page},
		{"rare product", shop.PurchaseFilter{ProductID: rare}, "product", page},
		{"another account's product", shop.PurchaseFilter{ProductID: otherProduct, Desc: true}, "product", 0},
		{"another account's storefront", shop.PurchaseFilter{StorefrontID: otherStorefront}, "storefront", 0},
		{"another account's customer", shop.PurchaseFilter{CustomerID: otherCustomer}, "customer", 0},
		{"another account's subscriber", shop.PurchaseFilter{SubscriberID: otherSubscriber}, "subscriber", 0},
		{"storefront", shop.PurchaseFilter{StorefrontID: storefront, Desc: true}, "storefront", page},
		{"refunded", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{shop.PurchaseRefunded}}, "status", page},
		{"unshipped", shop.PurchaseFilter{Unshipped: &yes, Desc: true}, "ship", page},
		{"no filter", shop.PurchaseFilter{Desc: true}, "list", page},
		// Prefixes of up to three characters read their own ordered range, whatever
		// the number of matches.
		{"rare e-mail prefix", shop.PurchaseFilter{EmailPrefix: rarePrefix}, "email prefix", 30},
		{"densest e-mail letter", shop.PurchaseFilter{EmailPrefix: denseLetter, Desc: true}, "email prefix", page},
		{"densest last-name letter", shop.PurchaseFilter{LastPrefix: denseLast, Desc: true}, "last-name prefix", page},
		// A longer prefix walks the range of its first three characters.
		{"rare long e-mail prefix", shop.PurchaseFilter{EmailPrefix: rareLong}, "email prefix", float64(rareLongRange)},
		{"e-mail prefix in a storefront", shop.PurchaseFilter{EmailPrefix: denseLetter, StorefrontID: storefront, Desc: true}, "email prefix", 2 * page},
		// A domain reads its own ordered range (purchase_prefixes, field 5).
		{"rarest domain", shop.PurchaseFilter{Domain: rareDomain}, "domain", page},
		{"commonest domain", shop.PurchaseFilter{Domain: strings.ToUpper(denseDomain), Desc: true}, "domain", page},
		// A union (a search's OR, a bare word) reads a page's worth of each branch's
		// ordered range, and merges them.
		{"union of two dense prefixes", shop.PurchaseFilter{Desc: true, Any: []shop.PurchaseFilter{
			{EmailPrefix: denseLetter}, {LastPrefix: denseLast}, {IDs: []int64{1}}}}, "union", 4 * page},
		// A total comparison alone reads its bands' ordered ranges and the matches of
		// the band it falls in, not the list order (which passes over every purchase
		// when fewer than a page match).
		{"total above the top 1 %", shop.PurchaseFilter{Total: total1pc, TotalOp: shop.TotalGt, Desc: true}, "total bands", 2 * page},
		// Two filters whose paths differ alone. A mark (ship=1, a status other than
		// ACT) with a product or an e-mail prefix reads the marks' range of the two
		// together: its matches alone, however few of the product's or the prefix's
		// purchases have the mark (walking the product passed over 30 a match).
		{"popular product unshipped", shop.PurchaseFilter{ProductID: popular, Unshipped: &yes, Desc: true}, "product mark", page},
		{"rare product unshipped", shop.PurchaseFilter{ProductID: rare, Unshipped: &yes}, "product mark", page},
		{"popular product on hold", shop.PurchaseFilter{ProductID: popular, Statuses: []shop.PurchaseStatus{shop.PurchaseHeld}}, "product mark", page},
		{"densest e-mail letter on hold", shop.PurchaseFilter{EmailPrefix: denseLetter, Statuses: []shop.PurchaseStatus{shop.PurchaseHeld}, Desc: true}, "email mark", page},
		{"densest e-mail letter unshipped", shop.PurchaseFilter{EmailPrefix: denseLetter, Unshipped: &yes}, "email mark", page},
		{"rare long e-mail prefix refunded", shop.PurchaseFilter{EmailPrefix: rareLong, Statuses: []shop.PurchaseStatus{shop.PurchaseRefunded}}, "email mark", 30},
		// A total comparison with one status: the bands of that status.
		{"refunded above the top 1 %", shop.PurchaseFilter{Total: total1pc, TotalOp: shop.TotalGt, Statuses: []shop.PurchaseStatus{shop.PurchaseRefunded}, Desc: true},
			"total bands", 2 * page},
		{"active above the top 1 %", shop.PurchaseFilter{Total: total1pc, TotalOp: shop.TotalGt, Statuses: []shop.PurchaseStatus{shop.PurchaseActive}},
			"total bands", 2 * page},
		// A status with a comparison that reaches most totals walks the status's range.
		{"refunded below the top 1 %", shop.PurchaseFilter{Total: total1pc, TotalOp: shop.TotalLt, Statuses: []shop.PurchaseStatus{shop.PurchaseRefunded}},
			"status", 3 * page},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.AccountID = 1
			path, read, err := db.AnalyzeList(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v entries", path, read)
			if path != tc.path {
				t.Errorf("path: got %s, want %s", path, tc.path)
			}
			if read > tc.maxReads {
				t.Errorf("entries read: got %v, want at most %v", read, tc.maxReads)
			}
		})
	}
	// Two prefixes: one leads, the other is a primary-key probe of its own path per
	// entry passed over.
	t.Run("two prefixes", func(t *testing.T) {
		path, read, err := db.AnalyzeList(ctx, shop.PurchaseFilter{AccountID: 1, EmailPrefix: denseLetter, LastPrefix: denseLast, Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v entries", path, read)
		if path != "email prefix" {
			t.Errorf("path: got %s, want email prefix", path)
		}
	})
	// One letter of each name, the densest of both: the initials' range, each entry a
	// match (the collation's equality aside, which LIKE on the entry's prefix removes).
	t.Run("densest first-name and last-name letters", func(t *testing.T) {
		path, read, err := db.AnalyzeList(ctx, shop.PurchaseFilter{AccountID: 1, FirstPrefix: denseFirst, LastPrefix: denseLast, Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v entries", path, read)
		if path != "initials prefix" {
			t.Errorf("path: got %s, want initials prefix", path)
		}
		if read > page {
			t.Errorf("entries read: got %v, want at most %v", read, page)
		}
	})
	// The product path with another condition joins purchases: still one entry of the
	// path and one row per purchase looked at, in order.
	t.Run("product with a storefront", func(t *testing.T) {
		path, read, err := db.AnalyzeList(ctx, shop.PurchaseFilter{AccountID: 1, ProductID: popular, StorefrontID: storefront, Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		if path != "product" || read > 2*page {
			t.Errorf("got %s reading %v, want product reading at most %d", path, read, 2*page)
		}
	})
	// A product with an e-mail prefix checks the other filter on the entry it walks:
	// one letter on the product's path (its initials), two on the prefix's (its
	// products). The page reads the walk's entries up to its 101st match and nothing
	// else; a probe of the other path for each entry would read about twice as many.
	walked := func(t *testing.T, entries string, entryArgs []any, match string, matchArgs ...any) float64 {
		t.Helper()
		count := func(query string, args ...any) float64 {
			var n float64
			if err := db.QueryRow("SELECT COUNT(*) FROM ("+query+") w", args...).Scan(&n); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			return n
		}
		var at time.Time
		var id int64
		// The newest-first walk's 101st match, or the range's end when fewer match.
		err := db.QueryRow(entries+" AND "+match+" ORDER BY created_at DESC, purchase_id DESC LIMIT 1 OFFSET 100",
			append(slices.Clone(entryArgs), matchArgs...)...).Scan(&at, &id)
		if err == sql.ErrNoRows {
			return count(entries, entryArgs...)
		} else if err != nil {
			t.Fatal(err)
		}
		return count(entries+" AND (created_at, purchase_id) >= (?, ?)", append(slices.Clone(entryArgs), at, id)...)
	}
	twoLetters := string([]rune(rarePrefix)[:2])
	for _, tc := range []struct {
		name, path, entries, match string
		f                          shop.PurchaseFilter
		entryArgs, matchArgs       []any
	}{
		{"popular product with the densest e-mail letter", "product",
			"SELECT created_at, purchase_id FROM purchase_products WHERE account_id = 1 AND product_id = ?",
			"email_initial LIKE ?", shop.PurchaseFilter{ProductID: popular, EmailPrefix: denseLetter},
			[]any{popular}, []any{likeLiteral(denseLetter)}},
		{"popular product with two letters of the e-mail", "email prefix",
			"SELECT created_at, purchase_id FROM purchase_prefixes WHERE account_id = 1 AND field = 1 AND prefix_len = 2 AND prefix = ?",
			"value LIKE ? AND FIND_IN_SET(?, products)", shop.PurchaseFilter{ProductID: popular, EmailPrefix: twoLetters},
			[]any{twoLetters}, []any{likeLiteral(twoLetters) + "%", popular}},
		// A prefix with a status checks the status its entries hold (migration 00222):
		// joined to each purchase's row for it, the page read twice the walk's entries.
		{"two letters of the e-mail with the commonest status (ACT)", "email prefix",
			"SELECT created_at, purchase_id FROM purchase_prefixes WHERE account_id = 1 AND field = 1 AND prefix_len = 2 AND prefix = ?",
			"value LIKE ? AND status = 'ACT'", shop.PurchaseFilter{EmailPrefix: twoLetters, Statuses: []shop.PurchaseStatus{"ACT"}},
			[]any{twoLetters}, []any{likeLiteral(twoLetters) + "%"}},
		{"the densest letter of each name with two statuses", "initials prefix",
			"SELECT created_at, purchase_id FROM purchase_prefixes WHERE account_id = 1 AND field = 4 AND prefix_len = 2 AND prefix = ?",
			"prefix LIKE ? AND status IN ('ACT', 'REF')", shop.PurchaseFilter{FirstPrefix: denseFirst, LastPrefix: denseLast, Statuses: []shop.PurchaseStatus{"ACT", "REF"}},
			[]any{denseFirst + denseLast}, []any{likeLiteral(denseFirst) + likeLiteral(denseLast)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.AccountID, tc.f.Desc = 1, true
			path, read, err := db.AnalyzeList(ctx, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			want := walked(t, tc.entries, tc.entryArgs, tc.match, tc.matchArgs...)
			t.Logf("%s: %v entries, the walk's %v", path, read, want)
			if path != tc.path || read > want {
				t.Errorf("got %s reading %v, want %s reading at most %v", path, read, tc.path, want)
			}
		})
	}
}

// TestPlans_SubscriberStatus checks that one status reads its own range of the
// subscriber lists (migration 00232), of every storefront and of one, for the page and
// its count: a status that few subscribers have reads about its matches, not every
// subscriber of the account, and finds what the subscriptions say.
func TestPlans_SubscriberStatus(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 200, Subscribers: 3000, Seed: 3}, nil); err != nil {
		t.Fatal(err)
	}
	var status string
	var storefront, all int64
	if err := db.QueryRow(`SELECT ss.status, sb.storefront_id FROM subscriptions ss JOIN subscribers sb ON sb.account_id = ss.account_id AND sb.id = ss.subscriber_id
		WHERE ss.account_id = 1 GROUP BY ss.status, sb.storefront_id ORDER BY COUNT(*), ss.status LIMIT 1`).Scan(&status, &storefront); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM subscribers WHERE account_id = 1").Scan(&all); err != nil {
		t.Fatal(err)
	}
	for _, sf := range []int64{0, storefront} {
		var want int64
		if err := db.QueryRow(`SELECT COUNT(*) FROM subscriptions ss JOIN subscribers sb ON sb.account_id = ss.account_id AND sb.id = ss.subscriber_id
			WHERE ss.account_id = 1 AND ss.status = ? AND (? = 0 OR sb.storefront_id = ?)`, status, sf, sf).Scan(&want); err != nil {
			t.Fatal(err)
		}
		page, read, err := db.AnalyzeSubscribers(ctx, shop.SubscriberFilter{AccountID: 1, StorefrontID: sf,
			Statuses: []shop.SubscriptionStatus{shop.SubscriptionStatus(status)}, Desc: true, IncludeCount: true, CountCap: 10_000})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s, storefront %d: %d of %d subscribers, %v entries at most", status, sf, want, all, read)
		if page.Total != want || int64(len(page.Subscribers)) != min(want, 100) {
			t.Errorf("%s, storefront %d: %d found, %d listed; want %d", status, sf, page.Total, len(page.Subscribers), want)
		}
		// Each match is an entry of the range, its storefront's and its subscription's
		// probes, and a row of the count's derived table: about 5 reads a match. A walk
		// reads every subscriber of the account.
		if bound := float64(6*want + 20); read > bound || read >= float64(all) {
			t.Errorf("%s, storefront %d: a statement read %v entries; want at most %v (%d subscribers in the account)", status, sf, read, bound, all)
		}
	}
}

// TestPlans_SubscriberNarrowWays: a subscribers list whose matches lie in a narrower
// range than the list order finds exactly them, counted and paged in list order, and
// reads that range: a few entries a match, not every subscriber of the account. The
// ranges are the beginnings of user names on every storefront (the e-mail field, a
// word or email: in the search), and a service term's start or end (the overview's
// links, the date fields, started: and ended:), on every storefront and on one; a list
// without a count (the API's, the export) counts them up to a page's choice.
func TestPlans_SubscriberNarrowWays(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 200, Subscribers: 3000, Seed: 4}, nil); err != nil {
		t.Fatal(err)
	}
	ids := func(query string, args ...any) []int64 {
		t.Helper()
		rows, err := db.Query(query, args...)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			out = append(out, id)
		}
		return out
	}
	var all, storefront int64
	if err := db.QueryRow("SELECT COUNT(*), MIN(storefront_id) FROM subscribers WHERE account_id = 1").Scan(&all, &storefront); err != nil {
		t.Fatal(err)
	}
	// Two beginnings of a few names each, from more than one storefront.
	var rare []string
	rows, err := db.Query(`SELECT LEFT(username, 2) b FROM subscribers WHERE account_id = 1
		GROUP BY b HAVING COUNT(*) BETWEEN 5 AND 60 AND COUNT(DISTINCT storefront_id) > 1 ORDER BY COUNT(*), b LIMIT 2`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		rare = append(rare, b)
	}
	if rows.Close(); len(rare) != 2 {
		t.Fatalf("the seed has %d beginnings of 5 to 60 names in more than one storefront", len(rare))
	}
	// The latest terms started, and the latest ended: from the fortieth's instant to a
	// day after the last's.
	var started, startedTo, ended, endedTo time.Time
	for col, at := range map[string][2]*time.Time{"start_at": {&started, &startedTo}, "end_at": {&ended, &endedTo}} {
		if err := db.QueryRow(`SELECT (SELECT `+col+` FROM subscriber_terms WHERE account_id = 1 AND `+col+` IS NOT NULL ORDER BY `+col+` DESC LIMIT 1 OFFSET 39),
			MAX(`+col+`) + INTERVAL 1 DAY FROM subscriber_terms WHERE account_id = 1`).Scan(at[0], at[1]); err != nil {
			t.Fatal(err)
		}
	}
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	span := func(from, to time.Time) []shop.TimeRange { return []shop.TimeRange{{From: &from, To: &to}} }
	const byNames = `SELECT id FROM subscribers WHERE account_id = 1 AND (LEFT(username, 2) = ? OR LEFT(username, 2) = ?) ORDER BY created_at DESC, id DESC`
	const byTerm = `SELECT sb.id FROM subscribers sb JOIN subscriber_terms st ON st.account_id = sb.account_id AND st.subscriber_id = sb.id
		WHERE sb.account_id = 1 AND st.%s >= ? AND st.%[1]s < ? AND (? = 0 OR sb.storefront_id = ?) ORDER BY sb.created_at DESC, sb.id DESC`
	type tc struct {
		name string
		f    shop.SubscriberFilter
		want []int64
	}
	cases := []tc{
		{"the e-mail field", shop.SubscriberFilter{UsernamePrefix: rare[0]}, ids(byNames, rare[0], rare[0])},
		{"a word", shop.SubscriberFilter{Where: []shop.Cond{{Field: shop.CondText, Texts: rare[:1]}}}, ids(byNames, rare[0], rare[0])},
		{"email: two beginnings", shop.SubscriberFilter{Where: []shop.Cond{{Field: shop.CondEmail, Texts: rare}}}, ids(byNames, rare[0], rare[1])},
	}
	// A few ids (id:, a number in Find): their keys, not the list order.
	var lo, hi int64
	if err := db.QueryRow(`SELECT MIN(id), MAX(id) FROM (SELECT id FROM subscribers WHERE account_id = 1 ORDER BY id LIMIT 20 OFFSET 100) t`).Scan(&lo, &hi); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, tc{"id: a range", shop.SubscriberFilter{Where: []shop.Cond{{Field: shop.CondID, IDs: []shop.IDRange{{Min: lo, Max: hi}}}}},
		ids(`SELECT id FROM subscribers WHERE account_id = 1 AND id BETWEEN ? AND ? ORDER BY created_at DESC, id DESC`, lo, hi)})
	for _, sf := range []int64{0, storefront} {
		cases = append(cases,
			tc{fmt.Sprintf("the started fields, storefront %d", sf), shop.SubscriberFilter{StorefrontID: sf, StartedFrom: &started, StartedBefore: &startedTo},
				ids(fmt.Sprintf(byTerm, "start_at"), started, startedTo, sf, sf)},
			tc{fmt.Sprintf("started:, storefront %d", sf), shop.SubscriberFilter{StorefrontID: sf, Where: []shop.Cond{{Field: shop.CondStarted, Times: span(started, startedTo)}}},
				ids(fmt.Sprintf(byTerm, "start_at"), started, startedTo, sf, sf)},
			tc{fmt.Sprintf("started>= started>= started<, storefront %d", sf), shop.SubscriberFilter{StorefrontID: sf, Where: []shop.Cond{
				{Field: shop.CondStarted, Times: []shop.TimeRange{{From: &epoch}}}, {Field: shop.CondStarted, Times: []shop.TimeRange{{From: &started}}},
				{Field: shop.CondStarted, Times: []shop.TimeRange{{To: &startedTo}}}}},
				ids(fmt.Sprintf(byTerm, "start_at"), started, startedTo, sf, sf)},
			tc{fmt.Sprintf("the ended fields, storefront %d", sf), shop.SubscriberFilter{StorefrontID: sf, EndedFrom: &ended, EndedBefore: &endedTo},
				ids(fmt.Sprintf(byTerm, "end_at"), ended, endedTo, sf, sf)},
			tc{fmt.Sprintf("ended:, storefront %d", sf), shop.SubscriberFilter{StorefrontID: sf, Where: []shop.Cond{{Field: shop.CondEnded, Times: span(ended, endedTo)}}},
				ids(fmt.Sprintf(byTerm, "end_at"), ended, endedTo, sf, sf)},
		)
	}
	for _, tc := range cases {
		if len(tc.want) < 3 || len(tc.want) > 200 {
			t.Fatalf("%s: the seed gives %d matches; the test wants a few", tc.name, len(tc.want))
		}
		for _, run := range []struct {
			count, many bool
			window      uint64
		}{{true, false, 0}, {false, false, 0}, {true, true, 500}, {false, true, 500}, {true, true, 0}, {false, true, 0}} {
			count := run.count
			restore := func() {}
			f := tc.f
			f.AccountID, f.Desc, f.IncludeCount, f.CountCap, f.PerPage = 1, true, count, 10_000, 1000
			if run.many {
				// As if the matches were many: the window of the list order's first
				// subscribers, then the narrower way sorted (counted) or the list
				// order (not); paged by 7, so that the window holds a page at first.
				restore = mysql.SetNarrowMost(-1, run.window)
				f.PerPage = 7
			}
			var got []int64
			var total, read float64
			for {
				page, most, err := db.AnalyzeSubscribers(ctx, f)
				if err != nil {
					restore()
					t.Fatal(err)
				}
				if total == 0 {
					total = float64(page.Total)
				}
				read = max(read, most)
				for _, s := range page.Subscribers {
					got = append(got, s.ID)
				}
				if page.Next == nil {
					break
				}
				// As an export's batches do: the next chooses its way as this one did.
				f.After, f.Looked = page.Next, page.Looked
			}
			restore()
			t.Logf("%s, %+v: %d of %d subscribers, %v entries at most", tc.name, run, len(tc.want), all, read)
			if !slices.Equal(got, tc.want) || (count && total != float64(len(tc.want))) {
				t.Fatalf("%s, %+v: found %v (%v), want %v", tc.name, run, got, total, tc.want)
			}
			// Each match is an entry of a range, its row, its storefront's, its
			// subscription's and its term's probes, and a row of the count's derived
			// table.
			if bound := float64(7*len(tc.want) + 20); !run.many && (read > bound || read >= float64(all)) {
				t.Errorf("%s: a statement read %v entries; want at most %v (%d subscribers in the account)", tc.name, read, bound, all)
			}
		}
	}
}
