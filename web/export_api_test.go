package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/web"
)

// exportBatch is the export batch size of the test server: small, so that the test
// data spans many batches and every keyset boundary between them is crossed.
const exportBatch = 37

// walkFull pages the JSON list of query to its end (500 a page, by the Link header).
// The export tests read its purchases as shop.Purchase, as the subscriber export's test
// reads shop.Subscriber: the JSON itself is held to docs/API.md by the API's tests.
func (e *apiEnv) walkFull(query, key string) []shop.Purchase {
	e.t.Helper()
	path := "/api/v2/purchases?per_page=500"
	if query != "" {
		path += "&" + query
	}
	return walkPages[shop.Purchase](e, path, key)
}

// readCSV reads an export: its header row and records, after checking the framing the
// export promises (no byte-order mark, CRLF line ends).
func readCSV(t testing.TB, body []byte) (header []string, records [][]string) {
	t.Helper()
	if bytes.HasPrefix(body, []byte("\xef\xbb\xbf")) {
		t.Fatal("the export starts with a byte-order mark")
	}
	if !bytes.HasSuffix(body, []byte("\r\n")) {
		t.Fatalf("the export does not end with CRLF: %q", body[max(0, len(body)-20):])
	}
	r := csv.NewReader(bytes.NewReader(body))
	all, err := r.ReadAll()
	if err != nil {
		t.Fatalf("the export is no CSV: %v", err)
	}
	if len(all) == 0 {
		t.Fatal("the export has no header row")
	}
	return all[0], all[1:]
}

// wantPurchaseRows builds, from the JSON list and the rows' own subscriber links, the
// records the export must hold, as the columns of docs/API.md describe them.
func (e *apiEnv) wantPurchaseRows(ps []shop.Purchase, lineItems bool) [][]string {
	e.t.Helper()
	ctx := context.Background()
	acct, err := mysql.NewAccountService(e.db).FindAccountByID(ctx, e.id(1))
	if err != nil {
		e.t.Fatal(err)
	}
	loc, err := time.LoadLocation(acct.Timezone)
	if err != nil {
		e.t.Fatal(err)
	}
	sfs, err := mysql.NewAccountService(e.db).FindStorefronts(ctx, e.id(1))
	if err != nil {
		e.t.Fatal(err)
	}
	names := map[int64]string{}
	for _, sf := range sfs {
		names[sf.ID] = sf.Name
	}
	iso := func(t shop.Time) string { return t.In(loc).Format("2006-01-02T15:04:05-07:00") }
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	num := func(n *int64) string {
		if n == nil {
			return ""
		}
		return strconv.FormatInt(*n, 10)
	}
	var out [][]string
	for _, p := range ps {
		row, err := mysql.NewPurchaseService(e.db).FindPurchaseByID(ctx, e.id(1), p.ID)
		if err != nil {
			e.t.Fatal(err)
		}
		cust := ""
		if p.Customer != nil {
			cust = strconv.FormatInt(p.Customer.ID, 10)
		}
		head := []string{strconv.FormatInt(p.ID, 10), iso(p.CreatedAt), strconv.FormatInt(p.CreatedAt.Unix(), 10), string(p.Status),
			strconv.FormatInt(p.StorefrontID, 10), names[p.StorefrontID], p.Currency,
			string(p.Subtotal), string(p.Discount), string(p.Tax), string(p.Shipping), string(p.Total),
			str(p.BuyerEmail), str(p.BuyerFirstname), str(p.BuyerLastname), cust, num(row.SubscriberID)}
		if !lineItems {
			products, quantity := productsAndQuantity(p.LineItems)
			out = append(out, append(head, products, quantity, num(p.TangiblesToShip)))
			continue
		}
		head = append(head, num(p.TangiblesToShip))
		if len(p.LineItems) == 0 {
			out = append(out, append(slices.Clone(head), make([]string, 9)...))
		}
		for _, li := range p.LineItems {
			exp := ""
			if li.ExpiresAt != nil {
				exp = iso(*li.ExpiresAt)
			}
			out = append(out, append(slices.Clone(head), strconv.FormatInt(li.ID, 10), strconv.FormatInt(li.ProductID, 10), li.ProductName,
				string(li.Price), strconv.FormatInt(li.Quantity, 10), string(li.Total), strconv.FormatInt(li.DownloadCount, 10), strconv.FormatInt(li.DownloadLimit, 10), exp))
		}
	}
	return out
}

// productsAndQuantity are the products and quantity cells of a purchase's row: the
// product names of its line items, "; " between them, and their quantities added up.
func productsAndQuantity(items []shop.LineItem) (products, quantity string) {
	names := make([]string, len(items))
	var sum int64
	for i, li := range items {
		names[i] = li.ProductName
		sum += li.Quantity
	}
	return strings.Join(names, "; "), strconv.FormatInt(sum, 10)
}

// sameRows fails the test unless the records an export holds are want, row for row;
// header names the columns in the message.
func sameRows(t testing.TB, what string, header []string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("%s: row %d:\n got %q\nwant %q\n(columns %q)", what, i, got[i], want[i], header)
		}
	}
}

// TestExportPurchases_SameRowsAsList: for each filter of the list alone and in
// combinations, in both orders, the CSV holds exactly the purchases the JSON list
// pages through, in its order, field for field.
func TestExportPurchases_SameRowsAsList(t *testing.T) {
	e := newAPI(t, 0)
	all := e.walkFull("", e.ro)
	if len(all) < 300 {
		t.Fatalf("got %d purchases to export, want the seeded 400 or so", len(all))
	}
	// Values chosen from the data, so that every filter matches something.
	var product, customer, subscriberOf int64
	var email, first, last, total string
	for _, p := range all {
		if product == 0 && len(p.LineItems) > 0 {
			product = p.LineItems[0].ProductID
		}
		if customer == 0 && p.Customer != nil {
			customer = p.Customer.ID
		}
		if email == "" && p.BuyerEmail != nil && len(*p.BuyerEmail) > 2 {
			email = (*p.BuyerEmail)[:2]
		}
		if first == "" && p.BuyerFirstname != nil && *p.BuyerFirstname != "" {
			first = (*p.BuyerFirstname)[:1]
		}
		if last == "" && p.BuyerLastname != nil && *p.BuyerLastname != "" {
			last = (*p.BuyerLastname)[:1]
		}
		if total == "" {
			total = string(p.Total)
		}
		if subscriberOf == 0 {
			if row, err := mysql.NewPurchaseService(e.db).FindPurchaseByID(context.Background(), e.id(1), p.ID); err == nil && row.SubscriberID != nil {
				subscriberOf = *row.SubscriberID
			}
		}
	}
	if product == 0 || customer == 0 || subscriberOf == 0 || email == "" || first == "" || last == "" {
		t.Fatalf("the seeded data lacks a value to filter by: product %d customer %d subscriber %d email %q first %q last %q",
			product, customer, subscriberOf, email, first, last)
	}
	queries := []string{
		"",
		"order=desc",
		"status=ACT",
		"status=act,RFD",
		fmt.Sprintf("product_id=%d", product),
		fmt.Sprintf("storefront_id=%d", e.id(1)),
		fmt.Sprintf("customer_id=%d", customer),
		fmt.Sprintf("subscriber_id=%d", subscriberOf),
		"customer_email=" + url.QueryEscape(email),
		"customer_first_name=" + url.QueryEscape(first),
		"customer_last_name=" + url.QueryEscape(last),
		"date_min=" + url.QueryEscape("-20 days"),
		"date_max=" + url.QueryEscape("-10 days"),
		"total=" + total,
		"total=20&total_op=gt",
		"total=20&total_op=LT",
		"total=" + total + "&total_op=ne",
		"ship=1",
		"ship=false",
		fmt.Sprintf("status=ACT&storefront_id=%d&order=desc", e.id(1)),
		fmt.Sprintf("product_id=%d&status=ACT,PND&date_min=%s", product, url.QueryEscape("-30 days")),
		"customer_email=" + url.QueryEscape(email) + "&total=10&total_op=gt&order=desc",
		"ship=0&date_max=" + url.QueryEscape("yesterday") + "&customer_first_name=" + url.QueryEscape(first),
		"status=HLD&customer_email=zzzzzz",
	}
	nonEmpty := 0
	for _, q := range queries {
		t.Run(q, func(t *testing.T) {
			e := e.with(t)
			list := e.walkFull(q, e.ro)
			if len(list) > 0 {
				nonEmpty++
			}
			for _, rows := range []string{"", "line_items"} {
				path := "/api/v2/purchases.csv?" + q
				if rows != "" {
					path += "&rows=" + rows
				}
				r := e.get(path, e.ro)
				if r.status != 200 {
					t.Fatalf("GET %s: %d %s", path, r.status, r.body)
				}
				header, got := readCSV(t, r.body)
				sameRows(t, path, header, got, e.wantPurchaseRows(list, rows != ""))
			}
		})
	}
	if nonEmpty < len(queries)-2 {
		t.Fatalf("only %d of %d filters matched anything: the comparison proves little", nonEmpty, len(queries))
	}
}

