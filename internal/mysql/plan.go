package mysql

import (
	"context"
	"fmt"

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
	// pathIDs reads the purchases of an id list by primary key (the optimiser's choice).
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
	// Short ranges: the matches of a prefix (or a total comparison) read from their own
	// index and sorted; chosen only when a capped count finds at most sortLimit.
	pathEmail
	pathFirstName
	pathLastName
	pathTotalRange
	// Walks of the list order on covering indexes that hold the checked columns: for a
	// dense e-mail prefix, and for dense name prefixes or total comparisons.
	pathWalkEmail
	pathWalkNames
)

// sortLimit is the most matches of a range condition that are read and sorted rather
// than found by walking the list order: the cross-over measured in db/README.md.
const sortLimit = 6000

// pathIndexes names the index each path forces.
var pathIndexes = map[accessPath]string{
	pathList:       "purchases_account_created",
	pathCustomer:   "purchases_customer_created",
	pathSubscriber: "purchases_subscriber_created",
	pathTotalEq:    "purchases_account_total",
	pathStatus:     "purchases_account_status_created",
	pathStorefront: "purchases_storefront_created",
	pathShip:       "purchases_account_to_ship_created",
	pathEmail:      "purchases_account_email",
	pathFirstName:  "purchases_account_firstname",
	pathLastName:   "purchases_account_lastname",
	pathTotalRange: "purchases_account_total",
	pathProduct:    "PRIMARY", // of purchase_products
	pathWalkEmail:  "purchases_account_created_email",
	pathWalkNames:  "purchases_account_created_names",
}

func (p accessPath) String() string {
	return [...]string{"list", "ids", "customer", "subscriber", "total=", "product", "status", "storefront", "ship",
		"email prefix", "first-name prefix", "last-name prefix", "total range", "walk (e-mail)", "walk (names)"}[p]
}

// rangePaths lists the filter's conditions that are ranges of an index of their own:
// the candidates for reading and sorting a short range, each to be counted.
func rangePaths(f shop.PurchaseFilter) []accessPath {
	var out []accessPath
	if f.EmailPrefix != "" {
		out = append(out, pathEmail)
	}
	if f.FirstPrefix != "" {
		out = append(out, pathFirstName)
	}
	if f.LastPrefix != "" {
		out = append(out, pathLastName)
	}
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
//   - Else the shortest range of at most sortLimit matches is read and sorted.
//   - Else the most selective ordered path of the others leads: product, one status,
//     storefront, unshipped; the remaining conditions filter as the range is walked.
//   - Else the list order is walked: every remaining condition matches densely (more
//     than sortLimit matches), so a page is found after a bounded walk. A prefix or total
//     condition is checked on the entries of a covering index in list order.
func choosePath(f shop.PurchaseFilter, counts map[accessPath]int64) accessPath {
	switch {
	case f.IDs != nil:
		return pathIDs
	case f.CustomerID != 0:
		return pathCustomer
	case f.SubscriberID != 0:
		return pathSubscriber
	case f.Total != "" && (f.TotalOp == shop.TotalEq || f.TotalOp == ""):
		return pathTotalEq
	}
	best, bestN := pathList, int64(sortLimit)+1
	for _, p := range rangePaths(f) {
		if n, ok := counts[p]; ok && n < bestN {
			best, bestN = p, n
		}
	}
	if best != pathList {
		return best
	}
	switch {
	case f.ProductID != 0:
		return pathProduct
	case len(f.Statuses) == 1:
		return pathStatus
	case f.StorefrontID != 0:
		return pathStorefront
	case f.Unshipped != nil:
		return pathShip
	case f.EmailPrefix != "":
		return pathWalkEmail
	case f.FirstPrefix != "" || f.LastPrefix != "" || f.Total != "":
		return pathWalkNames
	}
	return pathList
}

// needsCounts reports whether choosePath would read counts for f.
func needsCounts(f shop.PurchaseFilter) bool {
	return f.IDs == nil && f.CustomerID == 0 && f.SubscriberID == 0 &&
		!(f.Total != "" && (f.TotalOp == shop.TotalEq || f.TotalOp == "")) && len(rangePaths(f)) > 0
}

// rangeCondition is the condition of a range path alone.
func rangeCondition(f shop.PurchaseFilter, p accessPath) sq.Sqlizer {
	switch p {
	case pathEmail:
		return sq.Expr("p.buyer_email LIKE ?", escapeLike(f.EmailPrefix)+"%")
	case pathFirstName:
		return sq.Expr("p.buyer_firstname LIKE ?", escapeLike(f.FirstPrefix)+"%")
	case pathLastName:
		return sq.Expr("p.buyer_lastname LIKE ?", escapeLike(f.LastPrefix)+"%")
	case pathTotalRange:
		return totalCondition(f)
	}
	panic(fmt.Sprintf("rangeCondition: %v is not a range path", p))
}

// rangeCount builds the statement that counts the matches of a range path's condition
// alone, from its index, up to sortLimit+1.
func rangeCount(f shop.PurchaseFilter, p accessPath) (string, []any, error) {
	inner, args, err := sq.Select("1").From("purchases p FORCE INDEX (" + pathIndexes[p] + ")").
		Where(sq.And{sq.Eq{"p.account_id": f.AccountID}, rangeCondition(f, p)}).
		Limit(sortLimit + 1).ToSql()
	return "SELECT COUNT(*) FROM (" + inner + ") t", args, err
}

// planPurchases chooses the access path of the filter, counting the matches of its
// range conditions from their indexes (at most sortLimit+1 entries each) when the
// rule needs them.
func planPurchases(ctx context.Context, q queryer, f shop.PurchaseFilter) (accessPath, error) {
	if !needsCounts(f) {
		return choosePath(f, nil), nil
	}
	counts := map[accessPath]int64{}
	for _, p := range rangePaths(f) {
		query, args, err := rangeCount(f, p)
		if err != nil {
			return 0, err
		}
		var n int64
		if err := q.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
			return 0, translate(err)
		}
		counts[p] = n
		if n == 0 {
			break // nothing matches: any path answers an empty page at once
		}
	}
	return choosePath(f, counts), nil
}

