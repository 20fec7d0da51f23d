package web

import (
	"context"
	"strconv"
	"testing"
	"time"

	"storefront/internal/shop"
)

// stubKeys knows one key, "live", and counts the questions it is asked. during, when
// set, runs in the middle of a question, as if while the database answers.
type stubKeys struct {
	asked  int
	during func()
}

func (s *stubKeys) AuthenticateAPIKey(_ context.Context, secret string) (*shop.APIKey, error) {
	s.asked++
	if s.during != nil {
		s.during()
	}
	if secret == "live" {
		return &shop.APIKey{ID: 7, AccountID: 1, Scope: shop.ScopeRead, APIUsername: "shop"}, nil
	}
	return nil, shop.Errorf(shop.EUnauthenticated, "The API key is not valid.")
}

func (s *stubKeys) TouchAPIKey(context.Context, int64, int64) error { return nil }

func TestKeyCache_Bounded(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	c := newKeyCache(KeyCacheTTL, func() time.Time { return now })
	keys := &stubKeys{}
	if _, err := c.authenticate(ctx, keys, "live"); err != nil {
		t.Fatal(err)
	}
	// Made-up keys by the thousand: memory stays bounded, and the live key is still
	// answered from memory.
	for i := range 3 * unknownKeyCacheSize {
		if _, err := c.authenticate(ctx, keys, "sfk_guess_"+strconv.Itoa(i)); shop.ErrorCode(err) != shop.EUnauthenticated {
			t.Fatalf("guess %d: got %v, want EUnauthenticated", i, err)
		}
	}
	if n := c.unknown.Len(); n > unknownKeyCacheSize {
		t.Fatalf("unknown keys kept: got %d, want at most %d", n, unknownKeyCacheSize)
	}
	asked := keys.asked
	if k, err := c.authenticate(ctx, keys, "live"); err != nil || k.ID != 7 {
		t.Fatalf("live key after the guesses: got %v, %v", k, err)
	}
	if keys.asked != asked {
		t.Fatal("made-up keys evicted the live key from the cache")
	}
	// Live keys are bounded too.
	for i := range keyCacheSize + 10 {
		c.known.Add([32]byte{byte(i), byte(i >> 8), byte(i >> 16)}, cachedKey{at: now})
	}
	if n := c.known.Len(); n > keyCacheSize {
		t.Fatalf("live keys kept: got %d, want at most %d", n, keyCacheSize)
	}
}

func TestKeyCache_Forget(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	c := newKeyCache(KeyCacheTTL, func() time.Time { return now })
	keys := &stubKeys{}
	ask := func() {
		t.Helper()
		if _, err := c.authenticate(ctx, keys, "live"); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("Cached", func(t *testing.T) {
		ask()
		ask()
		if keys.asked != 1 {
			t.Fatalf("asked %d times, want 1", keys.asked)
		}
		c.forget(7)
		ask()
		if keys.asked != 2 {
			t.Fatalf("after forget: asked %d times, want 2", keys.asked)
		}
	})

	t.Run("DuringARead", func(t *testing.T) {
		// A revocation on this instance while another request reads the key (before
		// the revocation's commit) must not leave the key cached.
		c.forget(7)
		keys.asked = 0
		keys.during = func() { c.forget(7) }
		ask()
		keys.during = nil
		ask()
		if keys.asked != 2 {
			t.Fatalf("asked %d times, want 2: a read that overlapped forget cached the key", keys.asked)
		}
	})
}
