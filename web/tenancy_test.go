package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/web"
)

// tenancyIDs are objects of account 1 that account 2 must not reach, and account 2's
// own storefront.
type tenancyIDs struct {
	purchase, storefront, subscriber, customer, product, user, key int64
	userEmail                                                      string
	ownStorefront                                                  int64
}

func loadTenancyIDs(t *testing.T, e *apiEnv) tenancyIDs {
	t.Helper()
	var ids tenancyIDs
	q := func(dst any, query string, args ...any) {
		t.Helper()
		if err := e.db.QueryRow(query, args...).Scan(dst); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	q(&ids.purchase, `SELECT p.id FROM purchases p WHERE p.account_id = ? AND p.customer_id IS NOT NULL AND p.subscriber_id IS NOT NULL
		AND EXISTS (SELECT 1 FROM line_items li WHERE li.purchase_id = p.id) ORDER BY p.id LIMIT 1`, e.id(1))
	q(&ids.storefront, `SELECT storefront_id FROM purchases WHERE id = ?`, ids.purchase)
	q(&ids.subscriber, `SELECT subscriber_id FROM purchases WHERE id = ?`, ids.purchase)
	q(&ids.customer, `SELECT customer_id FROM purchases WHERE id = ?`, ids.purchase)
	q(&ids.product, `SELECT product_id FROM line_items WHERE purchase_id = ? ORDER BY id LIMIT 1`, ids.purchase)
	q(&ids.key, `SELECT id FROM api_keys WHERE account_id = ? AND scope = 'read_write' ORDER BY id LIMIT 1`, e.id(1))
	q(&ids.ownStorefront, `SELECT id FROM storefronts WHERE account_id = ? ORDER BY id LIMIT 1`, e.id(2))
	ids.userEmail = e.newUser(e.id(1), "owner")
	q(&ids.user, `SELECT id FROM users WHERE email = ?`, ids.userEmail)
	// Reactivatable, so that only tenancy can stop a reactivation.
	if _, err := e.db.Exec(`UPDATE purchases SET status = 'ERR' WHERE id = ?`, ids.purchase); err != nil {
		t.Fatal(err)
	}
	e.rebuild()
	return ids
}

// account1Names are texts only account 1's pages may show: its name and its
// storefronts' names.
var account1Names = []string{"Demo Store Co.", "Pixel Fonts", "Sound Packs"}

// noAccount1 fails when a page of account 2 shows a name of account 1.
func noAccount1(t *testing.T, r response) {
	t.Helper()
	for _, n := range account1Names {
		if strings.Contains(string(r.body), n) {
			t.Errorf("an answer to account 2 shows %q of account 1", n)
		}
	}
}

// purchaseFingerprint is the state of a purchase that a reactivation changes.
func purchaseFingerprint(t *testing.T, e *apiEnv, id int64) string {
	t.Helper()
	var status, updated string
	var acts, mails int
	// Separate statements: vtgate plans a correlated subquery for EXISTS only.
	if err := e.db.QueryRow(`SELECT status, updated_at FROM purchases WHERE id = ?`, id).Scan(&status, &updated); err != nil {
		t.Fatal(err)
	}
	if err := e.db.QueryRow(`SELECT (SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ?), (SELECT COUNT(*) FROM email_outbox WHERE account_id IN (?, ?))`,
		id, e.id(1), e.id(2)).Scan(&acts, &mails); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s/%s/%d/%d", status, updated, acts, mails)
}

// sameAsMissing checks that an answer about another account's object is the answer
// about an object that does not exist: 404 not_found (docs/API.md#accounts-and-tenancy).
func sameAsMissing(t *testing.T, got, missing response) {
	t.Helper()
	if got.status != http.StatusNotFound || missing.status != http.StatusNotFound {
		t.Fatalf("got %d (%s), a missing object %d; want 404 for both", got.status, got.body, missing.status)
	}
	var g, m errorBody
	got.json(t, &g)
	missing.json(t, &m)
	if g.Status != m.Status || g.Error.Code != m.Error.Code || g.Error.Param != m.Error.Param {
		t.Fatalf("got %s, a missing object %s", got.body, missing.body)
	}
}

// missingID is an id no object has.
const missingID = 8_999_999_999

var purchaseLink = regexp.MustCompile(`href="/purchases/(\d+)"`)

// TestTenancy tries every route of the engine as another account: a key or user
// of account 2 on account 1's objects gets 404, as for a missing object, and changes
// nothing; a viewer cannot reactivate (403), nor can a read key (403). A route the
// table below does not know fails the test, so that a new route is not forgotten.
func TestTenancy(t *testing.T) {
	e := newAPI(t, 0)
	ids := loadTenancyIDs(t, e)
	other := map[string]string{"Authorization": "Bearer " + e.other}
	otherGet := func(path string) response { return e.do("GET", path, "", nil, other) }
	owner2 := e.signIn(e.id(2), "owner")
	viewer1 := e.signIn(e.id(1), "viewer")
	staff1 := e.signIn(e.id(1), "staff")
	p := ids.purchase

	// dashboard404 checks a dashboard answer is the page of a missing object.
	dashboard404 := func(t *testing.T, r, missing response) {
		t.Helper()
		if r.status != http.StatusNotFound || missing.status != http.StatusNotFound {
			t.Fatalf("got %d, a missing object %d; want 404 for both", r.status, missing.status)
		}
		noAccount1(t, r)
	}

	// findAsOther asks the Find page or its listbox (path) for account 1's purchase by
	// its id, reference and key, and for its buyer by address, as account 2: named only
	// where account 2 has them too.
	findAsOther := func(t *testing.T, path string, htmx bool) {
		var ref, key, email string
		var theirs int
		if err := e.db.QueryRow(`SELECT t.reference, k.key_value, p.buyer_email FROM purchases p
			JOIN transactions t ON t.account_id = p.account_id AND t.purchase_id = p.id
			JOIN product_keys k ON k.account_id = p.account_id AND k.purchase_id = p.id
			WHERE p.account_id = ? AND t.reference IS NOT NULL AND p.buyer_email IS NOT NULL ORDER BY p.id LIMIT 1`, e.id(1)).Scan(&ref, &key, &email); err != nil {
			t.Fatal(err)
		}
		if err := e.db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email = ?", e.id(2), email).Scan(&theirs); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{fmt.Sprintf("#%d", p), ref, key, email} {
			body := string(mustStatus(t, owner2.get(path+"?q="+url.QueryEscape(q), htmx), 200).body)
			noAccount1(t, response{body: []byte(strings.ReplaceAll(body, q, ""))})
			if strings.Contains(body, fmt.Sprintf(`href="/purchases/%d"`, p)) || (theirs == 0 && strings.Contains(body, `id="find-hits"`)) ||
				(theirs == 0 && strings.Contains(body, `data-href="/customers/`+url.PathEscape(email)+`"`)) {
				t.Errorf("%q: account 2 is shown what account 1 has", q)
			}
		}
	}

	cases := map[string]func(t *testing.T){
		// Routes without an account's objects.
		"GET /healthz":      func(t *testing.T) { mustStatus(t, otherGet("/healthz"), 200) },
		"GET /readyz":       func(t *testing.T) { mustStatus(t, otherGet("/readyz"), 200) },
		"GET /static/*path": func(t *testing.T) { mustStatus(t, otherGet("/static/app.css"), 200) },
		"GET /favicon.ico": func(t *testing.T) {
			if ct := mustStatus(t, otherGet("/favicon.ico"), 200).header.Get("Content-Type"); ct != "image/svg+xml" {
				t.Errorf("/favicon.ico: Content-Type %q, want image/svg+xml", ct)
			}
		},
		"GET /login":   func(t *testing.T) { noAccount1(t, mustStatus(t, owner2.get("/login", false), 303)) },
		"POST /login":  func(t *testing.T) { e.with(t).signIn(e.id(2), "viewer") },
		"POST /logout": func(t *testing.T) { mustStatus(t, e.with(t).signIn(e.id(2), "viewer").post("/logout", nil), 303) },
		"GET /": func(t *testing.T) {
			noAccount1(t, mustStatus(t, owner2.get("/?date_min=-10+years&date_max=now", false), 200))
		},
		"GET /docs/api":    func(t *testing.T) { noAccount1(t, mustStatus(t, owner2.get("/docs/api", false), 200)) },
		"GET /docs/search": func(t *testing.T) { noAccount1(t, mustStatus(t, owner2.get("/docs/search", false), 200)) },
		"GET /purchases/suggest": func(t *testing.T) {
			for _, q := range []string{"product:", "storefront:", "s"} {
				noAccount1(t, mustStatus(t, owner2.get("/purchases/suggest?q="+url.QueryEscape(q), true), 200))
			}
			// The e-mail domains offered are those of account 2's purchases.
			offered := 0
			for _, q := range []string{"domain:", "a", "g"} {
				r := mustStatus(t, owner2.get("/purchases/suggest?q="+url.QueryEscape(q), true), 200)
				for _, m := range regexp.MustCompile(`data-value="domain:([^" ]+) "`).FindAllStringSubmatch(string(r.body), -1) {
					offered++
					var n int
					if err := e.db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = ? AND buyer_email LIKE BINARY ?",
						e.id(2), "%@"+m[1]).Scan(&n); err != nil || n == 0 {
						t.Errorf("%q: account 2 is offered domain %q, which none of its purchases has (%v)", q, m[1], err)
					}
				}
			}
			if offered == 0 {
				t.Error("account 2 was offered no domain: the check reads nothing")
			}
		},
		"GET /find":         func(t *testing.T) { findAsOther(t, "/find", false) },
		"GET /find/suggest": func(t *testing.T) { findAsOther(t, "/find/suggest", true) },
		"GET /subscribers/suggest": func(t *testing.T) {
			for _, q := range []string{"status:", "s"} {
				noAccount1(t, mustStatus(t, owner2.get("/subscribers/suggest?q="+url.QueryEscape(q), true), 200))
			}
		},
		"GET /api/v2":              func(t *testing.T) { mustStatus(t, otherGet("/api/v2"), 200) },
		"GET /api/v2/":             func(t *testing.T) { mustStatus(t, otherGet("/api/v2/"), 200) },
		"GET /api/v2/openapi.json": func(t *testing.T) { mustStatus(t, otherGet("/api/v2/openapi.json"), 200) },
		"GET /account/password":    func(t *testing.T) { noAccount1(t, mustStatus(t, owner2.get("/account/password", false), 200)) },
		"POST /account/password":   func(t *testing.T) { passwordChangesOnlyOwn(t, e.with(t)) },
		"GET /account/security":    func(t *testing.T) { noAccount1(t, mustStatus(t, owner2.get("/account/security", false), 200)) },
		"POST /account/security/sessions/:id/end": func(t *testing.T) {
			var id int64
			if err := e.db.QueryRow("SELECT MAX(id) FROM user_sessions WHERE account_id = ?", e.id(1)).Scan(&id); err != nil {
				t.Fatal(err)
			}
			dashboard404(t, owner2.post(fmt.Sprintf("/account/security/sessions/%d/end", id), nil),
				owner2.post(fmt.Sprintf("/account/security/sessions/%d/end", missingID), nil))
			mustStatus(t, viewer1.get("/account/security", false), 200)
			mustStatus(t, staff1.get("/account/security", false), 200)
		},
		"GET /login/code": func(t *testing.T) {
			if r := mustStatus(t, owner2.get("/login/code", false), 303); r.header.Get("Location") != "/login" {
				t.Fatalf("to %q", r.header.Get("Location"))
			}
		},
		"POST /login/code": func(t *testing.T) {
			noAccount1(t, mustStatus(t, owner2.post("/login/code", url.Values{"code": {"123456"}}), 401))
		},
		"GET /account/security/authenticator": func(t *testing.T) {
			noAccount1(t, mustStatus(t, owner2.get("/account/security/authenticator", false), 200))
		},
		"POST /account/security/authenticator": func(t *testing.T) {
			u := e.with(t).signIn(e.id(2), "viewer")
			mustStatus(t, u.get("/account/security/authenticator", false), 200)
			noAccount1(t, mustStatus(t, u.post("/account/security/authenticator", url.Values{"code": {"000000"}}), 400))
		},
		"POST /account/security/authenticator/remove": func(t *testing.T) {
			mustStatus(t, owner2.post("/account/security/authenticator/remove", nil), 404)
			mustStatus(t, viewer1.get("/account/security", false), 200)
		},
		"POST /account/security/sessions/end-others": func(t *testing.T) {
			mustStatus(t, e.with(t).signIn(e.id(2), "owner").post("/account/security/sessions/end-others", nil), 303)
			mustStatus(t, viewer1.get("/account/security", false), 200)
			mustStatus(t, staff1.get("/account/security", false), 200)
			mustStatus(t, owner2.get("/account/security", false), 200)
		},
		"GET /subscribers":     func(t *testing.T) { subscribersHomeIsOwn(t, owner2, ids) },
		"GET /subscribers/all": func(t *testing.T) { allSubscribersAreOwn(t, e.with(t), owner2) },
		"GET /subscribers/all.csv": func(t *testing.T) {
			var own int
			e.db.QueryRow(`SELECT COUNT(*) FROM subscribers WHERE account_id = ?`, e.id(2)).Scan(&own)
			r := mustStatus(t, owner2.get("/subscribers/all.csv", false), 200)
			noAccount1(t, r)
			if _, recs := readCSV(t, r.body); len(recs) != own {
				t.Fatalf("account 2's file of every storefront holds %d subscribers, it has %d", len(recs), own)
			}
		},
		"POST /purchases/views":     func(t *testing.T) { viewsAreOwn(t, e.with(t), owner2, viewer1, "") },
		"GET /purchases/reactivate": func(t *testing.T) { jobsAreOwn(t, e.with(t), owner2, staff1, "confirm") },
		"POST /jobs":                func(t *testing.T) { jobsAreOwn(t, e.with(t), owner2, staff1, "create") },
		"GET /jobs":                 func(t *testing.T) { jobsAreOwn(t, e.with(t), owner2, staff1, "list") },
		"GET /jobs/:job":            func(t *testing.T) { jobsAreOwn(t, e.with(t), owner2, staff1, "page") },
		"GET /jobs/:job/progress":   func(t *testing.T) { jobsAreOwn(t, e.with(t), owner2, staff1, "progress") },
		"POST /jobs/:job/cancel":    func(t *testing.T) { jobsAreOwn(t, e.with(t), owner2, staff1, "cancel") },
		"POST /purchases/views/:view/rename": func(t *testing.T) {
			viewsAreOwn(t, e.with(t), owner2, viewer1, "rename")
		},
		"POST /purchases/views/:view/move":   func(t *testing.T) { viewsAreOwn(t, e.with(t), owner2, viewer1, "move") },
		"POST /purchases/views/:view/delete": func(t *testing.T) { viewsAreOwn(t, e.with(t), owner2, viewer1, "delete") },
		"GET /purchases":                     func(t *testing.T) { dashboardListIsOwn(t, e.with(t), owner2, ids) },
		"GET /api/v2/purchases":              func(t *testing.T) { apiListIsOwn(t, e.with(t), ids) },
		"GET /account":                       func(t *testing.T) { accountPageIsOwn(t, e.with(t), owner2, viewer1, staff1, ids) },
		"POST /account/keys": func(t *testing.T) {
			createsInOwnAccount(t, e.with(t), owner2, "api_keys", "/account/keys", url.Values{"name": {"t"}, "scope": {"read"}})
		},
		"POST /account/users": func(t *testing.T) {
			createsInOwnAccount(t, e.with(t), owner2, "users", "/account/users", url.Values{"email": {"new-2@shop.test"}, "role": {"viewer"}, "password": {dashPassword}})
		},
		"GET /api/v2/purchases/:id": func(t *testing.T) {
			sameAsMissing(t, otherGet(fmt.Sprintf("/api/v2/purchases/%d", p)), otherGet(fmt.Sprintf("/api/v2/purchases/%d", missingID)))
			mustStatus(t, e.get(fmt.Sprintf("/api/v2/purchases/%d", p), e.ro), 200)
		},
		"POST /api/v2/purchases/:id/reactivate": func(t *testing.T) {
			before := purchaseFingerprint(t, e, p)
			path := fmt.Sprintf("/api/v2/purchases/%d/reactivate", p)
			body := func() *strings.Reader { return strings.NewReader("refulfill=1&customer_email=thief%40evil.test") }
			form := map[string]string{"Authorization": "Bearer " + e.other, "Content-Type": "application/x-www-form-urlencoded"}
			got := e.do("POST", path, "", body(), form)
			missing := e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", missingID), "", body(), form)
			sameAsMissing(t, got, missing)
			wantError(t, e.do("POST", path, e.ro, body(), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}), 403, "FORBIDDEN", "forbidden", "")
			if after := purchaseFingerprint(t, e, p); after != before {
				t.Fatalf("refused reactivations changed the purchase: %s → %s", before, after)
			}
		},
		"GET /api/v2/storefronts/:storefront_id/subscribers": func(t *testing.T) {
			sameAsMissing(t, otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers", ids.storefront)), otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers", missingID)))
		},
		"GET /api/v2/storefronts/:storefront_id/subscribers/verify": func(t *testing.T) {
			sameAsMissing(t, otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", ids.storefront, ids.subscriber)),
				otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", missingID, ids.subscriber)))
			// In its own storefront, another account's subscriber is not found either.
			sameAsMissing(t, otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", ids.ownStorefront, ids.subscriber)),
				otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", ids.ownStorefront, missingID)))
		},
		"GET /api/v2/storefronts/:storefront_id/subscribers/:id": func(t *testing.T) {
			sameAsMissing(t, otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/%d", ids.storefront, ids.subscriber)),
				otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/%d", missingID, ids.subscriber)))
			sameAsMissing(t, otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/%d", ids.ownStorefront, ids.subscriber)),
				otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/%d", ids.ownStorefront, missingID)))
		},
		"GET /purchases/:id": func(t *testing.T) {
			dashboard404(t, owner2.get(fmt.Sprintf("/purchases/%d", p), false), owner2.get(fmt.Sprintf("/purchases/%d", missingID), false))
		},
		"GET /purchases/:id/activity": func(t *testing.T) {
			dashboard404(t, owner2.get(fmt.Sprintf("/purchases/%d/activity", p), false), owner2.get(fmt.Sprintf("/purchases/%d/activity", missingID), false))
			// htmx gets the error inline (it swaps only 2xx), never the timeline.
			r := owner2.get(fmt.Sprintf("/purchases/%d/activity", p), true)
			if !strings.Contains(string(r.body), `role="alert"`) || strings.Contains(string(r.body), "<li") {
				t.Fatalf("htmx activity of another account's purchase: %d %s", r.status, r.body)
			}
		},
		"POST /purchases/:id/reactivate": func(t *testing.T) {
			before := purchaseFingerprint(t, e, p)
			form := url.Values{"customer_email": {"thief@evil.test"}, "refulfill": {"1"}}
			dashboard404(t, owner2.post(fmt.Sprintf("/purchases/%d/reactivate", p), form), owner2.post(fmt.Sprintf("/purchases/%d/reactivate", missingID), form))
			if r := owner2.postHTMX(fmt.Sprintf("/purchases/%d/reactivate", p), form); strings.Contains(string(r.body), "reactivated") {
				t.Fatalf("htmx reactivation of another account's purchase: %s", r.body)
			}
			// A viewer of the purchase's own account may look, not reactivate.
			mustStatus(t, viewer1.post(fmt.Sprintf("/purchases/%d/reactivate", p), form), 403)
			if r := viewer1.postHTMX(fmt.Sprintf("/purchases/%d/reactivate", p), form); r.status != 200 || !strings.Contains(string(r.body), `role="alert"`) {
				t.Fatalf("viewer htmx: got %d %s, want 200 with the refusal shown", r.status, r.body)
			}
			if after := purchaseFingerprint(t, e, p); after != before {
				t.Fatalf("refused reactivations changed the purchase: %s → %s", before, after)
			}
		},
		"GET /storefronts/:storefront_id/subscribers": func(t *testing.T) {
			dashboard404(t, owner2.get(fmt.Sprintf("/storefronts/%d/subscribers", ids.storefront), false), owner2.get(fmt.Sprintf("/storefronts/%d/subscribers", missingID), false))
		},
		"GET /storefronts/:storefront_id/subscribers/:id": func(t *testing.T) {
			dashboard404(t, owner2.get(fmt.Sprintf("/storefronts/%d/subscribers/%d", ids.storefront, ids.subscriber), false),
				owner2.get(fmt.Sprintf("/storefronts/%d/subscribers/%d", missingID, ids.subscriber), false))
			dashboard404(t, owner2.get(fmt.Sprintf("/storefronts/%d/subscribers/%d", ids.ownStorefront, ids.subscriber), false),
				owner2.get(fmt.Sprintf("/storefronts/%d/subscribers/%d", ids.ownStorefront, missingID), false))
		},
		"GET /api/v2/purchases.csv": func(t *testing.T) {
			for _, path := range []string{"/api/v2/purchases.csv", fmt.Sprintf("/api/v2/purchases.csv?storefront_id=%d&rows=line_items", ids.storefront)} {
				r := mustStatus(t, otherGet(path), 200)
				if strings.Contains(string(r.body), fmt.Sprintf("\r\n%d,", p)) {
					t.Fatalf("%s as account 2 exports purchase %d of account 1", path, p)
				}
				noAccount1(t, r)
			}
		},
		"GET /api/v2/storefronts/:storefront_id/subscribers.csv": func(t *testing.T) {
			sameAsMissing(t, otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers.csv", ids.storefront)), otherGet(fmt.Sprintf("/api/v2/storefronts/%d/subscribers.csv", missingID)))
		},
		"GET /purchases.csv": func(t *testing.T) {
			r := mustStatus(t, owner2.get(fmt.Sprintf("/purchases.csv?storefront_id=%d", ids.storefront), false), 200)
			if n := strings.Count(string(r.body), "\r\n"); n != 1 {
				t.Fatalf("account 2's export of account 1's storefront has %d lines, want the header row alone", n)
			}
			r = mustStatus(t, owner2.get("/purchases.csv?rows=line_items", false), 200)
			if strings.Contains(string(r.body), fmt.Sprintf("\r\n%d,", p)) {
				t.Fatalf("account 2 exports purchase %d of account 1", p)
			}
			noAccount1(t, r)
		},
		"GET /storefronts/:storefront_id/subscribers.csv": func(t *testing.T) {
			dashboard404(t, owner2.get(fmt.Sprintf("/storefronts/%d/subscribers.csv", ids.storefront), false), owner2.get(fmt.Sprintf("/storefronts/%d/subscribers.csv", missingID), false))
		},
		"GET /account/activity": func(t *testing.T) {
			mustStatus(t, e.get("/api/v2/purchases.csv?customer_email=only-account-one", e.ro), 200)
			r := mustStatus(t, owner2.get("/account/activity", false), 200)
			if strings.Contains(string(r.body), "only-account-one") {
				t.Fatal("account 2's activity shows an export of account 1")
			}
			noAccount1(t, r)
			mustStatus(t, viewer1.get("/account/activity", false), 403)
		},
		"GET /account/audit": func(t *testing.T) {
			mustStatus(t, staff1.post("/purchases/views", url.Values{"name": {"only-account-one audit"}, "query": {"status=RFD"}}), http.StatusSeeOther)
			for _, path := range []string{"/account/audit", "/account/audit.csv"} {
				r := mustStatus(t, owner2.get(path, false), 200)
				if strings.Contains(string(r.body), "only-account-one") || strings.Contains(string(r.body), staff1.email) {
					t.Fatalf("account 2's %s shows a record of account 1", path)
				}
				noAccount1(t, r)
			}
			if rows, _ := auditPageRows(t, mustStatus(t, owner2.get("/account/audit?actor="+url.QueryEscape(staff1.email), false), 200)); len(rows) != 0 {
				t.Fatalf("account 2 finds %d records of account 1's user", len(rows))
			}
			mustStatus(t, viewer1.get("/account/audit", false), 403)
		},
		"GET /account/audit.csv": func(t *testing.T) {
			mustStatus(t, staff1.get("/account/audit.csv", false), 403)
		},
		"GET /api/v2/audit": func(t *testing.T) {
			mustStatus(t, staff1.post("/purchases/views", url.Values{"name": {"only-account-one api"}, "query": {"status=RFD"}}), http.StatusSeeOther)
			keys := map[int64]string{}
			for _, account := range []int64{1, 2} {
				k, err := mysql.NewAdminService(e.db).CreateAPIKey(context.Background(), e.id(account), "audit tenancy", shop.ScopeAudit)
				if err != nil {
					t.Fatal(err)
				}
				keys[account] = k
			}
			bearer := func(path string, account int64) response {
				return e.do("GET", path, "", nil, map[string]string{"Authorization": "Bearer " + keys[account]})
			}
			if r := mustStatus(t, bearer("/api/v2/audit", 1), 200); !strings.Contains(string(r.body), "only-account-one api") {
				t.Fatal("account 1's audit key does not see its own record")
			}
			for _, path := range []string{"/api/v2/audit", "/api/v2/audit?actor=" + url.QueryEscape(staff1.email)} {
				r := mustStatus(t, bearer(path, 2), 200)
				if strings.Contains(string(r.body), "only-account-one") || strings.Contains(string(r.body), staff1.email) {
					t.Fatalf("account 2's key reads a record of account 1 at %s", path)
				}
				noAccount1(t, r)
			}
		},
		"POST /account/keys/:id/revoke": func(t *testing.T) {
			dashboard404(t, owner2.post(fmt.Sprintf("/account/keys/%d/revoke", ids.key), url.Values{"confirm": {"yes"}}),
				owner2.post(fmt.Sprintf("/account/keys/%d/revoke", missingID), url.Values{"confirm": {"yes"}}))
			mustStatus(t, staff1.post(fmt.Sprintf("/account/keys/%d/revoke", ids.key), url.Values{"confirm": {"yes"}}), 403)
			mustStatus(t, e.get("/api/v2/", e.rw), 200)
		},
		"POST /account/users/:id/role": func(t *testing.T) {
			dashboard404(t, owner2.post(fmt.Sprintf("/account/users/%d/role", ids.user), url.Values{"role": {"viewer"}}),
				owner2.post(fmt.Sprintf("/account/users/%d/role", missingID), url.Values{"role": {"viewer"}}))
			mustStatus(t, staff1.post(fmt.Sprintf("/account/users/%d/role", ids.user), url.Values{"role": {"viewer"}}), 403)
			userUnchanged(t, e, ids)
		},
		"POST /account/users/:id/remove": func(t *testing.T) {
			dashboard404(t, owner2.post(fmt.Sprintf("/account/users/%d/remove", ids.user), url.Values{"confirm": {"yes"}}),
				owner2.post(fmt.Sprintf("/account/users/%d/remove", missingID), url.Values{"confirm": {"yes"}}))
			mustStatus(t, viewer1.post(fmt.Sprintf("/account/users/%d/remove", ids.user), url.Values{"confirm": {"yes"}}), 403)
			userUnchanged(t, e, ids)
		},
	}

	for route, fn := range customerTenancyCases(t, e, owner2, staff1, p, dashboard404) {
		cases[route] = fn
	}
	for route, fn := range webhookTenancyCases(t, e, owner2, viewer1, staff1) {
		cases[route] = fn
	}
	for route, fn := range passkeyTenancyCases(t, e, owner2, staff1) {
		cases[route] = fn
	}

	var routes []string
	for _, r := range (&web.Server{}).Engine().Routes() {
		routes = append(routes, r.Method+" "+r.Path)
	}
	slices.Sort(routes)
	seen := map[string]bool{}
	for _, route := range routes {
		seen[route] = true
		fn, ok := cases[route]
		if !ok {
			t.Errorf("route %s is not covered by TestTenancy: add what another account may and may not do there", route)
			continue
		}
		t.Run(route, func(t *testing.T) { fn(t) })
	}
	for route := range cases {
		if !seen[route] {
			t.Errorf("TestTenancy covers %s, which the engine no longer has", route)
		}
	}
	t.Logf("%d routes tried as another account", len(routes))
}

// mustStatus checks an answer's status and returns the answer.
func mustStatus(t *testing.T, r response, status int) response {
	t.Helper()
	if r.status != status {
		t.Fatalf("got %d, want %d: %.300s", r.status, status, r.body)
	}
	return r
}

// userUnchanged checks account 1's user is still there, still an owner.
func userUnchanged(t *testing.T, e *apiEnv, ids tenancyIDs) {
	t.Helper()
	var role string
	if err := e.db.QueryRow(`SELECT role FROM users WHERE id = ?`, ids.user).Scan(&role); err != nil || role != "owner" {
		t.Fatalf("account 1's user after account 2's attempts: role %q, %v", role, err)
	}
}

func apiListIsOwn(t *testing.T, e *apiEnv, ids tenancyIDs) {
	other := map[string]string{"Authorization": "Bearer " + e.other}
	for _, q := range []string{
		fmt.Sprintf("storefront_id=%d", ids.storefront), fmt.Sprintf("customer_id=%d", ids.customer),
		fmt.Sprintf("subscriber_id=%d", ids.subscriber), fmt.Sprintf("product_id=%d", ids.product),
	} {
		r := mustStatus(t, e.do("GET", "/api/v2/purchases?"+q, "", nil, other), 200)
		if strings.TrimSpace(string(r.body)) != "[]" {
			t.Errorf("%s as account 2: got %.200s, want []", q, r.body)
		}
	}
	r := mustStatus(t, e.do("GET", "/api/v2/purchases?per_page=500&include_count=1", "", nil, other), 200)
	var ps []purchase
	r.json(t, &ps)
	var n int
	e.db.QueryRow(`SELECT COUNT(*) FROM purchases WHERE account_id = ?`, e.id(2)).Scan(&n)
	if r.header.Get("X-Total-Count") != fmt.Sprint(n) {
		t.Errorf("account 2 counts %s purchases, has %d", r.header.Get("X-Total-Count"), n)
	}
	for _, p := range ps {
		var acct int64
		e.db.QueryRow(`SELECT account_id FROM purchases WHERE id = ?`, p.ID).Scan(&acct)
		if acct != e.id(2) {
			t.Fatalf("account 2 lists purchase %d of account %d", p.ID, acct)
		}
	}
	// Subscribers of account 1 by username, in account 2's storefront: none.
	var username string
	e.db.QueryRow(`SELECT username FROM subscribers WHERE id = ?`, ids.subscriber).Scan(&username)
	r = mustStatus(t, e.do("GET", fmt.Sprintf("/api/v2/storefronts/%d/subscribers?username=%s", ids.ownStorefront, url.QueryEscape(username)), "", nil, other), 200)
	if strings.Contains(string(r.body), fmt.Sprintf(`"id":%d,`, ids.subscriber)) {
		t.Errorf("account 2 finds account 1's subscriber by username")
	}
}

func dashboardListIsOwn(t *testing.T, e *apiEnv, owner2 *dashUser, ids tenancyIDs) {
	for _, q := range []string{
		fmt.Sprintf("storefront_id=%d", ids.storefront), fmt.Sprintf("customer_id=%d", ids.customer),
		fmt.Sprintf("subscriber_id=%d", ids.subscriber), fmt.Sprintf("product_id=%d", ids.product),
	} {
		for _, htmx := range []bool{false, true} {
			r := mustStatus(t, owner2.get("/purchases?"+q, htmx), 200)
			if m := purchaseLink.FindAllString(string(r.body), -1); len(m) > 0 {
				t.Errorf("/purchases?%s (htmx %v) as account 2 lists %v", q, htmx, m)
			}
			noAccount1(t, r)
		}
	}
	r := mustStatus(t, owner2.get("/purchases", false), 200)
	noAccount1(t, r)
	for _, m := range purchaseLink.FindAllStringSubmatch(string(r.body), -1) {
		var acct int64
		e.db.QueryRow(`SELECT account_id FROM purchases WHERE id = ?`, m[1]).Scan(&acct)
		if acct != e.id(2) {
			t.Fatalf("account 2's purchases page lists purchase %s of account %d", m[1], acct)
		}
	}
}

func subscribersHomeIsOwn(t *testing.T, owner2 *dashUser, ids tenancyIDs) {
	r := mustStatus(t, owner2.get("/subscribers", false), 303)
	if want := fmt.Sprintf("/storefronts/%d/subscribers", ids.ownStorefront); r.header.Get("Location") != want {
		t.Fatalf("account 2's subscribers: sent to %q, want %q", r.header.Get("Location"), want)
	}
}

// allSubscribersAreOwn: every storefront's subscribers are the account's own, whatever
// the dates.
func allSubscribersAreOwn(t *testing.T, e *apiEnv, owner2 *dashUser) {
	var own, other int64
	e.db.QueryRow(`SELECT COUNT(*) FROM subscribers WHERE account_id = ?`, e.id(2)).Scan(&own)
	e.db.QueryRow(`SELECT COUNT(*) FROM subscribers WHERE account_id = ?`, e.id(1)).Scan(&other)
	for _, q := range []string{"", "?started_min=-10+years&started_max=%2B1+year"} {
		r := mustStatus(t, owner2.get("/subscribers/all"+q, false), 200)
		noAccount1(t, r)
		c := regexp.MustCompile(`id="result-count"><span[^>]*>([^<]+)</span>`).FindSubmatch(r.body)
		var n int64
		if c != nil {
			fmt.Sscan(strings.ReplaceAll(string(c[1]), ",", ""), &n)
		}
		if q == "" && n != own {
			t.Fatalf("account 2's subscribers of all storefronts: got %d, want its %d (account 1 has %d)", n, own, other)
		}
		if n > own {
			t.Fatalf("%s: account 2 sees %d subscribers, it has %d", q, n, own)
		}
	}
}

func accountPageIsOwn(t *testing.T, e *apiEnv, owner2, viewer1, staff1 *dashUser, ids tenancyIDs) {
	r := mustStatus(t, owner2.get("/account", false), 200)
	noAccount1(t, r)
	if strings.Contains(string(r.body), ids.userEmail) || strings.Contains(string(r.body), fmt.Sprintf("/account/keys/%d/revoke", ids.key)) {
		t.Fatal("account 2's owner page shows account 1's users or keys")
	}
	mustStatus(t, viewer1.get("/account", false), 403)
	mustStatus(t, staff1.get("/account", false), 403)
}

// createsInOwnAccount posts a creation form as account 2's owner and checks the row
// went to account 2 only; staff of account 1 are refused.
func createsInOwnAccount(t *testing.T, e *apiEnv, owner2 *dashUser, table, path string, form url.Values) {
	count := func(acct int64) (n int) {
		e.db.QueryRow(`SELECT COUNT(*) FROM `+table+` WHERE account_id = ?`, e.id(acct)).Scan(&n)
		return n
	}
	one, two := count(1), count(2)
	r := owner2.post(path, form)
	if r.status != 200 && r.status != 303 {
		t.Fatalf("POST %s: got %d", path, r.status)
	}
	if count(1) != one || count(2) != two+1 {
		t.Fatalf("POST %s as account 2: account 1 %d → %d, account 2 %d → %d", path, one, count(1), two, count(2))
	}
}

// passwordChangesOnlyOwn changes a user's password and checks no other user's hash moved.
func passwordChangesOnlyOwn(t *testing.T, e *apiEnv) {
	hashes := func() map[string]string {
		out := map[string]string{}
		rows, err := e.db.Query(`SELECT email, password_hash FROM users WHERE account_id IN (?, ?)`, e.id(1), e.id(2))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var k, v string
			rows.Scan(&k, &v)
			out[k] = v
		}
		return out
	}
	u := e.signIn(e.id(2), "viewer")
	before := hashes()
	mustStatus(t, u.post("/account/password", url.Values{"current_password": {dashPassword}, "new_password": {"other password"}, "confirm_password": {"other password"}}), 303)
	after := hashes()
	for email, h := range before {
		if changed := after[email] != h; changed != (email == u.email) {
			t.Errorf("password of %s changed: %v", email, changed)
		}
	}
}

// viewsAreOwn checks that a view saved in account 1 stays there: account 2 neither sees
// it nor changes it (the action, when given, answers 404), and what account 2 saves
// stays in account 2.
func viewsAreOwn(t *testing.T, e *apiEnv, owner2, user1 *dashUser, action string) {
	t.Helper()
	name := strings.TrimSpace("Tenancy " + action)
	if r := user1.post("/purchases/views", url.Values{"name": {name}, "query": {"status=ACT"}}); r.status != http.StatusSeeOther {
		t.Fatalf("save a view in account 1: got %d", r.status)
	}
	var id int64
	if err := e.db.QueryRow("SELECT id FROM saved_views WHERE account_id = ? AND name = ?", e.id(1), name).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if action != "" {
		if r := owner2.post(fmt.Sprintf("/purchases/views/%d/%s", id, action), url.Values{"name": {"x"}, "by": {"-1"}}); r.status != http.StatusNotFound {
			t.Errorf("%s account 1's view as account 2: got %d, want 404", action, r.status)
		}
	} else {
		owner2.post("/purchases/views", url.Values{"name": {"Mine"}, "query": {"status=RFD"}, "for": {"account"}})
		var n int
		if err := e.db.QueryRow("SELECT COUNT(*) FROM saved_views WHERE account_id = ? AND name = 'Mine'", e.id(1)).Scan(&n); err != nil || n != 0 {
			t.Errorf("account 2's view landed in account 1: %d, %v", n, err)
		}
	}
	if strings.Contains(string(owner2.get("/purchases", false).body), name) {
		t.Error("account 2 sees account 1's view")
	}
	var got string
	if err := e.db.QueryRow("SELECT name FROM saved_views WHERE account_id = ? AND id = ?", e.id(1), id).Scan(&got); err != nil || got != name {
		t.Errorf("account 1's view after account 2's %s: %q, %v", action, got, err)
	}
}

// jobsAreOwn checks that account 2 can neither see, cancel nor queue work on account
// 1's jobs and purchases.
func jobsAreOwn(t *testing.T, e *apiEnv, owner2, staff1 *dashUser, what string) {
	t.Helper()
	var pid int64
	if err := e.db.QueryRow("SELECT id FROM purchases WHERE account_id = ? AND status = 'HLD' LIMIT 1", e.id(1)).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	r := staff1.post("/jobs", url.Values{"id": {fmt.Sprint(pid)}})
	job := strings.TrimPrefix(r.header.Get("Location"), "/jobs/")
	if r.status != http.StatusSeeOther || job == "" {
		t.Fatalf("a job in account 1: got %d", r.status)
	}
	switch what {
	case "confirm":
		r := owner2.get(fmt.Sprintf("/purchases/reactivate?id=%d", pid), false)
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "None of the selected purchases was found") {
			t.Errorf("account 2 confirming account 1's purchase: got %d", r.status)
		}
	case "create":
		if r := owner2.post("/jobs", url.Values{"id": {fmt.Sprint(pid)}}); r.status != http.StatusBadRequest {
			t.Errorf("account 2 queuing account 1's purchase: got %d, want 400", r.status)
		}
	case "list":
		noAccount1(t, mustStatus(t, owner2.get("/jobs", false), 200))
		if strings.Contains(string(owner2.get("/jobs", false).body), "/jobs/"+job+"\"") {
			t.Error("account 2 lists account 1's job")
		}
	case "page", "progress":
		path := "/jobs/" + job
		if what == "progress" {
			path += "/progress"
		}
		if r := owner2.get(path, false); r.status != http.StatusNotFound {
			t.Errorf("account 2 reading account 1's job: got %d, want 404", r.status)
		}
	case "cancel":
		e.db.Exec("UPDATE jobs SET status = 'queued' WHERE account_id = ? AND id = ?", e.id(1), job)
		if r := owner2.post("/jobs/"+job+"/cancel", nil); r.status != http.StatusNotFound {
			t.Errorf("account 2 canceling account 1's job: got %d, want 404", r.status)
		}
	}
}

// customerTenancyCases cover the customer pages, their API and notes: account 1's
// customer, purchase and note are answered to account 2 as missing ones are, and
// nothing of account 2's requests is written.
func customerTenancyCases(t *testing.T, e *apiEnv, owner2, staff1 *dashUser, purchase int64, dashboard404 func(*testing.T, response, response)) map[string]func(t *testing.T) {
	var email string
	if err := e.db.QueryRow(`SELECT p.buyer_email FROM purchases p WHERE p.account_id = ? AND p.buyer_email IS NOT NULL
		AND p.buyer_email NOT IN (SELECT q.buyer_email FROM purchases q WHERE q.account_id = ? AND q.buyer_email IS NOT NULL)
		AND p.buyer_email NOT IN (SELECT s.username FROM subscribers s WHERE s.account_id = ? AND s.username IS NOT NULL) LIMIT 1`,
		e.id(1), e.id(2), e.id(2)).Scan(&email); err != nil {
		t.Fatal(err)
	}
	path, missing := "/customers/"+url.PathEscape(email), "/customers/nobody%40missing.test"
	other := map[string]string{"Authorization": "Bearer " + e.other}
	noNotes := func(t *testing.T) {
		t.Helper()
		var n int
		if err := e.db.QueryRow("SELECT COUNT(*) FROM notes WHERE account_id = ?", e.id(2)).Scan(&n); err != nil || n != 0 {
			t.Fatalf("account 2 wrote %d notes (%v)", n, err)
		}
	}
	return map[string]func(t *testing.T){
		"GET /customers/*email": func(t *testing.T) {
			dashboard404(t, owner2.get(path, false), owner2.get(missing, false))
			// A page of one list, as htmx asks for it: answered as a missing customer's.
			for _, list := range []string{"activity", "emails", "notes", "results"} {
				ask := func(p string) response {
					req, _ := http.NewRequest("GET", e.url+p+"?"+list+"=1", nil)
					req.Header.Set("HX-Request", "true")
					req.Header.Set("HX-Target", list)
					return owner2.do(req)
				}
				got, want := ask(path), ask(missing)
				if got.status != want.status || string(got.body) != string(want.body) || !strings.Contains(string(got.body), "no customer") {
					t.Errorf("%s of another account's customer: got %d %.200s, want %d %.200s", list, got.status, got.body, want.status, want.body)
				}
			}
		},
		"GET /api/v2/customers/*email": func(t *testing.T) {
			sameAsMissing(t, e.do("GET", "/api/v2"+path, "", nil, other), e.do("GET", "/api/v2"+missing, "", nil, other))
			mustStatus(t, e.get("/api/v2"+path, e.ro), 200)
		},
		"POST /customers/*email": func(t *testing.T) {
			body := url.Values{"body": {"mine now"}}
			dashboard404(t, owner2.post(path+"/notes", body), owner2.post(missing+"/notes", body))
			noNotes(t)
		},
		"POST /purchases/:id/notes": func(t *testing.T) {
			body := url.Values{"body": {"mine now"}}
			dashboard404(t, owner2.post(fmt.Sprintf("/purchases/%d/notes", purchase), body), owner2.post(fmt.Sprintf("/purchases/%d/notes", missingID), body))
			noNotes(t)
		},
		"POST /notes/:id/delete": func(t *testing.T) {
			mustStatus(t, staff1.post(path+"/notes", url.Values{"body": {"kept"}}), 303)
			var id int64
			if err := e.db.QueryRow("SELECT MAX(id) FROM notes WHERE account_id = ?", e.id(1)).Scan(&id); err != nil {
				t.Fatal(err)
			}
			dashboard404(t, owner2.post(fmt.Sprintf("/notes/%d/delete", id), nil), owner2.post(fmt.Sprintf("/notes/%d/delete", missingID), nil))
			var n int
			if err := e.db.QueryRow("SELECT COUNT(*) FROM notes WHERE account_id = ? AND id = ?", e.id(1), id).Scan(&n); err != nil || n != 1 {
				t.Fatalf("the note is gone (%d, %v)", n, err)
			}
		},
	}
}
