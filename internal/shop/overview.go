package shop

import (
	"context"
	"math/big"
	"time"
)

// FigureQuery asks for an account's figures over [From, Before), optionally of one
// storefront. Days are dates in Loc, the account's time zone.
type FigureQuery struct {
	AccountID    int64
	StorefrontID int64 // 0: every storefront
	From, Before time.Time
	Loc          *time.Location
	// Step is how many days a PurchaseCell sums, counted from the range's first day
	// (midnight of From): 0 or 1 for days, 7 for weeks, and a step longer than the range
	// for the range's sums alone (one cell per currency and status).
	Step int
}

// PurchaseCell is the purchases of one day, currency and status: how many and the sum of
// their totals.
type PurchaseCell struct {
	Day       time.Time // midnight in the account's zone: the first day of the cell's step
	Currency  string
	Status    PurchaseStatus
	Purchases int64
	Total     *big.Rat
}

// ProductRevenue is one product's revenue in one currency: the totals of its line items
// in active purchases, and how many active purchases hold it.
type ProductRevenue struct {
	ProductID int64
	Currency  string
	Purchases int64
	Revenue   *big.Rat
}

// SubscriberFigures are the service terms of an account's subscribers around a range.
type SubscriberFigures struct {
	// ActiveAtEnd is how many received service at the end of the range (now, when the
	// range ends later): whose term [start, end) holds that instant, as Entitle decides.
	ActiveAtEnd int64
	// Started and Ended count the terms that began and ended within the range (ends up to
	// now: a canceled subscription's paid term that ends later has not ended yet).
	Started, Ended int64
}

// OverviewService reads the figures of the dashboard's overview from the rollups.
type OverviewService interface {
	// PurchaseFigures returns the range's purchases by day (in the account's zone), or by
	// q.Step days, currency and status; a day that is only partly in the range counts the
	// part in it.
	PurchaseFigures(ctx context.Context, q FigureQuery) ([]PurchaseCell, error)
	// TopProducts returns the n products with the most revenue in the range, most first.
	TopProducts(ctx context.Context, q FigureQuery, n int) ([]ProductRevenue, error)
	// SubscriberFigures counts service terms for the range; now bounds what has ended.
	SubscriberFigures(ctx context.Context, q FigureQuery, now time.Time) (*SubscriberFigures, error)
}

// ServiceTerm is when a subscription gives service, as its current state tells
// (docs/API.md#entitlement): from the trial's or the subscription's start (its creation
// when neither is known) until End, nil while it still gives service. ok is false for a
// subscription that never gave service: NEW, or CANCELED with no known term. At any
// instant now after Start, Entitle(sub, now).ReceivingService is now < End.
func ServiceTerm(sub *Subscription) (start time.Time, end *time.Time, ok bool) {
	if sub == nil {
		return time.Time{}, nil, false
	}
	start = sub.CreatedAt.Time
	for _, t := range []*Time{sub.TrialStartedAt, sub.StartedAt} {
		if t != nil && t.Before(start) {
			start = t.Time
		}
	}
	var e *Time
	switch sub.Status {
	case SubscriptionActive, SubscriptionTrial, SubscriptionPastDue:
		return start, nil, true
	case SubscriptionCanceled:
		e = sub.EndedAt
		if e == nil {
			e = sub.NextPaymentAt
		}
		if e == nil {
			return time.Time{}, nil, false
		}
	case SubscriptionClosed:
		// Closed means no service now: the term ended by the last change at the latest.
		e = &sub.UpdatedAt
		if sub.EndedAt != nil && sub.EndedAt.Before(e.Time) {
			e = sub.EndedAt
		}
	default:
		return time.Time{}, nil, false
	}
	t := e.Time
	if t.Before(start) {
		start = t
	}
	return start, &t, true
}
