package web

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/web/openapi"
)

// These tests keep openapi.json, the router, the parameter grammar (internal/filter and
// readFormParams), the error table and the Go types of the answers from drifting apart.

const apiPrefix = "/api/v2"

// loadOpenAPI parses the embedded document both ways: generically and into openapi.Doc.
func loadOpenAPI(t *testing.T) (*openapi.Doc, map[string]any) {
	t.Helper()
	var generic map[string]any
	if err := json.Unmarshal(openapi.Document(), &generic); err != nil {
		t.Fatalf("openapi.json is not valid JSON: %v", err)
	}
	doc, err := openapi.Parse(openapi.Document())
	if err != nil {
		t.Fatal(err)
	}
	return doc, generic
}

// opKey names an operation as "GET /purchases/{id}".
func opKey(method, path string) string { return method + " " + path }

// ginToOpenAPI turns a gin route path under /api/v2 into an OpenAPI path relative to
// the server URL: /api/v2/purchases/:id becomes /purchases/{id}; /api/v2 and /api/v2/
// are both the ping, /.
func ginToOpenAPI(p string) string {
	p = strings.TrimPrefix(p, apiPrefix)
	if p == "" {
		return "/"
	}
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// servedAPIOperations returns the operations the router serves under /api/v2.
func servedAPIOperations(t *testing.T) map[string]bool {
	t.Helper()
	engine := (&Server{}).engine()
	out := map[string]bool{}
	for _, r := range engine.Routes() {
		if r.Path == apiPrefix || strings.HasPrefix(r.Path, apiPrefix+"/") {
			out[opKey(r.Method, ginToOpenAPI(r.Path))] = true
		}
	}
	if len(out) == 0 {
		t.Fatal("the router serves no route under /api/v2")
	}
	return out
}

// documentedOperations returns every operation of the document.
func documentedOperations(doc *openapi.Doc) map[string]*openapi.Operation {
	out := map[string]*openapi.Operation{}
	for _, path := range doc.Paths.Keys {
		for _, mo := range doc.Paths.Values[path].Operations() {
			out[opKey(mo.Method, path)] = mo.Op
		}
	}
	return out
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	doc, generic := loadOpenAPI(t)
	if !regexp.MustCompile(`^3\.1\.\d+$`).MatchString(doc.OpenAPI) {
		t.Errorf("openapi is %q, want 3.1.x", doc.OpenAPI)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "http://127.0.0.1:8080"+apiPrefix {
		t.Errorf("servers = %+v, want the one server http://127.0.0.1:8080/api/v2", doc.Servers)
	}
	for _, k := range []string{"basicAuth", "bearerAuth"} {
		if doc.Components.SecuritySchemes.Values[k] == nil {
			t.Errorf("security scheme %s is missing", k)
		}
	}
	if b := doc.Components.SecuritySchemes.Values["basicAuth"]; b != nil && (b.Type != "http" || b.Scheme != "basic") {
		t.Errorf("basicAuth is %s %s, want http basic", b.Type, b.Scheme)
	}
	if b := doc.Components.SecuritySchemes.Values["bearerAuth"]; b != nil && (b.Type != "http" || b.Scheme != "bearer") {
		t.Errorf("bearerAuth is %s %s, want http bearer", b.Type, b.Scheme)
	}

	// Every $ref resolves to a node of this document.
	refs := 0
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if r, ok := v["$ref"]; ok {
				refs++
				s, _ := r.(string)
				if _, err := resolvePointer(generic, s); err != "" {
					t.Errorf("%s: $ref %q: %s", path, s, err)
				}
			}
			for k, c := range v {
				walk(path+"/"+k, c)
			}
		case []any:
			for _, c := range v {
				walk(path+"[]", c)
			}
		}
	}
	walk("#", generic)
	if refs == 0 {
		t.Error("the document has no $ref at all; the walk is broken")
	}

	// Operation ids are unique: the docs page uses them as anchors.
	seen := map[string]string{}
	for key, op := range documentedOperations(doc) {
		if op.OperationID == "" {
			t.Errorf("%s has no operationId", key)
		} else if other, dup := seen[op.OperationID]; dup {
			t.Errorf("operationId %s is used by %s and %s", op.OperationID, other, key)
		}
		seen[op.OperationID] = key
		if op.Summary == "" || op.Description == "" {
			t.Errorf("%s needs a summary and a description", key)
		}
	}
}

// resolvePointer follows a local JSON pointer ("#/components/schemas/Purchase").
func resolvePointer(root any, ref string) (any, string) {
	if !strings.HasPrefix(ref, "#") {
		return nil, "not a local reference"
	}
	cur := root
	if ref == "#" {
		return cur, ""
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, "not a JSON pointer"
	}
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, "walks into a non-object at " + tok
		}
		if cur, ok = m[tok]; !ok {
			return nil, "no member " + tok
		}
	}
	return cur, ""
}

