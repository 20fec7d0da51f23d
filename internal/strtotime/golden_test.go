package strtotime

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// goldenCase is one line of testdata/golden.tsv, produced by real PHP 8.2
// through testdata/gen.php.
type goldenCase struct {
	line   int
	area   string
	zone   string
	base   int64
	input  string
	result string // unix seconds or "false"
}

func loadGolden(t testing.TB) []goldenCase {
	t.Helper()
	path := "testdata/golden.tsv"
	if p := os.Getenv("STRTOTIME_GOLDEN"); p != "" {
		path = p // e.g. a held-out corpus made by testdata/gen.php
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []goldenCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("golden.tsv:%d: want 5 fields, got %d", n, len(f))
		}
		base, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			t.Fatalf("golden.tsv:%d: %v", n, err)
		}
		var in string
		if err := json.Unmarshal([]byte(f[3]), &in); err != nil {
			t.Fatalf("golden.tsv:%d: %v", n, err)
		}
		cases = append(cases, goldenCase{n, f[0], f[1], base, in, f[4]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestGolden checks every line of the golden file: Parse must give the
// same instant as PHP, or fail exactly where PHP returned false.
func TestGolden(t *testing.T) {
	cases := loadGolden(t)
	locs := map[string]*time.Location{}
	type tally struct{ total, ok int }
	areas := map[string]*tally{}
	failures := 0
	for _, c := range cases {
		loc, ok := locs[c.zone]
		if !ok {
			var err error
			if loc, err = time.LoadLocation(c.zone); err != nil {
				t.Fatal(err)
			}
			locs[c.zone] = loc
		}
		a := areas[c.area]
		if a == nil {
			a = &tally{}
			areas[c.area] = a
		}
		a.total++
		got := "false"
		if r, err := Parse(c.input, time.Unix(c.base, 0).In(loc)); err == nil {
			got = strconv.FormatInt(r.Unix(), 10)
		}
		if got == c.result {
			a.ok++
			continue
		}
		failures++
		if failures <= 200 {
			t.Errorf("golden.tsv:%d [%s] %q zone=%s base=%d: got %s, PHP %s",
				c.line, c.area, c.input, c.zone, c.base, got, c.result)
		}
	}
	names := make([]string, 0, len(areas))
	for k := range areas {
		names = append(names, k)
	}
	sort.Strings(names)
	var sb strings.Builder
	total, ok := 0, 0
	for _, k := range names {
		fmt.Fprintf(&sb, "  %-10s %5d/%5d\n", k, areas[k].ok, areas[k].total)
		total += areas[k].total
		ok += areas[k].ok
	}
	t.Logf("golden agreement per area:\n%s  %-10s %5d/%5d (%.2f%%)", sb.String(), "all", ok, total, 100*float64(ok)/float64(total))
	if failures > 0 {
		t.Errorf("%d of %d golden cases disagree with PHP", failures, total)
	}
}
