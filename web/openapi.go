package web

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// openAPIDoc is the OpenAPI 3.1 description of /api/v2.
//
//go:embed openapi.json
var openAPIDoc []byte

// OpenAPIDocument returns the OpenAPI 3.1 description of the API.
func OpenAPIDocument() []byte { return openAPIDoc }

func (s *Server) openAPI(c *gin.Context) error {
	if err := noParams(c); err != nil {
		return err
	}
	c.Data(http.StatusOK, jsonType, openAPIDoc)
	return nil
}
