package mysql

import (
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// accessPath is the index a page of purchases is read from. The application chooses
// it (choosePath) and forces it, instead of leaving the choice to MariaDB's estimate,
// which often picks the slower of two plans (db/README.md, "Plans").
type accessPath int

const (
	// pathList walks the account's purchases in list order, (account_id, created_at, id),
	// checking the other conditions on the way: cheap when the matches are dense.
	pathList accessPath = iota
	// pathIDs reads the purchases of an id list by primary key and sorts them.
	pathIDs
	// Ordered paths: equality conditions lead, the list order follows, so a page is the
	// next n entries of one range whatever the number of matches.
	pathCustomer
	pathSubscriber
	pathTotalEq
	pathProduct
	pathStatus
	pathStorefront
	pathShip
	// A short range: the matches of a total comparison read from the total's index and
	// sorted; chosen only when a capped count finds at most sortLimit.
	pathTotalRange
	// A walk of the list order on a covering index that holds the total: for a dense
	// total comparison.
	pathWalkTotal
	// The prefix paths (purchase_prefixes): ordered ranges of a prefix's first
	// characters (at most maxPrefixLen), for the e-mail, first-name and last-name
	// filters.
	pathPrefixEmail
	pathPrefixFirst
	pathPrefixLast
	// A total comparison alone (bands.go): the ordered ranges of the total bands on its
	// side, and the matches of the band that holds the compared total.
	pathTotalBands
	// One letter of the first name and one of the last name: the ordered range of
	// those initials together (purchase_prefixes, field 4), each entry checked on its
	// own prefix.
	pathPrefixInitials
	// A domain (a search's domain:): the ordered range of the domain's rows
	// (purchase_prefixes, field 5), each entry checked on its stored e-mail.
	pathPrefixDomain
	// A union (a search's OR, shop.PurchaseFilter.Any): each branch read on its own
	// path, merged in list order (unionListQuery).
	pathUnion
	// A mark (ship=1, or one status other than ACT) with a product, or with an e-mail
	// prefix: the ordered range of the purchases with that mark and that product, or
	// that prefix's first characters (purchase_pairs, pairs.go).
	pathMarkProduct
	pathMarkEmail
)

// plan is the access path of a filter's pages, with what the path needs to know of the
// data: for pathTotalBands, the bands on the comparison's side and whether
// the own band's matches are sorted from the total's index or walked in list order.
type plan struct {
	path    accessPath
	bands   []int
	sortOwn bool
	// counted tells that the bands' plan counted the own band's matches
	// (sliverStatement) after its first statement.
	counted bool
	// optimistic tells that the bands came from a remembered edge (bandEdges): the
	// page walks the own band up to bandWalkProbe entries and reads its last one as a
	// sentinel, and is read again on a fresh plan when its rows reach the sentinel or
	// its purchases version is not the edge's (findDocumentPage).
	optimistic bool
	// edge is the edge of the bands' plans as read or remembered, nil on other paths.
	edge *bandEdge
	// union holds the plan of each branch of a union (pathUnion), in order.
	union []plan
	// limits, on an optimistic plan, bounds the rows read of each of bands (0: up to
	// the page's end), and walk the own band's walk (0: bandWalkProbe entries), from
	// what the comparison's last pages read (bandShare); probe is the fresh plan's
	// probe of the own band's walk, its entries seen and matched.
	limits []int
	walk   int
	probe  [2]int64
}

// sortLimit is the most matches of a total comparison that are read and sorted rather
// than found by walking the list order: the cross-over measured in db/README.md.
const sortLimit = 6000

// pathIndexes names the index each path forces.
var pathIndexes = map[accessPath]string{
	pathList: "purchases_account_created_total",
	// An id list by primary key, its rows sorted: with hundreds of ids (a search's
	// ref: on 855 purchases) MariaDB would rather walk the list order checking each
	// entry's id, 171,726 entries for a page of 100.
	pathIDs:            "PRIMARY",
	pathCustomer:       "purchases_customer_created",
	pathSubscriber:     "purchases_subscriber_created",
	pathTotalEq:        "purchases_account_total",
	pathStatus:         "purchases_account_status_created",
	pathStorefront:     "purchases_storefront_created",
	pathShip:           "purchases_account_to_ship_created",
	pathTotalRange:     "purchases_account_total",
	pathProduct:        "PRIMARY", // of purchase_products
	pathWalkTotal:      "purchases_account_created_total",
	pathPrefixEmail:    "PRIMARY", // of purchase_prefixes
	pathPrefixFirst:    "PRIMARY",
	pathPrefixLast:     "PRIMARY",
	pathTotalBands:     "purchases_account_band_created",
	pathPrefixInitials: "PRIMARY",
	pathPrefixDomain:   "PRIMARY",
	pathMarkProduct:    "PRIMARY", // of purchase_pairs
	pathMarkEmail:      "PRIMARY",
}

// pathNames names every access path, in the order of their values: the paths are the
// values from 0 to len(pathNames)-1 (the statement shapes' enumeration, docs/SCALING.md,
// reads them from here).
var pathNames = [...]string{"list", "ids", "customer", "subscriber", "total=", "product", "status", "storefront", "ship",
	"total range", "walk (total)",
	"email prefix", "first-name prefix", "last-name prefix", "total bands", "initials prefix", "domain", "union",
	"product mark", "email mark"}

func (p accessPath) String() string { return pathNames[p] }

// prefixPaths maps each prefix field to its ordered path.
var prefixPaths = map[prefixField]accessPath{
	prefixEmail:  pathPrefixEmail,
	prefixFirst:  pathPrefixFirst,
	prefixLast:   pathPrefixLast,
	prefixDomain: pathPrefixDomain,
}

// rangePaths lists the filter's conditions whose matches may be read from an index of
// their own and sorted, each to be counted: a total comparison.
func rangePaths(f shop.PurchaseFilter) []accessPath {
	var out []accessPath
	if f.Total != "" && (f.TotalOp == shop.TotalGt || f.TotalOp == shop.TotalLt) {
		out = append(out, pathTotalRange)
	}
	return out
}

// choosePath is the plan rule. counts holds, for each of rangePaths(f), the number of
// matches of that condition alone, counted up to sortLimit+1.
//
//   - A customer, a subscriber or an exact total leads: their ranges are ordered and
//     (for people) short.
//   - Else a mark (ship=1, or one status other than ACT) with a product or an e-mail
//     prefix reads the pairs' range of the two together (purchase_pairs): each filter
//     alone would read its own path, and walking either passed over the purchases the
//     other leaves out (product_id=4&ship=1 passed over 30 of the product's purchases
//     a match, each a row read), where the pairs' range holds the matches alone. The
//     product leads the prefix, which is then probed.
//   - Else a total comparison matching at most sortLimit is read and sorted.
//   - Else the first ordered path the filter has, in this order: product, a prefix (the
//     initials of both names when the filter is one letter of each and no e-mail;
//     else the longest first; one longer than maxPrefixLen walks the range of its
//     first characters), a domain, one status, storefront, unshipped; the remaining
//     conditions filter as its range is walked. Two of these together walk the first
//     one's range and check the other on each entry: on the entry itself for a
//     storefront with a prefix, for a product with a prefix of productsHeld
//     characters or more (whose range then leads: productOnPrefix), and for the first
//     character of a prefix with a product (purchase_products' initials; a longer
//     prefix is then probed for the entries that pass); else by a primary-key probe
//     of its path for a product or a prefix, or on the purchase's row. ACT and
//     ship=0 have no pairs: most purchases have them, so their check rarely fails.
//   - Else the list order is walked: a dense total comparison is checked on the
//     entries of a covering index; with no condition left, the list is the path.
//
// A total comparison alone, or with one status, never reaches this rule: it reads the
// total bands (planBands).
func choosePath(f shop.PurchaseFilter, counts map[accessPath]int64) accessPath {
	if p, ok := leadPath(f); ok {
		return p
	}
	best, bestN := pathList, int64(0)
	for _, p := range rangePaths(f) {
		if n, ok := counts[p]; ok && n <= sortLimit && (best == pathList || n < bestN) {
			best, bestN = p, n
		}
	}
	if best != pathList {
		return best
	}
	if f.ProductID != 0 && !productOnPrefix(f) {
		return pathProduct
	}
	if pfs := prefixFilters(f); len(pfs) > 0 {
		if initialsOnly(f) {
			return pathPrefixInitials
		}
		return prefixPaths[pfs[0].field]
	}
	switch {
	case len(f.Statuses) == 1:
		return pathStatus
	case f.StorefrontID != 0:
		return pathStorefront
	case f.Unshipped != nil:
		return pathShip
	case f.Total != "":
		return pathWalkTotal
	}
	return pathList
}

// leadPath returns the path of the rule's first steps, which lead whatever the counts:
// an id list, a customer, a subscriber, an exact total, a mark with a product or an
// e-mail prefix.
func leadPath(f shop.PurchaseFilter) (accessPath, bool) {
	switch {
	case f.IDs != nil:
		return pathIDs, true
	case f.CustomerID != 0:
		return pathCustomer, true
	case f.SubscriberID != 0:
		return pathSubscriber, true
	case f.Total != "" && (f.TotalOp == shop.TotalEq || f.TotalOp == ""):
		return pathTotalEq, true
	}
	if _, ok := markOf(f); ok {
		switch {
		case f.ProductID != 0:
			return pathMarkProduct, true
		case f.EmailPrefix != "":
			return pathMarkEmail, true
		}
	}
	return 0, false
}

// productOnPrefix reports whether a filter's product is checked on the entries of its
// longest prefix's path (their products column) rather than read from the product's
// own path: when that prefix, of the e-mail or a name, has productsHeld characters or
// more. A page then walks about 100 ÷ (the product's share of the prefix's purchases)
// entries, where the product's path walked 100 ÷ (the prefix's share of the product's),
// far more for a prefix of a percent, each entry then probing the prefix's path.
func productOnPrefix(f shop.PurchaseFilter) bool {
	pfs := prefixFilters(f)
	return f.ProductID != 0 && len(pfs) > 0 && pfs[0].field != prefixDomain && utf8.RuneCountInString(pfs[0].text) >= productsHeld
}

// initialsOnly reports whether the filter's prefixes are one letter of the first name
// and one of the last name, without an e-mail prefix: those the initials' rows serve.
func initialsOnly(f shop.PurchaseFilter) bool {
	return f.EmailPrefix == "" && utf8.RuneCountInString(f.FirstPrefix) == 1 && utf8.RuneCountInString(f.LastPrefix) == 1
}

// needsCounts reports whether choosePath would read counts for f.
func needsCounts(f shop.PurchaseFilter) bool {
	_, lead := leadPath(f)
	return !lead && len(rangePaths(f)) > 0
}

// rangeCondition is the condition of a range path alone.
func rangeCondition(f shop.PurchaseFilter, p accessPath) sq.Sqlizer {
	switch p {
	case pathTotalRange:
		return totalCondition(f)
	}
	panic(fmt.Sprintf("rangeCondition: %v is not a range path", p))
}

// rangeCount builds the statement that counts the matches of a range path's condition
// alone, from its index, up to sortLimit+1.
func rangeCount(f shop.PurchaseFilter, p accessPath) (string, []any, error) {
	return countUpTo(sq.Select("1").From("purchases p FORCE INDEX ("+pathIndexes[p]+")").
		Where(sq.And{sq.Eq{"p.account_id": f.AccountID}, rangeCondition(f, p)}), sortLimit)
}

// planPurchases chooses the access path of the filter: for a total comparison alone,
// from the total bands (planBands); else by the rule, counting the matches of its
// range conditions from their indexes (at most sortLimit+1 entries each) when the rule
// needs them.
func planPurchases(ctx context.Context, q queryer, f shop.PurchaseFilter) (plan, error) {
	if len(f.Any) > 0 {
		return planUnion(ctx, q, f)
	}
	if bandable(f) {
		return planBands(ctx, q, f)
	}
	if !needsCounts(f) {
		return plan{path: choosePath(f, nil)}, nil
	}
	counts := map[accessPath]int64{}
	for _, p := range rangePaths(f) {
		query, args, err := rangeCount(f, p)
		if err != nil {
			return plan{}, err
		}
		var n int64
		if err := q.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
			return plan{}, translate(err)
		}
		counts[p] = n
		if n == 0 {
			break // nothing matches: any path answers an empty page at once
		}
	}
	return plan{path: choosePath(f, counts)}, nil
}

