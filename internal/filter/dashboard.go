package filter

import (
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"storefront/internal/search"
	"storefront/internal/shop"
)

// SubscriberSearchParams are the parameters of the dashboard's subscriber list.
var SubscriberSearchParams = []string{"email", "status", "started_min", "started_max", "ended_min", "ended_max", "receiving_at", "cursor", "before", "q"}

// Before reads the "before" link of a dashboard list, which shows newest first: the
// position of the first row of a page, whose newer rows the previous page shows.
func Before(s string, kind byte) (*shop.Cursor, error) {
	c, desc, err := DecodeCursor(strings.TrimSpace(s), kind)
	if err != nil || desc {
		return nil, badLink("before")
	}
	return &c, nil
}

func badLink(name string) error {
	return shop.ParamErrorf(shop.EInvalid, name, "The page link is not valid; start again from the first page.")
}

// bothLinks is the error of a request with both paging links.
func bothLinks() error {
	return shop.ParamErrorf(shop.EInvalid, "before", "Page with before or with cursor, not both.")
}

// PurchasesBefore applies a dashboard "before" link to a purchase filter read by
// Purchases: the newer rows, read in the other order (backwards is true; the caller
// shows them reversed).
func PurchasesBefore(f *shop.PurchaseFilter, before string) (backwards bool, err error) {
	if before == "" {
		return false, nil
	}
	if f.After != nil || f.Page != 0 {
		return false, bothLinks()
	}
	c, err := Before(before, KindPurchase)
	if err != nil {
		return false, err
	}
	f.After, f.Desc = c, !f.Desc
	return true, nil
}

// SubscriberSearch reads the dashboard's subscriber search of one storefront (0: every
// storefront of the account): email (a prefix of the user name, blanks around it
// ignored), status (several, or comma-separated, any letter case), started_min and
// started_max (the service term began in [started_min, started_max)), ended_min and
// ended_max (it ended in that range), receiving_at (the term holds that instant), each
// free-form as the purchases' date_min is read
// (ParseDate, relative to now in loc), q (a search of subscribers, docs/SEARCH.md, AND
// the fields), and one paging link, cursor (older rows) or
// before (newer rows). The filter lists newest first, with the count; after a before
// link it reads the newer rows oldest first, and backwards is true (the caller shows
// them reversed).
func SubscriberSearch(q url.Values, accountID, storefrontID int64, now time.Time, loc *time.Location) (f shop.SubscriberFilter, backwards bool, err error) {
	f = shop.SubscriberFilter{AccountID: accountID, StorefrontID: storefrontID, Desc: true, IncludeCount: true}
	v, err := Check(q, SubscriberSearchParams)
	if err != nil {
		return f, false, err
	}
	if emails := v["email"]; len(emails) > 0 {
		f.UsernamePrefix = strings.TrimSpace(emails[0])
		if utf8.RuneCountInString(f.UsernamePrefix) > MaxTextLen {
			return f, false, shop.ParamErrorf(shop.EInvalid, "email", "The e-mail is longer than %d characters.", MaxTextLen)
		}
	}
	for _, s := range v["status"] {
		for _, part := range strings.Split(s, ",") {
			part = strings.ToUpper(strings.TrimSpace(part))
			if part == "" {
				continue
			}
			st := shop.SubscriptionStatus(part)
			if !st.Valid() {
				return f, false, shop.ParamErrorf(shop.EInvalid, "status", "%q is not a subscription status; use NEW, TRIAL, ACTIVE, CANCELED, CLOSED or PAST_DUE.", clip(part))
			}
			if !slices.Contains(f.Statuses, st) {
				f.Statuses = append(f.Statuses, st)
			}
		}
	}
	for _, d := range []struct {
		name string
		dst  **time.Time
	}{{"started_min", &f.StartedFrom}, {"started_max", &f.StartedBefore}, {"ended_min", &f.EndedFrom}, {"ended_max", &f.EndedBefore}, {"receiving_at", &f.ReceivingAt}} {
		if vs := v[d.name]; len(vs) > 0 {
			t, err := ParseDate(d.name, vs[0], now, loc)
			if err != nil {
				return f, false, err
			}
			*d.dst = &t
		}
	}
	// q, the search box, narrows the fields' filter as the API's q does.
	if sv, _ := Check(url.Values{"q": q["q"]}, []string{"q"}); len(sv["q"]) > 0 && strings.TrimSpace(sv["q"][0]) != "" {
		r, _, err := readSearch(sv, search.Subscribers, now, loc)
		if err != nil {
			return f, false, err
		}
		if f, err = r.ApplySubscribers(f); err != nil {
			return f, false, err
		}
	}
	cursor, before := v["cursor"], v["before"]
	switch {
	case len(cursor) > 0 && len(before) > 0:
		return f, false, bothLinks()
	case len(cursor) > 0:
		c, desc, err := DecodeCursor(strings.TrimSpace(cursor[0]), KindSubscriber)
		if err != nil || !desc {
			return f, false, badLink("cursor")
		}
		f.After = &c
	case len(before) > 0:
		if f.After, err = Before(before[0], KindSubscriber); err != nil {
			return f, false, err
		}
		f.Desc, backwards = false, true
	}
	return f, backwards, nil
}
