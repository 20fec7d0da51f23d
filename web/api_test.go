package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/crypto/bcrypt"

	"storefront/internal/dbtest"
	"storefront/internal/mail"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
	"storefront/internal/smtptest"
	"storefront/internal/worker"
	"storefront/web"
)

func TestMain(m *testing.M) {
	// Passwords are hashed at bcrypt's cheapest in tests.
	mysql.BcryptCost = bcrypt.MinCost
	// Servers and workers built without a logger write to slog's default: kept too.
	slog.SetDefault(serverLog)
	dbtest.Main(m, checkServerLog)
}

// now is the fixed "current time" of the API tests: Sunday 22 November 2026, 12:00 in
// New York, the demo account's zone.
var now = time.Date(2026, 11, 22, 17, 0, 0, 0, time.UTC)

// apiEnv is a running API on a seeded database with a real SMTP server behind the
// mail sender.
type apiEnv struct {
	t       testing.TB
	db      *mysql.DB
	url     string
	handler http.Handler
	smtp    *smtptest.Server
	// base is the id base of the environment's data (dbtest.IDBase): its accounts,
	// storefronts, products, customers, subscribers and purchases take the ids of a
	// fresh database's demo layout plus base; id and path name them.
	base int64
	// user and user2 are the API user names of accounts 1 and 2 (the demo layout's
	// "demo" and "nordic", with the base).
	user, user2 string
	// rw and ro are read_write and read keys of account 1; other is a key of account 2.
	rw, ro, other string
	clock         *testClock
	server        *web.Server
	// keys counts the server's calls to authenticate a key and record its use.
	keys *countingKeys
	// metrics is the registry of the server's metrics.
	metrics *prometheus.Registry
	// notReady, when it holds an error, is what the server's readiness check answers.
	notReady *atomic.Value
}

// countingKeys is the database's APIKeyService, counting its round trips.
type countingKeys struct {
	*mysql.APIKeyService
	auths, touches atomic.Int64
}

func (k *countingKeys) AuthenticateAPIKey(ctx context.Context, secret string) (*shop.APIKey, error) {
	k.auths.Add(1)
	return k.APIKeyService.AuthenticateAPIKey(ctx, secret)
}

func (k *countingKeys) TouchAPIKey(ctx context.Context, accountID, id int64) error {
	k.touches.Add(1)
	return k.APIKeyService.TouchAPIKey(ctx, accountID, id)
}

// testClock is the settable "now" of the server under test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *testClock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// id returns the id that n would be in a fresh database's demo layout: account
// id(1), storefront id(3), the purchase id(42).
func (e *apiEnv) id(n int64) int64 { return e.base + n }

// path formats format with the ids of ns (id): path("/storefronts/%d/subscribers/%d", 1, 7).
func (e *apiEnv) path(format string, ns ...int64) string {
	args := make([]any, len(ns))
	for i, n := range ns {
		args[i] = e.id(n)
	}
	return fmt.Sprintf(format, args...)
}

// with returns the environment reporting to the (sub)test t.
func (e *apiEnv) with(t *testing.T) *apiEnv { c := *e; c.t = t; return &c }

// serverLog is the log of the servers and workers the tests run: every line is kept
// (logs_test.go), and TestMain fails the package when any holds a secret.
var serverLog = slog.New(slog.NewJSONHandler(&serverLines, nil))

// newAPI seeds a fresh database and serves the API over it; options change the server
// before its handler is built.
func newAPI(t testing.TB, rateLimit int, options ...func(*web.Server)) *apiEnv {
	t.Helper()
	return newAPIOn(t, dbtest.New(t), nil, rateLimit, options...)
}

// newAPIOn is newAPI over db, a fresh database; with tracer, the workers' steps are
// spans of it.
func newAPIOn(t testing.TB, db *mysql.DB, tracer trace.Tracer, rateLimit int, options ...func(*web.Server)) *apiEnv {
	t.Helper()
	ctx := context.Background()
	e := &apiEnv{t: t, db: db, base: dbtest.IDBase(t), clock: &testClock{t: now}, notReady: &atomic.Value{}, metrics: prometheus.NewPedanticRegistry()}
	db.Now = e.clock.now
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 400, Subscribers: 80, Seed: 5, Now: now.Add(-time.Hour), IDBase: e.base}, nil); err != nil {
		t.Fatal(err)
	}
	for n, user := range map[int64]*string{1: &e.user, 2: &e.user2} {
		if err := db.QueryRow("SELECT api_username FROM accounts WHERE id = ?", e.id(n)).Scan(user); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	if e.rw, err = mysql.NewAdminService(db).CreateAPIKey(ctx, e.id(1), "tests", shop.ScopeReadWrite); err != nil {
		t.Fatal(err)
	}
	if e.ro, err = mysql.NewAdminService(db).CreateAPIKey(ctx, e.id(1), "", shop.ScopeRead); err != nil {
		t.Fatal(err)
	}
	if e.other, err = mysql.NewAdminService(db).CreateAPIKey(ctx, e.id(2), "", shop.ScopeReadWrite); err != nil {
		t.Fatal(err)
	}
	e.smtp = smtptest.Start(t)
	transport, err := mail.NewTransport(e.smtp.URL(), "shop@example.com", serverLog)
	if err != nil {
		t.Fatal(err)
	}
	sender := mail.NewSender(mysql.NewOutbox(db), &mail.Composer{Purchases: mysql.NewPurchaseService(db), Storefronts: mysql.NewAccountService(db), BaseURL: "http://shop.test"}, transport, mail.SenderOptions{Now: e.clock.now})
	// The program's workers: woken by the commits that queue their work, and polling.
	workers := worker.NewGroup(
		worker.New(mysql.WorkEmails, sender.Step, worker.Options{Poll: 20 * time.Millisecond, Log: serverLog, Tracer: tracer}),
		worker.New(mysql.WorkJobs, mysql.NewJobService(db).RunJobStep, worker.Options{Poll: 20 * time.Millisecond, Log: serverLog, Tracer: tracer}),
	)
	db.Wake = workers.Wake
	workers.Start()
	t.Cleanup(func() { _ = workers.Stop(time.Minute) })
	e.keys = &countingKeys{APIKeyService: mysql.NewAPIKeyService(db)}
	s := &web.Server{Purchases: mysql.NewPurchaseService(db), Writer: mysql.NewPurchaseService(db), Subscribers: mysql.NewSubscriberService(db), Keys: e.keys, Accounts: mysql.NewAccountService(db), Users: mysql.NewUserService(db), Admin: mysql.NewAdminService(db), Webhooks: mysql.NewWebhookService(db), Overview: mysql.NewOverviewService(db), Views: mysql.NewSavedViewService(db), Jobs: mysql.NewJobService(db),
		Customers: mysql.NewCustomerService(db), Activity: mysql.NewAccountActivityService(db), Audit: mysql.NewAuditService(db), ExportBatch: exportBatch,
		Logger: serverLog, BaseURL: "http://shop.test", RateLimit: rateLimit, Now: e.clock.now,
		SignInStore: mysql.NewSignInStore(db), Metrics: web.NewMetrics(e.metrics), Ready: func(ctx context.Context) error {
			if err, _ := e.notReady.Load().(error); err != nil {
				return err
			}
			return db.Ready(ctx)
		}}
	// Passkeys are bound to the origin the browser sees: the test server's, named
	// localhost (a relying party id is never an address).
	hs := httptest.NewUnstartedServer(nil)
	e.url = "http://" + hs.Listener.Addr().String()
	s.PasskeyOrigin = passkeyOrigin(e.url)
	for _, o := range options {
		o(s)
	}
	e.server = s
	e.handler = s.Handler()
	hs.Config.Handler = e.handler
	hs.Start()
	t.Cleanup(s.Wait)
	t.Cleanup(hs.Close)
	return e
}

