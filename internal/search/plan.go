package search

import (
	"slices"

	"storefront/internal/shop"
)

// PurchaseFilter moves the conditions of a purchase conjunction that the list filters
// of GET /purchases can express into a shop.PurchaseFilter for the account (at most one
// per filter field: the first that fits), and returns the rest as residual conditions
// the planner must add itself. The conjunction holds for a purchase exactly when the
// filter matches it and every residual condition holds. Order and paging fields are
// left zero.
func (cj Conjunction) PurchaseFilter(accountID int64) (shop.PurchaseFilter, Conjunction) {
	f := shop.PurchaseFilter{AccountID: accountID}
	var rest Conjunction
	for _, c := range cj {
		if !c.intoFilter(&f) {
			rest = append(rest, c)
		}
	}
	return f, rest
}

// point returns the one id of a condition that names exactly one.
func (c Cond) point() (int64, bool) {
	if len(c.IDs) != 1 || c.IDs[0].Min != c.IDs[0].Max {
		return 0, false
	}
	return c.IDs[0].Min, true
}

func (c Cond) intoFilter(f *shop.PurchaseFilter) bool {
	if c.Not {
		// total:v negated is total_op=ne.
		if c.Field == FieldTotal && len(c.Money) == 1 && f.Total == "" {
			m := c.Money[0]
			if m.Min != "" && m.Min == m.Max && m.MinIncl && m.MaxIncl {
				f.Total, f.TotalOp = m.Min, shop.TotalNe
				return true
			}
		}
		return false
	}
	switch c.Field {
	case FieldID:
		if f.IDs != nil {
			return false
		}
		var ids []int64
		for _, r := range c.IDs {
			if r.Min != r.Max {
				return false
			}
			ids = append(ids, r.Min)
		}
		f.IDs = ids
	case FieldStatus:
		if len(f.Statuses) > 0 {
			return false
		}
		for _, s := range c.Statuses {
			f.Statuses = append(f.Statuses, shop.PurchaseStatus(s))
		}
	case FieldProduct, FieldStorefront, FieldCustomer, FieldSubscriber:
		dst := map[Field]*int64{FieldProduct: &f.ProductID, FieldStorefront: &f.StorefrontID, FieldCustomer: &f.CustomerID, FieldSubscriber: &f.SubscriberID}[c.Field]
		id, ok := c.point()
		if !ok || *dst != 0 {
			return false
		}
		*dst = id
	case FieldEmail, FieldFirst, FieldLast:
		dst := map[Field]*string{FieldEmail: &f.EmailPrefix, FieldFirst: &f.FirstPrefix, FieldLast: &f.LastPrefix}[c.Field]
		if len(c.Texts) != 1 || *dst != "" {
			return false
		}
		*dst = c.Texts[0]
	case FieldDomain:
		if len(c.Texts) != 1 || f.Domain != "" {
			return false
		}
		f.Domain = c.Texts[0]
	case FieldCreated:
		if len(c.Times) != 1 || f.CreatedFrom != nil || f.CreatedBefore != nil {
			return false
		}
		f.CreatedFrom, f.CreatedBefore = c.Times[0].From, c.Times[0].To
	case FieldTotal:
		if len(c.Money) != 1 || f.Total != "" {
			return false
		}
		m := c.Money[0]
		switch {
		case m.Min != "" && m.Min == m.Max && m.MinIncl && m.MaxIncl:
			f.Total, f.TotalOp = m.Min, shop.TotalEq
		case m.Min != "" && m.Max == "" && !m.MinIncl:
			f.Total, f.TotalOp = m.Min, shop.TotalGt
		case m.Min == "" && m.Max != "" && !m.MaxIncl:
			f.Total, f.TotalOp = m.Max, shop.TotalLt
		default:
			return false
		}
	case FieldShip, FieldIs:
		if f.Unshipped != nil {
			return false
		}
		b := c.Ship
		f.Unshipped = &b
	default:
		return false
	}
	return true
}

// Shop returns the condition as the shop's filters carry it (shop.Cond), for the
// planner to check.
func (c Cond) Shop() shop.Cond {
	out := c.Cond
	out.Field = shop.CondField(c.Field)
	if c.Field == FieldIs {
		out.Field = shop.CondShip
	}
	return out
}

func shopConds(cs Conjunction) []shop.Cond {
	var out []shop.Cond
	for _, c := range cs {
		out = append(out, c.Shop())
	}
	return out
}

// MaxPaths is the most ordered paths a purchases query's union reads once its
// conjunctions are split on their alternatives (ApplyPurchases): its MaxBranches
// conjunctions each a bare word (its e-mail, first-name and last-name prefixes, and
// its id when a whole number).
const MaxPaths = 4 * MaxBranches

