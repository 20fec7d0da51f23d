package search

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"storefront/internal/shop"
	"storefront/internal/strtotime"
)

// errorf returns the error of a query that cannot be read: an EInvalid *shop.Error
// about the parameter q, its message naming the position, the text at fault and what
// was expected (docs/SEARCH.md#errors).
func errorf(format string, args ...any) error {
	return shop.ParamErrorf(shop.EInvalid, Param, format, args...)
}

// Parse reads a query of the given language. Every fault is an EInvalid *shop.Error
// with param "q" whose message names the 1-based character position, the text at fault
// and what was expected. A blank query is an error: a caller that treats a blank
// parameter as absent checks that first.
func Parse(kind Kind, q string) (*Query, error) {
	if !utf8.ValidString(q) {
		at := 0
		for at < len(q) {
			r, n := utf8.DecodeRuneInString(q[at:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			at += n
		}
		return nil, errorf("the query is not valid UTF-8: byte %d (%q) at %d is no character", at+1, q[at:at+1], utf8.RuneCountInString(q[:at])+1)
	}
	rs := []rune(q)
	if len(rs) > MaxLen {
		return nil, errorf("the query is %d characters long: %q at %d is past the limit of %d characters",
			len(rs), clip(string(rs[MaxLen:])), MaxLen+1, MaxLen)
	}
	for i, r := range rs {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return nil, errorf("control character %U at %d is not allowed", r, i+1)
		}
	}
	p := &parser{kind: kind, rs: rs}
	p.skipSpace()
	if p.eof() {
		return nil, errorf("the query is empty: expected a clause such as email:ann")
	}
	root, err := p.parseOr(0, false)
	if err != nil {
		return nil, err
	}
	if !p.eof() {
		// parseOr stops only at the end or at a ")" it cannot close.
		return nil, errorf("unexpected \")\" at %d: there is no \"(\" to close", p.pos+1)
	}
	return &Query{Kind: kind, Root: root, Clauses: p.clauses}, nil
}

// MustParse is Parse for queries known to be valid (tests, examples); it panics on an
// error.
func MustParse(kind Kind, q string) *Query {
	x, err := Parse(kind, q)
	if err != nil {
		panic(err)
	}
	return x
}

type parser struct {
	kind    Kind
	rs      []rune
	pos     int // index into rs; positions in messages are pos+1
	clauses int
}

func (p *parser) eof() bool { return p.pos >= len(p.rs) }

// atWordEnd reports whether a word ends here: at the end, a blank or a ")".
func (p *parser) atWordEnd() bool {
	return p.eof() || unicode.IsSpace(p.peek()) || p.peek() == ')'
}

func (p *parser) peek() rune {
	if p.eof() {
		return 0
	}
	return p.rs[p.pos]
}

func (p *parser) skipSpace() {
	for !p.eof() && unicode.IsSpace(p.rs[p.pos]) {
		p.pos++
	}
}

// keyword reports whether the word at the position is kw (OR, NOT), standing alone:
// followed by the end, a blank or a parenthesis.
func (p *parser) keyword(kw string) bool {
	n := len(kw)
	if p.pos+n > len(p.rs) || string(p.rs[p.pos:p.pos+n]) != kw {
		return false
	}
	if p.pos+n == len(p.rs) {
		return true
	}
	r := p.rs[p.pos+n]
	return unicode.IsSpace(r) || r == '(' || r == ')'
}

// atTermEnd reports whether no term can start here: the end, a ")" or an OR.
func (p *parser) atTermEnd() bool {
	return p.eof() || p.peek() == ')' || p.keyword("OR")
}

// The parsers of or, and and unary take the depth of parentheses and whether the node
// is negated (an odd number of negations above it), so that each can tell when the
// query's expansion (Resolved.DNF) passes MaxBranches: a node expands into at least as
// many conjunctions as any node below it, so the first term that takes its node's
// count past the limit is the one at fault.

// expansion tracks the conjunctions a node's terms expand into, so far: their sum
// (sum is true: an Or, or a negated And) or their product.
type expansion struct {
	sum bool
	n   int64
}

// term parses one more term of the node with parse, counts it, and fails when the
// node now expands into too many conjunctions.
func (e *expansion) term(p *parser, parse func(depth int, neg bool) (Node, error), depth int, neg bool) (Node, error) {
	start := p.pos
	t, err := parse(depth, neg)
	if err != nil {
		return nil, err
	}
	pos, ng := branches(t)
	k := pos
	if neg {
		k = ng
	}
	if e.sum {
		e.n = sat(e.n + k)
	} else {
		e.n = sat(max(e.n, 1) * k)
	}
	if e.n > MaxBranches {
		text := strings.TrimRightFunc(string(p.rs[start:p.pos]), unicode.IsSpace)
		return nil, errorf("%q at %d takes the query past %d alternatives (OR branches, with negations expanded): at most %d are allowed",
			clip(text), start+1, MaxBranches, MaxBranches)
	}
	return t, nil
}

func (p *parser) parseOr(depth int, neg bool) (Node, error) {
	p.skipSpace()
	if p.keyword("OR") {
		return nil, errorf("\"OR\" at %d has no clause before it", p.pos+1)
	}
	exp := expansion{sum: !neg}
	first, err := exp.term(p, p.parseAnd, depth, neg)
	if err != nil {
		return nil, err
	}
	terms := []Node{first}
	for {
		p.skipSpace()
		if !p.keyword("OR") {
			break
		}
		at := p.pos
		p.pos += 2
		p.skipSpace()
		if p.atTermEnd() {
			return nil, errorf("\"OR\" at %d has no clause after it", at+1)
		}
		t, err := exp.term(p, p.parseAnd, depth, neg)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	return flatten(terms, true), nil
}

func (p *parser) parseAnd(depth int, neg bool) (Node, error) {
	var terms []Node
	exp := expansion{sum: neg}
	for {
		p.skipSpace()
		if p.atTermEnd() {
			break
		}
		t, err := exp.term(p, p.parseUnary, depth, neg)
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		// Callers only come here where a term must start.
		return nil, errorf("expected a clause at %d", p.pos+1)
	}
	return flatten(terms, false), nil
}

// flatten builds an Or (or an And) of terms, merging terms of the same kind (from
// parentheses) so that a tree has one spelling: `(a b) c` is And(a, b, c).
func flatten(terms []Node, or bool) Node {
	if len(terms) == 1 {
		return terms[0]
	}
	var out []Node
	for _, t := range terms {
		switch x := t.(type) {
		case *Or:
			if or {
				out = append(out, x.Terms...)
				continue
			}
		case *And:
			if !or {
				out = append(out, x.Terms...)
				continue
			}
		}
		out = append(out, t)
	}
	if or {
		return &Or{Terms: out}
	}
	return &And{Terms: out}
}

func (p *parser) parseUnary(depth int, neg bool) (Node, error) {
	start := p.pos
	switch {
	case p.peek() == '-':
		p.pos++
		if p.atWordEnd() {
			return nil, errorf("\"-\" at %d has no clause after it: write -field:value", start+1)
		}
		if p.keyword("OR") {
			return nil, errorf("\"-\" at %d is followed by OR: expected a clause", start+1)
		}
		x, err := p.parseUnary(depth, !neg)
		if err != nil {
			return nil, err
		}
		return &Not{Pos: start + 1, X: x}, nil
	case p.keyword("NOT"):
		p.pos += 3
		p.skipSpace()
		if p.atTermEnd() {
			return nil, errorf("\"NOT\" at %d has no clause after it", start+1)
		}
		x, err := p.parseUnary(depth, !neg)
		if err != nil {
			return nil, err
		}
		return &Not{Pos: start + 1, X: x}, nil
	case p.peek() == '(':
		if depth+1 > MaxDepth {
			return nil, errorf("\"(\" at %d nests deeper than %d levels of parentheses", start+1, MaxDepth)
		}
		p.pos++
		p.skipSpace()
		if p.peek() == ')' {
			return nil, errorf("empty parentheses at %d: expected a clause inside \"()\"", start+1)
		}
		if p.eof() {
			return nil, errorf("unclosed \"(\" at %d: expected a clause and \")\"", start+1)
		}
		x, err := p.parseOr(depth+1, neg)
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, errorf("unclosed \"(\" at %d: expected \")\"", start+1)
		}
		p.pos++
		if !p.atWordEnd() {
			return nil, errorf("unexpected %q at %d after \")\": expected a space", p.peek(), p.pos+1)
		}
		return x, nil
	}
	x, err := p.parseAtom()
	if err != nil {
		return nil, err
	}
	if !p.atWordEnd() {
		return nil, errorf("unexpected %q at %d: expected a space between clauses", p.peek(), p.pos+1)
	}
	if p.clauses > MaxClauses {
		return nil, errorf("%q at %d is clause %d: at most %d clauses are allowed (bare words count)",
			clip(string(p.rs[start:p.pos])), start+1, p.clauses, MaxClauses)
	}
	return x, nil
}

// isOpRune reports whether r starts an operator.
func isOpRune(r rune) bool { return r == ':' || r == '<' || r == '>' }

// parseAtom reads a clause or a bare word.
func (p *parser) parseAtom() (Node, error) {
	start := p.pos
	p.clauses++
	if p.peek() == '"' {
		v, err := p.quoted()
		if err != nil {
			return nil, err
		}
		if err := p.afterItem(false); err != nil {
			return nil, err
		}
		return p.text(v)
	}
	// A word is a clause when it has an operator: the field is what comes before it.
	end := start
	for end < len(p.rs) && !unicode.IsSpace(p.rs[end]) && p.rs[end] != '(' && p.rs[end] != ')' && !isOpRune(p.rs[end]) && p.rs[end] != '"' {
		end++
	}
	if end < len(p.rs) && isOpRune(p.rs[end]) {
		return p.clause(start, end)
	}
	word := string(p.rs[start:end])
	if end < len(p.rs) && p.rs[end] == '"' {
		return nil, errorf("unexpected quote at %d inside the word %q: quote the whole text", end+1, word)
	}
	p.pos = end
	if strings.Contains(word, ",") {
		return nil, errorf("%q at %d is a list without a field: write a field, e.g. email:%s, or quote the text", word, start+1, word)
	}
	if strings.Contains(word, "..") {
		return nil, errorf("%q at %d is a range without a field: write a field, e.g. total:%s, or quote the text", word, start+1, word)
	}
	return p.text(Value{Pos: start + 1, Text: word})
}

func (p *parser) text(v Value) (Node, error) {
	if v.Text == "" {
		return nil, errorf("empty quoted text at %d: expected some text between the quotes", v.Pos)
	}
	if utf8.RuneCountInString(v.Text) > MaxTextLen {
		return nil, errorf("the text %q at %d is longer than %d characters", clip(v.Text), v.Pos, MaxTextLen)
	}
	t := &Text{Pos: v.Pos, Value: v}
	if id, ok := parseID(strings.TrimPrefix(v.Text, "#")); ok {
		t.ID = id
	}
	return t, nil
}

// clause reads `field OP values` whose field runs from start to opAt.
func (p *parser) clause(start, opAt int) (Node, error) {
	name := string(p.rs[start:opAt])
	if name == "" {
		return nil, errorf("missing field name before %q at %d: write field:value", p.rs[opAt], opAt+1)
	}
	spec, ok := lookupField(p.kind, name)
	if !ok {
		return nil, p.unknownField(name, start)
	}
	p.pos = opAt
	op := OpEq
	switch p.rs[p.pos] {
	case '<':
		op = OpLt
	case '>':
		op = OpGt
	}
	p.pos++
	if op != OpEq && p.peek() == '=' {
		op++ // OpLt → OpLe, OpGt → OpGe
		p.pos++
	}
	opText := string(p.rs[opAt:p.pos])
	if op != OpEq && !slices.Contains(spec.Type.Ops(), op) {
		return nil, errorf("operator %q at %d does not apply to %s: write %s:value", opText, opAt+1, spec.Name, spec.Name)
	}
	items, rng, err := p.values(spec, opText)
	if err != nil {
		return nil, err
	}
	c := &Clause{Pos: start + 1, Field: spec.Name, Type: spec.Type, Op: op}
	switch {
	case rng:
		if op != OpEq {
			return nil, errorf("range at %d cannot follow %q: write %s:a..b", items[0].Pos, opText, spec.Name)
		}
		if !slices.Contains(spec.Type.Ops(), OpRange) {
			return nil, errorf("range at %d does not apply to %s: give one value or a list a,b", items[0].Pos, spec.Name)
		}
		c.Op = OpRange
	case len(items) > 1:
		if op != OpEq {
			return nil, errorf("list at %d cannot follow %q: compare with one value", items[0].Pos, opText)
		}
		if !slices.Contains(spec.Type.Ops(), OpAny) {
			return nil, errorf("list at %d does not apply to %s: give one value", items[0].Pos, spec.Name)
		}
		c.Op = OpAny
	}
	for i := range items {
		if err := p.check(spec, &items[i], rng); err != nil {
			return nil, err
		}
	}
	if rng {
		if items[0].Star && items[1].Star {
			return nil, errorf("range \"*..*\" at %d has no bounds: give at least one side", items[0].Pos)
		}
		if err := checkOrder(spec, items); err != nil {
			return nil, err
		}
	}
	c.Values = items
	return c, nil
}

func (p *parser) unknownField(name string, start int) error {
	var names []string
	best, bestD := "", 3
	for _, f := range Fields(p.kind) {
		names = append(names, string(f.Name))
		if d := distance(strings.ToLower(name), string(f.Name)); d < bestD && d < utf8.RuneCountInString(name) {
			best, bestD = string(f.Name), d
		}
	}
	other := Subscribers
	if p.kind == Subscribers {
		other = Purchases
	}
	if _, ok := lookupField(other, name); ok {
		return errorf("unknown field %q at %d: %s is a %s field, not a %s field; %s fields are %s",
			name, start+1, strings.ToLower(name), other, p.kind, p.kind, strings.Join(names, ", "))
	}
	if best != "" {
		return errorf("unknown field %q at %d: did you mean %q?", name, start+1, best)
	}
	return errorf("unknown field %q at %d: %s fields are %s", name, start+1, p.kind, strings.Join(names, ", "))
}

// distance is the Levenshtein distance between a and b, for suggestions.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// values reads the value after an operator: one item, a list a,b,c or a range a..b.
func (p *parser) values(spec FieldSpec, opText string) (items []Value, rng bool, err error) {
	if p.atWordEnd() {
		return nil, false, errorf("missing value at %d: expected a value after \"%s%s\"", p.pos+1, spec.Name, opText)
	}
	for {
		v, err := p.item(spec, opText)
		if err != nil {
			return nil, false, err
		}
		items = append(items, v)
		switch {
		case p.peek() == ',':
			if rng {
				return nil, false, errorf("\",\" at %d follows a range: a range cannot be part of a list", p.pos+1)
			}
			p.pos++
			if p.atWordEnd() || p.peek() == ',' {
				return nil, false, errorf("empty item in the list at %d: expected a value after \",\"", p.pos+1)
			}
		case p.startsRange():
			if rng || len(items) > 1 {
				return nil, false, errorf("\"..\" at %d: a range has two sides and is not part of a list", p.pos+1)
			}
			rng = true
			p.pos += 2
			if p.atWordEnd() {
				return nil, false, errorf("range at %d has no end: write a..b, or a..* for no end", items[0].Pos)
			}
		default:
			return items, rng, nil
		}
	}
}

func (p *parser) startsRange() bool {
	return p.pos+1 < len(p.rs) && p.rs[p.pos] == '.' && p.rs[p.pos+1] == '.'
}

// item reads one value: a quoted string or a word up to a blank, a parenthesis, a
// comma or "..".
func (p *parser) item(spec FieldSpec, opText string) (Value, error) {
	if p.peek() == '"' {
		v, err := p.quoted()
		if err != nil {
			return v, err
		}
		return v, p.afterItem(true)
	}
	start := p.pos
	for !p.eof() {
		r := p.peek()
		if unicode.IsSpace(r) || r == '(' || r == ')' || r == ',' || p.startsRange() {
			break
		}
		if r == '"' {
			return Value{}, errorf("unexpected quote at %d inside a value: quote the whole value", p.pos+1)
		}
		p.pos++
	}
	if p.pos == start {
		if p.startsRange() {
			return Value{}, errorf("range at %d has no start: write a..b, or *..b for no start", start+1)
		}
		return Value{}, errorf("missing value at %d: expected a value after \"%s%s\"", start+1, spec.Name, opText)
	}
	w := string(p.rs[start:p.pos])
	return Value{Pos: start + 1, Text: w, Star: w == "*"}, nil
}

// quoted reads a "quoted string" in which \" and \\ stand for " and \.
func (p *parser) quoted() (Value, error) {
	start := p.pos
	p.pos++
	var b strings.Builder
	for {
		if p.eof() {
			return Value{}, errorf("unclosed quote at %d: expected a closing \"", start+1)
		}
		r := p.rs[p.pos]
		switch r {
		case '"':
			p.pos++
			return Value{Pos: start + 1, Text: b.String()}, nil
		case '\\':
			if p.pos+1 >= len(p.rs) {
				return Value{}, errorf("unclosed quote at %d: expected a closing \"", start+1)
			}
			n := p.rs[p.pos+1]
			if n != '"' && n != '\\' {
				return Value{}, errorf("unknown escape \"\\%c\" at %d: only \\\" and \\\\ are allowed in quotes", n, p.pos+1)
			}
			b.WriteRune(n)
			p.pos += 2
		default:
			b.WriteRune(r)
			p.pos++
		}
	}
}

// afterItem checks what follows a closing quote: the end, a blank, a ")", and in a
// value also "," or "..".
func (p *parser) afterItem(inValue bool) error {
	if p.atWordEnd() {
		return nil
	}
	if inValue && (p.peek() == ',' || p.startsRange()) {
		return nil
	}
	what := "a space or \")\""
	if inValue {
		what = "a space, \")\", \",\" or \"..\""
	}
	return errorf("unexpected %q at %d after a quoted string: expected %s", p.peek(), p.pos+1, what)
}

// check reads one value as its field's type, in place.
func (p *parser) check(spec FieldSpec, v *Value, inRange bool) error {
	if v.Star {
		if inRange {
			return nil
		}
		v.Star = false // "*" outside a range is the text "*"
	}
	if v.Text == "" {
		return errorf("empty value at %d: expected some text between the quotes", v.Pos)
	}
	if utf8.RuneCountInString(v.Text) > MaxTextLen {
		return errorf("the value %q at %d is longer than %d characters", clip(v.Text), v.Pos, MaxTextLen)
	}
	switch spec.Type {
	case TypeID, TypeRef:
		id, ok := parseID(v.Text)
		if !ok {
			return errorf("%q at %d is not an id: ids are whole numbers from 1, such as 42", clip(v.Text), v.Pos)
		}
		v.ID = id
	case TypeStatus:
		u := strings.ToUpper(v.Text)
		var codes []string
		if p.kind == Subscribers {
			for _, s := range shop.SubscriptionStatuses {
				codes = append(codes, string(s))
			}
		} else {
			for _, s := range shop.PurchaseStatuses {
				codes = append(codes, string(s))
			}
		}
		if !slices.Contains(codes, u) {
			return errorf("%q at %d is not a %s status: use %s", clip(v.Text), v.Pos, p.kind, orList(codes))
		}
		v.Text = u
	case TypeCurrency:
		u := strings.ToUpper(v.Text)
		if _, ok := shop.CurrencyDigits(u); !ok {
			return errorf("%q at %d is not a currency: use an ISO 4217 code such as USD or EUR", clip(v.Text), v.Pos)
		}
		v.Text = u
	case TypeMoney:
		if !shop.IsDecimal(v.Text) {
			return errorf("%q at %d is not an amount: use a decimal number such as 10 or 10.50", clip(v.Text), v.Pos)
		}
	case TypeDate:
		// Any clock will do to tell whether strtotime() reads the text; Resolve reads it
		// again against the request's.
		if _, err := strtotime.Parse(v.Text, time.Unix(0, 0).UTC()); err != nil {
			return errorf("%q at %d is not a date", clip(v.Text), v.Pos)
		}
	case TypeShip:
		l := strings.ToLower(v.Text)
		if !slices.Contains(shipValues, l) {
			return errorf("%q at %d is not a ship value: use ship:yes or ship:no", clip(v.Text), v.Pos)
		}
		v.Text = l
	case TypeIs:
		l := strings.ToLower(v.Text)
		if !slices.Contains(isValues, l) {
			return errorf("%q at %d is not a state: use is:unshipped or is:shipped", clip(v.Text), v.Pos)
		}
		v.Text = l
	case TypeDomain:
		if strings.Contains(v.Text, "@") {
			return errorf("%q at %d is not a domain: write the part after \"@\", such as acme.io", clip(v.Text), v.Pos)
		}
	}
	return nil
}

// checkOrder refuses a range of ids or amounts that ends before it starts. Date ranges
// are checked once resolved (Query.Resolve).
func checkOrder(spec FieldSpec, items []Value) error {
	lo, hi := items[0], items[1]
	if lo.Star || hi.Star {
		return nil
	}
	switch spec.Type {
	case TypeID:
		if lo.ID > hi.ID {
			return errorf("range \"%s..%s\" at %d ends before it starts", lo.Text, hi.Text, lo.Pos)
		}
	case TypeMoney:
		if decimal(lo.Text).Cmp(decimal(hi.Text)) > 0 {
			return errorf("range \"%s..%s\" at %d ends before it starts", lo.Text, hi.Text, lo.Pos)
		}
	}
	return nil
}

// decimal reads a string that shop.IsDecimal accepted as an exact rational.
func decimal(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

// parseID reads an id as the API writes ids: [1-9][0-9]*, at most 2^63-1.
func parseID(s string) (int64, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' || len(s) > 19 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func orList(codes []string) string {
	return strings.Join(codes[:len(codes)-1], ", ") + " or " + codes[len(codes)-1]
}

// clip shortens a value quoted back in a message.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 64 {
		return s
	}
	return string([]rune(s)[:64]) + "…"
}

// branches returns how many conjunctions a node and its negation expand into,
// saturating at math.MaxInt32.
func branches(n Node) (pos, neg int64) {
	switch x := n.(type) {
	case *Or:
		pos, neg = 0, 1
		for _, t := range x.Terms {
			p, q := branches(t)
			pos, neg = sat(pos+p), sat(neg*q)
		}
		return pos, neg
	case *And:
		pos, neg = 1, 0
		for _, t := range x.Terms {
			p, q := branches(t)
			pos, neg = sat(pos*p), sat(neg+q)
		}
		return pos, neg
	case *Not:
		p, q := branches(x.X)
		return q, p
	}
	return 1, 1
}

func sat(n int64) int64 { return min(n, math.MaxInt32) }
