package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// This file adds a search's conditions (shop.Cond, docs/SEARCH.md) to the lists: the
// residual checks a conjunction's filter fields cannot express, checked on the
// purchase's (the subscriber's) row of the conjunction's path, and the unions of
// several conjunctions (shop.PurchaseFilter.Any), each run on its own path and merged
// in list order.

// negatable is a condition's SQL as its complement when not is set: NULL (a missing
// value) makes the condition false, so its negation true.
func negatable(not bool, c sq.Sqlizer) sq.Sqlizer {
	if !not {
		return c
	}
	query, args, err := c.ToSql()
	if err != nil {
		return errSqlizer{err}
	}
	return sq.Expr("NOT COALESCE(("+query+"), FALSE)", args...)
}

// errSqlizer carries an error of a condition to the statement that holds it.
type errSqlizer struct{ err error }

func (e errSqlizer) ToSql() (string, []any, error) { return "", nil, e.err }

// never is a condition that holds for no row: an empty set of values.
var never = sq.Expr("FALSE")

// in is col IN (values), never when there are none (squirrel writes an empty IN as
// "(1=0)", which would be right too, but says nothing).
func in[T any](col string, values []T) sq.Sqlizer {
	if len(values) == 0 {
		return never
	}
	return sq.Eq{col: values}
}

// anyOf is the OR of the conditions, never when there are none.
func anyOf(cs []sq.Sqlizer) sq.Sqlizer {
	if len(cs) == 0 {
		return never
	}
	return sq.Or(cs)
}

func idRanges(col string, rs []shop.IDRange) sq.Sqlizer {
	var cs []sq.Sqlizer
	for _, r := range rs {
		if r.Min > r.Max {
			continue
		}
		if r.Min == r.Max {
			cs = append(cs, sq.Expr(col+" = ?", r.Min))
		} else {
			cs = append(cs, sq.Expr(col+" BETWEEN ? AND ?", r.Min, r.Max))
		}
	}
	return anyOf(cs)
}

func prefixes(col string, texts []string) sq.Sqlizer {
	var cs []sq.Sqlizer
	for _, t := range texts {
		cs = append(cs, sq.Expr(col+" LIKE ?", escapeLike(t)+"%"))
	}
	return anyOf(cs)
}

func timeRanges(col string, rs []shop.TimeRange) sq.Sqlizer {
	var cs []sq.Sqlizer
	for _, r := range rs {
		c := sq.And{sq.Expr(col + " IS NOT NULL")}
		if r.From != nil {
			c = append(c, sq.Expr(col+" >= ?", clampTime(*r.From)))
		}
		if r.To != nil {
			c = append(c, sq.Expr(col+" < ?", clampTime(*r.To)))
		}
		cs = append(cs, c)
	}
	return anyOf(cs)
}

// The purchase columns of the conditions that are a column's ids or a column's
// prefixes.
var (
	purchaseIDColumns = map[shop.CondField]string{
		shop.CondStorefront: "p.storefront_id", shop.CondCustomer: "p.customer_id", shop.CondSubscriber: "p.subscriber_id",
	}
	purchaseTextColumns = map[shop.CondField]string{
		shop.CondEmail: "p.buyer_email", shop.CondFirst: "p.buyer_firstname", shop.CondLast: "p.buyer_lastname",
	}
)

