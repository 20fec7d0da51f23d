package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"storefront/web/openapi"
)

// validate checks a JSON value, as a json.Decoder with UseNumber reads it, against a
// schema of the document, and returns what does not hold, each prefixed with where.
// It knows the keywords the document uses: $ref, type, enum, const, anyOf, oneOf,
// properties, required, additionalProperties false, items, pattern, minLength,
// maxLength, minimum, maximum and the formats int64 and email.
func validate(doc *openapi.Doc, s *openapi.Schema, v any, at string) []string {
	s, err := doc.Schema(s)
	if err != nil {
		return []string{at + ": " + err.Error()}
	}
	if s == nil {
		return nil
	}
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, at+": "+fmt.Sprintf(format, args...)) }
	if len(s.AnyOf) > 0 || len(s.OneOf) > 0 {
		alts, n := append(slices.Clone(s.AnyOf), s.OneOf...), 0
		for _, a := range alts {
			if len(validate(doc, a, v, at)) == 0 {
				n++
			}
		}
		if n == 0 || len(s.OneOf) > 0 && n != 1 {
			fail("%s matches %d of its %d alternatives", short(v), n, len(alts))
		}
	}
	if len(s.Const) > 0 && !sameJSON(s.Const, v) {
		fail("%s is not %s", short(v), s.Const)
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { b, _ := json.Marshal(e); return sameJSON(b, v) }) {
		fail("%s is none of %v", short(v), s.Enum)
	}
	if len(s.Type) > 0 && !slices.ContainsFunc(s.Type, func(t string) bool { return hasType(v, t) }) {
		fail("%s is not of type %v", short(v), s.Type)
		return bad
	}
	switch x := v.(type) {
	case string:
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(x) {
			fail("%q does not match %s", x, s.Pattern)
		}
		if n := utf8.RuneCountInString(x); s.MinLength != nil && n < *s.MinLength || s.MaxLength != nil && n > *s.MaxLength {
			fail("%q has %d characters", x, n)
		}
		if s.Format == "email" && !strings.Contains(x, "@") {
			fail("%q is not an e-mail address", x)
		}
	case json.Number:
		f, _ := x.Float64()
		if s.Minimum != nil {
			if m, _ := s.Minimum.Float64(); f < m {
				fail("%s is below %s", x, *s.Minimum)
			}
		}
		if s.Maximum != nil {
			if m, _ := s.Maximum.Float64(); f > m {
				fail("%s is above %s", x, *s.Maximum)
			}
		}
		if _, err := strconv.ParseInt(x.String(), 10, 64); s.Format == "int64" && err != nil {
			fail("%s is not an int64", x)
		}
	case []any:
		for i, item := range x {
			bad = append(bad, validate(doc, s.Items, item, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case map[string]any:
		for _, k := range s.Required {
			if _, ok := x[k]; !ok {
				fail("no member %s", k)
			}
		}
		for k, member := range x {
			ps, ok := s.Properties.Values[k]
			if !ok {
				if string(s.AdditionalProperties) == "false" {
					fail("member %s is not in the schema", k)
				}
				continue
			}
			bad = append(bad, validate(doc, ps, member, at+"."+k)...)
		}
	}
	return bad
}

func hasType(v any, t string) bool {
	switch x := v.(type) {
	case nil:
		return t == "null"
	case bool:
		return t == "boolean"
	case string:
		return t == "string"
	case json.Number:
		_, err := strconv.ParseInt(x.String(), 10, 64)
		return t == "number" || t == "integer" && err == nil
	case []any:
		return t == "array"
	case map[string]any:
		return t == "object"
	}
	return false
}

func sameJSON(raw []byte, v any) bool {
	b, _ := json.Marshal(v)
	var x, y any
	_ = json.Unmarshal(raw, &x)
	_ = json.Unmarshal(b, &y)
	return fmt.Sprint(x) == fmt.Sprint(y)
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// checkAnswer checks an answer against the document's operation: its status is
// documented, the headers it must send are there, each documented header it sends has
// the documented form, the headers of this API that it sends are documented for that
// status, and its body is of a documented media type and, in JSON, valid against the
// schema.
func checkAnswer(t *testing.T, doc *openapi.Doc, method, docPath string, r response) {
	t.Helper()
	item := doc.Paths.Values[docPath]
	if item == nil {
		t.Fatalf("%s is not documented", docPath)
	}
	var op *openapi.Operation
	for _, mo := range item.Operations() {
		if mo.Method == method {
			op = mo.Op
		}
	}
	status := strconv.Itoa(r.status)
	ref := op.Responses.Values[status]
	if ref == nil {
		t.Errorf("%s %s: %s is not documented", method, docPath, status)
		return
	}
	resp, err := doc.Response(ref)
	if err != nil {
		t.Fatal(err)
	}
	where := method + " " + docPath + " " + status
	for name, h := range resp.Headers.Values {
		h, err := doc.Header(h)
		if err != nil {
			t.Fatal(err)
		}
		vs, sent := r.header[http.CanonicalHeaderKey(name)]
		if !sent {
			if h.Required {
				t.Errorf("%s: no %s", where, name)
			}
			continue
		}
		for _, v := range vs {
			// A header carries a number as its digits (OpenAPI's simple style).
			var value any = v
			if hs, _ := doc.Schema(h.Schema); hs != nil && (slices.Contains(hs.Type, "integer") || slices.Contains(hs.Type, "number")) {
				value = json.Number(v)
			}
			for _, msg := range validate(doc, h.Schema, value, where+" header "+name) {
				t.Error(msg)
			}
		}
	}
	for name := range r.header {
		ours := strings.HasPrefix(name, "Storefront-") || strings.HasPrefix(name, "Ratelimit-") ||
			slices.Contains([]string{"Link", "X-Total-Count", "Dpd-Collection-Count", "Etag", "Content-Disposition", "Retry-After"}, name)
		if ours && !slices.ContainsFunc(resp.Headers.Keys, func(k string) bool { return http.CanonicalHeaderKey(k) == name }) {
			t.Errorf("%s: header %s is sent but not documented", where, name)
		}
	}
	if len(r.body) == 0 && len(resp.Content.Keys) == 0 {
		return
	}
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	media := resp.Content.Values[mt]
	if media == nil {
		t.Errorf("%s: the body is %s, documented %v", where, mt, resp.Content.Keys)
		return
	}
	if mt != "application/json" {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Errorf("%s: the body is not JSON: %v", where, err)
		return
	}
	for i, msg := range validate(doc, media.Schema, v, where+" body") {
		if i == 10 {
			t.Errorf("%s: and more", where)
			break
		}
		t.Error(msg)
	}
}

// TestOpenAPI_SearchAnswers checks the answers of the lists and exports that take a
// search (q) against openapi.json: pages of purchases and subscribers in both orders,
// counted, a 304, the CSV exports, a q without dates and a q that cannot be read. Every
// answer with a q that was read names it in Storefront-Query and Storefront-Query-Dates
// (empty without dates).
func TestOpenAPI_SearchAnswers(t *testing.T) {
	e := newAPI(t, 0)
	doc, err := openapi.Parse(openapi.Document())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, docPath, q string
		// dates is what the search headers must say (checkSearchHeaders).
		dates string
	}{
		{"/api/v2/purchases?per_page=5&include_count=1", "/purchases", `status:act,pnd created>=-300days OR domain:example.com`, "*"},
		{"/api/v2/purchases?order=desc&page=2&per_page=3", "/purchases", `-status:rfd total>10`, ""},
		{"/api/v2/purchases.csv", "/purchases.csv", `created:yesterday OR name:a`, "*"},
		{"/api/v2/purchases.csv?rows=line_items", "/purchases.csv", `email:zz`, ""},
		{e.path("/api/v2/storefronts/%d/subscribers?per_page=4&include_count=1", 1), "/storefronts/{storefront_id}/subscribers", `status:active OR active:today`, "*"},
		{e.path("/api/v2/storefronts/%d/subscribers.csv", 1), "/storefronts/{storefront_id}/subscribers.csv", `-status:closed`, ""},
		{"/api/v2/purchases", "/purchases", `total>`, "-"},
		{e.path("/api/v2/storefronts/%d/subscribers", 1), "/storefronts/{storefront_id}/subscribers", `started>"last mundane"`, "-"},
		{"/api/v2/purchases.csv", "/purchases.csv", `emial:x`, "-"},
		{"/api/v2/storefronts/99999/subscribers", "/storefronts/{storefront_id}/subscribers", `status:active`, "-"},
		{"/api/v2/storefronts/99999/subscribers.csv", "/storefronts/{storefront_id}/subscribers.csv", `status:active`, "-"},
		{"/api/v2/purchases?per_page=0", "/purchases", `status:act`, "-"},
	} {
		sep := "?"
		if strings.Contains(c.path, "?") {
			sep = "&"
		}
		target := c.path + sep + "q=" + url.QueryEscape(c.q)
		r := e.get(target, e.ro)
		checkAnswer(t, doc, "GET", c.docPath, r)
		checkSearchHeaders(t, target, r, c.dates)
		if c.docPath == "/purchases" && r.status == 200 {
			// Asked again with its validator: 304, which names the search too.
			nm := e.do("GET", target, e.ro, nil, map[string]string{"If-None-Match": r.header.Get("ETag")})
			if nm.status != 304 {
				t.Errorf("%s with If-None-Match: %d, want 304", target, nm.status)
			}
			checkAnswer(t, doc, "GET", c.docPath, nm)
			checkSearchHeaders(t, target+" (304)", nm, c.dates)
		}
	}
}

// checkSearchHeaders checks the search headers of an answer: none ("-"), or
// Storefront-Query and Storefront-Query-Dates, the latter empty ("") or not ("*").
func checkSearchHeaders(t *testing.T, target string, r response, dates string) {
	t.Helper()
	q, hasQ := r.header["Storefront-Query"]
	d, hasD := r.header["Storefront-Query-Dates"]
	switch dates {
	case "-":
		if hasQ || hasD {
			t.Errorf("%s: %d names a search it could not read: %v %v", target, r.status, q, d)
		}
	default:
		if !hasQ || !hasD || q[0] == "" || (dates == "") != (d[0] == "") {
			t.Errorf("%s: %d with Storefront-Query %q and Storefront-Query-Dates %q (sent: %v, %v), want both, the dates %s",
				target, r.status, r.header.Get("Storefront-Query"), r.header.Get("Storefront-Query-Dates"), hasQ, hasD, map[bool]string{true: "empty", false: "named"}[dates == ""])
		}
	}
}
