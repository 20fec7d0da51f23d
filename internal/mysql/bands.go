package mysql

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"
	lru "github.com/hashicorp/golang-lru/v2"

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

// bandable reports whether the filter is a total comparison alone or with one status
// (dates aside): the filters whose pages the total bands serve.
func bandable(f shop.PurchaseFilter) bool {
	return f.IDs == nil && len(f.Where) == 0 && len(f.Any) == 0 && f.CustomerID == 0 && f.SubscriberID == 0 && f.ProductID == 0 &&
		f.EmailPrefix == "" && f.FirstPrefix == "" && f.LastPrefix == "" && f.Domain == "" && len(f.Statuses) <= 1 &&
		f.StorefrontID == 0 && f.Unshipped == nil && f.Total != "" &&
		(f.TotalOp == shop.TotalGt || f.TotalOp == shop.TotalLt)
}

// bandIndex is the index of the bands' ordered ranges: within the account, or within
// the account and the filter's one status (migration 00140).
func bandIndex(f shop.PurchaseFilter) string {
	if len(f.Statuses) == 1 {
		return "purchases_account_status_band_created"
	}
	return "purchases_account_band_created"
}

// denseWalk is the path of a comparison that reaches most totals (past maxBandBranches
// bands): alone, the list order walked with the total checked on a covering index; with
// a status, that status's ordered range walked with the total checked on the row, which
// most of them pass (the list order would pass over the other statuses' purchases too).
func denseWalk(f shop.PurchaseFilter) accessPath {
	if len(f.Statuses) == 1 {
		return pathStatus
	}
	return pathWalkTotal
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
// the account's purchases version it was read at (last column), and, in the same row, the probe of the own band's walk (walkProbeStatement, its
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
	version := sq.Expr("("+versionQuery+") AS version", f.AccountID)
	farthest, limited := farthestEdge(totalBand(f.Total), f.TotalOp == shop.TotalGt)
	if pageNeed(f) > bandWalkProbe {
		return sel.Column("NULL").Column(version).ToSql()
	}
	probe, args, err := walkProbeStatement(f)
	if err != nil {
		return "", nil, err
	}
	if !limited {
		return sel.Column(sq.Expr("("+probe+")", args...)).Column(version).ToSql()
	}
	return sel.Column(sq.Expr("CASE WHEN e.edge "+cmp+" ? THEN ("+probe+") END", append([]any{farthest}, args...)...)).Column(version).ToSql()
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
	inner := sq.Select("p.total").From("purchases p FORCE INDEX (" + bandIndex(f) + ")").
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
	var (
		probe sql.NullInt64
		read  bandEdge
	)
	if err := q.QueryRowContext(ctx, query, args...).Scan(&read.edge, &probe, &read.version); err != nil {
		return plan{}, translate(err)
	}
	bands := bandsBeyond(totalBand(f.Total), read.edge, f.TotalOp == shop.TotalGt)
	if len(bands) > maxBandBranches {
		return plan{path: denseWalk(f), edge: &read}, nil
	}
	var seen, matched int64
	if probe.Valid {
		seen, matched = probe.Int64/1000, probe.Int64%1000
	}
	if probe.Valid && walkBounded(seen, matched, pageNeed(f)) {
		return plan{path: pathTotalBands, bands: bands, edge: &read, probe: [2]int64{seen, matched}}, nil
	}
	pl, err := planSliver(ctx, q, f, bands)
	pl.edge, pl.probe = &read, [2]int64{seen, matched}
	return pl, err
}

// planSliver finishes the bands' plan when walking the own band is not known to be
// bounded: a count (sliverStatement) chooses between sorting its matches from the
// total's index, when they are few, and walking it.
func planSliver(ctx context.Context, q queryer, f shop.PurchaseFilter, bands []int) (plan, error) {
	query, args, err := sliverStatement(f)
	if err != nil {
		return plan{}, err
	}
	var many bool
	if err := q.QueryRowContext(ctx, query, args...).Scan(&many); err != nil {
		return plan{}, translate(err)
	}
	return plan{path: pathTotalBands, bands: bands, sortOwn: !many, counted: true}, nil
}

