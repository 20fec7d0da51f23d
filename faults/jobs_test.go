package faults_test

import (
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"storefront/internal/smtptest"
)

// TestKillDuringBulkReactivation queues a bulk reactivation of 1,000 purchases on two
// instances sharing the database, kills both with SIGKILL once about half are done,
// and starts one again: the job resumes and ends with every purchase reactivated
// once (one activity entry, one e-mail queued) and every e-mail delivered once.
func TestKillDuringBulkReactivation(t *testing.T) {
	const n = 1000
	f := seeded(t, 3000)
	db, err := sql.Open("mysql", f.db.DSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ids []string
	rows, err := db.Query(`SELECT id FROM purchases WHERE account_id = 1 AND status IN ('ACT', 'PND', 'ERR') AND buyer_email LIKE '%@%.%' ORDER BY id LIMIT ?`, n)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, fmt.Sprint(id))
	}
	rows.Close()
	if len(ids) != n {
		t.Fatalf("%d reactivatable purchases with an address, want %d", len(ids), n)
	}
	smtp := smtptest.Start(t)
	env := "STOREFRONT_SMTP_URL=" + smtp.URL()
	a := startServer(t, f.db.DSN(), env)
	b := startServer(t, f.db.DSN(), env)

	client := newClient(2)
	signIn(t, client, a.base, f.userEmail, f.userPassword)
	resp, err := client.PostForm(a.base+"/jobs", url.Values{"id": ids})
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	job := strings.TrimPrefix(resp.Header.Get("Location"), "/jobs/")
	if resp.StatusCode != http.StatusSeeOther || job == "" {
		t.Fatalf("queue the job: got %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	count := func(status string) int {
		var c int
		if err := db.QueryRow("SELECT COUNT(*) FROM job_items WHERE account_id = 1 AND job_id = ? AND status = ?", job, status).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	start := time.Now()
	for count("done") < n/2 {
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("%d of %d done after 2 minutes", count("done"), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.Signal(syscall.SIGKILL)
	b.Signal(syscall.SIGKILL)
	a.Wait(10 * time.Second)
	b.Wait(10 * time.Second)
	killedAt := count("done")
	// E-mails the killed senders had claimed stay reserved for them until their lease
	// (five minutes) lapses; one may have reached the SMTP server before its mark did.
	var leased int
	if err := db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status = 'sending'").Scan(&leased); err != nil {
		t.Fatal(err)
	}
	t.Logf("killed both instances with %d of %d done, %s after the job was queued", killedAt, n, time.Since(start).Round(time.Millisecond))
	if killedAt >= n {
		t.Fatal("the job ended before the kill")
	}

	startServer(t, f.db.DSN(), env)
	resumed := time.Now()
	for {
		var status string
		if err := db.QueryRow("SELECT status FROM jobs WHERE account_id = 1 AND id = ?", job).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if status == "done" {
			break
		}
		if time.Since(resumed) > 2*time.Minute {
			t.Fatalf("job %s still %s 2 minutes after the restart (%d done)", job, status, count("done"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the restarted instance finished the other %d in %s", n-killedAt, time.Since(resumed).Round(time.Millisecond))
	if got := count("done"); got != n {
		t.Errorf("done: got %d, want %d (skipped %d, failed %d)", got, n, count("skipped"), count("failed"))
	}

	// Every purchase once: one reactivation in its activity, one e-mail queued.
	in := "(" + strings.Join(ids, ",") + ")"
	var twice, never int
	if err := db.QueryRow(`SELECT COALESCE(SUM(c > 1), 0), COALESCE(SUM(c = 0), 0) FROM (SELECT p.id,
		(SELECT COUNT(*) FROM purchase_activity a WHERE a.purchase_id = p.id AND a.action = 'reactivated' AND a.actor LIKE ?) c
		FROM purchases p WHERE p.account_id = 1 AND p.id IN `+in+`) x`, "%(job "+job+")").Scan(&twice, &never); err != nil {
		t.Fatal(err)
	}
	if twice != 0 || never != 0 {
		t.Errorf("reactivations: %d purchases twice, %d never", twice, never)
	}
	var mails, purchases int
	if err := db.QueryRow("SELECT COUNT(*), COUNT(DISTINCT purchase_id) FROM email_outbox WHERE account_id = 1 AND purchase_id IN "+in).Scan(&mails, &purchases); err != nil {
		t.Fatal(err)
	}
	if mails != n || purchases != n {
		t.Errorf("e-mails queued: %d for %d purchases, want one for each of %d", mails, purchases, n)
	}
	// Every e-mail delivered: the killed senders' leases are ended now, as five minutes
	// would end them.
	if _, err := db.Exec("UPDATE email_outbox SET next_attempt_at = UTC_TIMESTAMP() WHERE status = 'sending' AND next_attempt_at > UTC_TIMESTAMP() + INTERVAL 1 MINUTE"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(smtp.Messages()) < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second) // a duplicate would come now
	msgs := smtp.Messages()
	seen := map[string]int{}
	for _, m := range msgs {
		seen[m.MessageID]++
	}
	dup := 0
	for _, c := range seen {
		if c > 1 {
			dup++
		}
	}
	t.Logf("%d messages delivered, %d distinct, %d sent more than once; %d were leased by the killed senders", len(msgs), len(seen), dup, leased)
	if len(seen) != n {
		t.Errorf("delivered: %d distinct messages, want %d", len(seen), n)
	}
	// Only a message a killed sender had handed to the SMTP server without recording it
	// may come twice: the job itself queued each e-mail once.
	if dup > leased {
		t.Errorf("%d messages sent more than once, more than the %d the killed senders held", dup, leased)
	}
}
