package web

import (
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"storefront/internal/shop"
	"storefront/web/openapi"
)

// These tests keep docs/API.md, the API contract in prose, and openapi.json in
// agreement: every route, parameter, answer status, error code, response header and
// object field named in one is named in the other. docs/API.md is parsed by its
// headings and tables, so those keep a fixed shape (see the top of docs/API.md).

const apiDocPath = "../docs/API.md"

// mdSection is a part of a markdown document under one heading, up to the next heading
// of the same or a higher level.
type mdSection struct {
	level int
	title string
	lines []string
	subs  []*mdSection
}

// mdTable is a markdown table: the header cells and the cells of each row.
type mdTable struct {
	header []string
	rows   [][]string
}

var mdHeading = regexp.MustCompile(`^(#{1,6}) (.+)$`)

// parseMarkdown splits a document into its top section with nested subsections.
// Lines inside fenced code blocks are never headings.
func parseMarkdown(text string) *mdSection {
	root := &mdSection{}
	stack := []*mdSection{root}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if m := mdHeading.FindStringSubmatch(line); m != nil && !fenced {
			s := &mdSection{level: len(m[1]), title: strings.TrimSpace(m[2])}
			for len(stack) > 1 && stack[len(stack)-1].level >= s.level {
				stack = stack[:len(stack)-1]
			}
			parent := stack[len(stack)-1]
			parent.subs = append(parent.subs, s)
			stack = append(stack, s)
			continue
		}
		cur := stack[len(stack)-1]
		cur.lines = append(cur.lines, line)
	}
	return root
}

// find returns the subsection with the title, searching depth first.
func (s *mdSection) find(title string) *mdSection {
	for _, c := range s.subs {
		if c.title == title {
			return c
		}
		if f := c.find(title); f != nil {
			return f
		}
	}
	return nil
}

// tables returns the tables written directly in the section (not in its subsections).
func (s *mdSection) tables() []mdTable {
	var out []mdTable
	var block []string
	flush := func() {
		if len(block) >= 2 {
			t := mdTable{header: splitRow(block[0])}
			for _, r := range block[2:] {
				t.rows = append(t.rows, splitRow(r))
			}
			out = append(out, t)
		}
		block = nil
	}
	for _, line := range s.lines {
		if strings.HasPrefix(line, "|") {
			block = append(block, line)
		} else {
			flush()
		}
	}
	flush()
	return out
}

// table returns the one table of the section whose first header cell is first.
func (s *mdSection) table(t *testing.T, first string) *mdTable {
	t.Helper()
	var found *mdTable
	for _, tb := range s.tables() {
		if strings.EqualFold(tb.header[0], first) {
			if found != nil {
				t.Errorf("docs/API.md, %s: more than one %q table", s.title, first)
			}
			found = &tb
		}
	}
	return found
}

func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	cells := strings.Split(strings.ReplaceAll(line, `\|`, "\x00"), "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
	}
	return cells
}

var backticked = regexp.MustCompile("`([^`]+)`")

