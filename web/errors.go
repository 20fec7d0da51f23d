package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
)

// errorKind is how one error code is answered (docs/API.md#errors).
type errorKind struct {
	status int
	word   string
}

// errorTable maps every error code to its HTTP status and DPD status word.
var errorTable = map[string]errorKind{
	shop.EInvalid:          {http.StatusBadRequest, "INVALID"},
	shop.EMissing:          {http.StatusBadRequest, "INVALID"},
	shop.EUnknownParam:     {http.StatusBadRequest, "INVALID"},
	shop.EUnauthenticated:  {http.StatusUnauthorized, "UNAUTHORIZED"},
	shop.EForbidden:        {http.StatusForbidden, "FORBIDDEN"},
	shop.ENotFound:         {http.StatusNotFound, "NOTFOUND"},
	shop.EMethodNotAllowed: {http.StatusMethodNotAllowed, "INVALID"},
	shop.EConflict:         {http.StatusConflict, "CONFLICT"},
	shop.EIdempotency:      {http.StatusConflict, "CONFLICT"},
	shop.ETooLarge:         {http.StatusRequestEntityTooLarge, "INVALID"},
	shop.ERateLimited:      {http.StatusTooManyRequests, "RATE_LIMITED"},
	shop.EInternal:         {http.StatusInternalServerError, "ERROR"},
	shop.EUnavailable:      {http.StatusServiceUnavailable, "UNAVAILABLE"},
}

// errStatus returns the HTTP status of an error.
func errStatus(err error) int {
	if k, ok := errorTable[shop.ErrorCode(err)]; ok {
		return k.status
	}
	return http.StatusInternalServerError
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

// statusError overrides the HTTP status of an error whose code has more than one (a
// too_large query string is 414, a too_large body 413).
type statusError struct {
	err    *shop.Error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// writeAPIError answers err as JSON. Internal errors are logged with the request id
// and answered with a generic sentence.
func (s *Server) writeAPIError(c *gin.Context, err error) {
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
	switch code {
	case shop.EInternal:
		s.Logger.Error("internal error", "request_id", c.GetString(ctxRequestID), "method", c.Request.Method, "path", c.Request.URL.Path, "err", err)
	case shop.EUnavailable:
		s.Logger.Warn("database unavailable", "request_id", c.GetString(ctxRequestID), "err", err)
		c.Header("Retry-After", "5")
	case shop.EUnauthenticated:
		c.Header("WWW-Authenticate", `Basic realm="storefront"`)
	}
	body := apiErrorBody{Status: kind.word, Error: apiErrorObj{Code: code, Message: shop.ErrorMessage(err), Param: shop.ErrorParam(err)}}
	writeJSON(c, status, body)
}

// writeJSON encodes v into a buffer, then writes status and body: an encoding error
// never leaves half an answer.
// jsonType is the Content-Type of every JSON answer.
const jsonType = "application/json; charset=utf-8"

// writeDocuments answers 200 with a JSON array of stored documents, the bytes that
// writeJSON would write for the objects they hold.
func writeDocuments(c *gin.Context, docs [][]byte) {
	n := 3
	for _, d := range docs {
		n += len(d) + 1
	}
	buf := make([]byte, 0, n)
	buf = append(buf, '[')
	for i, d := range docs {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, d...)
	}
	buf = append(buf, ']', '\n')
	c.Data(http.StatusOK, jsonType, buf)
}

func writeJSON(c *gin.Context, status int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		c.Data(http.StatusInternalServerError, "application/json; charset=utf-8",
			[]byte(`{"status":"ERROR","error":{"code":"internal","message":"An internal error occurred."}}`+"\n"))
		return
	}
	c.Data(status, "application/json; charset=utf-8", buf.Bytes())
}
