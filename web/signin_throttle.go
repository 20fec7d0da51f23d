package web

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
)

// (e-mail): after a few free tries each further failure doubles the wait, up to 15
// minutes. The counts live in store: the database's, which every instance sees, or
// this process's memory.
type loginThrottle struct {
	now   func() time.Time
	store shop.SignInThrottleStore
}

const (
	freeLoginFailures = 5
	maxLoginWait      = 15 * time.Minute
	// loginFailureMemory is how long a failure counts: a count whose last failure is
	// older starts again.
	loginFailureMemory = time.Hour
)

func (t *loginThrottle) keys(ip, email string) []string {
	return []string{"ip:" + ip, "email:" + strings.ToLower(email)}
}

// wait returns how long the next attempt must wait.
func (t *loginThrottle) wait(ctx context.Context, ip, email string) (time.Duration, error) {
	now := t.now()
	fails, err := t.store.SignInFailures(ctx, t.keys(ip, email), now.Add(-loginFailureMemory))
	if err != nil {
		return 0, err
	}
	var longest time.Duration
	for _, f := range fails {
		if f.Count < freeLoginFailures {
			continue
		}
		d := min(time.Second<<min(f.Count-freeLoginFailures, 10), maxLoginWait)
		if left := f.Last.Add(d).Sub(now); left > longest {
			longest = left
		}
	}
	return longest, nil
}

// fail counts a failed attempt.
func (t *loginThrottle) fail(ctx context.Context, ip, email string) error {
	now := t.now()
	return t.store.AddSignInFailure(ctx, t.keys(ip, email), now, now.Add(-loginFailureMemory))
}

// succeed forgets the account's failures (the address's stay: one right password
// does not license guessing at other accounts).
func (t *loginThrottle) succeed(ctx context.Context, email string) error {
	return t.store.ClearSignInFailures(ctx, "email:"+strings.ToLower(email))
}

// retryAfter sets the Retry-After header of a refused attempt and returns its whole
// seconds.
func retryAfter(c *gin.Context, wait time.Duration) int {
	secs := int(math.Ceil(wait.Seconds()))
	c.Header("Retry-After", strconv.Itoa(secs))
	return secs
}

// memorySignInStore is a shop.SignInThrottleStore in this process, for a Server
// without a SignInStore.
type memorySignInStore struct {
	mu    sync.Mutex
	fails map[string]shop.SignInFailures
}

func (m *memorySignInStore) SignInFailures(_ context.Context, keys []string, since time.Time) (map[string]shop.SignInFailures, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]shop.SignInFailures{}
	for _, k := range keys {
		if f, ok := m.fails[k]; ok && !f.Last.Before(since) {
			out[k] = f
		}
	}
	return out, nil
}

func (m *memorySignInStore) AddSignInFailure(_ context.Context, keys []string, now, restart time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fails == nil || len(m.fails) > 100_000 {
		m.fails = map[string]shop.SignInFailures{}
	}
	for _, k := range keys {
		f := m.fails[k]
		if f.Last.Before(restart) {
			f.Count = 0
		}
		f.Count++
		f.Last = now
		m.fails[k] = f
	}
	return nil
}

func (m *memorySignInStore) ClearSignInFailures(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.fails, key)
	return nil
}
