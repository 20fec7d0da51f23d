package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"storefront/templates"
)

// This file renders the OpenAPI document (openapi.json) as a readable page of the
// dashboard, GET /docs/api. The document is parsed into the small subset of OpenAPI 3.1
// the page shows, keeping the order of its objects' keys, and turned into a view model.

// apiDocs serves GET /docs/api: the API reference, rendered from openapi.json.
func (s *Server) apiDocs(c *gin.Context) error {
	v, err := apiDocsView()
	if err != nil {
		return fmt.Errorf("api docs: %w", err)
	}
	return render(c, templates.APIDocs(s.chrome(c, "API reference", "docs"), v))
}

// apiDocsView builds the view model once: the document is embedded and never changes.
var apiDocsView = sync.OnceValues(func() (templates.APIDocsView, error) {
	doc, err := parseOpenAPI(openAPIDoc)
	if err != nil {
		return templates.APIDocsView{}, err
	}
	return doc.view()
})

// ordered is a JSON object whose key order is kept.
type ordered[T any] struct {
	Keys   []string
	Values map[string]T
}

// UnmarshalJSON reads an object, remembering the order of its keys.
func (o *ordered[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	o.Keys, o.Values = nil, map[string]T{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		k, _ := t.(string)
		var v T
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		if _, dup := o.Values[k]; !dup {
			o.Keys = append(o.Keys, k)
		}
		o.Values[k] = v
	}
	_, err := dec.Token()
	return err
}

// oaDoc is the part of an OpenAPI 3.1 document the page and the tests read.
type oaDoc struct {
	OpenAPI string `json:"openapi"`
	Info    struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Summary     string `json:"summary"`
		Description string `json:"description"`
	} `json:"info"`
	Servers []struct {
		URL         string `json:"url"`
		Description string `json:"description"`
	} `json:"servers"`
	Paths      ordered[*oaPathItem] `json:"paths"`
	Components struct {
		SecuritySchemes ordered[*oaSecurityScheme] `json:"securitySchemes"`
		Parameters      map[string]*oaParam        `json:"parameters"`
		Responses       map[string]*oaResponse     `json:"responses"`
		Headers         map[string]*oaHeader       `json:"headers"`
		Schemas         ordered[*oaSchema]         `json:"schemas"`
	} `json:"components"`
}

type oaSecurityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme"`
	Description string `json:"description"`
}

type oaPathItem struct {
	Parameters []*oaParam   `json:"parameters"`
	Get        *oaOperation `json:"get"`
	Put        *oaOperation `json:"put"`
	Post       *oaOperation `json:"post"`
	Delete     *oaOperation `json:"delete"`
	Options    *oaOperation `json:"options"`
	Head       *oaOperation `json:"head"`
	Patch      *oaOperation `json:"patch"`
	Trace      *oaOperation `json:"trace"`
}

// operations returns the item's operations by upper-case method, in a fixed order.
func (p *oaPathItem) operations() []methodOp {
	var out []methodOp
	for _, m := range []struct {
		name string
		op   *oaOperation
	}{{"GET", p.Get}, {"PUT", p.Put}, {"POST", p.Post}, {"DELETE", p.Delete}, {"OPTIONS", p.Options}, {"HEAD", p.Head}, {"PATCH", p.Patch}, {"TRACE", p.Trace}} {
		if m.op != nil {
			out = append(out, methodOp{m.name, m.op})
		}
	}
	return out
}

type methodOp struct {
	Method string
	Op     *oaOperation
}

type oaOperation struct {
	OperationID string               `json:"operationId"`
	Tags        []string             `json:"tags"`
	Summary     string               `json:"summary"`
	Description string               `json:"description"`
	Parameters  []*oaParam           `json:"parameters"`
	RequestBody *oaRequestBody       `json:"requestBody"`
	Responses   ordered[*oaResponse] `json:"responses"`
}

type oaParam struct {
	Ref         string    `json:"$ref"`
	Name        string    `json:"name"`
	In          string    `json:"in"`
	Required    bool      `json:"required"`
	Description string    `json:"description"`
	Schema      *oaSchema `json:"schema"`
}

type oaRequestBody struct {
	Description string            `json:"description"`
	Required    bool              `json:"required"`
	Content     ordered[*oaMedia] `json:"content"`
}

type oaMedia struct {
	Schema *oaSchema `json:"schema"`
}

type oaResponse struct {
	Ref         string             `json:"$ref"`
	Description string             `json:"description"`
	Headers     ordered[*oaHeader] `json:"headers"`
	Content     ordered[*oaMedia]  `json:"content"`
}

