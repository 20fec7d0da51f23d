package web_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// The fuzz targets below send arbitrary input through the whole handler (routing,
// middleware, parsing, the database): the answer is never a 5xx and never a panic, and
// every 4xx of the API is its JSON error with a message (docs/API.md#errors). Run one with
//
//	go test -run XXX -fuzz=FuzzAPIQuery -fuzztime=5m ./web
//
// The corpora are kept in testdata/fuzz.

// serve runs one request through the handler in process.
func (e *apiEnv) serve(req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return rec
}

// fuzzRequest builds a request for a raw path and query, which may hold anything.
func fuzzRequest(method, path, query string, body string) *http.Request {
	req := httptest.NewRequest(method, "http://shop.test/", strings.NewReader(body))
	req.URL = &url.URL{Path: path, RawQuery: query}
	req.RequestURI = req.URL.RequestURI()
	return req
}

// checkAPIAnswer fails on a 5xx and on a 4xx that is not the API's JSON error with a
// message.
func checkAPIAnswer(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("%s: %d %s", what, rec.Code, rec.Body)
	}
	if rec.Header().Get("X-Request-Id") == "" {
		t.Fatalf("%s: no X-Request-Id", what)
	}
	if rec.Code < 400 {
		return
	}
	var eb errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil {
		t.Fatalf("%s: %d is not JSON: %v: %s", what, rec.Code, err, rec.Body)
	}
	if eb.Status == "" || eb.Error.Code == "" || strings.TrimSpace(eb.Error.Message) == "" {
		t.Fatalf("%s: %d without an error's status, code and message: %s", what, rec.Code, rec.Body)
	}
	if !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		t.Fatalf("%s: %d with Content-Type %q", what, rec.Code, rec.Header().Get("Content-Type"))
	}
}

// checkPageAnswer fails on a 5xx and on an error page that is not HTML.
func checkPageAnswer(t *testing.T, what string, rec *httptest.ResponseRecorder) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("%s: %d %s", what, rec.Code, rec.Body)
	}
	if rec.Code >= 400 && (!strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") || rec.Body.Len() == 0) {
		t.Fatalf("%s: %d with Content-Type %q and %d bytes", what, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
	}
}

// refundedPurchase sets a purchase of account 1 to RFD and returns its id: a
// reactivation of it reads every parameter, then stops at the state check (409)
// without changing anything or sending mail.
func refundedPurchase(tb testing.TB, e *apiEnv) int64 {
	tb.Helper()
	var id int64
	if err := e.db.QueryRow(`SELECT id FROM purchases WHERE account_id = ? ORDER BY id LIMIT 1`, e.id(1)).Scan(&id); err != nil {
		tb.Fatal(err)
	}
	if _, err := e.db.Exec(`UPDATE purchases SET status = 'RFD' WHERE account_id = ? AND id = ?`, e.id(1), id); err != nil {
		tb.Fatal(err)
	}
	e.rebuild()
	return id
}

// apiFuzzRoutes are the API routes the query fuzzer picks from; %s is the fuzzed id,
// {storefront} storefront 1 of the environment (e.id(1)).
var apiFuzzRoutes = []struct{ method, path string }{
	{"GET", "/api/v2/purchases"},
	{"GET", "/api/v2/purchases/%s"},
	{"GET", "/api/v2/storefronts/%s/subscribers"},
	{"GET", "/api/v2/storefronts/%s/subscribers/verify"},
	{"GET", "/api/v2/storefronts/{storefront}/subscribers/%s"},
	{"POST", "/api/v2/purchases/%s/reactivate"},
	{"GET", "/api/v2/"},
}

