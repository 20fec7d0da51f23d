package web

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"storefront/internal/search"
	"storefront/internal/shop"
)

// The search box and the filter fields of a dashboard list are two views of one query
// (docs/SEARCH.md): the fields print as clauses of the language (fieldsQuery), and the
// top-level clauses of a query that a field can hold fill that field (splitQuery). What
// no field can hold stays in the box alone, and a field whose clauses are not all
// fillable shows "set by the search" instead of a value that would tell half the truth.

// boxField maps a form field (its parameter) onto the clauses of the language.
type boxField struct {
	param string
	// toQuery prints the field's value as a clause; "" when it is blank.
	toQuery func(q url.Values) string
	// fill reports whether a top-level term of a query is the field's, and if it is,
	// writes the term into the form's values (ok false: the term is the field's but the
	// field cannot hold it).
	owns func(n search.Node) bool
	fill func(n search.Node, out url.Values) bool
}

// quoteValue writes a field's text as a quoted value of the language.
func quoteValue(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// clauseOf returns the clause a term is, with whether it is negated.
func clauseOf(n search.Node) (c *search.Clause, not bool) {
	if x, ok := n.(*search.Not); ok {
		c, _ := x.X.(*search.Clause)
		return c, true
	}
	c, _ = n.(*search.Clause)
	return c, false
}

// fieldsOf lists the fields a term names anywhere in it.
func fieldsOf(n search.Node, into map[search.Field]bool) {
	switch x := n.(type) {
	case *search.Or:
		for _, t := range x.Terms {
			fieldsOf(t, into)
		}
	case *search.And:
		for _, t := range x.Terms {
			fieldsOf(t, into)
		}
	case *search.Not:
		fieldsOf(x.X, into)
	case *search.Clause:
		into[x.Field] = true
	}
}

// ownsFields is a boxField's owns for the given fields of the language.
func ownsFields(fs ...search.Field) func(search.Node) bool {
	return func(n search.Node) bool {
		seen := map[search.Field]bool{}
		fieldsOf(n, seen)
		for _, f := range fs {
			if seen[f] {
				return true
			}
		}
		return false
	}
}

// prefixField is a "starts with" text field: param ↔ field:"text".
func prefixField(param string, f search.Field) boxField { return eqField(param, f, quoteValue) }

// idField is a select of records by id: param ↔ field:id.
func idField(param string, f search.Field) boxField {
	return eqField(param, f, func(id string) string { return id })
}

// eqField is a field whose one value is the clause field:value, written by write.
func eqField(param string, f search.Field, write func(string) string) boxField {
	return boxField{param: param,
		toQuery: func(q url.Values) string {
			if v := q.Get(param); v != "" {
				return string(f) + ":" + write(v)
			}
			return ""
		},
		owns: ownsFields(f),
		fill: func(n search.Node, out url.Values) bool {
			c, not := clauseOf(n)
			if c == nil || not || c.Field != f || c.Op != search.OpEq || out.Get(param) != "" {
				return false
			}
			out.Set(param, c.Values[0].Text)
			return true
		},
	}
}

// statusField is a group of status boxes: status=A&status=B ↔ status:A,B.
func statusField(param string) boxField {
	return boxField{param: param,
		toQuery: func(q url.Values) string {
			var codes []string
			for _, v := range q[param] {
				for _, part := range strings.Split(v, ",") {
					if part = strings.ToUpper(strings.TrimSpace(part)); part != "" && !slices.Contains(codes, part) {
						codes = append(codes, part)
					}
				}
			}
			if len(codes) == 0 {
				return ""
			}
			return "status:" + strings.Join(codes, ",")
		},
		owns: ownsFields(search.FieldStatus),
		fill: func(n search.Node, out url.Values) bool {
			c, not := clauseOf(n)
			if c == nil || not || c.Field != search.FieldStatus || (c.Op != search.OpEq && c.Op != search.OpAny) || out.Has(param) {
				return false
			}
			for _, v := range c.Values {
				out.Add(param, v.Text)
			}
			return true
		},
	}
}

// dateField is a free-form date bound: date_min ↔ created>=text, date_max ↔ created<text
// (a bound that is a whole day starts where that day starts, as the field's does).
func dateField(param string, f search.Field, op search.Op) boxField {
	return boxField{param: param,
		toQuery: func(q url.Values) string {
			if v := q.Get(param); v != "" {
				return string(f) + op.Symbol() + quoteValue(v)
			}
			return ""
		},
		owns: ownsFields(f),
		fill: func(n search.Node, out url.Values) bool {
			c, not := clauseOf(n)
			if c == nil || not || c.Field != f || c.Op != op || out.Get(param) != "" {
				return false
			}
			out.Set(param, c.Values[0].Text)
			return true
		},
	}
}

// wholeDayTime is what makes a whole-day date text the instant it starts: strtotime()
// reads a time of day after any text that names none (docs/SEARCH.md#dates).
const wholeDayTime = " 00:00:00"

// instantField is a date field that names an instant: receiving_at ↔ active:"text".
// The language reads a date written without a time of day as its whole day, the field
// as the instant it starts: such a text goes into the query with wholeDayTime
// appended, and comes back without it. A whole day in the query is not the field's to
// show.
func instantField(param string, f search.Field, now time.Time, loc *time.Location) boxField {
	wholeDay := func(text string) (time.Time, bool) {
		sp, err := search.ResolveDate(text, now, loc)
		return sp.From, err == nil && sp.WholeDay
	}
	return boxField{param: param,
		toQuery: func(q url.Values) string {
			v := q.Get(param)
			if v == "" {
				return ""
			}
			if _, ok := wholeDay(v); ok {
				v += wholeDayTime
			}
			return string(f) + ":" + quoteValue(v)
		},
		owns: ownsFields(f),
		fill: func(n search.Node, out url.Values) bool {
			c, not := clauseOf(n)
			if c == nil || not || c.Field != f || c.Op != search.OpEq || out.Get(param) != "" {
				return false
			}
			text := c.Values[0].Text
			at, err := search.ResolveDate(text, now, loc)
			if err != nil || at.WholeDay {
				return false
			}
			if day, ok := strings.CutSuffix(text, wholeDayTime); ok {
				if from, whole := wholeDay(day); whole && from.Equal(at.From) {
					text = day
				}
			}
			out.Set(param, text)
			return true
		},
	}
}

// fieldsQuery prints the filled fields of a form as a query of the language: what the
// box shows for them.
func fieldsQuery(fields []boxField, q url.Values) string {
	var parts []string
	for _, f := range fields {
		if s := f.toQuery(q); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " ")
}

// queryBox is one request's query, as the box and the fields show it.
type queryBox struct {
	// Query is the whole query in canonical form: the box's text, and the URL's q.
	Query string
	// Fields are the form's values the query fills.
	Fields url.Values
	// Rest is what no field holds, in canonical form: the form carries it hidden.
	Rest string
	// Locked names the fields that cannot show their part of the query.
	Locked map[string]bool
}

// combineQuery reads a request's fields and its q as one query: the fields' clauses
// AND q, parsed and printed canonically, then split back into the fields it fills and
// the rest. A q that cannot be read is the parser's error; q blank and no field set is
// the empty box.
func combineQuery(kind search.Kind, fields []boxField, q url.Values) (queryBox, error) {
	text := fieldsQuery(fields, q)
	if box := q.Get("q"); strings.TrimSpace(box) != "" {
		if _, err := search.Parse(kind, box); err != nil {
			return queryBox{}, err
		}
		if text == "" {
			text = box
		} else {
			text += " (" + box + ")"
		}
	}
	if text == "" {
		return queryBox{Fields: url.Values{}}, nil
	}
	query, err := search.Parse(kind, text)
	if err != nil {
		return queryBox{}, err
	}
	return splitQuery(query, fields), nil
}

// splitQuery fills the fields from the top-level clauses of a query that they can hold.
func splitQuery(query *search.Query, fields []boxField) queryBox {
	box := queryBox{Query: query.String(), Fields: url.Values{}, Locked: map[string]bool{}}
	terms := []search.Node{query.Root}
	if and, ok := query.Root.(*search.And); ok {
		terms = and.Terms
	}
	// A field is locked when a term names it that it cannot hold (a term naming
	// created locks both date bounds).
	try := url.Values{}
	filler := make([]int, len(terms)) // index+1 of the field that holds each term
	for i, t := range terms {
		for j, f := range fields {
			if f.owns(t) && f.fill(t, try) {
				filler[i] = j + 1
				break
			}
		}
	}
	for i, t := range terms {
		if filler[i] != 0 {
			continue
		}
		for _, f := range fields {
			if f.owns(t) {
				box.Locked[f.param] = true
			}
		}
	}
	var rest []search.Node
	for i, t := range terms {
		if j := filler[i] - 1; j >= 0 && !box.Locked[fields[j].param] {
			fields[j].fill(t, box.Fields)
			continue
		}
		rest = append(rest, t)
	}
	switch len(rest) {
	case 0:
	case 1:
		box.Rest = search.String(rest[0])
	default:
		box.Rest = search.String(&search.And{Terms: rest})
	}
	return box
}

// canonicalValues is q with the fields and the box replaced by the one query they make:
// the fields it fills, and the rest as q.
func canonicalValues(q url.Values, fields []boxField, box queryBox) url.Values {
	out := cloneValues(q)
	for _, f := range fields {
		out.Del(f.param)
	}
	out.Del("total_op")
	out.Del("q")
	for k, vs := range box.Fields {
		out[k] = slices.Clone(vs)
	}
	if box.Rest != "" {
		out.Set("q", box.Rest)
	}
	return out
}

// purchaseViewQuery is a purchases query as a saved view keeps it: the fields and the
// box as one q, with the order. A query whose q cannot be read is kept as it is.
func purchaseViewQuery(query string) string {
	q, err := url.ParseQuery(query)
	if err != nil {
		return query
	}
	box, err := combinePurchaseQuery(q)
	if err != nil {
		return query
	}
	out := url.Values{}
	if box.Query != "" {
		out.Set("q", box.Query)
	}
	if o := q.Get("order"); o != "" {
		out.Set("order", o)
	}
	return viewQuery(out)
}

// searchError reports whether err is about the search box's query (parameter q) rather
// than one of the filter fields.
func searchError(err error) bool { return shop.ErrorParam(err) == search.Param }
