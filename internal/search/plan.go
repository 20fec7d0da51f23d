package search

import "storefront/internal/shop"

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
