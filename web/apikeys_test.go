package web_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/web"
)

// TestAPIKeys_Cache checks that a key's requests do not each cost a database round
// trip, and that a revocation still takes effect within web.KeyCacheTTL.
func TestAPIKeys_Cache(t *testing.T) {
	e := newAPI(t, 0)
	ctx := context.Background()
	newKey := func(t *testing.T, account int64) string {
		t.Helper()
		k, err := mysql.NewAdminService(e.db).CreateAPIKey(ctx, account, t.Name(), shop.ScopeReadWrite)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	status := func(t *testing.T, auth string) int {
		t.Helper()
		return e.with(t).do("GET", "/api/v2/", "", nil, map[string]string{"Authorization": auth}).status
	}
	basic := func(user, key string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+key))
	}

	t.Run("OneReadPerTTL", func(t *testing.T) {
		key := newKey(t, e.id(1))
		before := e.keys.auths.Load()
		for i := range 10 {
			auth := "Bearer " + key
			if i%2 == 1 {
				auth = basic(e.user, key)
			}
			if got := status(t, auth); got != 200 {
				t.Fatalf("request %d: got %d, want 200", i, got)
			}
		}
		if n := e.keys.auths.Load() - before; n != 1 {
			t.Fatalf("10 requests within %v: %d database reads of the key, want 1", web.KeyCacheTTL, n)
		}
		// The cached key still belongs to its account's API user name only.
		if got := status(t, basic(e.user2, key)); got != http.StatusUnauthorized {
			t.Fatalf("cached key with another account's user name: got %d, want 401", got)
		}
		e.clock.advance(web.KeyCacheTTL)
		if got := status(t, "Bearer "+key); got != 200 {
			t.Fatalf("after %v: got %d, want 200", web.KeyCacheTTL, got)
		}
		if n := e.keys.auths.Load() - before; n != 2 {
			t.Fatalf("after %v: %d database reads of the key, want 2", web.KeyCacheTTL, n)
		}
	})

	t.Run("UnknownKeyReadOncePerTTL", func(t *testing.T) {
		before := e.keys.auths.Load()
		for i := range 5 {
			if got := status(t, "Bearer sfk_no_such_key"); got != http.StatusUnauthorized {
				t.Fatalf("request %d: got %d, want 401", i, got)
			}
		}
		if n := e.keys.auths.Load() - before; n != 1 {
			t.Fatalf("5 requests with one unknown key: %d database reads, want 1", n)
		}
	})

	t.Run("RevokedElsewhereWithinTTL", func(t *testing.T) {
		key := newKey(t, e.id(1))
		if got := status(t, "Bearer "+key); got != 200 {
			t.Fatalf("before revoking: got %d, want 200", got)
		}
		// Another instance revokes the key: this one learns it from the database
		// once its cached answer is KeyCacheTTL old.
		if _, err := e.db.Exec("UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND name = ?", now, e.id(1), t.Name()); err != nil {
			t.Fatal(err)
		}
		if got := status(t, "Bearer "+key); got != 200 {
			t.Fatalf("right after the revocation elsewhere: got %d, want 200 (from the cache)", got)
		}
		e.clock.advance(web.KeyCacheTTL - time.Millisecond)
		if got := status(t, "Bearer "+key); got != 200 {
			t.Fatalf("just before %v: got %d, want 200 (from the cache)", web.KeyCacheTTL, got)
		}
		e.clock.advance(time.Millisecond)
		if got := status(t, "Bearer "+key); got != http.StatusUnauthorized {
			t.Fatalf("%v after the revocation: got %d, want 401", web.KeyCacheTTL, got)
		}
	})

	t.Run("LastUseWrittenOncePerMinute", func(t *testing.T) {
		key := newKey(t, e.id(2))
		e.server.Wait()
		before := e.keys.touches.Load()
		for i := range 5 {
			if got := status(t, "Bearer "+key); got != 200 {
				t.Fatalf("request %d: got %d, want 200", i, got)
			}
		}
		e.server.Wait()
		if n := e.keys.touches.Load() - before; n != 1 {
			t.Fatalf("5 requests: last use written %d times, want 1", n)
		}
		lastUsed := func() time.Time {
			t.Helper()
			var at time.Time
			if err := e.db.QueryRow("SELECT last_used_at FROM api_keys WHERE account_id = ? AND name = ?", e.id(2), t.Name()).Scan(&at); err != nil {
				t.Fatal(err)
			}
			return at
		}
		first := lastUsed()
		e.clock.advance(time.Minute)
		if got := status(t, "Bearer "+key); got != 200 {
			t.Fatalf("a minute later: got %d, want 200", got)
		}
		e.server.Wait()
		if n := e.keys.touches.Load() - before; n != 2 {
			t.Fatalf("a minute later: last use written %d times, want 2", n)
		}
		if got := lastUsed(); !got.Equal(first.Add(time.Minute)) {
			t.Fatalf("last_used_at: got %v, want %v", got, first.Add(time.Minute))
		}
	})
}
