package shop

import (
	"context"
	"slices"
	"time"
)

// SubscriptionStatus is a subscription status (docs/API.md#subscription).
type SubscriptionStatus string

// Subscription statuses.
const (
	SubscriptionNew      SubscriptionStatus = "NEW"      // not activated: checking out, or abandoned
	SubscriptionTrial    SubscriptionStatus = "TRIAL"    // in the trial period; receives service
	SubscriptionActive   SubscriptionStatus = "ACTIVE"   // no payment due; receives service
	SubscriptionCanceled SubscriptionStatus = "CANCELED" // receives service until its paid term ends
	SubscriptionClosed   SubscriptionStatus = "CLOSED"   // canceled and closed
	SubscriptionPastDue  SubscriptionStatus = "PAST_DUE" // payment overdue; receives service until CLOSED
)

// SubscriptionStatuses lists every subscription status.
var SubscriptionStatuses = []SubscriptionStatus{SubscriptionNew, SubscriptionTrial, SubscriptionActive, SubscriptionCanceled, SubscriptionClosed, SubscriptionPastDue}

// Valid reports whether s is one of the subscription statuses.
func (s SubscriptionStatus) Valid() bool {
	return slices.Contains(SubscriptionStatuses, s)
}

// ValidPeriodUnit reports whether u is a unit of a subscription period: D, W, M or Y.
func ValidPeriodUnit(u string) bool {
	return u == "D" || u == "W" || u == "M" || u == "Y"
}

// Subscriber is a subscriber of a storefront (docs/API.md#subscriber).
type Subscriber struct {
	ID int64 `json:"id"`
	Timestamps
	Username     string        `json:"username"`
	LastLoginAt  *Time         `json:"last_login_at"`
	Subscription *Subscription `json:"subscription"`

	// StorefrontID is the storefront the subscriber belongs to; the API shows it
	// through the path, the import format carries it (docs/API.md#import-documents).
	StorefrontID int64 `json:"-"`
}

// Subscription is a subscriber's subscription record (docs/API.md#subscription). Trial
// fields of a subscription without a trial are null.
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
	Timestamps
	StartedAt      *Time `json:"started_at"`
	EndedAt        *Time `json:"ended_at"`
	TrialStartedAt *Time `json:"trial_started_at"`
	LastPaymentAt  *Time `json:"last_payment_at"`
	NextPaymentAt  *Time `json:"next_payment_at"`
}

// Entitlement reasons (docs/API.md#entitlement).
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

// Entitlement is the answer to "does this subscriber receive service now?"
// (docs/API.md#entitlement).
type Entitlement struct {
	ReceivingService bool
	// AccessUntil is the end of the paid term of a CANCELED subscription, else nil.
	AccessUntil *Time
	Reason      string
}

// Entitle decides a subscriber's entitlement at the instant now
// (docs/API.md#entitlement).
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

// SubscriberFilter selects subscribers of one storefront, or of every storefront of the
// account (the dashboard's list of all of them).
type SubscriberFilter struct {
	AccountID int64
	// StorefrontID is the storefront; 0 means every storefront of the account.
	StorefrontID int64
	// StartedFrom and StartedBefore select subscribers whose service term (ServiceTerm)
	// began in [StartedFrom, StartedBefore); EndedFrom and EndedBefore those whose term
	// ended in [EndedFrom, EndedBefore). Nil: no bound. These are what the overview's
	// "New subscribers" and "Churned" count.
	StartedFrom, StartedBefore *time.Time
	EndedFrom, EndedBefore     *time.Time
	// ReceivingAt selects subscribers whose service term [start, end) holds this
	// instant: begun at or before it and not ended at or before it, as Entitle decides
	// (what the overview's "Active subscribers" counts at the end of its range). Nil:
	// no condition.
	ReceivingAt *time.Time
	// Username is an exact match ignoring letter case and accents; "" for none.
	Username string
	// UsernamePrefix is a "starts with" match, for the dashboard's search.
	UsernamePrefix string
	Statuses       []SubscriptionStatus
	// Where holds the conditions of a search (the API's q) that the fields above
	// cannot express; all of them must hold too.
	Where []Cond
	// Any, when not empty, adds a union: a subscriber matches when it matches the
	// filter's own conditions and any of these filters, each of Username,
	// UsernamePrefix, Statuses and Where only (their other fields are ignored).
	Any          []SubscriberFilter
	Desc         bool
	PerPage      int
	Page         int
	After        *Cursor
	IncludeCount bool
	// CountCap, with IncludeCount, stops the count at this many (the dashboard's
	// "10,000+"); 0 counts them all, as the API's include_count does.
	CountCap int64
	// Looked, when not nil, is what an earlier page of the same list found when it
	// looked along its narrower way (SubscriberPage.Looked): the next batch of an
	// export need not look again.
	Looked *int64
}

// SubscriberPage is one page of subscribers.
type SubscriberPage struct {
	Subscribers []*Subscriber
	Next        *Cursor
	// Total is the size of the whole filtered set when asked for, else -1; CountCap
	// when TotalCapped says that there are more.
	Total       int64
	TotalCapped bool
	// Looked, on a list not counted, is how many matches its narrower way held, up to
	// the number that chooses its page's way; nil when it did not look.
	Looked *int64
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
