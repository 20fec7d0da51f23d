package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/internal/webhook"
)

// lineBuffer keeps every line the test servers log.
type lineBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lineBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines returns the lines logged so far, each parsed.
func (b *lineBuffer) lines(t testing.TB) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, l := range bytes.Split(b.buf.Bytes(), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("a log line is not JSON: %q", l)
		}
		out = append(out, m)
	}
	return out
}

var serverLines lineBuffer

// secretPatterns are what must never be logged: API keys, webhook endpoint secrets,
// session cookies, the passwords the tests sign in with, and credentials by name.
var secretPatterns = regexp.MustCompile(`sfk_[A-Za-z0-9_]{6,}|` + webhook.SecretPrefix + `[0-9a-f]{8,}|storefront_session=|` +
	regexp.QuoteMeta(dashPassword) + `|(?i)"(password|authorization|cookie|secret)":`)

// secretLines returns the lines of log that hold a secret.
func secretLines(log []byte) []string {
	var bad []string
	for _, l := range strings.Split(string(log), "\n") {
		if secretPatterns.MatchString(l) {
			bad = append(bad, l)
		}
	}
	return bad
}

// checkServerLog fails the package's tests when any line the servers logged holds a
// secret.
func checkServerLog() error {
	serverLines.mu.Lock()
	defer serverLines.mu.Unlock()
	if bad := secretLines(serverLines.buf.Bytes()); len(bad) > 0 {
		return fmt.Errorf("the test servers logged %d lines with secrets, e.g. %s", len(bad), bad[0])
	}
	return nil
}

func TestSecretPatterns(t *testing.T) {
	for _, l := range []string{
		`{"msg":"x","key":"sfk_0123456789abcdef"}`, `{"msg":"x","v":"whsec_0123456789abcdef"}`,
		`{"msg":"x","h":"storefront_session=MTIz"}`, `{"msg":"x","v":"` + dashPassword + `"}`, `{"msg":"x","Authorization":"Basic eA=="}`,
	} {
		if len(secretLines([]byte(l))) != 1 {
			t.Errorf("the check misses the secret in %s", l)
		}
	}
	if bad := secretLines([]byte(`{"msg":"request","request_id":"abc","route":"/api/v2/purchases/:id","status":200,"account_id":1}`)); len(bad) != 0 {
		t.Errorf("an access line is taken for a secret: %q", bad)
	}
}

// accessLine finds the access line of the request with id rid. The line is written
// once the answer is, so the client may read the answer first: it is looked for again
// for a while (a loaded machine, a vtgate behind the server).
func accessLine(t *testing.T, rid string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		for _, l := range serverLines.lines(t) {
			if l["msg"] == "request" && l["request_id"] == rid {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access line for request %s", rid)
			return nil
		}
	}
}

func TestAccessLog(t *testing.T) {
	e := newAPI(t, 0)
	get := func(path, key, rid string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, e.url+path, nil)
		req.Header.Set("X-Request-Id", rid)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	var id string
	if err := e.db.QueryRow("SELECT id FROM purchases WHERE account_id = ? ORDER BY id LIMIT 1", e.id(1)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	get("/api/v2/purchases/"+id, e.ro, "access-one")
	l := accessLine(t, "access-one")
	if l["route"] != "/api/v2/purchases/:id" || l["method"] != "GET" || l["status"] != 200.0 || l["account_id"] != float64(e.id(1)) || l["bytes"].(float64) < 100 {
		t.Errorf("access line of GET one purchase: %v", l)
	}
	if _, ok := l["duration"]; !ok {
		t.Errorf("access line without duration: %v", l)
	}
	get("/api/v2/purchases/"+id, e.other, "access-other")
	if l := accessLine(t, "access-other"); l["status"] != 404.0 || l["account_id"] != float64(e.id(2)) {
		t.Errorf("access line of another account's purchase: %v", l)
	}
	get("/api/v2/purchases", "sfk_wrong_key_0123456789", "access-unauth")
	if l := accessLine(t, "access-unauth"); l["status"] != 401.0 || l["account_id"] != 0.0 || l["route"] != "/api/v2/purchases" {
		t.Errorf("access line of a refused key: %v", l)
	}
	// A path no route matches is named by no raw path.
	get("/no/such/"+url.PathEscape("someone@example.com"), "", "access-none")
	if l := accessLine(t, "access-none"); l["route"] != "unmatched" || l["status"] != 404.0 {
		t.Errorf("access line of an unknown path: %v", l)
	}

	// Signed in on the dashboard: the user's account; the password, the cookie and a
	// new webhook's secret are in no line.
	u := e.with(t).signIn(e.id(2), "owner")
	req, _ := http.NewRequest(http.MethodGet, e.url+"/purchases/"+id, nil)
	req.Header.Set("X-Request-Id", "access-dash")
	u.do(req)
	if l := accessLine(t, "access-dash"); l["route"] != "/purchases/:id" || l["account_id"] != float64(e.id(2)) || l["status"] != 404.0 {
		t.Errorf("access line of a dashboard page: %v", l)
	}
	u.post("/webhooks", url.Values{"url": {"https://hooks.example.com/x"}})
	if err := checkServerLog(); err != nil {
		t.Error(err)
	}
}
