package search

import (
	"slices"
	"strings"
	"time"

	"storefront/internal/shop"
)

// This file is the reference meaning of a query: a naive evaluation over one record
// that a SQL planner's results are checked against.

// MatchPurchase reports whether the purchase matches the query of the purchases list.
func (r *Resolved) MatchPurchase(p *shop.Purchase) bool {
	return eval(r.Root, ofPurchase(p))
}

// MatchSubscriber reports whether the subscriber matches the query of the subscribers
// list.
func (r *Resolved) MatchSubscriber(s *shop.Subscriber) bool {
	return eval(r.Root, ofSubscriber(s))
}

// MatchPurchase reports whether every condition holds for the purchase.
func (cj Conjunction) MatchPurchase(p *shop.Purchase) bool {
	return cj.match(ofPurchase(p))
}

// MatchSubscriber reports whether every condition holds for the subscriber.
func (cj Conjunction) MatchSubscriber(s *shop.Subscriber) bool {
	return cj.match(ofSubscriber(s))
}

// MatchPurchase reports whether the condition (negation included) holds for the
// purchase.
func (c Cond) MatchPurchase(p *shop.Purchase) bool {
	return c.match(ofPurchase(p))
}

// MatchSubscriber reports whether the condition (negation included) holds for the
// subscriber. The dates of a subscriber are those of its service term
// (shop.ServiceTerm): started is when it began, ended when it ended (a term still
// running has not ended), and active holds when the term [start, end) overlaps the
// value: the subscriber received service at some instant of it, as shop.Entitle decides.
// A subscriber without a subscription has no status and no term.
func (c Cond) MatchSubscriber(s *shop.Subscriber) bool {
	return c.match(ofSubscriber(s))
}

// fieldTest reports whether a condition's test of its field, negation aside, holds
// for one record: a purchase (ofPurchase) or a subscriber (ofSubscriber). The walk of
// a query is the same whatever the record; only this test differs.
type fieldTest func(Cond) bool

func ofPurchase(p *shop.Purchase) fieldTest {
	return func(c Cond) bool { return c.purchase(p) }
}

func ofSubscriber(s *shop.Subscriber) fieldTest {
	return func(c Cond) bool { return c.subscriber(s) }
}

func eval(n Node, test fieldTest) bool {
	switch x := n.(type) {
	case *Or:
		return slices.ContainsFunc(x.Terms, func(t Node) bool { return eval(t, test) })
	case *And:
		for _, t := range x.Terms {
			if !eval(t, test) {
				return false
			}
		}
		return true
	case *Not:
		return !eval(x.X, test)
	case *Clause, *Text:
		cs, _ := dnf(x, false)
		return cs[0][0].match(test)
	}
	return false
}

func (cj Conjunction) match(test fieldTest) bool {
	for _, c := range cj {
		if !c.match(test) {
			return false
		}
	}
	return true
}

func (c Cond) match(test fieldTest) bool {
	return c.Not != test(c)
}

func (c Cond) purchase(p *shop.Purchase) bool {
	switch c.Field {
	case FieldText:
		return c.prefix(p.BuyerEmail) || c.prefix(p.BuyerFirstname) || c.prefix(p.BuyerLastname) || c.id(p.ID)
	case FieldID:
		return c.id(p.ID)
	case FieldStatus:
		return slices.Contains(c.Statuses, string(p.Status))
	case FieldProduct:
		return slices.ContainsFunc(p.LineItems, func(li shop.LineItem) bool { return c.id(li.ProductID) })
	case FieldStorefront:
		return c.id(p.StorefrontID)
	case FieldCustomer:
		return p.Customer != nil && c.id(p.Customer.ID)
	case FieldSubscriber:
		return p.SubscriberID != nil && c.id(*p.SubscriberID)
	case FieldEmail:
		return c.prefix(p.BuyerEmail)
	case FieldFirst:
		return c.prefix(p.BuyerFirstname)
	case FieldLast:
		return c.prefix(p.BuyerLastname)
	case FieldName:
		return c.prefix(p.BuyerFirstname) || c.prefix(p.BuyerLastname)
	case FieldDomain:
		// The text after the e-mail's last "@" (found byte for byte, as SUBSTRING_INDEX
		// finds it: a full-width "＠" is no "@") LIKE the domain, character by character.
		if p.BuyerEmail == nil {
			return false
		}
		e := *p.BuyerEmail
		i := strings.LastIndexByte(e, '@')
		return i >= 0 && slices.ContainsFunc(c.Texts, func(t string) bool { return LikeFold(e[i+1:], t) })
	case FieldCurrency:
		return c.equal(p.Currency)
	case FieldTotal:
		return c.money(string(p.Total))
	case FieldCreated:
		return c.time(p.CreatedAt.Time)
	case FieldShip, FieldIs:
		return (p.TangiblesToShip != nil && *p.TangiblesToShip > 0) == c.Ship
	case FieldRef:
		return slices.ContainsFunc(p.Transactions, func(t shop.Transaction) bool { return t.Reference != nil && c.equal(*t.Reference) })
	case FieldKey:
		return slices.ContainsFunc(p.LineItems, func(li shop.LineItem) bool { return slices.ContainsFunc(li.ProductKeys, c.equal) })
	}
	return false
}

func (c Cond) subscriber(s *shop.Subscriber) bool {
	switch c.Field {
	case FieldText:
		return c.prefix(&s.Username) || c.id(s.ID)
	case FieldID:
		return c.id(s.ID)
	case FieldStatus:
		return s.Subscription != nil && slices.Contains(c.Statuses, string(s.Subscription.Status))
	case FieldEmail:
		return c.prefix(&s.Username)
	case FieldUsername:
		return c.equal(s.Username)
	case FieldStarted, FieldEnded, FieldActive:
		start, end, ok := shop.ServiceTerm(s.Subscription)
		if !ok {
			return false
		}
		switch c.Field {
		case FieldStarted:
			return c.time(start)
		case FieldEnded:
			return end != nil && c.time(*end)
		}
		return slices.ContainsFunc(c.Times, func(r shop.TimeRange) bool {
			return (r.To == nil || start.Before(*r.To)) && (end == nil || r.From == nil || r.From.Before(*end))
		})
	}
	return false
}

func (c Cond) prefix(s *string) bool {
	return s != nil && slices.ContainsFunc(c.Texts, func(t string) bool { return HasPrefixFold(*s, t) })
}

func (c Cond) equal(s string) bool {
	return slices.ContainsFunc(c.Texts, func(t string) bool { return EqualFold(s, t) })
}

func (c Cond) id(n int64) bool {
	return slices.ContainsFunc(c.IDs, func(r shop.IDRange) bool { return r.Min <= n && n <= r.Max })
}

func (c Cond) time(t time.Time) bool {
	return slices.ContainsFunc(c.Times, func(r shop.TimeRange) bool {
		return (r.From == nil || !t.Before(*r.From)) && (r.To == nil || t.Before(*r.To))
	})
}

func (c Cond) money(s string) bool {
	if !shop.IsDecimal(s) {
		return false
	}
	v := decimal(s)
	return slices.ContainsFunc(c.Money, func(r shop.MoneyRange) bool {
		if r.Min != "" {
			k := v.Cmp(decimal(r.Min))
			if k < 0 || (k == 0 && !r.MinIncl) {
				return false
			}
		}
		if r.Max != "" {
			k := v.Cmp(decimal(r.Max))
			if k > 0 || (k == 0 && !r.MaxIncl) {
				return false
			}
		}
		return true
	})
}
