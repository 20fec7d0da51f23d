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

	"storefront/internal/shop"
)

// The record types mirror the import format. Required fields are pointers so that a
// missing key and a null are both seen (nil), and times are integers so that a wrong
// type is reported with its field name (a json.Unmarshaler's error carries none).

type accountIn struct {
	ID          *int64  `json:"id"`
	Name        *string `json:"name"`
	APIUsername *string `json:"api_username"`
	Timezone    *string `json:"timezone"`
}

type storefrontIn struct {
	ID               *int64  `json:"id"`
	AccountID        *int64  `json:"account_id"`
	Name             *string `json:"name"`
	Currency         *string `json:"currency"`
	DownloadLimit    *int64  `json:"download_limit"`
	DownloadDays     *int64  `json:"download_days"`
	PastDueGraceDays *int64  `json:"past_due_grace_days"`
}

type subscriberIn struct {
	ID           *int64          `json:"id"`
	StorefrontID *int64          `json:"storefront_id"`
	CreatedAt    *int64          `json:"created_at"`
	UpdatedAt    *int64          `json:"updated_at"`
	Username     *string         `json:"username"`
	LastLoginAt  *int64          `json:"last_login_at"`
	Subscription *subscriptionIn `json:"subscription"`
}

// subscriptionIn embeds shop.Subscription for its optional trial fields.
type subscriptionIn struct {
	shop.Subscription
	ID             *int64      `json:"id"`
	Status         *string     `json:"status"`
	Price          *shop.Money `json:"price"`
	Period         *int64      `json:"period"`
	Unit           *string     `json:"unit"`
	TaxAmount      *shop.Money `json:"tax_amount"`
	CreatedAt      *int64      `json:"created_at"`
	UpdatedAt      *int64      `json:"updated_at"`
	StartedAt      *int64      `json:"started_at"`
	EndedAt        *int64      `json:"ended_at"`
	TrialStartedAt *int64      `json:"trial_started_at"`
	LastPaymentAt  *int64      `json:"last_payment_at"`
	NextPaymentAt  *int64      `json:"next_payment_at"`
}

// purchaseIn embeds shop.Purchase for its many nullable text fields; the fields
// declared here shadow the embedded ones of the same JSON name.
type purchaseIn struct {
	shop.Purchase
	ID               *int64           `json:"id"`
	CreatedAt        *int64           `json:"created_at"`
	UpdatedAt        *int64           `json:"updated_at"`
	StorefrontID     *int64           `json:"storefront_id"`
	SubscriberID     *int64           `json:"subscriber_id"`
	Salt             *string          `json:"salt"`
	Status           *string          `json:"status"`
	Currency         *string          `json:"currency"`
	Subtotal         *shop.Money      `json:"subtotal"`
	Discount         *shop.Money      `json:"discount"`
	Tax              *shop.Money      `json:"tax"`
	Shipping         *shop.Money      `json:"shipping"`
	Total            *shop.Money      `json:"total"`
	Customer         *customerIn      `json:"customer"`
	CustomFields     *[]customFieldIn `json:"custom_fields"`
	RequiresShipping *bool            `json:"requires_shipping"`
	LineItems        *[]lineItemIn    `json:"line_items"`
	Coupons          *[]couponIn      `json:"coupons"`
	MarketingOptin   *bool            `json:"marketing_optin"`
	Transactions     *[]transactionIn `json:"transactions"`
}

// customerIn embeds shop.Customer for its optional names and e-mail.
type customerIn struct {
	shop.Customer
	ID            *int64 `json:"id"`
	ReceivesEmail *bool  `json:"receives_email"`
	CreatedAt     *int64 `json:"created_at"`
	UpdatedAt     *int64 `json:"updated_at"`
}

type customFieldIn struct {
	Label    *string `json:"label"`
	Response *string `json:"response"`
}

type lineItemIn struct {
	ID            *int64      `json:"id"`
	PurchaseID    *int64      `json:"purchase_id"`
	ProductID     *int64      `json:"product_id"`
	Price         *shop.Money `json:"price"`
	Quantity      *int64      `json:"quantity"`
	Subtotal      *shop.Money `json:"subtotal"`
	Tax           *shop.Money `json:"tax"`
	Discount      *shop.Money `json:"discount"`
	Total         *shop.Money `json:"total"`
	ProductName   *string     `json:"product_name"`
	DownloadLimit *int64      `json:"download_limit"`
	DownloadCount *int64      `json:"download_count"`
	ExpiresAt     *int64      `json:"expires_at"`
	ProductKeys   *[]*string  `json:"product_keys"`
	HasAllKeys    *bool       `json:"has_all_keys"`
}

type couponIn struct {
	Name           *string `json:"name"`
	Code           *string `json:"code"`
	DiscountAmount *string `json:"discount_amount"`
	DiscountType   *string `json:"discount_type"`
}

// transactionIn embeds shop.Transaction for its optional reference and message.
type transactionIn struct {
	shop.Transaction
	ID         *int64      `json:"id"`
	PurchaseID *int64      `json:"purchase_id"`
	Action     *string     `json:"action"`
	Amount     *shop.Money `json:"amount"`
	Currency   *string     `json:"currency"`
	Gateway    *string     `json:"gateway"`
	IsSuccess  *bool       `json:"is_success"`
	CreatedAt  *int64      `json:"created_at"`
	UpdatedAt  *int64      `json:"updated_at"`
}

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
func decodeRecord(raw []byte, v any, inner []nested) error {
	if err := decodeStrict(raw, v); err != nil {
		return locate(raw, err, inner)
	}
	return nil
}

func decodeStrict(raw []byte, v any) error {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return &fieldError{msg: "must be an object, not " + jsonKind(t)}
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
