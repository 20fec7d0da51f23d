package web_test

import (
	"database/sql"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"storefront/internal/mysql"
	"storefront/web"
)

// TestAPI_RateLimitStoreUnreachable: when the database that holds the shared rate-limit
// buckets cannot be reached, each request is let through and logged (docs/SCALING.md,
// "Shared rate limit with leased tokens"), here past the limit: the keys and purchases
// live in a database that answers, the buckets in one nobody listens for.
func TestAPI_RateLimitStoreUnreachable(t *testing.T) {
	e := newAPI(t, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	conn, err := sql.Open("mysql", "root@tcp("+addr+")/storefront?timeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	var log syncBuffer
	s := &web.Server{Purchases: mysql.NewPurchaseService(e.db), Writer: mysql.NewPurchaseService(e.db), Subscribers: mysql.NewSubscriberService(e.db), Keys: mysql.NewAPIKeyService(e.db), Accounts: mysql.NewAccountService(e.db), Users: mysql.NewUserService(e.db), Admin: mysql.NewAdminService(e.db), Overview: mysql.NewOverviewService(e.db), Views: mysql.NewSavedViewService(e.db), Jobs: mysql.NewJobService(e.db),
		Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelWarn})), BaseURL: "http://shop.test",
		RateLimit: 3, RateStore: mysql.NewRateStore(&mysql.DB{DB: conn, Now: e.clock.now}), Now: e.clock.now, SignInStore: mysql.NewSignInStore(e.db)}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)

	const requests = 6 // twice the limit
	for i := range requests {
		req, _ := http.NewRequest("GET", hs.URL+"/api/v2/purchases?per_page=1", nil)
		req.Header.Set("Authorization", "Bearer "+e.ro)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("RateLimit-Limit") != "3" {
			t.Fatalf("request %d: %d with RateLimit-Limit %q, want 200 with 3: %s", i+1, res.StatusCode, res.Header.Get("RateLimit-Limit"), body)
		}
	}
	if n := strings.Count(log.String(), "shared rate limit unavailable; request let through"); n != requests {
		t.Errorf("%d requests logged as let through, want %d:\n%s", n, requests, log.String())
	}
}
