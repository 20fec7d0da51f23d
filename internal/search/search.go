// Package search reads the search language of the purchases and subscribers lists
// (docs/SEARCH.md): a query such as `status:ACT,PND total>50 created>="last monday"` or
// `email:zoe OR name:"van der"`. It parses a query into a tree (Parse), prints the tree
// back in canonical form (Query.String), resolves its dates against a clock and a time
// zone (Query.Resolve), expands it into at most MaxBranches conjunctions for a planner
// (Resolved.DNF), and evaluates it on one purchase or subscriber (the reference meaning
// a SQL planner must reproduce). It is pure: no database, no clock of its own.
package search

import (
	"slices"
	"strings"
	"time"
)

// Limits of a query (docs/SEARCH.md#limits).
const (
	// MaxLen is the longest query, in characters.
	MaxLen = 512
	// MaxClauses is the most clauses (field clauses and bare words together).
	MaxClauses = 20
	// MaxBranches is the most conjunctions a query may expand into (Resolved.DNF).
	MaxBranches = 8
	// MaxDepth is the deepest nesting of parentheses.
	MaxDepth = 3
	// MaxTextLen bounds one text value, as the list filters do (filter.MaxTextLen).
	MaxTextLen = 255
)

// Param is the request parameter every error of this package names.
const Param = "q"

// Kind says which list a query searches: its fields and its bare-word meaning.
type Kind int

// The two languages.
const (
	Purchases Kind = iota + 1
	Subscribers
)

// String names the kind in messages.
func (k Kind) String() string {
	if k == Subscribers {
		return "subscriber"
	}
	return "purchase"
}

// Field is a field name in canonical (lower-case) spelling. FieldText is the field of a
// bare word.
type Field string

// The fields of both languages (docs/SEARCH.md#fields).
const (
	FieldText       Field = ""
	FieldID         Field = "id"
	FieldStatus     Field = "status"
	FieldProduct    Field = "product"
	FieldStorefront Field = "storefront"
	FieldCustomer   Field = "customer"
	FieldSubscriber Field = "subscriber"
	FieldEmail      Field = "email"
	FieldFirst      Field = "first"
	FieldLast       Field = "last"
	FieldName       Field = "name"
	FieldDomain     Field = "domain"
	FieldCurrency   Field = "currency"
	FieldTotal      Field = "total"
	FieldCreated    Field = "created"
	FieldShip       Field = "ship"
	FieldIs         Field = "is"
	FieldRef        Field = "ref"
	FieldKey        Field = "key"
	FieldUsername   Field = "username"
	FieldStarted    Field = "started"
	FieldEnded      Field = "ended"
	FieldActive     Field = "active"
)

// Type is the kind of value a field takes; it decides the operators allowed and how a
// value is read.
type Type int

// Value types.
const (
	TypeText     Type = iota + 1 // "starts with", ignoring case and accents
	TypeExact                    // equal, ignoring case and accents (username, ref, key)
	TypeDomain                   // equal to the part of an e-mail after its last "@"
	TypeID                       // the record's own id: also compared and ranged
	TypeRef                      // the id of a linked record: equality only
	TypeStatus                   // a status code of the kind
	TypeCurrency                 // an ISO 4217 code
	TypeMoney                    // a decimal amount, compared exactly
	TypeDate                     // strtotime() text, resolved later
	TypeShip                     // yes or no
	TypeIs                       // unshipped or shipped
)

// Op is a clause's operator.
type Op int

// Operators. OpEq, OpAny and OpRange are all written ":"; the value tells them apart.
const (
	OpEq    Op = iota + 1 // field:v
	OpAny                 // field:a,b,c
	OpRange               // field:a..b
	OpLt                  // field<v
	OpLe                  // field<=v
	OpGt                  // field>v
	OpGe                  // field>=v
)

// Operators lists the operator symbols of the language, longest first.
var Operators = []string{">=", "<=", ">", "<", ":"}

// Symbol is the operator as written.
func (o Op) Symbol() string {
	switch o {
	case OpLt:
		return "<"
	case OpLe:
		return "<="
	case OpGt:
		return ">"
	case OpGe:
		return ">="
	}
	return ":"
}

// FieldSpec describes one field of a language.
type FieldSpec struct {
	Name Field
	Type Type
}

var purchaseFields = []FieldSpec{
	{FieldID, TypeID}, {FieldStatus, TypeStatus}, {FieldProduct, TypeRef},
	{FieldStorefront, TypeRef}, {FieldCustomer, TypeRef}, {FieldSubscriber, TypeRef},
	{FieldEmail, TypeText}, {FieldFirst, TypeText}, {FieldLast, TypeText}, {FieldName, TypeText},
	{FieldDomain, TypeDomain}, {FieldCurrency, TypeCurrency}, {FieldTotal, TypeMoney},
	{FieldCreated, TypeDate}, {FieldShip, TypeShip}, {FieldIs, TypeIs},
	{FieldRef, TypeExact}, {FieldKey, TypeExact},
}