// purchaseCondition is the SQL of one search condition on purchases p. Every
// subquery names the account (the tenant rule).
func purchaseCondition(accountID int64, c shop.Cond) sq.Sqlizer {
	var s sq.Sqlizer
	switch c.Field {
	case shop.CondText:
		s = sq.Or{prefixes("p.buyer_email", c.Texts), prefixes("p.buyer_firstname", c.Texts),
			prefixes("p.buyer_lastname", c.Texts)}
		if len(c.IDs) > 0 {
			s = append(s.(sq.Or), idRanges("p.id", c.IDs))
		}
	case shop.CondID:
		s = idRanges("p.id", c.IDs)
	case shop.CondStatus:
		s = in("p.status", c.Statuses)
	case shop.CondProduct:
		// The purchases of the products, from the product's path, the account named as
		// a value: a correlated EXISTS in the page's derived table is a shape Vitess's
		// planner cannot merge into the page (it would need a hash join).
		var ids []any
		for _, r := range c.IDs {
			ids = append(ids, r.Min)
		}
		if len(ids) == 0 {
			s = never
			break
		}
		s = sq.Expr("p.id IN (SELECT ppq.purchase_id FROM purchase_products ppq WHERE ppq.account_id = ? "+
			"AND ppq.product_id IN ("+sq.Placeholders(len(ids))+"))", append([]any{accountID}, ids...)...)
	case shop.CondStorefront, shop.CondCustomer, shop.CondSubscriber:
		s = idRanges(purchaseIDColumns[c.Field], c.IDs)
	case shop.CondEmail, shop.CondFirst, shop.CondLast:
		s = prefixes(purchaseTextColumns[c.Field], c.Texts)
	case shop.CondName:
		s = sq.Or{prefixes("p.buyer_firstname", c.Texts), prefixes("p.buyer_lastname", c.Texts)}
	case shop.CondDomain:
		// Ends with "@" and the domain, character by character under the collation: a
		// domain holds no "@", so that "@" is the e-mail's last.
		var cs []sq.Sqlizer
		for _, t := range c.Texts {
			cs = append(cs, sq.Expr("p.buyer_email LIKE ?", "%@"+escapeLike(t)))
		}
		s = anyOf(cs)
	case shop.CondCurrency:
		s = in("p.currency", c.Texts)
	case shop.CondTotal:
		var cs []sq.Sqlizer
		for _, r := range c.Money {
			and := sq.And{}
			if r.Min != "" {
				op := ">"
				if r.MinIncl {
					op = ">="
				}
				and = append(and, sq.Expr("p.total "+op+" CAST(? AS DECIMAL(65,30))", r.Min))
			}
			if r.Max != "" {
				op := "<"
				if r.MaxIncl {
					op = "<="
				}
				and = append(and, sq.Expr("p.total "+op+" CAST(? AS DECIMAL(65,30))", r.Max))
			}
			if len(and) == 0 {
				and = append(and, sq.Expr("TRUE"))
			}
			cs = append(cs, and)
		}
		s = anyOf(cs)
	case shop.CondCreated:
		s = timeRanges("p.created_at", c.Times)
	case shop.CondShip:
		s = sq.Eq{"p.to_ship": c.Ship}
	default:
		return errSqlizer{fmt.Errorf("mysql: no purchase search field %q", c.Field)}
	}
	return negatable(c.Not, s)
}

// subscriberCondition is the SQL of one search condition on subscribers sb, joined
// with their subscriptions ss (LEFT JOIN: NULL without one). The service term's dates
// are those the overview keeps (subscriber_terms: shop.ServiceTerm), probed by the
// subscriber's key; a subscriber without a term has no row there.
func subscriberCondition(c shop.Cond) sq.Sqlizer {
	var s sq.Sqlizer
	term := func(cond sq.Sqlizer) sq.Sqlizer {
		query, args, err := cond.ToSql()
		if err != nil {
			return errSqlizer{err}
		}
		return sq.Expr("EXISTS (SELECT 1 FROM subscriber_terms stq WHERE stq.account_id = sb.account_id "+
			"AND stq.subscriber_id = sb.id AND ("+query+"))", args...)
	}
	switch c.Field {
	case shop.CondText:
		s = sq.Or{prefixes("sb.username", c.Texts), idRanges("sb.id", c.IDs)}
	case shop.CondID:
		s = idRanges("sb.id", c.IDs)
	case shop.CondStatus:
		s = in("ss.status", c.Statuses)
	case shop.CondEmail:
		s = prefixes("sb.username", c.Texts)
	case shop.CondUsername:
		var cs []sq.Sqlizer
		for _, t := range c.Texts {
			// As the username filter: "=" under the collation, and trailing blanks count.
			cs = append(cs, sq.And{sq.Eq{"sb.username": t}, sq.Expr("CONCAT(sb.username, '.') = CONCAT(?, '.')", t)})
		}
		s = anyOf(cs)
	case shop.CondStarted:
		s = term(timeRanges("stq.start_at", c.Times))
	case shop.CondEnded:
		s = term(timeRanges("stq.end_at", c.Times))
	case shop.CondActive:
		// The term [start, end) meets the value [From, To).
		var cs []sq.Sqlizer
		for _, r := range c.Times {
			and := sq.And{sq.Expr("TRUE")}
			if r.To != nil {
				and = append(and, sq.Expr("stq.start_at < ?", clampTime(*r.To)))
			}
			if r.From != nil {
				and = append(and, sq.Expr("(stq.end_at IS NULL OR stq.end_at > ?)", clampTime(*r.From)))
			}
			cs = append(cs, and)
		}
		s = term(anyOf(cs))
	default:
		return errSqlizer{fmt.Errorf("mysql: no subscriber search field %q", c.Field)}
	}
	return negatable(c.Not, s)
}

// searchConditions is the SQL of a filter's search conditions (Where).
func searchConditions(where []shop.Cond, cond func(shop.Cond) sq.Sqlizer) sq.And {
	var out sq.And
	for _, c := range where {
		out = append(out, cond(c))
	}
	return out
}

// branch is one conjunction of a union, as its own filter with the union's order and
// paging: its n+1 rows after the cursor are read on its own path.
func branch(f, b shop.PurchaseFilter, need int) shop.PurchaseFilter {
	b.AccountID, b.Any = f.AccountID, nil
	b.Desc, b.After, b.Page, b.IncludeCount = f.Desc, f.After, 0, false
	b.PerPage = need - 1
	return b
}

