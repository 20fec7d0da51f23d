package importer

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// recordTypes are the record types a fast decode may fill, by the fuzzer's choice.
var recordTypes = []func() any{
	func() any { return new(accountIn) },
	func() any { return new(storefrontIn) },
	func() any { return new(subscriberIn) },
	func() any { return new(purchaseIn) },
	func() any { return new(lineItemIn) },
	func() any { return new(transactionIn) },
}

// FuzzDecodeRecord_FastSameAsStrict checks the premise of decodeRecord's fast path:
// whatever JSON v2's decoder accepts, encoding/json's strict decoder accepts too, with
// the same values, so that the fast path changes no import's outcome.
//
//	go test -run XXX -fuzz=FuzzDecodeRecord_FastSameAsStrict -fuzztime=5m ./internal/importer
func FuzzDecodeRecord_FastSameAsStrict(f *testing.F) {
	full, err := os.ReadFile("../mysql/testdata/import/full.json")
	if err != nil {
		f.Fatal(err)
	}
	var doc map[string][]json.RawMessage
	if err := json.Unmarshal(full, &doc); err != nil {
		f.Fatal(err)
	}
	for kind, name := range []string{"accounts", "storefronts", "subscribers", "purchases"} {
		if len(doc[name]) == 0 {
			f.Fatalf("the fixture has no %s", name)
		}
		for _, raw := range doc[name] {
			f.Add([]byte(raw), uint8(kind))
		}
	}
	for _, s := range []string{
		`{"ID":1}`, `{"id":1,"id":2}`, `{"id":1e3}`, `{"id":-0}`, `{"id":1.0}`, `{"id":"1"}`, `{"id":9223372036854775808}`,
		`{"id":null,"name":null}`, `{"name":"\ud800"}`, "{\"name\":\"\xff\"}", `{"name":"a\u0000b"}`, `{"Name":"x","name":"y"}`,
		`{"product_keys":[null,"K"]}`, `{"product_keys":null}`, `{"total":"1.00","Total":"2.00"}`, `{"customer":{"id":1,"ID":2}}`,
		`{"line_items":[{"id":1},{}]}`, `{"transactions":[{"amount":"1.00","created_at":1}]}`, `{"created_at":1,"updated_at":null}`,
		`{"status":"ACT","unknown":1}`, `{}`, `[]`, `null`, `{"id":1} `, ` {"id":1}`, `{"id":1}x`, `{"is_success":1}`, `{"requires_shipping":"true"}`,
	} {
		for kind := range recordTypes {
			f.Add([]byte(s), uint8(kind))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte, kind uint8) {
		newRecord := recordTypes[int(kind)%len(recordTypes)]
		fast := newRecord()
		if !decodeFast(raw, fast) {
			return
		}
		strict := newRecord()
		if err := decodeStrict(raw, strict); err != nil {
			t.Fatalf("JSON v2 accepts %q, encoding/json refuses it: %v", raw, err)
		}
		if !reflect.DeepEqual(fast, strict) {
			t.Fatalf("%q decodes to %+v by JSON v2, %+v by encoding/json", raw, fast, strict)
		}
	})
}