var subscriberFields = []FieldSpec{
	{FieldID, TypeID}, {FieldStatus, TypeStatus}, {FieldEmail, TypeText},
	{FieldUsername, TypeExact}, {FieldStarted, TypeDate}, {FieldEnded, TypeDate},
	{FieldActive, TypeDate},
}

// Fields returns the fields of a language in documentation order.
func Fields(k Kind) []FieldSpec {
	if k == Subscribers {
		return slices.Clone(subscriberFields)
	}
	return slices.Clone(purchaseFields)
}

func lookupField(k Kind, name string) (FieldSpec, bool) {
	name = strings.ToLower(name)
	for _, f := range Fields(k) {
		if string(f.Name) == name {
			return f, true
		}
	}
	return FieldSpec{}, false
}

// Ops returns the operators a value type allows.
func (t Type) Ops() []Op {
	switch t {
	case TypeID, TypeMoney, TypeDate:
		return []Op{OpEq, OpAny, OpRange, OpLt, OpLe, OpGt, OpGe}
	case TypeShip, TypeIs:
		return []Op{OpEq}
	}
	return []Op{OpEq, OpAny}
}

// Keyword values of the ship and is fields.
var (
	shipValues = []string{"yes", "no"}
	isValues   = []string{"unshipped", "shipped"}
)

// Node is a node of a query tree: *Or, *And, *Not, *Clause or *Text.
type Node interface{ node() }

// Or matches when any of its terms does (two or more).
type Or struct{ Terms []Node }

// And matches when all of its terms do (two or more).
type And struct{ Terms []Node }

// Not matches when X does not. Every clause is true or false for every record (a
// missing value makes a clause false), so Not is the plain complement.
type Not struct {
	Pos int
	X   Node
}

// Clause is one field condition, `field:value`, `field>value`, `field:a,b`, `field:a..b`.
type Clause struct {
	// Pos is the 1-based character position of the field name.
	Pos   int
	Field Field
	Type  Type
	Op    Op
	// Values holds one value, or the items of an OpAny list, or the two sides of an
	// OpRange (either may be Star).
	Values []Value
}

// Text is a bare word or quoted string: a prefix of the e-mail, first or last name of a
// purchase (the user name of a subscriber), or the record's id when it is a whole number
// (also written with a "#" before it, as the dashboard shows ids).
type Text struct {
	Pos   int
	Value Value
	// ID is the record id the text names when it is one ([1-9][0-9]*, or "#" and one),
	// else 0.
	ID int64
}

func (*Or) node()     {}
func (*And) node()    {}
func (*Not) node()    {}
func (*Clause) node() {}
func (*Text) node()   {}

// Value is one value of a clause in canonical form.
type Value struct {
	// Pos is the 1-based character position of the value (of its opening quote).
	Pos int
	// Star is a "*" side of a range: no bound.
	Star bool
	// Text is the value: the text as written for text, money and dates; upper case for
	// statuses and currencies; "yes"/"no" for ship; the digits of an id.
	Text string
	// ID is the value of an id.
	ID int64
	// Span is the instant or day a date value resolved to; nil until Query.Resolve.
	Span *Span
}

// Span is a date value resolved: the half-open interval [From, To). A value with a
// time of day is the one second [t, t+1s); a value without one is its whole day.
type Span struct {
	From, To time.Time
	WholeDay bool
}

// Query is a parsed query of one language.
type Query struct {
	Kind Kind
	Root Node
	// Clauses counts the clauses and bare words.
	Clauses int
}

// Equal reports whether two trees are the same query: the same structure, fields,
// operators and values, whatever their positions.
func Equal(a, b Node) bool {
	switch x := a.(type) {
	case *Or:
		y, ok := b.(*Or)
		return ok && equalTerms(x.Terms, y.Terms)
	case *And:
		y, ok := b.(*And)
		return ok && equalTerms(x.Terms, y.Terms)
	case *Not:
		y, ok := b.(*Not)
		return ok && Equal(x.X, y.X)
	case *Clause:
		y, ok := b.(*Clause)
		if !ok || x.Field != y.Field || x.Type != y.Type || x.Op != y.Op || len(x.Values) != len(y.Values) {
			return false
		}
		for i := range x.Values {
			if !x.Values[i].equal(y.Values[i]) {
				return false
			}
		}
		return true
	case *Text:
		y, ok := b.(*Text)
		return ok && x.ID == y.ID && x.Value.equal(y.Value)
	}
	return false
}

func equalTerms(a, b []Node) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func (v Value) equal(w Value) bool {
	return v.Star == w.Star && v.Text == w.Text && v.ID == w.ID
}
