package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// errorKind is how one error code is answered (docs/API.md#errors).
type errorKind struct {
	status int
	word   string
}

// errorTable maps every error code to its HTTP status and DPD status word; codes that
// share a status share a line.
var errorTable = map[string]errorKind{
	shop.EInvalid: {http.StatusBadRequest, "INVALID"}, shop.EMissing: {http.StatusBadRequest, "INVALID"}, shop.EUnknownParam: {http.StatusBadRequest, "INVALID"},
	shop.EUnauthenticated:  {http.StatusUnauthorized, "UNAUTHORIZED"},
	shop.EForbidden:        {http.StatusForbidden, "FORBIDDEN"},
	shop.ENotFound:         {http.StatusNotFound, "NOTFOUND"},
	shop.EMethodNotAllowed: {http.StatusMethodNotAllowed, "INVALID"},
	shop.EConflict:         {http.StatusConflict, "CONFLICT"}, shop.EIdempotency: {http.StatusConflict, "CONFLICT"},
	shop.ETooLarge:    {http.StatusRequestEntityTooLarge, "INVALID"},
	shop.ERateLimited: {http.StatusTooManyRequests, "RATE_LIMITED"},
	shop.EInternal:    {http.StatusInternalServerError, "ERROR"},
	shop.EUnavailable: {http.StatusServiceUnavailable, "UNAVAILABLE"},
}

// statusError overrides the HTTP status of an error whose code has more than one (a
// too_large query string is 414, a too_large body 413).
type statusError struct {
	err    *shop.Error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// tooLarge is the error of a request body over MaxBodyBytes.
func tooLarge(what string) error {
	return &statusError{shop.Errorf(shop.ETooLarge, "The %s is larger than %d bytes.", what, MaxBodyBytes), http.StatusRequestEntityTooLarge}
}

// formError is a refused form: err says why (its code gives the status), and show
// renders the form again with the messages next to their fields: for htmx the fragment
// that holds the form (answered 200, which htmx swaps), else the whole page.
type formError struct {
	err  error
	show view
}

func (e *formError) Error() string { return e.err.Error() }
func (e *formError) Unwrap() error { return e.err }

// handle adapts a handler that returns its error: every route, API or dashboard, is
// answered through it, and fail is the one place that answers errors.
func (s *Server) handle(h func(c *gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			s.fail(c, err)
		}
	}
}

// abort answers err and stops the handlers after a middleware.
func (s *Server) abort(c *gin.Context, err error) {
	s.fail(c, err)
	c.Abort()
}

// fail answers err from the error table: JSON under /api/; on the dashboard a refused
// form shown again, an inline notice for htmx (which swaps only 2xx answers), or an
// error page. Clients see the error's message; internal errors are logged with the
// request id and answered with a generic sentence.
func (s *Server) fail(c *gin.Context, err error) {
	code := shop.ErrorCode(err)
	kind, ok := errorTable[code]
	if !ok {
		code, kind = shop.EInternal, errorTable[shop.EInternal]
	}
	status := kind.status
	var se *statusError
	if errors.As(err, &se) {
		status = se.status
	}
	rid := c.GetString(ctxRequestID)
	switch code {
	case shop.EInternal:
		s.Logger.Error("internal error", "request_id", rid, "method", c.Request.Method, "path", c.Request.URL.Path, "err", err)
	case shop.EUnavailable:
		s.Logger.Warn("database unavailable", "request_id", rid, "err", err)
		c.Header("Retry-After", "5")
	}
	if isAPI(c.Request.URL.Path) {
		// An error lists nothing: it names no search, even one it had read.
		c.Writer.Header().Del(filter.HeaderQuery)
		c.Writer.Header().Del(filter.HeaderDates)
		if code == shop.EUnauthenticated {
			c.Header("WWW-Authenticate", `Basic realm="storefront"`)
		}
		_ = writeJSON(c, status, apiErrorBody{Status: kind.word, Error: apiErrorObj{Code: code, Message: shop.ErrorMessage(err), Param: shop.ErrorParam(err)}})
		return
	}
	var comp templ.Component
	var fe *formError
	if errors.As(err, &fe) {
		fragment := isFragment(c)
		if comp, err = fe.show(fragment); err != nil {
			s.fail(c, err)
			return
		}
		if fragment {
			status = http.StatusOK
		}
	} else {
		msg := shop.ErrorMessage(err)
		if code == shop.EInternal {
			msg = "Something went wrong on our side. The request id is " + rid + "."
		}
		if isHTMX(c) {
			status, comp = http.StatusOK, templates.InlineError(msg)
		} else {
			comp = templates.ErrorPage(s.chrome(c, http.StatusText(status), ""), status, msg)
		}
	}
	if werr := write(c, status, comp); werr != nil {
		s.Logger.Error("render error", "request_id", rid, "err", werr)
		c.String(http.StatusInternalServerError, "Something went wrong on our side. The request id is %s.\n", rid)
	}
}

// apiErrorBody is the JSON of an error.
type apiErrorBody struct {
	Status string      `json:"status"`
	Error  apiErrorObj `json:"error"`
}

type apiErrorObj struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
}

// jsonType is the Content-Type of every JSON answer.
const jsonType = "application/json; charset=utf-8"

// writeJSON encodes v into a buffer, then writes status and body: an encoding error
// never leaves half an answer.
func writeJSON(c *gin.Context, status int, v any) error {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return err
	}
	c.Data(status, jsonType, buf.Bytes())
	return nil
}
