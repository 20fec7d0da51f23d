package mysql

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// Total bands (db/README.md, "Total bands"): purchases.total_band (migration 00102)
// puts each total in a band of values by its number of integer digits and its first
// digit, and purchases_account_band_created (account_id, total_band, created_at, id,
// total) reads one band in list order. A total comparison matches every purchase of the
// bands wholly on its side of the compared total, and some of the band that holds it
// (its "own" band). A page of such a comparison is then one ordered range per band on
// its side (up to the account's last), each read up to the page's size, and the own band's
// matches, merged: a bounded number of index entries whatever the number of matches,
// where walking the list order read 100 ÷ (the share of purchases that match) of them.

// bandSortLimit is the most matches in the own band of a total comparison that are
// read from the total's index and sorted rather than found by walking the own band in
// list order. The count that decides costs up to as many entries, and a sort of s
// matches costs about s again, where the walk costs 101 × (the band's size) ÷ s: with
// bands of a tenth of a decade the own band's matches are usually dense in it (at
// 1,000,000 purchases, the top 1 % held 45 % of its own band, a walk of about 220
// entries, where counting and sorting them read 4,000).
const bandSortLimit = 1000

// bandWalkProbe is how many entries of the own band, in list order from the page's
// start, the plan reads to learn whether walking the own band finds the page's matches
// within them (walkProbeStatement). When they hold enough matches, or are the whole
// rest of the band, the walk is bounded by that many entries and the plan takes it
// without counting the matches from the total's index (up to bandSortLimit+1 entries).
// Enough means a page's matches (101) in at most 300 entries: a third of the band or
// more (the top 1 % held 45 % of its own band at 1,000,000 purchases). The probe's
// entries cost about what as many of the walk's do, and its statement's time grew by
// 0.17 ms from 256 entries to 400 (`ANALYZE`, at 1,000,000 purchases); below a
// third, the count decides.
const bandWalkProbe = 300

// maxBandBranches is the most bands on a comparison's side (up to the account's
// greatest or least) that a page reads one by one. Past it the comparison reaches most
// totals the account has (its total is low for "gt", high for "lt"): its matches are
// dense, and walking the list order finds a page sooner than a range per band would.
const maxBandBranches = 8

// totalBand is the band of a decimal number (shop.IsDecimal), computed exactly as the
// column total_band is from a total: 0 below 1, else ten times the number of integer
// digits plus the first digit.
func totalBand(x string) int {
	if strings.HasPrefix(x, "-") {
		return 0
	}
	whole, _, _ := strings.Cut(x, ".")
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		return 0
	}
	return 10*len(whole) + int(whole[0]-'0')
}

// bandBounds returns the least total of band b and the least total above it, as
// decimal strings; band 0 has no least total (lo is "").
func bandBounds(b int) (lo, hi string) {
	if b < 10 {
		return "", "1"
	}
	digits, first := b/10, b%10
	zeros := strings.Repeat("0", digits-1)
	lo = strconv.Itoa(first) + zeros
	if first == 9 {
		return lo, "1" + zeros + "0"
	}
	return lo, strconv.Itoa(first+1) + zeros
}

// bandable reports whether the filter is a total comparison alone (dates aside): the
// filters whose pages the total bands serve.
func bandable(f shop.PurchaseFilter) bool {
	return f.IDs == nil && f.CustomerID == 0 && f.SubscriberID == 0 && f.ProductID == 0 &&
		f.EmailPrefix == "" && f.FirstPrefix == "" && f.LastPrefix == "" && len(f.Statuses) == 0 &&
		f.StorefrontID == 0 && f.Unshipped == nil && f.Total != "" &&
		(f.TotalOp == shop.TotalGt || f.TotalOp == shop.TotalLt)
}

// sliverCondition is the part of the own band that a total comparison matches, as a
// range of the total: above the compared total up to the band's end for "gt", from the
// band's start up to it for "lt".
func sliverCondition(f shop.PurchaseFilter) sq.And {
	lo, hi := bandBounds(totalBand(f.Total))
	c := sq.And{totalCondition(f)}
	if f.TotalOp == shop.TotalGt {
		return append(c, sq.Expr("p.total < CAST(? AS DECIMAL(65,30))", hi))
	}
	if lo != "" {
		c = append(c, sq.Expr("p.total >= CAST(? AS DECIMAL(65,30))", lo))
	}
	return c
}

