package mysql_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/search"
	"storefront/internal/seed"
	"storefront/internal/shop"
	"storefront/internal/sqlrows"
)

// prefixValues are buyer names and e-mails chosen where a prefix path could answer
// otherwise than LIKE: letter case, accents precomposed and combining, ß and ss,
// dotted and dotless i, characters outside the Basic Multilingual Plane, spaces,
// invisible characters, the LIKE wildcards and the escape character as literal text,
// values shorter than three characters, the empty string and NULL.
var prefixValues = []*string{
	ptr("Zoë"), ptr("zoe"), ptr("ZOE"), ptr("Zoé"), ptr("Zoe "), ptr("Émile"), ptr("emile"), ptr("Eléonore"),
	ptr("Ærøskøbing"), ptr("aerobic"), ptr("ß-strasse"), ptr("ss"), ptr("Straße"), ptr("Strasse"), ptr("STRASSE"),
	ptr("李小龍"), ptr("李"), ptr("😀smile"), ptr("😀"), ptr("😁x"), ptr("a%b"), ptr("a_b"), ptr(`a\b`), ptr("ab"),
	ptr("a b"), ptr("a  b"), ptr(" a"), ptr("a"), ptr("A"), ptr("İstanbul"), ptr("istanbul"), ptr("ıstanbul"),
	ptr("ŞAHİN"), ptr("Şahin"), ptr("sahin"), ptr("o'brien"), ptr("O’Brien"), ptr("ǅemal"), ptr("džemal"),
	ptr("a\u200bb"), ptr("a\u00adb"), ptr("abc"), ptr("ab\u0301c"), ptr("Ångström"), ptr("angstrom"),
	ptr("Ａｂｃ"), ptr("x"), ptr("xy"), ptr("xyz"), ptr("xyzw"), ptr("xyzwv"), ptr("XYZWV"), ptr("xÿzwv"),
	ptr("100%"), ptr("_under"), ptr("%pct"), ptr(""), nil,
}

func ptr(s string) *string { return &s }

