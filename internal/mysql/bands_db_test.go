package mysql_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// bandTotals are totals at and beside the bands' bounds, given to some purchases so
// that every comparison meets them.
var bandTotals = []string{"0", "0.0001", "0.9999", "1", "1.0001", "1.9999", "2", "9.9999", "10", "10.0001",
	"19.9999", "20", "99.9999", "100", "100.0001", "199.99", "650", "652.5", "652.5001", "999.9999", "1000",
	"9999.9999", "10000", "123456789.1234"}

// TestTotalBands_MatchComparison checks the total bands against the plain comparison:
// the virtual column's band is the one the code computes for every total; and for
// compared totals at the bands' bounds, beside them and random, each way of reading
// the bands (the own band's matches sorted or walked), the list order's walk and the
// plan's own choice (FindPurchases, first and second page by offset, with and without
// dates) answer exactly the plain query's purchases in list order, in both orders.
func TestTotalBands_MatchComparison(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 2000, Subscribers: 100, Seed: 9}, nil); err != nil {
		t.Fatal(err)
	}
	ids := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 ORDER BY id")
	for i, id := range ids[:len(ids)/2] {
		if i%11 == 0 {
			if _, err := db.Exec("UPDATE purchases SET total = ? WHERE id = ?", bandTotals[(i/11)%len(bandTotals)], id); err != nil {
				t.Fatal(err)
			}
		}
	}

	rows, err := db.Query("SELECT total, total_band FROM purchases")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		var total string
		var band int
		if err := rows.Scan(&total, &band); err != nil {
			t.Fatal(err)
		}
		if got := mysql.TotalBand(total); got != band {
			t.Errorf("total %s: the column's band is %d, the code's %d", total, band, got)
		}
		n++
	}
	if err := rows.Err(); err != nil || n < 2000 {
		t.Fatalf("read %d totals: %v", n, err)
	}

	var from, before time.Time
	if err := db.QueryRow(`SELECT (SELECT created_at FROM purchases WHERE account_id = 1 ORDER BY created_at LIMIT 1 OFFSET 400),
		(SELECT created_at FROM purchases WHERE account_id = 1 ORDER BY created_at LIMIT 1 OFFSET 1200)`).Scan(&from, &before); err != nil {
		t.Fatal(err)
	}
	var median string
	if err := db.QueryRow("SELECT total FROM purchases WHERE account_id = 1 ORDER BY total LIMIT 1 OFFSET 800").Scan(&median); err != nil {
		t.Fatal(err)
	}
	// Every other bound (the others' neighbours stay), and values between.
	var compared []string
	for i, x := range bandTotals {
		if i%2 == 0 {
			compared = append(compared, x)
		}
	}
	compared = append(compared, "-3", "5.5", median, "100000000000000000000")
	svc := mysql.NewPurchaseService(db)
	for _, x := range compared {
		for _, op := range []shop.TotalOp{shop.TotalGt, shop.TotalLt} {
			for _, desc := range []bool{true, false} {
				// With dates, or with one status (the bands of that status): a status
				// other than ACT is the rarer, whose bands are mostly empty.
				for _, v := range []struct {
					dates  bool
					status shop.PurchaseStatus
				}{{false, ""}, {true, ""}, {false, shop.PurchaseRefunded}, {false, shop.PurchaseActive}} {
					dates := v.dates
					if dates && !desc { // dates are the same ranges in either order
						continue
					}
					sqlOp, order := ">", "ASC"
					if op == shop.TotalLt {
						sqlOp = "<"
					}
					if desc {
						order = "DESC"
					}
					f := shop.PurchaseFilter{AccountID: 1, Total: x, TotalOp: op, Desc: desc}
					query := "SELECT id FROM purchases WHERE account_id = 1 AND total " + sqlOp + " CAST(? AS DECIMAL(65,30))"
					args := []any{x}
					if dates {
						f.CreatedFrom, f.CreatedBefore = &from, &before
						query += " AND created_at >= ? AND created_at < ?"
						args = append(args, from, before)
					}
					paths := []string{"total bands, own sorted", "total bands, own walked"}
					if v.status != "" {
						f.Statuses = []shop.PurchaseStatus{v.status}
						query += " AND status = ?"
						args = append(args, string(v.status))
						paths = append(paths, "status")
					}
					want := naiveIDs(t, db, query+" ORDER BY created_at "+order+", id "+order, args...)
					name := func(how string) string {
						return "total " + sqlOp + " " + x + " " + order + map[bool]string{true: " with dates", false: ""}[dates] +
							map[bool]string{true: " status " + string(v.status), false: ""}[v.status != ""] + " on " + how
					}
					if !dates {
						paths = append(paths, "walk (total)")
					}
					for _, path := range paths {
						got, err := db.PathIDs(ctx, f, path, 97)
						if err != nil {
							t.Fatalf("%s: %v", name(path), err)
						}
						if !slices.Equal(got, want) {
							t.Errorf("%s: got %d purchases %v, want %d %v", name(path), len(got), head(got), len(want), head(want))
						}
					}
					// The API's pages by cursor: the first plans with the edge's statement
					// and remembers the edge; the rest, and the second reading, plan from it.
					for reading := 1; reading <= 2; reading++ {
						if got := documentIDs(t, svc, f, 97); !slices.Equal(got, want) {
							t.Errorf("%s, reading %d: got %d purchases %v, want %d %v", name("the API's pages"), reading, len(got), head(got), len(want), head(want))
						}
					}
					for page := 1; page <= 2; page++ {
						f.PerPage, f.Page = 50, page
						res, err := svc.FindPurchases(ctx, f)
						if err != nil {
							t.Fatalf("%s: %v", name("the plan"), err)
						}
						var got []int64
						for _, p := range res.Purchases {
							got = append(got, p.ID)
						}
						wantPage := want[min(len(want), 50*(page-1)):min(len(want), 50*page)]
						if !slices.Equal(got, wantPage) {
							t.Errorf("%s, page %d: got %v, want %v", name("the plan"), page, head(got), head(wantPage))
						}
					}
				}
			}
		}
	}
}

