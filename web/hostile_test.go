package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	netmail "net/mail"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"storefront/internal/importer"
	"storefront/internal/mysql"
)

// Hostile input: SQL injection in every parameter, script and HTML in imported data
// on every page that shows it, over-long and malformed input, huge and negative
// numbers, line breaks in e-mail addresses. Every case gets a clear 4xx or a safe
// rendering: never a 5xx (apiEnv.do and dashUser.do fail the test on one), never
// markup of the payload's own.

// sqlPayloads are classic injection strings.
var sqlPayloads = []string{
	`' OR '1'='1`, `1; DROP TABLE purchases; --`, `" OR ""="`, `1' UNION SELECT password_hash FROM users -- `,
	`%' OR 1=1 #`, `\' OR 1=1 -- `, `1 AND SLEEP(5)`, `admin'--`, `1/**/OR/**/1=1`, "\x00' OR 1=1",
}

// xssPayload is the markup planted in data and parameters: each part sets
// window.__xss if it ever runs.
const xssPayload = `<script>window.__xss=1</script><img src=x onerror="window.__xss=1">"'><svg onload="window.__xss=1">`

// xssMarkers are what a page would hold if it let the payload's markup through.
var xssMarkers = []string{"<script>window.__xss", "<img src=x onerror", "<svg onload", `"><svg`}

// noMarkup fails when an HTML answer holds the payload's markup unescaped.
func noMarkup(t *testing.T, what string, body []byte) {
	t.Helper()
	for _, m := range xssMarkers {
		if bytes.Contains(body, []byte(m)) {
			i := bytes.Index(body, []byte(m))
			t.Errorf("%s: the payload's markup %q is in the page: …%s…", what, m, body[max(0, i-80):min(len(body), i+80)])
		}
	}
}

// dbChecksum is what an injection that got through would change in the environment's
// accounts (API keys and sessions aside, which the test itself creates).
func dbChecksum(t *testing.T, e *apiEnv) string {
	t.Helper()
	var out []string
	for _, table := range []string{"accounts", "storefronts", "purchases", "line_items", "subscribers", "users", "customers", "products", "purchase_activity", "email_outbox"} {
		column := "account_id"
		if table == "accounts" {
			column = "id"
		}
		var n int
		if err := e.db.QueryRow("SELECT COUNT(*) FROM "+table+" WHERE "+column+" IN (?, ?)", e.id(1), e.id(2)).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		out = append(out, fmt.Sprintf("%s=%d", table, n))
	}
	var status string
	e.db.QueryRow(`SELECT GROUP_CONCAT(status ORDER BY id) FROM purchases WHERE account_id IN (?, ?)`, e.id(1), e.id(2)).Scan(&status)
	return strings.Join(out, " ") + " " + fmt.Sprint(len(status))
}

// apiTextParams are the purchase filters that take free text: a payload there is
// text to match, which matches nothing.
var apiTextParams = map[string]bool{"customer_email": true, "customer_first_name": true, "customer_last_name": true}

func TestHostile_SQLInjection(t *testing.T) {
	e := newAPI(t, 0)
	owner := e.signIn(e.id(1), "owner")
	before := dbChecksum(t, e)
	rfd := refundedPurchase(t, e)
	cases := 0

	t.Run("APIPurchaseFilters", func(t *testing.T) {
		e := e.with(t)
		params := []string{"status", "product_id", "storefront_id", "customer_id", "subscriber_id", "customer_email", "customer_first_name",
			"customer_last_name", "date_min", "date_max", "total", "total_op", "ship", "order", "per_page", "cursor", "page", "include_count"}
		for _, name := range params {
			for _, p := range sqlPayloads {
				cases++
				q := url.Values{name: {p}}
				if name == "total_op" {
					q.Set("total", "1")
				}
				r := e.get("/api/v2/purchases?"+q.Encode(), e.ro)
				switch {
				case apiTextParams[name]:
					if r.status != 200 || strings.TrimSpace(string(r.body)) != "[]" {
						t.Errorf("%s=%q: got %d %.200s, want 200 []", name, p, r.status, r.body)
					}
				case r.status == 400:
					wantError(t, r, 400, "INVALID", "invalid_parameter", name)
				case (name == "date_min" || name == "date_max") && r.status == 200:
					// strtotime reads some of these ("1 AND …" is not one); the text
					// never reaches SQL, only the time it means.
				default:
					t.Errorf("%s=%q: got %d %.200s", name, p, r.status, r.body)
				}
			}
		}
	})

	t.Run("APIPathsAndOtherRoutes", func(t *testing.T) {
		e := e.with(t)
		sub := e.path("/api/v2/storefronts/%d/subscribers", 1)
		for _, p := range sqlPayloads {
			esc := url.PathEscape(p)
			for _, path := range []string{"/api/v2/purchases/" + esc, "/api/v2/storefronts/" + esc + "/subscribers", sub + "/" + esc} {
				cases++
				if r := e.get(path, e.ro); r.status != 400 && r.status != 404 {
					t.Errorf("%s: got %d", path, r.status)
				}
			}
			cases += 3
			r := e.get(sub+"?username="+url.QueryEscape(p), e.ro)
			if r.status != 200 || strings.TrimSpace(string(r.body)) != "[]" {
				t.Errorf("subscribers username=%q: got %d %.200s", p, r.status, r.body)
			}
			wantError(t, e.get(sub+"/verify?username="+url.QueryEscape(p), e.ro), 404, "NOTFOUND", "not_found", "")
			r = e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", rfd), e.rw, strings.NewReader(url.Values{"customer_email": {p}}.Encode()),
				map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Idempotency-Key": "k"})
			wantError(t, r, 400, "INVALID", "invalid_parameter", "customer_email")
		}
	})

	t.Run("Dashboard", func(t *testing.T) {
		owner := *owner
		owner.e = e.with(t)
		subs := e.path("/storefronts/%d/subscribers", 1)
		for _, p := range append(sqlPayloads, xssPayload) {
			for _, page := range []string{"/purchases", subs} {
				names := []string{"status", "product_id", "storefront_id", "customer_id", "customer_email", "customer_first_name", "customer_last_name", "date_min", "date_max", "total", "ship", "order", "cursor", "before"}
				if page != "/purchases" {
					names = []string{"email", "status", "cursor", "before"}
				}
				for _, name := range names {
					for _, htmx := range []bool{false, true} {
						cases++
						path := page + "?" + url.Values{name: {p}}.Encode()
						r := owner.get(path, htmx)
						if r.status != 200 && r.status != 400 {
							t.Errorf("%s: got %d", path, r.status)
						}
						noMarkup(t, path, r.body)
					}
				}
			}
			cases += 2
			for _, path := range []string{"/purchases/" + url.PathEscape(p), subs + "/" + url.PathEscape(p)} {
				if r := owner.get(path, false); r.status != 400 && r.status != 404 {
					t.Errorf("%s: got %d", path, r.status)
				}
			}
		}
	})

	t.Run("Forms", func(t *testing.T) {
		e := e.with(t)
		jar := e.signInAs(owner.email, dashPassword)
		for _, p := range append(sqlPayloads, xssPayload) {
			cases += 4
			if r := jar.post("/login", url.Values{"email": {p}, "password": {p}}); r.status != http.StatusUnauthorized && r.status != http.StatusSeeOther && r.status != http.StatusTooManyRequests {
				t.Errorf("sign-in as %q: got %d", p, r.status)
			}
			r := owner.post("/account/keys", url.Values{"name": {p}, "scope": {"read"}})
			if r.status != 200 {
				t.Errorf("key named %q: got %d", p, r.status)
			}
			noMarkup(t, "new key", r.body)
			r = owner.post("/account/users", url.Values{"email": {p}, "role": {"viewer"}, "password": {dashPassword}})
			if r.status != 400 {
				t.Errorf("user %q: got %d, want 400", p, r.status)
			}
			noMarkup(t, "new user", r.body)
			// Refused: the page it is redirected to says why.
			page := owner.seePurchase(t, owner.post(fmt.Sprintf("/purchases/%d/reactivate", rfd), url.Values{"customer_email": {p}, "refulfill": {p}}), rfd, false)
			if !strings.Contains(text(page.byID("reactivate")), "cannot be reactivated") {
				t.Errorf("dashboard reactivation with %q: the panel does not say why: %s", p, text(page.byID("reactivate")))
			}
			noMarkup(t, "reactivation form", []byte(page.raw))
		}
		e.clock.advance(2 * time.Hour)
	})

	if after := dbChecksum(t, e); after != before {
		t.Errorf("the database changed: %s → %s", before, after)
	}
	t.Logf("%d injection cases", cases)
}

