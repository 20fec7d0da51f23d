package mysql

import (
	"database/sql"
	"slices"
	"strings"
	"testing"
)

func TestTotalBand(t *testing.T) {
	for _, tc := range []struct {
		x    string
		want int
	}{
		{"0", 0}, {"0.9999", 0}, {"-5", 0}, {"-0.5", 0}, {"000.5", 0},
		{"1", 11}, {"1.0000", 11}, {"0001.5", 11}, {"1.99999", 11}, {"2", 12}, {"9.9999", 19},
		{"10", 21}, {"19.99", 21}, {"20", 22}, {"99.9999", 29}, {"100", 31}, {"652.5", 36},
		{"999999999999999.9999", 159}, {strings.Repeat("9", 30), 309},
	} {
		if got := totalBand(tc.x); got != tc.want {
			t.Errorf("totalBand(%q): got %d, want %d", tc.x, got, tc.want)
		}
	}
}

// TestBandBounds: each band's least total is in it, the least total above it is in a
// greater band, and the band just below ends where it begins.
func TestBandBounds(t *testing.T) {
	lo0, hi0 := bandBounds(0)
	if lo0 != "" || hi0 != "1" {
		t.Errorf("band 0: got [%q, %q), want [\"\", \"1\")", lo0, hi0)
	}
	prevHi := hi0
	for d := 1; d <= 15; d++ {
		for f := 1; f <= 9; f++ {
			b := 10*d + f
			lo, hi := bandBounds(b)
			if got := totalBand(lo); got != b {
				t.Errorf("band %d: its least total %s is in band %d", b, lo, got)
			}
			if got := totalBand(hi); got <= b {
				t.Errorf("band %d: the total %s above it is in band %d", b, hi, got)
			}
			if lo != prevHi {
				t.Errorf("band %d begins at %s, the band below ends at %s", b, lo, prevHi)
			}
			prevHi = hi
		}
	}
}

func TestBandsBeyond(t *testing.T) {
	edge := func(b int64) sql.NullInt64 { return sql.NullInt64{Int64: b, Valid: true} }
	for _, tc := range []struct {
		name string
		own  int
		edge sql.NullInt64
		gt   bool
		want []int
	}{
		{"above, across a decade", 36, edge(41), true, []int{37, 38, 39, 41}},
		{"above, none", 41, edge(41), true, nil},
		{"below, down to band 0", 13, edge(0), false, []int{0, 11, 12}},
		{"below, from the edge", 36, edge(29), false, []int{29, 31, 32, 33, 34, 35}},
		{"no purchases", 36, sql.NullInt64{}, true, nil},
	} {
		if got := bandsBeyond(tc.own, tc.edge, tc.gt); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFarthestEdge: the plan's first statement probes the own band exactly when the
// edge it reads leaves at most maxBandBranches bands beyond the own band, as
// planBands then counts them (bandsBeyond).
func TestFarthestEdge(t *testing.T) {
	valid := func(b int) bool { return b == 0 || (b > 10 && b%10 != 0) }
	for own := 0; own <= 200; own++ {
		if !valid(own) {
			continue
		}
		for _, gt := range []bool{true, false} {
			farthest, limited := farthestEdge(own, gt)
			for edge := 0; edge <= 300; edge++ {
				if !valid(edge) {
					continue
				}
				probed := !limited || (gt && edge <= farthest) || (!gt && edge >= farthest)
				within := len(bandsBeyond(own, sql.NullInt64{Int64: int64(edge), Valid: true}, gt)) <= maxBandBranches
				if probed != within {
					t.Fatalf("own %d, gt %v, edge %d: probed %v (farthest %d, %v), bands within the limit %v", own, gt, edge, probed, farthest, limited, within)
				}
			}
		}
	}
}

func TestWalkBounded(t *testing.T) {
	for _, tc := range []struct {
		seen, matched int64
		need          int
		want          bool
	}{
		{bandWalkProbe, 101, 101, true},   // the page's matches in the probe's entries
		{bandWalkProbe, 100, 101, false},  // not: the walk may go on past them
		{bandWalkProbe - 1, 0, 101, true}, // the band's whole rest: the walk ends within it
		{bandWalkProbe, bandWalkProbe, 401, false},
	} {
		if got := walkBounded(tc.seen, tc.matched, tc.need); got != tc.want {
			t.Errorf("walkBounded(%d, %d, %d) = %v, want %v", tc.seen, tc.matched, tc.need, got, tc.want)
		}
	}
}
