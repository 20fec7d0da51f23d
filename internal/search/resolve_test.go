package search

import (
	"fmt"
	"testing"
	"time"

	"storefront/internal/shop"
)

var paris = mustZone("Europe/Paris")

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}

// testNow is Wednesday 20 November 2024, 15:04:05 in Paris.
var testNow = time.Date(2024, 11, 20, 15, 4, 5, 0, paris)

func TestResolveDate(t *testing.T) {
	day := func(y int, m time.Month, d int) Span {
		return Span{From: time.Date(y, m, d, 0, 0, 0, 0, paris), To: time.Date(y, m, d+1, 0, 0, 0, 0, paris), WholeDay: true}
	}
	instant := func(t time.Time) Span { return Span{From: t, To: t.Add(time.Second)} }
	for _, tt := range []struct {
		text string
		want Span
	}{
		{"2024-11-01", day(2024, 11, 1)},
		{"1 nov 2024", day(2024, 11, 1)},
		{"Nov 1, 2024", day(2024, 11, 1)},
		{"today", day(2024, 11, 20)},
		{"yesterday", day(2024, 11, 19)},
		{"last monday", day(2024, 11, 18)},
		{"midnight", day(2024, 11, 20)},
		{"2024-10-27", day(2024, 10, 27)}, // a 25-hour day: DST ends
		{"2024-11-01 00:00", instant(time.Date(2024, 11, 1, 0, 0, 0, 0, paris))},
		{"2024-11-01T00:00:00", instant(time.Date(2024, 11, 1, 0, 0, 0, 0, paris))},
		{"2024-11-01 15:30", instant(time.Date(2024, 11, 1, 15, 30, 0, 0, paris))},
		{"noon", instant(time.Date(2024, 11, 20, 12, 0, 0, 0, paris))},
		{"now", instant(testNow)},
		{"-30days", instant(testNow.AddDate(0, 0, -30))},
		{"first day of this month", instant(time.Date(2024, 11, 1, 15, 4, 5, 0, paris))},
		{"first day of this month midnight", day(2024, 11, 1)},
		{"@1730415600", instant(time.Date(2024, 11, 1, 0, 0, 0, 0, paris))},
		{"2024-11-01 UTC", instant(time.Date(2024, 11, 1, 1, 0, 0, 0, paris))},
	} {
		t.Run(tt.text, func(t *testing.T) {
			got, err := ResolveDate(tt.text, testNow, paris)
			if err != nil {
				t.Fatal(err)
			}
			if !got.From.Equal(tt.want.From) || !got.To.Equal(tt.want.To) || got.WholeDay != tt.want.WholeDay {
				t.Fatalf("got %v..%v whole=%v, want %v..%v whole=%v", got.From, got.To, got.WholeDay, tt.want.From, tt.want.To, tt.want.WholeDay)
			}
		})
	}
	t.Run("Midnight", func(t *testing.T) {
		// At midnight, "-30days" is midnight too, but it is relative to the time of day.
		now := time.Date(2024, 11, 20, 0, 0, 0, 0, paris)
		got, err := ResolveDate("-30days", now, paris)
		if err != nil {
			t.Fatal(err)
		}
		if got.WholeDay {
			t.Fatalf("got a whole day, want an instant")
		}
	})
}

