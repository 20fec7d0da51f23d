package web

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiter holds one token bucket per API key (docs/API.md#limits): perMinute requests a
// minute with bursts up to burst.
type limiter struct {
	perMinute int
	burst     int
	now       func() time.Time

	mu      sync.Mutex
	buckets map[int64]*bucket
	swept   time.Time

	// store, when set, is the bucket shared by every instance; leases holds this
	// instance's tokens taken from it, batch at a time.
	store  TokenStore
	leases map[int64]*lease
	batch  int
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

// decision is the outcome of one request against its key's bucket, with the values of
// the RateLimit-* headers.
type decision struct {
	ok         bool
	limit      int
	remaining  int
	reset      int
	retryAfter int
}

// keyEntry returns the entry of key in m, made by fresh when missing, and marks it seen
// at now. Once a minute it forgets the keys idle long enough for their buckets to have
// refilled. The caller holds the limiter's lock.
func keyEntry[V interface{ lastSeen() *time.Time }](m map[int64]V, swept *time.Time, key int64, now time.Time, fresh func() V) V {
	if now.Sub(*swept) > time.Minute {
		for k, v := range m {
			if now.Sub(*v.lastSeen()) > 2*time.Minute {
				delete(m, k)
			}
		}
		*swept = now
	}
	v, ok := m[key]
	if !ok {
		v = fresh()
		m[key] = v
	}
	*v.lastSeen() = now
	return v
}

func (b *bucket) lastSeen() *time.Time { return &b.seen }
func (le *lease) lastSeen() *time.Time { return &le.seen }

func newLimiter(perMinute, burst int, now func() time.Time) *limiter {
	if burst <= 0 {
		burst = 1
	}
	return &limiter{perMinute: perMinute, burst: burst, now: now, buckets: map[int64]*bucket{}}
}

func (l *limiter) allow(key int64) decision {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := keyEntry(l.buckets, &l.swept, key, now, func() *bucket {
		return &bucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMinute)/60), l.burst)}
	})
	perSec := float64(l.perMinute) / 60
	d := decision{limit: l.perMinute, ok: b.lim.AllowN(now, 1)}
	tokens := b.lim.TokensAt(now)
	d.remaining = max(0, int(math.Floor(tokens)))
	d.reset = int(math.Ceil((float64(l.burst) - tokens) / perSec))
	if !d.ok {
		d.retryAfter = max(1, int(math.Ceil((1-tokens)/perSec)))
	}
	return d
}

// touchThrottle remembers when each key's use was last written, so that the write
// happens at most once a minute per key and instance.
type touchThrottle struct {
	mu   sync.Mutex
	last map[int64]time.Time
	now  func() time.Time
}

func (t *touchThrottle) due(key int64) bool {
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.last == nil {
		t.last = map[int64]time.Time{}
	}
	if now.Sub(t.last[key]) < time.Minute {
		return false
	}
	if len(t.last) > 100_000 {
		t.last = map[int64]time.Time{}
	}
	t.last[key] = now
	return true
}

// TokenStore is one token bucket per API key kept where every instance of the program
// sees it (the database), so that a key's limit holds across instances.
type TokenStore interface {
	// TakeTokens refills key's bucket (perMinute a minute, at most burst) up to now and
	// takes up to want tokens from it, fewer when it holds few. It returns how many it
	// took and how many are left.
	TakeTokens(ctx context.Context, key int64, want, perMinute, burst int, now time.Time) (taken int, left float64, err error)
}

// leaseTTL is how long an instance keeps tokens it took from the shared bucket and has
// not used: a key whose traffic moved to other instances does not hold them longer.
const leaseTTL = 10 * time.Second

// lease is an instance's share of one key's shared bucket.
type lease struct {
	mu     sync.Mutex
	tokens int       // taken from the shared bucket, not used yet
	at     time.Time // when they were taken
	left   float64   // what the shared bucket held then
	// empty is when the shared bucket will next hold a token, after a take that got none:
	// until then requests are refused here, without asking the database.
	empty time.Time
	seen  time.Time
}

// useShared makes l take its tokens from store in batches: most requests are decided
// in memory, one in batch asks the database.
func (l *limiter) useShared(store TokenStore) {
	l.store = store
	l.leases = map[int64]*lease{}
	// A batch is a tenth of a second's worth of requests, at most a quarter of the burst.
	l.batch = max(1, min(l.burst/4, int(math.Ceil(float64(l.perMinute)/600))))
}

// take decides one request of key: against the shared bucket when there is one,
// else against this instance's bucket. An error of the shared bucket lets the request
// through (the request needs the database anyway) and is returned for the log.
func (l *limiter) take(ctx context.Context, key int64) (decision, error) {
	if l.store == nil {
		return l.allow(key), nil
	}
	now := l.now()
	l.mu.Lock()
	le := keyEntry(l.leases, &l.swept, key, now, func() *lease { return &lease{left: float64(l.burst), at: now} })
	l.mu.Unlock()

	// One take at a time per key and instance; other keys go on.
	le.mu.Lock()
	defer le.mu.Unlock()
	perSec := float64(l.perMinute) / 60
	if le.tokens > 0 && now.Sub(le.at) > leaseTTL {
		le.tokens = 0
	}
	var err error
	if le.tokens == 0 && !now.Before(le.empty) {
		var taken int
		var left float64
		taken, left, err = l.store.TakeTokens(ctx, key, l.batch, l.perMinute, l.burst, now)
		if err != nil {
			return decision{ok: true, limit: l.perMinute, remaining: int(math.Floor(le.left))}, err
		}
		le.tokens, le.at, le.left = taken, now, left
		if taken == 0 {
			le.empty = now.Add(time.Duration((1 - left) / perSec * float64(time.Second)))
		}
	}
	d := decision{limit: l.perMinute}
	if le.tokens > 0 {
		le.tokens--
		d.ok = true
	}
	shared := min(float64(l.burst), le.left+now.Sub(le.at).Seconds()*perSec)
	tokens := min(float64(l.burst), float64(le.tokens)+shared)
	d.remaining = max(0, int(math.Floor(tokens)))
	d.reset = max(0, int(math.Ceil((float64(l.burst)-tokens)/perSec)))
	if !d.ok {
		d.retryAfter = max(1, int(math.Ceil((1-shared)/perSec)))
	}
	return d, nil
}
