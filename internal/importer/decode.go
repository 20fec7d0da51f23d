package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
)

// The record types of the import format (accountIn, purchaseIn ...) are made from the
// shop types by gen.go, which says how; wire_gen.go holds them.
//go:generate go run gen.go

// nested names the arrays and objects inside a record whose elements are decoded on
// their own when the record fails, to point at the element at fault.
type nested struct {
	key   string
	array bool
	new   func() any
}

var (
	purchaseNested = []nested{
		{"customer", false, func() any { return new(customerIn) }},
		{"custom_fields", true, func() any { return new(customFieldIn) }},
		{"line_items", true, func() any { return new(lineItemIn) }},
		{"coupons", true, func() any { return new(couponIn) }},
		{"transactions", true, func() any { return new(transactionIn) }},
	}
	subscriberNested = []nested{
		{"subscription", false, func() any { return new(subscriptionIn) }},
	}
)

// decodeRecord decodes one array element strictly into v: unknown fields and wrong
// JSON types are refused. The error is a *fieldError naming the field at fault, with
// the index of a nested array element when there is one.
//
// A record is first decoded by the faster and stricter decoder of JSON v2 (names
// matched exactly, no name twice, valid UTF-8, nothing unknown). What it refuses is
// decoded again by encoding/json, strictly as before, so that a record is accepted
// exactly when it was before with the same values (FuzzDecodeRecord_FastSameAsStrict),
// and a bad record's message is worded as before.
func decodeRecord(raw []byte, v any, inner []nested) error {
	if decodeFast(raw, v) {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	if err := decodeStrict(raw, v); err != nil {
		return locate(raw, err, inner)
	}
	return nil
}

// fastOptions are JSON v2's defaults (exact names, no duplicate, valid UTF-8) and no
// unknown member.
var fastOptions = jsonv2.RejectUnknownMembers(true)

// decodeFast decodes an object into v with JSON v2 and reports whether it did; v is
// then partly filled.
func decodeFast(raw []byte, v any) bool {
	return isObject(raw) && jsonv2.Unmarshal(raw, v, fastOptions) == nil
}

// isObject reports whether raw starts as a JSON object does.
func isObject(raw []byte) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

func decodeStrict(raw []byte, v any) error {
	if !isObject(raw) {
		return &fieldError{msg: "must be an object, not " + jsonKind(bytes.TrimLeft(raw, " \t\r\n"))}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// locate turns a decoding error into a *fieldError, decoding nested elements one by
// one to find which of them is at fault.
func locate(raw []byte, err error, inner []nested) error {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for _, n := range inner {
			val, ok := obj[n.key]
			if !ok || string(val) == "null" {
				continue
			}
			if !n.array {
				if e := decodeStrict(val, n.new()); e != nil {
					return jsonFieldError(n.key, e)
				}
				continue
			}
			var elems []json.RawMessage
			if json.Unmarshal(val, &elems) != nil {
				continue
			}
			for i, el := range elems {
				if e := decodeStrict(el, n.new()); e != nil {
					return jsonFieldError(fmt.Sprintf("%s[%d]", n.key, i), e)
				}
			}
		}
	}
	return jsonFieldError("", err)
}

// jsonFieldError words a decoding error for people, under the path prefix.
func jsonFieldError(prefix string, err error) error {
	join := func(a, b string) string {
		switch {
		case a == "":
			return b
		case b == "":
			return a
		}
		return a + "." + b
	}
	var fe *fieldError
	if errors.As(err, &fe) {
		return &fieldError{field: join(prefix, fe.field), msg: fe.msg}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &fieldError{field: join(prefix, formatPath(te.Field)), msg: fmt.Sprintf("must be %s, not %s", describeType(te.Type), te.Value)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &fieldError{field: prefix, msg: "malformed JSON: " + se.Error()}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return &fieldError{field: join(prefix, strings.Trim(name, `"`)), msg: "unknown field"}
	}
	return &fieldError{field: prefix, msg: err.Error()}
}

// formatPath is the path of a type error as the format names it. encoding/json puts
// the Go name of an embedded struct in it (customer.Customer.firstname for a record
// type that embeds a shop type); the format's keys are all lower case.
func formatPath(field string) string {
	if !strings.ContainsFunc(field, unicode.IsUpper) {
		return field
	}
	parts := strings.Split(field, ".")
	keys := parts[:0]
	for _, p := range parts {
		if r, _ := utf8.DecodeRuneInString(p); !unicode.IsUpper(r) {
			keys = append(keys, p)
		}
	}
	return strings.Join(keys, ".")
}

func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int64, reflect.Int, reflect.Int32:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

// fieldError is a problem with one field of a record; field is a path such as
// "line_items[0].total", empty for the record as a whole.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}
