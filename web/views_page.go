package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// savedViewsBar builds the tabs of the purchases page for the filters shown.
func (s *Server) savedViewsBar(c *gin.Context, shown url.Values) (templates.SavedViewsBar, error) {
	u := currentUser(c)
	current := viewQuery(shown)
	bar := templates.SavedViewsBar{Query: current, CanShare: u.IsOwner(), AllCurrent: current == ""}
	views, err := s.Views.FindSavedViews(c.Request.Context(), u.AccountID, u.ID)
	if err != nil {
		return bar, err
	}
	for _, v := range views {
		tab := templates.ViewTab{ID: v.ID, Name: v.Name, URL: "/purchases", Shared: v.Shared(), Current: purchaseViewQuery(v.Query) == current,
			CanEdit: !v.Shared() || u.IsOwner(), Base: fmt.Sprintf("/purchases/views/%d", v.ID)}
		if v.Query != "" {
			tab.URL += "?" + v.Query
		}
		bar.Tabs = append(bar.Tabs, tab)
	}
	return bar, nil
}

// saveView saves the filters it is sent (the purchases page's query) under a name.
func (s *Server) saveView(c *gin.Context) error {
	u := currentUser(c)
	q, err := url.ParseQuery(c.PostForm("query"))
	if err != nil {
		return shop.ParamErrorf(shop.EInvalid, "query", "The filters to save could not be read.")
	}
	query := viewQuery(q)
	acct, err := s.account(c)
	if err != nil {
		return err
	}
	// A view that the page would refuse is refused now, with the page's words.
	parsed, _ := url.ParseQuery(query)
	if _, err := filter.Purchases(parsed, u.AccountID, s.now(), s.location(acct.Timezone)); err != nil {
		if shop.ErrorCode(err) == shop.EInternal {
			return err
		}
		return shop.ParamErrorf(shop.EInvalid, "query", "These filters cannot be saved: %s%s", paramLabel("purchases", shop.ErrorParam(err)), shop.ErrorMessage(err))
	}
	// A view keeps its filters as one search, the form the page's address has.
	query = purchaseViewQuery(query)
	v := shop.SavedView{AccountID: u.AccountID, Name: c.PostForm("name"), Query: query}
	if c.PostForm("for") != "account" {
		v.UserID = &u.ID
	}
	saved, err := s.Views.CreateSavedView(c.Request.Context(), v, u.IsOwner())
	if err != nil {
		return err
	}
	s.flash(c, fmt.Sprintf("Saved the view “%s”.", saved.Name))
	return redirectToView(c, query)
}

func redirectToView(c *gin.Context, query string) error {
	target := "/purchases"
	if query != "" {
		target += "?" + query
	}
	c.Redirect(http.StatusSeeOther, target)
	return nil
}

// back is where a change to a view returns: the purchases page with the filters it
// was sent from.
func back(c *gin.Context) error {
	q, _ := url.ParseQuery(c.PostForm("back"))
	return redirectToView(c, viewQuery(q))
}

func (s *Server) renameView(c *gin.Context) error {
	return s.changeView(c, "Renamed the view.", func(ctx context.Context, u *shop.User, id int64) error {
		return s.Views.RenameSavedView(ctx, u.AccountID, u.ID, id, u.IsOwner(), c.PostForm("name"))
	})
}

func (s *Server) moveView(c *gin.Context) error {
	by := 1
	if c.PostForm("by") == "-1" {
		by = -1
	}
	return s.changeView(c, "", func(ctx context.Context, u *shop.User, id int64) error {
		return s.Views.MoveSavedView(ctx, u.AccountID, u.ID, id, u.IsOwner(), by)
	})
}

func (s *Server) deleteView(c *gin.Context) error {
	return s.changeView(c, "Deleted the view.", func(ctx context.Context, u *shop.User, id int64) error {
		return s.Views.DeleteSavedView(ctx, u.AccountID, u.ID, id, u.IsOwner())
	})
}

// changeView makes a change to the view of the path as the signed-in user, then goes
// back to the purchases page with notice ("" for none).
func (s *Server) changeView(c *gin.Context, notice string, change func(ctx context.Context, u *shop.User, id int64) error) error {
	id, err := pageID(c, "view", "saved view")
	if err != nil {
		return err
	}
	if err := change(c.Request.Context(), currentUser(c), id); err != nil {
		return err
	}
	if notice != "" {
		s.flash(c, notice)
	}
	return back(c)
}