func TestHostile_MalformedInput(t *testing.T) {
	e := newAPI(t, 0)
	owner := e.signIn(e.id(1), "owner")
	rfd := refundedPurchase(t, e)
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	cases := 0

	t.Run("OverLong", func(t *testing.T) {
		e := e.with(t)
		cases += 8
		wantError(t, e.get("/api/v2/purchases?customer_email="+strings.Repeat("a", 9000), e.ro), 414, "INVALID", "too_large", "")
		wantError(t, e.get("/api/v2/purchases?customer_email="+strings.Repeat("a", 256), e.ro), 400, "INVALID", "invalid_parameter", "customer_email")
		wantError(t, e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", rfd), e.rw, strings.NewReader("customer_email="+strings.Repeat("a", 70000)), form),
			413, "INVALID", "too_large", "")
		// Without a Content-Length (chunked), the size is judged all the same.
		wantError(t, e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", rfd), e.rw, io.MultiReader(strings.NewReader("refulfill=1&x="), strings.NewReader(strings.Repeat("a", 70000))), form),
			413, "INVALID", "too_large", "")
		if r := owner.get("/purchases?customer_email="+strings.Repeat("a", 100_000), false); r.status != 400 {
			t.Errorf("dashboard over-long filter: got %d, want 400", r.status)
		}
		if r := owner.get(e.path("/storefronts/%d/subscribers?email=", 1)+strings.Repeat("a", 100_000), false); r.status != 400 {
			t.Errorf("dashboard over-long search: got %d, want 400", r.status)
		}
		if r := owner.post(fmt.Sprintf("/purchases/%d/reactivate", rfd), url.Values{"customer_email": {strings.Repeat("a", 70000)}}); r.status != 413 {
			t.Errorf("dashboard over-long reactivation: got %d, want 413", r.status)
		}
		if r := owner.post("/account/password", url.Values{"current_password": {strings.Repeat("p", 70000)}}); r.status != 413 {
			t.Errorf("over-long password form: got %d, want 413", r.status)
		}
		cases++
		if r := owner.post("/login", url.Values{"email": {strings.Repeat("a", 50_000) + "@x.test"}, "password": {strings.Repeat("p", 10_000)}}); r.status != 401 {
			t.Errorf("over-long sign-in: got %d, want 401", r.status)
		}
	})

	t.Run("InvalidUTF8", func(t *testing.T) {
		e := e.with(t)
		for _, name := range []string{"customer_email", "customer_first_name", "status", "date_min", "total", "cursor"} {
			cases++
			wantError(t, e.get("/api/v2/purchases?"+name+"=%FF%FE", e.ro), 400, "INVALID", "invalid_parameter", name)
		}
		cases += 6
		wantError(t, e.get("/api/v2/purchases?%FF=1", e.ro), 400, "INVALID", "unknown_parameter", "\uFFFD")
		wantError(t, e.get(e.path("/api/v2/storefronts/%d/subscribers?username=%%C3%%28", 1), e.ro), 400, "INVALID", "invalid_parameter", "username")
		wantError(t, e.get(e.path("/api/v2/storefronts/%d/subscribers/verify?username=%%C3%%28", 1), e.ro), 400, "INVALID", "invalid_parameter", "username")
		wantError(t, e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", rfd), e.rw, strings.NewReader("customer_email=%FF%40b.com"), form),
			400, "INVALID", "invalid_parameter", "customer_email")
		wantError(t, e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", rfd), e.rw, strings.NewReader("{\"customer_email\":\"\xff@b.com\"}"),
			map[string]string{"Content-Type": "application/json"}), 400, "INVALID", "invalid_parameter", "customer_email")
		wantError(t, e.get("/api/v2/purchases/%FF", e.ro), 400, "INVALID", "invalid_parameter", "id")
		for _, path := range []string{"/purchases?customer_email=%FF", "/purchases?%FF=1", e.path("/storefronts/%d/subscribers?email=%%FF", 1), "/purchases/%FF"} {
			cases++
			if r := owner.get(path, false); r.status != 400 {
				t.Errorf("%s: got %d, want 400", path, r.status)
			}
		}
		cases += 3
		for _, f := range []url.Values{{"email": {"\xff@x.test"}, "password": {"p"}}, {"email": {"a@x.test"}, "password": {"\xff\xfe"}}} {
			if r := owner.post("/login", f); r.status != 401 {
				t.Errorf("sign-in with invalid UTF-8: got %d, want 401", r.status)
			}
		}
		if r := owner.post("/account/keys", url.Values{"name": {"\xffkey"}, "scope": {"read"}}); r.status != 400 {
			t.Errorf("key name with invalid UTF-8: got %d, want 400", r.status)
		}
		e.clock.advance(2 * time.Hour)
	})

	t.Run("Numbers", func(t *testing.T) {
		e := e.with(t)
		for _, q := range []string{
			"per_page=0", "per_page=-1", "per_page=501", "per_page=99999999999999999999", "per_page=1e3", "per_page=0x10",
			"page=0", "page=-1", "page=9223372036854775808", "page=1.5",
			"storefront_id=0", "storefront_id=-1", "storefront_id=99999999999999999999", e.path("storefront_id=0%d", 1), e.path("product_id=%%2B%d", 1),
			"total=1e400", "total=NaN", "total=Inf", "total=0x1p3", "total=1,5", "total=--1",
		} {
			cases++
			name, _, _ := strings.Cut(q, "=")
			r := e.get("/api/v2/purchases?"+q, e.ro)
			if r.status != 400 {
				t.Errorf("%s: got %d, want 400", q, r.status)
				continue
			}
			wantError(t, r, 400, "INVALID", "invalid_parameter", name)
		}
		for _, q := range []string{
			"storefront_id=9223372036854775807", "total=-99999999999999999999999999.99", "total=0.0000000000000000000001",
			"total=99999999999999999999999999999999999999999999999999", "page=9223372036854775807", "date_min=@-99999999999", "date_max=@99999999999",
		} {
			cases++
			if r := e.get("/api/v2/purchases?"+q, e.ro); r.status != 200 && r.status != 400 {
				t.Errorf("%s: got %d", q, r.status)
			} else if r.status == 400 {
				name, _, _ := strings.Cut(q, "=")
				wantError(t, r, 400, "INVALID", "invalid_parameter", name)
			}
		}
		for _, id := range []string{"0", "-1", "9223372036854775808", "99999999999999999999", "1e3", fmt.Sprintf("0x%x", e.id(1)), e.path("0%d", 1)} {
			cases += 3
			wantError(t, e.get("/api/v2/purchases/"+id, e.ro), 400, "INVALID", "invalid_parameter", "id")
			wantError(t, e.get("/api/v2/storefronts/"+id+"/subscribers", e.ro), 400, "INVALID", "invalid_parameter", "storefront_id")
			if r := owner.get("/purchases/"+id, false); r.status != 400 {
				t.Errorf("/purchases/%s: got %d, want 400", id, r.status)
			}
		}
		cases++
		wantError(t, e.get("/api/v2/purchases/9223372036854775807", e.ro), 404, "NOTFOUND", "not_found", "")
		for _, q := range []string{"total=1e400", "total=-99999999999999999999999999.99", "storefront_id=99999999999999999999", "product_id=-1", "date_min=@99999999999999"} {
			for _, htmx := range []bool{false, true} {
				cases++
				if r := owner.get("/purchases?"+q, htmx); r.status != 200 && r.status != 400 {
					t.Errorf("dashboard %s: got %d", q, r.status)
				}
			}
		}
		for _, body := range []string{`{"refulfill":2}`, `{"refulfill":1e400}`, `{"refulfill":-1}`, `{"refulfill":1.0}`, `{"customer_email":12}`} {
			cases++
			wantError(t, e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", rfd), e.rw, strings.NewReader(body), map[string]string{"Content-Type": "application/json"}),
				400, "INVALID", "invalid_parameter", map[bool]string{true: "customer_email", false: "refulfill"}[strings.Contains(body, "customer_email")])
		}
	})
	t.Logf("%d malformed-input cases", cases)
}

