package filter_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/internal/filter"
	"storefront/internal/shop"
)

func TestSubscriberSearch(t *testing.T) {
	c := shop.Cursor{CreatedAt: time.Unix(1700000000, 0).UTC(), ID: 42}
	older := filter.EncodeCursor(c, filter.KindSubscriber, true)
	newer := filter.EncodeCursor(c, filter.KindSubscriber, false)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 10, 15, 30, 0, 0, ny)
	read := func(t *testing.T, q string) (shop.SubscriberFilter, bool, error) {
		t.Helper()
		v, err := url.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		return filter.SubscriberSearch(v, 1, 2, now, ny)
	}
	t.Run("OK", func(t *testing.T) {
		f, back, err := read(t, "email=+ann%40&status=active,%20trial&status=ACTIVE")
		if err != nil || back || f.AccountID != 1 || f.StorefrontID != 2 || f.UsernamePrefix != "ann@" || !f.Desc || !f.IncludeCount ||
			!slices.Equal(f.Statuses, []shop.SubscriptionStatus{shop.SubscriptionActive, shop.SubscriptionTrial}) {
			t.Fatalf("got %+v, %v, %v", f, back, err)
		}
	})
	t.Run("OKDates", func(t *testing.T) {
		// As the purchases' date_min reads them: free-form, in the account's zone,
		// relative to now; what a field leaves out stays unbounded.
		f, _, err := read(t, "started_min=2026-01-01&started_max=tomorrow&ended_min=-2+weeks&ended_max=%401700000000")
		if err != nil {
			t.Fatal(err)
		}
		want := []time.Time{time.Date(2026, 1, 1, 0, 0, 0, 0, ny), time.Date(2026, 3, 11, 0, 0, 0, 0, ny), now.AddDate(0, 0, -14), time.Unix(1700000000, 0)}
		for i, got := range []*time.Time{f.StartedFrom, f.StartedBefore, f.EndedFrom, f.EndedBefore} {
			if got == nil || !got.Equal(want[i]) {
				t.Errorf("date %d: got %v, want %v", i, got, want[i])
			}
		}
		if f, _, err := read(t, "receiving_at=2026-01-01+12:00"); err != nil || f.ReceivingAt == nil || !f.ReceivingAt.Equal(time.Date(2026, 1, 1, 12, 0, 0, 0, ny)) {
			t.Errorf("receiving_at: got %+v, %v", f.ReceivingAt, err)
		}
		if f, _, err := read(t, "started_min=2026-01-01"); err != nil || f.StartedBefore != nil || f.EndedFrom != nil || f.EndedBefore != nil || f.ReceivingAt != nil {
			t.Errorf("got %+v, %v: want only started_min", f, err)
		}
	})
	t.Run("OKOlder", func(t *testing.T) {
		f, back, err := read(t, "cursor="+older)
		if err != nil || back || f.After == nil || *f.After != c || !f.Desc {
			t.Fatalf("got %+v, %v, %v", f, back, err)
		}
	})
	t.Run("OKNewer", func(t *testing.T) {
		f, back, err := read(t, "before="+newer)
		if err != nil || !back || f.After == nil || *f.After != c || f.Desc {
			t.Fatalf("got %+v, %v, %v", f, back, err)
		}
	})
	for name, q := range map[string]string{
		"ErrStatus":      "status=ACTIVE,GONE",
		"ErrLongEmail":   "email=" + strings.Repeat("a", filter.MaxTextLen+1),
		"ErrBothLinks":   "cursor=" + older + "&before=" + newer,
		"ErrOlderLink":   "cursor=" + newer,
		"ErrNewerLink":   "before=" + older,
		"ErrPurchaseRow": "before=" + filter.EncodeCursor(c, filter.KindPurchase, false),
		"ErrUnknown":     "username=ann",
		"ErrStartedMin":  "started_min=not+a+date",
		"ErrEndedMax":    "ended_max=2024-13-01",
		"ErrReceivingAt": "receiving_at=soonish",
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, err := read(t, q); shop.ErrorCode(err) != shop.EInvalid && shop.ErrorCode(err) != shop.EUnknownParam {
				t.Fatalf("got %v, want a parameter error", err)
			}
		})
	}
}

func TestPurchasesBefore(t *testing.T) {
	c := shop.Cursor{CreatedAt: time.Unix(1700000000, 0).UTC(), ID: 42}
	t.Run("OKNone", func(t *testing.T) {
		f := shop.PurchaseFilter{Desc: true}
		if back, err := filter.PurchasesBefore(&f, ""); err != nil || back || f.After != nil || !f.Desc {
			t.Fatalf("got %+v, %v, %v", f, back, err)
		}
	})
	t.Run("OKNewer", func(t *testing.T) {
		f := shop.PurchaseFilter{Desc: true}
		back, err := filter.PurchasesBefore(&f, filter.EncodeCursor(c, filter.KindPurchase, false))
		if err != nil || !back || f.After == nil || *f.After != c || f.Desc {
			t.Fatalf("got %+v, %v, %v", f, back, err)
		}
	})
	t.Run("ErrBothLinks", func(t *testing.T) {
		f := shop.PurchaseFilter{Desc: true, After: &c}
		if _, err := filter.PurchasesBefore(&f, filter.EncodeCursor(c, filter.KindPurchase, false)); shop.ErrorParam(err) != "before" {
			t.Fatalf("got %v, want a before error", err)
		}
	})
	t.Run("ErrOlderLink", func(t *testing.T) {
		f := shop.PurchaseFilter{Desc: true}
		if _, err := filter.PurchasesBefore(&f, filter.EncodeCursor(c, filter.KindPurchase, true)); shop.ErrorParam(err) != "before" {
			t.Fatalf("got %v, want a before error", err)
		}
	})
}

// FuzzSubscriberSearch: any query is read or refused with a parameter error.
func FuzzSubscriberSearch(f *testing.F) {
	f.Add("email=ann&status=ACTIVE,trial")
	f.Add("before=AAAA&cursor=BBBB")
	f.Add("started_min=yesterday&ended_max=%401700000000")
	f.Fuzz(func(t *testing.T, q string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			return
		}
		sf, _, err := filter.SubscriberSearch(v, 1, 2, time.Unix(1700000000, 0), time.UTC)
		if err != nil {
			if c := shop.ErrorCode(err); c != shop.EInvalid && c != shop.EUnknownParam {
				t.Fatalf("got %v, want a parameter error", err)
			}
			return
		}
		for _, st := range sf.Statuses {
			if !st.Valid() {
				t.Fatalf("got status %q, want a valid one", st)
			}
		}
	})
}
