package mysql_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/search"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// TestReceivingService_Boundaries checks that every place that asks whether a
// subscriber receives service at an instant answers as shop.Entitle does, at the
// instants where the answer changes: a term [start, end) holds its start and not its
// end. The places: the subscribers list's ReceivingAt, the search's active:"instant",
// and the overview's Active subscribers at the end of a range.
func TestReceivingService_Boundaries(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 20, Subscribers: 40, Seed: 3, Now: searchNow}, nil); err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	// Terms that start or end at one instant T, and one of a second that starts and ends
	// at S and T.
	at := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	s, tt := at.Add(-48*time.Hour), at
	subs := naiveIDs(t, db, "SELECT subscriber_id FROM subscriptions WHERE account_id = 1 ORDER BY subscriber_id LIMIT 6")
	if len(subs) < 6 {
		t.Fatalf("seeded %d subscriptions", len(subs))
	}
	for i, c := range []struct {
		status                                      shop.SubscriptionStatus
		created, started, ended, trial, nextPayment *time.Time
		updated                                     time.Time
	}{
		{status: shop.SubscriptionCanceled, created: &s, started: &s, ended: &tt, updated: tt.Add(time.Hour)},
		{status: shop.SubscriptionCanceled, created: &s, started: &s, nextPayment: &tt, updated: s},
		{status: shop.SubscriptionActive, created: &tt, started: &tt, updated: tt},
		{status: shop.SubscriptionTrial, created: &tt, trial: &tt, updated: tt},
		{status: shop.SubscriptionClosed, created: &s, started: &s, ended: &tt, updated: tt.Add(24 * time.Hour)},
		{status: shop.SubscriptionPastDue, created: &s, started: &s, nextPayment: &tt, updated: s},
	} {
		if _, err := db.Exec(`UPDATE subscriptions SET status = ?, created_at = ?, started_at = ?, ended_at = ?, trial_started_at = ?,
			next_payment_at = ?, updated_at = ? WHERE account_id = 1 AND subscriber_id = ?`,
			c.status, *c.created, c.started, c.ended, c.trial, c.nextPayment, c.updated, subs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := mysql.RebuildDerived(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	svc := mysql.NewSubscriberService(db)
	all := allSubscribers(t, svc, shop.SubscriberFilter{})
	// receiving is the rule: the service term [start, end) holds the instant. Where
	// the instant may be now (not before the subscription's last change), that is
	// what shop.Entitle answers from its state.
	receiving := func(x time.Time) []int64 {
		var ids []int64
		for _, sb := range all {
			start, end, ok := shop.ServiceTerm(sb.Subscription)
			holds := ok && !x.Before(start) && (end == nil || x.Before(*end))
			if sb.Subscription != nil && !x.Before(sb.Subscription.UpdatedAt.Time) && holds != shop.Entitle(sb.Subscription, x).ReceivingService {
				t.Errorf("%s: subscriber %d's term says %v, Entitle otherwise", x.Format(time.RFC3339), sb.ID, holds)
			}
			if holds {
				ids = append(ids, sb.ID)
			}
		}
		return ids
	}
	ids := func(f shop.SubscriberFilter) []int64 {
		var out []int64
		for _, sb := range allSubscribers(t, svc, f) {
			out = append(out, sb.ID)
		}
		return out
	}
	overview := mysql.NewOverviewService(db)
	for _, x := range []time.Time{s.Add(-time.Second), s, tt.Add(-time.Second), tt, tt.Add(time.Second)} {
		name := x.Format(time.RFC3339)
		want := receiving(x)
		crafted := 0
		for _, id := range subs {
			if slices.Contains(want, id) {
				crafted++
			}
		}
		t.Logf("%s: %d receiving, %d of them the crafted terms", name, len(want), crafted)
		if got := ids(shop.SubscriberFilter{ReceivingAt: &x}); !slices.Equal(got, want) {
			t.Errorf("%s: ReceivingAt lists %v, want %v", name, got, want)
		}
		res, err := search.MustParse(search.Subscribers, fmt.Sprintf("active:%q", x.In(loc).Format(time.DateTime))).Resolve(searchNow, loc)
		if err != nil {
			t.Fatal(err)
		}
		f, err := res.ApplySubscribers(shop.SubscriberFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(f); !slices.Equal(got, want) {
			t.Errorf("%s: active:%s lists %v, want %v", name, x.In(loc).Format(time.DateTime), got, want)
		}
		for _, sb := range all {
			if res.MatchSubscriber(sb) != slices.Contains(want, sb.ID) {
				t.Errorf("%s: the search's meaning says %v for subscriber %d", name, !slices.Contains(want, sb.ID), sb.ID)
			}
		}
		// The overview's range ending at x, asked later.
		fig, err := overview.SubscriberFigures(ctx, shop.FigureQuery{AccountID: 1, From: x.AddDate(0, -1, 0), Before: x, Loc: loc}, searchNow)
		if err != nil {
			t.Fatal(err)
		}
		if fig.ActiveAtEnd != int64(len(want)) {
			t.Errorf("%s: the overview counts %d active at the end, want %d", name, fig.ActiveAtEnd, len(want))
		}
		// And ending later, asked at x: active now.
		fig, err = overview.SubscriberFigures(ctx, shop.FigureQuery{AccountID: 1, From: x.AddDate(0, -1, 0), Before: x.AddDate(0, 1, 0), Loc: loc}, x)
		if err != nil {
			t.Fatal(err)
		}
		if fig.ActiveAtEnd != int64(len(want)) {
			t.Errorf("%s: the overview counts %d active now, want %d", name, fig.ActiveAtEnd, len(want))
		}
	}
}
