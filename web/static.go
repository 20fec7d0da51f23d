package web

import (
	"io/fs"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/static"
)

// staticFiles serves the embedded assets with long caching for versioned files.
func staticFiles() func(c *gin.Context) error {
	files := http.FileServer(http.FS(static.Files))
	return func(c *gin.Context) error {
		name := strings.TrimPrefix(c.Param("path"), "/")
		if st, err := fs.Stat(static.Files, name); err != nil || st.IsDir() || strings.HasSuffix(name, ".go") {
			return shop.Errorf(shop.ENotFound, "There is no such file.")
		}
		c.Header("Cache-Control", "public, max-age=3600")
		c.Request.URL.Path = "/" + name
		files.ServeHTTP(c.Writer, c.Request)
		return nil
	}
}

// favicon answers the browsers that ask for /favicon.ico: the pages name their icon,
// but answers that are no page (a refused cross-site post) do not.
func favicon(c *gin.Context) {
	c.Header("Cache-Control", "public, max-age=3600")
	c.FileFromFS("favicon.svg", http.FS(static.Files))
}
