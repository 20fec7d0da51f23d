package search

import (
	"strings"
	"unicode"
)

// String prints the query in canonical form: lower-case field names, upper-case
// statuses and currencies, "-" for every negation, explicit OR, values quoted only when
// they must be, and only the parentheses the tree needs. Parsing the printed query
// gives the same tree.
func (q *Query) String() string {
	var b strings.Builder
	writeNode(&b, q.Root, false)
	return b.String()
}

// String prints one node as String prints a query.
func String(n Node) string {
	var b strings.Builder
	writeNode(&b, n, false)
	return b.String()
}

// writeNode writes n; inAnd says n is a term of an And or the operand of a Not, where
// an Or needs parentheses.
func writeNode(b *strings.Builder, n Node, inAnd bool) {
	switch x := n.(type) {
	case *Or:
		if inAnd {
			b.WriteByte('(')
		}
		for i, t := range x.Terms {
			if i > 0 {
				b.WriteString(" OR ")
			}
			writeNode(b, t, false)
		}
		if inAnd {
			b.WriteByte(')')
		}
	case *And:
		for i, t := range x.Terms {
			if i > 0 {
				b.WriteByte(' ')
			}
			writeNode(b, t, true)
		}
	case *Not:
		b.WriteByte('-')
		if _, ok := x.X.(*And); ok {
			b.WriteByte('(')
			writeNode(b, x.X, false)
			b.WriteByte(')')
			return
		}
		writeNode(b, x.X, true)
	case *Clause:
		b.WriteString(string(x.Field))
		b.WriteString(x.Op.Symbol())
		sep := ","
		if x.Op == OpRange {
			sep = ".."
		}
		for i, v := range x.Values {
			if i > 0 {
				b.WriteString(sep)
			}
			writeValue(b, v, x.Op, i == 0)
		}
	case *Text:
		s := x.Value.Text
		if needsQuote(s) || s[0] == '-' || s == "OR" || s == "NOT" || strings.ContainsAny(s, ":<>") {
			writeQuoted(b, s)
		} else {
			b.WriteString(s)
		}
	}
}

// writeValue writes a value, quoted only where a word would read back otherwise: a
// value after "<" or ">" that starts with "=", a range side "*" that is text, and a
// range's start that ends with "." (its "..." would end it early). The printed query
// is never longer than the one parsed.
func writeValue(b *strings.Builder, v Value, op Op, first bool) {
	switch {
	case v.Star:
		b.WriteByte('*')
	case needsQuote(v.Text) ||
		(op != OpEq && op != OpAny && op != OpRange && strings.HasPrefix(v.Text, "=")) ||
		(op == OpRange && (v.Text == "*" || (first && strings.HasSuffix(v.Text, ".")))):
		writeQuoted(b, v.Text)
	default:
		b.WriteString(v.Text)
	}
}

// Word returns text as a query writes it for a field's value: as it is when it reads
// back as one word of itself, else quoted.
func Word(text string) string {
	if !needsQuote(text) {
		return text
	}
	var b strings.Builder
	writeQuoted(&b, text)
	return b.String()
}

// needsQuote reports whether text would not read back as one word of itself.
func needsQuote(s string) bool {
	if s == "" || strings.Contains(s, "..") {
		return true
	}
	for _, r := range s {
		if unicode.IsSpace(r) || r == '(' || r == ')' || r == '"' || r == ',' {
			return true
		}
	}
	return false
}

func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
}