// codeNames returns the backticked names of a cell: "`ACT`, `PND`" gives ACT, PND.
func codeNames(cell string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// loadAPIDoc reads and parses docs/API.md.
func loadAPIDoc(t *testing.T) *mdSection {
	t.Helper()
	b, err := os.ReadFile(apiDocPath)
	if err != nil {
		t.Fatalf("docs/API.md: %v", err)
	}
	return parseMarkdown(string(b))
}

// section returns a top-level (##) section of docs/API.md, failing when it is missing.
func section(t *testing.T, doc *mdSection, title string) *mdSection {
	t.Helper()
	s := doc.find(title)
	if s == nil || s.level != 2 {
		t.Fatalf("docs/API.md has no section %q", title)
	}
	return s
}

var routeHeading = regexp.MustCompile(`^(GET|POST|PUT|PATCH|DELETE) (/api/v2\S*)$`)

// docRoutes returns the route sections of docs/API.md by OpenAPI key ("GET /purchases/{id}").
func docRoutes(t *testing.T, doc *mdSection) map[string]*mdSection {
	t.Helper()
	out := map[string]*mdSection{}
	for _, s := range section(t, doc, "Routes").subs {
		m := routeHeading.FindStringSubmatch(s.title)
		if m == nil {
			t.Errorf("docs/API.md, Routes: heading %q is not METHOD /api/v2/PATH", s.title)
			continue
		}
		path := strings.TrimPrefix(m[2], apiPrefix)
		if path == "" {
			path = "/"
		}
		key := opKey(m[1], path)
		if out[key] != nil {
			t.Errorf("docs/API.md documents %s twice", key)
		}
		out[key] = s
	}
	return out
}

// sorted returns the keys of a set in order, for messages.
func sorted(m map[string]bool) []string { return slices.Sorted(maps.Keys(m)) }

// compareSets reports, both ways, what one side names and the other does not.
func compareSets(t *testing.T, what string, inDoc, inOpenAPI map[string]bool) {
	t.Helper()
	for _, k := range sorted(inDoc) {
		if !inOpenAPI[k] {
			t.Errorf("%s: docs/API.md names %s, openapi.json does not", what, k)
		}
	}
	for _, k := range sorted(inOpenAPI) {
		if !inDoc[k] {
			t.Errorf("%s: openapi.json names %s, docs/API.md does not", what, k)
		}
	}
}

// TestAPIDocRoutes: docs/API.md has a section for every operation of openapi.json and
// no other; each names the same parameters (name and where it goes) and the same
// answer statuses.
func TestAPIDocRoutes(t *testing.T) {
	oa, _ := loadOpenAPI(t)
	doc := loadAPIDoc(t)
	routes := docRoutes(t, doc)
	operations := documentedOperations(oa)
	inDoc, inOA := map[string]bool{}, map[string]bool{}
	for k := range routes {
		inDoc[k] = true
	}
	for k := range operations {
		inOA[k] = true
	}
	compareSets(t, "routes", inDoc, inOA)

	// The answers every route can give, listed once.
	common := map[string]bool{}
	if tb := section(t, doc, "Routes").table(t, "status"); tb == nil {
		t.Error("docs/API.md, Routes: no table of the answers common to every route")
	} else {
		for _, r := range tb.rows {
			common[r[0]] = true
		}
	}

	checked := 0
	for key, s := range routes {
		op := operations[key]
		if op == nil {
			continue
		}
		path := strings.SplitN(key, " ", 2)[1]
		item := oa.Paths.Values[path]

		// Parameters, as "where name".
		docParams := map[string]bool{}
		if tb := s.table(t, "parameter"); tb != nil {
			if len(tb.header) < 2 || !strings.EqualFold(tb.header[1], "in") {
				t.Errorf("docs/API.md, %s: the parameter table's second column must be \"in\"", key)
				continue
			}
			for _, r := range tb.rows {
				names := codeNames(r[0])
				if len(names) != 1 {
					t.Errorf("docs/API.md, %s: parameter cell %q must hold one `name`", key, r[0])
					continue
				}
				for _, in := range strings.Split(r[1], " or ") {
					docParams[strings.TrimSpace(in)+" "+names[0]] = true
				}
			}
		}
		oaParams := map[string]bool{}
		params, err := oa.OperationParams(item, op)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range params {
			oaParams[p.In+" "+p.Name] = true
		}
		if op.RequestBody != nil {
			for _, mt := range op.RequestBody.Content.Keys {
				bs, err := oa.Schema(op.RequestBody.Content.Values[mt].Schema)
				if err != nil || bs == nil {
					t.Fatalf("%s: request body %s: %v", key, mt, err)
				}
				for _, name := range bs.Properties.Keys {
					oaParams["body "+name] = true
				}
			}
		}
		compareSets(t, key+" parameters", docParams, oaParams)
		checked += len(docParams)

		// Answer statuses: the route's own and the common ones.
		docStatus := maps.Clone(common)
		if tb := s.table(t, "status"); tb == nil {
			t.Errorf("docs/API.md, %s: no table of answers", key)
		} else {
			for _, r := range tb.rows {
				if _, err := strconv.Atoi(r[0]); err != nil {
					t.Errorf("docs/API.md, %s: status %q is not a number", key, r[0])
				}
				docStatus[r[0]] = true
			}
		}
		oaStatus := map[string]bool{}
		for _, st := range op.Responses.Keys {
			oaStatus[st] = true
		}
		compareSets(t, key+" answers", docStatus, oaStatus)
	}
	if checked < 20 {
		t.Errorf("only %d parameters were compared; the tables were not read", checked)
	}
}

// mustTable returns the table of a section of docs/API.md whose first column is first.
func mustTable(t *testing.T, doc *mdSection, title, first string) *mdTable {
	t.Helper()
	tb := section(t, doc, title).table(t, first)
	if tb == nil {
		t.Fatalf("docs/API.md, %s: no table whose first column is %s", title, first)
	}
	return tb
}

// TestAPIDocErrors: the error table of docs/API.md lists exactly the error codes of
// openapi.json, each with the HTTP status and status word the server answers it with.
func TestAPIDocErrors(t *testing.T) {
	oa, _ := loadOpenAPI(t)
	doc := loadAPIDoc(t)
	tb := mustTable(t, doc, "Errors", "HTTP")
	if len(tb.header) < 3 || !strings.EqualFold(tb.header[1], "status") || !strings.EqualFold(tb.header[2], "code") {
		t.Fatalf("docs/API.md, Errors: the columns must be HTTP, status, code, …; they are %v", tb.header)
	}
	inDoc := map[string]bool{}
	rows := map[string]bool{}
	for _, r := range tb.rows {
		words, codes := codeNames(r[1]), codeNames(r[2])
		if len(words) != 1 || len(codes) == 0 {
			t.Errorf("docs/API.md, Errors: row %v needs one `WORD` and at least one `code`", r)
			continue
		}
		for _, code := range codes {
			inDoc[code] = true
			rows[r[0]+" "+words[0]+" "+code] = true
		}
	}
	// The codes of openapi.json's Error schema.
	errSchema, _ := oa.Schema(oa.Components.Schemas.Values["Error"])
	if errSchema == nil || errSchema.Properties.Values["error"] == nil {
		t.Fatal("openapi.json has no Error schema with an error member")
	}
	inOA := map[string]bool{}
	for _, c := range enumValues(oa, errSchema.Properties.Values["error"].Properties.Values["code"]) {
		inOA[c] = true
	}
	compareSets(t, "error codes", inDoc, inOA)

	// Each row is how the server answers the code.
	want := map[string]bool{}
	for code, k := range errorTable {
		want[strconv.Itoa(k.status)+" "+k.word+" "+code] = true
	}
	want[strconv.Itoa(http.StatusRequestURITooLong)+" "+errorTable[shop.ETooLarge].word+" "+shop.ETooLarge] = true
	for _, k := range sorted(rows) {
		if !want[k] {
			t.Errorf("docs/API.md, Errors: %q is not how the server answers that code", k)
		}
	}
	for _, k := range sorted(want) {
		if !rows[k] {
			t.Errorf("docs/API.md, Errors: no row %q", k)
		}
	}
}

// TestAPIDocHeaders: the response headers of docs/API.md are those openapi.json
// documents on some response.
func TestAPIDocHeaders(t *testing.T) {
	oa, _ := loadOpenAPI(t)
	doc := loadAPIDoc(t)
	tb := mustTable(t, doc, "Response headers", "header")
	inDoc := map[string]bool{}
	for _, r := range tb.rows {
		for _, h := range codeNames(r[0]) {
			inDoc[h] = true
		}
	}
	inOA := map[string]bool{}
	for name := range oa.Components.Headers {
		inOA[name] = true
	}
	addHeaders := func(r *openapi.Response) {
		r, err := oa.Response(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range r.Headers.Keys {
			inOA[name] = true
		}
	}
	for _, r := range oa.Components.Responses {
		addHeaders(r)
	}
	for _, op := range documentedOperations(oa) {
		for _, st := range op.Responses.Keys {
			addHeaders(op.Responses.Values[st])
		}
	}
	compareSets(t, "response headers", inDoc, inOA)
	for _, h := range []string{"Dpd-Collection-Count", "X-Total-Count", "Link"} {
		if !inDoc[h] {
			t.Errorf("docs/API.md does not describe the list header %s", h)
		}
	}
}

// apiDocObjectsOmitted are the object schemas of openapi.json that docs/API.md does
// not give a table of, and why.
var apiDocObjectsOmitted = map[string]string{
	"Ping":             "one constant member, shown in the route's answers",
	"ReactivateResult": "one constant member, shown in the route's answers",
	"ReactivateForm":   "request body: its fields are the route's body parameters",
	"ReactivateJSON":   "request body: its fields are the route's body parameters",
}

// schemaName turns an object heading into its schema name: "Line item" is LineItem.
func schemaName(title string) string {
	var b strings.Builder
	for _, w := range strings.Fields(title) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// TestAPIDocObjects: each object table of docs/API.md has exactly the fields of its
// openapi.json schema, marked "or null" exactly where the schema allows null.
func TestAPIDocObjects(t *testing.T) {
	oa, _ := loadOpenAPI(t)
	doc := loadAPIDoc(t)
	documented := map[string]bool{}
	for _, s := range section(t, doc, "Objects").subs {
		name := schemaName(s.title)
		documented[name] = true
		schema, _ := oa.Schema(oa.Components.Schemas.Values[name])
		if schema == nil {
			t.Errorf("docs/API.md, Objects: %s has no schema %s in openapi.json", s.title, name)
			continue
		}
		tb := s.table(t, "field")
		if tb == nil || len(tb.header) < 2 || !strings.EqualFold(tb.header[1], "type") {
			t.Errorf("docs/API.md, Objects, %s: no table with columns field, type, …", s.title)
			continue
		}
		inDoc, inOA := map[string]bool{}, map[string]bool{}
		for _, r := range tb.rows {
			names := codeNames(r[0])
			if len(names) != 1 {
				t.Errorf("docs/API.md, %s: field cell %q must hold one `name`", s.title, r[0])
				continue
			}
			inDoc[names[0]] = true
			if p := schema.Properties.Values[names[0]]; p != nil {
				docNull := strings.Contains(r[1], "or null")
				if oaNull := schemaTypes(oa, p)["null"]; docNull != oaNull {
					t.Errorf("docs/API.md, %s.%s: type %q, but openapi.json says null allowed: %v", s.title, names[0], r[1], oaNull)
				}
			}
		}
		for _, k := range schema.Properties.Keys {
			inOA[k] = true
		}
		compareSets(t, s.title+" fields", inDoc, inOA)
	}
	for _, name := range oa.Components.Schemas.Keys {
		s, _ := oa.Schema(oa.Components.Schemas.Values[name])
		if len(s.Properties.Keys) == 0 || documented[name] {
			continue
		}
		if _, ok := apiDocObjectsOmitted[name]; !ok {
			t.Errorf("openapi.json has object %s, which docs/API.md, Objects, does not describe", name)
		}
	}
}

// mdAnchor is the anchor a heading gets on GitHub: lower case, punctuation dropped,
// spaces as hyphens.
func mdAnchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

var apiDocLink = regexp.MustCompile(`(?:\]\(#|API\.md#)([A-Za-z0-9_-]+)`)

// TestAPIDocLinks: every link to a part of docs/API.md, in it or anywhere in the
// repository ("API.md#" and a heading's anchor), names a heading it has.
func TestAPIDocLinks(t *testing.T) {
	doc := loadAPIDoc(t)
	anchors := map[string]bool{}
	var walk func(s *mdSection)
	walk = func(s *mdSection) {
		for _, c := range s.subs {
			anchors[mdAnchor(c.title)] = true
			walk(c)
		}
	}
	walk(doc)
	b, _ := os.ReadFile(apiDocPath)
	links := 0
	for _, m := range apiDocLink.FindAllStringSubmatch(string(b), -1) {
		links++
		if !anchors[m[1]] {
			t.Errorf("docs/API.md links to #%s, which is no heading of it", m[1])
		}
	}
	for path, text := range repoTextFiles(t) {
		if filepath.Base(path) == "API.md" {
			continue
		}
		for _, m := range apiDocLink.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(m[0], "API.md#") {
				continue // a link within that file
			}
			links++
			if !anchors[m[1]] {
				t.Errorf("%s refers to docs/API.md#%s, which is no heading of it", path, m[1])
			}
		}
	}
	if links < 10 {
		t.Errorf("only %d links to docs/API.md sections were found", links)
	}
}

// repoTextFiles returns the source and documentation files of the repository, by path
// relative to this package, leaving out dependencies, build output and test data.
func repoTextFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "testdata", "bench-out", ".devdata", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".go", ".md", ".templ", ".sql", ".sh", ".py", ".json":
		default:
			if d.Name() != "Makefile" {
				return nil
			}
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = string(text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("only %d files were found from %s; the walk is broken", len(out), "..")
	}
	return out
}

// outsideReference names a document that is not in the repository: the contract and
// notes the project was started from. The repository explains itself in docs/API.md.
var outsideReference = regexp.MustCompile(`decisions\.md|DEPENDENCIES\.md|interface\.md|\bD(?:1[01]|[1-9])\b`)

// TestAPIDocNoOutsideReferences: no file refers to decisions.md (or its sections D1 to
// D11), interface.md or DEPENDENCIES.md, which the repository does not hold.
func TestAPIDocNoOutsideReferences(t *testing.T) {
	for path, text := range repoTextFiles(t) {
		if filepath.Base(path) == "apidoc_test.go" {
			continue // names them to find them
		}
		for i, line := range strings.Split(text, "\n") {
			if m := outsideReference.FindString(line); m != "" {
				t.Errorf("%s:%d names %s, which is not in the repository; point at docs/API.md or say it in place", path, i+1, m)
			}
		}
	}
}
