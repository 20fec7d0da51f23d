package faults_test

import (
	"context"
	"database/sql"
	"errors"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"

	"storefront/internal/smtptest"
)

// TestSIGTERMUnderLoad sends SIGTERM to the real binary while 16 clients keep it busy
// with the mixed traffic. Every request the server accepted is answered 200 (none
// gets a connection error or a 5xx); requests sent after the listener closed are
// refused at connect, which is the only failure allowed. The process then exits 0,
// and the database is consistent: one activity entry, one idempotency record and one
// queued e-mail per reactivation answered 200, and no e-mail left half-sent.
func TestSIGTERMUnderLoad(t *testing.T) {
	f := seeded(t, 5000)
	smtp := smtptest.Start(t)
	srv := startServer(t, f.db.DSN(), "STOREFRONT_SMTP_URL="+smtp.URL())
	db, err := sql.Open("mysql", f.db.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	counts := func() [3]int {
		var c [3]int
		for i, q := range []string{
			"SELECT COUNT(*) FROM purchase_activity WHERE action = 'reactivated'",
			"SELECT COUNT(*) FROM idempotency_keys",
			"SELECT COUNT(*) FROM email_outbox",
		} {
			if err := db.QueryRow(q).Scan(&c[i]); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		return c
	}
	before := counts()

	tr := &traffic{base: srv.base, client: newClient(16), key: f.key, ids: f.ids}
	var (
		mu          sync.Mutex
		signalAt    time.Time
		inFlight    int // started before SIGTERM, answered after it
		refused     int
		reactivated int
	)
	tl := newTally()
	record := func(o outcome) {
		mu.Lock()
		sig := signalAt
		ok := o.err == nil && o.status == 200
		if ok && !sig.IsZero() && o.start.Before(sig) && o.end.After(sig) {
			inFlight++
		}
		if ok && o.kind == kindReactivate {
			reactivated++
		}
		var ne *net.OpError
		if o.err != nil && !sig.IsZero() && errors.As(o.err, &ne) && ne.Op == "dial" {
			// Sent after the listener closed: never accepted, so never in flight.
			refused++
			mu.Unlock()
			return
		}
		mu.Unlock()
		tl.add(o, ok)
	}
	ctx, cancel := context.WithCancel(context.Background())
	loadDone := make(chan struct{})
	go func() { defer close(loadDone); tr.run(ctx, 16, record) }()
	defer func() { cancel(); <-loadDone }()

	time.Sleep(3 * time.Second)
	mu.Lock()
	signalAt = time.Now()
	mu.Unlock()
	srv.Signal(syscall.SIGTERM)
	code := srv.Wait(30 * time.Second)
	exited := time.Since(signalAt)
	cancel()
	<-loadDone

	t.Logf("SIGTERM under load: %s", tl)
	t.Logf("%d requests in flight at SIGTERM finished with 200; %d refused at connect after it; exit code %d %s after SIGTERM",
		inFlight, refused, code, exited.Round(time.Millisecond))
	if tl.nErrors > 0 {
		t.Errorf("%d accepted requests failed", tl.nErrors)
	}
	if inFlight == 0 {
		t.Errorf("no request was in flight at SIGTERM; the test proves nothing")
	}
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}

	after := counts()
	t.Logf("reactivations answered 200: %d; new activity entries %d, idempotency records %d, queued e-mails %d",
		reactivated, after[0]-before[0], after[1]-before[1], after[2]-before[2])
	for i, name := range []string{"reactivated activity entries", "idempotency records", "outbox rows"} {
		if d := after[i] - before[i]; d != reactivated {
			t.Errorf("%s: %d new, want %d (one per reactivation answered 200)", name, d, reactivated)
		}
	}
	var sending int
	if err := db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status = 'sending'").Scan(&sending); err != nil {
		t.Fatal(err)
	}
	if sending != 0 {
		t.Errorf("%d e-mails were left in the middle of sending", sending)
	}
	// Every e-mail the outbox marks sent did arrive, once.
	var sent int
	if err := db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status = 'sent'").Scan(&sent); err != nil {
		t.Fatal(err)
	}
	if got := len(smtp.Messages()); got != sent {
		t.Errorf("the SMTP server got %d messages, the outbox marks %d sent", got, sent)
	}
	var orphans int
	if err := db.QueryRow(`SELECT COUNT(*) FROM purchases p WHERE p.id IN (SELECT purchase_id FROM purchase_activity WHERE action = 'reactivated') AND p.status <> 'ACT'`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d reactivated purchases are not ACT", orphans)
	}
}
