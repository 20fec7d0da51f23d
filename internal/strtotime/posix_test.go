package strtotime

import (
	"testing"
	"time"
)

// TestPosixRules checks the POSIX TZ evaluation against Go's own zone
// rules in years where timelib's int truncation does not matter.
func TestPosixRules(t *testing.T) {
	for _, name := range []string{"America/New_York", "Australia/Adelaide", "Europe/London", "Australia/Lord_Howe", "America/Santiago", "Europe/Dublin"} {
		loc := mustLoad(t, name)
		r := zoneRule(loc)
		if r == nil {
			t.Logf("%s: no POSIX rule found (zone files not on disk?)", name)
			continue
		}
		for ts := int64(16725225600); ts < 16725225600+3*366*86400; ts += 3 * 3600 {
			off, tr, dst := r.fetch(ts)
			tt := time.Unix(ts, 0).In(loc)
			_, goOff := tt.Zone()
			// Go reports January 1st as the start of a period that began the
			// previous year, so only the offsets and DST flags are compared.
			if off != int64(goOff) || dst != tt.IsDST() || tr > ts {
				t.Fatalf("%s at %d: got (%d, %d, %v), Go says (%d, %v)", name, ts, off, tr, dst, goOff, tt.IsDST())
			}
		}
	}
}

func TestParsePosix(t *testing.T) {
	good := []string{"EST5EDT,M3.2.0,M11.1.0", "ACST-9:30ACDT,M10.1.0,M4.1.0/3", "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0",
		"IST-1GMT0,M10.5.0,M3.5.0/1", "<-04>4<-03>,M9.1.6/24,M4.1.6/24", "CET-1CEST,M3.5.0,M10.5.0/3", "JST-9", "<+01>-1",
		"XXX3YYY,J60/2,300/-1"}
	for _, s := range good {
		if _, ok := parsePosix(s); !ok {
			t.Errorf("parsePosix(%q) failed", s)
		}
	}
	for _, s := range []string{"", "E5", "EST5EDT,M13.1.0,M1.1.0", "EST5EDT,M3.2.0", "EST", "EST5EDT,M3.2.0,M11.1.0x"} {
		if _, ok := parsePosix(s); ok {
			t.Errorf("parsePosix(%q) succeeded", s)
		}
	}
}
