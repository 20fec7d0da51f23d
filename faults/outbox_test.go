package faults_test

import (
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"storefront/internal/mail"
	"storefront/internal/smtptest"
)

// reactivator reactivates account 1's reactivable purchases, one after another, through
// whichever instance it is given.
type reactivator struct {
	t      *testing.T
	f      *fixture
	client *http.Client
	mu     sync.Mutex
	next   int
}

// reactivate reactivates the next purchase through base and returns the HTTP status
// (0 when no answer came).
func (r *reactivator) reactivate(base string) int {
	r.mu.Lock()
	id := r.f.ids.reactivable[r.next%len(r.f.ids.reactivable)]
	r.next++
	r.mu.Unlock()
	req, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("%s/api/v2/purchases/%d/reactivate", base, id), strings.NewReader("refulfill=1"))
	req.Header.Set("Authorization", "Bearer "+r.f.key)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := r.client.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// sentOnce checks that the SMTP server got exactly one message per outbox row, and
// that every row is marked sent.
func sentOnce(t *testing.T, db *sql.DB, smtp *smtptest.Server) {
	t.Helper()
	rows, err := db.Query("SELECT id, status FROM email_outbox ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	expected := map[string]bool{}
	for rows.Next() {
		var id int64
		var status string
		if err := rows.Scan(&id, &status); err != nil {
			t.Fatal(err)
		}
		if status != "sent" {
			t.Errorf("outbox row %d is %s, want sent", id, status)
		}
		expected[mail.MessageID(id, "no-reply@localhost")] = true
	}
	rows.Close()
	msgs := smtp.Messages()
	seen := map[string]int{}
	for _, m := range msgs {
		seen[m.MessageID]++
	}
	t.Logf("messages: %d received, %d distinct Message-IDs, %d outbox rows", len(msgs), len(seen), len(expected))
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s arrived %d times", id, n)
		}
		if !expected[id] {
			t.Errorf("%s is no outbox row's", id)
		}
	}
	for id := range expected {
		if seen[id] == 0 {
			t.Errorf("%s was never delivered", id)
		}
	}
}

// errorLines returns the ERROR lines of a log.
func errorLines(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "level=ERROR") {
			out = append(out, l)
		}
	}
	return out
}

// TestOutbox_TwoInstancesDatabaseRestart runs two instances of the binary on one
// database, each sending e-mail to one slow SMTP server, and restarts the database while
// their senders are claiming, sending and marking: every e-mail queued is sent exactly
// once, every outbox row ends 'sent', and neither instance logs an ERROR (no deadlock,
// no e-mail "delivered but not marked sent" given up on).
func TestOutbox_TwoInstancesDatabaseRestart(t *testing.T) {
	f := seeded(t, 2000)
	smtp := smtptest.Start(t)
	// Slow enough that sends are under way when the database goes.
	smtp.SetDelay(40 * time.Millisecond)
	env := "STOREFRONT_SMTP_URL=" + smtp.URL()
	a, b := startServer(t, f.db.DSN(), env), startServer(t, f.db.DSN(), env)
	r := &reactivator{t: t, f: f, client: newClient(8)}

	// Reactivations through both instances, eight at a time, before, during and after
	// the outage; those the outage refuses queue nothing.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var mu sync.Mutex
	accepted := 0
	for i := range 8 {
		base := []string{a.base, b.base}[i%2]
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if r.reactivate(base) != http.StatusOK {
					time.Sleep(100 * time.Millisecond)
					continue
				}
				mu.Lock()
				accepted++
				mu.Unlock()
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	time.Sleep(1500 * time.Millisecond)
	f.db.Stop()
	t.Log("mariadbd stopped")
	time.Sleep(3 * time.Second)
	f.db.Start()
	t.Log("mariadbd started again")
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	db, err := sql.Open("mysql", f.db.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var queued int
	if err := db.QueryRow("SELECT COUNT(*) FROM email_outbox").Scan(&queued); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d reactivations answered 200, %d e-mails queued", accepted, queued)
	if queued < accepted || accepted < 20 {
		t.Fatalf("%d e-mails queued for %d reactivations", queued, accepted)
	}
	waitFor(t, 60*time.Second, "every outbox row to be marked sent", func() bool {
		var n int
		err := db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status <> 'sent'").Scan(&n)
		return err == nil && n == 0
	})
	// A second copy would come now if one were due.
	time.Sleep(2 * time.Second)
	sentOnce(t, db, smtp)
	for _, s := range []*server{a, b} {
		if lines := errorLines(s.Log()); len(lines) > 0 {
			t.Errorf("an instance logged %d ERROR lines:\n%s", len(lines), strings.Join(lines[:min(len(lines), 10)], "\n"))
		}
	}
	t.Logf("warnings of one instance:\n%s", problems(a.Log(), 8))
}

// TestOutbox_ClaimOfKilledInstance kills an instance (SIGKILL) while it is sending an
// e-mail, to an SMTP server that never answers: another instance sends the e-mail
// within 30 s of the kill (the claim's lease of 20 s and a poll), once.
func TestOutbox_ClaimOfKilledInstance(t *testing.T) {
	f := seeded(t, 500)
	// A mail server that takes the connection and never says a word.
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	go func() {
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	dying := startServer(t, f.db.DSN(), "STOREFRONT_SMTP_URL=smtp://"+hole.Addr().String())
	r := &reactivator{t: t, f: f, client: newClient(1)}
	if code := r.reactivate(dying.base); code != http.StatusOK {
		t.Fatalf("reactivate: %d", code)
	}
	db, err := sql.Open("mysql", f.db.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	waitFor(t, 10*time.Second, "the e-mail to be claimed", func() bool {
		var n int
		err := db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status = 'sending'").Scan(&n)
		return err == nil && n == 1
	})
	// The send is under way (the server has not answered); the instance dies.
	time.Sleep(500 * time.Millisecond)
	dying.Kill()
	killed := time.Now()

	smtp := smtptest.Start(t)
	startServer(t, f.db.DSN(), "STOREFRONT_SMTP_URL="+smtp.URL())
	waitFor(t, 60*time.Second, "the e-mail to arrive", func() bool { return len(smtp.Messages()) > 0 })
	took := time.Since(killed)
	t.Logf("the e-mail arrived %s after its sender was killed", took.Round(time.Millisecond))
	if took > 30*time.Second {
		t.Errorf("the killed instance's claim held the e-mail for %s, want under 30 s", took.Round(time.Second))
	}
	time.Sleep(time.Second)
	sentOnce(t, db, smtp)
}
