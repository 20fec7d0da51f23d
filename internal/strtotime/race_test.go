package strtotime

import (
	"sync"
	"testing"
	"time"
)

// TestConcurrentParse exercises the shared scanner cache from several
// goroutines (meaningful under -race).
func TestConcurrentParse(t *testing.T) {
	cases := loadGolden(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < len(cases); i += 4 {
				c := cases[i]
				Parse(c.input, time.Unix(c.base, 0).UTC()) //nolint:errcheck
			}
		}(g)
	}
	wg.Wait()
}
