package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// recentDeliveries is how many deliveries an endpoint's page shows.
const recentDeliveries = 50

// webhooks returns the service, or a 404 when the server has none.
func (s *Server) webhooks() (shop.WebhookService, error) {
	if s.Webhooks == nil {
		return nil, shop.Errorf(shop.ENotFound, "There is no such page.")
	}
	return s.Webhooks, nil
}

func (s *Server) webhooksView(c *gin.Context, checked []string) (templates.WebhooksView, error) {
	v := templates.WebhooksView{Chrome: s.chrome(c, "Webhooks", "webhooks")}
	for _, t := range shop.EventTypes {
		v.Events = append(v.Events, templates.EventOption{Value: t, Checked: containsString(checked, t)})
	}
	svc, err := s.webhooks()
	if err != nil {
		return v, err
	}
	eps, err := svc.FindWebhookEndpoints(c.Request.Context(), currentAccount(c).ID)
	if err != nil {
		return v, err
	}
	loc := s.zone(c)
	for _, e := range eps {
		v.Rows = append(v.Rows, webhookRow(e, loc))
	}
	return v, nil
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (s *Server) webhooksPage(c *gin.Context) error {
	v, err := s.webhooksView(c, nil)
	if err != nil {
		return err
	}
	return render(c, templates.Webhooks(v))
}

func (s *Server) createWebhook(c *gin.Context) error {
	svc, err := s.webhooks()
	if err != nil {
		return err
	}
	types := c.PostFormArray("events")
	v, err := s.webhooksView(c, types)
	if err != nil {
		return err
	}
	v.Errors = map[string]string{}
	rawURL := requiredText(c, v.Errors, "url", "The URL", 2048, "Enter the URL that events are to be sent to.")
	if _, err := shop.ParseEventTypes(strings.Join(types, ",")); err != nil {
		v.Errors["events"] = shop.ErrorMessage(err)
	}
	v.URL = rawURL
	if len(v.Errors) == 0 {
		ep, secret, err := svc.CreateWebhookEndpoint(c.Request.Context(), currentAccount(c).ID, rawURL, types)
		if err == nil {
			// Answered directly, never redirected: the secret is kept nowhere to be
			// shown after a redirect.
			fresh, err := s.webhooksView(c, nil)
			if err != nil {
				return err
			}
			fresh.NewSecret, fresh.NewSecretFor = secret, ep.URL
			return render(c, templates.Webhooks(fresh))
		}
		if shop.ErrorCode(err) != shop.EInvalid {
			return err
		}
		field := shop.ErrorParam(err)
		if field != "events" {
			field = "url"
		}
		v.Errors[field] = shop.ErrorMessage(err)
	}
	return &formError{formRefused(), func(bool) (templ.Component, error) { return templates.Webhooks(v), nil }}
}

// webhookEndpoint reads the endpoint of the path: 400 when malformed, 404 when not in
// the account.
func (s *Server) webhookEndpoint(c *gin.Context) (shop.WebhookService, *shop.WebhookEndpoint, error) {
	svc, err := s.webhooks()
	if err != nil {
		return nil, nil, err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return nil, nil, err
	}
	e, err := svc.FindWebhookEndpoint(c.Request.Context(), currentAccount(c).ID, id)
	return svc, e, err
}

func (s *Server) webhookView(c *gin.Context, e *shop.WebhookEndpoint, svc shop.WebhookService) (templates.WebhookView, error) {
	loc := s.zone(c)
	v := templates.WebhookView{Chrome: s.chrome(c, "Webhook endpoint", "webhooks"), Endpoint: webhookRow(e, loc)}
	ds, err := svc.FindWebhookDeliveries(c.Request.Context(), currentAccount(c).ID, e.ID, recentDeliveries)
	if err != nil {
		return v, err
	}
	v.Deliveries = webhookDeliveryRows(e.ID, ds, loc)
	return v, nil
}

func (s *Server) webhookPage(c *gin.Context) error {
	svc, e, err := s.webhookEndpoint(c)
	if err != nil {
		return err
	}
	v, err := s.webhookView(c, e, svc)
	if err != nil {
		return err
	}
	return render(c, templates.Webhook(v))
}

// webhookDone ends an action with a notice, back on the endpoint's page or the list
// (post/redirect/get).
func (s *Server) webhookDone(c *gin.Context, notice, to string) error {
	s.flash(c, notice)
	c.Redirect(http.StatusSeeOther, to)
	return nil
}

func (s *Server) setWebhookEnabled(enabled bool) func(c *gin.Context) error {
	return func(c *gin.Context) error {
		return s.onEndpoint(c, func(ctx context.Context, svc shop.WebhookService, e *shop.WebhookEndpoint) (string, error) {
			if err := svc.SetWebhookEndpointEnabled(ctx, e.AccountID, e.ID, enabled); err != nil {
				return "", err
			}
			state := "disabled: no events are sent to it"
			if enabled {
				state = "enabled: new events are sent to it"
			}
			return fmt.Sprintf("Endpoint %d is %s.", e.ID, state), nil
		})
	}
}

// onEndpoint runs act on the endpoint of the path and ends with the notice it returns,
// back on the endpoint's page.
func (s *Server) onEndpoint(c *gin.Context, act func(ctx context.Context, svc shop.WebhookService, e *shop.WebhookEndpoint) (string, error)) error {
	svc, e, err := s.webhookEndpoint(c)
	if err != nil {
		return err
	}
	notice, err := act(c.Request.Context(), svc, e)
	if err != nil {
		return err
	}
	return s.webhookDone(c, notice, fmt.Sprintf("/webhooks/%d", e.ID))
}

func (s *Server) rotateWebhook(c *gin.Context) error {
	svc, e, err := s.webhookEndpoint(c)
	if err != nil {
		return err
	}
	secret, err := svc.RotateWebhookSecret(c.Request.Context(), e.AccountID, e.ID)
	if err != nil {
		return err
	}
	if e, err = svc.FindWebhookEndpoint(c.Request.Context(), e.AccountID, e.ID); err != nil {
		return err
	}
	v, err := s.webhookView(c, e, svc)
	if err != nil {
		return err
	}
	v.NewSecret = secret
	return render(c, templates.Webhook(v))
}

func (s *Server) testWebhook(c *gin.Context) error {
	return s.onEndpoint(c, func(ctx context.Context, svc shop.WebhookService, e *shop.WebhookEndpoint) (string, error) {
		id, err := svc.SendTestEvent(ctx, e.AccountID, e.ID)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Test event %s is on its way.", id), nil
	})
}

func (s *Server) deleteWebhook(c *gin.Context) error {
	svc, e, err := s.webhookEndpoint(c)
	if err != nil {
		return err
	}
	if !confirmed(c) {
		return render(c, templates.Confirm(templates.ConfirmView{
			Chrome: s.chrome(c, "Delete the endpoint?", "webhooks"), Heading: "Delete the endpoint?",
			Message: fmt.Sprintf("No more events go to %s, and its delivery log is deleted. This cannot be undone.", e.URL),
			Action:  c.Request.URL.Path, Button: "Delete endpoint", CancelURL: fmt.Sprintf("/webhooks/%d", e.ID),
		}))
	}
	if err := svc.DeleteWebhookEndpoint(c.Request.Context(), e.AccountID, e.ID); err != nil {
		return err
	}
	return s.webhookDone(c, fmt.Sprintf("Endpoint %d (%s) is deleted.", e.ID, e.URL), "/webhooks")
}

func (s *Server) resendWebhook(c *gin.Context) error {
	return s.onEndpoint(c, func(ctx context.Context, svc shop.WebhookService, e *shop.WebhookEndpoint) (string, error) {
		delivery, err := pathID(c, "delivery")
		if err != nil {
			return "", err
		}
		ds, err := svc.FindWebhookDeliveries(ctx, e.AccountID, e.ID, recentDeliveries)
		if err != nil {
			return "", err
		}
		found := false
		for _, d := range ds {
			found = found || d.ID == delivery
		}
		if !found {
			return "", shop.Errorf(shop.ENotFound, "Delivery %d of endpoint %d was not found.", delivery, e.ID)
		}
		if err := svc.ResendWebhookDelivery(ctx, e.AccountID, delivery); err != nil {
			return "", err
		}
		return fmt.Sprintf("Delivery %d is queued again.", delivery), nil
	})
}
