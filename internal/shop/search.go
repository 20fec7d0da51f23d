package shop

import "time"

// CondField names what a search condition (Cond) compares: a field of the search
// language (docs/SEARCH.md#fields), or CondText for a bare word.
type CondField string

// The fields of search conditions. Purchases: CondText (e-mail, first or last name
// prefix, or the id), CondID, CondStatus, CondProduct, CondStorefront, CondCustomer,
// CondSubscriber, CondEmail, CondFirst, CondLast, CondName, CondDomain, CondCurrency,
// CondTotal, CondCreated, CondShip, CondRef and CondKey (a payment transaction's
// reference, a product key: exact texts the store looks up into ids first). Subscribers: CondText (user name prefix, or the
// id), CondID, CondStatus (the subscription's), CondEmail (user name prefix),
// CondUsername, CondStarted, CondEnded, CondActive (of the service term, ServiceTerm).
const (
	CondText       CondField = ""
	CondID         CondField = "id"
	CondStatus     CondField = "status"
	CondProduct    CondField = "product"
	CondStorefront CondField = "storefront"
	CondCustomer   CondField = "customer"
	CondSubscriber CondField = "subscriber"
	CondEmail      CondField = "email"
	CondFirst      CondField = "first"
	CondLast       CondField = "last"
	CondName       CondField = "name"
	CondDomain     CondField = "domain"
	CondCurrency   CondField = "currency"
	CondTotal      CondField = "total"
	CondCreated    CondField = "created"
	CondShip       CondField = "ship"
	CondRef        CondField = "ref"
	CondKey        CondField = "key"
	CondUsername   CondField = "username"
	CondStarted    CondField = "started"
	CondEnded      CondField = "ended"
	CondActive     CondField = "active"
)

// Cond is one condition of a search that a filter's own fields cannot express
// (docs/SEARCH.md#for-the-planner): it holds when the record's field matches any of
// its values, or, when Not is set, exactly when it does not (a record without a value
// for the field does not match, so its negation does). Which values are set depends
// on the field: Texts for text fields (prefixes; exact for username, domain, ref and key,
// upper-case codes for currency), IDs for ids, Statuses, Money for totals, Times for
// dates, Ship for ship. A CondText condition matches any of its Texts as a prefix or
// any of its IDs.
type Cond struct {
	Field    CondField
	Not      bool
	Texts    []string
	IDs      []IDRange
	Statuses []string
	Money    []MoneyRange
	Times    []TimeRange
	// Ship is true for goods left to ship (tangibles_to_ship > 0), false for none.
	Ship bool
}

// IDRange is a range of ids, both bounds included (empty when Min > Max).
type IDRange struct{ Min, Max int64 }

// MoneyRange is a range of amounts: decimal strings, "" for no bound.
type MoneyRange struct {
	Min, Max         string
	MinIncl, MaxIncl bool
}

// TimeRange is a half-open range of instants [From, To); nil for no bound.
type TimeRange struct{ From, To *time.Time }
