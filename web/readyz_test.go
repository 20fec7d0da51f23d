package web_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestReadyz(t *testing.T) {
	e := newAPI(t, 0)
	probe := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := probe("/readyz"); code != 200 || body != "ready\n" {
		t.Fatalf("a migrated database that answers: %d %q", code, body)
	}
	e.notReady.Store(errors.New("database does not answer: connection refused"))
	if code, body := probe("/readyz"); code != 503 || !strings.Contains(body, "database does not answer") {
		t.Errorf("a database that does not answer: %d %q", code, body)
	}
	// Liveness does not depend on the database.
	if code, _ := probe("/healthz"); code != 200 {
		t.Errorf("/healthz: %d", code)
	}
	e.notReady.Store(errors.New(""))
	e.server.Drain()
	if code, body := probe("/readyz"); code != 503 || !strings.Contains(body, "draining") {
		t.Errorf("draining: %d %q", code, body)
	}
	if code, _ := probe("/healthz"); code != 200 {
		t.Errorf("/healthz while draining: %d", code)
	}
}
