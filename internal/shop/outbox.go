package shop

import "time"

// Kinds of e-mail (Email.Kind): what an outbox row is about. internal/mail writes the
// message of each kind when it sends it.
const (
	// EmailPurchaseReady is the "purchase ready" e-mail of a reactivation
	// (docs/API.md#reactivation), about Email.PurchaseID.
	EmailPurchaseReady = "purchase_ready"
	// EmailWebhookDisabled tells an owner that a webhook endpoint was disabled
	// (docs/WEBHOOKS.md); the endpoint is in the facts.
	EmailWebhookDisabled = "webhook_disabled"
	// EmailComposed is a row queued with its subject and body already written (every row
	// queued before migration 00099); it is sent as it is.
	EmailComposed = "composed"
)

// Email is an e-mail to queue in the outbox, the table the mail sender drains: what
// it is about, not its text, which is written when it is sent.
type Email struct {
	AccountID int64
	// Kind is what the e-mail is (EmailPurchaseReady ...).
	Kind string
	// PurchaseID is the purchase the e-mail is about; 0 for none.
	PurchaseID int64
	To         string
	// Facts are what the e-mail says that is not read again when it is sent.
	Facts EmailFacts
}

// EmailFacts are what an e-mail needs beyond its purchase or account, fixed when it is
// queued (stored as JSON in the outbox row).
type EmailFacts struct {
	// Refulfill is whether the reactivation generated missing product keys.
	Refulfill bool `json:"refulfill,omitempty"`
	// EndpointID, EndpointURL and Reason describe a disabled webhook endpoint.
	EndpointID  int64  `json:"endpoint_id,omitempty"`
	EndpointURL string `json:"endpoint_url,omitempty"`
	Reason      string `json:"reason,omitempty"`
}

// ClaimedEmail is an outbox row claimed for sending.
type ClaimedEmail struct {
	ID        int64
	AccountID int64
	Kind      string
	// PurchaseID is the purchase the e-mail is about; 0 for none.
	PurchaseID int64
	To         string
	Facts      EmailFacts
	// Subject and Body are the text of a row of Kind EmailComposed; "" for the others.
	Subject string
	Body    string
	// Attempts counts the claims of the row, this one included.
	Attempts int
	// LeaseUntil is when the claim lapses and another sender may claim the row again.
	// It also identifies this claim to the outbox's Retry, Fail and Release methods.
	LeaseUntil time.Time
	// TraceParent is the W3C traceparent of the work that queued the e-mail, when it
	// was traced; "" when not.
	TraceParent string
}