// planned is a SELECT on the plan's tables with its conditions, and the columns of the
// list order on the table it walks.
type planned struct {
	sel              sq.SelectBuilder
	createdAt, idCol string
}

// planSelect builds the SELECT of cols for the filter on the path, without order,
// keyset or limit. On the product path the purchases are read from purchase_products
// in its order, joined to purchases only when other conditions need their rows.
func planSelect(f shop.PurchaseFilter, path accessPath, cols ...string) planned {
	if path == pathProduct {
		where := sq.And{sq.Eq{"pp.account_id": f.AccountID}, sq.Eq{"pp.product_id": f.ProductID}}
		if f.CreatedFrom != nil {
			where = append(where, sq.Expr("pp.created_at >= ?", clampTime(*f.CreatedFrom)))
		}
		if f.CreatedBefore != nil {
			where = append(where, sq.Expr("pp.created_at < ?", clampTime(*f.CreatedBefore)))
		}
		rest := f
		rest.ProductID, rest.CreatedFrom, rest.CreatedBefore = 0, nil, nil
		others := purchaseConditions(rest)
		sel := sq.Select(cols...).From("purchase_products pp FORCE INDEX (PRIMARY)")
		if len(others) > 1 { // more than the account
			sel = sel.Options("STRAIGHT_JOIN").Join("purchases p ON p.account_id = pp.account_id AND p.id = pp.purchase_id")
			where = append(where, others...)
		}
		return planned{sel.Where(where), "pp.created_at", "pp.purchase_id"}
	}
	from := "purchases p"
	if idx, ok := pathIndexes[path]; ok {
		from += " FORCE INDEX (" + idx + ")"
	}
	return planned{sq.Select(cols...).From(from).Where(purchaseConditions(f)), "p.created_at", "p.id"}
}

// purchaseListQuery builds the statement that selects the ids (and creation times) of
// one page of purchases on the path: n+1 of them, so that the caller knows whether
// more follow.
func purchaseListQuery(f shop.PurchaseFilter, n int, path accessPath) (string, []any, error) {
	pl := planSelect(f, path)
	sel := pl.sel.Columns(pl.idCol, pl.createdAt)
	if f.After != nil {
		sel = sel.Where(keysetCondition(pl.createdAt, pl.idCol, f.After, f.Desc))
	}
	sel = sel.OrderBy(orderBy(pl.createdAt, pl.idCol, f.Desc)).Limit(uint64(n + 1))
	if f.Page > 1 {
		sel = sel.Offset(uint64(f.Page-1) * uint64(n))
	}
	return sel.ToSql()
}