// TestPrefixPaths_MatchLike imports purchases with the values above in e-mail, first
// and last name, and checks, for prefixes drawn from them with their letter case and
// accents changed and for random ones, that the prefix filter's ordered path in
// purchase_prefixes (and, as a control, the list order walked with the LIKE on the
// rows) answers exactly the purchases that plain SQL's LIKE finds, in list order, both
// ways, a few at a time by cursor; that the API's read path does too; and that a prefix
// with a storefront, read from the prefix rows alone, does as well.
func TestPrefixPaths_MatchLike(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importPrefixValues(t, db)

	// The prefixes: every leading 1 to 5 characters of every value, in upper and lower
	// case and without accents, the wildcards alone, and random strings.
	seen := map[string]bool{}
	var prefixes []string
	add := func(s string) {
		if strings.TrimSpace(s) != "" && utf8.ValidString(s) && !seen[s] {
			seen[s] = true
			prefixes = append(prefixes, s)
		}
	}
	for _, v := range prefixValues {
		if v == nil {
			continue
		}
		runes := []rune(*v)
		for n := 1; n <= 5 && n <= len(runes); n++ {
			s := string(runes[:n])
			add(s)
			add(strings.ToUpper(s))
			add(strings.ToLower(s))
			add(strings.NewReplacer("ë", "e", "é", "e", "É", "E", "ø", "o", "Å", "A", "ö", "o", "Ş", "S", "İ", "I").Replace(s))
		}
	}
	for _, s := range []string{"%", "_", `\`, "a%", "a_", `a\`, "%p", "_u", "10", "100%", " ", "z", "E", "é", "ss", "ß", "SS", "😀", "😀s", "李小"} {
		add(s)
	}
	r := rand.New(rand.NewPCG(12, 1))
	alphabet := []rune("aAbeéEÉsSßiIİı%_\\ 😀李xyz")
	for range 60 {
		runes := make([]rune, 1+r.IntN(5))
		for i := range runes {
			runes[i] = alphabet[r.IntN(len(alphabet))]
		}
		add(string(runes))
	}

	fields := []struct {
		column, ordered string
		set             func(*shop.PurchaseFilter, string)
	}{
		{"buyer_email", "email prefix", func(f *shop.PurchaseFilter, s string) { f.EmailPrefix = s }},
		{"buyer_firstname", "first-name prefix", func(f *shop.PurchaseFilter, s string) { f.FirstPrefix = s }},
		{"buyer_lastname", "last-name prefix", func(f *shop.PurchaseFilter, s string) { f.LastPrefix = s }},
	}
	matched := 0
	for _, fd := range fields {
		for _, prefix := range prefixes {
			for _, desc := range []bool{true, false} {
				order := "ASC"
				if desc {
					order = "DESC"
				}
				want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND "+fd.column+" LIKE ? ORDER BY created_at "+order+", id "+order,
					likeLiteral(prefix)+"%")
				matched += len(want)
				f := shop.PurchaseFilter{AccountID: 1, Desc: desc}
				fd.set(&f, prefix)
				for _, path := range []string{fd.ordered, "list"} {
					got, err := db.PathIDs(ctx, f, path, 4)
					if err != nil {
						t.Fatalf("%s %q on %s: %v", fd.column, prefix, path, err)
					}
					if !slices.Equal(got, want) {
						t.Errorf("%s LIKE %q %s on %s: got %v, want %v", fd.column, prefix, order, path, got, want)
					}
				}
				f.PerPage = 100
				page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				var got []int64
				for _, p := range page.Purchases {
					got = append(got, p.ID)
				}
				if want := want[:min(len(want), 100)]; !slices.Equal(got, want) {
					t.Errorf("FindPurchases %s LIKE %q %s: got %v, want %v", fd.column, prefix, order, got, want)
				}
			}
		}
	}
	// Two prefixes at once: one leads, the other is checked on the purchases' rows.
	for range 80 {
		first, last := prefixes[r.IntN(len(prefixes))], prefixes[r.IntN(len(prefixes))]
		want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND buyer_firstname LIKE ? AND buyer_lastname LIKE ? ORDER BY created_at DESC, id DESC",
			likeLiteral(first)+"%", likeLiteral(last)+"%")
		f := shop.PurchaseFilter{AccountID: 1, Desc: true, FirstPrefix: first, LastPrefix: last}
		for _, path := range []string{"first-name prefix", "last-name prefix"} {
			got, err := db.PathIDs(ctx, f, path, 3)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("first %q and last %q on %s: got %v, want %v", first, last, path, got, want)
			}
		}
	}
	// One letter of each name: the initials' range, each entry's prefix checked by LIKE,
	// for letters that differ from the values' in case and accents and for random ones.
	var letters []string
	for _, v := range prefixValues {
		if v != nil && *v != "" {
			r, _ := utf8.DecodeRuneInString(*v)
			letters = append(letters, string(r), strings.ToUpper(string(r)), strings.ToLower(string(r)))
		}
	}
	letters = append(letters, "e", "E", "é", "s", "ß", "i", "İ", "ı", "%", "_", "\\", " ", "\u200b")
	for range 60 {
		first, last := letters[r.IntN(len(letters))], letters[r.IntN(len(letters))]
		want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND buyer_firstname LIKE ? AND buyer_lastname LIKE ? ORDER BY created_at DESC, id DESC",
			likeLiteral(first)+"%", likeLiteral(last)+"%")
		f := shop.PurchaseFilter{AccountID: 1, Desc: true, FirstPrefix: first, LastPrefix: last}
		got, err := db.PathIDs(ctx, f, "initials prefix", 7)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("first %q and last %q on the initials: got %v, want %v", first, last, got, want)
		}
	}
	// A prefix in one storefront: the storefront is checked on the prefix rows.
	for _, prefix := range prefixes[:40] {
		want := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 AND storefront_id = 10 AND buyer_lastname LIKE ? ORDER BY created_at DESC, id DESC",
			likeLiteral(prefix)+"%")
		got, err := db.PathIDs(ctx, shop.PurchaseFilter{AccountID: 1, Desc: true, LastPrefix: prefix, StorefrontID: 10}, "last-name prefix", 5)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("last %q in storefront 10: got %v, want %v", prefix, got, want)
		}
	}
	// The check must have had something to find.
	if matched < 1000 {
		t.Errorf("the prefixes matched %d purchases in all; the test data do not exercise the paths", matched)
	}
}

// importPrefixValues imports the fixture and purchases 1001.. of account 1, each value
// of prefixValues in each field in turn, some of them created at the same second so
// that the list order's tie on id is exercised.
func importPrefixValues(t *testing.T, db *mysql.DB) {
	t.Helper()
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	fx := readImportFixture(t)
	var purchases []any
	id := 1001
	for i := range prefixValues {
		for shift := 0; shift < 3; shift++ {
			p := importObject(t, fx.Purchases[3]) // purchase 4: storefront 10, no customer, no items
			p["id"] = id
			p["transactions"] = []any{}
			p["salt"] = fmt.Sprintf("prefix%d", id)
			p["created_at"] = 1700100000 + (id/2)*60
			p["buyer_email"] = jsonValue(prefixValues[i], "@example.com")
			p["buyer_firstname"] = jsonValue(prefixValues[(i+shift+1)%len(prefixValues)], "")
			p["buyer_lastname"] = jsonValue(prefixValues[(i+2*shift+2)%len(prefixValues)], "")
			purchases = append(purchases, p)
			id++
		}
	}
	doc, err := json.Marshal(map[string]any{"purchases": purchases})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Run(ctx, db, strings.NewReader(string(doc)), nil); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "the import of the prefix values")
}

// TestStorePrefixes_SameRows writes the prefix rows of purchases with the values above
// and the domain e-mails below from the purchases as read (StorePrefixes, the seeder's
// way) and checks that they are byte for byte those the database derives from their
// rows (LEFT and SUBSTRING_INDEX on utf8mb4).
func TestStorePrefixes_SameRows(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importPrefixValues(t, db)
	importDomainEmails(t, db)
	var ids []int64
	for id := int64(1001); id < 1001+3*int64(len(prefixValues)); id++ {
		ids = append(ids, id)
	}
	for id := int64(2001); id < 2001+2*int64(len(domainEmails)); id++ {
		ids = append(ids, id)
	}
	last := ids[len(ids)-1]
	read := func() []string {
		return dbtest.Query(t, db.DB, func(rows *sql.Rows) (string, error) {
			var s string
			err := rows.Scan(&s)
			return s, err
		}, `SELECT CONCAT_WS('|', account_id, field, prefix_len, HEX(prefix), created_at, purchase_id, HEX(value), storefront_id, status)
			FROM purchase_prefixes WHERE purchase_id BETWEEN 1001 AND ? ORDER BY 1`, last)
	}
	want := read()
	if len(want) < 3*len(prefixValues) {
		t.Fatalf("the import wrote %d prefix rows", len(want))
	}
	page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, shop.PurchaseFilter{AccountID: 1, IDs: ids, PerPage: shop.MaxPerPage})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Purchases) != len(ids) {
		t.Fatalf("read %d purchases, want %d", len(page.Purchases), len(ids))
	}
	if _, err := db.Exec("DELETE FROM purchase_prefixes WHERE purchase_id BETWEEN 1001 AND ?", last); err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := mysql.StorePrefixes(ctx, tx, 1, page.Purchases); err != nil {
		_ = tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got, want) {
		for _, g := range got {
			if !slices.Contains(want, g) {
				t.Errorf("extra row %s", g)
			}
		}
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("missing row %s", w)
			}
		}
	}
	checkDerived(t, db, "StorePrefixes")
}

// TestPrefixPaths_Backfill deletes prefix rows and has migration 00033's backfill
// write them again, and migration 00131's the domains' rows.
func TestPrefixPaths_Backfill(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	for _, step := range []struct {
		what, deleted string
		backfill      func(context.Context) error
	}{
		{"the domains' backfill", "field = 5", db.BackfillDomains},
		{"the backfill", "purchase_id = 1 OR field = 3", db.BackfillPrefixes},
	} {
		dbtest.MustExec(t, db.DB, "DELETE FROM purchase_prefixes WHERE "+step.deleted)
		if bad, _ := db.DerivedMismatches(ctx); len(bad) == 0 {
			t.Fatalf("no mismatch after deleting the prefix rows of %s", step.deleted)
		}
		if err := step.backfill(ctx); err != nil {
			t.Fatal(err)
		}
		checkDerived(t, db, step.what)
	}
	if err := mysql.RebuildDerived(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "a rebuild")
}

// TestPrefixProductsFill_ProbesByPurchase checks the plan of the fill of the prefix rows'
// products (RebuildDerived, migration 00221): each row's purchase looked up in
// purchase_products by its key, no table read whole for each row of another. Its
// first form, a join with the grouped products, scanned the account's prefix rows for
// each purchase: 64 s at 4,000 purchases. And the migration sends the same statement.
func TestPrefixProductsFill_ProbesByPurchase(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 300, Subscribers: 10, Seed: 6}, nil); err != nil {
		t.Fatal(err)
	}
	dbtest.MustExec(t, db.DB, "ANALYZE TABLE purchase_prefixes, purchase_products")
	plan, err := mysql.Explain(ctx, db, mysql.PrefixProductsFill)
	if err != nil {
		t.Fatal(err)
	}
	probed := false
	for _, r := range plan {
		if strings.HasPrefix(r["table"], "<derived") {
			t.Errorf("the fill reads a derived table: %v", r)
		}
		if r["table"] == "pp" {
			probed = r["type"] == "ref" && r["key"] == "purchase_products_purchase"
		}
	}
	if !probed {
		t.Errorf("the fill does not look each row's products up by purchase_products_purchase; plan %v", plan)
	}

	// Migration 00221 fills the column the same way.
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	fills := migrationFills(t)["00221_purchase_prefixes_products.sql"]
	if len(fills) != 1 || words(fills[0]) != words(mysql.PrefixProductsFill) {
		t.Errorf("migration 00221 does not fill the products with the statement RebuildDerived sends: %q", fills)
	}
}

// jsonValue is a buyer field of an imported purchase: null, or the value with suffix.
func jsonValue(v *string, suffix string) any {
	if v == nil {
		return nil
	}
	return *v + suffix
}

// likeLiteral escapes LIKE's wildcards and escape character in s.
func likeLiteral(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// naiveIDs runs a query selecting purchase ids.
func naiveIDs(t *testing.T, db *mysql.DB, query string, args ...any) []int64 {
	t.Helper()
	var out []int64
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// domainEmails are buyer e-mails chosen where the domain's path could answer otherwise
// than the text after the e-mail's last "@": letter case and accents, two "@", a
// full-width "＠" (which the collation's LIKE takes for "@"), blanks around the domain,
// the LIKE wildcards and the escape character, an empty domain, no "@", and domains
// longer than the 63 characters a row holds, two of them alike in those 63.
var domainEmails = func() []*string {
	long := strings.Repeat("a", 60)
	out := []*string{
		ptr("ann@acme.io"), ptr("bob@ACME.IO"), ptr("cé@Acme.Io"), ptr("x@y@acme.io"), ptr("acme.io@other.org"),
		ptr("a＠acme.io"), ptr("b@x＠acme.io"), ptr("c@acme.io "), ptr("d@ acme.io"), ptr("e@acmé.io"),
		ptr("f@ac_e.io"), ptr("g@ac%e.io"), ptr(`i@ac\e.io`), ptr("h@acxe.io"), ptr("j@"), ptr("noat"), ptr(""), nil,
		ptr("k@" + long + ".example.org"), ptr("l@" + long + ".example.net"), ptr("m@" + strings.ToUpper(long) + ".EXAMPLE.ORG"),
		ptr("n@sub.acme.io"), ptr("o@acme.io.evil"), ptr("p@ACME.io"), ptr("q@李.cn"), ptr("r@😀.io"),
	}
	return out
}()

// importDomainEmails imports purchases 2001.. of account 1, two of each of the e-mails
// above, some created at the same second.
func importDomainEmails(t *testing.T, db *mysql.DB) {
	t.Helper()
	fx := readImportFixture(t)
	var purchases []any
	for i, e := range domainEmails {
		for shift := range 2 {
			id := int64(2001 + 2*i + shift)
			p := importObject(t, fx.Purchases[3])
			p["id"] = id
			p["transactions"] = []any{}
			p["salt"] = fmt.Sprintf("domain%d", id)
			p["created_at"] = 1700100000 + (id/3)*60
			p["buyer_email"] = jsonValue(e, "")
			purchases = append(purchases, p)
		}
	}
	doc, err := json.Marshal(map[string]any{"purchases": purchases})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := importer.Run(context.Background(), db, strings.NewReader(string(doc)), nil); err != nil {
		t.Fatal(err)
	}
	checkDerived(t, db, "the import of the domain e-mails")
}

// domainMatch is the meaning of domain:d for an e-mail (search.Cond.MatchPurchase): the
// text after its last "@" equals d, ignoring case and accents.
func domainMatch(email *string, d string) bool {
	if email == nil {
		return false
	}
	i := strings.LastIndexByte(*email, '@')
	return i >= 0 && search.EqualFold((*email)[i+1:], d)
}

// TestDomainPath_Match imports purchases with the e-mails above and checks, for every
// domain they hold (in upper and lower case, and shortened or lengthened), that the
// domain's ordered path (purchase_prefixes, field 5), the list order walked with the
// domain checked on the rows, and the API's read path all answer, in list order both
// ways and a few at a time by cursor, exactly the purchases whose e-mail's text after
// its last "@" is the domain; with a storefront and with a prefix of the e-mail too.
func TestDomainPath_Match(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	importDomainEmails(t, db)

	seen := map[string]bool{}
	var domains []string
	for _, e := range domainEmails {
		if e == nil || !strings.Contains(*e, "@") {
			continue
		}
		d := (*e)[strings.LastIndexByte(*e, '@')+1:]
		for _, v := range []string{d, strings.ToUpper(d), strings.ToLower(d), strings.TrimSpace(d), d + "x", strings.TrimSuffix(d, "o")} {
			if v != "" && !seen[v] {
				seen[v] = true
				domains = append(domains, v)
			}
		}
	}
	domains = append(domains, "acme", "_", "%", "ac__.io", "acme.io@", "y@acme.io")
	all := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 ORDER BY created_at, id")
	emails := map[int64]*string{}
	rows, err := db.Query("SELECT id, buyer_email FROM purchases WHERE account_id = 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var e sql.NullString
		if err := rows.Scan(&id, &e); err != nil {
			t.Fatal(err)
		}
		if e.Valid {
			emails[id] = &e.String
		}
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, d := range domains {
		var want []int64
		for _, id := range all {
			if domainMatch(emails[id], d) {
				want = append(want, id)
			}
		}
		matched += len(want)
		for _, desc := range []bool{true, false} {
			if desc {
				slices.Reverse(want)
			}
			f := shop.PurchaseFilter{AccountID: 1, Desc: desc, Domain: d}
			for _, path := range []string{"domain", "list"} {
				got, err := db.PathIDs(ctx, f, path, 3)
				if err != nil {
					t.Fatalf("domain %q on %s: %v", d, path, err)
				}
				if !slices.Equal(got, want) {
					t.Errorf("domain %q (desc %v) on %s: got %v, want %v", d, desc, path, got, want)
				}
			}
			f.PerPage = 100
			page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, p := range page.Purchases {
				got = append(got, p.ID)
			}
			if !slices.Equal(got, want) {
				t.Errorf("FindPurchases domain %q (desc %v): got %v, want %v", d, desc, got, want)
			}
			if desc {
				slices.Reverse(want)
			}
		}
	}
	// A domain in one storefront (checked on the row), and with an e-mail prefix (which
	// leads, the domain probed on its own row), newest first.
	for _, d := range domains[:12] {
		for _, f := range []shop.PurchaseFilter{
			{AccountID: 1, Desc: true, Domain: d, StorefrontID: 10},
			{AccountID: 1, Desc: true, Domain: d, EmailPrefix: "a"},
		} {
			var want []int64
			for i := len(all) - 1; i >= 0; i-- {
				id := all[i]
				e := emails[id]
				if domainMatch(e, d) && (f.EmailPrefix == "" || search.HasPrefixFold(*e, f.EmailPrefix)) {
					want = append(want, id)
				}
			}
			path := "domain"
			if f.EmailPrefix != "" {
				path = "email prefix"
			}
			got, err := db.PathIDs(ctx, f, path, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%+v on %s: got %v, want %v", f, path, got, want)
			}
		}
	}
	if matched < 40 {
		t.Errorf("the domains matched %d purchases in all; the test data do not exercise the path", matched)
	}
}

// TestFindDomains imports the e-mails above and checks the domains the search box
// offers for a prefix against the e-mails themselves: the domains whose first 63
// characters (what a domain row holds) start with the prefix as LIKE reads it, one of
// each set that the collation holds equal, in its order, each whole, up to the limit.
func TestFindDomains(t *testing.T) {
	db := dbtest.New(t)
	ctx := context.Background()
	importFile(t, db, importFixturePath)
	importDomainEmails(t, db)
	emails, err := sqlrows.Collect(ctx, db, sqlrows.Value[string], "SELECT buyer_email FROM purchases WHERE account_id = 1 AND buyer_email IS NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	var domains []string
	for _, e := range emails {
		if i := strings.LastIndexByte(e, '@'); i >= 0 && i+1 < len(e) {
			domains = append(domains, e[i+1:])
		}
	}
	// held is what a domain row holds of d; key its weight, as ORDER BY and "=" compare
	// it (trailing blanks aside).
	held := func(d string) string {
		if r := []rune(d); len(r) > 63 {
			return string(r[:63])
		}
		return d
	}
	key := func(d string) string { return string(search.WeightString(strings.TrimRight(held(d), " "))) }
	accounts := mysql.NewAccountService(db)
	checked := 0
	for _, prefix := range []string{"", "a", "AC", "acme", "acme.io", "acme.io.", "ac_", "ac%", `ac\`, "acé", "ÁCX", "李", "😀", "x", "zz",
		strings.Repeat("a", 60), strings.Repeat("A", 61) + ".e", strings.Repeat("a", 64)} {
		groups := map[string][]string{}
		for _, d := range domains {
			if search.HasPrefixFold(held(d), prefix) {
				groups[key(d)] = append(groups[key(d)], d)
			}
		}
		keys := slices.Sorted(maps.Keys(groups))
		for _, limit := range []int{3, 100} {
			got, err := accounts.FindDomains(ctx, 1, prefix, limit)
			if err != nil {
				t.Fatalf("%q: %v", prefix, err)
			}
			want := keys[:min(limit, len(keys))]
			if len(got) != len(want) {
				t.Errorf("%q, limit %d: got %q, want one of each of %q", prefix, limit, got, want)
				continue
			}
			for i, d := range got {
				if !slices.Contains(groups[want[i]], d) {
					t.Errorf("%q, limit %d: domain %d is %q, want one of %q", prefix, limit, i, d, groups[want[i]])
				}
			}
			checked += len(got)
		}
	}
	if checked < 30 {
		t.Errorf("%d domains offered in all: the test data do not exercise the suggestions", checked)
	}
	if got, err := accounts.FindDomains(ctx, 2, "", 8); err != nil || len(got) != 0 {
		t.Errorf("another account's domains: got %q, %v, want none", got, err)
	}
}
