package search

import (
	"math"
	"strconv"
	"strings"
	"time"

	"storefront/internal/shop"
	"storefront/internal/strtotime"
)

// Resolved is a query whose dates have been read against one clock and time zone: the
// tree Root is a copy of the query's with every date value's Span set.
type Resolved struct {
	Kind Kind
	Root Node
	// Now is the instant the dates were read against.
	Now time.Time
	// Dates lists each distinct date text of the query with what it resolved to, in the
	// order they first appear.
	Dates []DateValue
}

// DateValue is one date text of a query and its resolution.
type DateValue struct {
	Text string
	Span
}

// HeaderDates is the answer header that tells a client what the query's dates meant.
const HeaderDates = "Storefront-Query-Dates"

// Header is the value of the Storefront-Query-Dates header: each date text, quoted as a
// Go string in ASCII, "=" and its instant in RFC 3339 in the account's zone, or for a
// whole day its interval FROM/TO (TO excluded), separated by ", ". "" when the query
// has no dates.
func (r *Resolved) Header() string {
	var parts []string
	for _, d := range r.Dates {
		s := strconv.QuoteToASCII(d.Text) + "=" + d.From.Format(time.RFC3339)
		if d.WholeDay {
			s += "/" + d.To.Format(time.RFC3339)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// Resolve reads every date value of the query as PHP's strtotime() does, relative to
// now in loc unless the text names a zone (docs/SEARCH.md#dates), and returns the
// resolved query. A value without a time of day (see WholeDay) is its whole day. A
// date range that ends before it starts is an EInvalid error.
func (q *Query) Resolve(now time.Time, loc *time.Location) (*Resolved, error) {
	if loc == nil {
		loc = time.UTC
	}
	r := &Resolved{Kind: q.Kind, Now: now}
	seen := map[string]bool{}
	var err error
	var walk func(Node) Node
	walk = func(n Node) Node {
		if err != nil {
			return n
		}
		switch x := n.(type) {
		case *Or:
			o := &Or{Terms: make([]Node, len(x.Terms))}
			for i, t := range x.Terms {
				o.Terms[i] = walk(t)
			}
			return o
		case *And:
			a := &And{Terms: make([]Node, len(x.Terms))}
			for i, t := range x.Terms {
				a.Terms[i] = walk(t)
			}
			return a
		case *Not:
			return &Not{Pos: x.Pos, X: walk(x.X)}
		case *Clause:
			c := *x
			c.Values = append([]Value(nil), x.Values...)
			if c.Type != TypeDate {
				return &c
			}
			for i := range c.Values {
				v := &c.Values[i]
				if v.Star {
					continue
				}
				var sp Span
				sp, err = ResolveDate(v.Text, now, loc)
				if err != nil {
					err = errorf("%q at %d is not a date", clip(v.Text), v.Pos)
					return n
				}
				v.Span = &sp
				if !seen[v.Text] {
					seen[v.Text] = true
					r.Dates = append(r.Dates, DateValue{Text: v.Text, Span: sp})
				}
			}
			if c.Op == OpRange {
				lo, hi := c.Values[0], c.Values[1]
				if !lo.Star && !hi.Star && !lo.Span.From.Before(hi.Span.To) {
					err = errorf("range %q at %d ends before it starts", clip(lo.Text+".."+hi.Text), lo.Pos)
				}
			}
			return &c
		}
		return n
	}
	r.Root = walk(q.Root)
	if err != nil {
		return nil, err
	}
	return r, nil
}

// ResolveDate reads one date text relative to now in loc. The answer is a whole day
// [midnight, next midnight) in loc when the text names no time of day, else the second
// [t, t+1s). The text names no time of day when all of these hold:
//
//   - it does not contain "@" (a UNIX timestamp is an instant);
//   - it resolves to midnight in loc;
//   - it resolves to the same instant when now is moved to another time of day of the
//     same date (so "-30 days", "now" or "+2 hours" are instants);
//   - strtotime() still reads it with a time of day appended (" 12:00:00"): it refuses
//     a second time of day, so "2024-11-01 00:00" or "midnight" written as "0:00"
//     after a date is an instant, while "2024-11-01", "today" and "last monday" are days.
//
// A text that names another zone ("2024-11-01 UTC" in Europe/Paris) is midnight there,
// not in loc, and so an instant.
func ResolveDate(text string, now time.Time, loc *time.Location) (Span, error) {
	now = now.In(loc)
	t, err := strtotime.Parse(text, now)
	if err != nil {
		return Span{}, err
	}
	t = t.In(loc)
	if wholeDay(text, t, now, loc) {
		y, m, d := t.Date()
		return Span{From: t, To: time.Date(y, m, d+1, 0, 0, 0, 0, loc), WholeDay: true}, nil
	}
	return Span{From: t, To: t.Add(time.Second)}, nil
}

func wholeDay(text string, t, now time.Time, loc *time.Location) bool {
	if strings.Contains(text, "@") {
		return false
	}
	if h, m, s := t.Clock(); h != 0 || m != 0 || s != 0 {
		return false
	}
	y, mo, d := now.Date()
	h, mi, s := now.Clock()
	other := time.Date(y, mo, d, (h+12)%24, (mi+29)%60, (s+31)%60, 0, loc)
	t2, err := strtotime.Parse(text, other)
	if err != nil || !t2.Equal(t) {
		return false
	}
	_, err = strtotime.Parse(text+" 12:00:00", now)
	return err == nil || !strings.Contains(err.Error(), "double time")
}

// Cond is one clause of a conjunction, in the form a planner reads: the field, whether
// it is negated, and its values as "any of" sets. Which set is filled depends on Type:
//
//	TypeText, TypeExact, TypeDomain  Texts (prefixes, or exact texts for username and domain)
//	TypeCurrency                     Texts (upper-case codes)
//	TypeID, TypeRef                  IDs
//	TypeStatus                       Statuses
//	TypeMoney                        Money
//	TypeDate                         Times
//	TypeShip, TypeIs                 Ship (true: tangibles_to_ship > 0)
//
// A bare word (Field FieldText, Type TypeText) has its text in Texts and, when it is a
// whole number, that id in IDs: it matches when any of them does.
//
// Not and the value sets are the shop's (shop.Cond); the embedded condition's Field is
// left empty, Shop fills it from Field.
type Cond struct {
	Field Field
	Type  Type
	Pos   int
	shop.Cond
}

// Conjunction is one branch of a query in disjunctive normal form: all its conditions
// must hold.
type Conjunction []Cond

// DNF expands the query into conjunctions, one of which must hold: the planner runs
// each as one bounded path and merges them. Negations are pushed down to the clauses
// (a negated Or is an And of negations). More than MaxBranches conjunctions is an
// EInvalid error (Parse refuses such queries already).
func (r *Resolved) DNF() ([]Conjunction, error) {
	cs, ok := dnf(r.Root, false)
	if !ok {
		return nil, errorf("the query expands to more than %d alternatives (OR branches, negations expanded); at most %d are allowed", MaxBranches, MaxBranches)
	}
	return cs, nil
}

func dnf(n Node, neg bool) ([]Conjunction, bool) {
	switch x := n.(type) {
	case *Not:
		return dnf(x.X, !neg)
	case *Or, *And:
		var terms []Node
		union := false
		if o, ok := x.(*Or); ok {
			terms, union = o.Terms, !neg
		} else {
			terms, union = x.(*And).Terms, neg
		}
		if union {
			var out []Conjunction
			for _, t := range terms {
				cs, ok := dnf(t, neg)
				if !ok {
					return nil, false
				}
				out = append(out, cs...)
				if len(out) > MaxBranches {
					return nil, false
				}
			}
			return out, true
		}
		out := []Conjunction{nil}
		for _, t := range terms {
			cs, ok := dnf(t, neg)
			if !ok || len(out)*len(cs) > MaxBranches {
				return nil, false
			}
			var next []Conjunction
			for _, a := range out {
				for _, b := range cs {
					c := make(Conjunction, 0, len(a)+len(b))
					next = append(next, append(append(c, a...), b...))
				}
			}
			out = next
		}
		return out, true
	case *Clause:
		c := condOf(x)
		c.Not = neg
		return []Conjunction{{c}}, true
	case *Text:
		c := Cond{Field: FieldText, Type: TypeText, Pos: x.Pos, Cond: shop.Cond{Not: neg, Texts: []string{x.Value.Text}}}
		if x.ID != 0 {
			c.IDs = []shop.IDRange{{Min: x.ID, Max: x.ID}}
		}
		return []Conjunction{{c}}, true
	}
	return nil, false
}

// condOf turns a resolved clause into its "any of" sets.
func condOf(x *Clause) Cond {
	c := Cond{Field: x.Field, Type: x.Type, Pos: x.Pos}
	vs := x.Values
	switch x.Type {
	case TypeText, TypeExact, TypeDomain, TypeCurrency:
		for _, v := range vs {
			c.Texts = append(c.Texts, v.Text)
		}
	case TypeStatus:
		for _, v := range vs {
			c.Statuses = append(c.Statuses, v.Text)
		}
	case TypeShip:
		c.Ship = vs[0].Text == "yes"
	case TypeIs:
		c.Ship = vs[0].Text == "unshipped"
	case TypeRef:
		c.IDs = ranges(OpAny, vs, valueID, idRange)
	case TypeID:
		c.IDs = ranges(x.Op, vs, valueID, idRange)
	case TypeMoney:
		c.Money = ranges(x.Op, vs, func(v Value) string { return v.Text }, moneyRange)
	case TypeDate:
		c.Times = ranges(x.Op, vs, valueSpan, timeRange)
	}
	return c
}

// ranges reads a comparison's values as "any of" ranges: each value a range of its own
// for = and "any of", else one range whose bounds are the values (nil for an open one,
// a "*" side of a range) and whose flags say whether a bound is included. mk turns such
// bounds into the range of the value's kind.
func ranges[V, R any](op Op, vs []Value, val func(Value) V, mk func(lo, hi *V, loIncl, hiIncl bool) R) []R {
	bound := func(i int) *V {
		if vs[i].Star {
			return nil
		}
		v := val(vs[i])
		return &v
	}
	switch op {
	case OpEq, OpAny:
		out := make([]R, len(vs))
		for i := range vs {
			out[i] = mk(bound(i), bound(i), true, true)
		}
		return out
	case OpLt:
		return []R{mk(nil, bound(0), false, false)}
	case OpLe:
		return []R{mk(nil, bound(0), false, true)}
	case OpGt:
		return []R{mk(bound(0), nil, false, false)}
	case OpGe:
		return []R{mk(bound(0), nil, true, false)}
	case OpRange:
		return []R{mk(bound(0), bound(1), true, true)}
	}
	return nil
}

func valueID(v Value) int64 { return v.ID }

// idRange makes the ids between the bounds an inclusive range from 1 to
// math.MaxInt64 at most.
func idRange(lo, hi *int64, loIncl, hiIncl bool) shop.IDRange {
	r := shop.IDRange{Min: 1, Max: math.MaxInt64}
	if lo != nil {
		r.Min = *lo
		if !loIncl {
			if *lo == math.MaxInt64 {
				return shop.IDRange{Min: math.MaxInt64, Max: 0} // empty
			}
			r.Min++
		}
	}
	if hi != nil {
		r.Max = *hi
		if !hiIncl {
			r.Max--
		}
	}
	return r
}

func moneyRange(lo, hi *string, loIncl, hiIncl bool) shop.MoneyRange {
	r := shop.MoneyRange{MinIncl: loIncl, MaxIncl: hiIncl}
	if lo != nil {
		r.Min = *lo
	}
	if hi != nil {
		r.Max = *hi
	}
	return r
}

func valueSpan(v Value) Span {
	if v.Span == nil {
		panic("search: date clause of an unresolved query")
	}
	return *v.Span
}

// timeRange makes the instants between two date values a half-open range: a bound
// included starts (or ends) with its day or second, one excluded starts after it (or
// ends before it).
func timeRange(lo, hi *Span, loIncl, hiIncl bool) shop.TimeRange {
	var r shop.TimeRange
	if lo != nil {
		t := lo.To
		if loIncl {
			t = lo.From
		}
		r.From = &t
	}
	if hi != nil {
		t := hi.From
		if hiIncl {
			t = hi.To
		}
		r.To = &t
	}
	return r
}
