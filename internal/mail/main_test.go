package mail_test

import (
	"sync"
	"testing"
	"time"

	"storefront/internal/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// clock is a settable clock for the tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }
