package shop

import (
	"context"
	"time"
)

// SubscriptionStatus is a subscription status of interface.md 3.1.
type SubscriptionStatus string

// Subscription statuses.
const (
	SubscriptionNew      SubscriptionStatus = "NEW"
	SubscriptionTrial    SubscriptionStatus = "TRIAL"
	SubscriptionActive   SubscriptionStatus = "ACTIVE"
	SubscriptionCanceled SubscriptionStatus = "CANCELED"
	SubscriptionClosed   SubscriptionStatus = "CLOSED"
	SubscriptionPastDue  SubscriptionStatus = "PAST_DUE"
)

// SubscriptionStatuses lists every subscription status.
var SubscriptionStatuses = []SubscriptionStatus{SubscriptionNew, SubscriptionTrial, SubscriptionActive, SubscriptionCanceled, SubscriptionClosed, SubscriptionPastDue}

// Valid reports whether s is one of the statuses of interface.md 3.1.
func (s SubscriptionStatus) Valid() bool {
	for _, v := range SubscriptionStatuses {
		if v == s {
			return true
		}
	}
	return false
}

// ValidPeriodUnit reports whether u is a unit of a subscription period (D6).
func ValidPeriodUnit(u string) bool {
	return u == "D" || u == "W" || u == "M" || u == "Y"
}

// Subscriber is a subscriber of a storefront (interface.md 2.1).
type Subscriber struct {
	ID           int64         `json:"id"`
	CreatedAt    Time          `json:"created_at"`
	UpdatedAt    Time          `json:"updated_at"`
	Username     string        `json:"username"`
	LastLoginAt  *Time         `json:"last_login_at"`
	Subscription *Subscription `json:"subscription"`

	// StorefrontID is the storefront the subscriber belongs to; the API shows it
	// through the path, the import format carries it (D11).
	StorefrontID int64 `json:"-"`
}

// Subscription is a subscriber's subscription record (interface.md 2.2). Trial fields of
// a subscription without a trial are null (D6).
type Subscription struct {
	ID             int64              `json:"id"`
	Status         SubscriptionStatus `json:"status"`
	Price          Money              `json:"price"`
	Period         int64              `json:"period"`
	Unit           string             `json:"unit"`
	TaxAmount      Money              `json:"tax_amount"`
	TrialPrice     *Money             `json:"trial_price"`
	TrialPeriod    *int64             `json:"trial_period"`
	TrialUnit      *string            `json:"trial_unit"`
	TrialTaxAmount *Money             `json:"trial_tax_amount"`
	CreatedAt      Time               `json:"created_at"`
	UpdatedAt      Time               `json:"updated_at"`
	StartedAt      *Time              `json:"started_at"`
	EndedAt        *Time              `json:"ended_at"`
	TrialStartedAt *Time              `json:"trial_started_at"`
	LastPaymentAt  *Time              `json:"last_payment_at"`
	NextPaymentAt  *Time              `json:"next_payment_at"`
}

// Entitlement reasons of decisions.md D8.
const (
	ReasonActive               = "active"
	ReasonTrial                = "trial"
	ReasonPastDue              = "past_due"
	ReasonCanceledUntilTermEnd = "canceled_until_term_end"
	ReasonCanceledTermEnded    = "canceled_term_ended"
	ReasonClosed               = "closed"
	ReasonNew                  = "new"
	ReasonNoSubscription       = "no_subscription"
)

// Entitlement is the answer to "does this subscriber receive service now?" (D8).
type Entitlement struct {
	ReceivingService bool
	// AccessUntil is the end of the paid term of a CANCELED subscription, else nil.
	AccessUntil *Time
	Reason      string
}

// Entitle decides a subscriber's entitlement at the instant now, following D8.
func Entitle(sub *Subscription, now time.Time) Entitlement {
	if sub == nil {
		return Entitlement{Reason: ReasonNoSubscription}
	}
	switch sub.Status {
	case SubscriptionActive:
		return Entitlement{ReceivingService: true, Reason: ReasonActive}
	case SubscriptionTrial:
		return Entitlement{ReceivingService: true, Reason: ReasonTrial}
	case SubscriptionPastDue:
		return Entitlement{ReceivingService: true, Reason: ReasonPastDue}
	case SubscriptionCanceled:
		end := sub.EndedAt
		if end == nil {
			end = sub.NextPaymentAt
		}
		if end == nil {
			return Entitlement{Reason: ReasonCanceledTermEnded}
		}
		if now.Before(end.Time) {
			return Entitlement{ReceivingService: true, AccessUntil: end, Reason: ReasonCanceledUntilTermEnd}
		}
		return Entitlement{AccessUntil: end, Reason: ReasonCanceledTermEnded}
	case SubscriptionClosed:
		return Entitlement{Reason: ReasonClosed}
	}
	return Entitlement{Reason: ReasonNew}
}

// SubscriberFilter selects subscribers of one storefront.
type SubscriberFilter struct {
	AccountID    int64
	StorefrontID int64
	// Username is an exact match ignoring letter case and accents (D8); "" for none.
	Username string
	// UsernamePrefix is a "starts with" match, for the dashboard's search.
	UsernamePrefix string
	Statuses       []SubscriptionStatus
	Desc           bool
	PerPage        int
	Page           int
	After          *Cursor
	IncludeCount   bool
}

// SubscriberPage is one page of subscribers.
type SubscriberPage struct {
	Subscribers []*Subscriber
	Next        *Cursor
	// Total is the size of the whole filtered set when asked for, else -1.
	Total int64
}

// SubscriberService reads subscribers.
type SubscriberService interface {
	// FindSubscriberByID returns a subscriber of the storefront. Returns ENotFound when
	// the storefront or the subscriber is not the account's.
	FindSubscriberByID(ctx context.Context, accountID, storefrontID, id int64) (*Subscriber, error)
	// FindSubscribers returns one page of a storefront's subscribers. Returns
	// ENotFound when the storefront is not the account's.
	FindSubscribers(ctx context.Context, f SubscriberFilter) (*SubscriberPage, error)
	// FindSubscriberActivity returns a subscriber's timeline, newest first; nothing
	// for a subscriber of another account.
	FindSubscriberActivity(ctx context.Context, accountID, storefrontID, subscriberID int64) ([]Activity, error)
}