// planned is a SELECT on the plan's tables with its conditions, and the columns of the
// list order on the table it walks; probes tells that its rows are checked with
// correlated subqueries (EXISTS probes of a path table by primary key).
type planned struct {
	sel              sq.SelectBuilder
	createdAt, idCol string
	probes           bool
}

// planSelect builds the SELECT of cols for the filter on the path, without order,
// keyset or limit. On the product, prefix and mark paths the purchases are read from
// purchase_products, purchase_prefixes or purchase_pairs in its order, joined to purchases only when
// other conditions need their rows. On the total bands (whose pages merge several
// ranges) it reads the comparison's range of the total's index, in no order: what a
// count needs.
func planSelect(f shop.PurchaseFilter, path accessPath, cols ...string) planned {
	if path == pathTotalBands {
		path = pathTotalRange
	}
	switch path {
	case pathProduct:
		rest := f
		rest.ProductID = 0
		return leadSelect(f, rest, productPathTable, "pp",
			sq.And{sq.Eq{"pp.account_id": f.AccountID}, sq.Eq{"pp.product_id": f.ProductID}}, cols)
	case pathPrefixEmail, pathPrefixFirst, pathPrefixLast, pathPrefixDomain:
		rest := f
		var pp prefixPath
		switch path {
		case pathPrefixEmail:
			pp, rest.EmailPrefix = newPrefixPath(prefixEmail, f.EmailPrefix), ""
		case pathPrefixFirst:
			pp, rest.FirstPrefix = newPrefixPath(prefixFirst, f.FirstPrefix), ""
		case pathPrefixDomain:
			pp, rest.Domain = newPrefixPath(prefixDomain, f.Domain), ""
		default:
			pp, rest.LastPrefix = newPrefixPath(prefixLast, f.LastPrefix), ""
		}
		where := sq.And{
			sq.Eq{"x.account_id": f.AccountID}, sq.Eq{"x.field": int(pp.field)}, sq.Eq{"x.prefix_len": pp.length},
			sq.Eq{"x.prefix": pp.prefix}, pp.check("x"),
		}
		where, rest = prefixRowHeld(where, rest)
		if rest.ProductID != 0 && pp.field != prefixDomain && pp.length >= productsHeld { // held by the prefix row
			where, rest.ProductID = append(where, sq.Expr("FIND_IN_SET(?, x.products)", strconv.FormatInt(rest.ProductID, 10))), 0
		}
		return leadSelect(f, rest, "purchase_prefixes x", "x", where, cols)
	case pathMarkProduct, pathMarkEmail:
		return leadSelect(f, pairRest(f, path), "purchase_pairs pr", "pr", pairRange(f, path), cols)
	case pathPrefixInitials:
		// The row's prefix is the two names' first characters as they are: the
		// collation's equality finds a superset of the filters' matches (ß equals ss),
		// and LIKE, which compares character by character as each name's own LIKE
		// does on its first character, keeps exactly them, on the entry itself.
		rest := f
		rest.FirstPrefix, rest.LastPrefix = "", ""
		where := sq.And{
			sq.Eq{"x.account_id": f.AccountID}, sq.Eq{"x.field": int(prefixInitials)}, sq.Eq{"x.prefix_len": 2},
			sq.Eq{"x.prefix": f.FirstPrefix + f.LastPrefix}, sq.Expr("x.prefix LIKE ?", escapeLike(f.FirstPrefix)+escapeLike(f.LastPrefix)),
		}
		where, rest = prefixRowHeld(where, rest)
		return leadSelect(f, rest, "purchase_prefixes x", "x", where, cols)
	}
	from := "purchases p"
	if idx, ok := pathIndexes[path]; ok {
		from += " FORCE INDEX (" + idx + ")"
	}
	// purchaseConditions probes the product's path for a product.
	return planned{sq.Select(cols...).From(from).Where(purchaseConditions(f)), "p.created_at", "p.id", f.ProductID != 0}
}

