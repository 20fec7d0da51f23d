package filter

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"storefront/internal/shop"
)

// ReactivateParams are the parameters of a reactivation
// (docs/API.md#post-apiv2purchasesidreactivate).
type ReactivateParams struct {
	// CustomerEmail is the address as sent; "" when absent or blank.
	CustomerEmail string
	Refulfill     bool
}

// ReactivateParamNames are the parameters reactivate takes.
var ReactivateParamNames = []string{"customer_email", "refulfill"}

// Reactivate reads the parameters of a reactivation from the query string and a
// form-encoded or JSON body of the given Content-Type. Unknown parameters are refused,
// and so is a name given both in the query string and in the body. Values are read as
// sent; a blank one is the same as none.
func Reactivate(query url.Values, contentType string, body []byte) (ReactivateParams, error) {
	params := map[string]any{}
	// Query parameters count as form fields.
	for name, vs := range query {
		params[name] = vs
	}
	add := func(k string, v any) error {
		if _, dup := params[k]; dup {
			k = strings.ToValidUTF8(k, "\uFFFD")
			return shop.ParamErrorf(shop.EInvalid, k, "%s is given both in the query string and in the body.", k)
		}
		params[k] = v
		return nil
	}
	ct, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
	case ct == "application/json" || (ct == "" && trimmed[0] == '{'):
		var m map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		if err := dec.Decode(&m); err != nil || dec.More() || m == nil {
			return ReactivateParams{}, shop.Errorf(shop.EInvalid, "The body is not a JSON object.")
		}
		for k, v := range m {
			if err := add(k, v); err != nil {
				return ReactivateParams{}, err
			}
		}
	case ct == "application/x-www-form-urlencoded" || ct == "" || ct == "text/plain":
		// The body as sent: a line break after a value is part of the value.
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return ReactivateParams{}, shop.Errorf(shop.EInvalid, "The body is not form-encoded.")
		}
		for k, vs := range form {
			if err := add(k, vs); err != nil {
				return ReactivateParams{}, err
			}
		}
	default:
		return ReactivateParams{}, shop.Errorf(shop.EInvalid, "Send the parameters form-encoded or as JSON, not as %s.", ct)
	}
	return reactivateValues(params)
}

// ReactivateForm reads the parameters of a reactivation from a form's values, as
// Reactivate reads a form-encoded body.
func ReactivateForm(form url.Values) (ReactivateParams, error) {
	params := map[string]any{}
	for k, vs := range form {
		params[k] = vs
	}
	return reactivateValues(params)
}

// reactivateValues reads the parameters of a reactivation from form ([]string) or JSON
// (json.RawMessage) values.
func reactivateValues(params map[string]any) (p ReactivateParams, err error) {
	for name := range params {
		if !slices.Contains(ReactivateParamNames, name) {
			return p, shop.ParamErrorf(shop.EUnknownParam, strings.ToValidUTF8(name, "\uFFFD"), "%q is not a parameter of reactivate; it takes customer_email and refulfill.", strings.ToValidUTF8(name, "\uFFFD"))
		}
	}
	if v, ok := params["customer_email"]; ok {
		if p.CustomerEmail, err = paramString("customer_email", v); err != nil {
			return p, err
		}
		// Read literally (docs/API.md#reading-parameters): "ann@example.com\n" is no address, and is refused
		// rather than trimmed into one. A blank value is the same as none.
		if strings.TrimSpace(p.CustomerEmail) == "" {
			p.CustomerEmail = ""
		}
		if p.CustomerEmail != "" && !shop.ValidEmail(p.CustomerEmail) {
			return p, shop.ParamErrorf(shop.EInvalid, "customer_email", "customer_email must be one e-mail address such as ann@example.com.")
		}
	}
	if v, ok := params["refulfill"]; ok {
		if p.Refulfill, err = paramBool("refulfill", v); err != nil {
			return p, err
		}
	}
	return p, nil
}

// paramString reads a text parameter from a form ([]string) or JSON (raw) value.
func paramString(name string, v any) (string, error) {
	switch v := v.(type) {
	case []string:
		var out string
		for _, s := range v {
			if strings.TrimSpace(s) == "" {
				continue
			}
			if out != "" && s != out {
				return "", shop.ParamErrorf(shop.EInvalid, name, "%s is given more than once.", name)
			}
			out = s
		}
		if !utf8.ValidString(out) {
			return "", shop.ParamErrorf(shop.EInvalid, name, "%s is not valid UTF-8.", name)
		}
		return out, nil
	case json.RawMessage:
		if string(v) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", shop.ParamErrorf(shop.EInvalid, name, "%s must be a string.", name)
		}
		// encoding/json turns invalid UTF-8 into U+FFFD: the text would no longer be
		// what was sent (an address would receive mail meant for another).
		if !utf8.Valid(v) {
			return "", shop.ParamErrorf(shop.EInvalid, name, "%s is not valid UTF-8.", name)
		}
		return s, nil
	}
	return "", shop.ParamErrorf(shop.EInvalid, name, "%s cannot be read.", name)
}

// paramBool reads refulfill: 1/0/true/false in a form; in JSON also a boolean or the
// numbers 1 and 0. A string is read literally: blank is the same as none, and anything
// else must be one of the words exactly, without surrounding blanks.
func paramBool(name string, v any) (bool, error) {
	switch v := v.(type) {
	case []string:
		s, err := paramString(name, v)
		if err != nil || s == "" {
			return false, err
		}
		return ParseBool(name, s)
	case json.RawMessage:
		switch string(v) {
		case "true", "1":
			return true, nil
		case "false", "0", "null":
			return false, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			if strings.TrimSpace(s) == "" {
				return false, nil
			}
			// " 1" is none of the accepted words.
			return ParseBool(name, s)
		}
	}
	return false, shop.ParamErrorf(shop.EInvalid, name, "%s must be true, false, 1 or 0.", name)
}

// IdempotencyKey reads the values of the Idempotency-Key header: one, of 1 to 255
// printable ASCII characters; empty is the same as none.
func IdempotencyKey(vs []string) (string, error) {
	if len(vs) > 1 {
		return "", shop.ParamErrorf(shop.EInvalid, "Idempotency-Key", "Send one Idempotency-Key header.")
	}
	if len(vs) == 0 || vs[0] == "" {
		return "", nil
	}
	k := vs[0]
	if len(k) > 255 {
		return "", shop.ParamErrorf(shop.EInvalid, "Idempotency-Key", "The Idempotency-Key is longer than 255 characters.")
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return "", shop.ParamErrorf(shop.EInvalid, "Idempotency-Key", "The Idempotency-Key must be printable ASCII.")
		}
	}
	return k, nil
}