// edgeCacheSize is how many accounts' edges (each side) a process remembers.
const edgeCacheSize = 4096

// bandEdge is an account's edge band on one side of a comparison (its greatest band
// for "gt", its least for "lt"; NULL with no purchases), with the account's purchases
// version it was read at.
type bandEdge struct {
	edge    sql.NullInt64
	version int64
}

type edgeKey struct {
	account int64
	gt      bool
}

// bandEdges remembers the edges that the plans of an account's total comparisons
// read, so that the next page of any comparison on that side is planned without a
// statement (an optimistic plan: plan.optimistic). The page's statement reads the
// account's purchases version in the same snapshot as its rows: at the edge's version
// the purchases are those the edge was read from, and the edge is exact; at another,
// every committed write having moved the version (as the answer cache relies on,
// web/respcache.go), the edge is forgotten and the page read again on a fresh plan.
//
// It also remembers, for each comparison's side, own band, status and order, how the
// last optimistic page that read every band whole enough was made up (bandShare), so
// that the next one reads each band only about as far as that page needed it.
type bandEdges struct {
	c      *lru.Cache[edgeKey, bandEdge]
	shares *lru.Cache[shareKey, bandShare]
}

func newBandEdges() *bandEdges {
	c, err := lru.New[edgeKey, bandEdge](edgeCacheSize)
	if err != nil {
		panic(err) // only for a size below 1
	}
	shares, err := lru.New[shareKey, bandShare](edgeCacheSize)
	if err != nil {
		panic(err)
	}
	return &bandEdges{c: c, shares: shares}
}

// shareKey names the comparisons whose pages are made up alike: an account's, on one
// side of one own band, with one status or none, in one order.
type shareKey struct {
	account  int64
	gt, desc bool
	own      int
	status   shop.PurchaseStatus
}

func shareKeyOf(f shop.PurchaseFilter) shareKey {
	k := shareKey{account: f.AccountID, gt: f.TotalOp == shop.TotalGt, desc: f.Desc, own: totalBand(f.Total)}
	if len(f.Statuses) == 1 {
		k.status = f.Statuses[0]
	}
	return k
}

// bandShare is what the pages of a comparison read of each band: for the bands beyond
// the own band (bands), the rows of each among the last complete optimistic page's
// (counts, nil when not known), of the own band its matches there (own), and the rows
// that page had in all (rows); and the probe of the own band's walk by the last fresh
// plan (seen entries, matched of them).
type bandShare struct {
	bands         []int
	counts        []int
	own, rows     int
	seen, matched int64
}

// shareSlack is the rows beyond twice a band's share of the last page that the next
// page reads of it (bandShare.limits).
const shareSlack = 10

// minWalk is the shortest walk of the own band an optimistic page takes.
const minWalk = 32

// limits sets the read limits of an optimistic plan from the share, scaled from the
// last page's rows to this page's need (pages of 20 and of 100 share one estimate):
// each band beyond the own band read up to twice its share plus shareSlack, and the
// own band walked about as far as twice its share of matches plus shareSlack need at
// the density the probe found, when those are below the page's need and
// bandWalkProbe. A page read by number (OFFSET) reads every band whole: its rows
// before the page are not seen.
func (s bandShare) limits(f shop.PurchaseFilter, pl *plan) {
	if s.counts == nil || s.rows == 0 || pageOffset(f, perPage(f.PerPage)) > 0 {
		return
	}
	need := pageNeed(f)
	share := func(c int) int { return (2*c*need+s.rows-1)/s.rows + shareSlack } // twice c scaled, rounded up
	pl.limits = make([]int, len(pl.bands))
	for i, b := range pl.bands {
		j := slices.Index(s.bands, b)
		if j < 0 {
			continue
		}
		if l := share(s.counts[j]); l < need {
			pl.limits[i] = l
		}
	}
	if s.matched > 0 {
		w := int((int64(share(s.own))*s.seen + s.matched - 1) / s.matched)
		if w < bandWalkProbe {
			pl.walk = max(w, minWalk)
		}
	}
}

