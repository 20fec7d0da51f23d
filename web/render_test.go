package web

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
)

// TestAnswerList_LoadingFindsABadParameter checks that a parameter problem only the
// loading of a list finds (a search's ref: on too many purchases) is shown above the
// list as the parameter problems read first are, while another failure stays an error.
func TestAnswerList_LoadingFindsABadParameter(t *testing.T) {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest("GET", "/purchases?q=ref:x", nil)
	show := func(bool) (templ.Component, error) { return templ.NopComponent, nil }
	var msg string
	bad := shop.ParamErrorf(shop.EInvalid, "q", "The payment reference \"x\" is on more than 1000 purchases.")
	err := answerList(c, "purchases", nil, &msg, func() error { return bad }, show)
	var fe *formError
	if !errors.As(err, &fe) || !errors.Is(err, bad) || msg != paramLabel("purchases", "q")+shop.ErrorMessage(bad) || msg == shop.ErrorMessage(bad) {
		t.Errorf("got %v (form error %v), message %q; want the search's problem shown at the list", err, fe != nil, msg)
	}
	msg = ""
	down := errors.New("the database is gone")
	if err := answerList(c, "purchases", nil, &msg, func() error { return down }, show); err != down || msg != "" {
		t.Errorf("got %v, message %q; want the failure as it is", err, msg)
	}
}
