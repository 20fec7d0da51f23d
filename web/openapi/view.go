package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"storefront/templates"
)

// View returns the view model of the API reference page, built once: the document is
// embedded and never changes.
var View = sync.OnceValues(func() (templates.APIDocsView, error) {
	doc, err := Parse(document)
	if err != nil {
		return templates.APIDocsView{}, err
	}
	return doc.view()
})

// view builds the page's view model.
func (d *Doc) view() (templates.APIDocsView, error) {
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
		for _, mo := range item.Operations() {
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

func (d *Doc) operationView(path string, item *PathItem, mo MethodOp) (templates.APIOperation, error) {
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
	params, err := d.OperationParams(item, op)
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
				body.Schema = RefName(s.Ref)
				body.SchemaAnchor = schemaAnchor(body.Schema)
			}
			rs, err := d.Schema(s)
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
		r, err := d.Response(op.Responses.Values[status])
		if err != nil {
			return ov, fmt.Errorf("response %s: %w", status, err)
		}
		rv := templates.APIResponse{Status: status, Description: r.Description}
		for _, h := range r.Headers.Keys {
			if _, err := d.Header(r.Headers.Values[h]); err != nil {
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
func (d *Doc) fields(prefix string, s *Schema) ([]templates.APIField, error) {
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

func (s *Schema) hasType(t string) bool { return slices.Contains(s.Type, t) }

// schemaAnchor is the id of a schema's section on the page.
func schemaAnchor(name string) string { return "schema-" + name }

// typeOf describes a schema in a few words, with a link to the schema it names.
func (d *Doc) typeOf(s *Schema) (templates.APIType, error) {
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
func (d *Doc) describe(s *Schema) (string, string, error) {
	if s.Ref != "" {
		if _, err := d.Schema(s); err != nil {
			return "", "", err
		}
		return RefName(s.Ref), RefName(s.Ref), nil
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
