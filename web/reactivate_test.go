package web_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// reactivatable returns a purchase of account 1 with a customer, two line items and
// shipping-free, set to the given status.
func (e *apiEnv) purchaseWithStatus(status string, skip map[int64]bool) int64 {
	e.t.Helper()
	id := e.pick(`SELECT p.id FROM purchases p WHERE p.account_id = ? AND p.customer_id IS NOT NULL
		AND p.id IN (SELECT li.purchase_id FROM line_items li WHERE li.account_id = ? GROUP BY li.purchase_id HAVING COUNT(*) >= 2) ORDER BY p.id DESC LIMIT 200`, skip, e.id(1), e.id(1))
	if id == 0 {
		e.t.Fatal("no purchase left to use")
	}
	if _, err := e.db.Exec("UPDATE purchases SET status = ? WHERE id = ?", status, id); err != nil {
		e.t.Fatal(err)
	}
	e.rebuild()
	return id
}

// pick returns the first purchase id the query finds (with args) that is not used
// yet, and marks it used; 0 when every one is.
func (e *apiEnv) pick(query string, used map[int64]bool, args ...any) int64 {
	e.t.Helper()
	for _, id := range e.ids(query, args...) {
		if !used[id] {
			used[id] = true
			return id
		}
	}
	return 0
}

func (e *apiEnv) reactivate(id int64, key, body, contentType string, header map[string]string) response {
	e.t.Helper()
	h := map[string]string{"Content-Type": contentType}
	for k, v := range header {
		h[k] = v
	}
	return e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", id), key, strings.NewReader(body), h)
}

const form = "application/x-www-form-urlencoded"