// prefixRowHeld moves the conditions that a prefix row (alias x) holds beside its key,
// the storefront and the statuses, from the filter rest to the conditions where: each
// checked on the entry itself, not on the purchase's row, which the page then reads only
// when other conditions need it (a join per entry cost as much as the rest of the page).
func prefixRowHeld(where sq.And, rest shop.PurchaseFilter) (sq.And, shop.PurchaseFilter) {
	if rest.StorefrontID != 0 {
		where, rest.StorefrontID = append(where, sq.Eq{"x.storefront_id": rest.StorefrontID}), 0
	}
	if len(rest.Statuses) > 0 {
		where, rest.Statuses = append(where, statusCondition("x.status", rest.Statuses)), nil
	}
	return where, rest
}

// pairRange is the range of purchase_pairs (alias pr) that a pairs' path reads: the
// mark, the field, the product or 0, and the e-mail prefix's first characters with its
// own LIKE, or none.
func pairRange(f shop.PurchaseFilter, path accessPath) sq.And {
	mark, _ := markOf(f)
	field, product, pp := pairMarkProduct, f.ProductID, prefixPath{}
	if path == pathMarkEmail {
		field, product, pp = pairMarkEmail, 0, newPrefixPath(prefixEmail, f.EmailPrefix)
	}
	where := sq.And{sq.Eq{"pr.account_id": f.AccountID}, sq.Eq{"pr.mark": mark}, sq.Eq{"pr.field": field}, sq.Eq{"pr.product_id": product},
		sq.Eq{"pr.prefix_len": pp.length}, sq.Eq{"pr.prefix": pp.prefix}}
	if pp.like != "" {
		where = append(where, sq.Expr("pr.value LIKE ?", pp.like))
	}
	return where
}

