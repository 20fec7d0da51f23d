package mysql_test

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// importTables are the tables an import writes.
var importTables = []string{"accounts", "storefronts", "products", "customers", "subscribers", "subscriptions",
	"purchases", "line_items", "product_keys", "coupons", "custom_fields", "transactions"}

// checksums returns a checksum of every row of every table an import writes.
func importChecksums(t testing.TB, db *mysql.DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	if dbtest.Vitess() {
		// vtgate does not parse CHECKSUM TABLE: a sum of each row's CRC32 of all its
		// columns instead.
		for _, tb := range importTables {
			cols := dbtest.Query(t, db.DB, func(r *sql.Rows) (string, error) {
				var f, typ, null, key, extra string
				var def sql.NullString
				err := r.Scan(&f, &typ, &null, &key, &def, &extra)
				return "`" + f + "`", err
			}, "SHOW COLUMNS FROM "+tb)
			var sum sql.NullInt64
			if err := db.QueryRow("SELECT SUM(CRC32(CONCAT_WS('|', " + strings.Join(cols, ", ") + "))) FROM " + tb).Scan(&sum); err != nil {
				t.Fatalf("checksum: %v", err)
			}
			out[tb] = sum.Int64
		}
	}
	targets := map[string]*sql.DB{"": db.DB}
	if dbtest.Vitess() {
		targets = nil
	}
	for target, q := range targets {
		rows, err := q.Query("CHECKSUM TABLE " + strings.Join(importTables, ", ") + " EXTENDED")
		if err != nil {
			t.Fatalf("checksum: %v", err)
		}
		for rows.Next() {
			var name string
			var sum sql.NullInt64
			if err := rows.Scan(&name, &sum); err != nil {
				t.Fatal(err)
			}
			out[name[strings.LastIndex(name, ".")+1:]+target] = sum.Int64
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	// CHECKSUM TABLE of an empty table and of a missing one look alike: count too.
	for _, tb := range importTables {
		var n int64
		if err := db.QueryRow("SELECT COUNT(*) FROM " + tb).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[tb+"#rows"] = n
	}
	return out
}

func importFile(t testing.TB, db *mysql.DB, path string) importer.Stats {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stats, err := importer.Run(context.Background(), db, f, io.Discard)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return stats
}

// importIDField matches an id of an import document, "id" or a name ending in "_id",
// with its value; importAPIUsername matches an account's API user name.
var (
	importIDField     = regexp.MustCompile(`"(id|[a-z_]+_id)"(\s*:\s*)(\d+)`)
	importAPIUsername = regexp.MustCompile(`"api_username"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)
)

// shiftImportIDs returns the import document doc with its ids counted from base
// (dbtest.IDBase): every "id" and "*_id" field, at any depth, has base added to it, and
// every API user name, unique across accounts, carries the base. An id too large to
// have base added (the fixture's ids next to the largest BIGINT) has it subtracted
// instead: it stays that large, above the base, and apart from another base's. It
// works on the text, so that it keeps the order of the document's keys and shifts
// malformed documents too. Base 0 returns doc as it is.
func shiftImportIDs(doc string, base int64) string {
	if base == 0 {
		return doc
	}
	doc = importIDField.ReplaceAllStringFunc(doc, func(m string) string {
		sub := importIDField.FindStringSubmatch(m)
		n, err := strconv.ParseInt(sub[3], 10, 64)
		if err != nil {
			panic(fmt.Sprintf("shiftImportIDs: %s: %v", m, err))
		}
		if n > math.MaxInt64-base {
			return fmt.Sprintf(`"%s"%s%d`, sub[1], sub[2], n-base)
		}
		return fmt.Sprintf(`"%s"%s%d`, sub[1], sub[2], base+n)
	})
	return importAPIUsername.ReplaceAllStringFunc(doc, func(m string) string {
		sub := importAPIUsername.FindStringSubmatch(m)
		return `"api_username"` + sub[1] + `"` + importAPIUsernameAt(sub[2], base) + `"`
	})
}

// importAPIUsernameAt returns the API user name that shiftImportIDs gives an
// account's name at base.
func importAPIUsernameAt(name string, base int64) string {
	if base == 0 {
		return name
	}
	return fmt.Sprintf("%s-%d", name, base)
}

// importFileAt imports the document at path with its ids counted from base
// (shiftImportIDs).
func importFileAt(t testing.TB, db *mysql.DB, path string, base int64) importer.Stats {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := importer.Run(context.Background(), db, strings.NewReader(shiftImportIDs(string(b), base)), io.Discard)
	if err != nil {
		t.Fatalf("import %s: %v", path, err)
	}
	return stats
}

// importFixture is the test document, each record kept as raw JSON.
type importFixture struct {
	Accounts    []json.RawMessage `json:"accounts"`
	Storefronts []json.RawMessage `json:"storefronts"`
	Subscribers []json.RawMessage `json:"subscribers"`
	Purchases   []json.RawMessage `json:"purchases"`
}

const importFixturePath = "testdata/import/full.json"

func readImportFixture(t *testing.T) importFixture {
	t.Helper()
	return readImportFixtureAt(t, 0)
}

// readImportFixtureAt reads the test document with its ids counted from base, as
// importFileAt imports it.
func readImportFixtureAt(t *testing.T, base int64) importFixture {
	t.Helper()
	b, err := os.ReadFile(importFixturePath)
	if err != nil {
		t.Fatal(err)
	}
	var f importFixture
	if err := json.Unmarshal([]byte(shiftImportIDs(string(b), base)), &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// object decodes JSON into a map with exact numbers.
func importObject(t *testing.T, b []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// compareImportJSON compares an API object with the imported record, field by field.
func compareImportJSON(t *testing.T, what string, want map[string]any, got any) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	g := importObject(t, b)
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range g {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		wv, wok := want[k]
		gv, gok := g[k]
		if wok != gok || !reflect.DeepEqual(wv, gv) {
			gj, _ := json.Marshal(gv)
			wj, _ := json.Marshal(wv)
			t.Errorf("%s: %s: got %s (present %v), want %s (present %v)", what, k, gj, gok, wj, wok)
		}
	}
}

func TestImport_RoundTrip(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	base := dbtest.IDBase(t)
	stats := importFileAt(t, db, importFixturePath, base)
	f := readImportFixtureAt(t, base)
	if stats.Accounts != len(f.Accounts) || stats.Storefronts != len(f.Storefronts) || stats.Subscribers != len(f.Subscribers) || stats.Purchases != len(f.Purchases) {
		t.Errorf("stats: got %+v, want %d/%d/%d/%d", stats, len(f.Accounts), len(f.Storefronts), len(f.Subscribers), len(f.Purchases))
	}

	accountOf := map[int64]int64{}
	for _, raw := range f.Storefronts {
		var sf shop.Storefront
		if err := json.Unmarshal(raw, &sf); err != nil {
			t.Fatal(err)
		}
		accountOf[sf.ID] = sf.AccountID
		var got shop.Storefront
		err := db.QueryRow("SELECT account_id, name, currency, download_limit, download_days, past_due_grace_days FROM storefronts WHERE id = ?", sf.ID).
			Scan(&got.AccountID, &got.Name, &got.Currency, &got.DownloadLimit, &got.DownloadDays, &got.PastDueGraceDays)
		if err != nil {
			t.Fatalf("storefront %d: %v", sf.ID, err)
		}
		got.ID = sf.ID
		want := sf
		if !bytes.Contains(raw, []byte(`"past_due_grace_days"`)) {
			want.PastDueGraceDays = shop.DefaultPastDueGraceDays
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("storefront %d: got %+v, want %+v", sf.ID, got, want)
		}
	}
	for _, raw := range f.Accounts {
		var a shop.Account
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		var got shop.Account
		if err := db.QueryRow("SELECT id, name, api_username, timezone FROM accounts WHERE id = ?", a.ID).Scan(&got.ID, &got.Name, &got.APIUsername, &got.Timezone); err != nil {
			t.Fatalf("account %d: %v", a.ID, err)
		}
		if got != a {
			t.Errorf("account: got %+v, want %+v", got, a)
		}
	}

	for i, raw := range f.Purchases {
		want := importObject(t, raw)
		var ids struct {
			ID           int64  `json:"id"`
			StorefrontID int64  `json:"storefront_id"`
			SubscriberID *int64 `json:"subscriber_id"`
		}
		if err := json.Unmarshal(raw, &ids); err != nil {
			t.Fatal(err)
		}
		delete(want, "subscriber_id")
		got, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, accountOf[ids.StorefrontID], ids.ID)
		if err != nil {
			t.Fatalf("purchases[%d] (id %d): %v", i, ids.ID, err)
		}
		compareImportJSON(t, fmt.Sprintf("purchases[%d] (id %d)", i, ids.ID), want, got)
		if !reflect.DeepEqual(got.SubscriberID, ids.SubscriberID) {
			t.Errorf("purchases[%d]: subscriber_id: got %v, want %v", i, got.SubscriberID, ids.SubscriberID)
		}
		if got.AccountID != accountOf[ids.StorefrontID] {
			t.Errorf("purchases[%d]: account: got %d, want %d", i, got.AccountID, accountOf[ids.StorefrontID])
		}
	}

	for i, raw := range f.Subscribers {
		want := importObject(t, raw)
		var ids struct {
			ID           int64 `json:"id"`
			StorefrontID int64 `json:"storefront_id"`
		}
		if err := json.Unmarshal(raw, &ids); err != nil {
			t.Fatal(err)
		}
		delete(want, "storefront_id")
		got, err := mysql.NewSubscriberService(db).FindSubscriberByID(ctx, accountOf[ids.StorefrontID], ids.StorefrontID, ids.ID)
		if err != nil {
			t.Fatalf("subscribers[%d] (id %d): %v", i, ids.ID, err)
		}
		compareImportJSON(t, fmt.Sprintf("subscribers[%d] (id %d)", i, ids.ID), want, got)
	}

	// A product keeps the name it was created with; a later line item naming it
	// differently does not rename it.
	var name string
	if err := db.QueryRow("SELECT name FROM products WHERE id = ?", base+900).Scan(&name); err != nil || name != "E-Book „Grüße“" {
		t.Errorf("product 900: got %q, %v, want %q", name, err, "E-Book „Grüße“")
	}
	// to_ship is generated from tangibles_to_ship.
	var toShip bool
	if err := db.QueryRow("SELECT to_ship FROM purchases WHERE id = ?", base+1).Scan(&toShip); err != nil || !toShip {
		t.Errorf("to_ship of purchase 1: got %v, %v, want true", toShip, err)
	}
	// Foreign key checks are back on for connections of the pool.
	for range 4 {
		var v int
		if err := db.QueryRow("SELECT @@SESSION.foreign_key_checks").Scan(&v); err != nil || v != 1 {
			t.Fatalf("foreign_key_checks after import: got %d, %v, want 1", v, err)
		}
	}
}

func TestImport_Idempotent(t *testing.T) {
	db := dbtest.New(t)
	base := dbtest.IDBase(t)
	importFileAt(t, db, importFixturePath, base)
	first := importChecksums(t, db)
	importFileAt(t, db, importFixturePath, base)
	second := importChecksums(t, db)
	if !reflect.DeepEqual(first, second) {
		t.Errorf("checksums after the second import: got %v, want %v", second, first)
	}
	if first["purchases#rows"] == 0 || first["product_keys#rows"] == 0 {
		t.Fatalf("nothing imported: %v", first)
	}
}

// TestImport_Replaces checks that a re-import replaces nested collections and moves
// a subscription: nothing of the old version is left behind.
func TestImport_Replaces(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	base := dbtest.IDBase(t)
	importFileAt(t, db, importFixturePath, base)
	doc := `{"purchases":[{"id":1,"created_at":1,"updated_at":2,"storefront_id":10,"salt":"x","status":"ACT","currency":"EUR",
	"subtotal":"1.00","discount":"0.00","tax":"0.00","shipping":"0.00","total":"1.00","customer":null,"custom_fields":[],
	"requires_shipping":false,"line_items":[{"id":12,"purchase_id":1,"product_id":901,"price":"1.00","quantity":1,"subtotal":"1.00",
	"tax":"0.00","discount":"0.00","total":"1.00","product_name":"Sticker","download_limit":0,"download_count":0,"expires_at":null,
	"product_keys":["K"],"has_all_keys":true}],"coupons":[],"marketing_optin":false,"transactions":[]}],
	"subscribers":[{"id":101,"storefront_id":10,"created_at":1,"updated_at":1,"username":"x@example.com","subscription":{"id":5000,
	"status":"ACTIVE","price":"1.00","period":1,"unit":"M","tax_amount":"0.00","created_at":1,"updated_at":1}},
	{"id":100,"storefront_id":10,"created_at":1,"updated_at":1,"username":"anna@example.com","subscription":null}]}`
	if _, err := importer.Run(ctx, db, strings.NewReader(shiftImportIDs(doc, base)), nil); err != nil {
		t.Fatal(err)
	}
	p, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, base+1, base+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LineItems) != 1 || len(p.LineItems[0].ProductKeys) != 1 || len(p.Coupons) != 0 || len(p.Transactions) != 0 || len(p.CustomFields) != 0 || p.Customer != nil || p.SubscriberID != nil {
		t.Errorf("purchase 1 after re-import: got %+v", p)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM product_keys WHERE purchase_id = ?", base+1).Scan(&n); err != nil || n != 1 {
		t.Errorf("product keys of purchase 1: got %d, %v, want 1", n, err)
	}
	// Line item 12 moves to purchase 4 with its id; its old keys go with it.
	moved := strings.Replace(strings.Replace(importPurchaseJSON(4, ""), `"id":40,"purchase_id":4`, `"id":12,"purchase_id":4`, 1),
		`"product_keys":[]`, `"product_keys":["NEW"]`, 1)
	if _, err := importer.Run(ctx, db, strings.NewReader(shiftImportIDs(`{"purchases":[`+moved+`]}`, base)), nil); err != nil {
		t.Fatal(err)
	}
	p, err = mysql.NewPurchaseService(db).FindPurchaseByID(ctx, base+1, base+1)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LineItems) != 0 {
		t.Errorf("purchase 1 after its line item moved: got %+v, want no line items", p.LineItems)
	}
	p, err = mysql.NewPurchaseService(db).FindPurchaseByID(ctx, base+1, base+4)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.LineItems) != 1 || p.LineItems[0].ID != base+12 || strings.Join(p.LineItems[0].ProductKeys, ",") != "NEW" {
		t.Errorf("purchase 4: got line items %+v, want item 12 with key NEW", p.LineItems)
	}
	s, err := mysql.NewSubscriberService(db).FindSubscriberByID(ctx, base+1, base+10, base+100)
	if err != nil {
		t.Fatal(err)
	}
	if s.Subscription != nil {
		t.Errorf("subscriber 100: got subscription %+v, want none", s.Subscription)
	}
	s, err = mysql.NewSubscriberService(db).FindSubscriberByID(ctx, base+1, base+10, base+101)
	if err != nil {
		t.Fatal(err)
	}
	if s.Subscription == nil || s.Subscription.ID != base+5000 {
		t.Errorf("subscriber 101: got subscription %+v, want 5000", s.Subscription)
	}
}

// importPurchaseJSON returns a valid purchase of storefront 10 (EUR) with one line item.
func importPurchaseJSON(id int64, extra string) string {
	return fmt.Sprintf(`{"id":%d,"created_at":1700000000,"updated_at":1700000000,"storefront_id":10,"salt":"s","status":"ACT",`+
		`"currency":"EUR","subtotal":"10.00","discount":"0.00","tax":"0.00","shipping":"0.00","total":"10.00","customer":null,`+
		`"custom_fields":[],"requires_shipping":false,"line_items":[{"id":%d,"purchase_id":%d,"product_id":900,"price":"5.00",`+
		`"quantity":2,"subtotal":"10.00","tax":"0.00","discount":"0.00","total":"10.00","product_name":"P","download_limit":0,`+
		`"download_count":0,"expires_at":null,"product_keys":[],"has_all_keys":true}],"coupons":[],"marketing_optin":false,`+
		`"transactions":[]%s}`, id, id*10, id, extra)
}

func TestImport_Malformed(t *testing.T) {
	db := dbtest.New(t)
	base := dbtest.IDBase(t)
	importFileAt(t, db, importFixturePath, base)
	before := importChecksums(t, db)

	// Valid purchases that would be written (and, with a batch size of 2, flushed)
	// before the bad record at the end.
	valid := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, importPurchaseJSON(int64(1000+i), ""))
		}
		return strings.Join(parts, ",")
	}
	newAccount := `"accounts":[{"id":77,"name":"New","api_username":"new-account","timezone":"UTC"}],` +
		`"storefronts":[{"id":78,"account_id":77,"name":"New","download_limit":0,"download_days":0}],`
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"BadTotalAtEnd", `{` + newAccount + `"purchases":[` + valid(5) + `,` + strings.Replace(importPurchaseJSON(2000, ""), `"total":"10.00","customer"`, `"total":"11.00","customer"`, 1) + `]}`,
			[]string{fmt.Sprintf(`purchases[5] (id %d): total: "11.00" but subtotal + discount + tax + shipping is "10.00"`, base+2000)}},
		{"LineItemTotal", `{"purchases":[` + valid(3) + `,` + strings.Replace(importPurchaseJSON(2000, ""), `"discount":"0.00","total":"10.00","product_name"`, `"discount":"0.00","total":"12.00","product_name"`, 1) + `]}`,
			[]string{fmt.Sprintf(`purchases[3] (id %d): line_items[0].total: "12.00" but subtotal + tax + discount is "10.00"`, base+2000)}},
		{"Truncated", `{` + newAccount + `"purchases":[` + valid(3) + `,` + importPurchaseJSON(2000, "")[:100], []string{"purchases[3]", "ends early"}},
		{"TruncatedBetweenRecords", `{"purchases":[` + valid(3) + `,`, []string{"purchases[3]", "ends early"}},
		{"WrongType", `{"purchases":[` + valid(3) + `,` + strings.Replace(importPurchaseJSON(2000, ""), `"quantity":2`, `"quantity":"2"`, 1) + `]}`,
			[]string{fmt.Sprintf("purchases[3] (id %d): line_items[0].quantity: must be an integer, not string", base+2000)}},
		{"UnknownField", `{"purchases":[` + valid(3) + `,` + strings.Replace(importPurchaseJSON(2000, ""), `"has_all_keys":true`, `"has_all_keys":true,"colour":"red"`, 1) + `]}`,
			[]string{fmt.Sprintf(`purchases[3] (id %d): line_items[0].colour: unknown field`, base+2000)}},
		{"UnknownTopLevelField", `{"purchases":[` + valid(1) + `,` + importPurchaseJSON(2000, `,"extra":1`) + `]}`,
			[]string{fmt.Sprintf(`purchases[1] (id %d): extra: unknown field`, base+2000)}},
		{"CurrencyDigits", `{"purchases":[` + valid(3) + `,` + strings.Replace(importPurchaseJSON(2000, ""), `"shipping":"0.00"`, `"shipping":"0.0"`, 1) + `]}`,
			[]string{fmt.Sprintf(`purchases[3] (id %d): shipping: "0.0" must have exactly 2 decimal places`, base+2000)}},
		{"UnknownCurrency", `{"purchases":[` + strings.Replace(importPurchaseJSON(2000, ""), `"currency":"EUR"`, `"currency":"EURO"`, 1) + `]}`,
			[]string{fmt.Sprintf(`purchases[0] (id %d): currency: "EURO" is not an ISO 4217 currency code`, base+2000)}},
		{"UnknownSubscriber", `{"purchases":[` + valid(5) + `,` + importPurchaseJSON(2000, `,"subscriber_id":424242`) + `]}`,
			[]string{fmt.Sprintf(`purchases[5] (id %d): subscriber_id: subscriber %d does not exist`, base+2000, base+424242)}},
		{"UnknownStorefront", `{"subscribers":[{"id":5,"storefront_id":999,"created_at":1,"updated_at":1,"username":"u"}]}`,
			[]string{fmt.Sprintf(`subscribers[0] (id %d): storefront_id: storefront %d does not exist`, base+5, base+999)}},
		{"LowerCaseStatus", `{"purchases":[` + strings.Replace(importPurchaseJSON(2000, ""), `"status":"ACT"`, `"status":"act"`, 1) + `]}`,
			[]string{fmt.Sprintf(`purchases[0] (id %d): status: "act" is not a purchase status`, base+2000)}},
		{"MissingField", `{"purchases":[` + strings.Replace(importPurchaseJSON(2000, ""), `"salt":"s",`, ``, 1) + `]}`,
			[]string{fmt.Sprintf(`purchases[0] (id %d): salt: is required`, base+2000)}},
		{"SubscriptionStatus", `{"subscribers":[{"id":5,"storefront_id":10,"created_at":1,"updated_at":1,"username":"u","last_login_at":null,` +
			`"subscription":{"id":9,"status":"active","price":"1.00","period":1,"unit":"M","tax_amount":"0.00","created_at":1,"updated_at":1}}]}`,
			[]string{fmt.Sprintf(`subscribers[0] (id %d): subscription.status: "active" is not a subscription status`, base+5)}},
		{"UnknownTopLevelKey", `{"orders":[]}`, []string{`unknown top-level key "orders"`}},
		{"TrailingData", `{"purchases":[]} {}`, []string{"after the end of the document"}},
		{"NotAnArray", `{"purchases":{}}`, []string{"purchases: expected an array"}},
		{"BadTimezone", `{"accounts":[{"id":5,"name":"n","api_username":"u5","timezone":"Mars/Olympus"}]}`,
			[]string{fmt.Sprintf(`accounts[0] (id %d): timezone: "Mars/Olympus" is not an IANA time zone`, base+5)}},
		{"APIUsernameTaken", `{"accounts":[{"id":5,"name":"n","api_username":"ZOE-MUELLER","timezone":"UTC"}]}`,
			[]string{fmt.Sprintf(`accounts[0] (id %d): api_username: "%s" is already the API user name of account %d`, base+5, importAPIUsernameAt("ZOE-MUELLER", base), base+1)}},
		{"CustomerOfOtherAccount", `{"purchases":[` + strings.Replace(importPurchaseJSON(2000, ""), `"storefront_id":10`, `"storefront_id":12`, 1) + `]}`,
			[]string{`currency`}}, // storefront 12 is another account's; the EUR purchase is still valid: replaced below
	}
	// A customer of account 1 named by a purchase of the other account.
	tests[len(tests)-1].doc = `{"purchases":[` + strings.Replace(strings.Replace(importPurchaseJSON(2000, ""), `"storefront_id":10`, `"storefront_id":12`, 1),
		`"customer":null`, `"customer":{"id":700,"firstname":null,"lastname":null,"email":null,"receives_email":false,"created_at":1,"updated_at":1}`, 1) + `]}`
	tests[len(tests)-1].want = []string{fmt.Sprintf(`purchases[0] (id %d): customer.id: customer %d belongs to account %d`, base+2000, base+700, base+1)}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im := &importer.Importer{Store: db, BatchSize: 2}
			_, err := im.Run(context.Background(), strings.NewReader(shiftImportIDs(tt.doc, base)))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			if code := shop.ErrorCode(err); code != shop.EInvalid {
				t.Errorf("code: got %q (%v), want %q", code, err, shop.EInvalid)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error: got %q, want it to contain %q", err, w)
				}
			}
			if after := importChecksums(t, db); !reflect.DeepEqual(after, before) {
				t.Errorf("database changed: got %v, want %v", after, before)
			}
		})
	}
}

// writeImportDoc writes a document with one account, storefront and subscriber and n
// purchases with ids from first, each with three line items, two transactions, a
// coupon, a custom field and a customer; its ids are counted from base (as
// shiftImportIDs counts them): first is counted from it too.
func writeImportDoc(w io.Writer, base, first int64, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprint(bw, shiftImportIDs(`{"accounts":[{"id":1,"name":"Bench","api_username":"bench","timezone":"UTC"}],`+
		`"storefronts":[{"id":1,"account_id":1,"name":"Bench store","currency":"USD","download_limit":5,"download_days":30}],`+
		`"subscribers":[{"id":1,"storefront_id":1,"created_at":1700000000,"updated_at":1700000000,"username":"s@example.com","last_login_at":null,"subscription":null}],`+
		`"purchases":[`, base))
	for i := range int64(n) {
		id := first + i
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprintf(bw, `{"id":%d,"created_at":%d,"updated_at":%d,"storefront_id":%d,"salt":"%x","status":"ACT","currency":"USD",`+
			`"subtotal":"30.00","discount":"-1.00","tax":"2.40","shipping":"4.95","total":"36.35","processor_fee":"1.20",`+
			`"buyer_email":"buyer%d@example.com","buyer_firstname":"Zoë","buyer_lastname":"Müller",`+
			`"customer":{"id":%d,"firstname":"Zoë","lastname":"Müller","email":"buyer%d@example.com","receives_email":true,"created_at":1700000000,"updated_at":1700000000},`+
			`"customer_notes":null,"custom_fields":[{"label":"Gift","response":"yes"}],"shipping_firstname":"Zoë","shipping_lastname":"Müller",`+
			`"shipping_street":"Hauptstraße 1","shipping_street2":null,"shipping_city":"München","shipping_state":"BY","shipping_zip_code":"80331",`+
			`"shipping_country_code":"DE","shipping_country":"Germany","shipping_phone":null,"shipping_vatin":null,"shipping_business_name":null,`+
			`"shipping_carrier":"DHL","shipping_tracking_number":"JJD%d","requires_shipping":true,"tangibles_to_ship":1,`+
			`"billing_firstname":"Zoë","billing_lastname":"Müller","billing_street":"Hauptstraße 1","billing_street2":null,"billing_city":"München",`+
			`"billing_state":"BY","billing_zip_code":"80331","billing_country_code":"DE","billing_card_type":"Visa","billing_card_number":"************4242",`+
			`"line_items":[`, base+id, 1700000000+i, 1700000000+i, base+1, id, id, base+id%5000+1, id, id)
		for j := range int64(3) {
			if j > 0 {
				bw.WriteByte(',')
			}
			fmt.Fprintf(bw, `{"id":%d,"purchase_id":%d,"product_id":%d,"price":"10.00","quantity":1,"subtotal":"10.00","tax":"0.80",`+
				`"discount":"0.00","total":"10.80","product_name":"Product %d","download_limit":5,"download_count":0,"expires_at":1702592000,`+
				`"product_keys":["KEY-%d-%d"],"has_all_keys":true}`, base+id*3+j, base+id, base+j+1, j+1, id, j)
		}
		fmt.Fprintf(bw, `],"coupons":[{"name":"Ten","code":"TEN","discount_amount":"10","discount_type":"percent"}],"ip_address":"192.0.2.1",`+
			`"marketing_optin":false,"transactions":[{"id":%d,"purchase_id":%d,"action":"AuthorizeAndCapture","amount":"36.35","currency":"USD",`+
			`"gateway":"stripe","is_success":true,"reference":"ch_%d","message":"Approved","created_at":1700000000,"updated_at":1700000000},`+
			`{"id":%d,"purchase_id":%d,"action":"Refund","amount":"1.00","currency":"USD","gateway":"stripe","is_success":true,"reference":null,`+
			`"message":null,"created_at":1700000000,"updated_at":1700000000}],"subscriber_id":%s}`,
			base+id*2, base+id, id, base+id*2+1, base+id, map[bool]string{true: strconv.FormatInt(base+1, 10), false: "null"}[i%10 == 0])
	}
	fmt.Fprint(bw, `]}`)
	return bw.Flush()
}

// TestImport_Streaming imports a large document generated on the fly and checks that
// the heap stays bounded: the importer holds a batch, never the file.
func TestImport_Streaming(t *testing.T) {
	db := dbtest.New(t)
	base := dbtest.IDBase(t)
	const n = 20000
	pr, pw := io.Pipe()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var maxHeap uint64
	var written int64
	go func() {
		cw := &importCountingWriter{w: pw, every: 4 << 20, sample: func() {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			maxHeap = max(maxHeap, ms.HeapAlloc)
		}}
		err := writeImportDoc(cw, base, 1, n)
		written = cw.n
		pw.CloseWithError(err)
	}()
	stats, err := importer.Run(context.Background(), db, pr, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Purchases != n {
		t.Errorf("purchases: got %d, want %d", stats.Purchases, n)
	}
	var count int
	if err := db.QueryRow("SELECT COUNT(*) FROM line_items").Scan(&count); err != nil || count != 3*n {
		t.Errorf("line items: got %d, %v, want %d", count, err, 3*n)
	}
	grew := int64(maxHeap) - int64(before.HeapAlloc)
	t.Logf("document %d MB; heap before %d MB, peak %d MB; %s", written>>20, before.HeapAlloc>>20, maxHeap>>20, stats)
	if grew > 48<<20 {
		t.Errorf("heap grew by %d MB while importing a %d MB document; want under 48 MB", grew>>20, written>>20)
	}
}

// importCountingWriter counts bytes and calls sample every so many bytes.
type importCountingWriter struct {
	w      io.Writer
	n      int64
	next   int64
	every  int64
	sample func()
}

func (c *importCountingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	if c.n >= c.next {
		c.next = c.n + c.every
		c.sample()
	}
	return n, err
}

// timedStore measures how long the writer spends in the database.
type timedStore struct {
	db      *mysql.DB
	writing time.Duration
}

func (s *timedStore) BeginImport(ctx context.Context) (importer.Tx, error) {
	tx, err := s.db.BeginImport(ctx)
	return &timedTx{Tx: tx, s: s}, err
}

type timedTx struct {
	importer.Tx
	s *timedStore
}

func (t *timedTx) UpsertPurchases(ctx context.Context, b *importer.PurchaseBatch) error {
	start := time.Now()
	defer func() { t.s.writing += time.Since(start) }()
	return t.Tx.UpsertPurchases(ctx, b)
}

// BenchmarkImport measures the import rate of new purchases (each with three line
// items, three product keys, two transactions, a coupon, a custom field and a
// customer) into a fresh database per run, and the share of that time the writer
// spends in UpsertPurchases (the rest of the pipeline runs alongside it).
func BenchmarkImport(b *testing.B) {
	const n = 20000
	var total int
	var elapsed, writing time.Duration
	for b.Loop() {
		b.StopTimer()
		db := dbtest.New(b)
		var buf bytes.Buffer
		if err := writeImportDoc(&buf, dbtest.IDBase(b), 1, n); err != nil {
			b.Fatal(err)
		}
		store := &timedStore{db: db}
		b.StartTimer()
		start := time.Now()
		stats, err := importer.Run(context.Background(), store, &buf, nil)
		if err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		writing += store.writing
		total += stats.Purchases
	}
	b.ReportMetric(float64(total)/elapsed.Seconds(), "purchases/s")
	b.ReportMetric(writing.Seconds()/elapsed.Seconds(), "db-share")
}

// TestImport_CustomerAcrossBatches: a customer named by several batches of one import
// is written as the last of them gives it, and left alone by a batch that gives it as
// it is stored; the documents of its purchases follow (the import skips the upsert
// of a customer stored unchanged, and must not skip one that changed).
func TestImport_CustomerAcrossBatches(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	base := dbtest.IDBase(t)
	importFileAt(t, db, importFixturePath, base)
	withCustomer := func(id int64, email string) string {
		return strings.Replace(importPurchaseJSON(id, ""), `"customer":null`,
			`"customer":{"id":7700,"firstname":"Ada","lastname":"Byron","email":"`+email+`","receives_email":true,"created_at":1,"updated_at":2}`, 1)
	}
	emailOf := func() string {
		var email string
		if err := db.QueryRow("SELECT email FROM customers WHERE id = ?", base+7700).Scan(&email); err != nil {
			t.Fatal(err)
		}
		return email
	}
	// One purchase a batch: the second batch finds the customer as the first wrote it,
	// the third changes it, the fourth gives it as the third wrote it.
	doc := `{"purchases":[` + withCustomer(8001, "ada@example.com") + "," + withCustomer(8002, "ada@example.com") + "," +
		withCustomer(8003, "lovelace@example.com") + "," + withCustomer(8004, "lovelace@example.com") + `]}`
	im := &importer.Importer{Store: db, BatchSize: 1}
	if _, err := im.Run(ctx, strings.NewReader(shiftImportIDs(doc, base))); err != nil {
		t.Fatal(err)
	}
	if got := emailOf(); got != "lovelace@example.com" {
		t.Errorf("customer 7700's e-mail after the import: got %q, want %q", got, "lovelace@example.com")
	}
	checkDerived(t, db, "an import that changes a customer in a later batch")
	for _, id := range []int64{base + 8001, base + 8004} {
		p, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, base+1, id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Customer == nil || p.Customer.Email == nil || *p.Customer.Email != "lovelace@example.com" {
			t.Errorf("purchase %d: got customer %+v, want e-mail lovelace@example.com", id, p.Customer)
		}
	}
	// A later import that gives the customer back its first e-mail.
	if _, err := importer.Run(ctx, db, strings.NewReader(shiftImportIDs(`{"purchases":[`+withCustomer(8005, "ada@example.com")+`]}`, base)), nil); err != nil {
		t.Fatal(err)
	}
	if got := emailOf(); got != "ada@example.com" {
		t.Errorf("customer 7700's e-mail after a second import: got %q, want %q", got, "ada@example.com")
	}
	checkDerived(t, db, "a second import that changes the customer back")
}

// readsStore counts the rows and index entries each batch of an import reads.
type readsStore struct {
	db *mysql.DB
	// subscribers and lookups hold, for each UpsertSubscribers and each
	// LookupBatchRefs, the rows read and the subscribers written or named.
	subscribers, lookups [][2]int64
}

func (s *readsStore) BeginImport(ctx context.Context) (importer.Tx, error) {
	tx, err := s.db.BeginImport(ctx)
	return &readsTx{Tx: tx, s: s}, err
}

type readsTx struct {
	importer.Tx
	s *readsStore
}

// reads runs fn and returns the rows the transaction read meanwhile.
func (t *readsTx) reads(ctx context.Context, fn func() error) (int64, error) {
	before, err := mysql.ImportRowsRead(ctx, t.Tx)
	if err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		return 0, err
	}
	after, err := mysql.ImportRowsRead(ctx, t.Tx)
	return after - before, err
}

func (t *readsTx) UpsertSubscribers(ctx context.Context, subs []*shop.Subscriber) error {
	n, err := t.reads(ctx, func() error { return t.Tx.UpsertSubscribers(ctx, subs) })
	t.s.subscribers = append(t.s.subscribers, [2]int64{n, int64(len(subs))})
	return err
}

func (t *readsTx) LookupBatchRefs(ctx context.Context, b *importer.PurchaseBatch, subscriberIDs []int64) (*importer.BatchRefs, error) {
	var refs *importer.BatchRefs
	n, err := t.reads(ctx, func() (err error) {
		refs, err = t.Tx.LookupBatchRefs(ctx, b, subscriberIDs)
		return err
	})
	t.s.lookups = append(t.s.lookups, [2]int64{n, int64(len(subscriberIDs))})
	return refs, err
}

// TestImport_ReadsPerBatch imports, into a fresh database, 10,000 subscribers of one
// account's two storefronts, then purchases that name them, and counts the rows each
// batch reads: a batch reads its own rows, not every subscriber written before it.
// The statistics of a fresh database's tables are those of empty tables until the
// import commits, and when MariaDB chose the order of a join of subscribers and
// storefronts from them, it started from the storefronts and read each one's
// subscribers; the import then slowed down as it went.
func TestImport_ReadsPerBatch(t *testing.T) {
	if dbtest.Vitess() {
		// Through a vtgate the session's counters are whichever tablet's answers.
		t.Skip("counts the rows the database server read (its session status), which a vtgate does not report")
	}
	db := dbtest.New(t)
	base := dbtest.IDBase(t)
	const subscribers, purchases = 10000, 1000
	var doc bytes.Buffer
	doc.WriteString(`{"accounts":[{"id":1,"name":"Reads","api_username":"reads","timezone":"Europe/Berlin"}],` +
		`"storefronts":[{"id":1,"account_id":1,"name":"One","currency":"EUR","download_limit":0,"download_days":0},` +
		`{"id":2,"account_id":1,"name":"Two","currency":"EUR","download_limit":0,"download_days":0}],"subscribers":[`)
	for id := 1; id <= subscribers; id++ {
		if id > 1 {
			doc.WriteByte(',')
		}
		// Each subscriber has a subscription in service, so that its term is written.
		at := 1700000000 + id*60
		fmt.Fprintf(&doc, `{"id":%d,"storefront_id":%d,"created_at":%d,"updated_at":%d,"username":"s%d@example.com","last_login_at":null,`+
			`"subscription":{"id":%d,"status":"ACTIVE","price":"3.00","period":1,"unit":"M","tax_amount":"0.00","trial_price":null,"trial_period":null,`+
			`"trial_unit":null,"trial_tax_amount":null,"created_at":%d,"updated_at":%d,"started_at":%d,"ended_at":null,"trial_started_at":null,`+
			`"last_payment_at":%d,"next_payment_at":%d}}`, id, 1+id%2, at, at, id, id, at, at, at, at, at+30*86400)
	}
	doc.WriteString(`],"purchases":[`)
	for i := 1; i <= purchases; i++ {
		if i > 1 {
			doc.WriteByte(',')
		}
		doc.WriteString(strings.Replace(importPurchaseJSON(int64(i), fmt.Sprintf(`,"subscriber_id":%d`, subscribers+1-i)), `"storefront_id":10`, `"storefront_id":1`, 1))
	}
	doc.WriteString(`]}`)
	store := &readsStore{db: db}
	// 500 of each a batch: 20 batches of subscribers, 2 of purchases.
	im := &importer.Importer{Store: store, BatchSize: 500}
	stats, err := im.Run(context.Background(), strings.NewReader(shiftImportIDs(doc.String(), base)))
	if err != nil {
		t.Fatal(err)
	}
	if stats.Subscribers != subscribers || stats.Purchases != purchases {
		t.Fatalf("imported %s, want %d subscribers and %d purchases", stats, subscribers, purchases)
	}
	if len(store.subscribers) < 10 || len(store.lookups) < 2 {
		t.Fatalf("got %d batches of subscribers and %d of purchases, want at least 10 and 2", len(store.subscribers), len(store.lookups))
	}
	// Each subscriber of a batch is read a few times by id (its row and its account,
	// before and after; its subscription; its term; its row and subscription again for
	// the status copied onto its row, and that row updated), whatever the number before
	// it.
	// The first batches are left out: while a table holds a few thousand rows, its
	// estimated size (which InnoDB counts as rows are inserted) is still small
	// enough that MariaDB may read the whole of it instead of the batch's ids.
	const perSubscriber = 15
	for i, b := range store.subscribers {
		if i >= len(store.subscribers)/2 && b[0] > perSubscriber*b[1] {
			t.Errorf("batch %d of subscribers read %d rows for %d subscribers, want at most %d each (%d subscribers were written before it)",
				i+1, b[0], b[1], perSubscriber, int64(i)*b[1])
		}
	}
	// The lookup of a batch of purchases reads a few rows of each purchase and each
	// of the subscribers it names.
	const perPurchase = 12
	for i, b := range store.lookups {
		if b[0] > perPurchase*b[1] {
			t.Errorf("lookup of batch %d of purchases read %d rows for %d subscribers, want at most %d each", i+1, b[0], b[1], perPurchase)
		}
	}
	t.Logf("rows read by the batches of subscribers (rows, subscribers): %v; by the lookups of purchases: %v", store.subscribers, store.lookups)
}