// unionIDs reads the rows of a union's page (f.Any): each branch's first rows after the
// cursor on its own planned path, as many as the page and those before it (offset
// paging) need, merged in list order without repeating a purchase that several
// branches hold; then the page's n+1 of them.
func unionIDs(ctx context.Context, q queryer, f shop.PurchaseFilter, n int) ([]shop.Cursor, error) {
	skip := int(pageOffset(f, n))
	need := skip + n + 1
	var all []shop.Cursor
	for _, b := range f.Any {
		bf := branch(f, b, need)
		pl, err := planPurchases(ctx, q, bf)
		if err != nil {
			return nil, err
		}
		query, args, err := purchaseListQuery(bf, need-1, pl)
		if err != nil {
			return nil, err
		}
		err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
			var c shop.Cursor
			if err := rows.Scan(&c.ID, &c.CreatedAt); err != nil {
				return err
			}
			all = append(all, c)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(all, func(a, b shop.Cursor) int {
		switch {
		case a.ID == b.ID:
			return 0
		case before(a, b, f.Desc):
			return -1
		}
		return 1
	})
	all = slices.CompactFunc(all, func(a, b shop.Cursor) bool { return a.ID == b.ID })
	if skip >= len(all) {
		return nil, nil
	}
	return all[skip:min(len(all), need)], nil
}

// unionCondition is the union's condition on purchases p: any branch's.
func unionCondition(f shop.PurchaseFilter) sq.Sqlizer {
	var or sq.Or
	for _, b := range f.Any {
		b.AccountID = f.AccountID
		or = append(or, purchaseConditions(b))
	}
	return sq.And{sq.Eq{"p.account_id": f.AccountID}, or}
}

// unionCountQuery builds the statement that counts a union's purchases (each once), up
// to limit+1 when limit > 0.
func unionCountQuery(f shop.PurchaseFilter, limit int64) (string, []any, error) {
	if limit > 0 {
		return countUpTo(sq.Select("1").From("purchases p").Where(unionCondition(f)), limit)
	}
	return sq.Select("COUNT(DISTINCT p.id)").From("purchases p").Where(unionCondition(f)).ToSql()
}

// unionCount counts a union's purchases (each once), up to limit+1 when limit > 0.
func unionCount(ctx context.Context, q queryer, f shop.PurchaseFilter, limit int64) (int64, error) {
	query, args, err := unionCountQuery(f, limit)
	if err != nil {
		return 0, err
	}
	var total int64
	if err := q.QueryRowContext(ctx, query, args...).Scan(&total); err != nil {
		return 0, translate(err)
	}
	return total, nil
}

// idsFilter is the filter of a union page's purchases by their ids, read by primary
// key in list order.
func idsFilter(f shop.PurchaseFilter, cs []shop.Cursor, n int) shop.PurchaseFilter {
	ids := make([]int64, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return shop.PurchaseFilter{AccountID: f.AccountID, IDs: ids, Desc: f.Desc, PerPage: n}
}

// findUnionDocumentPage reads a union's page of documents: its ids (unionIDs), then
// their documents by primary key, all in one read-only transaction so that the
// version, the count and the page are one snapshot.
func findUnionDocumentPage(ctx context.Context, db *sql.DB, f shop.PurchaseFilter, buf []byte) (*shop.DocumentPage, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, translate(err)
	}
	defer tx.Rollback()
	n := perPage(f.PerPage)
	cs, err := unionIDs(ctx, tx, f, n)
	if err != nil {
		return nil, err
	}
	page, _, err := readDocumentPage(ctx, tx, idsFilter(f, cs, n), plan{path: pathIDs}, buf)
	if err != nil {
		return nil, err
	}
	if f.IncludeCount {
		if page.Total, err = unionCount(ctx, tx, f, 0); err != nil {
			return nil, err
		}
	}
	return page, tx.Commit()
}

// exportUnion calls fn with every purchase of a union, a batch of n at a time, in list
// order, as its pages hold them.
func exportUnion(ctx context.Context, q queryer, f shop.PurchaseFilter, n int, lines shop.ExportLines, fn func([]*shop.Purchase) error) error {
	f.Page, f.After = 0, nil
	for {
		cs, err := unionIDs(ctx, q, f, n)
		if err != nil {
			return err
		}
		more := len(cs) > n
		cs = cs[:min(len(cs), n)]
		if len(cs) > 0 {
			ps, err := exportRows(ctx, q, f.AccountID, idsFilter(f, cs, n).IDs, lines)
			if err != nil {
				return err
			}
			if err := fn(ps); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		last := cs[len(cs)-1]
		f.After = &last
	}
}
