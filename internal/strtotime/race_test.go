package strtotime

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestConcurrentParse parses every golden input, in its zone, from several
// goroutines at once and requires each result to equal the one parsed alone for
// the same input and reference time. The goroutines start on empty caches, so
// that they fill the shared scanner automaton and the zone caches together; CI
// runs it under -race.
func TestConcurrentParse(t *testing.T) {
	cases := loadGolden(t)
	locs := map[string]*time.Location{}
	refs := make([]time.Time, len(cases))
	for i, c := range cases {
		loc, ok := locs[c.zone]
		if !ok {
			var err error
			if loc, err = time.LoadLocation(c.zone); err != nil {
				t.Fatal(err)
			}
			locs[c.zone] = loc
		}
		refs[i] = time.Unix(c.base, 0).In(loc)
	}
	// result is one parse as a comparable string: the instant with its zone, or
	// the error.
	result := func(i int) string {
		r, err := Parse(cases[i].input, refs[i])
		if err != nil {
			return "error: " + err.Error()
		}
		return r.Format(time.RFC3339) + " " + r.Location().String()
	}
	alone := make([]string, len(cases))
	for i := range cases {
		alone[i] = result(i)
	}

	// Empty caches: a fresh scanner automaton (its states are built lazily) and
	// no zone looked up yet.
	tokenizer()
	scannerDFA = newLazyDFA(grammar())
	locCache.Clear()
	posixCache.Clear()

	// Each goroutine parses every case, starting at its own offset, so that the
	// same inputs are parsed at the same time by different goroutines.
	const goroutines = 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	var diffs []string
	mismatches := 0
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range cases {
				i := (k + g*len(cases)/goroutines) % len(cases)
				if got := result(i); got != alone[i] {
					mu.Lock()
					mismatches++
					if len(diffs) < 20 {
						diffs = append(diffs, fmt.Sprintf("golden.tsv:%d %q at %s: concurrently %s, alone %s",
							cases[i].line, cases[i].input, refs[i].Format(time.RFC3339), got, alone[i]))
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, d := range diffs {
		t.Error(d)
	}
	if mismatches > 0 {
		t.Errorf("%d concurrent parses differ from the same parse alone", mismatches)
	}
	t.Logf("%d inputs parsed by %d goroutines at once, each equal to the parse alone", len(cases), goroutines)
}