// FuzzAPIQuery sends arbitrary ids and query strings to every API route.
func FuzzAPIQuery(f *testing.F) {
	e := newAPI(f, 0)
	// one is the id 1 of the demo layout (purchase, storefront, subscriber) in e.
	one := fmt.Sprint(e.id(1))
	for _, q := range []string{
		"", "status=ACT,rfd&per_page=3", "date_min=last+monday&date_max=%40170000", "total=1.5&total_op=gt", "cursor=AQ",
		"per_page=5&page=2", "a=%FF", "customer_email=%27%3B+DROP+TABLE+purchases%3B--", "username=a%40b.com&id=" + one,
		e.path("id=%d&subscriber_id=%d", 1, 2), "per_page=-1", "page=99999999999999999999", "total=1e400", "refulfill=yes", "customer_email=a%0d%0aBcc:x@y",
		"date_min=" + strings.Repeat("9", 300), "order=DESC&include_count=TRUE&ship=False",
	} {
		for i := range apiFuzzRoutes {
			f.Add(uint8(i), one, q)
		}
	}
	for _, id := range []string{"0", "-1", "0" + one, "9223372036854775807", "9223372036854775808", "1e3", "%00", "１"} {
		f.Add(uint8(1), id, "")
	}
	rfd := refundedPurchase(f, e)
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(e.user+":"+e.rw))
	f.Fuzz(func(t *testing.T, route uint8, id, query string) {
		r := apiFuzzRoutes[int(route)%len(apiFuzzRoutes)]
		path := strings.ReplaceAll(r.path, "{storefront}", one)
		if strings.Contains(path, "%s") {
			if r.method == "POST" && id == one {
				id = fmt.Sprint(rfd)
			}
			path = fmt.Sprintf(path, id)
		}
		req := fuzzRequest(r.method, path, query, "")
		req.Header.Set("Authorization", auth)
		checkAPIAnswer(t, r.method+" "+path+"?"+query, e.serve(req))
	})
}

// FuzzReactivateBody sends arbitrary bodies, content types and idempotency keys to
// the reactivation of the API (form or JSON) and of the dashboard (form).
func FuzzReactivateBody(f *testing.F) {
	for _, c := range []struct{ ct, body string }{
		{"application/x-www-form-urlencoded", "customer_email=a%40b.com&refulfill=1"},
		{"application/x-www-form-urlencoded", "refulfill=true&refulfill=false"},
		{"application/x-www-form-urlencoded", "customer_email=a%40b.com%0d%0aBcc%3a+x%40y.z"},
		{"application/x-www-form-urlencoded", "%zz"},
		{"application/json", `{"customer_email":"a@b.com","refulfill":true}`},
		{"application/json", `{"refulfill":1.0}`},
		{"application/json", `{"refulfill":"yes"}`},
		{"application/json", `{"customer_email":null,"refulfill":null}`},
		{"application/json", `{"customer_email":["a@b.com"]}`},
		{"application/json", `[1,2]`},
		{"application/json", `{"a":1}{"b":2}`},
		{"application/json; charset=utf-8", "{\"customer_email\":\"\xff@b.com\"}"},
		{"", `{"refulfill":0}`},
		{"text/plain", "refulfill=0"},
		{"multipart/form-data; boundary=x", "--x\r\nContent-Disposition: form-data; name=\"refulfill\"\r\n\r\n1\r\n--x--"},
		{"application/json", `{"customer_email":"` + strings.Repeat("a", 70000) + `"}`},
	} {
		for _, dash := range []bool{false, true} {
			f.Add(dash, c.ct, c.body, "")
			f.Add(dash, c.ct, c.body, "key-1")
		}
	}
	f.Add(false, "application/json", `{}`, "é")
	f.Add(false, "application/json", `{}`, strings.Repeat("k", 256))
	e := newAPI(f, 0)
	rfd := refundedPurchase(f, e)
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(e.user+":"+e.rw))
	cookie := sessionHeader(f, e)
	f.Fuzz(func(t *testing.T, dashboard bool, contentType, body, idem string) {
		path := fmt.Sprintf("/api/v2/purchases/%d/reactivate", rfd)
		if dashboard {
			path = fmt.Sprintf("/purchases/%d/reactivate", rfd)
		}
		req := fuzzRequest("POST", path, "", body)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if idem != "" {
			req.Header["Idempotency-Key"] = []string{idem}
		}
		what := fmt.Sprintf("POST %s %q %.200q", path, contentType, body)
		if !dashboard {
			req.Header.Set("Authorization", auth)
			checkAPIAnswer(t, what, e.serve(req))
			return
		}
		req.Header.Set("Cookie", cookie)
		req.Header.Set("Origin", "http://shop.test")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		checkPageAnswer(t, what, e.serve(req))
	})
}