func TestAPI_Reactivate(t *testing.T) {
	e := newAPI(t, 0)
	used := map[int64]bool{}
	sent := 0

	t.Run("FromEveryStatus", func(t *testing.T) {
		e := e.with(t)
		for _, st := range []string{"ACT", "PND", "ERR"} {
			id := e.purchaseWithStatus(st, used)
			// Downloads used up and expired before.
			dbtest_exec(t, e, fmt.Sprintf("UPDATE line_items SET download_count = 9, download_limit = 1, expires_at = '2020-01-01' WHERE purchase_id = %d", id))
			r := e.reactivate(id, e.rw, "", form, nil)
			if r.status != 200 || strings.TrimSpace(string(r.body)) != `{"status":"OK"}` {
				t.Fatalf("%s: got %d %s", st, r.status, r.body)
			}
			sent++
			var p purchase
			e.get(fmt.Sprintf("/api/v2/purchases/%d", id), e.ro).json(t, &p)
			var limit, days int64
			e.db.QueryRow("SELECT s.download_limit, s.download_days FROM storefronts s JOIN purchases p ON p.storefront_id = s.id WHERE p.id = ?", id).Scan(&limit, &days)
			if p.Status != "ACT" {
				t.Fatalf("%s: status after reactivation %s, want ACT", st, p.Status)
			}
			for _, li := range p.LineItems {
				if li.DownloadCount != 0 || li.DownloadLimit != limit {
					t.Fatalf("%s: line item %d: count %d limit %d, want 0 and %d", st, li.ID, li.DownloadCount, li.DownloadLimit, limit)
				}
				if days == 0 && li.ExpiresAt != nil || days > 0 && (li.ExpiresAt == nil || *li.ExpiresAt != now.Add(time.Duration(days)*24*time.Hour).Unix()) {
					t.Fatalf("%s: expires_at %v with a window of %d days", st, li.ExpiresAt, days)
				}
			}
		}
		for _, st := range []string{"RFD", "CAN", "HLD"} {
			id := e.purchaseWithStatus(st, used)
			eb := wantError(t, e.reactivate(id, e.rw, "", form, nil), 409, "CONFLICT", "not_reactivatable", "")
			if !strings.Contains(eb.Error.Message, st) {
				t.Fatalf("message %q does not name the status %s", eb.Error.Message, st)
			}
			var status string
			e.db.QueryRow("SELECT status FROM purchases WHERE id = ?", id).Scan(&status)
			if status != st {
				t.Fatalf("a refused reactivation changed the status to %s", status)
			}
		}
		e.smtp.Wait(sent, 60*time.Second)
	})

	t.Run("EmailAddressAndContent", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("ACT", used)
		var p purchase
		e.get(fmt.Sprintf("/api/v2/purchases/%d", id), e.ro).json(t, &p)
		var salt string
		e.db.QueryRow("SELECT salt FROM purchases WHERE id = ?", id).Scan(&salt)

		// Given address, then the customer's, then the buyer's.
		r := e.reactivate(id, e.rw, "customer_email=someone.else%40example.org", form, nil)
		if r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		sent++
		msgs := e.smtp.Wait(sent, 60*time.Second)
		m := msgs[len(msgs)-1]
		if m.To != "someone.else@example.org" {
			t.Fatalf("sent to %s, want the given address", m.To)
		}
		for _, li := range p.LineItems {
			if !strings.Contains(m.Body, li.ProductName) {
				t.Fatalf("body lacks product %q:\n%s", li.ProductName, m.Body)
			}
			link := fmt.Sprintf("http://shop.test/downloads/%s/%d", salt, li.ID)
			if !strings.Contains(m.Body, link) {
				t.Fatalf("body lacks download link %s:\n%s", link, m.Body)
			}
			for _, k := range li.ProductKeys {
				if !strings.Contains(m.Body, k) {
					t.Fatalf("body lacks product key %s", k)
				}
			}
		}

		r = e.reactivate(id, e.rw, `{"customer_email":"  "}`, "application/json", nil)
		if r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		sent++
		msgs = e.smtp.Wait(sent, 60*time.Second)
		if got := msgs[len(msgs)-1].To; p.Customer == nil || p.Customer.Email == nil || got != *p.Customer.Email {
			t.Fatalf("blank customer_email: sent to %s, want the customer's address", got)
		}

		dbtest_exec(t, e, fmt.Sprintf("UPDATE purchases SET customer_id = NULL, buyer_email = 'buyer@example.net' WHERE id = %d", id))
		if r := e.reactivate(id, e.rw, "", form, nil); r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		sent++
		msgs = e.smtp.Wait(sent, 60*time.Second)
		if got := msgs[len(msgs)-1].To; got != "buyer@example.net" {
			t.Fatalf("no customer: sent to %s, want the buyer's address", got)
		}

		// The activity records who, to whom, and whether it refulfilled.
		var actor, details string
		e.db.QueryRow("SELECT actor, details FROM purchase_activity WHERE purchase_id = ? AND action = 'reactivated' ORDER BY id LIMIT 1", id).Scan(&actor, &details)
		if !strings.Contains(actor, "API key") || !strings.Contains(details, "someone.else@example.org") || !strings.Contains(details, `"refulfill":false`) {
			t.Fatalf("activity: %s %s", actor, details)
		}
	})

	t.Run("Refulfill", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("ACT", used)
		var li int64
		e.db.QueryRow("SELECT MIN(id) FROM line_items WHERE purchase_id = ?", id).Scan(&li)
		dbtest_exec(t, e,
			fmt.Sprintf("DELETE FROM product_keys WHERE line_item_id = %d", li),
			fmt.Sprintf("INSERT INTO product_keys (line_item_id, position, account_id, purchase_id, key_value) SELECT %d, 0, account_id, id, 'KEEP-ME' FROM purchases WHERE id = %d", li, id),
			fmt.Sprintf("UPDATE line_items SET quantity = 3, has_all_keys = FALSE WHERE id = %d", li))
		if r := e.reactivate(id, e.rw, `{"refulfill":true}`, "application/json", nil); r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		sent++
		var p purchase
		e.get(fmt.Sprintf("/api/v2/purchases/%d", id), e.ro).json(t, &p)
		for _, item := range p.LineItems {
			if !item.HasAllKeys || int64(len(item.ProductKeys)) < item.Quantity {
				t.Fatalf("line item %d: %d keys for quantity %d, has_all_keys %v", item.ID, len(item.ProductKeys), item.Quantity, item.HasAllKeys)
			}
			if item.ID == li && (len(item.ProductKeys) != 3 || item.ProductKeys[0] != "KEEP-ME") {
				t.Fatalf("line item %d: keys %v, want KEEP-ME and two new ones", li, item.ProductKeys)
			}
		}
		msgs := e.smtp.Wait(sent, 60*time.Second)
		for _, item := range p.LineItems {
			for _, k := range item.ProductKeys {
				if !strings.Contains(msgs[len(msgs)-1].Body, k) {
					t.Fatalf("e-mail lacks refulfilled key %s", k)
				}
			}
		}
		// Without refulfill nothing is generated.
		dbtest_exec(t, e, fmt.Sprintf("UPDATE line_items SET quantity = 4 WHERE id = %d", li))
		if r := e.reactivate(id, e.rw, "refulfill=0", form, nil); r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		sent++
		if n := e.count("SELECT COUNT(*) FROM product_keys WHERE line_item_id = ?", li); n != 3 {
			t.Fatalf("refulfill=0 made keys: %d", n)
		}
	})

	t.Run("Idempotency", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("PND", used)
		count := func() (activity, outbox int) {
			e.db.QueryRow("SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ? AND action = 'reactivated'", id).Scan(&activity)
			e.db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE purchase_id = ?", id).Scan(&outbox)
			return
		}
		key := map[string]string{"Idempotency-Key": "order-42-retry"}
		for i := 0; i < 3; i++ {
			r := e.reactivate(id, e.rw, "refulfill=true", form, key)
			if r.status != 200 || strings.TrimSpace(string(r.body)) != `{"status":"OK"}` {
				t.Fatalf("attempt %d: got %d %s", i, r.status, r.body)
			}
		}
		sent++
		if a, o := count(); a != 1 || o != 1 {
			t.Fatalf("three calls with one key: %d reactivations, %d e-mails; want 1 and 1", a, o)
		}
		wantError(t, e.reactivate(id, e.rw, "refulfill=false", form, key), 409, "CONFLICT", "idempotency_conflict", "Idempotency-Key")
		// The same key on another purchase is another request.
		other := e.purchaseWithStatus("ACT", used)
		if r := e.reactivate(other, e.rw, "refulfill=true", form, key); r.status != 200 {
			t.Fatalf("same key, other purchase: %d %s", r.status, r.body)
		}
		sent++
		// After 24 hours the key is forgotten.
		e.clock.advance(25 * time.Hour)
		defer e.clock.advance(-25 * time.Hour)
		if r := e.reactivate(id, e.rw, "refulfill=true", form, key); r.status != 200 {
			t.Fatalf("after 24 h: %d %s", r.status, r.body)
		}
		sent++
		if a, _ := count(); a != 2 {
			t.Fatalf("after 24 h: %d reactivations, want 2", a)
		}
		// Without the header every call reactivates again.
		e.reactivate(id, e.rw, "", form, nil)
		e.reactivate(id, e.rw, "", form, map[string]string{"Idempotency-Key": ""})
		sent += 2
		if a, _ := count(); a != 4 {
			t.Fatalf("without a key: %d reactivations, want 4", a)
		}
		wantError(t, e.reactivate(id, e.rw, "", form, map[string]string{"Idempotency-Key": strings.Repeat("k", 256)}), 400, "INVALID", "invalid_parameter", "Idempotency-Key")
		wantError(t, e.reactivate(id, e.rw, "", form, map[string]string{"Idempotency-Key": "caf\xc3\xa9"}), 400, "INVALID", "invalid_parameter", "Idempotency-Key")
		// A remembered 409 is answered again even once the state would allow it.
		held := e.purchaseWithStatus("HLD", used)
		hk := map[string]string{"Idempotency-Key": "held-1"}
		wantError(t, e.reactivate(held, e.rw, "", form, hk), 409, "CONFLICT", "not_reactivatable", "")
		dbtest_exec(t, e, fmt.Sprintf("UPDATE purchases SET status = 'ACT' WHERE id = %d", held))
		wantError(t, e.reactivate(held, e.rw, "", form, hk), 409, "CONFLICT", "not_reactivatable", "")
	})

	t.Run("ConcurrentSameKey", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("ACT", used)
		var wg sync.WaitGroup
		codes := make([]int, 8)
		for i := range codes {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/v2/purchases/%d/reactivate", e.url, id), strings.NewReader("refulfill=1"))
				req.SetBasicAuth(e.user, e.rw)
				req.Header.Set("Content-Type", form)
				req.Header.Set("Idempotency-Key", "parallel")
				res, err := http.DefaultClient.Do(req)
				if err == nil {
					codes[i] = res.StatusCode
					res.Body.Close()
				}
			}(i)
		}
		wg.Wait()
		sent++
		for i, c := range codes {
			if c != 200 {
				t.Fatalf("request %d: %d", i, c)
			}
		}
		if a := e.count("SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ? AND action = 'reactivated'", id); a != 1 {
			t.Fatalf("8 parallel calls with one key: %d reactivations", a)
		}
	})

	t.Run("Errors", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("ACT", used)
		path := fmt.Sprintf("/api/v2/purchases/%d/reactivate", id)
		// The order of checks: scope, then path id, then body, then state.
		wantError(t, e.reactivate(id, e.ro, "", form, nil), 403, "FORBIDDEN", "forbidden", "")
		wantError(t, e.do("POST", "/api/v2/purchases/x/reactivate", e.ro, nil, nil), 403, "FORBIDDEN", "forbidden", "")
		wantError(t, e.do("POST", "/api/v2/purchases/x/reactivate", e.rw, nil, nil), 400, "INVALID", "invalid_parameter", "id")
		wantError(t, e.do("POST", "/api/v2/purchases/99999999/reactivate", e.rw, strings.NewReader("refulfill=maybe"), map[string]string{"Content-Type": form}), 404, "NOTFOUND", "not_found", "")
		refunded := e.purchaseWithStatus("RFD", used)
		wantError(t, e.reactivate(refunded, e.rw, "refulfill=maybe", form, nil), 400, "INVALID", "invalid_parameter", "refulfill")
		for _, tc := range []struct{ body, ct, code, param string }{
			{"refulfill=yes", form, "invalid_parameter", "refulfill"},
			{`{"refulfill":2}`, "application/json", "invalid_parameter", "refulfill"},
			{`{"refulfill":1.0}`, "application/json", "invalid_parameter", "refulfill"},
			{`{"refulfill":"yes"}`, "application/json", "invalid_parameter", "refulfill"},
			{"customer_email=not-an-address", form, "invalid_parameter", "customer_email"},
			{"customer_email=a%40b.com%0D%0ABcc%3A+x%40evil.test", form, "invalid_parameter", "customer_email"},
			{`{"customer_email":"a@b.com\r\nBcc: x@evil.test"}`, "application/json", "invalid_parameter", "customer_email"},
			{`{"customer_email":5}`, "application/json", "invalid_parameter", "customer_email"},
			{"refund=1", form, "unknown_parameter", "refund"},
			{`{"refulfill":true,"note":"x"}`, "application/json", "unknown_parameter", "note"},
			{`{"refulfill":`, "application/json", "invalid_parameter", ""},
			{`[1,2]`, "application/json", "invalid_parameter", ""},
		} {
			t.Run(tc.body, func(t *testing.T) {
				wantError(t, e.reactivate(id, e.rw, tc.body, tc.ct, nil), 400, "INVALID", tc.code, tc.param)
			})
		}
		// Accepted spellings.
		for _, tc := range []struct{ body, ct string }{
			{"refulfill=TRUE", form}, {"refulfill=0", form}, {`{"refulfill":1}`, "application/json"}, {`{"refulfill":false}`, "application/json"},
			{`{}`, "application/json"}, {"", ""}, {"refulfill=&customer_email=", form},
		} {
			if r := e.reactivate(id, e.rw, tc.body, tc.ct, nil); r.status != 200 {
				t.Fatalf("%q: got %d %s", tc.body, r.status, r.body)
			}
			sent++
		}
		if r := e.do("POST", path+"?refulfill=1", e.rw, nil, nil); r.status != 200 {
			t.Fatalf("query-string parameters: got %d %s", r.status, r.body)
		}
		sent++
	})

	t.Run("AllMailDeliveredOnce", func(t *testing.T) {
		e := e.with(t)
		var queued int
		e.db.QueryRow("SELECT COUNT(*) FROM email_outbox WHERE account_id IN (?, ?)", e.id(1), e.id(2)).Scan(&queued)
		e.smtp.Wait(queued, 90*time.Second)
		time.Sleep(200 * time.Millisecond)
		msgs := e.smtp.Messages()
		if len(msgs) != queued {
			t.Fatalf("SMTP server got %d messages for %d queued", len(msgs), queued)
		}
		seen := map[string]bool{}
		for _, m := range msgs {
			if seen[m.MessageID] {
				t.Fatalf("message %s sent twice", m.MessageID)
			}
			seen[m.MessageID] = true
		}
	})
}

