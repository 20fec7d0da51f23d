package web

import (
	"net/url"
	"strings"
	"time"

	"storefront/internal/search"
)

// totalOps maps the Total select onto the language: ≠ is a negated equality.
var totalOps = map[string]search.Op{"eq": search.OpEq, "ne": search.OpEq, "gt": search.OpGt, "lt": search.OpLt}

// purchaseBoxFields are the purchases form's fields, in the order the box prints them.
var purchaseBoxFields = []boxField{
	statusField("status"),
	idField("storefront_id", search.FieldStorefront),
	idField("product_id", search.FieldProduct),
	prefixField("customer_email", search.FieldEmail),
	prefixField("customer_first_name", search.FieldFirst),
	prefixField("customer_last_name", search.FieldLast),
	dateField("date_min", search.FieldCreated, search.OpGe),
	dateField("date_max", search.FieldCreated, search.OpLt),
	{param: "total",
		toQuery: func(q url.Values) string {
			v := q.Get("total")
			if v == "" {
				return ""
			}
			switch op := strings.ToLower(q.Get("total_op")); op {
			case "ne":
				return "-total:" + quoteValue(v)
			case "gt", "lt":
				return "total" + totalOps[op].Symbol() + quoteValue(v)
			}
			return "total:" + quoteValue(v)
		},
		owns: ownsFields(search.FieldTotal),
		fill: func(n search.Node, out url.Values) bool {
			c, not := clauseOf(n)
			if c == nil || c.Field != search.FieldTotal || out.Get("total") != "" {
				return false
			}
			op := ""
			switch {
			case not && c.Op == search.OpEq:
				op = "ne"
			case not:
				return false
			case c.Op == search.OpEq:
				op = "eq"
			case c.Op == search.OpGt:
				op = "gt"
			case c.Op == search.OpLt:
				op = "lt"
			default:
				return false
			}
			out.Set("total", c.Values[0].Text)
			out.Set("total_op", op)
			return true
		},
	},
	{param: "ship",
		toQuery: func(q url.Values) string {
			if v := q.Get("ship"); v == "1" || strings.EqualFold(v, "true") {
				return "ship:yes"
			}
			return ""
		},
		owns: ownsFields(search.FieldShip, search.FieldIs),
		fill: func(n search.Node, out url.Values) bool {
			c, not := clauseOf(n)
			if c == nil || not || out.Get("ship") != "" {
				return false
			}
			if c.Field == search.FieldShip && c.Values[0].Text == "yes" || c.Field == search.FieldIs && c.Values[0].Text == "unshipped" {
				out.Set("ship", "1")
				return true
			}
			return false
		},
	},
}

// combinePurchaseQuery reads a purchases request's fields and q as one query
// (combineQuery): for the purchases page and for the views saved of it.
func combinePurchaseQuery(q url.Values) (queryBox, error) {
	return combineQuery(search.Purchases, purchaseBoxFields, q)
}

// subscriberBoxFields are the subscribers form's fields, in the order the box prints
// them; the dates are read at now in loc.
func subscriberBoxFields(now time.Time, loc *time.Location) []boxField {
	return []boxField{
		statusField("status"),
		prefixField("email", search.FieldEmail),
		dateField("started_min", search.FieldStarted, search.OpGe),
		dateField("started_max", search.FieldStarted, search.OpLt),
		dateField("ended_min", search.FieldEnded, search.OpGe),
		dateField("ended_max", search.FieldEnded, search.OpLt),
		instantField("receiving_at", search.FieldActive, now, loc),
	}
}