// edgeStatement builds the plan's first statement for a total comparison: the
// account's greatest band for "gt" (least for "lt"), one probe of the bands' index,
// and, in the same row, the probe of the own band's walk (walkProbeStatement, its
// entries seen times 1,000 plus its matches) when the page needs at most
// bandWalkProbe matches and the edge leaves at most maxBandBranches bands beyond the
// own band, NULL when not: MariaDB runs a subquery in a CASE only when its branch is
// taken, so a comparison past maxBandBranches (the list order's walk) does not pay for
// it. (MariaDB 10.11 reads the distinct bands of this virtual column by walking every
// entry of the range, not by a loose scan of the index; rather than that, or a
// recursive query for each next band, the bands that can exist between the own band
// and the edge are named, each an empty range when no purchase is in it.)
func edgeStatement(f shop.PurchaseFilter) (string, []any, error) {
	agg, cmp := "MAX(p.total_band)", "<="
	if f.TotalOp == shop.TotalLt {
		agg, cmp = "MIN(p.total_band)", ">="
	}
	edge := sq.Select(agg + " AS edge").From("purchases p FORCE INDEX (purchases_account_band_created)").
		Where(sq.Eq{"p.account_id": f.AccountID})
	sel := sq.Select("e.edge").FromSelect(edge, "e")
	farthest, limited := farthestEdge(totalBand(f.Total), f.TotalOp == shop.TotalGt)
	if pageNeed(f) > bandWalkProbe {
		return sel.Column("NULL").ToSql()
	}
	probe, args, err := walkProbeStatement(f)
	if err != nil {
		return "", nil, err
	}
	if !limited {
		return sel.Column(sq.Expr("("+probe+")", args...)).ToSql()
	}
	return sel.Column(sq.Expr("CASE WHEN e.edge "+cmp+" ? THEN ("+probe+") END", append([]any{farthest}, args...)...)).ToSql()
}

// farthestEdge returns the edge band (the account's greatest for "gt", least for
// "lt") farthest from the own band that leaves at most maxBandBranches bands beyond
// it (bandsBeyond), and false when every edge does (fewer bands than that exist below
// the own band).
func farthestEdge(own int, gt bool) (int, bool) {
	n := 0
	for b := own; ; {
		if gt {
			b++
		} else if b--; b < 0 {
			return 0, false
		}
		if b == 0 || (b > 10 && b%10 != 0) {
			if n++; n == maxBandBranches {
				return b, true
			}
		}
	}
}

// sliverStatement builds the plan's second statement for a total comparison on the
// bands: whether the compared total's own band holds more than bandSortLimit matches,
// found by looking for the next one in the total's index (at most bandSortLimit+1
// entries, and no derived table to fill as a count of them would).
func sliverStatement(f shop.PurchaseFilter) (string, []any, error) {
	next, args, err := sq.Select("1").From("purchases p FORCE INDEX (purchases_account_total)").
		Where(append(sq.And{sq.Eq{"p.account_id": f.AccountID}}, sliverCondition(f)...)).
		Limit(1).Offset(bandSortLimit).ToSql()
	return "SELECT (" + next + ") IS NOT NULL", args, err
}

// walkProbeStatement builds the probe of the own band (bandWalkProbe) that the plan's
// first statement holds: of the own band's first bandWalkProbe entries in list order
// after the page's cursor, how many there are times 1,000, plus how many of them match
// the comparison.
func walkProbeStatement(f shop.PurchaseFilter) (string, []any, error) {
	g := f
	g.Total = ""
	inner := sq.Select("p.total").From("purchases p FORCE INDEX (purchases_account_band_created)").
		Where(purchaseConditions(g)).Where(sq.Eq{"p.total_band": totalBand(f.Total)})
	if f.After != nil {
		inner = inner.Where(keysetCondition("p.created_at", "p.id", f.After, f.Desc))
	}
	inner = inner.OrderBy(orderBy("p.created_at", "p.id", f.Desc)).Limit(bandWalkProbe)
	match, args, err := sliverCondition(f).ToSql()
	if err != nil {
		return "", nil, err
	}
	return sq.Select().Column(sq.Expr("COUNT(*) * 1000 + COALESCE(SUM("+match+"), 0)", args...)).FromSelect(inner, "p").ToSql()
}

// walkBounded reports whether the probe's read of the own band (seen entries, matched
// of them matching) shows that walking it finds the page's need matches within
// bandWalkProbe entries: it found them, or it read the band's whole rest.
func walkBounded(seen, matched int64, need int) bool {
	return seen < bandWalkProbe || matched >= int64(need)
}