// TestOpenAPIRoutes: every route the router serves is documented, and every documented
// operation is served.
func TestOpenAPIRoutes(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	served := servedAPIOperations(t)
	documented := documentedOperations(doc)
	for _, k := range slices.Sorted(maps.Keys(served)) {
		if documented[k] == nil {
			t.Errorf("the router serves %s but openapi.json does not document it", k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(documented)) {
		if !served[k] {
			t.Errorf("openapi.json documents %s but the router does not serve it", k)
		}
	}
}

// queryParams gives, for each operation, the query parameters its parser accepts; an
// operation not named takes none.
var queryParams = map[string][]string{
	"GET /purchases": filter.PurchaseParams,
	"GET /storefronts/{storefront_id}/subscribers":        filter.SubscriberParams,
	"GET /purchases.csv":                                  filter.PurchaseExportParams,
	"GET /storefronts/{storefront_id}/subscribers.csv":    filter.SubscriberExportParams,
	"GET /storefronts/{storefront_id}/subscribers/verify": filter.VerifyParams,
	"POST /purchases/{id}/reactivate":                     filter.ReactivateParamNames,
	"GET /audit":                                          filter.AuditParams,
}

// bodyParams gives the body fields an operation's parser accepts.
var bodyParams = map[string][]string{
	"POST /purchases/{id}/reactivate": filter.ReactivateParamNames,
}

var placeholder = regexp.MustCompile(`\{([^}]+)\}`)

// TestOpenAPIParameters: the documented parameters are exactly those the parsers accept.
func TestOpenAPIParameters(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	documented := documentedOperations(doc)
	for key := range queryParams {
		if documented[key] == nil {
			t.Errorf("%s is not documented", key)
		}
	}
	for _, path := range doc.Paths.Keys {
		item := doc.Paths.Values[path]
		for _, mo := range item.Operations() {
			key := opKey(mo.Method, path)
			params, err := doc.OperationParams(item, mo.Op)
			if err != nil {
				t.Errorf("%s: %v", key, err)
				continue
			}
			query, pathNames := map[string]bool{}, map[string]bool{}
			for _, p := range params {
				if p.Description == "" || p.Schema == nil {
					t.Errorf("%s: parameter %s needs a description and a schema", key, p.Name)
				}
				switch p.In {
				case "query":
					query[p.Name] = true
				case "path":
					pathNames[p.Name] = true
					if !p.Required {
						t.Errorf("%s: path parameter %s must be required", key, p.Name)
					}
				case "header":
				default:
					t.Errorf("%s: parameter %s is in %q", key, p.Name, p.In)
				}
			}
			// Path parameters are exactly the placeholders of the path.
			want := map[string]bool{}
			for _, m := range placeholder.FindAllStringSubmatch(path, -1) {
				want[m[1]] = true
			}
			if !maps.Equal(want, pathNames) {
				t.Errorf("%s: path parameters %v, want %v", key, slices.Sorted(maps.Keys(pathNames)), slices.Sorted(maps.Keys(want)))
			}
			// Every documented query parameter is accepted by the parser ...
			allowed := queryParams[key]
			for name := range query {
				if !slices.Contains(allowed, name) {
					t.Errorf("%s documents query parameter %s, which its parser rejects (it takes %v)", key, name, allowed)
				}
			}
			// ... and every parameter the parser accepts is documented.
			if body := bodyParams[key]; body != nil {
				checkBody(t, doc, key, mo.Op, body)
			} else {
				for _, name := range allowed {
					if !query[name] {
						t.Errorf("%s takes query parameter %s, which openapi.json does not document", key, name)
					}
				}
				if mo.Op.RequestBody != nil {
					t.Errorf("%s documents a request body its handler does not read", key)
				}
			}
		}
	}
}

// checkBody compares the fields of each documented media type of a request body with
// the names its parser accepts.
func checkBody(t *testing.T, doc *openapi.Doc, key string, op *openapi.Operation, names []string) {
	t.Helper()
	if op.RequestBody == nil {
		t.Errorf("%s takes %v in its body, which openapi.json does not document", key, names)
		return
	}
	for _, mt := range []string{"application/x-www-form-urlencoded", "application/json"} {
		m := op.RequestBody.Content.Values[mt]
		if m == nil {
			t.Errorf("%s: request body %s is not documented", key, mt)
			continue
		}
		s, err := doc.Schema(m.Schema)
		if err != nil || s == nil {
			t.Errorf("%s: request body %s: %v", key, mt, err)
			continue
		}
		got := slices.Sorted(slices.Values(s.Properties.Keys))
		if want := slices.Sorted(slices.Values(names)); !slices.Equal(got, want) {
			t.Errorf("%s: request body %s documents %v, the parser takes %v", key, mt, got, want)
		}
	}
}

// enumValues collects the string values of every enum reachable from a schema.
func enumValues(doc *openapi.Doc, s *openapi.Schema) []string {
	s, _ = doc.Schema(s)
	if s == nil {
		return nil
	}
	var out []string
	for _, e := range s.Enum {
		if v, ok := e.(string); ok {
			out = append(out, v)
		}
	}
	for _, a := range append(slices.Clone(s.AnyOf), s.OneOf...) {
		out = append(out, enumValues(doc, a)...)
	}
	if s.Items != nil {
		out = append(out, enumValues(doc, s.Items)...)
	}
	return out
}

// TestOpenAPIParameterValuesParse: every enum value documented for a query parameter of
// a list or verify is accepted by the parser, in any letter case, and the documented
// examples too.
func TestOpenAPIParameterValuesParse(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	now := time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC)
	parsers := map[string]func(url.Values) error{
		"GET /purchases": func(q url.Values) error {
			if q.Has("total_op") && !q.Has("total") {
				q.Set("total", "10")
			}
			_, err := filter.Purchases(q, 1, now, time.UTC)
			return err
		},
		"GET /storefronts/{storefront_id}/subscribers": func(q url.Values) error {
			_, err := filter.Subscribers(q, 1, 1, now, time.UTC)
			return err
		},
		"GET /purchases.csv": func(q url.Values) error {
			if q.Has("total_op") && !q.Has("total") {
				q.Set("total", "10")
			}
			_, _, err := filter.PurchaseExport(q, 1, now, time.UTC)
			return err
		},
		"GET /storefronts/{storefront_id}/subscribers.csv": func(q url.Values) error {
			_, err := filter.SubscriberExport(q, 1, 1, now, time.UTC)
			return err
		},
		"GET /storefronts/{storefront_id}/subscribers/verify": func(q url.Values) error {
			if !q.Has("id") && !q.Has("subscriber_id") && !q.Has("username") {
				q.Set("username", "a@b.com")
			}
			_, err := filter.Verify(q)
			return err
		},
	}
	checked := 0
	for key, parse := range parsers {
		path := strings.TrimPrefix(key, "GET ")
		item := doc.Paths.Values[path]
		if item == nil || item.Get == nil {
			t.Errorf("%s is not documented", key)
			continue
		}
		params, err := doc.OperationParams(item, item.Get)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range params {
			if p.In != "query" {
				continue
			}
			var values [][]string
			for _, v := range enumValues(doc, p.Schema) {
				values = append(values, []string{v}, []string{strings.ToUpper(v)}, []string{strings.ToLower(v)})
			}
			if s, _ := doc.Schema(p.Schema); s != nil && len(s.Default) > 0 {
				var d any
				if json.Unmarshal(s.Default, &d) == nil {
					values = append(values, []string{fmt.Sprint(d)})
				}
			}
			values = append(values, schemaExamples(doc, p.Schema)...)
			for _, v := range values {
				checked++
				if err := parse(url.Values{p.Name: v}); err != nil {
					t.Errorf("%s: documented value %s=%q is refused: %v", key, p.Name, v, err)
				}
			}
			// Values are literal: a documented keyword with blanks around it is no
			// keyword, for the parser and for the document's own patterns.
			for _, v := range enumValues(doc, p.Schema) {
				for _, padded := range []string{" " + v, v + " ", "\t" + v, v + "\n"} {
					checked++
					if err := parse(url.Values{p.Name: {padded}}); shop.ErrorParam(err) != p.Name {
						t.Errorf("%s: %s=%q is accepted (%v); values are read as sent", key, p.Name, padded, err)
					}
					for _, pat := range schemaPatterns(doc, p.Schema) {
						if regexp.MustCompile(pat).MatchString(padded) {
							t.Errorf("%s: the pattern %s of %s matches %q, which the parser refuses", key, pat, p.Name, padded)
						}
					}
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d documented values were tried", checked)
	}
}

// schemaPatterns collects the patterns of a schema and of its alternatives and items.
func schemaPatterns(doc *openapi.Doc, s *openapi.Schema) []string {
	s, _ = doc.Schema(s)
	if s == nil {
		return nil
	}
	var out []string
	if s.Pattern != "" {
		out = append(out, s.Pattern)
	}
	for _, a := range append(slices.Clone(s.AnyOf), s.OneOf...) {
		out = append(out, schemaPatterns(doc, a)...)
	}
	if s.Items != nil {
		out = append(out, schemaPatterns(doc, s.Items)...)
	}
	return out
}

// schemaExamples returns the examples of a parameter schema as query values: a string
// example is one value, an array example is the parameter repeated.
func schemaExamples(doc *openapi.Doc, s *openapi.Schema) [][]string {
	s, _ = doc.Schema(s)
	if s == nil {
		return nil
	}
	var out [][]string
	for _, e := range s.Examples {
		switch e := e.(type) {
		case string:
			out = append(out, []string{e})
		case []any:
			var vs []string
			for _, v := range e {
				if v, ok := v.(string); ok {
					vs = append(vs, v)
				}
			}
			out = append(out, vs)
		}
	}
	return out
}

// TestOpenAPIErrors: every operation documents every error it can give, with consistent
// examples, and the Error schema lists exactly the codes and words of the error table.
func TestOpenAPIErrors(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	errSchema, _ := doc.Schema(doc.Components.Schemas.Values["Error"])
	if errSchema == nil {
		t.Fatal("no Error schema")
	}
	codes := slices.Sorted(maps.Keys(errorTable))
	var words []string
	for _, k := range errorTable {
		if !slices.Contains(words, k.word) {
			words = append(words, k.word)
		}
	}
	sort.Strings(words)
	errObj := errSchema.Properties.Values["error"]
	if errObj == nil {
		t.Fatal("Error has no error member")
	}
	if got := slices.Sorted(slices.Values(enumValues(doc, errObj.Properties.Values["code"]))); !slices.Equal(got, codes) {
		t.Errorf("Error.error.code enum = %v, the error table has %v", got, codes)
	}
	if got := slices.Sorted(slices.Values(enumValues(doc, errSchema.Properties.Values["status"]))); !slices.Equal(got, words) {
		t.Errorf("Error.status enum = %v, the error table has %v", got, words)
	}

	var generic map[string]any
	_ = json.Unmarshal(openapi.Document(), &generic)
	always := []string{"401", "405", "413", "414", "429", "500", "503"}
	for _, path := range doc.Paths.Keys {
		for _, mo := range doc.Paths.Values[path].Operations() {
			key := opKey(mo.Method, path)
			resp := mo.Op.Responses.Values
			for _, st := range always {
				if resp[st] == nil {
					t.Errorf("%s does not document %s", key, st)
				}
			}
			ok2xx := false
			for _, st := range mo.Op.Responses.Keys {
				r, err := doc.Response(resp[st])
				if err != nil {
					t.Errorf("%s %s: %v", key, st, err)
					continue
				}
				if r.Headers.Values["X-Request-Id"] == nil {
					t.Errorf("%s %s: X-Request-Id is not documented", key, st)
				}
				if strings.HasPrefix(st, "2") {
					ok2xx = true
					continue
				}
				if st == "304" {
					// Not modified: no body, the validator again.
					if r.Headers.Values["ETag"] == nil || len(r.Content.Keys) > 0 {
						t.Errorf("%s 304: want an ETag header and no body", key)
					}
					continue
				}
				need := map[string][]string{"401": {"WWW-Authenticate"}, "405": {"Allow"}, "429": {"Retry-After"}, "503": {"Retry-After"}}[st]
				for _, h := range need {
					if r.Headers.Values[h] == nil {
						t.Errorf("%s %s: header %s is not documented", key, st, h)
					}
				}
				m := r.Content.Values["application/json"]
				if m == nil || m.Schema == nil || m.Schema.Ref != "#/components/schemas/Error" {
					t.Errorf("%s %s: the body is not an Error", key, st)
				}
				checkErrorExamples(t, generic, key, st, mo.Method, path)
			}
			if !ok2xx {
				t.Errorf("%s documents no success", key)
			}
			if strings.HasPrefix(path, "/purchases") || strings.HasPrefix(path, "/storefronts") {
				if strings.Contains(path, "{") && resp["404"] == nil {
					t.Errorf("%s: a path with an id can answer 404", key)
				}
			}
			if resp["400"] == nil {
				t.Errorf("%s: unknown parameters answer 400, which is not documented", key)
			}
		}
	}
	if r := doc.Paths.Values["/purchases/{id}/reactivate"]; r == nil || r.Post == nil || r.Post.Responses.Values["403"] == nil || r.Post.Responses.Values["409"] == nil {
		t.Error("reactivate must document 403 (read key) and 409 (status, idempotency)")
	}
	for _, path := range []string{"/purchases", "/storefronts/{storefront_id}/subscribers"} {
		r, _ := doc.Response(doc.Paths.Values[path].Get.Responses.Values["200"])
		for _, h := range []string{"Link", "X-Total-Count", "Dpd-Collection-Count", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			if r.Headers.Values[h] == nil {
				t.Errorf("GET %s 200: header %s is not documented", path, h)
			}
		}
	}
}

// responseObject returns the response object of an operation's status, its $ref
// followed.
func responseObject(generic map[string]any, method, path, status string) map[string]any {
	node, _ := resolvePointer(generic, "#/paths/"+strings.ReplaceAll(path, "/", "~1")+"/"+strings.ToLower(method)+"/responses/"+status)
	m, _ := node.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		node, _ = resolvePointer(generic, ref)
		m, _ = node.(map[string]any)
	}
	return m
}

// checkErrorExamples checks that each example of an error response carries the status
// word and a code the error table gives that HTTP status.
func checkErrorExamples(t *testing.T, generic map[string]any, key, status, method, path string) {
	t.Helper()
	m := responseObject(generic, method, path, status)
	content, _ := m["content"].(map[string]any)
	media, _ := content["application/json"].(map[string]any)
	examples, _ := media["examples"].(map[string]any)
	if len(examples) == 0 {
		t.Errorf("%s %s has no example", key, status)
	}
	for name, ex := range examples {
		v, _ := ex.(map[string]any)["value"].(map[string]any)
		e, _ := v["error"].(map[string]any)
		code, _ := e["code"].(string)
		word, _ := v["status"].(string)
		kind, ok := errorTable[code]
		if !ok {
			t.Errorf("%s %s example %s: unknown code %q", key, status, name, code)
			continue
		}
		httpStatus := kind.status
		if code == shop.ETooLarge && status == "414" {
			httpStatus = http.StatusRequestURITooLong
		}
		if word != kind.word || status != strconv.Itoa(httpStatus) {
			t.Errorf("%s %s example %s: %s %s is answered %d %s", key, status, name, word, code, httpStatus, kind.word)
		}
		if msg, _ := e["message"].(string); msg == "" {
			t.Errorf("%s %s example %s has no message", key, status, name)
		}
	}
}

// schemaTypes returns the JSON types a schema allows, following $ref, anyOf and oneOf.
func schemaTypes(doc *openapi.Doc, s *openapi.Schema) map[string]bool {
	out := map[string]bool{}
	s, _ = doc.Schema(s)
	if s == nil {
		return out
	}
	for _, typ := range s.Type {
		out[typ] = true
	}
	for _, a := range append(slices.Clone(s.AnyOf), s.OneOf...) {
		maps.Copy(out, schemaTypes(doc, a))
	}
	return out
}

// goTypes returns the JSON types encoding/json writes for a Go type as this API uses it.
func goTypes(t reflect.Type) map[string]bool {
	if t.Kind() == reflect.Pointer {
		out := goTypes(t.Elem())
		out["null"] = true
		return out
	}
	switch {
	case t == reflect.TypeFor[shop.Time]():
		return map[string]bool{"integer": true}
	case t.Kind() == reflect.String:
		return map[string]bool{"string": true}
	case t.Kind() == reflect.Int64 || t.Kind() == reflect.Int:
		return map[string]bool{"integer": true}
	case t.Kind() == reflect.Bool:
		return map[string]bool{"boolean": true}
	case t.Kind() == reflect.Slice:
		return map[string]bool{"array": true}
	case t.Kind() == reflect.Struct:
		return map[string]bool{"object": true}
	}
	return map[string]bool{"?" + t.String(): true}
}

// refTo returns the schema name a property refers to, directly, through anyOf or
// through array items.
func refTo(s *openapi.Schema) string {
	switch {
	case s == nil:
		return ""
	case s.Ref != "":
		return openapi.RefName(s.Ref)
	case s.Items != nil:
		return refTo(s.Items)
	}
	for _, a := range s.AnyOf {
		if r := refTo(a); r != "" {
			return r
		}
	}
	return ""
}

// compareSchema checks that an object schema has exactly the JSON fields of a Go
// struct, each required unless omitempty, with the types and nullability the Go type
// gives (a pointer is nullable, nothing else is).
func compareSchema(t *testing.T, doc *openapi.Doc, where string, s *openapi.Schema, typ reflect.Type) {
	t.Helper()
	s, err := doc.Schema(s)
	if err != nil || s == nil {
		t.Errorf("%s: %v", where, err)
		return
	}
	seen := map[string]bool{}
	for _, f := range reflect.VisibleFields(typ) {
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		// An embedded struct without a name (shop.Timestamps) gives its fields, as
		// encoding/json does.
		if name == "-" || !f.IsExported() || (f.Anonymous && name == "") {
			continue
		}
		if name == "" {
			name = f.Name
		}
		seen[name] = true
		p := s.Properties.Values[name]
		if p == nil {
			t.Errorf("%s.%s (Go %s) is not documented", where, name, f.Type)
			continue
		}
		if p.Description == "" {
			t.Errorf("%s.%s has no description", where, name)
		}
		omit := strings.Contains(opts, "omitempty")
		if req := slices.Contains(s.Required, name); req == omit {
			t.Errorf("%s.%s: required is %v, but the field is always written: %v", where, name, req, !omit)
		}
		got, want := schemaTypes(doc, p), goTypes(f.Type)
		if !maps.Equal(got, want) {
			t.Errorf("%s.%s: documented types %v, Go %s writes %v", where, name, slices.Sorted(maps.Keys(got)), f.Type, slices.Sorted(maps.Keys(want)))
		}
		elem := f.Type
		for elem.Kind() == reflect.Pointer || elem.Kind() == reflect.Slice {
			elem = elem.Elem()
		}
		if elem.Kind() == reflect.Struct && elem != reflect.TypeFor[shop.Time]() {
			if r := refTo(p); r != "" {
				if r != elem.Name() && !(elem.Name() == "verifyBody" && r == "Verify") {
					t.Errorf("%s.%s refers to %s, Go has %s", where, name, r, elem.Name())
				}
			} else {
				compareSchema(t, doc, where+"."+name, p, elem)
			}
		}
		if f.Type == reflect.TypeFor[shop.Money]() || f.Type == reflect.TypeFor[*shop.Money]() {
			if pp, _ := doc.Schema(p); pp == nil || pp.Pattern == "" {
				t.Errorf("%s.%s is Money but has no decimal pattern", where, name)
			}
		}
	}
	for _, name := range s.Properties.Keys {
		if !seen[name] {
			t.Errorf("%s documents %s, which Go does not write", where, name)
		}
	}
}

// TestOpenAPISchemasMatchGo: the component schemas are the JSON of the Go types.
func TestOpenAPISchemasMatchGo(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	for name, typ := range map[string]reflect.Type{
		"Purchase":     reflect.TypeFor[shop.Purchase](),
		"Customer":     reflect.TypeFor[shop.Customer](),
		"LineItem":     reflect.TypeFor[shop.LineItem](),
		"Coupon":       reflect.TypeFor[shop.Coupon](),
		"CustomField":  reflect.TypeFor[shop.CustomField](),
		"Transaction":  reflect.TypeFor[shop.Transaction](),
		"Subscriber":   reflect.TypeFor[shop.Subscriber](),
		"Subscription": reflect.TypeFor[shop.Subscription](),
		"Verify":       reflect.TypeFor[verifyBody](),
		"Error":        reflect.TypeFor[apiErrorBody](),
	} {
		s := doc.Components.Schemas.Values[name]
		if s == nil {
			t.Errorf("schema %s is missing", name)
			continue
		}
		compareSchema(t, doc, name, s, typ)
	}

	enum := func(schema string, prop ...string) []string {
		s := doc.Components.Schemas.Values[schema]
		for _, p := range prop {
			if s == nil {
				break
			}
			s, _ = doc.Schema(s)
			s = s.Properties.Values[p]
		}
		if s == nil {
			t.Errorf("%s %v is not documented", schema, prop)
			return nil
		}
		return slices.Sorted(slices.Values(enumValues(doc, s)))
	}
	strs := func(vs ...string) []string { return slices.Sorted(slices.Values(vs)) }
	var purchase, subscription []string
	for _, s := range shop.PurchaseStatuses {
		purchase = append(purchase, string(s))
	}
	for _, s := range shop.SubscriptionStatuses {
		subscription = append(subscription, string(s))
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"PurchaseStatus", enum("PurchaseStatus"), strs(purchase...)},
		{"SubscriptionStatus", enum("SubscriptionStatus"), strs(subscription...)},
		{"Verify.status", enum("Verify", "status"), strs(subscription...)},
		{"Verify.reason", enum("Verify", "reason"), strs(shop.ReasonActive, shop.ReasonTrial, shop.ReasonPastDue, shop.ReasonCanceledUntilTermEnd, shop.ReasonCanceledTermEnded, shop.ReasonClosed, shop.ReasonNew, shop.ReasonNoSubscription)},
		{"Coupon.discount_type", enum("Coupon", "discount_type"), strs(shop.DiscountMoney, shop.DiscountPercent)},
		{"Subscription.unit", enum("Subscription", "unit"), strs("D", "M", "W", "Y")},
		{"Subscription.trial_unit", enum("Subscription", "trial_unit"), strs("D", "M", "W", "Y")},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s enum = %v, Go has %v", c.what, c.got, c.want)
		}
	}
	for _, u := range enum("PeriodUnit") {
		if !shop.ValidPeriodUnit(u) {
			t.Errorf("PeriodUnit %s is not a unit Go accepts", u)
		}
	}

	// Paging limits.
	pp := doc.Components.Parameters["PerPage"]
	if pp == nil || pp.Schema == nil || pp.Schema.Maximum == nil || pp.Schema.Maximum.String() != strconv.Itoa(shop.MaxPerPage) || string(pp.Schema.Default) != strconv.Itoa(shop.DefaultPerPage) {
		t.Errorf("per_page must be documented with maximum %d and default %d", shop.MaxPerPage, shop.DefaultPerPage)
	}
}

// TestDocsPage renders GET /docs/api and checks it shows every operation and schema.
func TestDocsPage(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	gin.SetMode(gin.TestMode)
	s := &Server{}
	w := httptest.NewRecorder()
	c, _ := gin.CreateTestContext(w)
	c.Request = httptest.NewRequest(http.MethodGet, "/docs/api", nil)
	s.apiDocs(c)
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("Content-Type %q", ct)
	}
	body := w.Body.String()
	for key, op := range documentedOperations(doc) {
		if !strings.Contains(body, "<code>"+html.EscapeString(key)+"</code>") {
			t.Errorf("the page does not show %s", key)
		}
		if !strings.Contains(body, `id="op-`+op.OperationID+`"`) {
			t.Errorf("the page has no section for %s", key)
		}
	}
	for _, name := range doc.Components.Schemas.Keys {
		if !strings.Contains(body, `id="schema-`+name+`"`) {
			t.Errorf("the page has no section for schema %s", name)
		}
	}
	for _, want := range []string{`<th scope="col">Name</th>`, `<th scope="row"><code>status</code></th>`, "<code>Idempotency-Key</code>", "<caption>", "<h1>"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	// Scripts come from files only: an inline <script> (one without src) is refused.
	for _, tag := range regexp.MustCompile(`<script[^>]*>`).FindAllString(body, -1) {
		if !strings.Contains(tag, ` src="`) {
			t.Errorf("the page has an inline script: %s", tag)
		}
	}
	for _, bad := range []string{" style=", "<style", "javascript:", " on" + "click="} {
		if strings.Contains(strings.ToLower(body), bad) {
			t.Errorf("the page contains %q; the dashboard's CSP forbids inline scripts and styles", bad)
		}
	}
	// Ids are unique, so that every anchor leads to one place.
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		ids[m[1]]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q is used %d times", id, n)
		}
	}
	// Every in-page link has a target.
	for _, m := range regexp.MustCompile(` href="#([^"]+)"`).FindAllStringSubmatch(body, -1) {
		if ids[m[1]] == 0 {
			t.Errorf("link to #%s has no target", m[1])
		}
	}
}