// TestTotalBands_DocumentPages: the API's page of a total comparison on the bands, whose
// statement leads with the ids, answers the account's purchases version and the count
// with its documents, and with none on an empty page.
func TestTotalBands_DocumentPages(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 600, Subscribers: 40, Seed: 4}, nil); err != nil {
		t.Fatal(err)
	}
	var version int64
	if err := db.QueryRow("SELECT version FROM purchase_versions WHERE account_id = 1").Scan(&version); err != nil || version == 0 {
		t.Fatalf("the account's purchases version: got %d, %v; want one set by the seed", version, err)
	}
	svc := mysql.NewPurchaseService(db)
	for _, tc := range []struct {
		total string
		op    shop.TotalOp
	}{{"100000000000000000000", shop.TotalGt}, {"-1", shop.TotalLt}, {"300", shop.TotalGt}, {"20", shop.TotalLt}} {
		f := shop.PurchaseFilter{AccountID: 1, Total: tc.total, TotalOp: tc.op, IncludeCount: true, PerPage: 10, Desc: true}
		path, _, err := db.AnalyzeList(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if path != "total bands" {
			t.Fatalf("total %s %s: path %s, want total bands", tc.op, tc.total, path)
		}
		var want int64
		if err := db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = 1 AND total "+map[shop.TotalOp]string{shop.TotalGt: ">", shop.TotalLt: "<"}[tc.op]+
			" CAST(? AS DECIMAL(65,30))", tc.total).Scan(&want); err != nil {
			t.Fatal(err)
		}
		page, err := svc.FindPurchaseDocuments(ctx, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		if page.Version != version || page.Total != want {
			t.Errorf("total %s %s: version %d and count %d, want %d and %d", tc.op, tc.total, page.Version, page.Total, version, want)
		}
		var docs []json.RawMessage
		if err := json.Unmarshal(page.Body, &docs); err != nil {
			t.Fatalf("total %s %s: body %.80q: %v", tc.op, tc.total, page.Body, err)
		}
		if len(docs) != int(min(want, 10)) {
			t.Errorf("total %s %s: %d documents, want %d", tc.op, tc.total, len(docs), min(want, 10))
		}
	}
}

func head(ids []int64) []int64 { return ids[:min(len(ids), 8)] }

// bodyIDs returns the ids of a page's body (a JSON array of purchases), in order.
func bodyIDs(t *testing.T, body []byte) []int64 {
	t.Helper()
	var docs []struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal(body, &docs); err != nil {
		t.Fatalf("body %.80q: %v", body, err)
	}
	ids := make([]int64, 0, len(docs))
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	return ids
}

// documentIDs reads every page of the filter from the API's reader
// (FindPurchaseDocuments), n a page by cursor, and returns the purchases' ids.
func documentIDs(t *testing.T, svc *mysql.PurchaseService, f shop.PurchaseFilter, n int) []int64 {
	t.Helper()
	f.PerPage, f.Page, f.After = n, 0, nil
	var out []int64
	for {
		page, err := svc.FindPurchaseDocuments(context.Background(), f, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, bodyIDs(t, page.Body)...)
		if page.Next == nil {
			return out
		}
		f.After = page.Next
	}
}

// selects returns the SELECT statements the session of db's one connection has sent.
func selects(t *testing.T, db *mysql.DB) int {
	t.Helper()
	return statusValue(t, db, "SHOW SESSION STATUS LIKE 'Com_select'")
}

