package web

import (
	"bytes"
	"net/http"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// 2xx answers), a whole page otherwise.
func (s *Server) pageError(c *gin.Context, err error) {
	status := errStatus(err)
	msg := shop.ErrorMessage(err)
	if status >= 500 {
		s.Logger.Error("page error", "request_id", c.GetString(ctxRequestID), "path", c.Request.URL.Path, "err", err)
		if status == http.StatusServiceUnavailable {
			c.Header("Retry-After", "5")
		} else {
			msg = "Something went wrong on our side. The request id is " + c.GetString(ctxRequestID) + "."
		}
	}
	if c.GetHeader("HX-Request") == "true" {
		renderStatus(c, http.StatusOK, templates.InlineError(msg))
		return
	}
	renderStatus(c, status, templates.ErrorPage(s.chrome(c, http.StatusText(status), ""), status, msg))
}

// renderStatus writes a component into a buffer first, so that an error never leaves
// a half-written page. Pages vary by HX-Request (page or fragment).
func renderStatus(c *gin.Context, status int, comp templ.Component) {
	var buf bytes.Buffer
	if err := comp.Render(c.Request.Context(), &buf); err != nil {
		c.String(http.StatusInternalServerError, "internal error\n")
		return
	}
	c.Header("Vary", "HX-Request")
	c.Header("Cache-Control", "no-store")
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// isFragment reports whether an htmx request asks for a fragment (and not for a
// whole page to restore history).
func isFragment(c *gin.Context) bool {
	return c.GetHeader("HX-Request") == "true" && c.GetHeader("HX-History-Restore-Request") != "true"
}
