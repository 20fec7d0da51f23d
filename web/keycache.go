package web

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"storefront/internal/shop"
)

// KeyCacheTTL is how long an instance trusts what it read about an API key before it
// asks the database again. It bounds revocation: a key revoked on one instance is
// refused there at once and by every other instance at most KeyCacheTTL after the
// revocation was committed (docs/SCALING.md, "API keys").
const KeyCacheTTL = 5 * time.Second

// Sizes of the key cache. A cached key costs a few hundred bytes, so the cache stays
// within a few megabytes however many keys, real or made up, are sent.
const (
	keyCacheSize        = 10_000
	unknownKeyCacheSize = 10_000
)

// keyCache keeps what AuthenticateAPIKey answered for a secret, keyed by the secret's
// SHA-256 (never the secret itself), so that a key's requests do not each cost a
// database round trip. Live keys and unknown secrets are kept apart, each in a bounded
// LRU: secrets made up by the thousand evict only each other, never a live key.
type keyCache struct {
	ttl time.Duration
	now func() time.Time

	known   *lru.Cache[[sha256.Size]byte, cachedKey]
	unknown *lru.Cache[[sha256.Size]byte, time.Time]

	// mu orders adding a live key against forget: gen counts forgets, so that a read
	// that started before a revocation does not put the revoked key back.
	mu  sync.Mutex
	gen uint64
}

// cachedKey is a live key and when the read that found it started.
type cachedKey struct {
	key shop.APIKey
	at  time.Time
}

func newKeyCache(ttl time.Duration, now func() time.Time) *keyCache {
	known, err := lru.New[[sha256.Size]byte, cachedKey](keyCacheSize)
	if err != nil {
		panic(err) // only for a size <= 0
	}
	unknown, err := lru.New[[sha256.Size]byte, time.Time](unknownKeyCacheSize)
	if err != nil {
		panic(err)
	}
	return &keyCache{ttl: ttl, now: now, known: known, unknown: unknown}
}

// authenticate answers what keys.AuthenticateAPIKey answers for secret, from memory
// when it was asked less than ttl ago. Errors other than EUnauthenticated (the
// database is down) are not kept.
func (c *keyCache) authenticate(ctx context.Context, keys shop.APIKeyService, secret string) (*shop.APIKey, error) {
	h := sha256.Sum256([]byte(secret))
	// The entry's age counts from before the read, so that it never outlives a
	// revocation committed while the read was under way by more than ttl.
	now := c.now()
	if e, ok := c.known.Get(h); ok {
		if now.Sub(e.at) < c.ttl {
			k := e.key
			return &k, nil
		}
		c.known.Remove(h)
	}
	if at, ok := c.unknown.Get(h); ok {
		if now.Sub(at) < c.ttl {
			return nil, shop.Errorf(shop.EUnauthenticated, "The API key is not valid.")
		}
		c.unknown.Remove(h)
	}
	c.mu.Lock()
	gen := c.gen
	c.mu.Unlock()
	key, err := keys.AuthenticateAPIKey(ctx, secret)
	switch {
	case err == nil:
		c.mu.Lock()
		if c.gen == gen {
			c.known.Add(h, cachedKey{key: *key, at: now})
		}
		c.mu.Unlock()
	case shop.ErrorCode(err) == shop.EUnauthenticated:
		// A secret unknown now stays unknown: new keys are random, never one that
		// was tried before.
		c.unknown.Add(h, now)
	}
	return key, err
}

// forget drops the key from this instance's cache at once, for its revocation.
func (c *keyCache) forget(keyID int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for _, h := range c.known.Keys() {
		if e, ok := c.known.Peek(h); ok && e.key.ID == keyID {
			c.known.Remove(h)
		}
	}
}
