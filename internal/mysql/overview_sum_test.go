package mysql

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDecimalSum_Exact: sums of DECIMAL texts equal big.Rat sums, in ten-thousandths and
// past what an int64 holds, with subtractions.
func TestDecimalSum_Exact(t *testing.T) {
	texts := []string{"0.0000", "12.3400", "-5.0001", "7", "0.5", "-0.25", "99999999999999.9999",
		"123456789012345678901234.5678", "-123456789012345678901234.5678", "0.12345", "1e3",
		strconv.FormatInt(math.MaxInt64/10000, 10) + ".9999"}
	var s decimalSum
	want := new(big.Rat)
	for round := range 3000 {
		text := texts[round%len(texts)]
		sign := int64(1)
		if round%7 == 3 {
			sign = -1
		}
		r, ok := new(big.Rat).SetString(text)
		if !ok {
			t.Fatalf("bad test text %q", text)
		}
		if err := s.add([]byte(text), sign); err != nil {
			t.Fatalf("add(%q): %v", text, err)
		}
		if sign < 0 {
			r.Neg(r)
		}
		want.Add(want, r)
		if got := s.rat(); got.Cmp(want) != 0 {
			t.Fatalf("after %d adds (%q): got %s, want %s", round+1, text, got.FloatString(5), want.FloatString(5))
		}
	}
	if err := s.add([]byte("12.x"), 1); err == nil {
		t.Errorf("add(12.x): got no error, want one")
	}
}

func TestDecimalUnits(t *testing.T) {
	for text, want := range map[string]int64{"0": 0, "1.5": 15000, "-1.5": -15000, "12.3456": 123456, "0.0001": 1, "-0.0000": 0} {
		got, ok := decimalUnits([]byte(text))
		if !ok || got != want {
			t.Errorf("decimalUnits(%q): got %d, %v, want %d, true", text, got, ok, want)
		}
	}
	for _, text := range []string{"", "-", ".5", "1.23456", "1,5", "123456789012345.0", "1e3", "+1"} {
		if _, ok := decimalUnits([]byte(text)); ok {
			t.Errorf("decimalUnits(%q): got ok, want not ok", text)
		}
	}
}

// TestSpan_MonthParts: a part of a month at either end longer than half of it is read
// as the whole month less its other days; a shorter one as its days.
func TestSpan_MonthParts(t *testing.T) {
	d := func(s string) time.Time {
		v, err := time.ParseInLocation(time.DateOnly, s, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	f := func(a, b time.Time) string { return a.Format(time.DateOnly) + ".." + b.Format(time.DateOnly) }
	for _, tc := range []struct {
		first, end string
		months     string
		days       []string
	}{
		{"2026-01-03", "2026-04-27", "2026-01-01..2026-05-01", []string{"-2026-01-01..2026-01-03", "-2026-04-27..2026-05-01"}},
		{"2026-01-26", "2026-04-04", "2026-02-01..2026-04-01", []string{"+2026-01-26..2026-02-01", "+2026-04-01..2026-04-04"}},
		{"2026-01-03", "2026-04-04", "2026-01-01..2026-04-01", []string{"-2026-01-01..2026-01-03", "+2026-04-01..2026-04-04"}},
		{"2026-01-26", "2026-04-27", "2026-02-01..2026-05-01", []string{"+2026-01-26..2026-02-01", "-2026-04-27..2026-05-01"}},
		{"2026-01-01", "2026-03-01", "2026-01-01..2026-03-01", nil},
		{"2026-01-10", "2026-02-20", "2026-01-01..2026-03-01", []string{"-2026-01-01..2026-01-10", "-2026-02-20..2026-03-01"}},
		{"2026-01-03", "2026-01-29", "", []string{"+2026-01-03..2026-01-29"}},
	} {
		first, end, days := span{firstDay: d(tc.first), endDay: d(tc.end)}.monthParts()
		months := ""
		if first.Before(end) {
			months = f(first, end)
		}
		var got []string
		for _, p := range days {
			sign := "+"
			if p.sign < 0 {
				sign = "-"
			}
			got = append(got, sign+f(p.from, p.to))
		}
		if months != tc.months || strings.Join(got, " ") != strings.Join(tc.days, " ") {
			t.Errorf("%s..%s: got months %q, days %v; want %q, %v", tc.first, tc.end, months, got, tc.months, tc.days)
		}
	}
}