func TestResolve(t *testing.T) {
	t.Run("Header", func(t *testing.T) {
		q := MustParse(Purchases, `created>"last monday" created<=-1days created:"last monday"`)
		r, err := q.Resolve(testNow, paris)
		if err != nil {
			t.Fatal(err)
		}
		want := `"last monday"=2024-11-18T00:00:00+01:00/2024-11-19T00:00:00+01:00, "-1days"=2024-11-19T15:04:05+01:00`
		if got := r.Header(); got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
		if q.Root.(*And).Terms[0].(*Clause).Values[0].Span != nil {
			t.Fatalf("Resolve changed the parsed query")
		}
	})
	t.Run("ErrReversedRange", func(t *testing.T) {
		_, err := MustParse(Purchases, `created:today..yesterday`).Resolve(testNow, paris)
		if got, want := shop.ErrorMessage(err), `range "today..yesterday" at 9 ends before it starts`; got != want {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
	t.Run("OneDayRange", func(t *testing.T) {
		if _, err := MustParse(Purchases, `created:today..today`).Resolve(testNow, paris); err != nil {
			t.Fatalf("got %v, want no error", err)
		}
	})
}

func TestDNF(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string // each conjunction as its conditions, "-" for negated
	}{
		{`a`, []string{"a"}},
		{`a b`, []string{"a b"}},
		{`a OR b`, []string{"a", "b"}},
		{`a (b OR c)`, []string{"a b", "a c"}},
		{`(a OR b) (c OR d)`, []string{"a c", "a d", "b c", "b d"}},
		{`-(a OR b)`, []string{"-a -b"}},
		{`-(a b)`, []string{"-a", "-b"}},
		{`-(a (b OR c))`, []string{"-a", "-b -c"}},
		{`--a`, []string{"a"}},
		{`x -(a OR -b)`, []string{"x -a b"}},
	} {
		t.Run(tt.in, func(t *testing.T) {
			r, err := MustParse(Purchases, tt.in).Resolve(testNow, paris)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := r.DNF()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, cj := range cs {
				s := ""
				for i, c := range cj {
					if i > 0 {
						s += " "
					}
					if c.Not {
						s += "-"
					}
					s += c.Texts[0]
				}
				got = append(got, s)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
	t.Run("ErrTooManyBranches", func(t *testing.T) {
		// A tree built by hand: Parse refuses it already.
		var terms []Node
		for _, s := range []string{"a", "b", "c"} {
			terms = append(terms, &Or{Terms: []Node{&Text{Value: Value{Text: s}}, &Text{Value: Value{Text: s + "2"}}, &Text{Value: Value{Text: s + "3"}}}})
		}
		r := &Resolved{Kind: Purchases, Root: &And{Terms: terms}}
		if _, err := r.DNF(); err == nil {
			t.Fatalf("got no error, want one")
		}
	})
	t.Run("Conds", func(t *testing.T) {
		r, err := MustParse(Purchases, `id>5 total:10..* created>2024-11-01 is:shipped 42`).Resolve(testNow, paris)
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := r.DNF()
		cj := cs[0]
		if c := cj[0]; c.IDs[0].Min != 6 || c.IDs[0].Max != 1<<63-1 {
			t.Fatalf("id>5: got %+v, want ids from 6", c.IDs)
		}
		if c := cj[1]; c.Money[0] != (shop.MoneyRange{Min: "10", MinIncl: true, MaxIncl: true}) {
			t.Fatalf("total:10..*: got %+v", c.Money)
		}
		if c := cj[2]; c.Times[0].To != nil || !c.Times[0].From.Equal(time.Date(2024, 11, 2, 0, 0, 0, 0, paris)) {
			t.Fatalf("created>2024-11-01: got %+v, want from 2 November", c.Times)
		}
		if c := cj[3]; c.Ship || c.Field != FieldIs {
			t.Fatalf("is:shipped: got %+v, want Ship false", c)
		}
		if c := cj[4]; c.Field != FieldText || c.Texts[0] != "42" || c.IDs[0] != (shop.IDRange{Min: 42, Max: 42}) {
			t.Fatalf("42: got %+v, want text 42 or id 42", c)
		}
	})
}

// TestResolve_Ranges pins the range each comparison of ids, amounts and dates reads as.
func TestResolve_Ranges(t *testing.T) {
	day := func(d int) *time.Time { t := time.Date(2024, 11, d, 0, 0, 0, 0, paris); return &t }
	for _, tc := range []struct {
		q    string
		want string
	}{
		{`id:3,4`, `[{Min:3 Max:3} {Min:4 Max:4}]`},
		{`id<5`, `[{Min:1 Max:4}]`},
		{`id<=5`, `[{Min:1 Max:5}]`},
		{`id>5`, `[{Min:6 Max:9223372036854775807}]`},
		{`id>9223372036854775807`, `[{Min:9223372036854775807 Max:0}]`},
		{`id>=5`, `[{Min:5 Max:9223372036854775807}]`},
		{`id:3..*`, `[{Min:3 Max:9223372036854775807}]`},
		{`id:*..7`, `[{Min:1 Max:7}]`},
		{`total:1,2.5`, `[{Min:1 Max:1 MinIncl:true MaxIncl:true} {Min:2.5 Max:2.5 MinIncl:true MaxIncl:true}]`},
		{`total<5`, `[{Min: Max:5 MinIncl:false MaxIncl:false}]`},
		{`total<=5`, `[{Min: Max:5 MinIncl:false MaxIncl:true}]`},
		{`total>5`, `[{Min:5 Max: MinIncl:false MaxIncl:false}]`},
		{`total>=5`, `[{Min:5 Max: MinIncl:true MaxIncl:false}]`},
		{`total:*..7`, `[{Min: Max:7 MinIncl:true MaxIncl:true}]`},
	} {
		r, err := MustParse(Purchases, tc.q).Resolve(testNow, paris)
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := r.DNF()
		c := cs[0][0]
		var got string
		if c.Field == FieldID {
			got = fmt.Sprintf("%+v", c.IDs)
		} else {
			got = fmt.Sprintf("%+v", c.Money)
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.q, got, tc.want)
		}
	}
	for _, tc := range []struct {
		q        string
		from, to *time.Time
	}{
		{`created:2024-11-05`, day(5), day(6)},
		{`created<2024-11-05`, nil, day(5)},
		{`created<=2024-11-05`, nil, day(6)},
		{`created>2024-11-05`, day(6), nil},
		{`created>=2024-11-05`, day(5), nil},
		{`created:2024-11-05..2024-11-07`, day(5), day(8)},
		{`created:*..2024-11-07`, nil, day(8)},
	} {
		r, err := MustParse(Purchases, tc.q).Resolve(testNow, paris)
		if err != nil {
			t.Fatal(err)
		}
		cs, _ := r.DNF()
		tr := cs[0][0].Times[0]
		same := func(a, b *time.Time) bool { return (a == nil) == (b == nil) && (a == nil || a.Equal(*b)) }
		if !same(tr.From, tc.from) || !same(tr.To, tc.to) {
			t.Errorf("%s: got [%v, %v), want [%v, %v)", tc.q, tr.From, tr.To, tc.from, tc.to)
		}
	}
}