type oaHeader struct {
	Ref         string    `json:"$ref"`
	Description string    `json:"description"`
	Required    bool      `json:"required"`
	Schema      *oaSchema `json:"schema"`
}

// oaSchema is a JSON Schema (2020-12) as OpenAPI 3.1 uses it, the keywords this
// document uses.
type oaSchema struct {
	Ref         string             `json:"$ref"`
	Title       string             `json:"title"`
	Description string             `json:"description"`
	Type        typeList           `json:"type"`
	Format      string             `json:"format"`
	Pattern     string             `json:"pattern"`
	Enum        []any              `json:"enum"`
	Const       json.RawMessage    `json:"const"`
	Default     json.RawMessage    `json:"default"`
	Items       *oaSchema          `json:"items"`
	AnyOf       []*oaSchema        `json:"anyOf"`
	OneOf       []*oaSchema        `json:"oneOf"`
	Properties  ordered[*oaSchema] `json:"properties"`
	Required    []string           `json:"required"`
	Minimum     *json.Number       `json:"minimum"`
	Maximum     *json.Number       `json:"maximum"`
	MinLength   *int               `json:"minLength"`
	MaxLength   *int               `json:"maxLength"`
	Examples    []any              `json:"examples"`
}

// typeList is the "type" keyword: one type name or a list of them.
type typeList []string

// UnmarshalJSON reads "string" or ["string","null"].
func (t *typeList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = typeList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("type must be a string or a list of strings")
	}
	*t = many
	return nil
}

// parseOpenAPI reads the document.
func parseOpenAPI(b []byte) (*oaDoc, error) {
	var d oaDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	return &d, nil
}

// refName returns the last segment of a local $ref ("#/components/schemas/Purchase").
func refName(ref string) string { return ref[strings.LastIndexByte(ref, '/')+1:] }

func (d *oaDoc) param(p *oaParam) (*oaParam, error) {
	if p.Ref == "" {
		return p, nil
	}
	if q, ok := d.Components.Parameters[refName(p.Ref)]; ok && strings.HasPrefix(p.Ref, "#/components/parameters/") {
		return q, nil
	}
	return nil, fmt.Errorf("unresolved $ref %s", p.Ref)
}

func (d *oaDoc) response(r *oaResponse) (*oaResponse, error) {
	if r.Ref == "" {
		return r, nil
	}
	if q, ok := d.Components.Responses[refName(r.Ref)]; ok && strings.HasPrefix(r.Ref, "#/components/responses/") {
		return q, nil
	}
	return nil, fmt.Errorf("unresolved $ref %s", r.Ref)
}

func (d *oaDoc) header(h *oaHeader) (*oaHeader, error) {
	if h.Ref == "" {
		return h, nil
	}
	if q, ok := d.Components.Headers[refName(h.Ref)]; ok && strings.HasPrefix(h.Ref, "#/components/headers/") {
		return q, nil
	}
	return nil, fmt.Errorf("unresolved $ref %s", h.Ref)
}

// schema follows a schema's $ref, if any.
func (d *oaDoc) schema(s *oaSchema) (*oaSchema, error) {
	for s != nil && s.Ref != "" {
		q, ok := d.Components.Schemas.Values[refName(s.Ref)]
		if !ok || !strings.HasPrefix(s.Ref, "#/components/schemas/") {
			return nil, fmt.Errorf("unresolved $ref %s", s.Ref)
		}
		s = q
	}
	return s, nil
}

