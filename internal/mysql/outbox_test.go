package mysql_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// outboxRow is an email_outbox row as the tests read it.
type outboxRow struct {
	status    string
	attempts  int
	next      time.Time
	lastError sql.NullString
	sentAt    sql.NullTime
	purchase  sql.NullInt64
}

func readOutbox(t *testing.T, db *mysql.DB, id int64) outboxRow {
	t.Helper()
	var r outboxRow
	err := db.QueryRow(`SELECT status, attempts, next_attempt_at, last_error, sent_at, purchase_id FROM email_outbox WHERE id = ?`, id).
		Scan(&r.status, &r.attempts, &r.next, &r.lastError, &r.sentAt, &r.purchase)
	if err != nil {
		t.Fatalf("read outbox row %d: %v", id, err)
	}
	return r
}

// outboxDB empties the outbox of db and sets its clock to a fixed time, which it
// returns. Subtests share one database: making one costs a migration.
func outboxDB(t *testing.T, db *mysql.DB) (*mysql.DB, time.Time) {
	t.Helper()
	dbtest.MustExec(t, db.DB, "DELETE FROM email_outbox")
	t0 := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	db.Now = func() time.Time { return t0 }
	return db, t0
}

func enqueue(t *testing.T, db *mysql.DB, to string) int64 {
	t.Helper()
	id, err := mysql.NewOutbox(db).EnqueueEmail(context.Background(), nil, shop.Email{AccountID: 1, Kind: shop.EmailPurchaseReady, PurchaseID: 7, To: to, Facts: shop.EmailFacts{Refulfill: true}})
	if err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	return id
}

func TestDB_EnqueueEmail(t *testing.T) {
	ctx := context.Background()
	db, t0 := outboxDB(t, dbtest.New(t))

	t.Run("OK", func(t *testing.T) {
		id := enqueue(t, db, "zoe@example.com")
		r := readOutbox(t, db, id)
		if r.status != "queued" || r.attempts != 0 || !r.next.Equal(t0) || r.sentAt.Valid || r.purchase.Int64 != 7 {
			t.Fatalf("got %+v, want queued, 0 attempts, due at %v, purchase 7", r, t0)
		}
		// What the e-mail is about, not its text: internal/mail writes that when it sends.
		var kind, facts string
		var subject, body sql.NullString
		if err := db.QueryRow(`SELECT kind, facts, subject, body FROM email_outbox WHERE id = ?`, id).Scan(&kind, &facts, &subject, &body); err != nil {
			t.Fatal(err)
		}
		if kind != shop.EmailPurchaseReady || facts != `{"refulfill":true}` || subject.Valid || body.Valid {
			t.Fatalf("got kind %q facts %s subject %v body %v, want purchase_ready, the refulfil flag, no text", kind, facts, subject, body)
		}
	})

	t.Run("RolledBackWithTransaction", func(t *testing.T) {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		id, err := mysql.NewOutbox(db).EnqueueEmail(ctx, tx, shop.Email{AccountID: 1, Kind: shop.EmailWebhookDisabled, To: "a@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM email_outbox WHERE id = ?`, id).Scan(&n); err != nil || n != 0 {
			t.Fatalf("rows after rollback: got %d, %v, want 0", n, err)
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		for _, e := range []shop.Email{
			{Kind: shop.EmailPurchaseReady, To: "not an address"},
			{Kind: shop.EmailPurchaseReady, To: "a@example.com\r\nBcc: evil@example.com"},
			{Kind: shop.EmailPurchaseReady, To: "Zoe <a@example.com>"},
			{Kind: shop.EmailPurchaseReady, To: "a@" + strings.Repeat("x", 320) + ".com"},
			{Kind: shop.EmailComposed, To: "a@example.com"},
			{Kind: "", To: "a@example.com"},
		} {
			_, err := mysql.NewOutbox(db).EnqueueEmail(ctx, nil, e)
			if code := shop.ErrorCode(err); code != shop.EInvalid {
				t.Errorf("EnqueueEmail(%q, %q): got %v, want %s", e.Kind, e.To, err, shop.EInvalid)
			}
		}
	})
}

func TestDB_ClaimEmails(t *testing.T) {
	ctx := context.Background()
	shared := dbtest.New(t)

	t.Run("OK", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		a := enqueue(t, db, "a@example.com")
		b := enqueue(t, db, "b@example.com")
		db.Now = func() time.Time { return t0.Add(time.Minute) }
		later := enqueue(t, db, "later@example.com") // not due at t0

		lease := t0.Add(5 * time.Minute)
		got, err := mysql.NewOutbox(db).ClaimEmails(ctx, t0, lease, 10, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].ID != a || got[1].ID != b {
			t.Fatalf("claimed %+v, want rows %d and %d", got, a, b)
		}
		if got[0].To != "a@example.com" || got[0].Kind != shop.EmailPurchaseReady || got[0].AccountID != 1 || got[0].PurchaseID != 7 ||
			!got[0].Facts.Refulfill || got[0].Attempts != 1 || !got[0].LeaseUntil.Equal(lease) {
			t.Fatalf("claimed %+v, want the row's content, attempt 1, lease %v", got[0], lease)
		}
		if r := readOutbox(t, db, a); r.status != "sending" || r.attempts != 1 || !r.next.Equal(lease) {
			t.Fatalf("row after claim: got %+v, want sending, 1 attempt, next %v", r, lease)
		}
		if r := readOutbox(t, db, later); r.status != "queued" {
			t.Fatalf("row not due: got %+v, want queued", r)
		}

		// Leased rows are not claimed again while the lease holds.
		again, err := mysql.NewOutbox(db).ClaimEmails(ctx, t0.Add(4*time.Minute), t0.Add(9*time.Minute), 10, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(again) != 1 || again[0].ID != later {
			t.Fatalf("claim while leased: got %+v, want only row %d", again, later)
		}
	})

	t.Run("Limit", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		for range 5 {
			enqueue(t, db, "a@example.com")
		}
		got, err := mysql.NewOutbox(db).ClaimEmails(ctx, t0, t0.Add(time.Minute), 3, 10)
		if err != nil || len(got) != 3 {
			t.Fatalf("got %d rows, %v, want 3", len(got), err)
		}
	})

	t.Run("ExpiredLease", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		id := enqueue(t, db, "a@example.com")
		if _, err := mysql.NewOutbox(db).ClaimEmails(ctx, t0, t0.Add(5*time.Minute), 10, 10); err != nil {
			t.Fatal(err)
		}
		// The claimer never reports back; its lease lapses.
		t1 := t0.Add(5 * time.Minute)
		got, err := mysql.NewOutbox(db).ClaimEmails(ctx, t1, t1.Add(5*time.Minute), 10, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].ID != id || got[0].Attempts != 2 {
			t.Fatalf("claim after lease: got %+v, want row %d on attempt 2", got, id)
		}
	})

	t.Run("ExpiredLeaseAfterLastAttempt", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		id := enqueue(t, db, "a@example.com")
		if _, err := mysql.NewOutbox(db).ClaimEmails(ctx, t0, t0.Add(time.Minute), 10, 1); err != nil {
			t.Fatal(err)
		}
		got, err := mysql.NewOutbox(db).ClaimEmails(ctx, t0.Add(time.Minute), t0.Add(2*time.Minute), 10, 1)
		if err != nil || len(got) != 0 {
			t.Fatalf("got %+v, %v, want nothing claimed", got, err)
		}
		if r := readOutbox(t, db, id); r.status != "failed" || r.attempts != 1 || !r.lastError.Valid {
			t.Fatalf("got %+v, want failed after 1 attempt with an error", r)
		}
	})

	t.Run("SkipLocked", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		locked := enqueue(t, db, "a@example.com")
		free := enqueue(t, db, "b@example.com")
		// Another claimer is in the middle of its transaction, holding the first row.
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		var id int64
		if err := tx.QueryRow(`SELECT id FROM email_outbox WHERE id = ? FOR UPDATE`, locked).Scan(&id); err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		got, err := mysql.NewOutbox(db).ClaimEmails(cctx, t0, t0.Add(time.Minute), 10, 10)
		if err != nil {
			t.Fatalf("claim beside a locked row: %v", err)
		}
		if len(got) != 1 || got[0].ID != free {
			t.Fatalf("got %+v, want only row %d", got, free)
		}
	})
}

