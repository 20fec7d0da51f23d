package mysql

import (
	"context"
	"database/sql"
	"slices"

	"storefront/internal/shop"
)

// This file answers the search's ref: and key: (docs/SEARCH.md#references-and-keys):
// the purchases whose payment reference, or product key, is a given text. The planner
// has ordered paths for ids and none for the rows behind a purchase, so the texts are
// looked up first (one range of an index each, migration 00230) and the conditions
// become conditions on ids.

// maxNamed is the most purchases that one text of ref: or key: may name: a processor's
// reference or a product key names one purchase, or a few that share it.
var maxNamed = 1000

// FindPurchasesNamed implements shop.PurchaseService.
func (s *PurchaseService) FindPurchasesNamed(ctx context.Context, accountID int64, by shop.NamedBy, value string, limit int) ([]shop.NamedPurchase, error) {
	return purchasesNamed(ctx, s.db.DB, accountID, by, value, limit)
}

// purchasesNamed reads one range of transactions_account_reference or
// product_keys_account_key. The equality with a mark after both sides makes trailing
// blanks count, as the search's meaning (search.EqualFold) has it.
func purchasesNamed(ctx context.Context, q queryer, accountID int64, by shop.NamedBy, value string, limit int) ([]shop.NamedPurchase, error) {
	query := `SELECT t.purchase_id, MIN(t.reference) FROM transactions t
		WHERE t.account_id = ? AND t.reference = ? AND CONCAT(t.reference, '.') = CONCAT(?, '.')
		GROUP BY t.purchase_id ORDER BY t.purchase_id LIMIT ?`
	if by == shop.NamedByProductKey {
		query = `SELECT k.purchase_id, MIN(k.key_value) FROM product_keys k
		WHERE k.account_id = ? AND k.key_value = ? AND CONCAT(k.key_value, '.') = CONCAT(?, '.')
		GROUP BY k.purchase_id ORDER BY k.purchase_id LIMIT ?`
	}
	return collectRows(ctx, q, query, []any{accountID, value, value, limit}, func(rows *sql.Rows) (shop.NamedPurchase, error) {
		var n shop.NamedPurchase
		err := rows.Scan(&n.ID, &n.Text)
		return n, err
	})
}

// lookUpNamed returns the filter with its ref: and key: conditions (shop.CondRef,
// shop.CondKey) looked up (namedAsIDs). A filter without such conditions is returned
// as it is, with no statement sent.
func lookUpNamed(ctx context.Context, q queryer, f shop.PurchaseFilter) (shop.PurchaseFilter, error) {
	if !hasNamed(f) {
		return f, nil
	}
	memo := map[namedText][]int64{}
	return namedAsIDs(f, func(c shop.Cond) ([]int64, error) { return namedIDs(ctx, q, f.AccountID, c, memo) })
}

// namedAsIDs returns the filter with its ref: and key: conditions, in Where and in
// each branch of Any, made conditions on the ids of the purchases they name (ids):
// the first that holds (not negated) of a filter without ids becomes its ids, the ids
// path; every other a condition on ids, negated as it was. No purchase named makes the
// id 0: the condition holds for none, its negation for all.
func namedAsIDs(f shop.PurchaseFilter, ids func(shop.Cond) ([]int64, error)) (shop.PurchaseFilter, error) {
	var err error
	look := func(b shop.PurchaseFilter) shop.PurchaseFilter {
		where := make([]shop.Cond, 0, len(b.Where))
		for _, c := range b.Where {
			if err != nil || (c.Field != shop.CondRef && c.Field != shop.CondKey) {
				where = append(where, c)
				continue
			}
			var found []int64
			if found, err = ids(c); err != nil {
				break
			}
			if len(found) == 0 {
				// Id 0, which no purchase has (ids start at 1): the statement keeps the
				// shape of an id's, routed by the account under Vitess, where a literal
				// FALSE beside the account leaves the planner nothing to route by.
				found = []int64{0}
			}
			if !c.Not && b.IDs == nil {
				b.IDs = found
				continue
			}
			where = append(where, shop.Cond{Field: shop.CondID, Not: c.Not, IDs: idPoints(found)})
		}
		b.Where = where
		return b
	}
	f = look(f)
	if len(f.Any) > 0 {
		f.Any = slices.Clone(f.Any)
		for i := range f.Any {
			f.Any[i] = look(f.Any[i])
		}
	}
	return f, err
}

func hasNamed(f shop.PurchaseFilter) bool {
	named := func(c shop.Cond) bool { return c.Field == shop.CondRef || c.Field == shop.CondKey }
	return slices.ContainsFunc(f.Where, named) ||
		slices.ContainsFunc(f.Any, func(b shop.PurchaseFilter) bool { return slices.ContainsFunc(b.Where, named) })
}

// namedText is one text looked up, for the memo of one filter's lookups.
type namedText struct {
	by   shop.NamedBy
	text string
}

// namedIDs returns the purchases any text of c names, in id order (non-nil: an empty
// set of ids is a condition too). More than maxNamed for one text is an EInvalid error
// of the search.
func namedIDs(ctx context.Context, q queryer, accountID int64, c shop.Cond, memo map[namedText][]int64) ([]int64, error) {
	by := shop.NamedByReference
	if c.Field == shop.CondKey {
		by = shop.NamedByProductKey
	}
	out := []int64{}
	for _, t := range c.Texts {
		ids, ok := memo[namedText{by, t}]
		if !ok {
			found, err := purchasesNamed(ctx, q, accountID, by, t, maxNamed+1)
			if err != nil {
				return nil, err
			}
			for _, n := range found {
				ids = append(ids, n.ID)
			}
			memo[namedText{by, t}] = ids
		}
		if len(ids) > maxNamed {
			return nil, shop.ParamErrorf(shop.EInvalid, "q", "The %s %q is on more than %d purchases: search them by another field, such as product.", by, t, maxNamed)
		}
		out = append(out, ids...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// idPoints makes ids "any of" ranges of one id each.
func idPoints(ids []int64) []shop.IDRange {
	out := make([]shop.IDRange, len(ids))
	for i, id := range ids {
		out[i] = shop.IDRange{Min: id, Max: id}
	}
	return out
}