// response is an answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("body %s: %v", r.body, err)
	}
}

// errorBody is the shape of an API error (docs/API.md#errors).
type errorBody struct {
	Status string `json:"status"`
	Error  struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Param   string `json:"param"`
	} `json:"error"`
}

func (e *apiEnv) do(method, path, key string, body io.Reader, header map[string]string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.url+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.SetBasicAuth(e.user, key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 500 && res.StatusCode != 503 {
		e.t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
	}
	return response{res.StatusCode, res.Header, b}
}

func (e *apiEnv) get(path, key string) response { return e.do("GET", path, key, nil, nil) }

// wantCounted checks the count headers of a list answer: both carry count, or neither
// is sent when count is -1.
func wantCounted(t *testing.T, query string, r response, count int) {
	t.Helper()
	want := ""
	if count >= 0 {
		want = fmt.Sprint(count)
	}
	if r.status != 200 || r.header.Get("Dpd-Collection-Count") != want || r.header.Get("X-Total-Count") != want {
		t.Errorf("%s: got %d, Dpd-Collection-Count %q, X-Total-Count %q; want both %q", query, r.status,
			r.header.Get("Dpd-Collection-Count"), r.header.Get("X-Total-Count"), want)
	}
}

// wantError checks an API error answer.
func wantError(t testing.TB, r response, status int, word, code, param string) errorBody {
	t.Helper()
	if r.status != status {
		t.Fatalf("got status %d (%s), want %d", r.status, r.body, status)
	}
	var eb errorBody
	r.json(t, &eb)
	if eb.Status != word || eb.Error.Code != code || eb.Error.Param != param || eb.Error.Message == "" {
		t.Fatalf("got %s, want status %s code %s param %q", r.body, word, code, param)
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Fatal("no X-Request-Id")
	}
	return eb
}

// rawResponseHead sends a GET over a bare connection and returns the status line and
// header lines as they came over the wire, in the spelling the server wrote.
func rawResponseHead(t testing.TB, e *apiEnv, path, key string) string {
	t.Helper()
	u, _ := url.Parse(e.url)
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	auth := base64.StdEncoding.EncodeToString([]byte(e.user + ":" + key))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Basic %s\r\nConnection: close\r\n\r\n", path, u.Host, auth)
	b, err := io.ReadAll(conn)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(b), "\r\n\r\n")
	return head + "\r\n"
}

// purchase is the parts of a purchase JSON the tests look at; raw keeps the rest.
type purchase struct {
	ID               int64   `json:"id"`
	BuyerEmail       *string `json:"buyer_email"`
	CreatedAt        int64   `json:"created_at"`
	BuyerFirstname   *string `json:"buyer_firstname"`
	StorefrontID     int64   `json:"storefront_id"`
	BuyerLastname    *string `json:"buyer_lastname"`
	Status           string  `json:"status"`
	TangiblesToShip  *int64  `json:"tangibles_to_ship"`
	Total            string  `json:"total"`
	RequiresShipping bool    `json:"requires_shipping"`
	Customer         *struct {
		ID    int64   `json:"id"`
		Email *string `json:"email"`
	} `json:"customer"`
	LineItems []struct {
		ID            int64    `json:"id"`
		ProductID     int64    `json:"product_id"`
		ExpiresAt     *int64   `json:"expires_at"`
		ProductName   string   `json:"product_name"`
		Quantity      int64    `json:"quantity"`
		ProductKeys   []string `json:"product_keys"`
		DownloadLimit int64    `json:"download_limit"`
		DownloadCount int64    `json:"download_count"`
		HasAllKeys    bool     `json:"has_all_keys"`
	} `json:"line_items"`
}

var linkRe = regexp.MustCompile(`^<([^>]+)>; rel="next"$`)

// walk follows Link headers from path to the end and returns every purchase seen.
func (e *apiEnv) walk(path, key string) []purchase { return walkPages[purchase](e, path, key) }

// walkPages follows Link headers from path to the end and returns every item seen,
// checking that each Link uses the base URL and follows a page that is not empty.
func walkPages[T any](e *apiEnv, path, key string) []T {
	e.t.Helper()
	var all []T
	for pages := 0; path != ""; pages++ {
		if pages > 1000 {
			e.t.Fatal("Link traversal does not end")
		}
		r := e.get(path, key)
		if r.status != 200 {
			e.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		var page []T
		r.json(e.t, &page)
		all = append(all, page...)
		path = ""
		if l := r.header.Get("Link"); l != "" {
			m := linkRe.FindStringSubmatch(l)
			if m == nil {
				e.t.Fatalf("malformed Link %q", l)
			}
			u, err := url.Parse(m[1])
			if err != nil || u.Host != "shop.test" {
				e.t.Fatalf("Link %q does not use the base URL", l)
			}
			path = u.RequestURI()
			if len(page) == 0 {
				e.t.Fatalf("empty page with a Link")
			}
		}
	}
	return all
}

func pids(ps []purchase) []int64 {
	out := []int64{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func TestAPI(t *testing.T) {
	e := newAPI(t, 0)
	ctx := context.Background()
	nyc, _ := time.LoadLocation("America/New_York")

	// Literal % and _ in names, for the LIKE escaping, and purchases on the edge of a
	// day in New York, for the half-open range: six purchases of account 1.
	var ids []int64
	rows, err := e.db.Query("SELECT id FROM purchases WHERE account_id = ? ORDER BY id LIMIT 6", e.id(1))
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	if len(ids) != 6 {
		t.Fatalf("account 1 has %d purchases", len(ids))
	}
	pctID, underID, plainID, zoeID, edgeID, beforeEdgeID := ids[0], ids[1], ids[2], ids[3], ids[4], ids[5]
	dbtest.MustExec(t, e.db.DB,
		fmt.Sprintf(`UPDATE purchases SET buyer_email = 'a%%b@example.com', buyer_firstname = 'Ann%%', buyer_lastname = 'Lee_' WHERE id = %d`, pctID),
		fmt.Sprintf(`UPDATE purchases SET buyer_email = 'a_b@example.com', buyer_firstname = 'Ann_', buyer_lastname = 'Lee%%' WHERE id = %d`, underID),
		fmt.Sprintf(`UPDATE purchases SET buyer_email = 'axb@example.com', buyer_firstname = 'Annx', buyer_lastname = 'Leex' WHERE id = %d`, plainID),
		fmt.Sprintf(`UPDATE purchases SET buyer_email = 'Zoë.Müller@example.com', buyer_firstname = 'Zoë', buyer_lastname = 'Müller' WHERE id = %d`, zoeID),
		fmt.Sprintf(`UPDATE purchases SET created_at = '2026-03-01 05:00:00' WHERE id = %d`, edgeID),
		fmt.Sprintf(`UPDATE purchases SET created_at = '2026-03-01 04:59:59' WHERE id = %d`, beforeEdgeID),
	)
	e.rebuild()

	all := e.walk("/api/v2/purchases?per_page=500", e.rw)
	if len(all) < 200 {
		t.Fatalf("account 1 has %d purchases; the seed changed", len(all))
	}
	byID := map[int64]purchase{}
	for _, p := range all {
		byID[p.ID] = p
		if p.StorefrontID == e.id(3) {
			t.Fatalf("purchase %d of account 2 listed for account 1", p.ID)
		}
	}

	t.Run("Ping", func(t *testing.T) {
		e := e.with(t)
		r := e.get("/api/v2/", e.rw)
		if r.status != 200 || strings.TrimSpace(string(r.body)) != `{"status":"SUCCESS"}` {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		req, _ := http.NewRequest("GET", e.url+"/api/v2/", nil)
		req.Header.Set("Authorization", "Bearer "+e.ro)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("Bearer: got %v %v", res.StatusCode, err)
		}
		res.Body.Close()
		// Last use is recorded, in the background.
		e.server.Wait()
		if used := e.count("SELECT COUNT(*) FROM api_keys WHERE account_id = ? AND last_used_at = ?", e.id(1), now); used != 2 {
			t.Fatalf("keys with last_used_at now: got %d, want 2", used)
		}
	})

	t.Run("Unauthenticated", func(t *testing.T) {
		e := e.with(t)
		for _, tc := range []struct{ name, path, auth string }{
			{"NoCredentials", "/api/v2/purchases", ""},
			{"UnknownPath", "/api/v2/nothing/here", ""},
			{"WrongKey", "/api/v2/purchases", "Basic " + base64.StdEncoding.EncodeToString([]byte(e.user+":sfk_wrong"))},
			{"WrongUser", "/api/v2/purchases", "Basic " + base64.StdEncoding.EncodeToString([]byte(e.user2+":"+e.rw))},
			{"BearerWrong", "/api/v2/", "Bearer sfk_nope"},
			{"OtherScheme", "/api/v2/", "Digest abc"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				e := e.with(t)
				r := e.do("GET", tc.path, "", nil, map[string]string{"Authorization": tc.auth})
				wantError(t, r, 401, "UNAUTHORIZED", "unauthenticated", "")
				if r.header.Get("WWW-Authenticate") != `Basic realm="storefront"` {
					t.Fatalf("WWW-Authenticate: got %q", r.header.Get("WWW-Authenticate"))
				}
			})
		}
	})

	t.Run("RequestID", func(t *testing.T) {
		e := e.with(t)
		r := e.do("GET", "/api/v2/", e.rw, nil, map[string]string{"X-Request-Id": "abc-123"})
		if r.header.Get("X-Request-Id") != "abc-123" {
			t.Fatalf("got %q, want the sane incoming id echoed", r.header.Get("X-Request-Id"))
		}
		r = e.do("GET", "/api/v2/", e.rw, nil, map[string]string{"X-Request-Id": "bad id <script>"})
		if id := r.header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
			t.Fatalf("got %q, want a new id", id)
		}
	})

	t.Run("NotFoundRoute", func(t *testing.T) {
		e := e.with(t)
		wantError(t, e.get("/api/v2/orders", e.rw), 404, "NOTFOUND", "not_found", "")
	})

	t.Run("MethodNotAllowed", func(t *testing.T) {
		e := e.with(t)
		r := e.do("DELETE", e.path("/api/v2/purchases/%d", 1), e.rw, nil, nil)
		wantError(t, r, 405, "INVALID", "method_not_allowed", "")
		if r.header.Get("Allow") != "GET" {
			t.Fatalf("Allow: got %q", r.header.Get("Allow"))
		}
	})

	t.Run("TooLarge", func(t *testing.T) {
		e := e.with(t)
		long := "/api/v2/purchases?customer_email=" + strings.Repeat("a", 9000)
		wantError(t, e.get(long, ""), 414, "INVALID", "too_large", "")
		r := e.do("POST", e.path("/api/v2/purchases/%d/reactivate", 1), "", strings.NewReader(strings.Repeat("a", 70000)), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		wantError(t, r, 413, "INVALID", "too_large", "")
		// Chunked, without Content-Length, on an unknown purchase: still 413 first.
		r = e.do("POST", "/api/v2/purchases/99999999/reactivate", e.rw, io.MultiReader(strings.NewReader(strings.Repeat("a", 70000))), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
		wantError(t, r, 413, "INVALID", "too_large", "")
	})

	t.Run("GetPurchase", func(t *testing.T) {
		e := e.with(t)
		id := all[0].ID
		r := e.get(fmt.Sprintf("/api/v2/purchases/%d", id), e.ro)
		var one json.RawMessage
		r.json(t, &one)
		// A list element equals the single object (docs/API.md#lists-and-paging).
		list := e.get("/api/v2/purchases?per_page=1", e.ro)
		var elems []json.RawMessage
		list.json(t, &elems)
		if r.status != 200 || len(elems) != 1 || string(elems[0]) != string(one) {
			t.Fatalf("single %s\nlist %s", one, elems)
		}
		wantError(t, e.get("/api/v2/purchases/0", e.ro), 400, "INVALID", "invalid_parameter", "id")
		wantError(t, e.get("/api/v2/purchases/abc", e.ro), 400, "INVALID", "invalid_parameter", "id")
		wantError(t, e.get("/api/v2/purchases/99999999", e.ro), 404, "NOTFOUND", "not_found", "")
		wantError(t, e.get(fmt.Sprintf("/api/v2/purchases/%d?x=1", id), e.ro), 400, "INVALID", "unknown_parameter", "x")
	})

	t.Run("Filters", func(t *testing.T) {
		e := e.with(t)
		date := func(y int, m time.Month, d int) int64 { return time.Date(y, m, d, 0, 0, 0, 0, nyc).Unix() }
		cmp := func(total, v string) int {
			a, _ := new(big.Rat).SetString(total)
			b, _ := new(big.Rat).SetString(v)
			return a.Cmp(b)
		}
		prefix := func(s *string, p string) bool {
			return s != nil && strings.HasPrefix(strings.ToLower(*s), strings.ToLower(p))
		}
		products := map[int64][]int64{}
		for _, p := range all {
			for _, li := range p.LineItems {
				products[p.ID] = append(products[p.ID], li.ProductID)
			}
		}
		someProduct := all[len(all)/2].LineItems[0].ProductID
		someCustomer := int64(0)
		for _, p := range all {
			if p.Customer != nil {
				someCustomer = p.Customer.ID
			}
		}
		var subscriberID int64
		if err := e.db.QueryRow("SELECT subscriber_id FROM purchases WHERE account_id = ? AND subscriber_id IS NOT NULL LIMIT 1", e.id(1)).Scan(&subscriberID); err != nil {
			t.Fatalf("the seed has no purchase with a subscriber: %v", err)
		}
		var subscriberOf = map[int64]bool{}
		for _, id := range e.ids("SELECT id FROM purchases WHERE subscriber_id = ?", subscriberID) {
			subscriberOf[id] = true
		}
		total := all[3].Total
		// Totals near either end, whose comparisons read the total bands (few bands
		// beyond their own) rather than walking the list.
		totals := make([]string, len(all))
		for i, p := range all {
			totals[i] = p.Total
		}
		slices.SortFunc(totals, cmp)
		high, low := totals[len(totals)*95/100], totals[len(totals)*5/100]
		cases := []struct {
			query string
			keep  func(p purchase) bool
		}{
			{"status=rfd", func(p purchase) bool { return p.Status == "RFD" }},
			{"status=ACT,hld", func(p purchase) bool { return p.Status == "ACT" || p.Status == "HLD" }},
			{"status=PND&status=ERR", func(p purchase) bool { return p.Status == "PND" || p.Status == "ERR" }},
			{fmt.Sprintf("product_id=%d", someProduct), func(p purchase) bool { return slices.Contains(products[p.ID], someProduct) }},
			{fmt.Sprintf("storefront_id=%d", e.id(2)), func(p purchase) bool { return p.StorefrontID == e.id(2) }},
			{fmt.Sprintf("storefront_id=%d", e.id(3)), func(p purchase) bool { return false }},
			{fmt.Sprintf("customer_id=%d", someCustomer), func(p purchase) bool { return p.Customer != nil && p.Customer.ID == someCustomer }},
			{fmt.Sprintf("subscriber_id=%d", subscriberID), func(p purchase) bool { return subscriberOf[p.ID] }},
			{"customer_email=A", func(p purchase) bool { return prefix(p.BuyerEmail, "a") }},
			{"customer_email=a%25", func(p purchase) bool { return p.ID == pctID }},
			{"customer_email=a_", func(p purchase) bool { return p.ID == underID }},
			{"customer_email=zoe.muller", func(p purchase) bool { return p.ID == zoeID }},
			{"customer_first_name=ann%25", func(p purchase) bool { return p.ID == pctID }},
			{"customer_first_name=zoe", func(p purchase) bool {
				return p.ID == zoeID || prefix(p.BuyerFirstname, "zoe") || prefix(p.BuyerFirstname, "zoë")
			}},
			{"customer_last_name=lee_", func(p purchase) bool { return p.ID == pctID }},
			{"customer_last_name=muller", func(p purchase) bool {
				return p.ID == zoeID || prefix(p.BuyerLastname, "muller") || prefix(p.BuyerLastname, "müller")
			}},
			{"date_min=2026-03-01", func(p purchase) bool { return p.CreatedAt >= date(2026, 3, 1) }},
			{"date_max=2026-03-01", func(p purchase) bool { return p.CreatedAt < date(2026, 3, 1) }},
			{"date_min=2026-03-01&date_max=March+2,+2026", func(p purchase) bool { return p.CreatedAt >= date(2026, 3, 1) && p.CreatedAt < date(2026, 3, 2) }},
			{"date_min=2026-03-01T05:00:00Z&date_max=%402000000000", func(p purchase) bool { return p.CreatedAt >= date(2026, 3, 1) }},
			{"date_min=-30+days", func(p purchase) bool { return p.CreatedAt >= now.AddDate(0, 0, -30).Unix() }},
			{"date_min=yesterday&date_max=today", func(p purchase) bool {
				return p.CreatedAt >= date(2026, 11, 21) && p.CreatedAt < date(2026, 11, 22)
			}},
			{"total=" + total, func(p purchase) bool { return cmp(p.Total, total) == 0 }},
			{"total=" + total + "&total_op=NE", func(p purchase) bool { return cmp(p.Total, total) != 0 }},
			{"total=50&total_op=gt", func(p purchase) bool { return cmp(p.Total, "50") > 0 }},
			{"total=50.5&total_op=lt", func(p purchase) bool { return cmp(p.Total, "50.5") < 0 }},
			{"total=" + high + "&total_op=gt", func(p purchase) bool { return cmp(p.Total, high) > 0 }},
			{"total=" + low + "&total_op=lt", func(p purchase) bool { return cmp(p.Total, low) < 0 }},
			{"ship=1", func(p purchase) bool { return p.TangiblesToShip != nil && *p.TangiblesToShip > 0 }},
			{"ship=false", func(p purchase) bool { return p.TangiblesToShip == nil || *p.TangiblesToShip == 0 }},
			{fmt.Sprintf("status=ACT&storefront_id=%d&date_min=2026-01-01&ship=0", e.id(1)), func(p purchase) bool {
				return p.Status == "ACT" && p.StorefrontID == e.id(1) && p.CreatedAt >= date(2026, 1, 1) && (p.TangiblesToShip == nil || *p.TangiblesToShip == 0)
			}},
			{"customer_email=a&total=20&total_op=gt&status=ACT,PND", func(p purchase) bool {
				return prefix(p.BuyerEmail, "a") && cmp(p.Total, "20") > 0 && (p.Status == "ACT" || p.Status == "PND")
			}},
			// Blank values mean no filter (docs/API.md#reading-parameters).
			{"status=&customer_email=&ship=&total_op=", func(p purchase) bool { return true }},
		}
		for _, tc := range cases {
			t.Run(tc.query, func(t *testing.T) {
				e := e.with(t)
				var want []int64
				for _, p := range all {
					if tc.keep(p) {
						want = append(want, p.ID)
					}
				}
				if want == nil {
					want = []int64{}
				}
				got := pids(e.walk("/api/v2/purchases?per_page=500&"+tc.query, e.ro))
				if !slices.Equal(got, want) {
					t.Fatalf("got %d %v\nwant %d %v", len(got), got, len(want), want)
				}
				desc := pids(e.walk("/api/v2/purchases?per_page=500&order=desc&"+tc.query, e.ro))
				slices.Reverse(desc)
				if !slices.Equal(desc, want) {
					t.Fatalf("order=desc: got the reverse of %v, want %v", desc, want)
				}
				if strings.Contains(tc.query, "total_op=gt") || strings.Contains(tc.query, "total_op=lt") {
					// Short pages: after the first, a total comparison alone plans from
					// the account's remembered edge (db/README.md, "Total bands").
					if got := pids(e.walk("/api/v2/purchases?per_page=7&"+tc.query, e.ro)); !slices.Equal(got, want) {
						t.Fatalf("per_page=7: got %d %v\nwant %d %v", len(got), got, len(want), want)
					}
				}
			})
		}
		// The fixture must make the literal-match cases meaningful.
		if byID[edgeID].CreatedAt != date(2026, 3, 1) || byID[beforeEdgeID].CreatedAt != date(2026, 3, 1)-1 {
			t.Fatalf("boundary purchases: got %d and %d", byID[edgeID].CreatedAt, byID[beforeEdgeID].CreatedAt)
		}
	})

	t.Run("FilterErrors", func(t *testing.T) {
		e := e.with(t)
		for _, tc := range []struct{ query, code, param string }{
			{"stauts=ACT", "unknown_parameter", "stauts"},
			{"foo=", "unknown_parameter", "foo"},
			{"status=NEW", "invalid_parameter", "status"},
			{"product_id=01", "invalid_parameter", "product_id"},
			{"storefront_id=x", "invalid_parameter", "storefront_id"},
			{"customer_id=-5", "invalid_parameter", "customer_id"},
			{"subscriber_id=99999999999999999999", "invalid_parameter", "subscriber_id"},
			{"date_min=someday", "invalid_parameter", "date_min"},
			{"date_max=2024-13-01", "invalid_parameter", "date_max"},
			{"total=abc", "invalid_parameter", "total"},
			{"total=1&total_op=gte", "invalid_parameter", "total_op"},
			{"total_op=gt", "invalid_parameter", "total_op"},
			{"ship=2", "invalid_parameter", "ship"},
			{"order=up", "invalid_parameter", "order"},
			{"per_page=0", "invalid_parameter", "per_page"},
			{"per_page=501", "invalid_parameter", "per_page"},
			{"page=0", "invalid_parameter", "page"},
			{"page=1&cursor=x", "invalid_parameter", "cursor"},
			{"cursor=not-ours", "invalid_parameter", "cursor"},
			{"include_count=yes", "invalid_parameter", "include_count"},
			{"customer_email=%ff", "invalid_parameter", "customer_email"},
		} {
			t.Run(tc.query, func(t *testing.T) {
				e := e.with(t)
				wantError(t, e.get("/api/v2/purchases?"+tc.query, e.ro), 400, "INVALID", tc.code, tc.param)
			})
		}
	})

	t.Run("Paging", func(t *testing.T) {
		e := e.with(t)
		want := pids(all)
		for _, per := range []int{1, 37, 500} {
			if per == 1 && testing.Short() {
				continue
			}
			got := pids(e.walk(fmt.Sprintf("/api/v2/purchases?per_page=%d", per), e.ro))
			if !slices.Equal(got, want) {
				t.Fatalf("per_page=%d: got %d purchases, want %d, without gaps or duplicates", per, len(got), len(want))
			}
			desc := pids(e.walk(fmt.Sprintf("/api/v2/purchases?per_page=%d&order=desc", per), e.ro))
			slices.Reverse(desc)
			if !slices.Equal(desc, want) {
				t.Fatalf("per_page=%d&order=desc: not the reverse", per)
			}
		}
		// page=N, as DPD clients send it, still offers a cursor for what follows.
		var got []int64
		for n := 1; ; n++ {
			r := e.get(fmt.Sprintf("/api/v2/purchases?per_page=50&page=%d", n), e.ro)
			var page []purchase
			r.json(t, &page)
			got = append(got, pids(page)...)
			if (r.header.Get("Link") != "") != (len(got) < len(want)) {
				t.Fatalf("page %d: Link %q with %d of %d seen", n, r.header.Get("Link"), len(got), len(want))
			}
			if len(page) == 0 {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("page=N: got %d purchases, want %d", len(got), len(want))
		}
		r := e.get("/api/v2/purchases?per_page=5&include_count=1&status=ACT", e.ro)
		wantCount := 0
		for _, p := range all {
			if p.Status == "ACT" {
				wantCount++
			}
		}
		if r.header.Get("X-Total-Count") != fmt.Sprint(wantCount) {
			t.Fatalf("X-Total-Count: got %q, want %d", r.header.Get("X-Total-Count"), wantCount)
		}
		if e.get("/api/v2/purchases?per_page=5", e.ro).header.Get("X-Total-Count") != "" {
			t.Fatal("X-Total-Count sent without include_count")
		}
		// DPD clients ask for page=1 and read the size of the list from that page's
		// Dpd-Collection-Count; every other request is counted only with include_count.
		cursor := ""
		if m := linkRe.FindStringSubmatch(e.get("/api/v2/purchases?per_page=5", e.ro).header.Get("Link")); m != nil {
			u, _ := url.Parse(m[1])
			cursor = u.Query().Get("cursor")
		}
		for _, tc := range []struct {
			query string
			count int // -1: no count
		}{
			{"page=1", len(all)},
			{"page=1&per_page=5&status=ACT", wantCount},
			{"page=1&include_count=0", len(all)},
			{"page=1&include_count=1", len(all)},
			{"page=2&include_count=1", len(all)},
			{"include_count=true&status=act", wantCount},
			{"per_page=5", -1},
			{"page=2", -1},
			{"page=2&include_count=0", -1},
			{"cursor=" + cursor, -1},
			{fmt.Sprintf("page=1&status=ACT&storefront_id=%d", e.id(3)), 0},
		} {
			r := e.get("/api/v2/purchases?"+tc.query, e.ro)
			wantCounted(t, tc.query, r, tc.count)
		}
		// What the DPD v2 PHP client does: count() reads the header of page 1, and the
		// iteration asks for page 2, 3, ... until one comes back empty.
		r = e.get("/api/v2/purchases?page=1", e.ro)
		counted := r.header.Get("Dpd-Collection-Count")
		seen := 0
		for n := 1; ; n++ {
			var page []purchase
			e.get(fmt.Sprintf("/api/v2/purchases?page=%d", n), e.ro).json(t, &page)
			if len(page) == 0 {
				break
			}
			seen += len(page)
		}
		if counted != fmt.Sprint(seen) || seen != len(all) {
			t.Fatalf("a DPD client counts %q and iterates %d purchases; the account has %d", counted, seen, len(all))
		}
		// The name is sent in the exact spelling the PHP client looks up.
		raw := rawResponseHead(t, e, "/api/v2/purchases?page=1&per_page=1", e.ro)
		if !strings.Contains(raw, "\r\nDpd-Collection-Count: "+fmt.Sprint(len(all))+"\r\n") {
			t.Fatalf("the response head lacks Dpd-Collection-Count: %d as spelt:\n%s", len(all), raw)
		}
		empty := e.get(e.path("/api/v2/purchases?status=ACT&storefront_id=%d", 3), e.ro)
		if empty.status != 200 || strings.TrimSpace(string(empty.body)) != "[]" || empty.header.Get("Link") != "" {
			t.Fatalf("empty result: got %d %s", empty.status, empty.body)
		}
	})

	t.Run("Tenancy", func(t *testing.T) {
		e := e.with(t)
		otherPurchase := e.count("SELECT MIN(id) FROM purchases WHERE account_id = ?", e.id(2))
		otherSub := e.count("SELECT MIN(id) FROM subscribers WHERE storefront_id = ?", e.id(3))
		for _, path := range []string{
			fmt.Sprintf("/api/v2/purchases/%d", otherPurchase),
			e.path("/api/v2/storefronts/%d/subscribers", 3),
			fmt.Sprintf("/api/v2/storefronts/%d/subscribers/%d", e.id(3), otherSub),
			fmt.Sprintf("/api/v2/storefronts/%d/subscribers/%d", e.id(1), otherSub),
			fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", e.id(3), otherSub),
		} {
			wantError(t, e.get(path, e.rw), 404, "NOTFOUND", "not_found", "")
		}
		wantError(t, e.do("POST", fmt.Sprintf("/api/v2/purchases/%d/reactivate", otherPurchase), e.rw, nil, nil), 404, "NOTFOUND", "not_found", "")
		// The other account's key sees its own.
		if r := e.do("GET", fmt.Sprintf("/api/v2/purchases/%d", otherPurchase), "", nil, map[string]string{"Authorization": "Bearer " + e.other}); r.status != 200 {
			t.Fatalf("own purchase: got %d", r.status)
		}
	})

	t.Run("Subscribers", func(t *testing.T) {
		e := e.with(t)
		r := e.get(e.path("/api/v2/storefronts/%d/subscribers?per_page=500", 1), e.ro)
		var subs []shop.Subscriber
		r.json(t, &subs)
		if r.status != 200 || len(subs) == 0 {
			t.Fatalf("got %d %s", r.status, r.body)
		}
		s := subs[len(subs)/2]
		upper := strings.ToUpper(s.Username)
		r = e.get(e.path("/api/v2/storefronts/%d/subscribers?username=", 1)+url.QueryEscape(upper), e.ro)
		var found []shop.Subscriber
		r.json(t, &found)
		if len(found) != 1 || found[0].ID != s.ID || found[0].Username != s.Username {
			t.Fatalf("username %s: got %s", upper, r.body)
		}
		one := e.get(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/%d", e.id(1), s.ID), e.ro)
		var got shop.Subscriber
		one.json(t, &got)
		if got.ID != s.ID {
			t.Fatalf("got %s", one.body)
		}
		wantError(t, e.get("/api/v2/storefronts/999/subscribers", e.ro), 404, "NOTFOUND", "not_found", "")
		wantError(t, e.get("/api/v2/storefronts/x/subscribers", e.ro), 400, "INVALID", "invalid_parameter", "storefront_id")
		wantError(t, e.get(e.path("/api/v2/storefronts/%d/subscribers?email=a", 1), e.ro), 400, "INVALID", "unknown_parameter", "email")
		// Cursor paging over subscribers.
		var walked []int64
		path := e.path("/api/v2/storefronts/%d/subscribers?per_page=7", 1)
		for path != "" {
			r := e.get(path, e.ro)
			var page []shop.Subscriber
			r.json(t, &page)
			for _, p := range page {
				walked = append(walked, p.ID)
			}
			path = ""
			if m := linkRe.FindStringSubmatch(r.header.Get("Link")); m != nil {
				u, _ := url.Parse(m[1])
				path = u.RequestURI()
			}
		}
		var want []int64
		for _, s := range subs {
			want = append(want, s.ID)
		}
		if !slices.Equal(walked, want) {
			t.Fatalf("cursor walk: got %v, want %v", walked, want)
		}
		// Counted on page=1 (DPD clients) and with include_count, never otherwise.
		for _, tc := range []struct {
			query string
			count int
		}{
			{"page=1", len(subs)},
			{"page=1&per_page=2", len(subs)},
			{"page=3&per_page=2&include_count=1", len(subs)},
			{"include_count=1", len(subs)},
			{"page=1&username=" + url.QueryEscape(upper), 1},
			{"", -1},
			{"page=2&per_page=2", -1},
			{"per_page=7", -1},
		} {
			r := e.get(e.path("/api/v2/storefronts/%d/subscribers?", 1)+tc.query, e.ro)
			wantCounted(t, tc.query, r, tc.count)
		}
	})

	t.Run("Verify", func(t *testing.T) {
		e := e.with(t)
		var subID int64
		var username string
		if err := e.db.QueryRow("SELECT sb.id, sb.username FROM subscribers sb JOIN subscriptions ss ON ss.subscriber_id = sb.id WHERE sb.storefront_id = ? ORDER BY sb.id LIMIT 1", e.id(1)).Scan(&subID, &username); err != nil {
			t.Fatal(err)
		}
		future, past := now.Add(72*time.Hour).UTC(), now.Add(-72*time.Hour).UTC()
		type verify struct {
			Status           *string `json:"status"`
			ID               int64   `json:"id"`
			Username         string  `json:"username"`
			ReceivingService bool    `json:"receiving_service"`
			AccessUntil      *int64  `json:"access_until"`
			Reason           string  `json:"reason"`
		}
		for _, tc := range []struct {
			status      string
			ended, next any
			receiving   bool
			accessUntil *time.Time
			reason      string
		}{
			{"ACTIVE", nil, future, true, nil, "active"},
			{"TRIAL", nil, future, true, nil, "trial"},
			{"PAST_DUE", nil, past, true, nil, "past_due"},
			{"NEW", nil, nil, false, nil, "new"},
			{"CLOSED", past, nil, false, nil, "closed"},
			{"CANCELED", future, nil, true, &future, "canceled_until_term_end"},
			{"CANCELED", nil, future, true, &future, "canceled_until_term_end"},
			{"CANCELED", past, future, false, &past, "canceled_term_ended"},
			{"CANCELED", nil, past, false, &past, "canceled_term_ended"},
			{"CANCELED", nil, nil, false, nil, "canceled_term_ended"},
		} {
			t.Run(fmt.Sprintf("%s/%s", tc.status, tc.reason), func(t *testing.T) {
				e := e.with(t)
				dbtest.MustExec(t, e.db.DB, fmt.Sprintf("UPDATE subscriptions SET status = '%s', ended_at = %s, next_payment_at = %s WHERE subscriber_id = %d",
					tc.status, sqlTime(tc.ended), sqlTime(tc.next), subID))
				for _, q := range []string{fmt.Sprintf("id=%d", subID), fmt.Sprintf("subscriber_id=%d", subID), "username=" + url.QueryEscape(strings.ToUpper(username)),
					fmt.Sprintf("id=%d&username=%s", subID, url.QueryEscape(username))} {
					r := e.get(e.path("/api/v2/storefronts/%d/subscribers/verify?", 1)+q, e.ro)
					var v verify
					r.json(t, &v)
					if r.status != 200 || v.Status == nil || *v.Status != tc.status || v.ID != subID || v.Username != username ||
						v.ReceivingService != tc.receiving || v.Reason != tc.reason {
						t.Fatalf("%s: got %d %s", q, r.status, r.body)
					}
					if (tc.accessUntil == nil) != (v.AccessUntil == nil) || (v.AccessUntil != nil && *v.AccessUntil != tc.accessUntil.Unix()) {
						t.Fatalf("%s: access_until got %s, want %v", q, r.body, tc.accessUntil)
					}
				}
			})
		}
		t.Run("NoSubscription", func(t *testing.T) {
			e := e.with(t)
			dbtest.MustExec(t, e.db.DB, fmt.Sprintf("DELETE FROM subscriptions WHERE subscriber_id = %d", subID))
			r := e.get(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", e.id(1), subID), e.ro)
			if strings.TrimSpace(string(r.body)) != fmt.Sprintf(`{"status":null,"id":%d,"username":%q,"receiving_service":false,"access_until":null,"reason":"no_subscription"}`, subID, username) {
				t.Fatalf("got %s", r.body)
			}
		})
		t.Run("Errors", func(t *testing.T) {
			e := e.with(t)
			wantError(t, e.get(e.path("/api/v2/storefronts/%d/subscribers/verify", 1), e.ro), 400, "INVALID", "missing_parameter", "username")
			wantError(t, e.get(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d&subscriber_id=%d", e.id(1), subID, subID+1), e.ro), 400, "INVALID", "invalid_parameter", "subscriber_id")
			wantError(t, e.get(e.path("/api/v2/storefronts/%d/subscribers/verify?username=nobody@nowhere.test", 1), e.ro), 404, "NOTFOUND", "not_found", "")
			wantError(t, e.get(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d&username=nobody@nowhere.test", e.id(1), subID), e.ro), 404, "NOTFOUND", "not_found", "")
			wantError(t, e.get(e.path("/api/v2/storefronts/%d/subscribers/verify?id=abc", 1), e.ro), 400, "INVALID", "invalid_parameter", "id")
		})
	})

	t.Run("PastDueSweeper", func(t *testing.T) {
		e := e.with(t)
		var subID int64
		if err := e.db.QueryRow("SELECT sb.id FROM subscribers sb JOIN subscriptions ss ON ss.subscriber_id = sb.id WHERE sb.storefront_id = ? ORDER BY sb.id LIMIT 1", e.id(2)).Scan(&subID); err != nil {
			t.Fatal(err)
		}
		// Storefront 2's grace period, counted from next_payment_at.
		var grace int
		e.db.QueryRow("SELECT past_due_grace_days FROM storefronts WHERE id = ?", e.id(2)).Scan(&grace)
		next := now.AddDate(0, 0, -grace).Add(-time.Minute)
		dbtest.MustExec(t, e.db.DB, fmt.Sprintf("UPDATE subscriptions SET status = 'PAST_DUE', ended_at = NULL, next_payment_at = %s WHERE subscriber_id = %d", sqlTime(next), subID))
		if _, err := e.db.ClosePastDue(ctx); err != nil {
			t.Fatal(err)
		}
		r := e.get(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", e.id(2), subID), e.ro)
		if !strings.Contains(string(r.body), `"status":"CLOSED"`) || !strings.Contains(string(r.body), `"reason":"closed"`) {
			t.Fatalf("after the grace period: got %s", r.body)
		}
		var n int
		e.db.QueryRow("SELECT COUNT(*) FROM subscriber_activity WHERE subscriber_id = ? AND action = 'closed_past_due'", subID).Scan(&n)
		if n != 1 {
			t.Fatalf("activity entries: got %d, want 1", n)
		}
		// Within the grace period nothing happens.
		dbtest.MustExec(t, e.db.DB, fmt.Sprintf("UPDATE subscriptions SET status = 'PAST_DUE', ended_at = NULL, next_payment_at = %s WHERE subscriber_id = %d", sqlTime(now.Add(-time.Hour)), subID))
		if n, err := e.db.ClosePastDue(ctx); err != nil || n != 0 {
			t.Fatalf("within grace: closed %d, %v", n, err)
		}
	})
}

func sqlTime(v any) string {
	if v == nil {
		return "NULL"
	}
	return "'" + v.(time.Time).UTC().Format("2006-01-02 15:04:05") + "'"
}

// passkeyOrigin is the origin of the server at base under the name localhost, where
// browsers take passkeys (never at an address).
func passkeyOrigin(base string) string { return strings.Replace(base, "127.0.0.1", "localhost", 1) }
