package scale

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/webhook"
)

// hookSink is a webhook receiver for the cluster: it checks each signature with its own
// HMAC code and counts what it accepted by event id.
type hookSink struct {
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	got    map[string]int
	bad    int
}

func startHookSink(t *testing.T) *hookSink {
	h := &hookSink{got: map[string]int{}}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		defer h.mu.Unlock()
		ts, sig, _ := strings.Cut(strings.TrimPrefix(r.Header.Get("Storefront-Signature"), "t="), ",v1=")
		m := hmac.New(sha256.New, []byte(h.secret))
		m.Write([]byte(ts + "."))
		m.Write(body)
		var e struct {
			ID string `json:"id"`
		}
		if !hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(sig)) || json.Unmarshal(body, &e) != nil || e.ID == "" {
			h.bad++
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		h.got[e.ID]++
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// subscribe gives the account an endpoint at the sink, before the instances start.
func (h *hookSink) subscribe(t *testing.T, db *mysql.DB, account int64) {
	t.Helper()
	db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	_, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(context.Background(), account, h.srv.URL+"/hooks", nil)
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	h.secret = secret
	h.mu.Unlock()
}

// deliveredOnce waits for every event of the account to arrive, and checks that each
// arrived once, with one logged attempt, whichever instance delivered it.
func (h *hookSink) deliveredOnce(t *testing.T, c *cluster, account int64) {
	t.Helper()
	var events, pending, attempts int
	count := func() {
		t.Helper()
		if err := c.pdb.QueryRow(`SELECT COUNT(*), (SELECT COUNT(*) FROM webhook_deliveries WHERE account_id = ? AND status <> 'delivered'),
			(SELECT COUNT(*) FROM webhook_attempts WHERE account_id = ?) FROM webhook_events WHERE account_id = ?`,
			account, account, account).Scan(&events, &pending, &attempts); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		count()
		h.mu.Lock()
		n := len(h.got)
		h.mu.Unlock()
		if (events > 0 && n >= events && pending == 0) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// A second delivery of anything would come within a few polls of the instances.
	time.Sleep(3 * time.Second)
	count()
	h.mu.Lock()
	defer h.mu.Unlock()
	total := 0
	for _, k := range h.got {
		total += k
	}
	t.Logf("SCALE webhooks: %d events of account %d, %d received by the sink (%d distinct, %d refused), %d attempts logged, %d deliveries not delivered",
		events, account, total, len(h.got), h.bad, attempts, pending)
	if events == 0 {
		t.Fatal("no event was written")
	}
	if h.bad != 0 || len(h.got) != events || total != events || attempts != events || pending != 0 {
		t.Fatalf("webhooks: %d events, %d received (%d distinct), %d attempts, %d pending; want each delivered once", events, total, len(h.got), attempts, pending)
	}
}