// TestExportPurchases_Headers checks the answer's headers and the header rows.
func TestExportPurchases_Headers(t *testing.T) {
	e := newAPI(t, 0)
	r := e.get("/api/v2/purchases.csv?status=ACT", e.ro)
	if r.status != 200 {
		t.Fatalf("got %d %s", r.status, r.body)
	}
	if got := r.header.Get("Content-Type"); got != "text/csv; charset=utf-8" {
		t.Errorf("got Content-Type %q, want text/csv; charset=utf-8", got)
	}
	// The test clock is 12:00 on 22 November 2026 in New York, the account's zone.
	if got, want := r.header.Get("Content-Disposition"), `attachment; filename="purchases-2026-11-22.csv"`; got != want {
		t.Errorf("got Content-Disposition %q, want %q", got, want)
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	header, recs := readCSV(t, r.body)
	wantHeader := "id,created_at,created_at_unix,status,storefront_id,storefront,currency,subtotal,discount,tax,shipping,total," +
		"buyer_email,buyer_firstname,buyer_lastname,customer_id,subscriber_id,products,quantity,tangibles_to_ship"
	if got := strings.Join(header, ","); got != wantHeader {
		t.Errorf("got header row\n%s\nwant\n%s", got, wantHeader)
	}
	if len(recs) == 0 || recs[0][3] != "ACT" {
		t.Fatalf("got %d rows, the first %q; want ACT purchases", len(recs), recs)
	}
	if !bytes.HasPrefix(r.body, []byte(wantHeader+"\r\n")) {
		t.Errorf("the header row does not end with CRLF: %q", r.body[:min(len(r.body), 300)])
	}

	r = e.get("/api/v2/purchases.csv?rows=LINE_ITEMS&status=nonsense&status=ACT", e.ro)
	wantError(t, r, 400, "INVALID", "invalid_parameter", "status")
	r = e.get("/api/v2/purchases.csv?rows=line_items", e.ro)
	header, _ = readCSV(t, r.body)
	wantLines := "id,created_at,created_at_unix,status,storefront_id,storefront,currency,subtotal,discount,tax,shipping,total," +
		"buyer_email,buyer_firstname,buyer_lastname,customer_id,subscriber_id,tangibles_to_ship," +
		"line_item_id,product_id,product_name,price,line_quantity,line_total,download_count,download_limit,expires_at"
	if got := strings.Join(header, ","); got != wantLines {
		t.Errorf("got line-item header row\n%s\nwant\n%s", got, wantLines)
	}

	r = e.get(e.path("/api/v2/storefronts/%d/subscribers.csv", 1), e.ro)
	if r.status != 200 {
		t.Fatalf("got %d %s", r.status, r.body)
	}
	if got, want := r.header.Get("Content-Disposition"), `attachment; filename="subscribers-2026-11-22.csv"`; got != want {
		t.Errorf("got Content-Disposition %q, want %q", got, want)
	}
	header, _ = readCSV(t, r.body)
	if got, want := strings.Join(header, ","), "id,username,created_at,subscription_status,price,period,unit,next_payment_at,ended_at,receiving_service"; got != want {
		t.Errorf("got subscriber header row\n%s\nwant\n%s", got, want)
	}

	// Nothing matches: the header row alone.
	r = e.get("/api/v2/purchases.csv?customer_email=nobody-at-all", e.ro)
	if _, recs := readCSV(t, r.body); r.status != 200 || len(recs) != 0 {
		t.Fatalf("got %d with %d rows, want 200 with the header row alone", r.status, len(recs))
	}
}

// TestExportSubscribers_SameRowsAsList compares the subscriber export with the JSON list
// and the verify answer of each subscriber.
func TestExportSubscribers_SameRowsAsList(t *testing.T) {
	e := newAPI(t, 0)
	acct, _ := mysql.NewAccountService(e.db).FindAccountByID(context.Background(), e.id(1))
	loc, _ := time.LoadLocation(acct.Timezone)
	for _, q := range []string{"", "order=desc"} {
		list := walkPages[shop.Subscriber](e, e.path("/api/v2/storefronts/%d/subscribers?per_page=500&", 1)+q, e.ro)
		if len(list) < 10 {
			t.Fatalf("got %d subscribers, want the seeded ones", len(list))
		}
		r := e.get(e.path("/api/v2/storefronts/%d/subscribers.csv?", 1)+q, e.ro)
		_, got := readCSV(t, r.body)
		if len(got) != len(list) {
			t.Fatalf("%s: got %d rows, want %d", q, len(got), len(list))
		}
		iso := func(t *shop.Time) string {
			if t == nil {
				return ""
			}
			return t.In(loc).Format("2006-01-02T15:04:05-07:00")
		}
		for i, sub := range list {
			var v struct {
				ReceivingService bool `json:"receiving_service"`
			}
			e.get(fmt.Sprintf("/api/v2/storefronts/%d/subscribers/verify?id=%d", e.id(1), sub.ID), e.ro).json(t, &v)
			want := []string{strconv.FormatInt(sub.ID, 10), sub.Username, iso(&sub.CreatedAt), "", "", "", "", "", "", strconv.FormatBool(v.ReceivingService)}
			if ss := sub.Subscription; ss != nil {
				want[3], want[4], want[5], want[6], want[7], want[8] = string(ss.Status), string(ss.Price), strconv.FormatInt(ss.Period, 10), ss.Unit, iso(ss.NextPaymentAt), iso(ss.EndedAt)
			}
			if !slices.Equal(got[i], want) {
				t.Fatalf("%s: row %d: got %q, want %q", q, i, got[i], want)
			}
		}
	}
	// username selects one subscriber, as in the list.
	r := e.get(e.path("/api/v2/storefronts/%d/subscribers?per_page=1", 1), e.ro)
	var one []shop.Subscriber
	r.json(t, &one)
	r = e.get(e.path("/api/v2/storefronts/%d/subscribers.csv?username=", 1)+url.QueryEscape(strings.ToUpper(one[0].Username)), e.ro)
	if _, got := readCSV(t, r.body); len(got) != 1 || got[0][0] != strconv.FormatInt(one[0].ID, 10) {
		t.Fatalf("got %q, want subscriber %d alone", got, one[0].ID)
	}
}

// TestExportPurchases_SpreadsheetSafety: text that a spreadsheet would read as a
// formula gets a leading ', numbers and money never do.
func TestExportPurchases_SpreadsheetSafety(t *testing.T) {
	e := newAPI(t, 0)
	var id int64
	if err := e.db.QueryRow(`SELECT p.id FROM purchases p JOIN line_items li ON li.purchase_id = p.id
		WHERE p.account_id = ? AND p.discount < 0 ORDER BY p.id LIMIT 1`, e.id(1)).Scan(&id); err != nil {
		t.Fatal(err)
	}
	e.exec(`UPDATE purchases SET buyer_email = '@evil.test', buyer_firstname = '=HYPERLINK("http://x.test","a, b")', buyer_lastname = '-2+3'
		WHERE account_id = ? AND id = ?`, e.id(1), id)
	e.exec(`UPDATE line_items SET product_name = ? WHERE purchase_id = ?`, "\tSUM(A1)", id)
	e.exec(`UPDATE storefronts SET name = '+Storefront' WHERE account_id = ? AND id = (SELECT storefront_id FROM purchases WHERE id = ?)`, e.id(1), id)
	var sub int64
	if err := e.db.QueryRow(`SELECT sb.id FROM subscribers sb WHERE sb.storefront_id = ? ORDER BY sb.id LIMIT 1`, e.id(1)).Scan(&sub); err != nil {
		t.Fatal(err)
	}
	e.exec(`UPDATE subscribers SET username = '=cmd|calc@x.test' WHERE storefront_id = ? AND id = ?`, e.id(1), sub)

	for _, rows := range []string{"purchases", "line_items"} {
		r := e.get(fmt.Sprintf("/api/v2/purchases.csv?rows=%s&customer_email=%%40evil", rows), e.ro)
		header, recs := readCSV(t, r.body)
		if len(recs) == 0 {
			t.Fatalf("rows=%s: the hostile purchase is not exported: %s", rows, r.body)
		}
		col := func(name string) string { return recs[0][slices.Index(header, name)] }
		for name, want := range map[string]string{
			"buyer_email": "'@evil.test", "buyer_firstname": `'=HYPERLINK("http://x.test","a, b")`, "buyer_lastname": "'-2+3", "storefront": "'+Storefront",
		} {
			if got := col(name); got != want {
				t.Errorf("rows=%s: %s: got %q, want %q", rows, name, got, want)
			}
		}
		name := "products"
		if rows == "line_items" {
			name = "product_name"
		}
		if got := col(name); !strings.HasPrefix(got, "'\tSUM(A1)") {
			t.Errorf("rows=%s: %s: got %q, want it to start with '\\tSUM(A1)", rows, name, got)
		}
		if got := col("discount"); !strings.HasPrefix(got, "-") {
			t.Errorf("rows=%s: discount: got %q, want the negative amount as the API writes it", rows, got)
		}
	}
	r := e.get(e.path("/api/v2/storefronts/%d/subscribers.csv", 1), e.ro)
	_, recs := readCSV(t, r.body)
	found := false
	for _, rec := range recs {
		if rec[0] == strconv.FormatInt(sub, 10) {
			found = true
			if rec[1] != "'=cmd|calc@x.test" {
				t.Errorf("username: got %q, want '=cmd|calc@x.test", rec[1])
			}
		}
	}
	if !found {
		t.Fatalf("subscriber %d is not exported", sub)
	}
}

// TestExportPurchases_Errors: the paging parameters, unknown ones and bad values are
// 400s with the JSON error body, before any byte of CSV.
func TestExportPurchases_Errors(t *testing.T) {
	e := newAPI(t, 0)
	refused := func(path, code, param string) {
		t.Helper()
		r := e.get(path, e.ro)
		wantError(t, r, 400, "INVALID", code, param)
		if strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
			t.Errorf("%s: an error answered as %s", path, r.header.Get("Content-Type"))
		}
	}
	// Bad values, and the list's paging, which an export does not take.
	for _, c := range []struct{ path, param string }{
		{"/api/v2/purchases.csv?per_page=10", "per_page"},
		{"/api/v2/purchases.csv?page=2", "page"},
		{"/api/v2/purchases.csv?page=", "page"},
		{"/api/v2/purchases.csv?cursor=abc", "cursor"},
		{"/api/v2/purchases.csv?include_count=1", "include_count"},
		{"/api/v2/purchases.csv?rows=lines", "rows"},
		{"/api/v2/purchases.csv?rows=purchases&rows=line_items", "rows"},
		{"/api/v2/purchases.csv?date_min=not+a+date", "date_min"},
		{"/api/v2/purchases.csv?total_op=gt", "total_op"},
		{"/api/v2/purchases.csv?order=sideways", "order"},
		{"/api/v2/purchases.csv?product_id=0", "product_id"},
		{e.path("/api/v2/storefronts/%d/subscribers.csv?per_page=10", 1), "per_page"},
		{"/api/v2/storefronts/x/subscribers.csv", "storefront_id"},
	} {
		refused(c.path, "invalid_parameter", c.param)
	}
	// Parameters an export does not know.
	refused("/api/v2/purchases.csv?colour=red", "unknown_parameter", "colour")
	refused(e.path("/api/v2/storefronts/%d/subscribers.csv?rows=line_items", 1), "unknown_parameter", "rows")

	r := e.get("/api/v2/purchases.csv", "")
	wantError(t, r, 401, "UNAUTHORIZED", "unauthenticated", "")
	// The export takes what the list takes, without its paging, plus rows.
	r = e.get("/api/v2/purchases.csv?colour=red", e.ro)
	var eb errorBody
	r.json(t, &eb)
	if strings.Contains(eb.Error.Message, "per_page") || !strings.Contains(eb.Error.Message, "rows") {
		t.Errorf("got message %q, want the export's own parameters listed", eb.Error.Message)
	}
}

