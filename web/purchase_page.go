package web

import (
	"context"
	"fmt"
	"net/http"

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
	v, err := s.purchaseView(c, id, s.heldPanel(c, id))
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
	return render(c, templates.PurchaseTimeline(t))
}

// reactivatePurchase reactivates a purchase from the dashboard with the service call the
// API makes (docs/API.md#reactivation). The outcome is shown in the panel of the
// purchase's page, which purchasePage renders: a plain form post is redirected there
// (303) and htmx is told to load it in place (HX-Location). Problems with the input or
// the purchase's state are shown in the panel with the form as sent, never as a bare
// error page: htmx gets the panel alone, read from the purchase; a plain form post is
// redirected to the page.
func (s *Server) reactivatePurchase(c *gin.Context) error {
	// requireReactivator let the user in.
	user, acct, fragment := currentUser(c), currentAccount(c), isFragment(c)
	sent, idem, err := readFormParams(c)
	if err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	// The form is shown again as sent, Refulfill as ticked, whatever else is refused.
	ticked, _ := filter.ParseBool("refulfill", sent.Get("refulfill"))
	// The parameters are read by the API's grammar; their problems are answered by the
	// service after the purchase is found, as in the API.
	p, perr := filter.ReactivateForm(sent)
	ctx := c.Request.Context()
	res, err := s.Writer.Reactivate(ctx, shop.ReactivateRequest{
		AccountID: acct.ID, PurchaseID: id, CustomerEmail: p.CustomerEmail, Refulfill: p.Refulfill,
		Actor: user.Email, IdempotencyKey: idem, ParamsErr: perr,
	})
	st, ok := reactivateOutcome(id, sent.Get("customer_email"), ticked, res, err)
	if !ok {
		return err
	}
	if err == nil || !fragment {
		s.holdPanel(c, id, st)
		page := fmt.Sprintf("/purchases/%d", id)
		if fragment {
			// The page replaces the body as it is, without a new history entry.
			c.Header("HX-Location", fmt.Sprintf(`{"path":%q,"target":"body","push":"false"}`, page))
			c.Status(http.StatusOK)
			return nil
		}
		c.Redirect(http.StatusSeeOther, page)
		return nil
	}
	pur, sf, err := s.findPurchase(ctx, acct.ID, id)
	if err != nil {
		return err
	}
	return render(c, templates.ReactivatePanelFragment(reactivatePanel(pur, sf, user, newFormToken(), st)))
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
	notes, err := s.purchaseNotes(c, id)
	if err != nil {
		return nil, err
	}
	loc := s.location(acct.Timezone)
	return &templates.PurchaseView{
		Notes:    notes,
		Chrome:   s.chrome(c, fmt.Sprintf("Purchase #%d", p.ID), "purchases"),
		Detail:   purchaseDetail(p, sf, loc),
		Panel:    reactivatePanel(p, sf, currentUser(c), newFormToken(), st),
		Timeline: t,
	}, nil
}
