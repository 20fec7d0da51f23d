package mysql

import "testing"

func TestGTIDPos(t *testing.T) {
	p := parseGTIDPos("0-1-57,1-2-9")
	if got := p.String(); got != "0-1-57,1-2-9" {
		t.Fatalf("String: got %q, want %q", got, "0-1-57,1-2-9")
	}
	for _, tc := range []struct {
		applied, want string
		covers        bool
	}{
		{"0-1-57", "0-1-57", true},
		{"0-1-58", "0-1-57", true},
		{"0-1-56", "0-1-57", false},
		{"0-1-57", "0-1-57,1-2-1", false},
		{"0-1-57,1-2-3", "1-2-3", true},
		{"", "", true},
		{"", "0-1-1", false},
		{"0-1-9", "garbage", true},
	} {
		if got := parseGTIDPos(tc.applied).covers(parseGTIDPos(tc.want)); got != tc.covers {
			t.Errorf("%q covers %q: got %v, want %v", tc.applied, tc.want, got, tc.covers)
		}
	}
	if got := parseGTIDPos("0-1-9,1-2-4").merge(parseGTIDPos("0-3-7,2-1-1")).String(); got != "0-1-9,1-2-4,2-1-1" {
		t.Fatalf("merge: got %q, want %q", got, "0-1-9,1-2-4,2-1-1")
	}
	for _, tc := range []struct {
		applied, primary string
		behind           uint64
	}{
		{"0-1-57", "0-1-57", 0}, {"0-1-50", "0-1-57", 7}, {"0-1-60", "0-1-57", 0},
		{"0-1-50", "0-1-57,1-2-3", 10}, {"", "0-1-4", 4}, {"0-1-4", "", 0},
	} {
		if got := parseGTIDPos(tc.applied).behind(parseGTIDPos(tc.primary)); got != tc.behind {
			t.Errorf("%q behind %q: got %d, want %d", tc.applied, tc.primary, got, tc.behind)
		}
	}
}
