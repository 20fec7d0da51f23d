package web_test

import (
	"database/sql"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
)

// idsByStatus returns up to n purchase ids of account 1 in the status.
func idsByStatus(t *testing.T, e *apiEnv, status string, n int) []string {
	t.Helper()
	out := dbtest.Query(t, e.db.DB, func(rows *sql.Rows) (id string, err error) { err = rows.Scan(&id); return id, err },
		"SELECT id FROM purchases WHERE account_id = ? AND status = ? AND buyer_email LIKE '%@%' ORDER BY id LIMIT ?", e.id(1), status, n)
	if len(out) == 0 {
		t.Fatalf("no %s purchase in account 1", status)
	}
	return out
}

// waitJob waits until the job has ended and returns its status.
func waitJob(t *testing.T, e *apiEnv, id string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var status string
		if err := e.db.QueryRow("SELECT status FROM jobs WHERE account_id = ? AND id = ?", e.id(1), id).Scan(&status); err != nil {
			t.Fatal(err)
		}
		if status == "done" || status == "canceled" {
			return status
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s after 30s", id, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestDashboard_BulkReactivation(t *testing.T) {
	e := newAPI(t, 0)
	staff := e.signIn(e.id(1), "staff")
	viewer := e.signIn(e.id(1), "viewer")

	t.Run("ViewersCannot", func(t *testing.T) {
		if strings.Contains(string(viewer.get("/purchases", false).body), "Reactivate selected") {
			t.Error("a viewer is offered Reactivate selected")
		}
		if r := viewer.get(e.path("/purchases/reactivate?id=%d", 1), false); r.status != 403 {
			t.Errorf("a viewer's confirmation: got %d, want 403", r.status)
		}
		if r := viewer.post("/jobs", url.Values{"id": {fmt.Sprint(e.id(1))}}); r.status != 403 {
			t.Errorf("a viewer's job: got %d, want 403", r.status)
		}
	})

	runnable := append(idsByStatus(t, e, "PND", 3), idsByStatus(t, e, "ERR", 2)...)
	refunded := idsByStatus(t, e, "RFD", 2)
	ids := append(append([]string{}, runnable...), refunded...)

	t.Run("ConfirmNamesCountSkipsAndAddress", func(t *testing.T) {
		body := string(staff.get("/purchases", false).body)
		if !strings.Contains(body, ">Reactivate selected</button>") || !strings.Contains(body, `form="bulk"`) {
			t.Fatal("the purchases page offers no selection to staff")
		}
		r := staff.get("/purchases/reactivate?"+url.Values{"id": ids}.Encode(), false)
		body = string(r.body)
		if r.status != 200 {
			t.Fatalf("confirmation: %d", r.status)
		}
		for _, want := range []string{fmt.Sprintf("<strong>%d</strong> purchases are selected", len(ids)),
			fmt.Sprintf("<strong>%d</strong> will be reactivated", len(runnable)), fmt.Sprintf("%d Refunded (RFD)", len(refunded)),
			"the purchase's own address", "Refulfill", ">Cancel</a>"} {
			if !strings.Contains(body, want) {
				t.Errorf("the confirmation lacks %q", want)
			}
		}
		if r := staff.get("/purchases/reactivate", false); r.status != 400 || !strings.Contains(string(r.body), "Select the purchases") {
			t.Errorf("nothing selected: got %d", r.status)
		}
		if r := staff.get("/purchases/reactivate?id=abc", false); r.status != 400 || !strings.Contains(string(r.body), "is not a purchase id") {
			t.Errorf("a bad id: got %d", r.status)
		}
	})

	t.Run("SelectAllMatching", func(t *testing.T) {
		var n int
		if err := e.db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = ? AND status = 'HLD'", e.id(1)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		body := string(staff.get("/purchases/reactivate?all=1&query="+url.QueryEscape("status=HLD"), false).body)
		if !strings.Contains(body, fmt.Sprintf("<strong>%d</strong> purchases are selected", n)) || !strings.Contains(body, "<strong>0</strong> will be reactivated") {
			t.Errorf("all %d held purchases: the confirmation says otherwise", n)
		}
	})

	t.Run("RunsEachOnceWithSummary", func(t *testing.T) {
		var mailsBefore int
		e.db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE account_id IN (?, ?)", e.id(1), e.id(2)).Scan(&mailsBefore)
		r := staff.post("/jobs", url.Values{"id": ids, "refulfill": {"1"}})
		loc := r.header.Get("Location")
		m := regexp.MustCompile(`^/jobs/(\d+)$`).FindStringSubmatch(loc)
		if r.status != 303 || m == nil {
			t.Fatalf("create: got %d to %q", r.status, loc)
		}
		if got := waitJob(t, e, m[1]); got != "done" {
			t.Fatalf("job: %s", got)
		}
		for _, id := range runnable {
			var status string
			var acts int
			// Two statements: vtgate plans a correlated subquery for EXISTS only.
			e.db.QueryRow(`SELECT status FROM purchases WHERE account_id = ? AND id = ?`, e.id(1), id).Scan(&status)
			e.db.QueryRow(`SELECT COUNT(*) FROM purchase_activity WHERE account_id = ? AND purchase_id = ? AND action = 'reactivated'`, e.id(1), id).Scan(&acts)
			if status != "ACT" || acts != 1 {
				t.Errorf("purchase %s: status %s, %d reactivations; want ACT once", id, status, acts)
			}
		}
		var mails int
		e.db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE account_id IN (?, ?)", e.id(1), e.id(2)).Scan(&mails)
		if mails-mailsBefore != len(runnable) {
			t.Errorf("e-mails queued: got %d, want %d", mails-mailsBefore, len(runnable))
		}
		page := string(staff.get(loc, false).body)
		for _, want := range []string{fmt.Sprintf("Done: %d", len(runnable)), fmt.Sprintf("Skipped: %d", len(refunded)), "Failed: 0",
			"cannot be reactivated", "#" + refunded[0]} {
			if !strings.Contains(page, want) {
				t.Errorf("the job page lacks %q", want)
			}
		}
		if strings.Contains(page, `hx-trigger="every 1s"`) {
			t.Error("a finished job's progress still polls")
		}
		if !strings.Contains(string(staff.get("/jobs", false).body), "Job "+m[1]+": reactivate 7 purchases, refulfilling") {
			t.Error("the Jobs page does not list the job")
		}
		if !strings.Contains(string(viewer.get("/jobs", false).body), fmt.Sprintf("Done: %d", len(runnable))) {
			t.Error("a viewer does not see the summary")
		}
	})

	t.Run("Cancel", func(t *testing.T) {
		// A job whose items are held back: its first purchase is locked by a transaction.
		tx, err := e.db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		many := idsByStatus(t, e, "ACT", 40)
		r := staff.post("/jobs", url.Values{"id": many})
		id := strings.TrimPrefix(r.header.Get("Location"), "/jobs/")
		if _, err := tx.Exec("SELECT * FROM job_items WHERE account_id = ? AND job_id = ? FOR UPDATE", e.id(1), id); err != nil {
			t.Fatal(err)
		}
		progress := string(staff.get("/jobs/"+id+"/progress", true).body)
		if !strings.Contains(progress, `hx-trigger="every 1s"`) || !strings.Contains(progress, "<progress") || !strings.Contains(progress, ">Cancel</button>") {
			t.Errorf("a running job's fragment: %s", progress)
		}
		r = staff.postHTMX("/jobs/"+id+"/cancel", nil)
		tx.Rollback()
		if r.status != 200 || !strings.Contains(string(r.body), "Canceled") {
			t.Errorf("cancel: got %d %s", r.status, r.body)
		}
		// The runner may have taken one purchase before the lock; none runs after the cancel.
		ran := func() int {
			var n int
			e.db.QueryRow("SELECT COUNT(*) FROM job_items WHERE account_id = ? AND job_id = ? AND status <> 'pending'", e.id(1), id).Scan(&n)
			return n
		}
		time.Sleep(200 * time.Millisecond)
		before := ran()
		time.Sleep(300 * time.Millisecond)
		if after := ran(); after != before || before > 1 {
			t.Errorf("%d purchases had run at the cancel, %d later", before, after)
		}
		if !strings.Contains(string(staff.get("/jobs/"+id, false).body), fmt.Sprintf("Not run: %d", 40-before)) {
			t.Error("the canceled job does not say what was not run")
		}
	})
}