func TestDB_OutboxOutcomes(t *testing.T) {
	ctx := context.Background()
	shared := dbtest.New(t)
	claim := func(t *testing.T, db *mysql.DB, now time.Time) shop.ClaimedEmail {
		t.Helper()
		got, err := mysql.NewOutbox(db).ClaimEmails(ctx, now, now.Add(5*time.Minute), 1, 10)
		if err != nil || len(got) != 1 {
			t.Fatalf("claim: got %+v, %v, want one row", got, err)
		}
		return got[0]
	}

	t.Run("Sent", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		id := enqueue(t, db, "a@example.com")
		claim(t, db, t0)
		at := t0.Add(3 * time.Second)
		if err := mysql.NewOutbox(db).MarkEmailSent(ctx, id, "Subject", at); err != nil {
			t.Fatal(err)
		}
		r := readOutbox(t, db, id)
		if r.status != "sent" || !r.sentAt.Valid || !r.sentAt.Time.Equal(at) {
			t.Fatalf("got %+v, want sent at %v", r, at)
		}
		// A sent row is never claimed again.
		if got, err := mysql.NewOutbox(db).ClaimEmails(ctx, t0.Add(time.Hour), t0.Add(2*time.Hour), 10, 10); err != nil || len(got) != 0 {
			t.Fatalf("claim after sent: got %+v, %v, want nothing", got, err)
		}
	})

	t.Run("Retry", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		id := enqueue(t, db, "a@example.com")
		c := claim(t, db, t0)
		next := t0.Add(30 * time.Second)
		ok, err := mysql.NewOutbox(db).RetryEmail(ctx, id, c.LeaseUntil, next, "451 try later", false)
		if err != nil || !ok {
			t.Fatalf("retry: got %v, %v, want true", ok, err)
		}
		r := readOutbox(t, db, id)
		if r.status != "queued" || r.attempts != 1 || !r.next.Equal(next) || r.lastError.String != "451 try later" {
			t.Fatalf("got %+v, want queued after 1 attempt, due %v, with the error", r, next)
		}
	})

	t.Run("StaleClaim", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		id := enqueue(t, db, "a@example.com")
		stale := claim(t, db, t0)
		fresh := claim(t, db, stale.LeaseUntil) // the lease lapsed and another claimer took it
		if ok, err := mysql.NewOutbox(db).RetryEmail(ctx, id, stale.LeaseUntil, t0.Add(time.Hour), "x", false); err != nil || ok {
			t.Fatalf("stale retry: got %v, %v, want false", ok, err)
		}
		if ok, err := mysql.NewOutbox(db).FailEmail(ctx, id, stale.LeaseUntil, "x"); err != nil || ok {
			t.Fatalf("stale fail: got %v, %v, want false", ok, err)
		}
		if r := readOutbox(t, db, id); r.status != "sending" || !r.next.Equal(fresh.LeaseUntil) {
			t.Fatalf("got %+v, want still sending under the fresh lease", r)
		}
		if ok, err := mysql.NewOutbox(db).FailEmail(ctx, id, fresh.LeaseUntil, "550 no such user"); err != nil || !ok {
			t.Fatalf("fail: got %v, %v, want true", ok, err)
		}
		if r := readOutbox(t, db, id); r.status != "failed" || r.lastError.String != "550 no such user" {
			t.Fatalf("got %+v, want failed", r)
		}
	})

	t.Run("Release", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		id := enqueue(t, db, "a@example.com")
		c := claim(t, db, t0)
		if err := mysql.NewOutbox(db).ReleaseEmail(ctx, id, c.LeaseUntil, t0); err != nil {
			t.Fatal(err)
		}
		if r := readOutbox(t, db, id); r.status != "queued" || r.attempts != 0 || !r.next.Equal(t0) {
			t.Fatalf("got %+v, want queued, 0 attempts, due now", r)
		}
	})

	t.Run("ErrCanceled", func(t *testing.T) {
		db, t0 := outboxDB(t, shared)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := mysql.NewOutbox(db).ClaimEmails(cctx, t0, t0.Add(time.Minute), 1, 1); !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v, want context.Canceled", err)
		}
	})
}

