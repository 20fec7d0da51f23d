package faults_test

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"storefront/internal/smtptest"
)

// TestSMTPDown runs the real binary with STOREFRONT_SMTP_URL pointing at an
// in-process SMTP server and stops that server. Reactivations still answer 200 at
// once; their e-mails wait in the outbox, also across a restart of the storefront
// process (SIGTERM, then serve again), and once the SMTP server is back every one of
// them is delivered exactly once, at once after the first new one: as many messages as
// reactivations, one per outbox row, no Message-ID twice.
func TestSMTPDown(t *testing.T) {
	f := seeded(t, 2000)
	smtp := smtptest.Start(t)
	env := "STOREFRONT_SMTP_URL=" + smtp.URL()
	addr := freeAddr(t)
	srv := startServerAt(t, f.db.DSN(), addr, env)
	client := newClient(4)
	next := 0
	reactivate := func() time.Duration {
		t.Helper()
		id := f.ids.reactivable[next]
		next++
		req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/api/v2/purchases/%d/reactivate", srv.base, id), strings.NewReader("refulfill=1"))
		req.Header.Set("Authorization", "Bearer "+f.key)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("reactivate %d: %v", id, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("reactivate %d: got %d %s, want 200", id, resp.StatusCode, b)
		}
		return time.Since(start)
	}
	waitMessages := func(n int, within time.Duration) time.Duration {
		t.Helper()
		start := time.Now()
		for len(smtp.Messages()) < n {
			if time.Since(start) > within {
				t.Fatalf("%d messages after %s, want %d", len(smtp.Messages()), within, n)
			}
			time.Sleep(50 * time.Millisecond)
		}
		return time.Since(start)
	}

	// The mail path works while the SMTP server is up.
	reactivate()
	took := waitMessages(1, 10*time.Second)
	t.Logf("SMTP up: the first e-mail arrived %s after its reactivation", took.Round(time.Millisecond))

	smtp.Stop()
	const before, after = 15, 5
	var slowest time.Duration
	for range before {
		slowest = max(slowest, reactivate())
	}
	// Let the sender try and fail.
	db, err := sql.Open("mysql", f.db.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitFor(t, 10*time.Second, "every queued e-mail to have failed an attempt", func() bool {
		var n int
		err := db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status = 'queued' AND attempts >= 1 AND last_error IS NOT NULL").Scan(&n)
		return err == nil && n == before
	})

	// The queue survives a restart of the program.
	srv.Signal(syscall.SIGTERM)
	if code := srv.Wait(30 * time.Second); code != 0 {
		t.Fatalf("storefront serve exited %d after SIGTERM, want 0", code)
	}
	srv = startServerAt(t, f.db.DSN(), addr, env)
	for range after {
		slowest = max(slowest, reactivate())
	}
	t.Logf("SMTP down: %d reactivations answered 200, the slowest in %s", before+after, slowest.Round(time.Millisecond))
	if got := len(smtp.Messages()); got != 1 {
		t.Fatalf("%d messages arrived while the SMTP server was down", got)
	}

	downFor := time.Now()
	time.Sleep(2 * time.Second)
	smtp.Restart()
	t.Logf("SMTP server back after %s down", time.Since(downFor).Round(time.Millisecond))
	// A failed attempt waits 30 s for its retry (the sender's first back-off), but the
	// first delivery that gets through, a new reactivation's, makes every e-mail that
	// waited for the server due at once: also the 15 whose attempts the previous
	// process made.
	reactivate()
	want := 1 + before + after + 1
	took = waitMessages(want, 15*time.Second)
	t.Logf("all %d e-mails delivered %s after the SMTP server came back (and a new reactivation)", want, took.Round(time.Millisecond))
	waitFor(t, 10*time.Second, "every outbox row to be marked sent", func() bool {
		var n int
		err := db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status <> 'sent'").Scan(&n)
		return err == nil && n == 0
	})
	// Nothing more arrives: a second copy would come now if one were due.
	time.Sleep(3 * time.Second)

	sentOnce(t, db, smtp)
	if got := len(smtp.Messages()); got != want {
		t.Errorf("got %d messages for %d reactivations", got, want)
	}
}

// waitFor polls cond until it holds, failing the test after within.
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
