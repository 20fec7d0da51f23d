package web_test

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// auditRow is an audit record of account 1 as the database holds it.
type auditRow struct {
	id                      int64
	userID                  int64
	keyID                   sql.NullInt64
	actor, action, details  string
	address, agent, created string
}

// auditSince returns account 1's audit records after id, oldest first.
func (e *apiEnv) auditSince(after int64) []auditRow {
	e.t.Helper()
	return dbtest.Query(e.t, e.db.DB, func(rows *sql.Rows) (r auditRow, err error) {
		var at time.Time
		err = rows.Scan(&r.id, &r.userID, &r.keyID, &r.actor, &r.action, &r.details, &r.address, &r.agent, &at)
		r.created = at.UTC().Format(time.RFC3339)
		return r, err
	}, `SELECT id, user_id, api_key_id, actor, action, details, address, user_agent, created_at FROM audit_records
		WHERE account_id = ? AND id > ? ORDER BY id`, e.id(1), after)
}

// lastAudit is the id of account 1's latest audit record.
func (e *apiEnv) lastAudit() int64 {
	e.t.Helper()
	var id int64
	if err := e.db.QueryRow("SELECT COALESCE(MAX(id), 0) FROM audit_records WHERE account_id = ?", e.id(1)).Scan(&id); err != nil {
		e.t.Fatal(err)
	}
	return id
}

