package web

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"storefront/internal/search"
)

// dateWords are the words that may stand before a date typed bare, and how the date
// then compares: "since last monday" is created>="last monday".
var dateWords = map[string]search.Op{
	"since": search.OpGe, "from": search.OpGe, "after": search.OpGt,
	"before": search.OpLt, "until": search.OpLe,
}

// dateSuggestion offers a run of bare words (part, lower case) that PHP's strtotime()
// reads as a date as a comparison of field: a whole day as that day
// (created:yesterday), an instant as the time since it (created>="2 weeks ago"), or as
// a word before it says ("before 2026-11-01" as created<2026-11-01). The label says
// what the date means now, in the account's zone.
//
// A single word of letters is read only as "today" or "yesterday": strtotime() also
// reads a letter as a military time zone ("a" is an hour ago), a month's name as that
// month's day of today's number, and a weekday's as the coming one.
func dateSuggestion(field search.Field, now time.Time, loc *time.Location, prefix, part string, add func(value, label, kind string)) {
	op, text := search.Op(0), part
	if w, rest, ok := strings.Cut(part, " "); ok {
		if o, ok := dateWords[w]; ok {
			op, text = o, rest
		}
	}
	if !strings.ContainsAny(text, "0123456789 \t") && text != "today" && text != "yesterday" {
		return
	}
	if _, err := strconv.ParseUint(text, 10, 64); err == nil {
		return // an id
	}
	sp, err := search.ResolveDate(text, now, loc)
	if err != nil {
		return
	}
	if op == 0 {
		op = search.OpGe
		if sp.WholeDay {
			op = search.OpEq
		}
	}
	clause := string(field) + op.Symbol() + search.Word(text)
	add(prefix+clause+" ", clause+" · "+dateMeaning(op, sp, loc), "date")
}

// dateMeaning says what a comparison with a date selects: "Fri 27 Nov 2026", "since
// Mon 16 Nov 2026 03:33 EST", "through Fri 27 Nov 2026".
func dateMeaning(op search.Op, sp search.Span, loc *time.Location) string {
	when := func(t time.Time) string {
		if sp.WholeDay {
			return t.In(loc).Format("Mon 2 Jan 2006")
		}
		return t.In(loc).Format("Mon 2 Jan 2006 15:04 MST")
	}
	switch op {
	case search.OpGe:
		return "since " + when(sp.From)
	case search.OpGt:
		return "after " + when(sp.From)
	case search.OpLt:
		return "before " + when(sp.From)
	case search.OpLe:
		if sp.WholeDay {
			return "through " + when(sp.From)
		}
		return "until " + when(sp.From)
	}
	return when(sp.From)
}

// fixClause reads a clause the language refuses for its value as the value a person
// meant, when one stands for it: status:refunded as status:RFD, storefront:pixel as the
// storefront whose name holds "pixel" (storefront:2), customer:ann@acme.io as
// email:ann@acme.io. Any other word comes back as it is.
func fixClause(kind search.Kind, w string, values suggester) (string, error) {
	neg := ""
	if strings.HasPrefix(w, "-") {
		neg = "-"
	}
	field, value, ok := strings.Cut(w[len(neg):], ":")
	if !ok || value == "" || strings.Contains(value, ",") {
		return w, nil
	}
	if _, err := search.Parse(kind, w); err == nil {
		return w, nil
	}
	f := search.Field(strings.ToLower(field))
	if kind == search.Purchases && (f == search.FieldCustomer || f == search.FieldSubscriber) && strings.Contains(value, "@") {
		return neg + string(search.FieldEmail) + ":" + value, nil
	}
	fixed := ""
	err := values(f, neg+string(f)+":", strings.ToLower(value), func(v, _, _ string) {
		if fixed == "" {
			fixed = strings.TrimSpace(v)
		}
	})
	if fixed == "" {
		fixed = w
	}
	return fixed, err
}

// pastedAddress is an e-mail address as a mail program copies it: in angle brackets
// after a name ("Ann Lee" <ann@acme.io>), or a mailto: link.
var pastedAddress = regexp.MustCompile(`(?i)<([^<>\s@]+@[^<>\s@]+)>|\bmailto:([^\s<>?@]+@[^\s<>?@,;]+)`)

