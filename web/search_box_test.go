package web

import (
	"net/url"
	"reflect"
	"testing"
	"time"

	"storefront/internal/search"
)

// combineCase is a request's fields and q, and the one query they make.
type combineCase struct {
	name   string
	in     string
	query  string
	fields url.Values
	rest   string
	locked []string
}

// testCombine runs combineQuery on each case's request with the given fields.
func testCombine(t *testing.T, kind search.Kind, fields []boxField, cases []combineCase) {
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			q, _ := url.ParseQuery(tt.in)
			box, err := combineQuery(kind, fields, q)
			if err != nil {
				t.Fatal(err)
			}
			if box.Query != tt.query {
				t.Errorf("query: got %q, want %q", box.Query, tt.query)
			}
			if !reflect.DeepEqual(box.Fields, tt.fields) {
				t.Errorf("fields: got %v, want %v", box.Fields, tt.fields)
			}
			if box.Rest != tt.rest {
				t.Errorf("rest: got %q, want %q", box.Rest, tt.rest)
			}
			for _, p := range tt.locked {
				if !box.Locked[p] {
					t.Errorf("locked: got %v, want %s locked", box.Locked, p)
				}
			}
			if len(box.Locked) != len(tt.locked) {
				t.Errorf("locked: got %v, want %v", box.Locked, tt.locked)
			}
		})
	}
}

func TestCombineQuery(t *testing.T) {
	testCombine(t, search.Purchases, purchaseBoxFields, []combineCase{
		{"Empty", "", "", url.Values{}, "", nil},
		{"FieldsOnly", "status=ACT&status=PND&customer_email=zoe&date_min=last+monday&total=50&total_op=gt&ship=1",
			`status:ACT,PND email:zoe created>="last monday" total>50 ship:yes`,
			url.Values{"status": {"ACT", "PND"}, "customer_email": {"zoe"}, "date_min": {"last monday"}, "total": {"50"}, "total_op": {"gt"}, "ship": {"1"}}, "", nil},
		{"BoxFillsFields", "q=status:act+storefront:2+-total:9.5+created<today+is:unshipped",
			"status:ACT storefront:2 -total:9.5 created<today is:unshipped",
			url.Values{"status": {"ACT"}, "storefront_id": {"2"}, "total": {"9.5"}, "total_op": {"ne"}, "date_max": {"today"}, "ship": {"1"}}, "", nil},
		{"FieldsAndRest", "status=ACT&q=domain:acme.io",
			"status:ACT domain:acme.io", url.Values{"status": {"ACT"}}, "domain:acme.io", nil},
		{"OrLocks", "q=email:zoe+OR+name:van",
			"email:zoe OR name:van", url.Values{}, "email:zoe OR name:van", []string{"customer_email"}},
		{"TwiceLocks", "customer_email=a&q=email:b",
			"email:a email:b", url.Values{}, "email:a email:b", []string{"customer_email"}},
		{"CreatedEqLocksBothDates", "q=created:2024-11-01+currency:EUR",
			"created:2024-11-01 currency:EUR", url.Values{}, "created:2024-11-01 currency:EUR", []string{"date_min", "date_max"}},
		{"BoxOrWithFields", "status=ACT&q=email:a+OR+email:b",
			"status:ACT (email:a OR email:b)", url.Values{"status": {"ACT"}}, "email:a OR email:b", []string{"customer_email"}},
	})
	t.Run("ErrUnreadable", func(t *testing.T) {
		_, err := combineQuery(search.Purchases, purchaseBoxFields, url.Values{"q": {"emial:zoe"}})
		if err == nil {
			t.Fatal("got nil, want an error")
		}
	})
}

func TestCombineQuery_Subscribers(t *testing.T) {
	loc, _ := time.LoadLocation("Europe/Paris")
	now := time.Date(2026, 3, 14, 15, 4, 5, 0, loc)
	testCombine(t, search.Subscribers, subscriberBoxFields(now, loc), []combineCase{
		{"FieldsOnly", "status=active&status=TRIAL&email=zoe&started_min=-30+days&started_max=today&ended_min=2026-01-01&ended_max=now&receiving_at=yesterday+noon",
			`status:ACTIVE,TRIAL email:zoe started>="-30 days" started<today ended>=2026-01-01 ended<now active:"yesterday noon"`,
			url.Values{"status": {"ACTIVE", "TRIAL"}, "email": {"zoe"}, "started_min": {"-30 days"}, "started_max": {"today"},
				"ended_min": {"2026-01-01"}, "ended_max": {"now"}, "receiving_at": {"yesterday noon"}}, "", nil},
		// The field's whole day is the instant it starts: in the query, with a time of
		// day; back in the field, as typed.
		{"ReceivingAtWholeDay", "receiving_at=today", `active:"today 00:00:00"`, url.Values{"receiving_at": {"today"}}, "", nil},
		{"ReceivingAtInstant", "q=active:now", "active:now", url.Values{"receiving_at": {"now"}}, "", nil},
		{"ActiveWholeDayLocks", "q=active:today", "active:today", url.Values{}, "active:today", []string{"receiving_at"}},
		{"RangeLocksBothBounds", "q=ended:2026-01-01..2026-01-31+id>5", "ended:2026-01-01..2026-01-31 id>5", url.Values{}, "ended:2026-01-01..2026-01-31 id>5", []string{"ended_min", "ended_max"}},
		{"NegatedStatusLocks", "email=a&q=-status:closed", "email:a -status:CLOSED", url.Values{"email": {"a"}}, "-status:CLOSED", []string{"status"}},
		{"FieldsAndRest", "status=NEW&q=username:ann@example.com", "status:NEW username:ann@example.com", url.Values{"status": {"NEW"}}, "username:ann@example.com", nil},
	})
}