// sessionHeader signs an owner of account 1 in and returns the Cookie header of the
// session.
func sessionHeader(tb testing.TB, e *apiEnv) string {
	tb.Helper()
	u := e.signIn(e.id(1), "owner")
	base, _ := url.Parse(e.url)
	var parts []string
	for _, c := range u.client.Jar.Cookies(base) {
		parts = append(parts, c.Name+"="+c.Value)
	}
	if len(parts) == 0 {
		tb.Fatal("no session cookie")
	}
	return strings.Join(parts, "; ")
}

// dashboardFuzzPages are the dashboard pages of e whose query strings the fuzzer sends.
func dashboardFuzzPages(e *apiEnv) []string {
	return []string{"/purchases", e.path("/storefronts/%d/subscribers", 1), "/subscribers", e.path("/purchases/%d", 1), e.path("/storefronts/%d/subscribers/%d", 1, 1)}
}

// FuzzDashboardQuery sends arbitrary query strings to the dashboard's list pages, as
// a page and as an htmx fragment.
func FuzzDashboardQuery(f *testing.F) {
	e := newAPI(f, 0)
	pages := dashboardFuzzPages(e)
	for _, q := range []string{
		"", "status=ACT&status=PND&customer_email=ab", "total_op=gt", "total=abc&total_op=zz", "date_min=last+monday", "date_max=%FF",
		"before=AQ&cursor=AQ", "cursor=" + strings.Repeat("A", 400), "email=%27+OR+1%3D1--&status=active,canceled", "status=nope",
		"storefront_id=99999999999999999999", "product_id=-1", "order=sideways", "ship=maybe", "page=0", "per_page=1000",
		"customer_first_name=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "x=1",
	} {
		for i := range pages {
			f.Add(uint8(i), false, q)
			f.Add(uint8(i), true, q)
		}
	}
	cookie := sessionHeader(f, e)
	f.Fuzz(func(t *testing.T, page uint8, htmx bool, query string) {
		path := pages[int(page)%len(pages)]
		req := fuzzRequest("GET", path, query, "")
		req.Header.Set("Cookie", cookie)
		if htmx {
			req.Header.Set("HX-Request", "true")
		}
		checkPageAnswer(t, path+"?"+query, e.serve(req))
	})
}

// fuzzPeer numbers the sign-in fuzzer's client addresses, so that the throttle of
// one address does not answer every later input.
var fuzzPeer atomic.Uint32

// FuzzSignIn sends arbitrary sign-in forms: the answer is a redirect on this site,
// the form again (400, 401) or the throttle (429); never a 5xx.
func FuzzSignIn(f *testing.F) {
	for _, c := range [][3]string{
		{"a@b.c", "pw", "/purchases"}, {"", "", ""}, {"' OR 1=1 --", "' OR '1'='1", "//evil.test"},
		{"a@b.c\r\nX: y", "x", "/\\evil.test"}, {"\xff", "\x00", "javascript:alert(1)"}, {strings.Repeat("a", 5000), strings.Repeat("p", 100), "/purchases?x=<script>"},
		{"owner@shop.test", dashPassword, "/login?next=/login"}, {"a@b.c", "x", "/%0d%0aSet-Cookie:x=y"},
	} {
		f.Add(c[0], c[1], c[2])
	}
	e := newAPI(f, 0)
	f.Fuzz(func(t *testing.T, email, password, next string) {
		form := url.Values{"email": {email}, "password": {password}, "next": {next}}
		req := fuzzRequest("POST", "/login", "", form.Encode())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "http://shop.test")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		n := fuzzPeer.Add(1)
		req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1234", n>>16&255, n>>8&255, n&255)
		rec := e.serve(req)
		what := fmt.Sprintf("sign-in %q %q next %q", email, password, next)
		checkPageAnswer(t, what, rec)
		switch rec.Code {
		case http.StatusSeeOther:
			loc := rec.Header().Get("Location")
			if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") || strings.ContainsAny(loc, "\r\n") {
				t.Fatalf("%s: redirected off the site to %q", what, loc)
			}
		case http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests:
		default:
			t.Fatalf("%s: got %d", what, rec.Code)
		}
	})
}