// fakeKeys authenticates the one key "k" (read scope) and "w" (read_write).
type fakeKeys struct{}

func (fakeKeys) AuthenticateAPIKey(_ context.Context, secret string) (*shop.APIKey, error) {
	switch secret {
	case "k":
		return &shop.APIKey{ID: 1, AccountID: 1, Scope: shop.ScopeRead, APIUsername: "shop", Timezone: "UTC"}, nil
	case "w":
		return &shop.APIKey{ID: 2, AccountID: 1, Scope: shop.ScopeReadWrite, APIUsername: "shop", Timezone: "UTC"}, nil
	}
	return nil, shop.Errorf(shop.EUnauthenticated, "The API key is not valid.")
}

func (fakeKeys) TouchAPIKey(context.Context, int64, int64) error { return nil }

// documentedExample returns the example body of a response of an operation.
func documentedExample(t *testing.T, generic map[string]any, method, path, status, name string) any {
	t.Helper()
	m := responseObject(generic, method, path, status)
	media, _ := m["content"].(map[string]any)["application/json"].(map[string]any)
	if name == "" {
		return media["example"]
	}
	ex, _ := media["examples"].(map[string]any)[name].(map[string]any)
	if ex == nil {
		t.Fatalf("%s %s %s has no example %s", method, path, status, name)
	}
	return ex["value"]
}