// TestMigration_OutboxKind takes the outbox down through migrations 00100 and 00099 and
// up again: rows queued without their text, which the version before cannot write, are
// given up rather than sent empty; rows with a text keep it and are sent as they are.
func TestMigration_OutboxKind(t *testing.T) {
	ctx := context.Background()
	db, _ := outboxDB(t, dbtest.New(t))
	enqueue(t, db, "queued@example.com")
	sent := enqueue(t, db, "sent@example.com")
	if err := mysql.NewOutbox(db).MarkEmailSent(ctx, sent, "Your purchase is ready", db.Now()); err != nil {
		t.Fatal(err)
	}
	dbtest.MustExec(t, db.DB, `INSERT INTO email_outbox (account_id, to_address, subject, body, status, next_attempt_at, created_at)
		VALUES (1, 'old@example.com', 'Old', 'Old body', 'queued', '2030-01-01', '2030-01-01')`)

	if err := db.MigrateDownTo(ctx, 98); err != nil {
		t.Fatalf("down: %v", err)
	}
	type row struct{ status, subject, body, lastError string }
	read := func(to string) row {
		t.Helper()
		var r row
		if err := db.QueryRow(`SELECT status, subject, body, COALESCE(last_error, '') FROM email_outbox WHERE to_address = ?`, to).
			Scan(&r.status, &r.subject, &r.body, &r.lastError); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := read("queued@example.com"); r.status != "failed" || r.subject != "" || !strings.Contains(r.lastError, "without its text") {
		t.Errorf("queued row after down: got %+v, want failed with the reason", r)
	}
	if r := read("sent@example.com"); r.status != "sent" || r.subject != "Your purchase is ready" {
		t.Errorf("sent row after down: got %+v, want sent with its subject", r)
	}
	if r := read("old@example.com"); r.status != "queued" || r.subject != "Old" || r.body != "Old body" {
		t.Errorf("composed row after down: got %+v, want queued with its text", r)
	}
	if err := db.QueryRow("SELECT kind FROM email_outbox LIMIT 1").Scan(new(string)); err == nil {
		t.Errorf("the kind column survived the down migration")
	}

	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("up again: %v", err)
	}
	claimed, err := mysql.NewOutbox(db).ClaimEmails(ctx, db.Now().Add(24*time.Hour), db.Now().Add(25*time.Hour), 10, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(claimed) != 1 || claimed[0].Kind != shop.EmailComposed || claimed[0].Subject != "Old" || claimed[0].Body != "Old body" {
		t.Fatalf("claimed after up: got %+v, want the composed row with its text", claimed)
	}
}