// pairRest is the filter less the conditions a pairs' path reads.
func pairRest(f shop.PurchaseFilter, path accessPath) shop.PurchaseFilter {
	mark, _ := markOf(f)
	f = withoutMark(f, mark)
	if path == pathMarkProduct {
		f.ProductID = 0
	} else {
		f.EmailPrefix = ""
	}
	return f
}

// productPathTable is the product's path as planSelect reads it.
const productPathTable = "purchase_products pp"

// leadSelect reads the purchases from a path table (alias a, with created_at and
// purchase_id in list order after its equality columns) by its primary key: where
// holds the path's own conditions, the filter's dates become ranges of its created_at,
// the product and prefix conditions left in rest (the filter less the path's own) are
// primary-key probes of their path tables, and what remains is checked on the
// purchases' rows, joined in the path's order, only when it holds more than the account.
func leadSelect(f, rest shop.PurchaseFilter, table, a string, where sq.And, cols []string) planned {
	if f.CreatedFrom != nil {
		where = append(where, sq.Expr(a+".created_at >= ?", clampTime(*f.CreatedFrom)))
	}
	if f.CreatedBefore != nil {
		where = append(where, sq.Expr(a+".created_at < ?", clampTime(*f.CreatedBefore)))
	}
	rest.CreatedFrom, rest.CreatedBefore = nil, nil
	probes := false // set when a condition is a correlated probe
	same := a + ".account_id AND %[1]s.created_at = " + a + ".created_at AND %[1]s.purchase_id = " + a + ".purchase_id"
	if rest.ProductID != 0 {
		where = append(where, sq.Expr(fmt.Sprintf("EXISTS (SELECT 1 FROM purchase_products pp2 WHERE pp2.account_id = "+same+
			" AND pp2.product_id = ?)", "pp2"), rest.ProductID))
		rest.ProductID, probes = 0, true
	}
	for i, pf := range prefixFilters(rest) {
		pp := newPrefixPath(pf.field, pf.text)
		if col, ok := initialColumns[pf.field]; ok && table == productPathTable {
			// The product's path holds the first character beside each entry: checked
			// there, LIKE character by character as the prefix's own LIKE begins, and
			// the prefix's path probed only for the entries that pass, or not at all
			// for a prefix of one character.
			first := firstRunes(pf.text, 1)
			where = append(where, sq.Expr(a+"."+col+" LIKE ?", escapeLike(first)))
			if first == pf.text {
				continue
			}
		}
		y := fmt.Sprintf("y%d", i)
		where = append(where, sq.Expr(fmt.Sprintf("EXISTS (SELECT 1 FROM purchase_prefixes %[1]s WHERE %[1]s.account_id = "+same+
			" AND %[1]s.field = ? AND %[1]s.prefix_len = ? AND %[1]s.prefix = ? AND ?)", y),
			int(pp.field), pp.length, pp.prefix, pp.check(y)))
		probes = true
	}
	rest.EmailPrefix, rest.FirstPrefix, rest.LastPrefix, rest.Domain = "", "", "", ""
	others := purchaseConditions(rest)
	sel := sq.Select(cols...).From(table + " FORCE INDEX (PRIMARY)")
	if len(others) > 1 { // more than the account
		sel = sel.Options("STRAIGHT_JOIN").Join("purchases p ON p.account_id = " + a + ".account_id AND p.id = " + a + ".purchase_id")
		where = append(where, others...)
	}
	return planned{sel.Where(where), a + ".created_at", a + ".purchase_id", probes}
}

// purchaseListQuery builds the statement that selects the ids (and creation times) of
// one page of purchases on the plan's path: n+1 of them, so that the caller knows
// whether more follow, as columns id and created_at whatever table the path walks.
func purchaseListQuery(f shop.PurchaseFilter, n int, p plan) (string, []any, error) {
	if p.path == pathTotalBands {
		return bandsListQuery(f, n, p)
	}
	if p.path == pathUnion {
		return unionListQuery(f, n, p)
	}
	pl := planSelect(f, p.path)
	sel := pl.sel.Columns(pl.idCol+" AS id", pl.createdAt+" AS created_at")
	if f.After != nil {
		sel = sel.Where(keysetCondition(pl.createdAt, pl.idCol, f.After, f.Desc))
	}
	sel = sel.OrderBy(orderBy(pl.createdAt, pl.idCol, f.Desc)).Limit(uint64(n + 1))
	if f.Page > 1 {
		sel = sel.Offset(uint64(f.Page-1) * uint64(n))
	}
	return sel.ToSql()
}