// TestOpenAPIExamplesMatchServer sends requests that need no database through the real
// handler and compares the answers with the documented examples and headers.
func TestOpenAPIExamplesMatchServer(t *testing.T) {
	_, generic := loadOpenAPI(t)
	h := (&Server{Keys: fakeKeys{}, BaseURL: "http://127.0.0.1:8080"}).Handler()
	long := strings.Repeat("a", MaxQueryBytes+1)
	big := strings.Repeat("x", MaxBodyBytes+1)
	for _, c := range []struct {
		method, target, auth, body string
		// The documented operation and example the answer must equal.
		docMethod, docPath, status, example string
		headers                             map[string]string
	}{
		{"GET", "/api/v2/purchases", "", "", "GET", "/purchases", "401", "unauthenticated", map[string]string{"WWW-Authenticate": `Basic realm="storefront"`}},
		{"GET", "/api/v2/purchases", "Basic " + base64.StdEncoding.EncodeToString([]byte("other:k")), "", "GET", "/purchases", "401", "unauthenticated", nil},
		{"GET", "/api/v2/purchases?q=" + long, "Bearer k", "", "GET", "/purchases", "414", "too_large", nil},
		{"POST", "/api/v2/purchases/1/reactivate", "Bearer w", big, "POST", "/purchases/{id}/reactivate", "413", "too_large", nil},
		{"GET", "/api/v2/?foo=1", "Bearer k", "", "GET", "/", "400", "unknown_parameter", nil},
		{"GET", "/api/v2/purchases/abc", "Bearer k", "", "GET", "/purchases/{id}", "400", "bad_id", nil},
		{"GET", "/api/v2/storefronts/abc/subscribers", "Bearer k", "", "GET", "/storefronts/{storefront_id}/subscribers", "400", "bad_id", nil},
		{"GET", "/api/v2/storefronts/3/subscribers/verify", "Bearer k", "", "GET", "/storefronts/{storefront_id}/subscribers/verify", "400", "missing", nil},
		{"GET", "/api/v2/storefronts/3/subscribers/verify?id=1&subscriber_id=2", "Bearer k", "", "GET", "/storefronts/{storefront_id}/subscribers/verify", "400", "ids_differ", nil},
		{"DELETE", "/api/v2/purchases", "Bearer k", "", "GET", "/purchases", "405", "method_not_allowed", map[string]string{"Allow": "GET"}},
		{"GET", "/api/v2/purchases?total_op=gt", "Bearer k", "", "GET", "/purchases", "400", "total_op_without_total", nil},
		{"GET", "/api/v2/purchases?cursor=abc&page=2", "Bearer k", "", "GET", "/purchases", "400", "cursor_and_page", nil},
		{"GET", "/api/v2/purchases?status=XYZ", "Bearer k", "", "GET", "/purchases", "400", "bad_status", nil},
		{"GET", "/api/v2/purchases.csv?per_page=10", "Bearer k", "", "GET", "/purchases.csv", "400", "paging", nil},
		{"GET", "/api/v2/purchases.csv?rows=lines", "Bearer k", "", "GET", "/purchases.csv", "400", "bad_rows", nil},
		{"GET", "/api/v2/purchases.csv?foo=1", "Bearer k", "", "GET", "/purchases.csv", "400", "unknown_parameter", nil},
		{"GET", "/api/v2/storefronts/3/subscribers.csv?foo=1", "Bearer k", "", "GET", "/storefronts/{storefront_id}/subscribers.csv", "400", "unknown_parameter", nil},
		{"GET", "/api/v2/storefronts/3/subscribers.csv?per_page=1", "Bearer k", "", "GET", "/storefronts/{storefront_id}/subscribers.csv", "400", "paging", nil},
		{"GET", "/api/v2/purchases?date_min=next+blursday", "Bearer k", "", "GET", "/purchases", "400", "bad_date", nil},
		{"GET", "/api/v2", "Basic " + base64.StdEncoding.EncodeToString([]byte("shop:k")), "", "GET", "/", "200", "", nil},
		{"POST", "/api/v2/purchases/1/reactivate", "Bearer k", "", "POST", "/purchases/{id}/reactivate", "403", "forbidden", nil},
		{"POST", "/api/v2/purchases/abc/reactivate", "Bearer w", "", "POST", "/purchases/{id}/reactivate", "400", "bad_id", nil},
		{"GET", "/api/v2/", "Bearer k", "", "GET", "/", "200", "", nil},
	} {
		name := c.method + " " + c.target[:min(len(c.target), 60)]
		req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		if c.body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if strconv.Itoa(w.Code) != c.status {
			t.Errorf("%s: status %d, documented %s: %s", name, w.Code, c.status, w.Body)
			continue
		}
		var got any
		if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
			t.Errorf("%s: body is not JSON: %v", name, err)
			continue
		}
		want := documentedExample(t, generic, c.docMethod, c.docPath, c.status, c.example)
		if !reflect.DeepEqual(got, want) {
			gb, _ := json.Marshal(got)
			wb, _ := json.Marshal(want)
			t.Errorf("%s: answer\n%s\ndocumented example\n%s", name, gb, wb)
		}
		if w.Header().Get("X-Request-Id") == "" {
			t.Errorf("%s: no X-Request-Id", name)
		}
		for k, v := range c.headers {
			if got := w.Header().Get(k); got != v {
				t.Errorf("%s: %s is %q, want %q", name, k, got, v)
			}
		}
	}

	// The document is served as it is embedded.
	req := httptest.NewRequest("GET", "/api/v2/openapi.json", nil)
	req.Header.Set("Authorization", "Bearer k")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), openapi.Document()) {
		t.Errorf("GET /api/v2/openapi.json: %d, body differs from the document", w.Code)
	}

	// Rate limiting: the RateLimit-* headers on success, 429 with Retry-After after.
	rl := (&Server{Keys: fakeKeys{}, RateLimit: 1}).Handler()
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		req := httptest.NewRequest("GET", "/api/v2/", nil)
		req.Header.Set("Authorization", "Bearer k")
		w := httptest.NewRecorder()
		rl.ServeHTTP(w, req)
		if w.Code != want {
			t.Fatalf("request %d: status %d, want %d", i, w.Code, want)
		}
		for _, hd := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
			if w.Header().Get(hd) == "" {
				t.Errorf("request %d: no %s", i, hd)
			}
		}
		if want == http.StatusTooManyRequests {
			if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra < 1 {
				t.Errorf("429 Retry-After is %q", w.Header().Get("Retry-After"))
			}
			var body apiErrorBody
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			if body.Status != "RATE_LIMITED" || body.Error.Code != shop.ERateLimited {
				t.Errorf("429 body %s", w.Body)
			}
		}
	}
}

// TestOpenAPILinkExample: the documented Link header carries a cursor the server reads.
func TestOpenAPILinkExample(t *testing.T) {
	doc, _ := loadOpenAPI(t)
	var link struct {
		Examples map[string]struct {
			Value string `json:"value"`
		} `json:"examples"`
	}
	var generic map[string]any
	_ = json.Unmarshal(openapi.Document(), &generic)
	node, _ := resolvePointer(generic, "#/components/headers/Link")
	b, _ := json.Marshal(node)
	_ = json.Unmarshal(b, &link)
	ex, ok := link.Examples["next"]
	if !ok || doc.Components.Headers["Link"] == nil {
		t.Fatal("the Link header has no example")
	}
	m := regexp.MustCompile(`^<([^>]+)>; rel="next"$`).FindStringSubmatch(ex.Value)
	if m == nil {
		t.Fatalf("Link example %q is not <URL>; rel=\"next\"", ex.Value)
	}
	u, err := url.Parse(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := filter.Purchases(u.Query(), 1, time.Now(), time.UTC); err != nil {
		t.Errorf("the Link example's query is refused: %v", err)
	}
}