// hostileIDs are the ids the hostile document uses, as e.id takes them (the
// environment's are e.id(hostileStorefront) and so on): far from the seeded ones.
const (
	hostileStorefront = 9901
	hostilePurchase   = 990001
	hostileSubscriber = 990100
)

// importHostile imports, into account 1, a storefront, a subscriber and a purchase
// whose every text field carries xssPayload, built from the import fixture.
func importHostile(t *testing.T, e *apiEnv) {
	t.Helper()
	raw, err := os.ReadFile("../internal/mysql/testdata/import/full.json")
	if err != nil {
		t.Fatal(err)
	}
	var fixture struct {
		Purchases   []map[string]any `json:"purchases"`
		Subscribers []map[string]any `json:"subscribers"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&fixture); err != nil {
		t.Fatal(err)
	}
	x := func(label string) string { return label + " " + xssPayload }

	sub := fixture.Subscribers[0]
	sub["id"], sub["storefront_id"], sub["username"] = e.id(hostileSubscriber), e.id(hostileStorefront), x("subscriber")+"@evil.test"
	sub["subscription"].(map[string]any)["id"] = e.id(995000)

	p := fixture.Purchases[0]
	p["id"], p["storefront_id"], p["subscriber_id"], p["salt"] = e.id(hostilePurchase), e.id(hostileStorefront), e.id(hostileSubscriber), "hostile-salt"
	for _, k := range []string{"buyer_firstname", "buyer_lastname", "customer_notes", "shipping_firstname", "shipping_lastname", "shipping_street",
		"shipping_city", "shipping_state", "shipping_country", "shipping_phone", "shipping_vatin", "shipping_business_name", "shipping_carrier",
		"shipping_tracking_number", "billing_firstname", "billing_lastname", "billing_street", "billing_city", "billing_card_type", "billing_card_number"} {
		p[k] = x(k)
	}
	cu := p["customer"].(map[string]any)
	cu["id"], cu["firstname"], cu["lastname"] = e.id(990700), x("customer first"), x("customer last")
	for i, li := range p["line_items"].([]any) {
		m := li.(map[string]any)
		m["id"], m["purchase_id"], m["product_id"] = e.id(990011+int64(i)), e.id(hostilePurchase), e.id(990900+int64(i))
		m["product_name"] = x(fmt.Sprintf("product %d", i))
		keys := []any{}
		for j := range m["product_keys"].([]any) {
			keys = append(keys, x(fmt.Sprintf("key %d", j)))
		}
		m["product_keys"] = keys
	}
	for _, c := range p["coupons"].([]any) {
		m := c.(map[string]any)
		m["name"], m["code"] = x("coupon name"), x("coupon code")
	}
	for _, c := range p["custom_fields"].([]any) {
		m := c.(map[string]any)
		m["label"], m["response"] = x("field label"), x("field response")
	}
	for i, tx := range p["transactions"].([]any) {
		m := tx.(map[string]any)
		m["id"], m["purchase_id"], m["gateway"], m["message"], m["reference"] = e.id(990031+int64(i)), e.id(hostilePurchase), x("gateway"), x("tx message"), x("tx ref")
	}
	// The arrays in the order references need: storefronts, subscribers, purchases.
	var b bytes.Buffer
	b.WriteString("{")
	for i, part := range []struct {
		name string
		v    any
	}{
		{"storefronts", []any{map[string]any{"id": e.id(hostileStorefront), "account_id": e.id(1), "name": x("storefront"), "currency": "EUR", "download_limit": 5, "download_days": 30}}},
		{"subscribers", []any{sub}},
		{"purchases", []any{p}},
	} {
		v, err := json.Marshal(part.v)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:%s", part.name, v)
	}
	b.WriteString("}")
	if _, err := importer.Run(context.Background(), e.db, &b, nil); err != nil {
		t.Fatalf("import the hostile document: %v", err)
	}
}

// hostilePages are the pages of e that show the imported data, with what each must
// show (escaped) so that the check is not passed by a page that leaves the data out.
func hostilePages(e *apiEnv) []struct{ path, shows string } {
	return []struct{ path, shows string }{
		{e.path("/purchases?storefront_id=%d", hostileStorefront), "product 0"},
		{"/purchases?customer_first_name=buyer_firstname", "buyer_firstname"},
		{e.path("/purchases/%d", hostilePurchase), "coupon name"},
		{e.path("/purchases/%d", hostilePurchase), "field response"},
		{e.path("/purchases/%d", hostilePurchase), "key 1"},
		{e.path("/purchases/%d", hostilePurchase), "customer_notes"},
		{e.path("/purchases/%d", hostilePurchase), "tx message"},
		{e.path("/storefronts/%d/subscribers", hostileStorefront), "subscriber"},
		{e.path("/storefronts/%d/subscribers/%d", hostileStorefront, hostileSubscriber), "subscriber"},
		{e.path("/storefronts/%d/subscribers/%d", hostileStorefront, hostileSubscriber), "product 0"},
		{"/account", "key named"},
	}
}

// escapedPayload is how xssPayload reads in HTML text once escaped.
const escapedPayload = "&lt;script&gt;window.__xss=1&lt;/script&gt;"

func TestHostile_ImportedData(t *testing.T) {
	e := newAPI(t, 0)
	importHostile(t, e)
	// A user whose e-mail is markup (no spaces, one @: a valid address to the form),
	// to show up as the actor on the timeline and in the users list.
	hostileEmail := `"><img/src=x/onerror=window.__xss=1>@evil.test`
	if _, err := mysql.NewAdminService(e.db).CreateUser(context.Background(), e.id(1), hostileEmail, "owner", dashPassword); err != nil {
		t.Fatal(err)
	}
	actor := e.signInAs(hostileEmail, dashPassword)
	if r := actor.post("/account/keys", url.Values{"name": {"key named " + xssPayload}, "scope": {"read"}}); r.status != 200 {
		t.Fatalf("create the hostile key: %d", r.status)
	}
	mails := len(e.smtp.Messages())
	if r := actor.post(e.path("/purchases/%d/reactivate", hostilePurchase), url.Values{"customer_email": {"buyer@example.com"}, "refulfill": {"1"}}); r.status != http.StatusSeeOther {
		t.Fatalf("reactivate the hostile purchase: %d %s", r.status, r.body)
	}
	cases := 0

	t.Run("Pages", func(t *testing.T) {
		owner := e.with(t).signIn(e.id(1), "owner")
		for _, pg := range hostilePages(e) {
			for _, htmx := range []bool{false, true} {
				cases++
				r := owner.get(pg.path, htmx)
				if r.status != 200 {
					t.Fatalf("%s: got %d", pg.path, r.status)
				}
				noMarkup(t, pg.path, r.body)
				if !htmx && (!strings.Contains(string(r.body), pg.shows) || !strings.Contains(string(r.body), escapedPayload)) {
					t.Errorf("%s does not show %q with the payload escaped", pg.path, pg.shows)
				}
			}
		}
		cases++
		r := owner.get(e.path("/purchases/%d", hostilePurchase), false)
		if !strings.Contains(string(r.body), "&#34;&gt;&lt;img/src=x/onerror=window.__xss=1&gt;@evil.test") {
			t.Error("the timeline does not show the hostile actor, escaped")
		}
	})

	t.Run("API", func(t *testing.T) {
		e := e.with(t)
		for _, path := range []string{e.path("/api/v2/purchases/%d", hostilePurchase), e.path("/api/v2/storefronts/%d/subscribers/%d", hostileStorefront, hostileSubscriber)} {
			cases++
			r := e.get(path, e.ro)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") || r.header.Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("%s: %d %q", path, r.status, r.header.Get("Content-Type"))
			}
			if bytes.Contains(r.body, []byte("<script>")) {
				t.Errorf("%s: JSON carries raw <script> (want \\u003c)", path)
			}
			// What was imported comes back unchanged (docs/API.md#import-documents).
			var v any
			r.json(t, &v)
			if !strings.Contains(jsonNoEscape(t, v), strings.Trim(jsonNoEscape(t, xssPayload), `"`)) {
				t.Errorf("%s: the payload did not come back as imported", path)
			}
		}
	})

	t.Run("Email", func(t *testing.T) {
		cases++
		msgs := e.smtp.Wait(mails+1, 10*time.Second)
		m := msgs[len(msgs)-1]
		checkOneRecipient(t, m.To, m.Header, "buyer@example.com")
		if !strings.Contains(m.Body, "product 0 "+xssPayload) || !strings.Contains(m.Body, "key 0 "+xssPayload) {
			t.Errorf("the e-mail does not list the product and key as given:\n%s", m.Body)
		}
		if ct := m.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "text/plain") {
			t.Errorf("the e-mail is %q; the payload is harmless only in plain text", ct)
		}
	})
	t.Logf("%d imported-data cases", cases)
}