// pastedAddresses reads a From or To line pasted whole as the search for its addresses:
// "Jürgen Anderson" <jurgen@acme.io> as email:jurgen@acme.io, several as any of them
// (email:a,b; one of those that differ only in letter case, as the search does). ""
// when text holds no address so written. The names beside them are
// left out: the address is who wrote in.
func pastedAddresses(text string) string {
	var addrs []string
	for _, m := range pastedAddress.FindAllStringSubmatch(text, maxSuggestions) {
		a := search.Word(m[1] + m[2])
		if !slices.ContainsFunc(addrs, func(b string) bool { return strings.EqualFold(a, b) }) && !strings.HasPrefix(a, `"`) {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		return ""
	}
	return "email:" + strings.Join(addrs, ",")
}

// readable reports whether a query's text may be read at all: valid UTF-8 within the
// language's length. A longer or broken one is refused before any statement is sent
// for it.
func readable(query string) bool {
	return utf8.ValidString(query) && utf8.RuneCountInString(query) <= search.MaxLen
}

// maxReadWords is the most words of a query that reading reads: each run of them may
// cost a statement (an e-mail domain's).
const maxReadWords = 12

// fillerWords are the words a sentence about an order has that select nothing: the
// reading leaves them out ("the acme order" reads as domain:acme.io).
var fillerWords = map[string]bool{"the": true, "a": true, "an": true, "of": true, "and": true, "with": true,
	"order": true, "orders": true, "purchase": true, "purchases": true}

// reading reads a whole query of words the way a person may have meant it, from its
// end: the longest run of bare words that stands for a field (up to maxBareRun words)
// becomes its first suggestion; a word that stands for nothing stays, as a person's
// name does; filler words and a comma that ends a word, as in a sentence, are left
// out, and a clause whose value the language refuses is read as the value meant
// (fixClause). "the acme order since last monday, not refunded" reads as
// `domain:acme.io created>="last monday" -status:RFD`. "" when that changes nothing,
// leaves nothing, or the query has quotes, parentheses or OR, or more than
// maxReadWords words: it reads the text word by word.
func reading(kind search.Kind, query string, values suggester) (string, error) {
	out, _, err := readWords(kind, query, values)
	return out, err
}

// readWords is reading, and how many bare words its answer keeps: words that stood
// for nothing.
func readWords(kind search.Kind, query string, values suggester) (out string, bare int, err error) {
	if q := pastedAddresses(query); q != "" {
		return q, 0, nil
	}
	words := strings.Fields(query)
	if len(words) > maxReadWords || strings.ContainsAny(query, "\"()") || slices.Contains(words, "OR") {
		return "", 0, nil
	}
	kept := words[:0:0]
	for _, w := range words {
		if !strings.ContainsAny(w, ":<>") {
			w = strings.TrimRight(w, ",")
			if w == "" || fillerWords[strings.ToLower(w)] {
				continue
			}
		} else if fixed, err := fixClause(kind, w, values); err != nil {
			return "", 0, err
		} else {
			w = fixed
		}
		kept = append(kept, w)
	}
	text := strings.Join(kept, " ")
	var read []string
	for text != "" {
		found, rest := "", ""
		for _, r := range bareRuns(text, maxBareRun) {
			if slices.ContainsFunc(strings.Fields(r.words), func(w string) bool { return strings.EqualFold(w, "not") }) {
				continue // a negation, not a value
			}
			if err := values(bareWord, r.neg, strings.ToLower(r.words), func(value, _, _ string) {
				if found == "" {
					found = strings.TrimSpace(value)
				}
			}); err != nil {
				return "", 0, err
			}
			if found != "" {
				rest = r.head
				break
			}
		}
		if found == "" {
			i := strings.LastIndexAny(text, " ")
			found, rest = text[i+1:], text[:i+1]
			if !strings.ContainsAny(found, ":<>") && found != "NOT" {
				bare++
			}
		}
		read = append(read, found)
		text = strings.TrimRight(rest, " ")
	}
	slices.Reverse(read)
	out = strings.Join(read, " ")
	if out == "" || out == strings.Join(words, " ") {
		return "", 0, nil
	}
	return out, bare, nil
}