// ApplyPurchases returns the filter base (the list's other parameters, with its order
// and paging) narrowed by the query, a purchases query: base's conditions AND the
// query. Each conjunction fills base's empty filter fields where a condition fits one
// (so that it runs on the planner's ordered paths) and carries the rest in Where. A
// conjunction that fills none of the fields that lead an ordered path of their own
// (ids, customer, subscriber, an exact total, product, a prefix, a domain, and ref: or
// key:, which the store looks up into ids) but holds a
// condition of alternatives that each do (name: first or last; a bare word: e-mail,
// first or last, or its id; a list of prefixes or domains) is split into one filter
// per alternative, that condition's fewest first, while the query keeps at most
// MaxPaths filters. A query of one filter is that filter; of several, a union (Any)
// of them.
func (r *Resolved) ApplyPurchases(base shop.PurchaseFilter) (shop.PurchaseFilter, error) {
	cjs, err := r.DNF()
	if err != nil {
		return base, err
	}
	// branch fills base's fields with cj's conditions where they fit, the rest in
	// Where; rest holds the indexes in cj of those.
	branch := func(cj Conjunction) (f shop.PurchaseFilter, rest []int) {
		f = base
		f.Any = nil
		f.Where = slices.Clone(base.Where)
		for i, c := range cj {
			if !c.intoFilter(&f) {
				f.Where = append(f.Where, c.Shop())
				rest = append(rest, i)
			}
		}
		return f, rest
	}
	var fs []shop.PurchaseFilter
	paths := len(cjs)
	for _, cj := range cjs {
		f, rest := branch(cj)
		i, alts := splitOn(f, cj, rest)
		if alts == nil || paths-1+len(alts) > MaxPaths {
			fs = append(fs, f)
			continue
		}
		paths += len(alts) - 1
		others := slices.Delete(slices.Clone(cj), i, i+1)
		for _, alt := range alts {
			g, _ := branch(append(slices.Clone(others), alt))
			fs = append(fs, g)
		}
	}
	if len(fs) == 1 {
		return fs[0], nil
	}
	out := shop.PurchaseFilter{AccountID: base.AccountID, Desc: base.Desc, PerPage: base.PerPage, Page: base.Page,
		After: base.After, IncludeCount: base.IncludeCount}
	for _, b := range fs {
		b.Desc, b.PerPage, b.Page, b.After, b.IncludeCount = false, 0, 0, nil, false
		out.Any = append(out.Any, b)
	}
	return out, nil
}

// splitOn chooses the condition of cj that the filter f of cj is split on, among those
// at the indexes rest (the conditions f could not take), and returns its index and its
// alternatives, each a condition that fills one of f's empty fields; nil when f has a
// field that leads an ordered path, or rest no such condition.
func splitOn(f shop.PurchaseFilter, cj Conjunction, rest []int) (int, []Cond) {
	if f.IDs != nil || f.CustomerID != 0 || f.SubscriberID != 0 || f.ProductID != 0 ||
		(f.Total != "" && (f.TotalOp == shop.TotalEq || f.TotalOp == "")) ||
		f.EmailPrefix != "" || f.FirstPrefix != "" || f.LastPrefix != "" || f.Domain != "" {
		return 0, nil
	}
	for _, i := range rest {
		// ref: and key: become the filter's ids once the store has looked them up.
		if c := cj[i]; !c.Not && (c.Field == FieldRef || c.Field == FieldKey) {
			return 0, nil
		}
	}
	best, bestAlts := 0, []Cond(nil)
	for _, i := range rest {
		if alts := cj[i].alternatives(); alts != nil && (bestAlts == nil || len(alts) < len(bestAlts)) {
			best, bestAlts = i, alts
		}
	}
	return best, bestAlts
}

// alternatives returns the conditions of one value each, on a field with an ordered
// path, one of which holds exactly when c does: nil for a negation or a condition of
// other fields.
func (c Cond) alternatives() []Cond {
	if c.Not {
		return nil
	}
	var fields []Field
	switch c.Field {
	case FieldText:
		fields = []Field{FieldEmail, FieldFirst, FieldLast}
	case FieldName:
		fields = []Field{FieldFirst, FieldLast}
	case FieldEmail, FieldFirst, FieldLast, FieldDomain:
		fields = []Field{c.Field}
	default:
		return nil
	}
	var out []Cond
	for _, t := range c.Texts {
		for _, f := range fields {
			spec, _ := lookupField(Purchases, string(f))
			out = append(out, Cond{Field: f, Type: spec.Type, Pos: c.Pos, Cond: shop.Cond{Texts: []string{t}}})
		}
	}
	for _, r := range c.IDs { // a bare word's id: one
		out = append(out, Cond{Field: FieldID, Type: TypeID, Pos: c.Pos, Cond: shop.Cond{IDs: []shop.IDRange{r}}})
	}
	return out
}

// ApplySubscribers returns the filter base narrowed by the query, a subscribers
// query: base's conditions AND the query. A query of one conjunction fills the
// filter's user name and status fields where they are empty and a condition fits, and
// carries the rest in Where; a query of several adds a union (Any) of one filter per
// conjunction.
func (r *Resolved) ApplySubscribers(base shop.SubscriberFilter) (shop.SubscriberFilter, error) {
	cjs, err := r.DNF()
	if err != nil {
		return base, err
	}
	if len(cjs) == 1 {
		f := base
		f.Where = slices.Clone(base.Where)
		for _, c := range cjs[0] {
			if !c.intoSubscriberFilter(&f) {
				f.Where = append(f.Where, c.Shop())
			}
		}
		return f, nil
	}
	f := base
	f.Any = nil
	for _, cj := range cjs {
		f.Any = append(f.Any, shop.SubscriberFilter{AccountID: base.AccountID, Where: shopConds(cj)})
	}
	return f, nil
}

func (c Cond) intoSubscriberFilter(f *shop.SubscriberFilter) bool {
	if c.Not || len(c.Texts) > 1 {
		return false
	}
	switch c.Field {
	case FieldUsername:
		if f.Username != "" {
			return false
		}
		f.Username = c.Texts[0]
	case FieldEmail:
		if f.UsernamePrefix != "" {
			return false
		}
		f.UsernamePrefix = c.Texts[0]
	case FieldStatus:
		if len(f.Statuses) > 0 {
			return false
		}
		for _, s := range c.Statuses {
			f.Statuses = append(f.Statuses, shop.SubscriptionStatus(s))
		}
	default:
		return false
	}
	return true
}