// statusValue returns the value of the one status variable that show (a SHOW STATUS
// LIKE) names.
func statusValue(t *testing.T, db *mysql.DB, show string) int {
	t.Helper()
	var name string
	var n int
	if err := db.QueryRow(show).Scan(&name, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// countedSession seeds a database with n purchases (40 subscribers, seed 4) and returns
// it on one session, whose statements Com_select counts (selects), with its purchases'
// service.
func countedSession(t *testing.T, n int) (*mysql.DB, *mysql.PurchaseService) {
	t.Helper()
	db := dbtest.New(t)
	if _, err := seed.Run(context.Background(), db.DB, seed.Options{Purchases: n, Subscribers: 40, Seed: 4}, nil); err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db, mysql.NewPurchaseService(db)
}

// TestTotalBands_RememberedEdge: once a page of a total comparison has read the
// account's edge band, the next pages are one statement each; a page read at another
// purchases version than the edge's is read again on the edge as it is now, so that a
// purchase whose total reached a band beyond the remembered edge is on it; and the
// edge read then is remembered for the next pages.
func TestTotalBands_RememberedEdge(t *testing.T) {
	ctx := context.Background()
	db, svc := countedSession(t, 600)
	f := shop.PurchaseFilter{AccountID: 1, Total: "300", TotalOp: shop.TotalGt, PerPage: 20, Desc: true}
	read := func(what string, statements int) {
		t.Helper()
		before := selects(t, db)
		page, err := svc.FindPurchaseDocuments(ctx, f, nil)
		if err != nil {
			t.Fatal(err)
		}
		sent := selects(t, db) - before
		got := bodyIDs(t, page.Body)
		want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND total > 300 ORDER BY created_at DESC, id DESC LIMIT 20")
		if !slices.Equal(got, want) {
			t.Errorf("%s: page %v, want %v", what, head(got), head(want))
		}
		if sent != statements {
			t.Errorf("%s: %d statements, want %d", what, sent, statements)
		}
	}
	read("first page", 2) // the edge's, then the page's
	read("again", 1)
	var newest int64
	if err := db.QueryRow("SELECT id FROM purchases WHERE account_id = 1 AND total <= 300 ORDER BY created_at DESC, id DESC LIMIT 1").Scan(&newest); err != nil {
		t.Fatal(err)
	}
	bump := func(stmts ...string) {
		t.Helper()
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		for _, stmt := range stmts {
			if _, err := tx.Exec(stmt, newest); err != nil {
				t.Fatal(err)
			}
		}
		if err := mysql.BumpPurchaseVersions(ctx, tx, 1); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	bump()
	read("the first page at a new version", 3) // the optimistic page, the edge's, the page's
	read("the next", 1)
	// A band far beyond the remembered edge, written as every write is: with the
	// account's purchases version. (The edge read again then leaves more than
	// maxBandBranches bands beyond the own band: the list order's walk, which checks
	// every total.)
	bump("UPDATE purchases SET total = 123456789.1234 WHERE id = ?")
	read("a total beyond the remembered edge", 3)
	read("and the next", 1)
}

// TestTotalBands_WalkProbe: when the own band's first entries in list order hold a
// page's matches, the API's page (its account's edge remembered) walks them in its one
// statement, without counting up to bandSortLimit+1 matches from the total's index;
// when they do not, the page reaches the walk's sentinel and is read again after the
// count, the few matches sorted. Either way every page is the plain comparison's.
func TestTotalBands_WalkProbe(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 3000, Subscribers: 100, Seed: 5}, nil); err != nil {
		t.Fatal(err)
	}
	// Every total of account 1 in the band of 600 to 700, spread evenly by id: above 650
	// match half of them (over 1,000), above 695 a twentieth (under 1,000, and under a
	// page in the band's first entries).
	if _, err := db.Exec("UPDATE purchases SET total = 600 + (id % 1000) / 10 WHERE account_id = 1"); err != nil {
		t.Fatal(err)
	}
	svc := mysql.NewPurchaseService(db)
	for _, tc := range []struct {
		total string
		// The plan's statements once the edge is remembered: none when the page's rows
		// do not reach the end of the own band's walk; else that page, then the count.
		statements int
		maxRead    float64 // the walk's entries count twice: read from the index, then from its derived table
	}{
		{"650", 0, 2 + 3*mysql.BandWalkProbe + 2*101},
		{"695", 2, 2 + 3*mysql.BandWalkProbe + 2*101 + mysql.BandSortLimit + 1},
	} {
		f := shop.PurchaseFilter{AccountID: 1, Total: tc.total, TotalOp: shop.TotalGt, Desc: true}
		plan, list, _, err := mysql.PurchasePageStatements(ctx, db.DB, f)
		if err != nil {
			t.Fatal(err)
		}
		var read float64
		for _, s := range append(plan, list) {
			n, err := mysql.EntriesRead(ctx, db.DB, s)
			if err != nil {
				t.Fatal(err)
			}
			read += n
		}
		t.Logf("total > %s: %d plan statements, %v entries with the page's ids", tc.total, len(plan), read)
		if len(plan) != tc.statements || read > tc.maxRead {
			t.Errorf("total > %s: %d plan statements reading %v entries with the page's ids, want %d reading at most %v", tc.total, len(plan), read, tc.statements, tc.maxRead)
		}
		if got := documentIDs(t, svc, f, 100); !slices.Equal(got, naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND total > CAST(? AS DECIMAL(65,30)) ORDER BY created_at DESC, id DESC", tc.total)) {
			t.Errorf("total > %s: the API's pages differ from the plain comparison's (%d purchases)", tc.total, len(got))
		}
		want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND total > CAST(? AS DECIMAL(65,30)) ORDER BY created_at DESC, id DESC LIMIT 100", tc.total)
		page, err := svc.FindPurchases(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, p := range page.Purchases {
			got = append(got, p.ID)
		}
		if !slices.Equal(got, want) {
			t.Errorf("total > %s: page %v…, want %v…", tc.total, head(got), head(want))
		}
	}
}

// TestTotalBands_RememberedShares: the pages of a total comparison read after its first
// ones read each band only about as far as the last page needed it (bandShare), and are
// still the plain comparison's pages, page after page by cursor in both orders; a page
// whose remembered shares fall short (a band gave it as many rows as it read) is read
// again with every band read up to the page's end, in two more statements, and the
// shares are forgotten until a page is read whole again.
func TestTotalBands_RememberedShares(t *testing.T) {
	ctx := context.Background()
	db, svc := countedSession(t, 3000)
	for _, desc := range []bool{true, false} {
		f := shop.PurchaseFilter{AccountID: 1, Total: "300", TotalOp: shop.TotalGt, PerPage: 20, Desc: desc}
		order := "created_at, id"
		if desc {
			order = "created_at DESC, id DESC"
		}
		want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND total > 300 ORDER BY "+order)
		if len(want) < 200 {
			t.Fatalf("%d purchases above 300: too few for ten pages", len(want))
		}
		// page reads the page after the cursor and returns its ids, the statements it
		// sent and the cursor of the next.
		page := func(after *shop.Cursor) ([]int64, int, *shop.Cursor) {
			t.Helper()
			g := f
			g.After = after
			before := selects(t, db)
			p, err := svc.FindPurchaseDocuments(ctx, g, nil)
			if err != nil {
				t.Fatal(err)
			}
			return bodyIDs(t, p.Body), selects(t, db) - before, p.Next
		}
		limited := 0
		for pass := range 2 {
			var got []int64
			var after *shop.Cursor
			for {
				limits, _, err := db.BandLimits(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range limits {
					if l > 0 {
						limited++
						break
					}
				}
				ids, _, next := page(after)
				got = append(got, ids...)
				if next == nil {
					break
				}
				after = next
			}
			if !slices.Equal(got, want) {
				t.Errorf("desc %v, pass %d: %d ids, want %d (first %v, want %v)", desc, pass, len(got), len(want), head(got), head(want))
			}
		}
		if limited == 0 {
			t.Errorf("desc %v: no page read a band up to a limit", desc)
		}
		// The shares of pages of 20, scaled to a page of 100: read up to its limits in
		// one statement.
		f.PerPage = 100
		if limits, _, _ := db.BandLimits(ctx, f); !slices.ContainsFunc(limits, func(l int) bool { return l > 0 }) {
			t.Errorf("desc %v: a page of 100 after pages of 20 has limits %v", desc, limits)
		}
		if ids, sent, _ := page(nil); !slices.Equal(ids, want[:100]) || sent != 1 {
			t.Errorf("desc %v: a page of 100 on the shares of pages of 20: %v in %d statements, want %v in 1", desc, head(ids), sent, head(want[:100]))
		}
		// Shares that fall short: the page is still the comparison's, read again.
		db.UnderstateBandShares(f)
		limits, walk, err := db.BandLimits(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(limits, func(l int) bool { return l > 0 }) {
			t.Fatalf("desc %v: understated shares give limits %v and walk %d", desc, limits, walk)
		}
		ids, sent, _ := page(nil)
		if !slices.Equal(ids, want[:100]) {
			t.Errorf("desc %v: page on understated shares %v, want %v", desc, head(ids), head(want[:100]))
		}
		if sent != 3 { // the limited page, the own band's count, the page
			t.Errorf("desc %v: page on understated shares sent %d statements, want 3", desc, sent)
		}
		if limits, walk, _ := db.BandLimits(ctx, f); len(limits) != 0 || walk != 0 {
			t.Errorf("desc %v: after a page that fell short, limits %v and walk %d, want none", desc, limits, walk)
		}
	}
}