// operationParams returns the parameters of an operation: the path item's, then the
// operation's own, with references resolved.
func (d *oaDoc) operationParams(item *oaPathItem, op *oaOperation) ([]*oaParam, error) {
	var out []*oaParam
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		q, err := d.param(p)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// view builds the page's view model.
func (d *oaDoc) view() (templates.APIDocsView, error) {
	v := templates.APIDocsView{
		Title:       d.Info.Title,
		Version:     d.Info.Version,
		Summary:     d.Info.Summary,
		Description: paragraphs(d.Info.Description),
	}
	for _, s := range d.Servers {
		v.Servers = append(v.Servers, s.URL)
	}
	for _, name := range d.Components.SecuritySchemes.Keys {
		sc := d.Components.SecuritySchemes.Values[name]
		v.Security = append(v.Security, templates.APISecurity{Name: name, Scheme: sc.Type + " " + sc.Scheme, Description: sc.Description})
	}
	for _, path := range d.Paths.Keys {
		item := d.Paths.Values[path]
		for _, mo := range item.operations() {
			op, err := d.operationView(path, item, mo)
			if err != nil {
				return v, fmt.Errorf("%s %s: %w", mo.Method, path, err)
			}
			v.Operations = append(v.Operations, op)
		}
	}
	for _, name := range d.Components.Schemas.Keys {
		s := d.Components.Schemas.Values[name]
		sv := templates.APISchema{Name: name, Anchor: schemaAnchor(name), Description: s.Description}
		if s.hasType("object") && len(s.Properties.Keys) > 0 {
			fields, err := d.fields("", s)
			if err != nil {
				return v, fmt.Errorf("schema %s: %w", name, err)
			}
			sv.Fields = fields
		} else {
			t, err := d.typeOf(s)
			if err != nil {
				return v, fmt.Errorf("schema %s: %w", name, err)
			}
			sv.Type = t
		}
		v.Schemas = append(v.Schemas, sv)
	}
	return v, nil
}

func (d *oaDoc) operationView(path string, item *oaPathItem, mo methodOp) (templates.APIOperation, error) {
	op := mo.Op
	ov := templates.APIOperation{
		Anchor:      "op-" + op.OperationID,
		Method:      mo.Method,
		Path:        path,
		Summary:     op.Summary,
		Description: paragraphs(op.Description),
	}
	if ov.Anchor == "op-" {
		ov.Anchor = "op-" + strings.ToLower(mo.Method) + strings.NewReplacer("/", "-", "{", "", "}", "").Replace(path)
	}
	params, err := d.operationParams(item, op)
	if err != nil {
		return ov, err
	}
	for _, p := range params {
		t, err := d.typeOf(p.Schema)
		if err != nil {
			return ov, fmt.Errorf("parameter %s: %w", p.Name, err)
		}
		ov.Params = append(ov.Params, templates.APIParam{Name: p.Name, In: p.In, Required: p.Required, Type: t, Description: p.Description})
	}
	if rb := op.RequestBody; rb != nil {
		for _, mt := range rb.Content.Keys {
			s := rb.Content.Values[mt].Schema
			body := templates.APIBody{MediaType: mt, Required: rb.Required, Description: rb.Description}
			if s != nil && s.Ref != "" {
				body.Schema = refName(s.Ref)
				body.SchemaAnchor = schemaAnchor(body.Schema)
			}
			rs, err := d.schema(s)
			if err != nil {
				return ov, err
			}
			if rs != nil {
				if body.Fields, err = d.fields("", rs); err != nil {
					return ov, fmt.Errorf("request body %s: %w", mt, err)
				}
			}
			ov.Bodies = append(ov.Bodies, body)
		}
	}
	for _, status := range op.Responses.Keys {
		r, err := d.response(op.Responses.Values[status])
		if err != nil {
			return ov, fmt.Errorf("response %s: %w", status, err)
		}
		rv := templates.APIResponse{Status: status, Description: r.Description}
		for _, h := range r.Headers.Keys {
			if _, err := d.header(r.Headers.Values[h]); err != nil {
				return ov, fmt.Errorf("response %s header %s: %w", status, h, err)
			}
			rv.Headers = append(rv.Headers, h)
		}
		for _, mt := range r.Content.Keys {
			t, err := d.typeOf(r.Content.Values[mt].Schema)
			if err != nil {
				return ov, fmt.Errorf("response %s: %w", status, err)
			}
			rv.Bodies = append(rv.Bodies, templates.APIResponseBody{MediaType: mt, Type: t})
		}
		ov.Responses = append(ov.Responses, rv)
	}
	return ov, nil
}

// fields lists the properties of an object schema; nested objects are flattened with
// dotted names (error.code).
func (d *oaDoc) fields(prefix string, s *oaSchema) ([]templates.APIField, error) {
	var out []templates.APIField
	for _, name := range s.Properties.Keys {
		p := s.Properties.Values[name]
		t, err := d.typeOf(p)
		if err != nil {
			return nil, fmt.Errorf("%s%s: %w", prefix, name, err)
		}
		out = append(out, templates.APIField{Name: prefix + name, Type: t, Required: slices.Contains(s.Required, name), Description: p.Description})
		if p.Ref == "" && p.hasType("object") && len(p.Properties.Keys) > 0 {
			sub, err := d.fields(prefix+name+".", p)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

func (s *oaSchema) hasType(t string) bool { return slices.Contains(s.Type, t) }

// schemaAnchor is the id of a schema's section on the page.
func schemaAnchor(name string) string { return "schema-" + name }

// typeOf describes a schema in a few words, with a link to the schema it names.
func (d *oaDoc) typeOf(s *oaSchema) (templates.APIType, error) {
	var t templates.APIType
	if s == nil {
		t.Text = "any"
		return t, nil
	}
	text, ref, err := d.describe(s)
	if err != nil {
		return t, err
	}
	t.Text, t.Ref = text, ref
	if ref != "" {
		t.RefAnchor = schemaAnchor(ref)
	}
	var notes []string
	if s.Minimum != nil && s.Maximum != nil {
		notes = append(notes, fmt.Sprintf("%s to %s", s.Minimum, s.Maximum))
	} else if s.Minimum != nil {
		notes = append(notes, fmt.Sprintf("at least %s", s.Minimum))
	} else if s.Maximum != nil {
		notes = append(notes, fmt.Sprintf("at most %s", s.Maximum))
	}
	if s.MinLength != nil && s.MaxLength != nil {
		notes = append(notes, fmt.Sprintf("%d to %d characters", *s.MinLength, *s.MaxLength))
	} else if s.MaxLength != nil {
		notes = append(notes, fmt.Sprintf("at most %d characters", *s.MaxLength))
	}
	if s.Pattern != "" && s.Title == "" {
		notes = append(notes, "pattern "+s.Pattern)
	}
	if len(s.Default) > 0 {
		notes = append(notes, "default "+string(s.Default))
	}
	t.Notes = strings.Join(notes, "; ")
	return t, nil
}

// describe returns a short text for a schema and the name of the one schema it refers
// to, if any.
func (d *oaDoc) describe(s *oaSchema) (string, string, error) {
	if s.Ref != "" {
		if _, err := d.schema(s); err != nil {
			return "", "", err
		}
		return refName(s.Ref), refName(s.Ref), nil
	}
	if s.Title != "" {
		return s.Title, "", nil
	}
	if len(s.Const) > 0 {
		return string(s.Const), "", nil
	}
	alts := s.AnyOf
	if len(alts) == 0 {
		alts = s.OneOf
	}
	if len(alts) > 0 {
		var parts, titled []string
		ref := ""
		for _, a := range alts {
			text, r, err := d.describe(a)
			if err != nil {
				return "", "", err
			}
			if r != "" {
				ref = r
			}
			if a.Ref == "" && a.Title != "" {
				titled = append(titled, text)
			} else if !slices.Contains(parts, text) {
				parts = append(parts, text)
			}
		}
		text := strings.Join(parts, " | ")
		if len(titled) > 0 {
			text += " (" + strings.Join(titled, "; ") + ")"
		}
		return text, ref, nil
	}
	if len(s.Enum) > 0 {
		var vals []string
		for _, e := range s.Enum {
			b, _ := json.Marshal(e)
			vals = append(vals, string(b))
		}
		return strings.Join(vals, " | "), "", nil
	}
	var parts []string
	ref := ""
	for _, typ := range s.Type {
		switch {
		case typ == "array" && s.Items != nil:
			text, r, err := d.describe(s.Items)
			if err != nil {
				return "", "", err
			}
			ref = r
			parts = append(parts, "array of "+text)
		case typ == "string" && s.Format != "":
			parts = append(parts, "string ("+s.Format+")")
		default:
			parts = append(parts, typ)
		}
	}
	if len(parts) == 0 {
		return "any", "", nil
	}
	return strings.Join(parts, " | "), ref, nil
}

// paragraphs splits a description on blank lines and reads the little Markdown it
// uses: `code` and **strong**. Everything else is text; the template escapes it all.
func paragraphs(s string) []templates.Paragraph {
	var out []templates.Paragraph
	for _, block := range strings.Split(strings.TrimSpace(s), "\n\n") {
		block = strings.TrimSpace(block)
		if block == "" {
			continue
		}
		out = append(out, inlines(strings.ReplaceAll(block, "\n", " ")))
	}
	return out
}

func inlines(s string) templates.Paragraph {
	var p templates.Paragraph
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			p = append(p, templates.Inline{Text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				flush()
				p = append(p, templates.Inline{Text: s[i+1 : i+1+j], Code: true})
				i += j + 2
				continue
			}
		case strings.HasPrefix(s[i:], "**"):
			if j := strings.Index(s[i+2:], "**"); j >= 0 {
				flush()
				p = append(p, templates.Inline{Text: s[i+2 : i+2+j], Strong: true})
				i += j + 4
				continue
			}
		}
		text.WriteByte(s[i])
		i++
	}
	flush()
	return p
}
