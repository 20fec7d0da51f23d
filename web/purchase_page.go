package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/http"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// purchasePage shows one purchase: every field, the reactivation form and the activity.
// Another account's purchase is a 404 like a missing one
// (docs/API.md#accounts-and-tenancy).
func (s *Server) purchasePage(c *gin.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	v, err := s.purchaseView(c, id, panelState{})
	if err != nil {
		return err
	}
	return render(c, templates.PurchasePage(*v))
}

// purchaseActivity answers the timeline alone, for htmx to refresh it while an e-mail
// waits; a browser asking directly is sent to the page.
func (s *Server) purchaseActivity(c *gin.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	acct := currentAccount(c)
	// The purchase is looked up so that another account's id is a 404, not an empty list.
	if _, err := s.Purchases.FindPurchaseByID(c.Request.Context(), acct.ID, id); err != nil {
		return err
	}
	if !isFragment(c) {
		c.Redirect(http.StatusSeeOther, fmt.Sprintf("/purchases/%d#timeline", id))
		return nil
	}
	t, err := s.timeline(c, acct, id)
	if err != nil {
		return err
	}
	return render(c, templates.PurchaseTimeline(t, false))
}

// reactivatePurchase reactivates a purchase from the dashboard with the service call the
// API makes (docs/API.md#reactivation). htmx gets the panel with the outcome and, out of
// band, the parts of the page that changed; a plain form post is redirected back to the
// page with a flash message. Problems with the input or the purchase's state are shown in
// the panel, never as a bare error page.
func (s *Server) reactivatePurchase(c *gin.Context) error {
	// requireReactivator let the user in.
	user, acct := currentUser(c), currentAccount(c)
	if err := readForm(c); err != nil {
		return err
	}
	sent, idem := reactivateParams(c.Request.PostForm)
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	// The parameters are read by the API's grammar; their problems are answered by the
	// service after the purchase is found, as in the API.
	p, perr := filter.ReactivateForm(sent)
	res, err := s.Writer.Reactivate(c.Request.Context(), shop.ReactivateRequest{
		AccountID: acct.ID, PurchaseID: id, CustomerEmail: p.CustomerEmail, Refulfill: p.Refulfill,
		Actor: user.Email, IdempotencyKey: idem, ParamsErr: perr,
	})
	if err != nil {
		st, ok := reactivateProblem(err, sent)
		if !ok {
			return err
		}
		return &formError{err, func(fragment bool) (templ.Component, error) {
			return s.reactivateRefused(c, id, st, fragment)
		}}
	}
	msg := reactivatedMessage(id, p.Refulfill, res)
	if !isFragment(c) {
		s.flash(c, msg)
		c.Redirect(http.StatusSeeOther, fmt.Sprintf("/purchases/%d", id))
		return nil
	}
	v, err := s.purchaseView(c, id, panelState{result: msg})
	if err != nil {
		return err
	}
	return render(c, templates.ReactivateResponse(*v))
}

// reactivateRefused shows the form again as it was sent, with its problem: for htmx the
// panel alone, read from the purchase; else the whole page.
func (s *Server) reactivateRefused(c *gin.Context, id int64, st panelState, fragment bool) (templ.Component, error) {
	if !fragment {
		v, err := s.purchaseView(c, id, st)
		if err != nil {
			return nil, err
		}
		return templates.PurchasePage(*v), nil
	}
	p, sf, err := s.findPurchase(c.Request.Context(), currentAccount(c).ID, id)
	if err != nil {
		return nil, err
	}
	return templates.ReactivatePanelFragment(reactivatePanel(p, sf, currentUser(c), newFormToken(), st)), nil
}

// timeline loads a purchase's activity for the page.
func (s *Server) timeline(c *gin.Context, acct *shop.Account, id int64) (templates.Timeline, error) {
	ctx := c.Request.Context()
	acts, err := s.Purchases.FindPurchaseTimeline(ctx, acct.ID, id)
	if err != nil {
		return templates.Timeline{}, err
	}
	return timelineView(acts, id, s.location(acct.Timezone)), nil
}

// findPurchase reads a purchase of the account and the storefront it was made in (nil
// when the account has it no more).
func (s *Server) findPurchase(ctx context.Context, accountID, id int64) (*shop.Purchase, *shop.Storefront, error) {
	p, err := s.Purchases.FindPurchaseByID(ctx, accountID, id)
	if err != nil {
		return nil, nil, err
	}
	sfs, err := s.Accounts.FindStorefronts(ctx, accountID)
	if err != nil {
		return nil, nil, err
	}
	for _, sf := range sfs {
		if sf.ID == p.StorefrontID {
			return p, sf, nil
		}
	}
	return p, nil, nil
}

// purchaseView loads everything the page of one purchase shows, the reactivation panel
// showing st.
func (s *Server) purchaseView(c *gin.Context, id int64, st panelState) (*templates.PurchaseView, error) {
	acct := currentAccount(c)
	p, sf, err := s.findPurchase(c.Request.Context(), acct.ID, id)
	if err != nil {
		return nil, err
	}
	t, err := s.timeline(c, acct, id)
	if err != nil {
		return nil, err
	}
	loc := s.location(acct.Timezone)
	return &templates.PurchaseView{
		Chrome:   s.chrome(c, fmt.Sprintf("Purchase #%d", p.ID), "purchases"),
		Detail:   purchaseDetail(p, sf, loc),
		Panel:    reactivatePanel(p, sf, currentUser(c), newFormToken(), st),
		Timeline: t,
	}, nil
}

// newFormToken makes the token of one rendering of the reactivation form.
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