// bearer fetches path with a Bearer key.
func (e *apiEnv) bearer(path, key string) response {
	return e.do("GET", path, "", nil, map[string]string{"Authorization": "Bearer " + key})
}

// TestExportPurchases_Tenancy: a key exports its own account's rows only, and another
// account's storefront is a 404 as in the list.
func TestExportPurchases_Tenancy(t *testing.T) {
	e := newAPI(t, 0)
	mine := map[string]bool{}
	_, recs := readCSV(t, e.get("/api/v2/purchases.csv", e.ro).body)
	for _, rec := range recs {
		mine[rec[0]] = true
	}
	r := e.bearer("/api/v2/purchases.csv", e.other)
	_, theirs := readCSV(t, r.body)
	var want int
	if err := e.db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = ?", e.id(2)).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if len(theirs) != want || want == 0 {
		t.Fatalf("account 2 exported %d purchases, want its %d", len(theirs), want)
	}
	for _, rec := range theirs {
		if mine[rec[0]] {
			t.Fatalf("account 2's export holds purchase %s of account 1", rec[0])
		}
	}
	// Account 1's storefront, asked for by account 2: no rows.
	_, recs = readCSV(t, e.bearer(e.path("/api/v2/purchases.csv?storefront_id=%d", 1), e.other).body)
	if len(recs) != 0 {
		t.Fatalf("account 2 exported %d purchases of account 1's storefront", len(recs))
	}
	wantError(t, e.bearer(e.path("/api/v2/storefronts/%d/subscribers.csv", 1), e.other), 404, "NOTFOUND", "not_found", "")
}