// TestAuditLog_EachAction does each recorded action once through the dashboard or the
// API of a real server and finds exactly one record of it, by the right actor, from
// the client's address and user agent; a refused action leaves none.
func TestAuditLog_EachAction(t *testing.T) {
	e := newAPI(t, 0)
	e.db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	owner := e.signIn(e.id(1), "owner")
	staff := e.signIn(e.id(1), "staff")
	viewer := e.signIn(e.id(1), "viewer")
	var keyID int64
	if err := e.db.QueryRow("SELECT id FROM api_keys WHERE account_id = ? AND name = 'tests'", e.id(1)).Scan(&keyID); err != nil {
		t.Fatal(err)
	}
	ids := idsByStatus(t, e, "ACT", 50)

	// did runs an action and wants exactly one new record: the action by the user (or
	// by the tests' API key when u is nil), with details containing what.
	did := func(t *testing.T, u *dashUser, action, what string, run func() response) {
		t.Helper()
		last := e.lastAudit()
		r := run()
		if r.status >= 400 {
			t.Fatalf("%s: got %d %s", action, r.status, r.body)
		}
		got := e.auditSince(last)
		if len(got) != 1 {
			t.Fatalf("%s: %d records %+v, want 1", action, len(got), got)
		}
		g := got[0]
		if g.action != action || !strings.Contains(g.details, what) {
			t.Errorf("record %q %q, want %q with %q", g.action, g.details, action, what)
		}
		if u != nil {
			if g.actor != u.email || g.keyID.Valid || g.userID == 0 {
				t.Errorf("%s: actor %q user %d key %v, want %s", action, g.actor, g.userID, g.keyID, u.email)
			}
		} else if g.actor != "tests" || !g.keyID.Valid || g.keyID.Int64 != keyID || g.userID != 0 {
			t.Errorf("%s: actor %q user %d key %v, want the key %d", action, g.actor, g.userID, g.keyID, keyID)
		}
		if g.address != "127.0.0.1" || g.agent != "Go-http-client/1.1" {
			t.Errorf("%s: address %q, user agent %q", action, g.address, g.agent)
		}
	}
	// refused runs an action that is refused and wants no record.
	refused := func(t *testing.T, what string, status int, run func() response) {
		t.Helper()
		last := e.lastAudit()
		if r := run(); r.status != status {
			t.Fatalf("%s: got %d %s, want %d", what, r.status, r.body, status)
		}
		if got := e.auditSince(last); len(got) != 0 {
			t.Fatalf("%s: records %+v, want none", what, got)
		}
	}
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}

	t.Run("Reactivation", func(t *testing.T) {
		did(t, staff, shop.AuditReactivated, "purchase "+ids[0], func() response {
			return staff.post("/purchases/"+ids[0]+"/reactivate", url.Values{})
		})
		did(t, nil, shop.AuditReactivated, "purchase "+ids[1], func() response {
			return e.do("POST", "/api/v2/purchases/"+ids[1]+"/reactivate", e.rw, strings.NewReader("refulfill=0"), form)
		})
		refused(t, "refulfill=maybe (API)", 400, func() response {
			return e.do("POST", "/api/v2/purchases/"+ids[1]+"/reactivate", e.rw, strings.NewReader("refulfill=maybe"), form)
		})
		// The dashboard shows the refusal in the panel.
		refused(t, "refulfill=maybe (dashboard)", 200, func() response {
			return staff.postHTMX("/purchases/"+ids[0]+"/reactivate", url.Values{"refulfill": {"maybe"}})
		})
		refused(t, "a read key", 403, func() response {
			return e.do("POST", "/api/v2/purchases/"+ids[1]+"/reactivate", e.ro, strings.NewReader("refulfill=0"), form)
		})
		refused(t, "a viewer", 403, func() response { return viewer.post("/purchases/"+ids[0]+"/reactivate", url.Values{}) })
		// An idempotent replay changes nothing: one record for the two requests.
		idem := map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Idempotency-Key": "audit-once"}
		did(t, nil, shop.AuditReactivated, "purchase "+ids[2], func() response {
			return e.do("POST", "/api/v2/purchases/"+ids[2]+"/reactivate", e.rw, strings.NewReader("refulfill=0"), idem)
		})
		refused(t, "a replay", 200, func() response {
			return e.do("POST", "/api/v2/purchases/"+ids[2]+"/reactivate", e.rw, strings.NewReader("refulfill=0"), idem)
		})
	})

	t.Run("BulkJob", func(t *testing.T) {
		// The job's items are held back (a transaction locks them), so that it can be
		// cancelled before it ends.
		tx, err := e.db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		var job string
		did(t, staff, shop.AuditJobStarted, "40 purchases", func() response {
			r := staff.post("/jobs", url.Values{"id": ids[10:50]})
			job = strings.TrimPrefix(r.header.Get("Location"), "/jobs/")
			if _, err := tx.Exec("SELECT * FROM job_items WHERE account_id = ? AND job_id = ? FOR UPDATE", e.id(1), job); err != nil {
				t.Fatal(err)
			}
			return r
		})
		refused(t, "no purchase", 200, func() response { return staff.postHTMX("/jobs", url.Values{"id": {"999999999"}}) })
		did(t, owner, shop.AuditJobCancelled, "job "+job, func() response { return owner.postHTMX("/jobs/"+job+"/cancel", nil) })
		refused(t, "cancel an ended job", 200, func() response { return owner.postHTMX("/jobs/"+job+"/cancel", nil) })
		_ = tx.Rollback()
	})

	t.Run("Export", func(t *testing.T) {
		did(t, staff, shop.AuditExport, "purchases CSV", func() response { return staff.get("/purchases.csv?status=RFD", false) })
		did(t, nil, shop.AuditExport, "purchases CSV", func() response { return e.get("/api/v2/purchases.csv?status=RFD", e.rw) })
		refused(t, "an export with a bad filter", 400, func() response { return e.get("/api/v2/purchases.csv?status=NOPE", e.rw) })
	})

	t.Run("Notes", func(t *testing.T) {
		did(t, staff, shop.AuditNoteAdded, "on purchase "+ids[3], func() response {
			return staff.post("/purchases/"+ids[3]+"/notes", url.Values{"body": {"Called the buyer"}})
		})
		refused(t, "an empty note", 422, func() response {
			return staff.post("/purchases/"+ids[3]+"/notes", url.Values{"body": {"  "}})
		})
		refused(t, "a viewer's note", 403, func() response {
			return viewer.post("/purchases/"+ids[3]+"/notes", url.Values{"body": {"x"}})
		})
		var email string
		if err := e.db.QueryRow("SELECT buyer_email FROM purchases WHERE account_id = ? AND id = ?", e.id(1), ids[4]).Scan(&email); err != nil {
			t.Fatal(err)
		}
		did(t, staff, shop.AuditNoteAdded, "on customer "+email, func() response {
			return staff.post("/customers/"+url.PathEscape(email)+"/notes", url.Values{"body": {"VIP"}})
		})
	})

	t.Run("SavedViews", func(t *testing.T) {
		did(t, staff, shop.AuditViewSaved, `"Refunds audit"`, func() response {
			return staff.post("/purchases/views", url.Values{"name": {"Refunds audit"}, "query": {"status=RFD"}})
		})
		refused(t, "a view without a name", 400, func() response {
			return staff.post("/purchases/views", url.Values{"name": {"  "}, "query": {"status=RFD"}})
		})
		var id string
		if err := e.db.QueryRow("SELECT id FROM saved_views WHERE account_id = ? AND name = 'Refunds audit'", e.id(1)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		did(t, staff, shop.AuditViewRemoved, `"Refunds audit"`, func() response { return staff.post("/purchases/views/"+id+"/delete", nil) })
		refused(t, "remove it again", 404, func() response { return staff.post("/purchases/views/"+id+"/delete", nil) })
	})

	t.Run("Users", func(t *testing.T) {
		did(t, owner, shop.AuditUserAdded, "audit.new@shop.test (staff)", func() response {
			return owner.post("/account/users", url.Values{"email": {"audit.new@shop.test"}, "role": {"staff"}, "password": {"initial password"}})
		})
		refused(t, "a bad e-mail", 400, func() response {
			return owner.post("/account/users", url.Values{"email": {"nobody"}, "role": {"staff"}, "password": {"initial password"}})
		})
		refused(t, "staff adding a user", 403, func() response {
			return staff.post("/account/users", url.Values{"email": {"x@shop.test"}, "role": {"staff"}, "password": {"initial password"}})
		})
		id := e.acctUserID("audit.new@shop.test")
		did(t, owner, shop.AuditUserRoleChanged, "staff to viewer", func() response {
			return owner.post(fmt.Sprintf("/account/users/%d/role", id), url.Values{"role": {"viewer"}})
		})
		refused(t, "a bad role", 400, func() response {
			return owner.post(fmt.Sprintf("/account/users/%d/role", id), url.Values{"role": {"king"}})
		})
		did(t, owner, shop.AuditUserRemoved, "audit.new@shop.test", func() response {
			return owner.post(fmt.Sprintf("/account/users/%d/remove", id), url.Values{"confirm": {"yes"}})
		})
		refused(t, "remove again", 404, func() response {
			return owner.post(fmt.Sprintf("/account/users/%d/remove", id), url.Values{"confirm": {"yes"}})
		})
	})

	t.Run("APIKeys", func(t *testing.T) {
		did(t, owner, shop.AuditKeyCreated, `"Audit sync" (read)`, func() response {
			return owner.post("/account/keys", url.Values{"name": {"Audit sync"}, "scope": {"read"}})
		})
		refused(t, "a bad scope", 400, func() response {
			return owner.post("/account/keys", url.Values{"name": {"Kept"}, "scope": {"nope"}})
		})
		id := e.acctKeyID("Audit sync")
		did(t, owner, shop.AuditKeyRevoked, `"Audit sync"`, func() response {
			return owner.post(fmt.Sprintf("/account/keys/%d/revoke", id), url.Values{"confirm": {"yes"}})
		})
		refused(t, "revoke again", 303, func() response {
			return owner.post(fmt.Sprintf("/account/keys/%d/revoke", id), url.Values{"confirm": {"yes"}})
		})
	})

	t.Run("Webhooks", func(t *testing.T) {
		hook := "http://127.0.0.1:9/audit-hook"
		did(t, owner, shop.AuditWebhookAdded, hook, func() response { return owner.post("/webhooks", url.Values{"url": {hook}}) })
		refused(t, "a URL that is no URL", 400, func() response { return owner.post("/webhooks", url.Values{"url": {"ftp://x"}}) })
		refused(t, "staff", 403, func() response { return staff.post("/webhooks", url.Values{"url": {hook}}) })
		var id int64
		if err := e.db.QueryRow("SELECT id FROM webhook_endpoints WHERE account_id = ? AND url = ?", e.id(1), hook).Scan(&id); err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/webhooks/%d", id)
		did(t, owner, shop.AuditWebhookChanged, "disabled", func() response { return owner.post(path+"/disable", nil) })
		did(t, owner, shop.AuditWebhookChanged, "enabled", func() response { return owner.post(path+"/enable", nil) })
		did(t, owner, shop.AuditWebhookRotated, fmt.Sprintf("endpoint %d", id), func() response { return owner.post(path+"/rotate", nil) })
		did(t, owner, shop.AuditWebhookDeleted, hook, func() response { return owner.post(path+"/delete", url.Values{"confirm": {"yes"}}) })
		refused(t, "delete again", 404, func() response { return owner.post(path+"/delete", url.Values{"confirm": {"yes"}}) })
	})
}

