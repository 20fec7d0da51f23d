package mail_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"storefront/internal/dbtest"
	"storefront/internal/mail"
	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/internal/smtptest"
	"storefront/internal/worker"
)

const from = "shop@pixel.example"

// rig is a database outbox, an SMTP server and a clock shared by the Senders of a test.
type rig struct {
	t     *testing.T
	db    *mysql.DB
	smtp  *smtptest.Server
	clock *clock
	log   bytes.Buffer
}

// newRig returns a rig on db, emptying its outbox, or on a fresh database when db is
// nil. Sequential subtests share one database: making one costs a migration.
func newRig(t *testing.T, db *mysql.DB) *rig {
	t.Helper()
	if db == nil {
		db = dbtest.New(t)
	}
	dbtest.MustExec(t, db.DB, "DELETE FROM email_outbox")
	r := &rig{t: t, db: db, smtp: smtptest.Start(t), clock: newClock()}
	r.db.Now = r.clock.Now
	return r
}

// sender returns a Sender on the rig's outbox that sends through the rig's SMTP server.
func (r *rig) sender(opt mail.SenderOptions) *mail.Sender {
	r.t.Helper()
	tr, err := mail.NewSMTPTransport(r.smtp.URL(), from)
	if err != nil {
		r.t.Fatal(err)
	}
	tr.Timeout = 5 * time.Second
	opt.Now = r.clock.Now
	opt.Log = slog.New(slog.NewTextHandler(&lockedWriter{w: &r.log}, nil))
	return mail.NewSender(mysql.NewOutbox(r.db), fixtureComposer(), tr, opt)
}

// fixtureStore serves the fixture purchase of the storefront "Pixel Shop".
type fixtureStore struct{}

func (fixtureStore) FindPurchaseByID(_ context.Context, accountID, id int64) (*shop.Purchase, error) {
	p := purchaseFixture()
	if accountID != p.AccountID || id != p.ID {
		return nil, shop.Errorf(shop.ENotFound, "Purchase %d was not found.", id)
	}
	return p, nil
}

func (fixtureStore) FindStorefronts(context.Context, int64) ([]*shop.Storefront, error) {
	return []*shop.Storefront{{ID: purchaseFixture().StorefrontID, Name: "Pixel Shop"}}, nil
}

// fixtureComposer writes e-mails about the fixture purchase, with links to
// https://shop.example.
func fixtureComposer() *mail.Composer {
	return &mail.Composer{Purchases: fixtureStore{}, Storefronts: fixtureStore{}, BaseURL: "https://shop.example"}
}

// enqueue queues the purchase-ready e-mail of the fixture purchase, as a reactivation does.
func (r *rig) enqueue(to string) int64 {
	r.t.Helper()
	p := purchaseFixture()
	tx, err := r.db.BeginTx(context.Background(), nil)
	if err != nil {
		r.t.Fatal(err)
	}
	id, err := mysql.NewOutbox(r.db).EnqueueEmail(context.Background(), tx, mail.Email{AccountID: p.AccountID, Kind: shop.EmailPurchaseReady, PurchaseID: p.ID, To: to})
	if err != nil {
		r.t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		r.t.Fatal(err)
	}
	return id
}

type row struct {
	status   string
	attempts int
	next     time.Time
	lastErr  sql.NullString
	sentAt   sql.NullTime
}

func (r *rig) row(id int64) row {
	r.t.Helper()
	var w row
	if err := r.db.QueryRow(`SELECT status, attempts, next_attempt_at, last_error, sent_at FROM email_outbox WHERE id = ?`, id).
		Scan(&w.status, &w.attempts, &w.next, &w.lastErr, &w.sentAt); err != nil {
		r.t.Fatal(err)
	}
	return w
}

func sendDue(t *testing.T, s *mail.Sender) int {
	t.Helper()
	n, err := s.SendDue(context.Background())
	if err != nil {
		t.Fatalf("SendDue: %v", err)
	}
	return n
}

type lockedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestSender_SendDue(t *testing.T) {
	shared := dbtest.New(t)
	t.Run("OK", func(t *testing.T) {
		r := newRig(t, shared)
		id := r.enqueue("zoe@example.com")
		s := r.sender(mail.SenderOptions{})
		if n := sendDue(t, s); n != 1 {
			t.Fatalf("sent: got %d, want 1", n)
		}
		got := r.smtp.Messages()
		if len(got) != 1 {
			t.Fatalf("server got %d messages, want 1", len(got))
		}
		m := got[0]
		if m.To != "zoe@example.com" || m.From != from || m.Subject != "Your purchase from Pixel Shop is ready" {
			t.Errorf("got to %q from %q subject %q", m.To, m.From, m.Subject)
		}
		for _, want := range []string{"Hello Zoë", "Photo Pack", "Font Family",
			"https://shop.example/downloads/s4lt%2Fx/501", "https://shop.example/downloads/s4lt%2Fx/502",
			"PHOTO-KEY-1", "FONT-KEY-1", "FONT-KEY-2"} {
			if !strings.Contains(m.Body, want) {
				t.Errorf("body lacks %q:\n%s", want, m.Body)
			}
		}
		if m.MessageID != mail.MessageID(id, from) {
			t.Errorf("Message-ID: got %q, want %q", m.MessageID, mail.MessageID(id, from))
		}
		if w := r.row(id); w.status != "sent" || w.attempts != 1 || !w.sentAt.Valid || !w.sentAt.Time.Equal(r.clock.Now()) {
			t.Errorf("row: got %+v, want sent at %v after 1 attempt", w, r.clock.Now())
		}
		// Sent once, never again.
		r.clock.Advance(24 * time.Hour)
		if n := sendDue(t, s); n != 0 || len(r.smtp.Messages()) != 1 {
			t.Errorf("second round: sent %d, server has %d, want 0 and 1", n, len(r.smtp.Messages()))
		}
	})

	t.Run("ServerDown", func(t *testing.T) {
		r := newRig(t, shared)
		s := r.sender(mail.SenderOptions{})
		id := r.enqueue("zoe@example.com")
		r.smtp.Stop()
		t0 := r.clock.Now()
		if n := sendDue(t, s); n != 0 {
			t.Fatalf("sent with the server down: %d", n)
		}
		w := r.row(id)
		if w.status != "queued" || w.attempts != 1 || !w.next.Equal(t0.Add(30*time.Second)) || !w.lastErr.Valid {
			t.Fatalf("row after failure: got %+v, want queued, 1 attempt, due %v, with the error", w, t0.Add(30*time.Second))
		}
		// Still down at the next attempt: the wait doubles.
		r.clock.Advance(30 * time.Second)
		sendDue(t, s)
		if w := r.row(id); w.status != "queued" || w.attempts != 2 || !w.next.Equal(r.clock.Now().Add(time.Minute)) {
			t.Fatalf("row after second failure: got %+v, want queued, 2 attempts, due in 1m", w)
		}
		// The server is back, but the message is not due yet.
		r.smtp.Restart()
		r.clock.Advance(59 * time.Second)
		if n := sendDue(t, s); n != 0 || len(r.smtp.Messages()) != 0 {
			t.Fatalf("sent before due: %d", n)
		}
		r.clock.Advance(time.Second)
		if n := sendDue(t, s); n != 1 {
			t.Fatalf("sent after the server returned: got %d, want 1", n)
		}
		r.clock.Advance(time.Hour)
		sendDue(t, s)
		if got := r.smtp.Messages(); len(got) != 1 || got[0].MessageID != mail.MessageID(id, from) {
			t.Fatalf("server got %d messages, want exactly 1", len(got))
		}
		if w := r.row(id); w.status != "sent" || w.attempts != 3 {
			t.Fatalf("row: got %+v, want sent after 3 attempts", w)
		}
	})

	t.Run("TemporaryRefusal", func(t *testing.T) {
		r := newRig(t, shared)
		s := r.sender(mail.SenderOptions{})
		id := r.enqueue("zoe@example.com")
		r.smtp.RefuseData(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
		sendDue(t, s)
		w := r.row(id)
		if w.status != "queued" || w.attempts != 1 || !w.next.After(r.clock.Now()) || !strings.Contains(w.lastErr.String, "try later") {
			t.Fatalf("row after 451: got %+v, want queued, 1 attempt, due later, with the reply", w)
		}
		r.smtp.RefuseData(nil)
		r.clock.Advance(30 * time.Second)
		if n := sendDue(t, s); n != 1 {
			t.Fatalf("sent: got %d, want 1", n)
		}
		r.clock.Advance(time.Hour)
		sendDue(t, s)
		if got := len(r.smtp.Messages()); got != 1 {
			t.Fatalf("server got %d messages, want 1", got)
		}
	})

	t.Run("ServerBackSendsWaitingAtOnce", func(t *testing.T) {
		// Three messages wait through a long outage; their back-off grows to 8 minutes.
		// When the server is back, the first message that gets through (a new one, sent
		// at once because it was just queued) makes the waiting ones due at once, even
		// from another Sender (another instance, or this one after a restart).
		r := newRig(t, shared)
		s := r.sender(mail.SenderOptions{})
		r.smtp.Stop()
		var waiting []int64
		for _, to := range []string{"a@example.com", "b@example.com", "c@example.com"} {
			waiting = append(waiting, r.enqueue(to))
		}
		for range 4 {
			sendDue(t, s)
			r.clock.Advance(r.row(waiting[0]).next.Sub(r.clock.Now()))
		}
		sendDue(t, s)
		if w := r.row(waiting[0]); w.attempts != 5 || !w.next.Equal(r.clock.Now().Add(8*time.Minute)) {
			t.Fatalf("row after five failures: got %+v, want 5 attempts, due in 8m", w)
		}
		// A message refused with a 4xx reply (greylisting) keeps its back-off: the
		// server answered, so the message itself has to wait.
		r.smtp.Restart()
		r.smtp.RefuseRcpt(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 1}, Message: "greylisted"})
		grey := r.enqueue("grey@example.com")
		sendDue(t, s)
		r.smtp.RefuseRcpt(nil)
		greyNext := r.row(grey).next

		r.clock.Advance(time.Second)
		r.enqueue("new@example.com")
		other := r.sender(mail.SenderOptions{})
		if n := sendDue(t, other); n != 4 {
			t.Fatalf("sent after the server returned: got %d, want the new message and the 3 waiting ones", n)
		}
		for _, id := range waiting {
			if w := r.row(id); w.status != "sent" || w.attempts != 6 {
				t.Errorf("waiting row %d: got %+v, want sent after 6 attempts", id, w)
			}
		}
		if w := r.row(grey); w.status != "queued" || w.attempts != 1 || !w.next.Equal(greyNext) {
			t.Errorf("greylisted row: got %+v, want still queued, due %v", w, greyNext)
		}
		if !strings.Contains(r.log.String(), "mail server reachable again") {
			t.Errorf("log lacks the recovery line:\n%s", r.log.String())
		}
	})

	t.Run("GivesUpAfterMaxAttempts", func(t *testing.T) {
		r := newRig(t, shared)
		s := r.sender(mail.SenderOptions{MaxAttempts: 3})
		id := r.enqueue("zoe@example.com")
		r.smtp.RefuseData(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
		for range 5 {
			sendDue(t, s)
			r.clock.Advance(time.Hour)
		}
		if w := r.row(id); w.status != "failed" || w.attempts != 3 {
			t.Fatalf("row: got %+v, want failed after 3 attempts", w)
		}
		got := r.smtp.Attempts()
		if got != 3 {
			t.Fatalf("server saw %d attempts, want 3", got)
		}
	})

	t.Run("PermanentRefusal", func(t *testing.T) {
		r := newRig(t, shared)
		s := r.sender(mail.SenderOptions{})
		id := r.enqueue("nobody@example.com")
		r.smtp.RefuseRcpt(&smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"})
		sendDue(t, s)
		if w := r.row(id); w.status != "failed" || w.attempts != 1 || !strings.Contains(w.lastErr.String, "no such user") {
			t.Fatalf("row: got %+v, want failed at once with the reply", w)
		}
	})

	t.Run("ExpiredLease", func(t *testing.T) {
		r := newRig(t, shared)
		id := r.enqueue("zoe@example.com")
		// A Sender of another process claims the message and dies before sending it.
		t0 := r.clock.Now()
		if c, err := mysql.NewOutbox(r.db).ClaimEmails(context.Background(), t0, t0.Add(5*time.Minute), 10, 10); err != nil || len(c) != 1 {
			t.Fatalf("claim: got %v, %v", c, err)
		}
		s := r.sender(mail.SenderOptions{Lease: 5 * time.Minute})
		if n := sendDue(t, s); n != 0 {
			t.Fatalf("sent a leased message: %d", n)
		}
		r.clock.Advance(5 * time.Minute)
		if n := sendDue(t, s); n != 1 {
			t.Fatalf("sent after the lease expired: got %d, want 1", n)
		}
		if w := r.row(id); w.status != "sent" || w.attempts != 2 || len(r.smtp.Messages()) != 1 {
			t.Fatalf("row: got %+v and %d messages, want sent after 2 attempts, once", w, len(r.smtp.Messages()))
		}
	})

	t.Run("LogTransport", func(t *testing.T) {
		r := newRig(t, shared)
		id := r.enqueue("zoe@example.com")
		var buf bytes.Buffer
		tr, err := mail.NewTransport("", from, slog.New(slog.NewTextHandler(&buf, nil)))
		if err != nil {
			t.Fatal(err)
		}
		s := mail.NewSender(mysql.NewOutbox(r.db), fixtureComposer(), tr, mail.SenderOptions{Now: r.clock.Now})
		if n := sendDue(t, s); n != 1 {
			t.Fatalf("sent: got %d, want 1", n)
		}
		if w := r.row(id); w.status != "sent" {
			t.Fatalf("row: got %+v, want sent", w)
		}
		for _, want := range []string{"zoe@example.com", "PHOTO-KEY-1", "downloads/s4lt%2Fx/501"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("log lacks %q", want)
			}
		}
		if len(r.smtp.Messages()) != 0 {
			t.Errorf("the SMTP server got mail")
		}
	})
}