// jsonNoEscape writes v as JSON without escaping <, > and &.
func jsonNoEscape(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(b.String())
}

// checkOneRecipient checks a message went to want alone, with no header smuggled in.
func checkOneRecipient(t *testing.T, rcpt string, h netmail.Header, want string) {
	t.Helper()
	if rcpt != want {
		t.Errorf("RCPT %q, want %q", rcpt, want)
	}
	to, err := h.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != want {
		t.Errorf("To: %q (%v), want %s alone", h.Get("To"), err, want)
	}
	for _, k := range []string{"Cc", "Bcc", "X-Injected"} {
		if v, ok := h[k]; ok {
			t.Errorf("injected header %s: %q", k, v)
		}
	}
	if s := h.Get("Subject"); strings.ContainsAny(s, "\r\n") {
		t.Errorf("Subject spans lines: %q", s)
	}
}

// TestHostile_HeaderInjection sends line breaks in customer_email (API form and JSON,
// dashboard) and keeps them in stored names and addresses: no e-mail gets a second
// recipient or a header of the sender's making.
func TestHostile_HeaderInjection(t *testing.T) {
	e := newAPI(t, 0)
	owner := e.signIn(e.id(1), "owner")
	id, _ := pickPurchase(t, e, map[int64]bool{}, "ACT")
	path := fmt.Sprintf("/api/v2/purchases/%d/reactivate", id)
	mails := len(e.smtp.Messages())
	cases := 0
	for _, addr := range []string{
		"victim@example.com\r\nBcc: thief@evil.test", "victim@example.com\nBcc: thief@evil.test", "victim@example.com\rBcc: thief@evil.test",
		"victim@example.com\r\n\r\nbody", "victim@example.com%0d%0aBcc:thief@evil.test", "victim@example.com, thief@evil.test",
		"victim@example.com\x00thief@evil.test", "Victim <victim@example.com>", "victim@example.com>\r\nX-Injected: 1",
		// A line break at either end is refused too, not trimmed away (docs/API.md#reactivation).
		"victim@example.com\n", "victim@example.com\r\n", "\nvictim@example.com",
	} {
		cases += 3
		wantError(t, e.do("POST", path, e.rw, strings.NewReader(url.Values{"customer_email": {addr}}.Encode()),
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}), 400, "INVALID", "invalid_parameter", "customer_email")
		b, _ := json.Marshal(map[string]string{"customer_email": addr})
		wantError(t, e.do("POST", path, e.rw, bytes.NewReader(b), map[string]string{"Content-Type": "application/json"}), 400, "INVALID", "invalid_parameter", "customer_email")
		if page := owner.seePurchase(t, owner.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {addr}}), id, false); page.byID("reactivate-email-error") == nil {
			t.Errorf("dashboard, %q: no problem shown by Send to", addr)
		}
	}
	if n := len(e.smtp.Messages()); n != mails {
		t.Fatalf("refused addresses sent %d e-mails", n-mails)
	}

	// Line breaks already in the data: the product, the storefront and the buyer's
	// name, and the buyer's address with no customer record to take precedence.
	evil := "\r\nBcc: thief@evil.test\r\nX-Injected: 1\r\n"
	for _, q := range []string{
		`UPDATE line_items SET product_name = CONCAT('Book', ?) WHERE purchase_id = ?`,
		`UPDATE purchases SET buyer_firstname = CONCAT('Ann', ?), customer_id = NULL WHERE id = ?`,
	} {
		if _, err := e.db.Exec(q, evil, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.db.Exec(`UPDATE storefronts SET name = CONCAT('Shop', ?) WHERE id = (SELECT storefront_id FROM purchases WHERE id = ?)`, evil, id); err != nil {
		t.Fatal(err)
	}
	cases++
	r := e.do("POST", path, e.rw, strings.NewReader("customer_email=victim%40example.com"), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	if r.status != 200 {
		t.Fatalf("reactivation with a valid address: %d %s", r.status, r.body)
	}
	msgs := e.smtp.Wait(mails+1, 10*time.Second)
	checkOneRecipient(t, msgs[len(msgs)-1].To, msgs[len(msgs)-1].Header, "victim@example.com")

	cases++
	if _, err := e.db.Exec(`UPDATE purchases SET buyer_email = ? WHERE id = ?`, "victim@example.com"+evil, id); err != nil {
		t.Fatal(err)
	}
	e.rebuild()
	r = e.do("POST", path, e.rw, nil, nil)
	if r.status != 400 {
		t.Fatalf("reactivation to a stored address with a line break: got %d %s, want 400", r.status, r.body)
	}
	wantError(t, r, 400, "INVALID", "invalid_parameter", "customer_email")
	if n := len(e.smtp.Messages()); n != mails+1 {
		t.Fatalf("%d e-mails after the refused reactivation, want %d", n, mails+1)
	}
	t.Logf("%d header-injection cases", cases)
}

// TestBrowser_HostileData opens every page that shows the hostile import in
// Chromium, and a few that echo hostile parameters: no payload runs
// (window.__xss stays undefined), and the console stays clean: a
// Content-Security-Policy report there would mean the payload reached the page.
func TestBrowser_HostileData(t *testing.T) {
	browser := startBrowser(t)
	e := newAPI(t, 0)
	importHostile(t, e)
	ownerEmail := e.newUser(e.id(1), "owner")
	if _, err := e.db.Exec(`INSERT INTO api_keys (account_id, name, key_hash, scope, created_at) VALUES (?, ?, UNHEX(SHA2('x', 256)), 'read', NOW())`, e.id(1), "key named "+xssPayload); err != nil {
		t.Fatal(err)
	}
	tb := signedInTab(t, browser, e.url, "/purchases", ownerEmail)
	type visit struct {
		path   string
		status int64
	}
	visits := []visit{}
	for _, pg := range hostilePages(e) {
		visits = append(visits, visit{pg.path, http.StatusOK})
	}
	// The parameters echoed back: a date and a status that do not parse are bad
	// input, a purchase id that is no number finds nothing.
	q := url.QueryEscape(xssPayload)
	visits = append(visits, visit{"/purchases?customer_email=" + q + "&date_min=" + q, http.StatusBadRequest},
		visit{e.path("/storefronts/%d/subscribers?email=", 1) + q + "&status=" + q, http.StatusBadRequest},
		visit{"/login?next=" + q, http.StatusOK}, visit{"/purchases/" + url.PathEscape(xssPayload), http.StatusNotFound})
	for _, v := range visits {
		p := v.path
		if st := tb.open(t, p); st != v.status {
			t.Errorf("%s: got %d, want %d", p, st, v.status)
		}
		tb.waitFor(t, "the page to load", `document.readyState === 'complete'`, `location.href`)
		if got := eval[any](t, tb, `window.__xss === undefined ? null : window.__xss`); got != nil {
			t.Errorf("%s: a payload ran (window.__xss = %v)", p, got)
		}
		if n := eval[int](t, tb, `document.querySelectorAll('main script, main img[src=x], main svg[onload], main [onerror]').length`); n != 0 {
			t.Errorf("%s: %d elements of the payload's making", p, n)
		}
		// A payload the CSP blocked would show here, as a report in the console.
		if v.status >= 400 {
			tb.checkConsole(t, failedLoad{v.status, eval[string](t, tb, `location.href`)})
		} else {
			tb.checkConsole(t)
		}
	}
	// The filters typed in through htmx: the fragment swaps in, nothing runs.
	tb.open(t, "/purchases")
	tb.do(t, "type a payload into the e-mail filter", chromedp.SendKeys(byLabel("Customer e-mail"), xssPayload))
	tb.waitFor(t, "the filtered table", `new URL(location.href).searchParams.get('q') !== null && !document.querySelector('.htmx-request')`, `location.href`)
	if got := eval[any](t, tb, `window.__xss === undefined ? null : window.__xss`); got != nil {
		t.Errorf("htmx filter: a payload ran (window.__xss = %v)", got)
	}
	tb.checkConsole(t)
	t.Logf("%d pages opened with hostile data", len(visits)+1)
}

// blankVariants are the ways a value can carry blanks around it: a space, a tab, a
// line break, a no-break space (all of which strings.TrimSpace would remove), before
// or after.
func blankVariants(v string) []string {
	return []string{" " + v, v + " ", "\t" + v, v + "\n", "\r\n" + v, "\u00a0" + v}
}

// purchaseSnapshot is everything a reactivation changes about a purchase: its row,
// its line items, its activity, its idempotency keys and its queued e-mails.
func purchaseSnapshot(t *testing.T, e *apiEnv, id int64) string {
	t.Helper()
	var row, items string
	var activity, keys, outbox int
	if err := e.db.QueryRow(`SELECT CONCAT_WS('|', status, updated_at) FROM purchases WHERE id = ? AND account_id = ?`, id, e.id(1)).Scan(&row); err != nil {
		t.Fatal(err)
	}
	// The keys counted in a grouped derived table, not a correlated subquery, which
	// vtgate plans for EXISTS only (the tests run through a vtgate too).
	if err := e.db.QueryRow(`SELECT GROUP_CONCAT(CONCAT_WS(':', li.id, li.download_count, li.download_limit, IFNULL(li.expires_at, '-'),
		COALESCE(k.n, 0)) ORDER BY li.id) FROM line_items li
		LEFT JOIN (SELECT line_item_id, COUNT(*) AS n FROM product_keys WHERE account_id = ? AND purchase_id = ? GROUP BY line_item_id) k ON k.line_item_id = li.id
		WHERE li.account_id = ? AND li.purchase_id = ?`, e.id(1), id, e.id(1), id).Scan(&items); err != nil {
		t.Fatal(err)
	}
	e.db.QueryRow(`SELECT COUNT(*) FROM purchase_activity WHERE purchase_id = ?`, id).Scan(&activity)
	e.db.QueryRow(`SELECT COUNT(*) FROM idempotency_keys WHERE account_id = ? AND purchase_id = ?`, e.id(1), id).Scan(&keys)
	e.db.QueryRow(`SELECT COUNT(*) FROM email_outbox WHERE account_id = ? AND purchase_id = ?`, e.id(1), id).Scan(&outbox)
	return fmt.Sprintf("purchase %s; line items %s; activity %d; idempotency keys %d; outbox %d", row, items, activity, keys, outbox)
}

// TestHostile_LiteralInput: the API reads every value as sent (docs/API.md#reading-parameters). A value of
// only blanks is absent; any other keeps its blanks: an id, number or keyword with
// blanks around it is a 400 naming the parameter, text with them matches only text
// that has them, and a reactivation address with a line break is refused with nothing
// sent and nothing changed, never trimmed into an address of its own.
func TestHostile_LiteralInput(t *testing.T) {
	e := newAPI(t, 0)
	cases := 0

	var productID, customerID, subscriberID, purchaseID, storefrontSub int64
	var username string
	if err := e.db.QueryRow(`SELECT p.id, p.customer_id, p.subscriber_id, MIN(li.product_id)
		FROM purchases p JOIN line_items li ON li.account_id = p.account_id AND li.purchase_id = p.id
		WHERE p.account_id = ? AND p.storefront_id = ? AND p.customer_id IS NOT NULL AND p.subscriber_id IS NOT NULL
		GROUP BY p.id, p.customer_id, p.subscriber_id ORDER BY p.id LIMIT 1`, e.id(1), e.id(1)).Scan(&purchaseID, &customerID, &subscriberID, &productID); err != nil {
		t.Fatalf("the seed has no purchase with a customer, a subscriber and a line item: %v", err)
	}
	if err := e.db.QueryRow(`SELECT id, username FROM subscribers WHERE storefront_id = ? ORDER BY id LIMIT 1`, e.id(1)).Scan(&storefrontSub, &username); err != nil {
		t.Fatal(err)
	}
	nextCursor := func(path string) string {
		t.Helper()
		m := linkRe.FindStringSubmatch(e.get(path, e.ro).header.Get("Link"))
		if m == nil {
			t.Fatalf("%s: no Link to take a cursor from", path)
		}
		u, _ := url.Parse(m[1])
		return u.Query().Get("cursor")
	}
	purchaseCursor := nextCursor("/api/v2/purchases?per_page=1")
	sub := e.path("/api/v2/storefronts/%d/subscribers", 1)
	subscriberCursor := nextCursor(sub + "?per_page=1")

	t.Run("QueryValues", func(t *testing.T) {
		e := e.with(t)
		for _, tc := range []struct {
			path, name, value, extra string
		}{
			{"/api/v2/purchases", "product_id", fmt.Sprint(productID), ""},
			{"/api/v2/purchases", "storefront_id", fmt.Sprint(e.id(1)), ""},
			{"/api/v2/purchases", "customer_id", fmt.Sprint(customerID), ""},
			{"/api/v2/purchases", "subscriber_id", fmt.Sprint(subscriberID), ""},
			{"/api/v2/purchases", "per_page", "10", ""},
			{"/api/v2/purchases", "page", "2", ""},
			{"/api/v2/purchases", "total", "10", ""},
			{"/api/v2/purchases", "total_op", "gt", "total=10"},
			{"/api/v2/purchases", "status", "act", ""},
			{"/api/v2/purchases", "order", "DESC", ""},
			{"/api/v2/purchases", "ship", "true", ""},
			{"/api/v2/purchases", "include_count", "1", ""},
			{"/api/v2/purchases", "cursor", purchaseCursor, ""},
			{sub, "per_page", "10", ""},
			{sub, "page", "1", ""},
			{sub, "order", "desc", ""},
			{sub, "include_count", "TRUE", ""},
			{sub, "cursor", subscriberCursor, ""},
			{sub + "/verify", "id", fmt.Sprint(storefrontSub), ""},
			{sub + "/verify", "subscriber_id", fmt.Sprint(storefrontSub), ""},
		} {
			q := func(v string) string {
				s := url.Values{tc.name: {v}}.Encode()
				if tc.extra != "" {
					s += "&" + tc.extra
				}
				return tc.path + "?" + s
			}
			// As sent without blanks the value is good: the blanks alone are refused.
			cases++
			if r := e.get(q(tc.value), e.ro); r.status != 200 {
				t.Fatalf("%s: got %d %s, want 200", q(tc.value), r.status, r.body)
			}
			for _, v := range blankVariants(tc.value) {
				cases++
				t.Run(fmt.Sprintf("%s/%q", tc.name, v), func(t *testing.T) {
					wantError(t, e.get(q(v), e.ro), 400, "INVALID", "invalid_parameter", tc.name)
				})
			}
		}
		// A blank item inside a status list is no code either; an empty one names
		// nothing, and a value of only blanks is the same as none (docs/API.md#reading-parameters).
		cases += 3
		wantError(t, e.get("/api/v2/purchases?status=ACT,%20RFD", e.ro), 400, "INVALID", "invalid_parameter", "status")
		for _, p := range []string{"/api/v2/purchases?status=ACT,,RFD,&product_id=%20%09&per_page=%0A", sub + "/verify?id=%20&username=" + url.QueryEscape(username)} {
			if r := e.get(p, e.ro); r.status != 200 {
				t.Errorf("%s: got %d %s, want 200", p, r.status, r.body)
			}
		}
	})

	t.Run("PathIDs", func(t *testing.T) {
		e := e.with(t)
		for _, tc := range []struct {
			path  string // {id} is the id
			id    int64
			param string
		}{
			{"/api/v2/purchases/{id}", purchaseID, "id"},
			{"/api/v2/storefronts/{id}/subscribers", e.id(1), "storefront_id"},
			{"/api/v2/storefronts/{id}/subscribers/verify?username=" + url.QueryEscape(username), e.id(1), "storefront_id"},
			{sub + "/{id}", storefrontSub, "id"},
		} {
			cases++
			clean := strings.Replace(tc.path, "{id}", fmt.Sprint(tc.id), 1)
			if r := e.get(clean, e.ro); r.status != 200 {
				t.Fatalf("%s: got %d, want 200", clean, r.status)
			}
			for _, v := range blankVariants(fmt.Sprint(tc.id)) {
				cases++
				p := strings.Replace(tc.path, "{id}", url.PathEscape(v), 1)
				t.Run(p, func(t *testing.T) { wantError(t, e.get(p, e.ro), 400, "INVALID", "invalid_parameter", tc.param) })
			}
		}
		for _, v := range blankVariants(fmt.Sprint(purchaseID)) {
			cases++
			wantError(t, e.do("POST", "/api/v2/purchases/"+url.PathEscape(v)+"/reactivate", e.rw, nil, nil), 400, "INVALID", "invalid_parameter", "id")
		}
	})

	t.Run("Text", func(t *testing.T) {
		e := e.with(t)
		// Two buyers: one whose address and names start with a space, one without.
		var spaced, plain int64
		if err := e.db.QueryRow(`SELECT MIN(id), MAX(id) FROM (SELECT id FROM purchases WHERE account_id = ? ORDER BY id DESC LIMIT 2) two`, e.id(1)).Scan(&spaced, &plain); err != nil {
			t.Fatal(err)
		}
		dbtest_exec(t, e,
			fmt.Sprintf(`UPDATE purchases SET buyer_email = ' 1literal@example.com', buyer_firstname = ' Literal', buyer_lastname = 'Literal ' WHERE id = %d`, spaced),
			fmt.Sprintf(`UPDATE purchases SET buyer_email = '1literal@example.com', buyer_firstname = 'Literal', buyer_lastname = 'Literalx' WHERE id = %d`, plain))
		for _, tc := range []struct {
			query string
			want  []int64
		}{
			{"customer_email=%201", []int64{spaced}},
			{"customer_email=1literal", []int64{plain}},
			{"customer_first_name=%20literal", []int64{spaced}},
			{"customer_first_name=literal", []int64{plain}},
			{"customer_last_name=Literal%20", []int64{spaced}},
			{"customer_last_name=literal", []int64{spaced, plain}},
		} {
			cases++
			var got []int64
			for _, p := range e.walk("/api/v2/purchases?per_page=500&"+tc.query, e.ro) {
				got = append(got, p.ID)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s: got %v, want %v", tc.query, got, tc.want)
			}
		}
		// A username is compared as sent: blanks around it are not the stored name's.
		for _, v := range []string{" " + username, username + " ", username + "\n", "\t" + username} {
			cases += 3
			if r := e.get(sub+"?username="+url.QueryEscape(v), e.ro); r.status != 200 || strings.TrimSpace(string(r.body)) != "[]" {
				t.Errorf("username=%q: got %d %.200s, want 200 []", v, r.status, r.body)
			}
			wantError(t, e.get(sub+"/verify?username="+url.QueryEscape(v), e.ro), 404, "NOTFOUND", "not_found", "")
			wantError(t, e.get(fmt.Sprintf("%s/verify?id=%d&username=%s", sub, storefrontSub, url.QueryEscape(v)), e.ro), 404, "NOTFOUND", "not_found", "")
		}
		cases++
		if r := e.get(sub+"/verify?username="+url.QueryEscape(username), e.ro); r.status != 200 {
			t.Errorf("verify %q: got %d, want 200", username, r.status)
		}
	})

	t.Run("Reactivate", func(t *testing.T) {
		e := e.with(t)
		id := e.purchaseWithStatus("PND", map[int64]bool{})
		dbtest_exec(t, e, fmt.Sprintf("UPDATE line_items SET download_count = 9, download_limit = 1, expires_at = '2020-01-01' WHERE purchase_id = %d", id))
		path := fmt.Sprintf("/api/v2/purchases/%d/reactivate", id)
		jsonCT := map[string]string{"Content-Type": "application/json"}
		formCT := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
		before := purchaseSnapshot(t, e, id)
		mails := len(e.smtp.Messages())
		for _, tc := range []struct {
			name   string
			path   string
			body   string
			header map[string]string
			param  string
		}{
			{"FormTrailingLF", path, "customer_email=victim%40example.com%0A", formCT, "customer_email"},
			{"FormTrailingCRLF", path, "customer_email=victim%40example.com%0D%0A", formCT, "customer_email"},
			{"FormLFInside", path, "customer_email=victim%40exam%0Aple.com", formCT, "customer_email"},
			{"FormLeadingLF", path, "customer_email=%0Avictim%40example.com", formCT, "customer_email"},
			{"FormRawLineBreakAfterBody", path, "customer_email=victim%40example.com\n", formCT, "customer_email"},
			{"FormLeadingSpace", path, "customer_email=%20victim%40example.com", formCT, "customer_email"},
			{"FormTrailingTab", path, "customer_email=victim%40example.com%09", formCT, "customer_email"},
			{"JSONTrailingLF", path, `{"customer_email":"victim@example.com\n"}`, jsonCT, "customer_email"},
			{"JSONTrailingCRLF", path, `{"customer_email":"victim@example.com\r\n"}`, jsonCT, "customer_email"},
			{"JSONLFInside", path, `{"customer_email":"victim@\nexample.com"}`, jsonCT, "customer_email"},
			{"JSONLeadingSpace", path, `{"customer_email":" victim@example.com"}`, jsonCT, "customer_email"},
			{"QueryTrailingLF", path + "?customer_email=victim%40example.com%0A", "", nil, "customer_email"},
			{"WithIdempotencyKey", path, "customer_email=victim%40example.com%0A", map[string]string{"Content-Type": form, "Idempotency-Key": "literal-1"}, "customer_email"},
			{"JSONRefulfillLeadingSpace", path, `{"refulfill":" 1"}`, jsonCT, "refulfill"},
			{"JSONRefulfillTrailingTab", path, `{"refulfill":"1\t"}`, jsonCT, "refulfill"},
			{"JSONRefulfillPaddedWord", path, `{"refulfill":" true "}`, jsonCT, "refulfill"},
			{"FormRefulfillLeadingSpace", path, "refulfill=%201", formCT, "refulfill"},
			{"FormRefulfillTrailingLF", path, "refulfill=1%0A", formCT, "refulfill"},
			{"QueryRefulfillTrailingSpace", path + "?refulfill=true%20", "", nil, "refulfill"},
		} {
			cases++
			t.Run(tc.name, func(t *testing.T) {
				var body io.Reader
				if tc.body != "" {
					body = strings.NewReader(tc.body)
				}
				wantError(t, e.do("POST", tc.path, e.rw, body, tc.header), 400, "INVALID", "invalid_parameter", tc.param)
				if after := purchaseSnapshot(t, e, id); after != before {
					t.Fatalf("the refused request changed the purchase:\n before %s\n after  %s", before, after)
				}
			})
		}
		// Nothing was queued (the snapshot counts the outbox). The SMTP server gets
		// only the e-mail of the reactivation that follows, with blank values, which
		// are the same as none: to the purchase's own address.
		cases++
		r := e.do("POST", path, e.rw, strings.NewReader(`{"customer_email":" \t ","refulfill":"  "}`), jsonCT)
		if r.status != 200 {
			t.Fatalf("blank customer_email and refulfill (the same as none): got %d %s", r.status, r.body)
		}
		msgs := e.smtp.Wait(mails+1, 30*time.Second)
		var own string
		e.db.QueryRow(`SELECT COALESCE(NULLIF(c.email, ''), p.buyer_email) FROM purchases p LEFT JOIN customers c ON c.id = p.customer_id WHERE p.id = ?`, id).Scan(&own)
		if len(msgs) != mails+1 || msgs[len(msgs)-1].To != own {
			t.Fatalf("after the refused requests: %d new e-mails, the last to %q; want 1, to the purchase's own %q", len(msgs)-mails, msgs[len(msgs)-1].To, own)
		}
		if after := purchaseSnapshot(t, e, id); after == before {
			t.Fatal("the accepted reactivation changed nothing: the snapshot does not see a reactivation")
		}
	})
	t.Logf("%d literal-input cases", cases)
}
