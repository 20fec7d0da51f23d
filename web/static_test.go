package web_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"storefront/web"
)

func TestStaticFiles(t *testing.T) {
	h := (&web.Server{}).Handler()
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec
	}
	t.Run("OK", func(t *testing.T) {
		if rec := get("/static/app.js"); rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "public, max-age=3600" {
			t.Fatalf("got %d %q, want 200 with long caching", rec.Code, rec.Header().Get("Cache-Control"))
		}
	})
	// Missing files, the package's Go source and the folder itself get the dashboard's
	// 404 page, not a listing or a bare text answer.
	for _, path := range []string{"/static/missing.css", "/static/static.go", "/static/", "/static/."} {
		t.Run("ErrNotFound "+path, func(t *testing.T) {
			rec := get(path)
			if rec.Code != http.StatusNotFound || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(rec.Body.String(), "There is no such file.") {
				t.Fatalf("got %d %q %s, want the 404 page", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
		})
	}
}
