package scale

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/internal/mariadb"
	"storefront/internal/mysql"
	"storefront/web"
)

type purchaseJSON struct {
	ID        int64  `json:"id"`
	Status    string `json:"status"`
	LineItems []struct {
		DownloadCount int64 `json:"download_count"`
	} `json:"line_items"`
}

// noFence (STOREFRONT_SCALE_NO_FENCE=1) deletes the read fences right after the writes
// of ReplicaReadYourWrites and ImportSeenAtOnce, as if the service recorded none; those
// tests then require stale reads instead of none. It reproduces the "fence removed"
// figures of docs/SCALING.md and shows that the tests can see a stale read. Only this
// harness reads it; the program has no such switch.
var noFence = os.Getenv("STOREFRONT_SCALE_NO_FENCE") == "1"

// dropFences deletes every read fence on the primary when noFence is set.
func (c *cluster) dropFences(t *testing.T) {
	t.Helper()
	if noFence {
		mustExec(t, c.pdb, "DELETE FROM read_fences")
	}
}

// checkStale fails when reads were stale, or, with noFence, when none was.
func checkStale(t *testing.T, stale int, after string) {
	t.Helper()
	switch {
	case noFence && stale == 0:
		t.Fatalf("with the fences deleted (STOREFRONT_SCALE_NO_FENCE=1) no read %s was stale: the test cannot see a stale read", after)
	case !noFence && stale != 0:
		t.Fatalf("got %d stale reads %s, want 0", stale, after)
	}
}

// TestScale runs three instances of the program on one primary with a replica behind
// a proxy, and checks what must hold across instances and with a lagging or missing
// replica. The figures are logged with the prefix "SCALE".

// listSelects is what 20 list pages, asked one after the other, send to the database
// that serves them: each is one SELECT, its ids joined with their stored documents, or,
// for a page the instance has kept, the account's purchases version that validates it.
const listSelects = 20 * 1