// bandsBeyond lists the bands that can hold a total, strictly between the own band and
// the edge (the account's greatest band for "gt", least for "lt") and the edge itself,
// in ascending order: 0, then ten times a number of digits plus a first digit of 1 to 9.
func bandsBeyond(own int, edge sql.NullInt64, gt bool) []int {
	if !edge.Valid {
		return nil // no purchases
	}
	lo, hi := own+1, int(edge.Int64)
	if !gt {
		lo, hi = int(edge.Int64), own-1
	}
	var out []int
	for b := lo; b <= hi; b++ {
		if b == 0 || (b > 10 && b%10 != 0) {
			out = append(out, b)
		}
	}
	return out
}

// planBands reads the account's edge band and the probe of the own band's first
// entries (edgeStatement) and chooses: past maxBandBranches bands on the comparison's
// side, the list order's walk; else the bands' ranges, with the own band walked in
// list order when the probe finds the page's matches in its entries; else the own
// band's matches sorted from the total's index when a count (sliverStatement) finds
// them few, or walked when not.
func planBands(ctx context.Context, q queryer, f shop.PurchaseFilter) (plan, error) {
	query, args, err := edgeStatement(f)
	if err != nil {
		return plan{}, err
	}
	var edge, probe sql.NullInt64
	if err := q.QueryRowContext(ctx, query, args...).Scan(&edge, &probe); err != nil {
		return plan{}, translate(err)
	}
	bands := bandsBeyond(totalBand(f.Total), edge, f.TotalOp == shop.TotalGt)
	if len(bands) > maxBandBranches {
		return plan{path: pathWalkTotal}, nil
	}
	if probe.Valid && walkBounded(probe.Int64/1000, probe.Int64%1000, pageNeed(f)) {
		return plan{path: pathTotalBands, bands: bands}, nil
	}
	if query, args, err = sliverStatement(f); err != nil {
		return plan{}, err
	}
	var many bool
	if err := q.QueryRowContext(ctx, query, args...).Scan(&many); err != nil {
		return plan{}, translate(err)
	}
	return plan{path: pathTotalBands, bands: bands, sortOwn: !many, counted: true}, nil
}

// pageOffset is the number of matches before the page (offset paging).
func pageOffset(f shop.PurchaseFilter, n int) uint64 {
	if f.Page > 1 {
		return uint64(f.Page-1) * uint64(n)
	}
	return 0
}

// pageNeed is the number of matches a page reads in list order: those before it
// (offset paging), its own and one more (whether a next page exists).
func pageNeed(f shop.PurchaseFilter) int {
	n := perPage(f.PerPage)
	return int(pageOffset(f, n)) + n + 1
}

// bandsListQuery builds the ids statement of a page on the total bands: each band on
// the comparison's side (up to the account's last) read as an ordered range up to the page's end, the own
// band's matches (sorted from the total's index, or walked in list order), all checked
// against the filter's conditions and merged in list order.
func bandsListQuery(f shop.PurchaseFilter, n int, pl plan) (string, []any, error) {
	limit := uint64(n + 1)
	offset := pageOffset(f, n)
	var (
		parts []string
		args  []any
	)
	branch := func(index string, extra sq.Sqlizer) error {
		sel := sq.Select("p.id AS id", "p.created_at AS created_at").From("purchases p FORCE INDEX (" + index + ")").
			Where(purchaseConditions(f)).Where(extra)
		if f.After != nil {
			sel = sel.Where(keysetCondition("p.created_at", "p.id", f.After, f.Desc))
		}
		query, a, err := sel.OrderBy(orderBy("p.created_at", "p.id", f.Desc)).Limit(offset + limit).ToSql()
		if err != nil {
			return err
		}
		parts, args = append(parts, "("+query+")"), append(args, a...)
		return nil
	}
	for _, b := range pl.bands {
		if err := branch("purchases_account_band_created", sq.Eq{"p.total_band": b}); err != nil {
			return "", nil, err
		}
	}
	var err error
	if pl.sortOwn {
		err = branch("purchases_account_total", sliverCondition(f))
	} else {
		err = branch("purchases_account_band_created", sq.Eq{"p.total_band": totalBand(f.Total)})
	}
	if err != nil {
		return "", nil, err
	}
	query := "SELECT u.id, u.created_at FROM (" + strings.Join(parts, " UNION ALL ") + ") u ORDER BY " +
		orderBy("u.created_at", "u.id", f.Desc) + " LIMIT " + strconv.FormatUint(limit, 10)
	if offset > 0 {
		query += " OFFSET " + strconv.FormatUint(offset, 10)
	}
	return query, args, nil
}
