package web

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"storefront/docs"
	"storefront/templates"
	"storefront/web/openapi"
)

// openAPI serves GET /api/v2/openapi.json: the API's OpenAPI 3.1 description.
func (s *Server) openAPI(c *gin.Context) error {
	if err := noParams(c); err != nil {
		return err
	}
	c.Data(http.StatusOK, jsonType, openapi.Document())
	return nil
}

// apiDocs serves GET /docs/api: the API reference, rendered from the same document.
func (s *Server) apiDocs(c *gin.Context) error {
	v, err := openapi.View()
	if err != nil {
		return fmt.Errorf("api docs: %w", err)
	}
	return render(c, templates.APIDocs(s.chrome(c, "API reference", "docs"), v))
}

// searchHelp serves the search language's page: docs/SEARCH.md as it stands, as HTML.
func (s *Server) searchHelp(c *gin.Context) error {
	page, err := searchHelpHTML()
	if err != nil {
		return fmt.Errorf("search help: %w", err)
	}
	return render(c, templates.SearchHelp(s.chrome(c, "Search help", "docs"), page))
}

// searchHelpHTML is docs/SEARCH.md rendered once: GitHub's tables, headings with ids
// for the contents' links, raw HTML escaped (goldmark's default), and links out of the
// document (to the repository's other files) kept as their text.
var searchHelpHTML = sync.OnceValues(func() (string, error) {
	// A column's alignment as the align attribute: the CSP refuses style attributes.
	table := extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute))
	md := goldmark.New(goldmark.WithExtensions(table),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(), parser.WithASTTransformers(util.Prioritized(inPageLinks{}, 100))))
	var b bytes.Buffer
	err := md.Convert([]byte(docs.Search), &b)
	return b.String(), err
})

// inPageLinks replaces each link that leaves the page with its text.
type inPageLinks struct{}

func (inPageLinks) Transform(doc *ast.Document, _ text.Reader, _ parser.Context) {
	var out []*ast.Link
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering && !strings.HasPrefix(string(l.Destination), "#") {
			out = append(out, l)
		}
		return ast.WalkContinue, nil
	})
	for _, l := range out {
		parent := l.Parent()
		for l.HasChildren() {
			child := l.FirstChild()
			l.RemoveChild(l, child)
			parent.InsertBefore(parent, l, child)
		}
		parent.RemoveChild(parent, l)
	}
}