func dbtest_exec(t *testing.T, e *apiEnv, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := e.db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	e.rebuild()
}

func TestAPI_RateLimit(t *testing.T) {
	e := newAPI(t, 5)
	var last response
	for i := 0; i < 5; i++ {
		last = e.get("/api/v2/", e.ro)
		if last.status != 200 {
			t.Fatalf("request %d: %d", i, last.status)
		}
		if last.header.Get("RateLimit-Limit") != "5" || last.header.Get("RateLimit-Remaining") != strconv.Itoa(4-i) || last.header.Get("RateLimit-Reset") == "" {
			t.Fatalf("request %d headers: %v", i, last.header)
		}
	}
	r := e.get("/api/v2/", e.ro)
	wantError(t, r, 429, "RATE_LIMITED", "rate_limited", "")
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 12 {
		t.Fatalf("Retry-After: %q", r.header.Get("Retry-After"))
	}
	if r.header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("RateLimit-Remaining: %q", r.header.Get("RateLimit-Remaining"))
	}
	// Per key: another key still has its whole allowance.
	if r := e.get("/api/v2/", e.rw); r.status != 200 {
		t.Fatalf("another key: %d", r.status)
	}
	// The bucket refills at 5 a minute: one request after 12 s.
	e.clock.advance(12 * time.Second)
	if r := e.get("/api/v2/", e.ro); r.status != 200 {
		t.Fatalf("after 12 s: %d", r.status)
	}
}

