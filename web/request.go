package web

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
)

// What a dashboard request carries: the signed-in user and account, whether htmx asks
// for a fragment, the posted form with its token, and the ids in the path.

// currentUser returns the signed-in user, or nil.
func currentUser(c *gin.Context) *shop.User {
	v, _ := c.Get(ctxUser)
	u, _ := v.(*shop.User)
	return u
}

// currentAccount returns the signed-in user's account, which requireUser loaded.
func currentAccount(c *gin.Context) *shop.Account {
	v, _ := c.Get(ctxAccount)
	a, _ := v.(*shop.Account)
	return a
}

// zone returns the time zone of the signed-in user's account.
func (s *Server) zone(c *gin.Context) *time.Location { return s.location(currentAccount(c).Timezone) }

// isFragment reports whether an htmx request asks for a fragment (and not for a
// whole page to restore history).
func isFragment(c *gin.Context) bool {
	return isHTMX(c) && c.GetHeader("HX-History-Restore-Request") != "true"
}

// isHTMX reports whether htmx sent the request.
func isHTMX(c *gin.Context) bool { return c.GetHeader("HX-Request") == "true" }

// readForm reads a dashboard form's body, at most MaxBodyBytes.
func readForm(c *gin.Context) error {
	if c.Request.ContentLength > MaxBodyBytes {
		return tooLarge("form")
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes)
	if err := c.Request.ParseForm(); err != nil {
		if isMaxBytes(err) {
			return tooLarge("form")
		}
		return shop.Errorf(shop.EInvalid, "The form could not be read.")
	}
	return nil
}

// readFormParams reads a posted form that does what an API route does: the parameters
// the API takes, and the form's token as the request's idempotency key ("" when it
// could not be one). Spaces typed around the address or a value mean nothing to a
// person; the API reads its parameters literally. A line break is never trimmed: it is
// refused.
func readFormParams(c *gin.Context) (params url.Values, idem string, err error) {
	if err := readForm(c); err != nil {
		return nil, "", err
	}
	params = url.Values{}
	for k, vs := range c.Request.PostForm {
		for _, v := range vs {
			params.Add(k, strings.Trim(v, " \t"))
		}
	}
	if tok := params.Get("form_token"); validFormToken(tok) {
		idem = "dashboard:" + tok
	}
	params.Del("form_token")
	return params, idem, nil
}

// newFormToken makes the token of one rendering of a form.
func newFormToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// validFormToken accepts what newFormToken makes, and nothing that could not be an
// idempotency key.
func validFormToken(t string) bool {
	if len(t) == 0 || len(t) > 64 {
		return false
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// pathID reads a path id (docs/API.md#reading-parameters): malformed is 400, well-formed
// is looked up (404 if unknown).
func pathID(c *gin.Context, name string) (int64, error) {
	return filter.ParseID(name, c.Param(name))
}

// pageID reads the id of the path parameter name of a dashboard page: anything but a
// positive id names no record, a 404 that says there is no such what.
func pageID(c *gin.Context, name, what string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, shop.Errorf(shop.ENotFound, "There is no such %s.", what)
	}
	return id, nil
}