// plan plans a page of a total comparison alone (bandable): from the account's edge
// when remembered and the page needs at most bandWalkProbe matches, without a
// statement, each band read as far as the comparison's last pages needed (bandShare);
// else afresh.
func (e *bandEdges) plan(ctx context.Context, q queryer, f shop.PurchaseFilter) (plan, error) {
	if read, ok := e.c.Get(edgeKey{f.AccountID, f.TotalOp == shop.TotalGt}); ok && pageNeed(f) <= bandWalkProbe {
		pl := optimisticPlan(f, read)
		if s, ok := e.shares.Get(shareKeyOf(f)); ok && pl.optimistic {
			s.limits(f, &pl)
		}
		return pl, nil
	}
	return e.fresh(ctx, q, f)
}

// fresh plans a page of a total comparison alone with planBands, remembering the edge
// it reads and the probe of the own band's walk.
func (e *bandEdges) fresh(ctx context.Context, q queryer, f shop.PurchaseFilter) (plan, error) {
	pl, err := planBands(ctx, q, f)
	if err == nil && pl.edge != nil {
		e.c.Add(edgeKey{f.AccountID, f.TotalOp == shop.TotalGt}, *pl.edge)
	}
	if err == nil && pl.probe[0] > 0 {
		k := shareKeyOf(f)
		s, _ := e.shares.Get(k)
		s.seen, s.matched = pl.probe[0], pl.probe[1]
		e.shares.Add(k, s)
	}
	return pl, err
}

// read remembers what an optimistic page read of each band (marks, readDocumentPage):
// when complete and full (the list's last page, shorter, is no sample of the list), its
// rows of each band; when not complete, that they are not known, so that the next page
// reads every band whole again.
func (e *bandEdges) read(f shop.PurchaseFilter, pl plan, marks []int) {
	k := shareKeyOf(f)
	s, _ := e.shares.Get(k)
	if !pl.complete(marks) {
		s.bands, s.counts = nil, nil
		e.shares.Add(k, s)
		return
	}
	counts, rows := make([]int, len(pl.bands)), markCount(marks, 1)
	for i := range pl.bands {
		counts[i] = markCount(marks, 2+i)
		rows += counts[i]
	}
	if rows < pageNeed(f) {
		return
	}
	s.bands, s.counts, s.own, s.rows = pl.bands, counts, markCount(marks, 1), rows
	e.shares.Add(k, s)
}

// markCount is the number of an optimistic page's rows with mark m.
func markCount(marks []int, m int) int {
	if m < len(marks) {
		return marks[m]
	}
	return 0
}

// complete reports whether an optimistic page's rows (their marks counted) are the
// page: they do not reach the sentinel of the own band's walk, and hold fewer rows of
// each band read up to a limit than the limit. (A band's rows in the page are its
// first ones; with as many as its limit the band's next ones, not read, may belong to
// the page too.)
func (pl plan) complete(marks []int) bool {
	if markCount(marks, 0) > 0 {
		return false
	}
	for i, l := range pl.limits {
		if l > 0 && markCount(marks, 2+i) >= l {
			return false
		}
	}
	return true
}

// seen forgets the edge of a plan whose page was read at another purchases version
// than the edge: the account's purchases changed since.
func (e *bandEdges) seen(f shop.PurchaseFilter, pl plan, version int64) {
	if pl.edge != nil && pl.edge.version != version {
		e.c.Remove(edgeKey{f.AccountID, f.TotalOp == shop.TotalGt})
	}
}

