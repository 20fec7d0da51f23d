package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// This file adds a search's conditions (shop.Cond, docs/SEARCH.md) to the lists: the
// residual checks a conjunction's filter fields cannot express, checked on the
// purchase's (the subscriber's) row of the conjunction's path, and the unions of
// several conjunctions (shop.PurchaseFilter.Any), each run on its own path and merged
// in list order in one statement.

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
		// The text after the e-mail's last "@" is the domain, character by character
		// under the collation (domainCondition, as the domain's path checks it).
		var cs []sq.Sqlizer
		for _, t := range c.Texts {
			cs = append(cs, domainCondition("p.buyer_email", t))
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
// paging: its first need rows after the cursor are read on its own path.
func branch(f, b shop.PurchaseFilter, need int) shop.PurchaseFilter {
	b.AccountID, b.Any = f.AccountID, nil
	b.Desc, b.After, b.Page, b.IncludeCount = f.Desc, f.After, 0, false
	b.PerPage = need - 1
	return b
}

// planUnion plans a union (f.Any): each branch on its own path (planPurchases), as the
// union's page reads it (unionListQuery).
func planUnion(ctx context.Context, q queryer, f shop.PurchaseFilter) (plan, error) {
	pl := plan{path: pathUnion}
	for _, b := range f.Any {
		bp, err := planPurchases(ctx, q, branch(f, b, pageNeed(f)))
		if err != nil {
			return plan{}, err
		}
		pl.union = append(pl.union, bp)
	}
	return pl, nil
}

// unionListQuery builds the ids statement of a union's page (f.Any, planned by
// planUnion): each branch's first rows after the cursor on its own path, as many as
// the page and those before it (offset paging) need, merged in list order by UNION,
// which keeps once a purchase that several branches hold; then the page's n+1 of them.
// A page reads at most that many entries of each branch's path, first page and deep
// cursor alike; a page by number reads those before it too, as OFFSET does on one
// path.
func unionListQuery(f shop.PurchaseFilter, n int, pl plan) (string, []any, error) {
	skip := pageOffset(f, n)
	need := int(skip) + n + 1
	var (
		parts []string
		args  []any
	)
	for i, b := range f.Any {
		query, a, err := purchaseListQuery(branch(f, b, need), need-1, pl.union[i])
		if err != nil {
			return "", nil, err
		}
		parts, args = append(parts, "("+query+")"), append(args, a...)
	}
	query := "SELECT u.id, u.created_at FROM (" + strings.Join(parts, " UNION ") + ") u ORDER BY " +
		orderBy("u.created_at", "u.id", f.Desc) + " LIMIT " + strconv.Itoa(n+1)
	if skip > 0 {
		query += " OFFSET " + strconv.FormatUint(skip, 10)
	}
	return query, args, nil
}

// countQuery builds the statement that counts the filter's purchases on its plan, up
// to limit+1 of them when limit > 0. A union counts the ids its branches' paths hold,
// each once (UNION), each branch read up to limit+1 entries: when one holds more, so
// does the union.
func countQuery(f shop.PurchaseFilter, pl plan, limit int64) (string, []any, error) {
	capped := func(sel sq.SelectBuilder) sq.SelectBuilder {
		if limit > 0 {
			return sel.Limit(uint64(limit + 1))
		}
		return sel
	}
	if pl.path != pathUnion {
		if limit <= 0 {
			return planSelect(f, pl.path, "COUNT(*)").sel.ToSql()
		}
		return countUpTo(planSelect(f, pl.path, "1").sel, limit)
	}
	var (
		parts []string
		args  []any
	)
	for i, b := range f.Any {
		bf := branch(f, b, 1)
		bp := planSelect(bf, pl.union[i].path)
		query, a, err := capped(bp.sel.Columns(bp.idCol + " AS id")).ToSql()
		if err != nil {
			return "", nil, err
		}
		parts, args = append(parts, "("+query+")"), append(args, a...)
	}
	return "SELECT COUNT(*) FROM (" + strings.Join(parts, " UNION ") + ") t", args, nil
}
