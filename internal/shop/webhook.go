package shop

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Webhook event types (docs/WEBHOOKS.md).
const (
	EventPurchaseCreated     = "purchase.created"
	EventPurchaseUpdated     = "purchase.updated"
	EventPurchaseReactivated = "purchase.reactivated"
	EventSubscriptionUpdated = "subscription.updated"
	// EventTest is what "Send test event" sends, to one endpoint only.
	EventTest = "webhook.test"
)

// EventTypes lists the event types an endpoint can take, in the order the dashboard
// shows them.
var EventTypes = []string{EventPurchaseCreated, EventPurchaseUpdated, EventPurchaseReactivated, EventSubscriptionUpdated}

// ParseEventTypes reads a comma-separated list of event types; "" or "*" means all.
// Returns EInvalid naming the first unknown type.
func ParseEventTypes(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return nil, nil
	}
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !slices.Contains(EventTypes, t) {
			return nil, ParamErrorf(EInvalid, "events", "%q is not an event type; the types are %s.", t, strings.Join(EventTypes, ", "))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// WebhookEndpoint is a URL of an account that events are delivered to.
type WebhookEndpoint struct {
	ID        int64
	AccountID int64
	URL       string
	// EventTypes are the types it takes; empty means all.
	EventTypes []string
	Enabled    bool
	// DisabledReason says why it was disabled when that was not an owner's choice.
	DisabledReason string
	// Rotating is true while the previous secret still signs deliveries (until
	// PreviousSecretUntil).
	Rotating            bool
	PreviousSecretUntil *Time
	// FailingSince is the first failed attempt of the current run of failures.
	FailingSince *Time
	CreatedAt    Time
}

// Takes reports whether the endpoint takes events of type t.
func (e *WebhookEndpoint) Takes(t string) bool {
	return len(e.EventTypes) == 0 || slices.Contains(e.EventTypes, t) || t == EventTest
}

// WebhookDelivery is one event sent to one endpoint, tried until it is delivered.
type WebhookDelivery struct {
	ID            int64
	EndpointID    int64
	EventID       string
	EventType     string
	Status        string // queued, sending, delivered, failed
	Attempts      int
	NextAttemptAt *Time
	LastStatus    *int
	LastError     string
	CreatedAt     Time
	DeliveredAt   *Time
	// Body is the event's JSON, as delivered.
	Body string
	// Log is the delivery's attempts, newest first.
	Log []WebhookAttempt
}

// WebhookAttempt is one attempt of a delivery, as logged.
type WebhookAttempt struct {
	Attempt        int
	StartedAt      time.Time
	Duration       time.Duration
	RequestHeaders string
	StatusCode     *int
	Error          string
	// ResponseBody is the first 2 KiB of the response.
	ResponseBody string
}

// WebhookService manages an account's endpoints and shows their deliveries. Every
// method names the account; an endpoint or delivery of another account is ENotFound.
type WebhookService interface {
	// CreateWebhookEndpoint saves an endpoint and returns it with its secret, shown
	// this once. Returns EInvalid for a URL that is not http(s) or that resolves to a
	// loopback, private, link-local or reserved address, or an unknown event type.
	CreateWebhookEndpoint(ctx context.Context, accountID int64, url string, types []string) (*WebhookEndpoint, string, error)
	FindWebhookEndpoints(ctx context.Context, accountID int64) ([]*WebhookEndpoint, error)
	// FindWebhookEndpoint returns ENotFound for an endpoint not in the account.
	FindWebhookEndpoint(ctx context.Context, accountID, id int64) (*WebhookEndpoint, error)
	// SetWebhookEndpointEnabled enables or disables an endpoint.
	SetWebhookEndpointEnabled(ctx context.Context, accountID, id int64, enabled bool) error
	// RotateWebhookSecret gives the endpoint a new secret, returned this once; the old
	// one also signs deliveries for 24 hours.
	RotateWebhookSecret(ctx context.Context, accountID, id int64) (string, error)
	// DeleteWebhookEndpoint deletes an endpoint with its deliveries and their log.
	DeleteWebhookEndpoint(ctx context.Context, accountID, id int64) error
	// SendTestEvent queues a webhook.test event to the endpoint alone.
	SendTestEvent(ctx context.Context, accountID, id int64) (string, error)
	// FindWebhookDeliveries returns the endpoint's recent deliveries, newest first,
	// each with its attempts.
	FindWebhookDeliveries(ctx context.Context, accountID, endpointID int64, limit int) ([]*WebhookDelivery, error)
	// ResendWebhookDelivery queues a new attempt of a delivery's event, due now.
	ResendWebhookDelivery(ctx context.Context, accountID, deliveryID int64) error
}