// flakyOutbox fails MarkEmailSent the first failures times, and counts the renewals of
// leases.
type flakyOutbox struct {
	mail.Outbox
	mu       sync.Mutex
	failures int
	renewals int
}

func (f *flakyOutbox) MarkEmailSent(ctx context.Context, id int64, subject string, at time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failures > 0 {
		f.failures--
		return errors.New("database unreachable")
	}
	return f.Outbox.MarkEmailSent(ctx, id, subject, at)
}

func (f *flakyOutbox) RenewEmails(ctx context.Context, ids []int64, leaseUntil, newLease time.Time) error {
	f.mu.Lock()
	f.renewals++
	f.mu.Unlock()
	return f.Outbox.RenewEmails(ctx, ids, leaseUntil, newLease)
}

func TestSender_UnmarkedIsNotResent(t *testing.T) {
	r := newRig(t, nil)
	id := r.enqueue("zoe@example.com")
	// The database does not take the mark for a while: the Sender marks the e-mail
	// again until it does, keeping its claim leased meanwhile, and never sends it
	// again.
	ob := &flakyOutbox{Outbox: mysql.NewOutbox(r.db), failures: 6}
	tr, err := mail.NewSMTPTransport(r.smtp.URL(), from)
	if err != nil {
		t.Fatal(err)
	}
	s := mail.NewSender(ob, fixtureComposer(), tr, mail.SenderOptions{Now: r.clock.Now, Lease: 3 * time.Second, MarkRetry: 20 * time.Millisecond, Log: slog.New(slog.DiscardHandler)})
	if n := sendDue(t, s); n != 1 {
		t.Fatalf("delivered %d, want 1", n)
	}
	if w := r.row(id); w.status != "sent" {
		t.Fatalf("row: got %+v, want sent", w)
	}
	if got := len(r.smtp.Messages()); got != 1 {
		t.Fatalf("server got %d messages, want 1", got)
	}
	ob.mu.Lock()
	defer ob.mu.Unlock()
	if ob.failures != 0 || ob.renewals == 0 {
		t.Fatalf("%d marks left to fail, %d renewals: want every mark tried, the lease renewed meanwhile", ob.failures, ob.renewals)
	}
}

