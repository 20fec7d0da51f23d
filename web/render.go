package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
)

// view renders what a request shows: for htmx the fragment, else the whole page.
type view func(fragment bool) (templ.Component, error)

// answer answers 200 with what v shows.
func answer(c *gin.Context, v view) error {
	comp, err := v(isFragment(c))
	if err != nil {
		return err
	}
	return render(c, comp)
}

// answerList answers a dashboard list: a parameter problem (perr) is shown above the
// results, labelled as list's form labels the parameter (in *msg, which show renders);
// else fill loads the results and show renders them. A parameter problem that only
// loading finds (a search's ref: on too many purchases) is shown the same way.
func answerList(c *gin.Context, list string, perr error, msg *string, fill func() error, show view) error {
	if perr == nil {
		if perr = fill(); perr == nil {
			return answer(c, show)
		}
		if shop.ErrorCode(perr) != shop.EInvalid {
			return perr
		}
	}
	if shop.ErrorCode(perr) == shop.EInternal {
		return perr
	}
	*msg = paramLabel(list, shop.ErrorParam(perr)) + shop.ErrorMessage(perr)
	return &formError{perr, show}
}

// render answers 200 with a component: a page, or the fragment an htmx request asks for.
func render(c *gin.Context, comp templ.Component) error {
	return write(c, http.StatusOK, comp)
}

// write renders a component into a buffer first, then writes the status and the body,
// so that an error never leaves a half-written page. Pages vary by HX-Request (page or
// fragment).
func write(c *gin.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request.Context(), &buf); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	c.Header("Vary", "HX-Request")
	c.Header("Cache-Control", "no-store")
	c.Data(status, "text/html; charset=utf-8", buf.Bytes())
	return nil
}

// withOOB renders a fragment followed by the components htmx swaps out of band.
func withOOB(main templ.Component, oob ...templ.Component) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		for _, c := range append([]templ.Component{main}, oob...) {
			if err := c.Render(ctx, w); err != nil {
				return err
			}
		}
		return nil
	})
}
