package web

import (
	"fmt"
	"net/http"

	"github.com/gin-gonic/gin"

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

// searchHelp serves the search language's page: docs/SEARCH.md as it stands.
func (s *Server) searchHelp(c *gin.Context) error {
	return render(c, templates.SearchHelp(s.chrome(c, "Search help", "docs"), docs.Search))
}
