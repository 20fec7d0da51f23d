package strtotime

import (
	"strings"
	"testing"
	"time"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestIssueExamples pins the PHP quirks the package must reproduce.
func TestIssueExamples(t *testing.T) {
	utc := time.UTC
	now := time.Date(2024, 3, 5, 12, 0, 0, 0, utc) // a Tuesday
	day := func(y int, m time.Month, d, h, i, s int) string {
		return time.Date(y, m, d, h, i, s, 0, utc).Format(time.RFC3339)
	}
	cases := []struct {
		in   string
		want string // RFC 3339 in UTC, or "false"
	}{
		{"noon tomorrow", day(2024, 3, 6, 0, 0, 0)},
		{"tomorrow noon", day(2024, 3, 6, 12, 0, 0)},
		{"5.3.2024", day(2024, 3, 5, 0, 0, 0)},
		{"5.3.24", day(2024, 3, 5, 5, 3, 24)},
		{"31/12/2024", "false"},
		{"2024", day(2024, 3, 5, 20, 24, 0)},
		{"-3 days ago", day(2024, 3, 8, 12, 0, 0)},
		{"Fri, 05 Mar 2024", day(2024, 3, 8, 0, 0, 0)},
		{"2023-02-29", day(2023, 3, 1, 0, 0, 0)},
		{"2023-13-01", "false"},
		{"@-1.5", day(1969, 12, 31, 23, 59, 58)},
		{"first monday of next month", day(2024, 4, 1, 0, 0, 0)},
		{"last day of feb", day(2024, 2, 29, 0, 0, 0)},
		{"2024W10", day(2024, 3, 4, 0, 0, 0)},
		{"2024-W10-2", day(2024, 3, 5, 0, 0, 0)},
		{"2024.065", day(2024, 3, 5, 0, 0, 0)},
		{"t1430", day(2024, 3, 5, 14, 30, 0)},
		{"back of 7pm", day(2024, 3, 5, 19, 15, 0)},
		{"front of 7", day(2024, 3, 5, 6, 45, 0)},
		{"+1 weekday", day(2024, 3, 6, 12, 0, 0)},
		{"1 fortnight", day(2024, 3, 19, 12, 0, 0)},
		{"GMT+2", day(2024, 3, 5, 10, 0, 0)},
		{"", "false"},
	}
	for _, c := range cases {
		got := "false"
		if r, err := Parse(c.in, now); err == nil {
			got = r.UTC().Format(time.RFC3339)
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

// TestDST checks how wall times in New York's DST gap and overlap resolve.
func TestDST(t *testing.T) {
	ny := mustLoad(t, "America/New_York")
	now := time.Date(2024, 3, 1, 12, 0, 0, 0, ny)
	cases := map[string]int64{
		"2024-03-10 02:30": 1710055800, // in the gap: moved forward by an hour
		"2024-11-03 01:30": 1730611800, // in the overlap: the first (EDT) one
	}
	for in, want := range cases {
		r, err := Parse(in, now)
		if err != nil || r.Unix() != want {
			t.Errorf("Parse(%q) = %v, %v; want %d", in, r.Unix(), err, want)
		}
	}
}

// TestResultLocation checks that the result is expressed in now's zone.
func TestResultLocation(t *testing.T) {
	kol := mustLoad(t, "Asia/Kolkata")
	r, err := Parse("tomorrow", time.Date(2024, 3, 5, 23, 0, 0, 0, kol))
	if err != nil {
		t.Fatal(err)
	}
	if r.Location() != kol || r.Hour() != 0 || r.Day() != 6 {
		t.Errorf("got %v", r)
	}
}

// TestLongInputs checks that long and repetitive inputs finish quickly.
func TestLongInputs(t *testing.T) {
	now := time.Unix(1709640000, 0).UTC()
	inputs := []string{
		strings.Repeat(" ", 1<<20),
		strings.Repeat("+", 1<<20),
		strings.Repeat("9", 1<<20),
		"@" + strings.Repeat("9", 1<<20),
		"Jan" + strings.Repeat(" .-", 1<<18) + "x",
		"2024" + strings.Repeat(". ", 1<<18),
		strings.Repeat("mon ", 1<<18),
		strings.Repeat("+1 day ", 1<<17),
		strings.Repeat("1 week ago ", 1<<16),
		strings.Repeat("first day of ", 1<<16),
		strings.Repeat("Jan 5 ", 1<<16),
	}
	for _, in := range inputs {
		start := time.Now()
		Parse(in, now) //nolint:errcheck // only termination and speed matter
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("input of %d bytes starting %q took %v", len(in), in[:8], d)
		}
	}
}

// FuzzParse checks that Parse never panics and returns quickly.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"now", "tomorrow noon", "@1.5", "2024-03-05T10:20:30.5+05:30", "last day of next month",
		"first monday of january 2025", "+1 week 2 days ago", "Fri, 05 Mar 2024 10:00:00 GMT",
		"10/Oct/2000:13:55:36 -0700", "2024W10-2", "99999999999999999999 days", "back of 7pm",
		"5.3.24", "Europe/Amsterdam", "1 µs", "\x00", "2024:03:05 10:20:30",
	} {
		f.Add(s, int64(1709640000), uint8(0))
	}
	zones := []*time.Location{time.UTC, mustLoad(f, "America/New_York"), mustLoad(f, "Asia/Kolkata"), mustLoad(f, "Australia/Adelaide")}
	f.Fuzz(func(t *testing.T, s string, base int64, zone uint8) {
		now := time.Unix(base, 0).In(zones[int(zone)%len(zones)])
		start := time.Now()
		r, err := Parse(s, now)
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Parse(%q) took %v", s, d)
		}
		if err == nil && r.Location() != now.Location() {
			t.Fatalf("Parse(%q) returned location %v", s, r.Location())
		}
	})
}

// benchInputs is a realistic mix of what an application passes to strtotime.
var benchInputs = []string{
	"now", "tomorrow", "+1 day", "-2 weeks", "next monday", "last day of next month",
	"2024-03-05", "2024-03-05 10:20:30", "2024-03-05T10:20:30+01:00", "Tue, 05 Mar 2024 10:20:30 GMT",
	"3/5/2024", "5.3.2024", "March 5, 2024", "10:30pm", "@1709640000", "first monday of january",
	"+1 month -1 day", "yesterday noon", "2024-03-05 10:00 America/New_York", "1 year ago",
}

// BenchmarkParse measures one parse of the realistic mix, per input.
func BenchmarkParse(b *testing.B) {
	now := time.Unix(1709640000, 0).In(mustLoad(b, "America/New_York"))
	for _, s := range benchInputs { // warm the scanner cache
		Parse(s, now) //nolint:errcheck
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Parse(benchInputs[i%len(benchInputs)], now) //nolint:errcheck
	}
}