// optimisticPlan is the plan of a page from a remembered edge: past maxBandBranches
// bands the list order's walk, else the bands' ranges with the own band walked up to
// bandWalkProbe entries, its last one also read as a sentinel that shows whether
// those were enough (bandsListQuery).
func optimisticPlan(f shop.PurchaseFilter, read bandEdge) plan {
	bands := bandsBeyond(totalBand(f.Total), read.edge, f.TotalOp == shop.TotalGt)
	if len(bands) > maxBandBranches {
		return plan{path: denseWalk(f), edge: &read}
	}
	return plan{path: pathTotalBands, bands: bands, optimistic: true, edge: &read}
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
// the comparison's side (up to the account's last) read as an ordered range up to the
// page's end, the own band's matches (sorted from the total's index, or walked in list
// order), all checked against the filter's conditions and merged in list order.
//
// On an optimistic plan the own band is walked up to bandWalkProbe entries only, the
// bands are those up to the remembered edge (bandEdges), and every row has a third
// column, m: 1 for a match, 0 for the sentinel, the walk's last entry. Every match of
// the own band up to the sentinel is among the walk's; a page whose rows reach the
// sentinel may lack those beyond it and is read again on a counted plan
// (findDocumentPage). No sentinel: the walk read the band's whole rest.
func bandsListQuery(f shop.PurchaseFilter, n int, pl plan) (string, []any, error) {
	limit := uint64(n + 1)
	offset := pageOffset(f, n)
	var (
		parts []string
		args  []any
	)
	ids := []string{"p.id AS id", "p.created_at AS created_at"}
	cols := ids
	if pl.optimistic {
		cols = append(slices.Clip(ids), "1 AS m")
	}
	// bandCols are the columns of the i-th band beyond the own band: on an optimistic
	// plan its mark is 2+i, so that the page knows how many of its rows each band gave.
	bandCols := func(i int) []string {
		if !pl.optimistic {
			return ids
		}
		return append(slices.Clip(ids), strconv.Itoa(2+i)+" AS m")
	}
	add := func(sel sq.SelectBuilder) error {
		query, a, err := sel.ToSql()
		parts, args = append(parts, "("+query+")"), append(args, a...)
		return err
	}
	// range_ reads one index range of the filter g (with the extra condition) in list
	// order after the cursor.
	range_ := func(g shop.PurchaseFilter, index string, extra sq.Sqlizer) sq.SelectBuilder {
		sel := sq.Select().From("purchases p FORCE INDEX (" + index + ")").Where(purchaseConditions(g)).Where(extra)
		if f.After != nil {
			sel = sel.Where(keysetCondition("p.created_at", "p.id", f.After, f.Desc))
		}
		return sel.OrderBy(orderBy("p.created_at", "p.id", f.Desc))
	}
	// The bands beyond the own band match wholly: their ranges leave the total alone.
	beyond := f
	beyond.Total = ""
	for i, b := range pl.bands {
		n := offset + limit
		if i < len(pl.limits) && pl.limits[i] > 0 {
			n = min(n, uint64(pl.limits[i]))
		}
		if err := add(range_(beyond, bandIndex(f), sq.Eq{"p.total_band": b}).Columns(bandCols(i)...).Limit(n)); err != nil {
			return "", nil, err
		}
	}
	own := sq.Eq{"p.total_band": totalBand(f.Total)}
	var err error
	switch {
	case pl.optimistic:
		walk, steps := range_(beyond, bandIndex(f), own), uint64(bandWalkProbe)
		if pl.walk > 0 {
			steps = uint64(pl.walk)
		}
		if err = add(sq.Select(cols...).FromSelect(walk.Columns("p.id", "p.created_at", "p.total").Limit(steps), "p").
			Where(sliverCondition(f)).OrderBy(orderBy("p.created_at", "p.id", f.Desc)).Limit(offset + limit)); err != nil {
			break
		}
		err = add(walk.Columns("p.id AS id", "p.created_at AS created_at", "0 AS m").Limit(1).Offset(steps - 1))
	case pl.sortOwn:
		err = add(range_(f, "purchases_account_total", sliverCondition(f)).Columns(cols...).Limit(offset + limit))
	default:
		err = add(range_(f, bandIndex(f), own).Columns(cols...).Limit(offset + limit))
	}
	if err != nil {
		return "", nil, err
	}
	out := "u.id, u.created_at"
	if pl.optimistic {
		out += ", u.m"
	}
	query := "SELECT " + out + " FROM (" + strings.Join(parts, " UNION ALL ") + ") u ORDER BY " +
		orderBy("u.created_at", "u.id", f.Desc) + " LIMIT " + strconv.FormatUint(limit, 10)
	if offset > 0 {
		query += " OFFSET " + strconv.FormatUint(offset, 10)
	}
	return query, args, nil
}