// auditPageRow is a row of Account → Audit log as shown, with its record's id.
type auditPageRow struct {
	id                                        string
	when, actor, action, details, address, ua string
}

func auditPageRows(t *testing.T, r response) ([]auditPageRow, subsDoc) {
	t.Helper()
	p := subsParse(t, r)
	var out []auditPageRow
	for _, tr := range p.all("tr", "data-record=") {
		tds := subsAll(tr, "td")
		if len(tds) != 6 {
			t.Fatalf("a row of %d cells", len(tds))
		}
		id, _ := subsAttr(tr, "data-record")
		when, _ := subsAttr(subsAll(tds[0], "time")[0], "datetime")
		out = append(out, auditPageRow{id: id, when: when, actor: nodeText(subsAll(tds[1], "span")[0], func(*html.Node) bool { return false }),
			action: blockText(tds[2]), details: blockText(tds[3]), address: blockText(tds[4]), ua: blockText(tds[5])})
	}
	return out, p
}

// TestAuditLog_Page: owners read the log at Account → Audit log, filtered, paged
// newest first, and its CSV holds the page's rows; others get 403; bad filters are a
// 400 naming the field. The API serves the same records to keys with the audit scope.
func TestAuditLog_Page(t *testing.T) {
	e := newAPI(t, 0)
	owner := e.signIn(e.id(1), "owner")
	staff := e.signIn(e.id(1), "staff")
	ctx := context.Background()
	auditKey, err := mysql.NewAdminService(e.db).CreateAPIKey(ctx, e.id(1), "SIEM", shop.ScopeAudit)
	if err != nil {
		t.Fatal(err)
	}
	// Records over two days: views saved by staff, a note, sign-ins.
	for i := range 5 {
		staff.post("/purchases/views", url.Values{"name": {fmt.Sprintf("View %d", i)}, "query": {"status=RFD"}})
	}
	e.clock.advance(26 * time.Hour)
	for i := range 3 {
		owner.post("/purchases/views", url.Values{"name": {fmt.Sprintf("Owner view %d", i)}, "query": {"status=ACT"}})
	}

	t.Run("NotForOthers", func(t *testing.T) {
		for _, path := range []string{"/account/audit", "/account/audit.csv"} {
			r := staff.get(path, false)
			if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "Only the account&#39;s owners can see the audit log.") {
				t.Errorf("staff %s: got %d %s", path, r.status, r.body)
			}
		}
		if !strings.Contains(string(owner.get("/account", false).body), `href="/account/audit"`) {
			t.Error("Keys & users does not link to the audit log")
		}
	})

	t.Run("FilterAndCSV", func(t *testing.T) {
		q := url.Values{"actor": {" " + strings.ToUpper(staff.email) + " "}, "action": {shop.AuditViewSaved}, "date_min": {"yesterday"}, "date_max": {"today"}}
		r := owner.get("/account/audit?"+q.Encode(), false)
		if r.status != 200 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		rows, _ := auditPageRows(t, r)
		if len(rows) != 5 {
			t.Fatalf("%d rows, want staff's 5 views of yesterday: %+v", len(rows), rows)
		}
		for i, row := range rows {
			if row.actor != staff.email || row.action != "View saved" || !strings.Contains(row.details, fmt.Sprintf(`"View %d"`, 4-i)) || row.address != "127.0.0.1" {
				t.Errorf("row %d: %+v", i, row)
			}
		}
		csvR := owner.get("/account/audit.csv?"+q.Encode(), false)
		if csvR.status != 200 || !strings.HasPrefix(csvR.header.Get("Content-Type"), "text/csv") {
			t.Fatalf("CSV: %d %s", csvR.status, csvR.header)
		}
		recs, err := csv.NewReader(strings.NewReader(string(csvR.body))).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(recs[0], []string{"id", "created_at", "actor_type", "actor", "action", "details", "address", "user_agent"}) {
			t.Fatalf("CSV header %v", recs[0])
		}
		if len(recs)-1 != len(rows) {
			t.Fatalf("CSV has %d records, the page %d", len(recs)-1, len(rows))
		}
		for i, row := range rows {
			c := recs[i+1]
			if c[0] != row.id || c[3] != row.actor || shop.AuditActionLabel(c[4]) != row.action || c[5] != row.details || c[6] != row.address || c[7] != row.ua || c[2] != "user" {
				t.Errorf("CSV row %d %v, page %+v", i, c, row)
			}
		}
	})

	t.Run("KeysetPages", func(t *testing.T) {
		var walked []string
		next := "/account/audit?per_page=3"
		for pages := 0; next != ""; pages++ {
			if pages > 50 {
				t.Fatal("the pages do not end")
			}
			rows, p := auditPageRows(t, owner.get(next, false))
			for _, r := range rows {
				walked = append(walked, r.id)
			}
			next = ""
			if links := p.all("a", "rel=next"); len(links) == 1 {
				next, _ = subsAttr(links[0], "href")
			}
		}
		all := e.auditSince(0)
		if len(walked) != len(all) {
			t.Fatalf("walked %d records, the account has %d", len(walked), len(all))
		}
		for i, r := range all {
			if walked[len(walked)-1-i] != strconv.FormatInt(r.id, 10) {
				t.Fatalf("the pages are not newest first: %v", walked)
			}
		}
	})

	t.Run("BadFilters", func(t *testing.T) {
		for param, q := range map[string]string{
			"date_min": "date_min=next+blursday",
			"date_max": "date_max=%3F%3F",
			"action":   "action=deleted_everything",
			"cursor":   "cursor=abc",
			"per_page": "per_page=0",
			"colour":   "colour=red",
		} {
			r := owner.get("/account/audit?"+q, false)
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), param) {
				t.Errorf("page %s: got %d", q, r.status)
			}
			if r := owner.get("/account/audit.csv?"+q, false); r.status != http.StatusBadRequest {
				t.Errorf("CSV %s: got %d", q, r.status)
			}
			wantError(t, e.get("/api/v2/audit?"+q, auditKey), 400, "INVALID", map[bool]string{true: "unknown_parameter", false: "invalid_parameter"}[param == "colour"], param)
		}
		// The page shows the form with the field marked.
		_, p := auditPageRows(t, owner.get("/account/audit?date_min=next+blursday", false))
		if in := p.byID("a-date-min"); func() bool { v, _ := subsAttr(in, "aria-invalid"); return v != "true" }() {
			t.Error("the bad date is not marked invalid")
		}
	})

	t.Run("API", func(t *testing.T) {
		wantError(t, e.get("/api/v2/audit", e.ro), 403, "FORBIDDEN", "forbidden", "")
		wantError(t, e.get("/api/v2/audit", e.rw), 403, "FORBIDDEN", "forbidden", "")
		wantError(t, e.get("/api/v2/purchases", auditKey), 403, "FORBIDDEN", "forbidden", "")
		if r := e.get("/api/v2/", auditKey); r.status != 200 {
			t.Errorf("ping with the audit key: %d", r.status)
		}
		// Every record, a page of 4 at a time, equals the database's, newest first.
		var got []map[string]any
		next := "/api/v2/audit?per_page=4"
		for next != "" {
			r := e.get(next, auditKey)
			if r.status != 200 {
				t.Fatalf("%s: %d %s", next, r.status, r.body)
			}
			var page []map[string]any
			r.json(t, &page)
			got = append(got, page...)
			next = ""
			if m := regexp.MustCompile(`<http://shop\.test([^>]+)>; rel="next"`).FindStringSubmatch(r.header.Get("Link")); m != nil {
				next = m[1]
			}
		}
		all := e.auditSince(0)
		if len(got) != len(all) {
			t.Fatalf("the API walked %d records, the account has %d", len(got), len(all))
		}
		for i, r := range all {
			g := got[len(got)-1-i]
			if int64(g["id"].(float64)) != r.id || g["action"] != r.action || g["details"] != r.details || g["address"] != r.address {
				t.Errorf("record %d: API %v, database %+v", i, g, r)
			}
		}
		// The same filter as the page's, as query parameters.
		var views []map[string]any
		e.get("/api/v2/audit?"+url.Values{"actor": {owner.email}, "action": {shop.AuditViewSaved}, "date_min": {"today"}}.Encode(), auditKey).json(t, &views)
		if len(views) != 3 || views[0]["actor_type"] != "user" || views[0]["api_key_id"] != nil || views[0]["user_id"] == nil {
			t.Errorf("the owner's views of today: %v", views)
		}
	})
}