func TestScale(t *testing.T) {
	const (
		userEmail    = "owner@scale.test"
		userPassword = "scale-test-password"
	)
	var dueBefore int
	hooks := startHookSink(t)
	c := startCluster(t, 3, func(c *cluster) {
		// Account 1's changes (the sweeper's closings, the reactivations) go to a sink.
		hooks.subscribe(t, c.db, 1)
		// Overdue PAST_DUE subscriptions, for the three sweepers that start together.
		mustExec(t, c.pdb, `UPDATE subscriptions SET status = 'PAST_DUE', ended_at = NULL,
			next_payment_at = UTC_TIMESTAMP() - INTERVAL 60 DAY WHERE id % 4 = 0`)
		if err := c.pdb.QueryRow(`SELECT COUNT(*) FROM subscriptions ss JOIN subscribers sb ON sb.id = ss.subscriber_id
			JOIN storefronts sf ON sf.id = sb.storefront_id
			WHERE ss.status = 'PAST_DUE' AND ss.next_payment_at + INTERVAL sf.past_due_grace_days DAY <= UTC_TIMESTAMP()`).Scan(&dueBefore); err != nil {
			t.Fatal(err)
		}
		mysql.BcryptCost = 4
		if _, err := mysql.NewAdminService(c.db).CreateUser(context.Background(), 1, userEmail, "owner", userPassword); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("SweeperOncePerSubscription", func(t *testing.T) {
		if dueBefore == 0 {
			t.Fatal("no overdue PAST_DUE subscription to sweep")
		}
		var left, acts, distinct int
		deadline := time.Now().Add(20 * time.Second)
		for {
			if err := c.pdb.QueryRow(`SELECT COUNT(*) FROM subscriptions WHERE status = 'PAST_DUE' AND next_payment_at < UTC_TIMESTAMP() - INTERVAL 59 DAY`).Scan(&left); err != nil {
				t.Fatal(err)
			}
			if left == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err := c.pdb.QueryRow(`SELECT COUNT(*), COUNT(DISTINCT subscriber_id) FROM subscriber_activity WHERE action = 'closed_past_due'`).Scan(&acts, &distinct); err != nil {
			t.Fatal(err)
		}
		t.Logf("SCALE sweeper: %d overdue subscriptions, %d closings recorded for %d subscribers, %d left", dueBefore, acts, distinct, left)
		if left != 0 || acts != dueBefore || distinct != dueBefore {
			t.Fatalf("closings: got %d for %d subscribers (%d left), want %d once each", acts, distinct, left, dueBefore)
		}
	})

	t.Run("SessionOnEveryInstance", func(t *testing.T) {
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		r, err := client.PostForm(c.proxy.URL+"/login", url.Values{"email": {userEmail}, "password": {userPassword}})
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusSeeOther {
			t.Fatalf("sign-in: got %d, want 303", r.StatusCode)
		}
		// Round robin: six requests reach each instance twice.
		for i := range 6 {
			r, err := client.Get(c.proxy.URL + "/purchases")
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			if r.StatusCode != http.StatusOK {
				t.Fatalf("request %d with the session: got %d (%s), want 200", i, r.StatusCode, r.Header.Get("Location"))
			}
		}
		r, err = client.PostForm(c.proxy.URL+"/logout", nil)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		for i := range 3 {
			r, err := client.Get(c.proxy.URL + "/purchases")
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			if r.StatusCode != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
				t.Fatalf("request %d after signing out: got %d to %q, want 303 to /login", i, r.StatusCode, r.Header.Get("Location"))
			}
		}
	})

	t.Run("SignInThrottleAcrossInstances", func(t *testing.T) {
		// Five wrong passwords, spread by the round robin over the three instances,
		// hold the sixth try back on whichever instance it reaches, even with the right
		// password: each instance alone saw at most two failures.
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		defer mustExec(t, c.pdb, "DELETE FROM sign_in_failures")
		try := func(password string) int {
			r, err := client.PostForm(c.proxy.URL+"/login", url.Values{"email": {userEmail}, "password": {password}})
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			return r.StatusCode
		}
		for i := range 5 {
			if got := try("not-the-password"); got != http.StatusUnauthorized {
				t.Fatalf("wrong password %d: got %d, want 401", i+1, got)
			}
		}
		for i := range 3 {
			if got := try(userPassword); got != http.StatusTooManyRequests {
				t.Fatalf("right password after 5 failures, try %d: got %d, want 429 on every instance", i+1, got)
			}
		}
		t.Logf("SCALE sign-in throttle: 5 failures over 3 instances hold back the next sign-in on all 3")
	})

	t.Run("KeyRevocationAcrossInstances", func(t *testing.T) {
		// Every instance has checked the key (and keeps it for web.KeyCacheTTL); the
		// owner revokes it in the dashboard of one of them.
		key := c.apiKey(1, "scale-revoked")
		var keyID int64
		if err := c.pdb.QueryRow("SELECT id FROM api_keys WHERE account_id = 1 AND name = 'scale-revoked'").Scan(&keyID); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if code, _, _, err := c.call("GET", "/api/v2/", key, nil, nil); err != nil || code != http.StatusOK {
				t.Fatalf("before revoking, request %d: got %d %v, want 200", i, code, err)
			}
		}
		jar, _ := cookiejar.New(nil)
		client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		post := func(path string, form url.Values) int {
			r, err := client.PostForm(c.proxy.URL+path, form)
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			return r.StatusCode
		}
		if got := post("/login", url.Values{"email": {userEmail}, "password": {userPassword}}); got != http.StatusSeeOther {
			t.Fatalf("sign-in: got %d, want 303", got)
		}
		if got := post(fmt.Sprintf("/account/keys/%d/revoke", keyID), url.Values{"confirm": {"yes"}}); got != http.StatusSeeOther {
			t.Fatalf("revoke: got %d, want 303", got)
		}
		revoked := time.Now() // the revocation has been committed
		// Right after: the revoking instance refuses the key; the others may still
		// accept it from memory, within the bound.
		accepted := 0
		for i := range 3 {
			code, _, _, err := c.call("GET", "/api/v2/", key, nil, nil)
			switch {
			case err == nil && code == http.StatusOK:
				accepted++
			case err == nil && code == http.StatusUnauthorized:
			default:
				t.Fatalf("right after revoking, request %d: got %d %v", i, code, err)
			}
		}
		if accepted == 3 {
			t.Fatal("right after revoking: all 3 instances accepted the key, the revoking one included")
		}
		time.Sleep(time.Until(revoked.Add(web.KeyCacheTTL)))
		for i := range 6 {
			if code, _, _, err := c.call("GET", "/api/v2/", key, nil, nil); err != nil || code != http.StatusUnauthorized {
				t.Fatalf("%v after revoking, request %d: got %d %v, want 401 on every instance", web.KeyCacheTTL, i, code, err)
			}
		}
		t.Logf("SCALE key revocation: right after, %d of 3 instances still accepted the key from memory; %v after, 6 of 6 requests refused", accepted, web.KeyCacheTTL)
	})

	t.Run("ReactivationsEmailedOnce", func(t *testing.T) {
		const nPurchases, nPlain = 40, 20
		keys := make([]string, 8)
		for i := range keys {
			keys[i] = c.apiKey(1, fmt.Sprintf("scale-%d", i))
		}
		ids := c.purchases(1, nPurchases)
		for _, id := range ids {
			mustExec(t, c.pdb, fmt.Sprintf("UPDATE purchases SET status = 'PND' WHERE id = %d", id))
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		bad := map[string]int{}
		note := func(what string, code int, err error) {
			if err == nil && code == http.StatusOK {
				return
			}
			mu.Lock()
			bad[fmt.Sprintf("%s: %d %v", what, code, err)]++
			mu.Unlock()
		}
		n := 0
		for i, id := range ids {
			path := fmt.Sprintf("/api/v2/purchases/%d/reactivate", id)
			// The same Idempotency-Key three times at once, one per instance.
			for range 3 {
				key := keys[n%len(keys)]
				n++
				wg.Go(func() {
					code, _, _, err := c.call("POST", path, key, strings.NewReader("refulfill=1"),
						map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Idempotency-Key": fmt.Sprintf("scale-%d", i)})
					note("keyed reactivation", code, err)
				})
			}
			if i < nPlain {
				key := keys[n%len(keys)]
				n++
				wg.Go(func() {
					code, _, _, err := c.call("POST", path, key, nil, nil)
					note("plain reactivation", code, err)
				})
			}
		}
		// List and detail traffic meanwhile.
		stop := make(chan struct{})
		var reads atomic.Int64
		var readers sync.WaitGroup
		for w := range 4 {
			readers.Go(func() {
				for j := 0; ; j++ {
					select {
					case <-stop:
						return
					default:
					}
					key := keys[(w+j)%len(keys)]
					path := "/api/v2/purchases?per_page=50&order=desc"
					if j%2 == 1 {
						path = fmt.Sprintf("/api/v2/purchases/%d", ids[j%len(ids)])
					}
					code, _, _, err := c.call("GET", path, key, nil, nil)
					note("read", code, err)
					reads.Add(1)
				}
			})
		}
		wg.Wait()
		close(stop)
		readers.Wait()
		if len(bad) > 0 {
			t.Fatalf("requests that did not answer 200: %v", bad)
		}

		want := nPurchases + nPlain
		in := inList(ids)
		var queued, reactivated, idem int
		if err := c.pdb.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE purchase_id IN " + in).Scan(&queued); err != nil {
			t.Fatal(err)
		}
		if err := c.pdb.QueryRow("SELECT COUNT(*) FROM purchase_activity WHERE action = 'reactivated' AND purchase_id IN " + in).Scan(&reactivated); err != nil {
			t.Fatal(err)
		}
		if err := c.pdb.QueryRow("SELECT COUNT(*) FROM idempotency_keys WHERE purchase_id IN " + in).Scan(&idem); err != nil {
			t.Fatal(err)
		}
		c.smtp.Wait(want, 60*time.Second)
		// Anything sent twice would arrive within a few polls of the three senders.
		time.Sleep(3 * time.Second)
		msgs := c.smtp.Messages()
		seen := map[string]int{}
		dup := 0
		for _, m := range msgs {
			seen[m.MessageID]++
			if seen[m.MessageID] == 2 {
				dup++
			}
		}
		var unsent int
		if err := c.pdb.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE status <> 'sent'").Scan(&unsent); err != nil {
			t.Fatal(err)
		}
		breaches := reactivated - want
		t.Logf("SCALE e-mail: %d reactivation requests (%d with an Idempotency-Key sent 3 times at once) and %d reads through 3 instances; "+
			"%d e-mails queued, %d messages received (%d distinct, %d sent twice), %d expected; %d reactivations recorded, %d idempotency breaches",
			n, nPurchases, reads.Load(), queued, len(msgs), len(seen), dup, want, reactivated, breaches)
		if queued != want || len(msgs) != want || len(seen) != want || dup != 0 || unsent != 0 {
			t.Fatalf("e-mails: %d queued, %d received, %d distinct, %d not marked sent; want %d each, once", queued, len(msgs), len(seen), unsent, want)
		}
		if reactivated != want || idem != nPurchases {
			t.Fatalf("reactivations: %d recorded and %d idempotency keys, want %d and %d", reactivated, idem, want, nPurchases)
		}
	})

	t.Run("WebhooksDeliveredOnce", func(t *testing.T) { hooks.deliveredOnce(t, c, 1) })

	t.Run("RateLimitAcrossInstances", func(t *testing.T) {
		// 6000 a minute (100 a second) with bursts of 60, offered at about 300 a second
		// for 3 seconds through three instances.
		key := c.apiKey(2, "scale-rate")
		var ok, limited, other atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for range 6 {
			wg.Go(func() {
				for time.Since(start) < 3*time.Second {
					code, h, _, err := c.call("GET", "/api/v2/", key, nil, nil)
					switch {
					case err == nil && code == http.StatusOK:
						ok.Add(1)
					case err == nil && code == http.StatusTooManyRequests && h.Get("Retry-After") != "":
						limited.Add(1)
					default:
						other.Add(1)
					}
					time.Sleep(20 * time.Millisecond)
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		allowed := 60 + 100*elapsed.Seconds()
		ratio := float64(ok.Load()) / allowed
		t.Logf("SCALE rate limit: %d answered, %d refused (429), %d other in %.2fs; the limit allows %.0f: %.1f%%",
			ok.Load(), limited.Load(), other.Load(), elapsed.Seconds(), allowed, 100*ratio)
		if other.Load() != 0 || limited.Load() == 0 {
			t.Fatalf("got %d other answers and %d refusals, want none and some", other.Load(), limited.Load())
		}
		if ratio < 0.9 || ratio > 1.1 {
			t.Fatalf("answered %d, want within 10%% of %.0f", ok.Load(), allowed)
		}
	})

	t.Run("ReplicaReadYourWrites", func(t *testing.T) {
		key := c.apiKey(2, "scale-replica")
		other := c.apiKey(1, "scale-replica-other")
		ids := c.purchases(2, 10)
		for _, id := range ids {
			mustExec(t, c.pdb, fmt.Sprintf("UPDATE purchases SET status = 'PND' WHERE id = %d", id))
		}
		c.waitReplica(30 * time.Second)
		list := func(key string) {
			t.Helper()
			for range 20 {
				if code, _, body, err := c.call("GET", "/api/v2/purchases?per_page=20", key, nil, nil); err != nil || code != 200 {
					t.Fatalf("list: %d %v %s", code, err, body)
				}
			}
		}
		before := c.replicaSelects()
		list(key)
		if d := c.replicaSelects() - before; d < listSelects {
			t.Fatalf("the replica served %d SELECTs for 20 list pages, want them all there", d)
		}

		mustExec(t, c.rdb, "STOP SLAVE SQL_THREAD")
		stale, lagging := 0, 0
		for _, id := range ids {
			code, _, body, err := c.call("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", id), key, nil, nil)
			if err != nil || code != 200 {
				t.Fatalf("reactivate %d: %d %v %s", id, code, err, body)
			}
			c.dropFences(t)
			var p purchaseJSON
			code, _, body, err = c.call("GET", fmt.Sprintf("/api/v2/purchases/%d", id), key, nil, nil)
			if err != nil || code != 200 || json.Unmarshal(body, &p) != nil {
				t.Fatalf("read %d: %d %v %s", id, code, err, body)
			}
			if p.Status != "ACT" {
				stale++
			}
			var page []purchaseJSON
			code, _, body, err = c.call("GET", "/api/v2/purchases?status=PND&per_page=500", key, nil, nil)
			if err != nil || code != 200 || json.Unmarshal(body, &page) != nil {
				t.Fatalf("list: %d %v %s", code, err, body)
			}
			if slices.ContainsFunc(page, func(q purchaseJSON) bool { return q.ID == id }) {
				stale++
			}
			var st string
			if err := c.rdb.QueryRow("SELECT status FROM purchases WHERE id = ?", id).Scan(&st); err != nil {
				t.Fatal(err)
			}
			if st != "ACT" {
				lagging++
			}
		}
		// Another account's reads still go to the lagging replica.
		before = c.replicaSelects()
		list(other)
		otherOnReplica := c.replicaSelects() - before
		mustExec(t, c.rdb, "START SLAVE SQL_THREAD")
		c.waitReplica(30 * time.Second)
		before = c.replicaSelects()
		list(key)
		backOnReplica := c.replicaSelects() - before
		t.Logf("SCALE replica lag (fences deleted: %v): %d reactivations each read back at once (detail and list) while the replica had not applied %d of them: %d stale reads; "+
			"another account's 20 list pages meanwhile: %d SELECTs on the replica; after catching up: %d",
			noFence, len(ids), lagging, stale, otherOnReplica, backOnReplica)
		if lagging != len(ids) {
			t.Fatalf("the replica applied %d of the writes while stopped, want none: the lag was not real", len(ids)-lagging)
		}
		checkStale(t, stale, "after the account's own writes")
		if otherOnReplica < listSelects || backOnReplica < listSelects {
			t.Fatalf("replica SELECTs: %d for another account while lagging, %d after catching up; want both on the replica", otherOnReplica, backOnReplica)
		}
	})

	t.Run("ImportSeenAtOnce", func(t *testing.T) {
		// storefront import, a process of its own, fences the accounts it wrote to: with
		// the replica not applying anything, the imported purchase reads back as
		// imported on every instance.
		key := c.apiKey(2, "scale-import")
		id := c.purchases(2, 1)[0]
		c.waitReplica(30 * time.Second)
		code, _, body, err := c.call("GET", fmt.Sprintf("/api/v2/purchases/%d", id), key, nil, nil)
		var doc map[string]any
		if err != nil || code != 200 || json.Unmarshal(body, &doc) != nil {
			t.Fatalf("read %d: %d %v %s", id, code, err, body)
		}
		var sub sql.NullInt64
		if err := c.pdb.QueryRow("SELECT subscriber_id FROM purchases WHERE id = ?", id).Scan(&sub); err != nil {
			t.Fatal(err)
		}
		doc["subscriber_id"] = nil
		if sub.Valid {
			doc["subscriber_id"] = sub.Int64
		}
		doc["status"] = "HLD"
		file := filepath.Join(c.dir, "import.json")
		b, _ := json.Marshal(map[string]any{"purchases": []any{doc}})
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}

		mustExec(t, c.rdb, "STOP SLAVE SQL_THREAD")
		defer func() {
			mustExec(t, c.rdb, "START SLAVE SQL_THREAD")
			c.waitReplica(30 * time.Second)
		}()
		cmd := exec.Command(c.bin, "import", file)
		cmd.Env = append(os.Environ(), c.env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("storefront import: %v\n%s", err, out)
		}
		c.dropFences(t)
		stale := 0
		for range 6 { // each instance twice
			var p purchaseJSON
			code, _, body, err := c.call("GET", fmt.Sprintf("/api/v2/purchases/%d", id), key, nil, nil)
			if err != nil || code != 200 || json.Unmarshal(body, &p) != nil {
				t.Fatalf("read %d after the import: %d %v %s", id, code, err, body)
			}
			if p.Status != "HLD" {
				stale++
			}
		}
		var onReplica string
		if err := c.rdb.QueryRow("SELECT status FROM purchases WHERE id = ?", id).Scan(&onReplica); err != nil {
			t.Fatal(err)
		}
		t.Logf("SCALE import (fences deleted: %v): 6 reads right after an import while the replica lagged (status there %s): %d stale", noFence, onReplica, stale)
		if onReplica == "HLD" {
			t.Fatal("the replica applied the import while stopped: the lag was not real")
		}
		checkStale(t, stale, "after the import")
	})

	t.Run("ReplicaDown", func(t *testing.T) {
		key := c.apiKey(2, "scale-down")
		ids := c.purchases(2, 5)
		if err := c.replica.Stop(); err != nil {
			t.Fatal(err)
		}
		failed, total := 0, 0
		start := time.Now()
		for i := range 60 {
			path := "/api/v2/purchases?per_page=20"
			if i%2 == 1 {
				path = "/api/v2/purchases/" + strconv.FormatInt(ids[i%len(ids)], 10)
			}
			code, _, _, err := c.call("GET", path, key, nil, nil)
			total++
			if err != nil || code != 200 {
				failed++
			}
		}
		downFor := time.Since(start)
		var err error
		c.replica, err = mariadb.StartWith(context.Background(), filepath.Join(c.dir, "replica"), c.replOpt)
		if err != nil {
			t.Fatalf("restart replica: %v", err)
		}
		c.waitReplica(30 * time.Second)
		// The health check (every second) finds it again.
		time.Sleep(2500 * time.Millisecond)
		before := c.replicaSelects()
		for range 20 {
			if code, _, _, err := c.call("GET", "/api/v2/purchases?per_page=20", key, nil, nil); err != nil || code != 200 {
				t.Fatalf("after restart: %d %v", code, err)
			}
		}
		back := c.replicaSelects() - before
		t.Logf("SCALE replica down: %d of %d reads failed in %.2fs with the replica stopped; after its restart the replica served %d SELECTs for 20 list pages",
			failed, total, downFor.Seconds(), back)
		if failed != 0 {
			t.Fatalf("got %d failed reads with the replica down, want 0", failed)
		}
		if back < listSelects {
			t.Fatalf("the replica served %d SELECTs after its restart, want the reads back on it", back)
		}
	})
}

// purchases returns n purchases of the account that can be reactivated and e-mailed.
func (c *cluster) purchases(account int64, n int) []int64 {
	c.t.Helper()
	rows, err := c.pdb.Query(`SELECT id FROM purchases WHERE account_id = ? AND status IN ('ACT', 'PND', 'ERR')
		AND buyer_email LIKE '%_@_%' ORDER BY RAND() LIMIT ?`, account, n)
	if err != nil {
		c.t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			c.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if len(ids) != n {
		c.t.Fatalf("got %d purchases of account %d to reactivate, want %d", len(ids), account, n)
	}
	return ids
}

func inList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return "(" + strings.Join(s, ",") + ")"
}