// TestExportPurchases_Audit: each export is recorded in the account's activity with
// who asked, the filters and the rows sent.
func TestExportPurchases_Audit(t *testing.T) {
	e := newAPI(t, 0)
	r := e.get("/api/v2/purchases.csv?status=ACT&rows=line_items", e.ro)
	_, recs := readCSV(t, r.body)
	e.get(e.path("/api/v2/storefronts/%d/subscribers.csv?order=desc", 1), e.ro)
	acts, err := mysql.NewAccountActivityService(e.db).FindAccountActivity(context.Background(), e.id(1), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 2 {
		t.Fatalf("got %d activity entries, want 2", len(acts))
	}
	var d struct {
		What         string `json:"what"`
		Filters      string `json:"filters"`
		Rows         int    `json:"rows"`
		Complete     bool   `json:"complete"`
		StorefrontID int64  `json:"storefront_id"`
	}
	if err := json.Unmarshal([]byte(acts[1].Details), &d); err != nil {
		t.Fatal(err)
	}
	if acts[1].Action != "export" || !strings.HasPrefix(acts[1].Actor, "API key ") || d.What != "line_items" ||
		d.Filters != "rows=line_items&status=ACT" || d.Rows != len(recs) || !d.Complete {
		t.Errorf("got %+v %+v, want an export of %d line-item rows by the API key", acts[1], d, len(recs))
	}
	if err := json.Unmarshal([]byte(acts[0].Details), &d); err != nil {
		t.Fatal(err)
	}
	if d.What != "subscribers" || d.StorefrontID != e.id(1) || d.Filters != "order=desc" {
		t.Errorf("got %+v, want the subscriber export of storefront 1", d)
	}
	// Another account sees none of it.
	if other, _ := mysql.NewAccountActivityService(e.db).FindAccountActivity(context.Background(), e.id(2), 10); len(other) != 0 {
		t.Errorf("account 2 has %d activity entries, want none", len(other))
	}
}

// stallingExport is the database's export, reporting its first batch and then
// holding the request until the client has gone away.
type stallingExport struct {
	*mysql.PurchaseService
	batches atomic.Int64
	first   chan struct{}
	done    chan error
}

func (s *stallingExport) ExportPurchases(ctx context.Context, f shop.PurchaseFilter, lines shop.ExportLines, fn func([]*shop.Purchase) error) error {
	err := s.PurchaseService.ExportPurchases(ctx, f, lines, func(ps []*shop.Purchase) error {
		err := fn(ps)
		if s.batches.Add(1) == 1 {
			close(s.first)
			<-ctx.Done()
		}
		return err
	})
	s.done <- err
	return err
}

// TestExportPurchases_Disconnect: a client that goes away mid-stream stops the export:
// no further batch is read, its database connection goes back to the pool, no
// goroutine is left behind, and the activity records an incomplete file.
func TestExportPurchases_Disconnect(t *testing.T) {
	e := newAPI(t, 0)
	exp := &stallingExport{PurchaseService: mysql.NewPurchaseService(e.db), first: make(chan struct{}), done: make(chan error, 1)}
	s := &web.Server{Purchases: exp, Writer: mysql.NewPurchaseService(e.db), Subscribers: mysql.NewSubscriberService(e.db), Keys: mysql.NewAPIKeyService(e.db), Accounts: mysql.NewAccountService(e.db), Users: mysql.NewUserService(e.db), Admin: mysql.NewAdminService(e.db),
		Activity: mysql.NewAccountActivityService(e.db), ExportBatch: 10, Now: e.clock.now, Logger: serverLog}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	client := &http.Client{Transport: &http.Transport{}}
	runtime.GC()
	before := runtime.NumGoroutine()

	req, _ := http.NewRequest("GET", hs.URL+"/api/v2/purchases.csv", nil)
	req.SetBasicAuth(e.user, e.ro)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	<-exp.first
	buf := make([]byte, 512)
	if _, err := io.ReadAtLeast(res.Body, buf, len(buf)); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	client.CloseIdleConnections()

	select {
	case err := <-exp.done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the export ended with %v, want it stopped by the client's leaving", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the export still runs 10 s after the client went away")
	}
	if n := exp.batches.Load(); n != 1 {
		t.Errorf("the export read %d batches, want it to stop after the first", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.db.Stats().InUse > 0 || runtime.NumGoroutine() > before {
		// The export reads on several connections at once: the pool keeps them idle,
		// each with its driver's goroutine. Closing the idle ones leaves what leaked.
		e.db.SetMaxIdleConns(0)
		e.db.SetMaxIdleConns(64)
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Logf("%s", buf[:runtime.Stack(buf, true)])
			t.Fatalf("after the export: %d connections in use, %d goroutines (before it: %d)", e.db.Stats().InUse, runtime.NumGoroutine(), before)
		}
		time.Sleep(20 * time.Millisecond)
	}
	acts, err := mysql.NewAccountActivityService(e.db).FindAccountActivity(context.Background(), e.id(1), 1)
	if err != nil || len(acts) != 1 {
		t.Fatalf("got %v %v, want the export recorded", acts, err)
	}
	if !strings.Contains(acts[0].Details, `"complete":false`) || !strings.Contains(acts[0].Details, `"rows":10`) {
		t.Errorf("got %s, want an incomplete export of the first 10 rows", acts[0].Details)
	}
}

// slowExport is the database's export, pausing before each batch as a long export's
// reads add up.
type slowExport struct {
	*mysql.PurchaseService
	pause time.Duration
}

func (s slowExport) ExportPurchases(ctx context.Context, f shop.PurchaseFilter, lines shop.ExportLines, fn func([]*shop.Purchase) error) error {
	return s.PurchaseService.ExportPurchases(ctx, f, lines, func(ps []*shop.Purchase) error {
		time.Sleep(s.pause)
		return fn(ps)
	})
}

// TestExportPurchases_OutlastsServerTimeouts: an export lasts as long as its rows take,
// beyond the server's read and write timeouts for ordinary requests.
func TestExportPurchases_OutlastsServerTimeouts(t *testing.T) {
	e := newAPI(t, 0)
	s := &web.Server{Purchases: slowExport{mysql.NewPurchaseService(e.db), 50 * time.Millisecond}, Writer: mysql.NewPurchaseService(e.db), Subscribers: mysql.NewSubscriberService(e.db), Keys: mysql.NewAPIKeyService(e.db), Accounts: mysql.NewAccountService(e.db),
		Users: mysql.NewUserService(e.db), Admin: mysql.NewAdminService(e.db), ExportBatch: 20, Now: e.clock.now, Logger: serverLog}
	hs := httptest.NewUnstartedServer(s.Handler())
	hs.Config.ReadTimeout, hs.Config.WriteTimeout = 300*time.Millisecond, 300*time.Millisecond
	hs.Start()
	defer hs.Close()
	_, body, err := download(t, hs.URL+"/api/v2/purchases.csv", e.user, e.ro)
	if err != nil {
		t.Fatalf("the export broke off after %d bytes: %v", len(body), err)
	}
	_, recs := readCSV(t, body)
	var want int
	if err := e.db.QueryRow("SELECT COUNT(*) FROM purchases WHERE account_id = ?", e.id(1)).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if len(recs) != want {
		t.Fatalf("got %d rows, want all %d purchases", len(recs), want)
	}
}

// failingExport is the database's export failing after its first batch.
type failingExport struct{ *mysql.PurchaseService }

func (s failingExport) ExportPurchases(ctx context.Context, f shop.PurchaseFilter, lines shop.ExportLines, fn func([]*shop.Purchase) error) error {
	first := true
	return s.PurchaseService.ExportPurchases(ctx, f, lines, func(ps []*shop.Purchase) error {
		if !first {
			return errors.New("the database went away")
		}
		first = false
		return fn(ps)
	})
}

// download GETs url with the API user name and key and reads the body to its end, or
// to the error that cut it off.
func download(t *testing.T, url, user, key string) (*http.Response, []byte, error) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.SetBasicAuth(user, key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res, body, err
}

// syncBuffer is what others write from their goroutines while the test reads it: the
// server's log, Chromium's output.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}
func (b *syncBuffer) String() string { b.mu.Lock(); defer b.mu.Unlock(); return b.b.String() }

// TestExportPurchases_FailureAfterFirstByte: a failure once the file has started ends
// the connection without the final chunk, so the download fails instead of looking
// complete, and the log names the request.
func TestExportPurchases_FailureAfterFirstByte(t *testing.T) {
	e := newAPI(t, 0)
	var log syncBuffer
	s := &web.Server{Purchases: failingExport{mysql.NewPurchaseService(e.db)}, Writer: mysql.NewPurchaseService(e.db), Subscribers: mysql.NewSubscriberService(e.db), Keys: mysql.NewAPIKeyService(e.db), Accounts: mysql.NewAccountService(e.db),
		Users: mysql.NewUserService(e.db), Admin: mysql.NewAdminService(e.db), Activity: mysql.NewAccountActivityService(e.db), ExportBatch: 20, Now: e.clock.now, Logger: slog.New(slog.NewTextHandler(&log, nil))}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	res, body, err := download(t, hs.URL+"/api/v2/purchases.csv", e.user, e.ro)
	if err == nil {
		t.Fatalf("the download of a failed export ended cleanly with %d bytes", len(body))
	}
	if res.StatusCode != 200 || !bytes.HasPrefix(body, []byte("id,created_at,")) {
		t.Fatalf("got %d %q, want the file's start", res.StatusCode, body[:min(len(body), 40)])
	}
	rid := res.Header.Get("X-Request-Id")
	if rid == "" || !strings.Contains(log.String(), "request_id="+rid) || !strings.Contains(log.String(), "the database went away") {
		t.Errorf("the log does not name request %q and its error:\n%s", rid, log.String())
	}
	acts, _ := mysql.NewAccountActivityService(e.db).FindAccountActivity(context.Background(), e.id(1), 1)
	if len(acts) != 1 || !strings.Contains(acts[0].Details, `"complete":false`) {
		t.Errorf("got activity %+v, want the export recorded as incomplete", acts)
	}
}

// failingStorefronts is the database failing to read the storefronts' names, which an
// export reads while it reads its first batch.
type failingStorefronts struct{ *mysql.AccountService }

func (failingStorefronts) FindStorefronts(ctx context.Context, accountID int64) ([]*shop.Storefront, error) {
	return nil, errors.New("the database went away")
}

// TestExportPurchases_FailureBeforeFirstByte: a database failure found before the first
// byte (the storefronts' names, read beside the first batch) is an ordinary JSON error,
// with rows to send or without.
func TestExportPurchases_FailureBeforeFirstByte(t *testing.T) {
	e := newAPI(t, 0)
	s := &web.Server{Purchases: mysql.NewPurchaseService(e.db), Writer: mysql.NewPurchaseService(e.db), Subscribers: mysql.NewSubscriberService(e.db), Keys: mysql.NewAPIKeyService(e.db), Accounts: failingStorefronts{mysql.NewAccountService(e.db)},
		Users: mysql.NewUserService(e.db), Admin: mysql.NewAdminService(e.db), Activity: mysql.NewAccountActivityService(e.db), ExportBatch: 20, Now: e.clock.now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	for _, q := range []string{"", "?customer_id=999999999"} {
		res, body, err := download(t, hs.URL+"/api/v2/purchases.csv"+q, e.user, e.ro)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if res.StatusCode != 500 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") || strings.Contains(string(body), "went away") {
			t.Errorf("%s: got %d %s %q, want the JSON internal error", q, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}

// TestExportPurchases_OneRequestOfTheRateLimit: an export, however many batches it
// reads, is one request of the key's rate limit, and carries its headers.
func TestExportPurchases_OneRequestOfTheRateLimit(t *testing.T) {
	e := newAPI(t, 600)
	remaining := func(r response) int {
		t.Helper()
		n, err := strconv.Atoi(r.header.Get("RateLimit-Remaining"))
		if err != nil {
			t.Fatalf("RateLimit-Remaining %q: %v", r.header.Get("RateLimit-Remaining"), err)
		}
		return n
	}
	before := remaining(e.get("/api/v2/", e.ro))
	export := e.get("/api/v2/purchases.csv?rows=line_items", e.ro)
	if _, recs := readCSV(t, export.body); len(recs) < 10*exportBatch {
		t.Fatalf("got %d rows, want an export of many batches", len(recs))
	}
	if got := remaining(export); got != before-1 {
		t.Errorf("the export left %d requests, want %d", got, before-1)
	}
	if got := remaining(e.get("/api/v2/", e.ro)); got != before-2 {
		t.Errorf("after the export %d requests are left, want %d", got, before-2)
	}
}