// TestSender_LeaseRenewed shows a claim outliving its lease while its Sender is alive: a
// slow send keeps its message, and another Sender does not take it.
func TestSender_LeaseRenewed(t *testing.T) {
	r := newRig(t, nil)
	r.db.Now = time.Now
	id := r.enqueue("zoe@example.com")
	// The outbox keeps whole seconds: a lease of 2 s, renewed every 667 ms, always
	// reaches at least a second ahead.
	r.smtp.SetDelay(5 * time.Second)
	realClock := func() *mail.Sender {
		tr, err := mail.NewSMTPTransport(r.smtp.URL(), from)
		if err != nil {
			t.Fatal(err)
		}
		tr.Timeout = 10 * time.Second
		return mail.NewSender(mysql.NewOutbox(r.db), fixtureComposer(), tr, mail.SenderOptions{Lease: 2 * time.Second, Log: slog.New(slog.DiscardHandler)})
	}
	slow, other := realClock(), realClock()
	slowDone := make(chan int)
	go func() { slowDone <- sendDue(t, slow) }()
	for r.smtp.Attempts() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	// The other Sender tries throughout the slow send; the renewed lease keeps it out.
	for deadline := time.Now().Add(4 * time.Second); time.Now().Before(deadline); {
		if n, err := other.SendDue(context.Background()); err != nil || n != 0 {
			t.Fatalf("another Sender took a leased message: %d, %v", n, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := <-slowDone; n != 1 {
		t.Fatalf("the slow Sender delivered %d, want 1", n)
	}
	if w := r.row(id); w.status != "sent" || w.attempts != 1 || len(r.smtp.Messages()) != 1 {
		t.Fatalf("row: got %+v and %d messages, want sent once at the first attempt", w, len(r.smtp.Messages()))
	}
}

func TestSender_Concurrent(t *testing.T) {
	r := newRig(t, nil)
	const n = 50
	want := map[string]bool{}
	for i := range n {
		id := r.enqueue(fmt.Sprintf("buyer%d@example.com", i))
		want[mail.MessageID(id, from)] = true
	}
	r.smtp.SetDelay(2 * time.Millisecond) // keep both Senders busy at once

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		s := r.sender(mail.SenderOptions{BatchSize: 5})
		w := worker.New(mysql.WorkEmails, s.Step, worker.Options{Poll: 5 * time.Millisecond})
		wg.Go(func() { _ = w.Run(ctx) })
	}
	deadline := time.Now().Add(30 * time.Second)
	for len(r.smtp.Messages()) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// Give a duplicate time to show up before stopping.
	time.Sleep(100 * time.Millisecond)
	cancel()
	wg.Wait()

	got := r.smtp.Messages()
	seen := map[string]int{}
	for _, m := range got {
		seen[m.MessageID]++
	}
	for id, c := range seen {
		if c != 1 || !want[id] {
			t.Errorf("message %s delivered %d times", id, c)
		}
	}
	if len(got) != n || len(seen) != n {
		t.Fatalf("server got %d messages (%d distinct), want %d", len(got), len(seen), n)
	}
	var sent int
	if err := r.db.QueryRow(`SELECT COUNT(*) FROM email_outbox WHERE status = 'sent'`).Scan(&sent); err != nil || sent != n {
		t.Fatalf("rows sent: got %d, %v, want %d", sent, err, n)
	}
}

func TestSender_Run(t *testing.T) {
	shared := dbtest.New(t)
	t.Run("Wake", func(t *testing.T) {
		r := newRig(t, shared)
		// A poll interval far beyond the test: only the commit's wake-up can wake the
		// Sender.
		s := r.sender(mail.SenderOptions{})
		g := worker.NewGroup(worker.New(mysql.WorkEmails, s.Step, worker.Options{Poll: time.Hour}))
		r.db.Wake = g.Wake
		g.Start()
		defer func() {
			if err := g.Stop(10 * time.Second); err != nil {
				t.Error(err)
			}
		}()
		time.Sleep(50 * time.Millisecond) // let the first round find nothing
		// Queued in a transaction of the outbox's own, which wakes the sender on commit.
		if _, err := mysql.NewOutbox(r.db).EnqueueEmail(context.Background(), nil,
			mail.Email{AccountID: purchaseFixture().AccountID, Kind: shop.EmailPurchaseReady, PurchaseID: purchaseFixture().ID, To: "zoe@example.com"}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(r.smtp.Messages()) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := len(r.smtp.Messages()); got != 1 {
			t.Fatalf("server got %d messages after the commit, want 1", got)
		}
	})

	t.Run("Poll", func(t *testing.T) {
		r := newRig(t, shared)
		s := r.sender(mail.SenderOptions{})
		w := worker.New(mysql.WorkEmails, s.Step, worker.Options{Poll: 10 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- w.Run(ctx) }()
		r.enqueue("zoe@example.com")
		deadline := time.Now().Add(10 * time.Second)
		for len(r.smtp.Messages()) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if got := len(r.smtp.Messages()); got != 1 {
			t.Fatalf("server got %d messages, want 1", got)
		}
	})
}

func TestSender_Backoff(t *testing.T) {
	s := mail.NewSender(nil, nil, nil, mail.SenderOptions{})
	for attempts, want := range map[int]time.Duration{
		1: 30 * time.Second, 2: time.Minute, 3: 2 * time.Minute, 7: 32 * time.Minute, 8: time.Hour, 10: time.Hour, 100: time.Hour,
	} {
		if got := s.Backoff(attempts); got != want {
			t.Errorf("Backoff(%d): got %v, want %v", attempts, got, want)
		}
	}
}

// cancelingTransport delivers nothing and ends a context after its first message, as a
// shutdown arriving mid-batch does.
type cancelingTransport struct {
	cancel context.CancelFunc
	sent   int
}

func (c *cancelingTransport) Send(context.Context, mail.Message) error {
	c.sent++
	c.cancel()
	return nil
}

func TestSender_ShutdownReleasesClaims(t *testing.T) {
	r := newRig(t, nil)
	ids := []int64{r.enqueue("a@example.com"), r.enqueue("b@example.com"), r.enqueue("c@example.com")}
	ctx, cancel := context.WithCancel(context.Background())
	tr := &cancelingTransport{cancel: cancel}
	s := mail.NewSender(mysql.NewOutbox(r.db), fixtureComposer(), tr, mail.SenderOptions{Now: r.clock.Now, Log: slog.New(slog.DiscardHandler)})
	if n, err := s.SendDue(ctx); n != 1 || err != nil {
		t.Fatalf("SendDue: got %d, %v, want 1 delivered before shutdown", n, err)
	}
	// The delivery finished during shutdown is recorded; the others are handed back,
	// due at once and without an attempt counted.
	if w := r.row(ids[0]); w.status != "sent" {
		t.Errorf("first row: got %+v, want sent", w)
	}
	for _, id := range ids[1:] {
		if w := r.row(id); w.status != "queued" || w.attempts != 0 || !w.next.Equal(r.clock.Now()) {
			t.Errorf("row %d: got %+v, want queued, 0 attempts, due now", id, w)
		}
	}
}

// failingStore fails every read while down is set, as a database that cannot be
// reached does.
type failingStore struct {
	fixtureStore
	down bool
}

func (f *failingStore) FindPurchaseByID(ctx context.Context, accountID, id int64) (*shop.Purchase, error) {
	if f.down {
		// The driver's error for a connection that broke.
		return nil, fmt.Errorf("database unreachable: %w", io.ErrUnexpectedEOF)
	}
	return f.fixtureStore.FindPurchaseByID(ctx, accountID, id)
}

func TestSender_ComposeFails(t *testing.T) {
	// What the e-mail is about cannot be read: the e-mail waits for its back-off, and it
	// is not taken for one that waits for the mail server.
	r := newRig(t, nil)
	id := r.enqueue("zoe@example.com")
	store := &failingStore{down: true}
	tr, err := mail.NewSMTPTransport(r.smtp.URL(), from)
	if err != nil {
		t.Fatal(err)
	}
	s := mail.NewSender(mysql.NewOutbox(r.db), &mail.Composer{Purchases: store, Storefronts: store, BaseURL: "https://shop.example"}, tr,
		mail.SenderOptions{Now: r.clock.Now, Log: slog.New(slog.DiscardHandler)})
	if n := sendDue(t, s); n != 0 {
		t.Fatalf("sent %d without its text", n)
	}
	var unreachable bool
	if err := r.db.QueryRow("SELECT server_unreachable FROM email_outbox WHERE id = ?", id).Scan(&unreachable); err != nil {
		t.Fatal(err)
	}
	if w := r.row(id); w.status != "queued" || w.attempts != 1 || !strings.Contains(w.lastErr.String, "database unreachable") || unreachable {
		t.Fatalf("row: got %+v (server unreachable %v), want queued after 1 attempt with the error, not waiting for the mail server", w, unreachable)
	}
	store.down = false
	r.clock.Advance(30 * time.Second)
	if n := sendDue(t, s); n != 1 || len(r.smtp.Messages()) != 1 {
		t.Fatalf("sent %d, server has %d, want the e-mail once", n, len(r.smtp.Messages()))
	}
}
