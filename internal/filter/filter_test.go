package filter

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"storefront/internal/shop"
)

var (
	nyc, _ = time.LoadLocation("America/New_York")
	// now is Sunday 22 November 2026, 10:30 in New York.
	now = time.Date(2026, 11, 22, 15, 30, 0, 0, time.UTC)
)

func parse(t *testing.T, q string) (shop.PurchaseFilter, error) {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatalf("bad test query %q: %v", q, err)
	}
	return Purchases(v, 7, now, nyc)
}

func TestPurchases(t *testing.T) {
	tp := func(y int, m time.Month, d, h int, loc *time.Location) *time.Time {
		v := time.Date(y, m, d, h, 0, 0, 0, loc)
		return &v
	}
	yes, no := true, false
	ok := []struct {
		query string
		want  shop.PurchaseFilter
	}{
		{"", shop.PurchaseFilter{}},
		{"status=act", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"ACT"}}},
		{"status=ACT,rfd,ACT", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"ACT", "RFD"}}},
		{"status=PND&status=hld", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"PND", "HLD"}}},
		{"product_id=12&storefront_id=3&customer_id=9223372036854775807&subscriber_id=1",
			shop.PurchaseFilter{ProductID: 12, StorefrontID: 3, CustomerID: 9223372036854775807, SubscriberID: 1}},
		{"customer_email=a%25_%5C&customer_first_name=Zo%C3%AB&customer_last_name=M%C3%BCller",
			shop.PurchaseFilter{EmailPrefix: `a%_\`, FirstPrefix: "Zoë", LastPrefix: "Müller"}},
		{"date_min=2024-03-01&date_max=2024-03-02+12:00", shop.PurchaseFilter{CreatedFrom: tp(2024, 3, 1, 0, nyc), CreatedBefore: tp(2024, 3, 2, 12, nyc)}},
		{"date_min=yesterday", shop.PurchaseFilter{CreatedFrom: tp(2026, 11, 21, 0, nyc)}},
		{"date_min=2024-03-01T00:00:00Z", shop.PurchaseFilter{CreatedFrom: tp(2024, 3, 1, 0, time.UTC)}},
		{"total=10.5", shop.PurchaseFilter{Total: "10.5", TotalOp: shop.TotalEq}},
		{"total=-3.25&total_op=GT", shop.PurchaseFilter{Total: "-3.25", TotalOp: shop.TotalGt}},
		{"total=10&total_op=ne", shop.PurchaseFilter{Total: "10", TotalOp: shop.TotalNe}},
		{"total=10&total_op=lt", shop.PurchaseFilter{Total: "10", TotalOp: shop.TotalLt}},
		{"ship=1", shop.PurchaseFilter{Unshipped: &yes}},
		{"ship=TRUE", shop.PurchaseFilter{Unshipped: &yes}},
		{"ship=false", shop.PurchaseFilter{Unshipped: &no}},
		{"ship=0", shop.PurchaseFilter{Unshipped: &no}},
		{"order=DESC&per_page=500&page=3&include_count=1", shop.PurchaseFilter{Desc: true, PerPage: 500, Page: 3, IncludeCount: true}},
		{"order=asc&per_page=1", shop.PurchaseFilter{PerPage: 1}},
		// Free text is literal too: a prefix with a leading space matches only values
		// that start with one (docs/API.md#reading-parameters).
		{"customer_email=%201&customer_first_name=%09Ann&customer_last_name=Lee%20",
			shop.PurchaseFilter{EmailPrefix: " 1", FirstPrefix: "\tAnn", LastPrefix: "Lee "}},
		// Keywords keep any letter case; an empty item of a status list names nothing.
		{"status=ACT,,rfd,", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"ACT", "RFD"}}},
		// Blank values are the same as none (docs/API.md#reading-parameters), for every
		// known parameter.
		{"status=&product_id=&storefront_id=+&customer_id=&subscriber_id=&customer_email=&customer_first_name=&customer_last_name=" +
			"&date_min=&date_max=&total=&total_op=&ship=&order=&per_page=&cursor=&page=&include_count=", shop.PurchaseFilter{}},
	}
	for _, tc := range ok {
		t.Run(tc.query, func(t *testing.T) {
			got, err := parse(t, tc.query)
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			want := tc.want
			want.AccountID = 7
			if want.PerPage == 0 {
				want.PerPage = shop.DefaultPerPage
			}
			if !reflect.DeepEqual(normal(got), normal(want)) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}

	bad := []struct {
		query, code, param string
	}{
		{"stauts=ACT", shop.EUnknownParam, "stauts"},
		{"foo=", shop.EUnknownParam, "foo"},
		{"status=ACTIVE", shop.EInvalid, "status"},
		{"product_id=0", shop.EInvalid, "product_id"},
		{"product_id=-1", shop.EInvalid, "product_id"},
		{"product_id=012", shop.EInvalid, "product_id"},
		{"product_id=1e3", shop.EInvalid, "product_id"},
		{"storefront_id=9223372036854775808", shop.EInvalid, "storefront_id"},
		{"customer_id=abc", shop.EInvalid, "customer_id"},
		{"subscriber_id=1.0", shop.EInvalid, "subscriber_id"},
		{"date_min=not+a+date", shop.EInvalid, "date_min"},
		{"date_max=31/12/2024", shop.EInvalid, "date_max"},
		{"total=ten", shop.EInvalid, "total"},
		{"total=1e3", shop.EInvalid, "total"},
		{"total=10&total_op=ge", shop.EInvalid, "total_op"},
		{"total_op=gt", shop.EInvalid, "total_op"},
		{"ship=yes", shop.EInvalid, "ship"},
		{"order=newest", shop.EInvalid, "order"},
		{"per_page=0", shop.EInvalid, "per_page"},
		{"per_page=501", shop.EInvalid, "per_page"},
		{"per_page=ten", shop.EInvalid, "per_page"},
		{"page=0", shop.EInvalid, "page"},
		{"page=-2", shop.EInvalid, "page"},
		{"page=2&cursor=abc", shop.EInvalid, "cursor"},
		{"cursor=abc", shop.EInvalid, "cursor"},
		{"include_count=maybe", shop.EInvalid, "include_count"},
		{"customer_email=" + strings.Repeat("a", 256), shop.EInvalid, "customer_email"},
		{"customer_email=%FF", shop.EInvalid, "customer_email"},
		{"ship=1&ship=0", shop.EInvalid, "ship"},
		// Values are literal (docs/API.md#reading-parameters): blanks around a value that is not all blanks
		// are part of it, so none of these is an id, a number or a keyword.
		{"product_id=%201", shop.EInvalid, "product_id"},
		{"customer_id=1%20", shop.EInvalid, "customer_id"},
		{"storefront_id=%091", shop.EInvalid, "storefront_id"},
		{"subscriber_id=1%0A", shop.EInvalid, "subscriber_id"},
		{"subscriber_id=%C2%A01", shop.EInvalid, "subscriber_id"},
		{"per_page=%2010", shop.EInvalid, "per_page"},
		{"page=2%20", shop.EInvalid, "page"},
		{"total=%2010", shop.EInvalid, "total"},
		{"total=10&total_op=gt%20", shop.EInvalid, "total_op"},
		{"status=%20ACT", shop.EInvalid, "status"},
		{"status=ACT,%20RFD", shop.EInvalid, "status"},
		{"status=ACT%09", shop.EInvalid, "status"},
		{"order=%20desc", shop.EInvalid, "order"},
		{"ship=1%20", shop.EInvalid, "ship"},
		{"include_count=%201", shop.EInvalid, "include_count"},
		{"cursor=%20AQ", shop.EInvalid, "cursor"},
	}
	for _, tc := range bad {
		t.Run("Err/"+tc.query[:min(len(tc.query), 40)], func(t *testing.T) {
			_, err := parse(t, tc.query)
			var se *shop.Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want a parameter error", err)
			}
			if se.Code != tc.code || se.Param != tc.param {
				t.Fatalf("got code %s param %s, want %s %s (%s)", se.Code, se.Param, tc.code, tc.param, se.Message)
			}
			if se.Message == "" {
				t.Fatal("empty message")
			}
		})
	}
	t.Run("TrailingCommaInStatus", func(t *testing.T) {
		got, err := parse(t, "status=ACT,")
		if err != nil || len(got.Statuses) != 1 {
			t.Fatalf("got %v, %v", got.Statuses, err)
		}
	})
}

// normal makes filters comparable: times compared as instants.
func normal(f shop.PurchaseFilter) shop.PurchaseFilter {
	if f.CreatedFrom != nil {
		v := f.CreatedFrom.UTC()
		f.CreatedFrom = &v
	}
	if f.CreatedBefore != nil {
		v := f.CreatedBefore.UTC()
		f.CreatedBefore = &v
	}
	return f
}

func TestCursor(t *testing.T) {
	c := shop.Cursor{CreatedAt: time.Unix(1700000000, 0).UTC(), ID: 42}
	t.Run("RoundTrip", func(t *testing.T) {
		for _, desc := range []bool{false, true} {
			s := EncodeCursor(c, KindPurchase, desc)
			got, gotDesc, err := DecodeCursor(s, KindPurchase)
			if err != nil || got != c || gotDesc != desc {
				t.Fatalf("got %v %v %v, want %v %v", got, gotDesc, err, c, desc)
			}
		}
	})
	t.Run("ErrTampered", func(t *testing.T) {
		s := []byte(EncodeCursor(c, KindPurchase, false))
		s[5] ^= 1
		if _, _, err := DecodeCursor(string(s), KindPurchase); shop.ErrorParam(err) != "cursor" {
			t.Fatalf("got %v, want a cursor error", err)
		}
	})
	t.Run("ErrNotAsIssued", func(t *testing.T) {
		// The base64 decoder passes over line breaks; a cursor is taken only as issued.
		s := EncodeCursor(c, KindPurchase, false)
		for _, v := range []string{s + "\n", "\r\n" + s, s[:5] + "\n" + s[5:], " " + s, s + "="} {
			if _, _, err := DecodeCursor(v, KindPurchase); shop.ErrorParam(err) != "cursor" {
				t.Fatalf("%q: got %v, want a cursor error", v, err)
			}
		}
	})
	t.Run("ErrOtherKind", func(t *testing.T) {
		if _, _, err := DecodeCursor(EncodeCursor(c, KindSubscriber, false), KindPurchase); err == nil {
			t.Fatal("a subscriber cursor was accepted for purchases")
		}
	})
	t.Run("ErrOtherOrder", func(t *testing.T) {
		_, err := parse(t, "order=desc&cursor="+EncodeCursor(c, KindPurchase, false))
		if shop.ErrorParam(err) != "cursor" {
			t.Fatalf("got %v, want a cursor error", err)
		}
	})
	t.Run("InFilter", func(t *testing.T) {
		f, err := parse(t, "order=desc&cursor="+EncodeCursor(c, KindPurchase, true))
		if err != nil || f.After == nil || *f.After != c || !f.Desc {
			t.Fatalf("got %+v, %v", f.After, err)
		}
	})
}

func TestVerify(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  VerifyQuery
		code  string
	}{
		{"username=a@b.com", VerifyQuery{Username: "a@b.com"}, ""},
		{"id=12", VerifyQuery{ID: 12}, ""},
		{"subscriber_id=12", VerifyQuery{ID: 12}, ""},
		{"id=12&subscriber_id=12", VerifyQuery{ID: 12}, ""},
		{"id=12&username=a@b.com", VerifyQuery{ID: 12, Username: "a@b.com"}, ""},
		{"id=12&subscriber_id=13", VerifyQuery{}, shop.EInvalid},
		{"", VerifyQuery{}, shop.EMissing},
		{"username=&id=", VerifyQuery{}, shop.EMissing},
		{"id=x", VerifyQuery{}, shop.EInvalid},
		// Literal values (docs/API.md#reading-parameters): " 1" is no id; a username is matched as sent.
		{"id=%201", VerifyQuery{}, shop.EInvalid},
		{"subscriber_id=12%20", VerifyQuery{}, shop.EInvalid},
		{"id=%09", VerifyQuery{}, shop.EMissing},
		{"username=%20a@b.com", VerifyQuery{Username: " a@b.com"}, ""},
		{"user=a", VerifyQuery{}, shop.EUnknownParam},
	} {
		t.Run(tc.query, func(t *testing.T) {
			v, _ := url.ParseQuery(tc.query)
			got, err := Verify(v)
			if shop.ErrorCode(err) != tc.code {
				t.Fatalf("got error %v, want code %q", err, tc.code)
			}
			if err == nil && got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSubscribers(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  shop.SubscriberFilter
		param string
	}{
		{"username=a@b.com&per_page=10&page=1", shop.SubscriberFilter{Username: "a@b.com", PerPage: 10, Page: 1, IncludeCount: true}, ""},
		// Literal: the username keeps its blanks; a number with blanks is no number.
		{"username=%20a@b.com", shop.SubscriberFilter{Username: " a@b.com"}, ""},
		{"username=a@b.com%0A", shop.SubscriberFilter{Username: "a@b.com\n"}, ""},
		{"username=%20%09", shop.SubscriberFilter{}, ""},
		{"per_page=%2010", shop.SubscriberFilter{}, "per_page"},
		{"page=1%20", shop.SubscriberFilter{}, "page"},
		{"order=desc%20", shop.SubscriberFilter{}, "order"},
		{"include_count=true%20", shop.SubscriberFilter{}, "include_count"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			v, _ := url.ParseQuery(tc.query)
			got, err := Subscribers(v, 7, 3, time.Now(), time.UTC)
			if tc.param != "" {
				if shop.ErrorCode(err) != shop.EInvalid || shop.ErrorParam(err) != tc.param {
					t.Fatalf("got %v, want invalid_parameter %s", err, tc.param)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			want := tc.want
			want.AccountID, want.StorefrontID = 7, 3
			if want.PerPage == 0 {
				want.PerPage = shop.DefaultPerPage
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		})
	}
}

func FuzzPurchases(f *testing.F) {
	for _, s := range []string{"status=ACT,rfd", "date_min=last+monday&date_max=%40170000", "total=1.5&total_op=gt", "cursor=AQ", "per_page=5&page=2", "a=%FF"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		v, err := url.ParseQuery(q)
		if err != nil {
			return
		}
		_, err = Purchases(v, 1, now, nyc)
		if err != nil {
			var se *shop.Error
			if !errors.As(err, &se) || se.Code == shop.EInternal || se.Message == "" {
				t.Fatalf("%q: got %v, want a parameter error", q, err)
			}
		}
	})
}