// FuzzAPI feeds arbitrary query strings to the running router: the answer is never a
// 500, and every error answer is the API's JSON error.
func FuzzAPI(f *testing.F) {
	e := newAPI(f, 0)
	for _, s := range []string{
		"status=ACT,rfd&per_page=3", "date_min=last+monday&date_max=%40170000", "total=1.5&total_op=gt", "cursor=AQ",
		"per_page=5&page=2", "a=%FF", "customer_email=%27%3B+DROP+TABLE+purchases%3B--", "ship=1&order=desc&include_count=1",
		"date_min=" + strings.Repeat("9", 300), "total=" + strings.Repeat("1", 60),
	} {
		f.Add("/api/v2/purchases", s)
		f.Add(e.path("/api/v2/storefronts/%d/subscribers", 1), s)
		f.Add(e.path("/api/v2/storefronts/%d/subscribers/verify", 1), s)
	}
	f.Add(e.path("/api/v2/purchases/%d", 1), "")
	f.Add(e.path("/api/v2/storefronts/99999999999999999999/subscribers/%d", 1), "")
	f.Fuzz(func(t *testing.T, path, query string) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		u := &url.URL{Path: path, RawQuery: query}
		req := httptest.NewRequest("GET", "http://shop.test/", nil)
		req.URL = u
		req.RequestURI = u.RequestURI()
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(e.user+":"+e.rw)))
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s?%s: %d %s", path, query, rec.Code, rec.Body)
		}
		if strings.HasPrefix(path, "/api/") && rec.Code >= 400 && !strings.Contains(rec.Body.String(), `"error":{"code":"`) {
			t.Fatalf("%s?%s: %d without an error body: %s", path, query, rec.Code, rec.Body)
		}
	})
}
