package filter_test

import (
	"net/url"
	"testing"
	"unicode/utf8"

	"storefront/internal/filter"
	"storefront/internal/shop"
)

func TestReactivate(t *testing.T) {
	const form, js = "application/x-www-form-urlencoded", "application/json"
	for _, tc := range []struct {
		name, query, ct, body string
		want                  filter.ReactivateParams
		code, param           string
	}{
		{"OKEmpty", "", "", "", filter.ReactivateParams{}, "", ""},
		{"OKForm", "", form, "customer_email=ann%40example.com&refulfill=TRUE", filter.ReactivateParams{CustomerEmail: "ann@example.com", Refulfill: true}, "", ""},
		{"OKFormWithoutType", "", "", "refulfill=1", filter.ReactivateParams{Refulfill: true}, "", ""},
		{"OKJSON", "", js, `{"customer_email":"ann@example.com","refulfill":1}`, filter.ReactivateParams{CustomerEmail: "ann@example.com", Refulfill: true}, "", ""},
		{"OKJSONWithoutType", "", "", `{"refulfill":true}`, filter.ReactivateParams{Refulfill: true}, "", ""},
		{"OKJSONNull", "", js, `{"customer_email":null,"refulfill":null}`, filter.ReactivateParams{}, "", ""},
		{"OKQuery", "refulfill=0&customer_email=ann%40example.com", "", "", filter.ReactivateParams{CustomerEmail: "ann@example.com"}, "", ""},
		{"OKBlankEmailIsNone", "", form, "customer_email=+", filter.ReactivateParams{}, "", ""},
		{"ErrEmailTakenAsGiven", "", form, "customer_email=ann%40example.com%0A", filter.ReactivateParams{}, shop.EInvalid, "customer_email"},
		{"ErrUnknown", "", form, "refulfil=1", filter.ReactivateParams{}, shop.EUnknownParam, "refulfil"},
		{"ErrUnknownJSON", "", js, `{"note":"x"}`, filter.ReactivateParams{}, shop.EUnknownParam, "note"},
		{"ErrQueryAndBody", "refulfill=1", form, "refulfill=1", filter.ReactivateParams{}, shop.EInvalid, "refulfill"},
		{"ErrRefulfillWord", "", form, "refulfill=yes", filter.ReactivateParams{}, shop.EInvalid, "refulfill"},
		{"ErrRefulfillBlanks", "", js, `{"refulfill":" 1"}`, filter.ReactivateParams{}, shop.EInvalid, "refulfill"},
		{"ErrRefulfillTwo", "", js, `{"refulfill":2}`, filter.ReactivateParams{}, shop.EInvalid, "refulfill"},
		{"ErrEmailTwice", "", form, "customer_email=a%40x.io&customer_email=b%40x.io", filter.ReactivateParams{}, shop.EInvalid, "customer_email"},
		{"ErrNotObject", "", js, `[1]`, filter.ReactivateParams{}, shop.EInvalid, ""},
		{"ErrMediaType", "", "text/csv", "a,b", filter.ReactivateParams{}, shop.EInvalid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			got, err := filter.Reactivate(q, tc.ct, []byte(tc.body))
			if shop.ErrorCode(err) != tc.code || shop.ErrorParam(err) != tc.param {
				t.Fatalf("got %v, want %s (%s)", err, tc.code, tc.param)
			}
			if err == nil && got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	t.Run("OKFormValues", func(t *testing.T) {
		got, err := filter.ReactivateForm(url.Values{"customer_email": {"ann@example.com"}, "refulfill": {"1"}})
		if err != nil || got != (filter.ReactivateParams{CustomerEmail: "ann@example.com", Refulfill: true}) {
			t.Fatalf("got %+v, %v", got, err)
		}
	})
}

func TestIdempotencyKey(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
		ok   bool
	}{
		{nil, "", true},
		{[]string{""}, "", true},
		{[]string{"abc-123"}, "abc-123", true},
		{[]string{"a", "b"}, "", false},
		{[]string{"caf\u00e9"}, "", false},
		{[]string{string(make([]byte, 256))}, "", false},
	} {
		got, err := filter.IdempotencyKey(tc.in)
		if got != tc.want || (err == nil) != tc.ok || (err != nil && shop.ErrorParam(err) != "Idempotency-Key") {
			t.Errorf("IdempotencyKey(%q): got %q, %v, want %q, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// FuzzReactivate: any request is read or refused with a parameter error, never a
// panic; an address read is one valid address, taken as sent.
func FuzzReactivate(f *testing.F) {
	f.Add("", "application/json", `{"customer_email":"ann@example.com","refulfill":true}`)
	f.Add("refulfill=1", "", "customer_email=a%40b.io")
	f.Add("", "text/plain", "refulfill=TRUE&x=1")
	f.Fuzz(func(t *testing.T, query, ct, body string) {
		q, _ := url.ParseQuery(query)
		p, err := filter.Reactivate(q, ct, []byte(body))
		if err != nil {
			if c := shop.ErrorCode(err); c != shop.EInvalid && c != shop.EUnknownParam {
				t.Fatalf("got %v, want a parameter error", err)
			}
			if !utf8.ValidString(shop.ErrorParam(err)) {
				t.Fatalf("got param %q, want valid UTF-8", shop.ErrorParam(err))
			}
			return
		}
		if p.CustomerEmail != "" && !shop.ValidEmail(p.CustomerEmail) {
			t.Fatalf("got address %q, want a valid one", p.CustomerEmail)
		}
	})
}
