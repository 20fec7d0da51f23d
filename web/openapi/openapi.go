// Package openapi holds the OpenAPI 3.1 description of /api/v2 (openapi.json) and
// reads it: into the small subset of OpenAPI 3.1 the dashboard's API reference shows,
// keeping the order of its objects' keys, and from there into that page's view model.
package openapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Ordered is a JSON object whose key order is kept.
type Ordered[T any] struct {
	Keys   []string
	Values map[string]T
}

// UnmarshalJSON reads an object, remembering the order of its keys.
func (o *Ordered[T]) UnmarshalJSON(b []byte) error {
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

// Doc is the part of an OpenAPI 3.1 document the page and the tests read.
type Doc struct {
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
	Paths      Ordered[*PathItem] `json:"paths"`
	Components struct {
		SecuritySchemes Ordered[*SecurityScheme] `json:"securitySchemes"`
		Parameters      map[string]*Param        `json:"parameters"`
		Responses       map[string]*Response     `json:"responses"`
		Headers         map[string]*Header       `json:"headers"`
		Schemas         Ordered[*Schema]         `json:"schemas"`
	} `json:"components"`
}

type SecurityScheme struct {
	Type        string `json:"type"`
	Scheme      string `json:"scheme"`
	Description string `json:"description"`
}

type PathItem struct {
	Parameters []*Param   `json:"parameters"`
	Get        *Operation `json:"get"`
	Put        *Operation `json:"put"`
	Post       *Operation `json:"post"`
	Delete     *Operation `json:"delete"`
	Options    *Operation `json:"options"`
	Head       *Operation `json:"head"`
	Patch      *Operation `json:"patch"`
	Trace      *Operation `json:"trace"`
}

// Operations returns the item's operations by upper-case method, in a fixed order.
func (p *PathItem) Operations() []MethodOp {
	var out []MethodOp
	for _, m := range []struct {
		name string
		op   *Operation
	}{{"GET", p.Get}, {"PUT", p.Put}, {"POST", p.Post}, {"DELETE", p.Delete}, {"OPTIONS", p.Options}, {"HEAD", p.Head}, {"PATCH", p.Patch}, {"TRACE", p.Trace}} {
		if m.op != nil {
			out = append(out, MethodOp{m.name, m.op})
		}
	}
	return out
}

type MethodOp struct {
	Method string
	Op     *Operation
}

type Operation struct {
	OperationID string             `json:"operationId"`
	Tags        []string           `json:"tags"`
	Summary     string             `json:"summary"`
	Description string             `json:"description"`
	Parameters  []*Param           `json:"parameters"`
	RequestBody *RequestBody       `json:"requestBody"`
	Responses   Ordered[*Response] `json:"responses"`
}

type Param struct {
	Ref         string  `json:"$ref"`
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Required    bool    `json:"required"`
	Description string  `json:"description"`
	Schema      *Schema `json:"schema"`
}

type RequestBody struct {
	Description string          `json:"description"`
	Required    bool            `json:"required"`
	Content     Ordered[*Media] `json:"content"`
}

type Media struct {
	Schema *Schema `json:"schema"`
}

type Response struct {
	Ref         string           `json:"$ref"`
	Description string           `json:"description"`
	Headers     Ordered[*Header] `json:"headers"`
	Content     Ordered[*Media]  `json:"content"`
}

type Header struct {
	Ref         string  `json:"$ref"`
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Schema      *Schema `json:"schema"`
}

// Schema is a JSON Schema (2020-12) as OpenAPI 3.1 uses it, the keywords this
// document uses.
type Schema struct {
	Ref         string           `json:"$ref"`
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Type        TypeList         `json:"type"`
	Format      string           `json:"format"`
	Pattern     string           `json:"pattern"`
	Enum        []any            `json:"enum"`
	Const       json.RawMessage  `json:"const"`
	Default     json.RawMessage  `json:"default"`
	Items       *Schema          `json:"items"`
	AnyOf       []*Schema        `json:"anyOf"`
	OneOf       []*Schema        `json:"oneOf"`
	Properties  Ordered[*Schema] `json:"properties"`
	Required    []string         `json:"required"`
	// AdditionalProperties is false for an object that has no members besides
	// Properties; unset, any others are allowed.
	AdditionalProperties json.RawMessage `json:"additionalProperties"`
	Minimum              *json.Number    `json:"minimum"`
	Maximum              *json.Number    `json:"maximum"`
	MinLength            *int            `json:"minLength"`
	MaxLength            *int            `json:"maxLength"`
	Examples             []any           `json:"examples"`
}

// TypeList is the "type" keyword: one type name or a list of them.
type TypeList []string

// UnmarshalJSON reads "string" or ["string","null"].
func (t *TypeList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*t = TypeList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("type must be a string or a list of strings")
	}
	*t = many
	return nil
}

// Parse reads the document.
func Parse(b []byte) (*Doc, error) {
	var d Doc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	return &d, nil
}

// RefName returns the last segment of a local $ref ("#/components/schemas/Purchase").
func RefName(ref string) string { return ref[strings.LastIndexByte(ref, '/')+1:] }

// resolve follows a local $ref into one section of the document's components.
func resolve[T any](v T, ref string, section map[string]T, name string) (T, error) {
	if ref == "" {
		return v, nil
	}
	if q, ok := section[RefName(ref)]; ok && strings.HasPrefix(ref, "#/components/"+name+"/") {
		return q, nil
	}
	var none T
	return none, fmt.Errorf("unresolved $ref %s", ref)
}

// Param follows a parameter's $ref, if any.
func (d *Doc) Param(p *Param) (*Param, error) {
	return resolve(p, p.Ref, d.Components.Parameters, "parameters")
}

// Response follows a response's $ref, if any.
func (d *Doc) Response(r *Response) (*Response, error) {
	return resolve(r, r.Ref, d.Components.Responses, "responses")
}

// Header follows a header's $ref, if any.
func (d *Doc) Header(h *Header) (*Header, error) {
	return resolve(h, h.Ref, d.Components.Headers, "headers")
}

// Schema follows a schema's $ref, if any.
func (d *Doc) Schema(s *Schema) (*Schema, error) {
	for s != nil && s.Ref != "" {
		q, ok := d.Components.Schemas.Values[RefName(s.Ref)]
		if !ok || !strings.HasPrefix(s.Ref, "#/components/schemas/") {
			return nil, fmt.Errorf("unresolved $ref %s", s.Ref)
		}
		s = q
	}
	return s, nil
}

// OperationParams returns the parameters of an operation: the path item's, then the
// operation's own, with references resolved.
func (d *Doc) OperationParams(item *PathItem, op *Operation) ([]*Param, error) {
	var out []*Param
	for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
		q, err := d.Param(p)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// document is the OpenAPI 3.1 description of /api/v2.
//
//go:embed openapi.json
var document []byte

// Document returns the OpenAPI 3.1 description of the API.
func Document() []byte { return document }
