package mysql

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// The prefix filters' ordered paths (purchase_prefixes, db/README.md "Plans"): each
// purchase has one row per field and prefix length of 1 to maxPrefixLen characters
// that its value has, keyed (account_id, field, prefix_len, prefix, created_at,
// purchase_id), with the whole value beside the key. The rows are derived from the
// purchase's row by the database itself (prefixRowsInsert), so that "a character" and
// the prefix's bytes are MariaDB's, written in the transaction that writes the row.
// Beside the key each row holds what a filter with a prefix checks on the entry itself
// rather than on the purchase's row: the storefront, the status (migration 00222) and,
// on rows of productsHeld characters or more, the products.

// prefixField numbers the fields that have prefix paths, as stored in
// purchase_prefixes.field.
type prefixField int

const (
	prefixEmail prefixField = 1
	prefixFirst prefixField = 2
	prefixLast  prefixField = 3
	// prefixInitials holds one row per purchase with both names: its prefix is the
	// first name's first character followed by the last name's, of length 2, for a
	// filter of one letter of each (the densest combination there is: walking one
	// letter's range and probing the other's passed over eight entries a match).
	prefixInitials prefixField = 4
	// prefixDomain holds one row per purchase whose e-mail has an "@": its prefix is
	// the e-mail's domain (the text after its last "@"), at most maxDomainLen
	// characters of it, at prefix_len 0, with the whole e-mail as its value.
	prefixDomain prefixField = 5
)

// maxPrefixLen is the longest prefix with rows of its own. A longer filter walks the
// range of its first maxPrefixLen characters and checks the whole prefix on each entry.
const maxPrefixLen = 3

// maxDomainLen is the longest domain a domain row holds whole (the column's width, the
// longest label DNS allows). A longer domain's row holds its first maxDomainLen
// characters; its filter walks that range and checks the whole domain on each entry.
const maxDomainLen = 63

// prefixKinds is a derived table of every (field, prefix_len) pair; initialsKinds of
// the initials' alone (the backfill of migration 00103), domainKinds of the domain's
// (00131).
var (
	prefixKinds = func() string {
		var parts []string
		for f := prefixEmail; f <= prefixLast; f++ {
			for n := 1; n <= maxPrefixLen; n++ {
				parts = append(parts, fmt.Sprintf("SELECT %d AS field, %d AS prefix_len", f, n))
			}
		}
		parts = append(parts, fmt.Sprintf("SELECT %d AS field, 2 AS prefix_len", prefixInitials),
			fmt.Sprintf("SELECT %d AS field, 0 AS prefix_len", prefixDomain))
		return "(" + strings.Join(parts, " UNION ALL ") + ")"
	}()
	initialsKinds = fmt.Sprintf("(SELECT %d AS field, 2 AS prefix_len)", prefixInitials)
	domainKinds   = fmt.Sprintf("(SELECT %d AS field, 0 AS prefix_len)", prefixDomain)
)

// prefixValue is the purchases column of the field k.field, for a join of purchases p
// with prefixKinds k; the initials' row keeps no value (its filter checks its prefix),
// the domain's the e-mail.
const prefixValue = "CASE k.field WHEN 1 THEN p.buyer_email WHEN 2 THEN p.buyer_firstname WHEN 3 THEN p.buyer_lastname WHEN 5 THEN p.buyer_email ELSE '' END"

// domainOf is the domain of the e-mail in col: the text after its last "@"
// (SUBSTRING_INDEX finds the "@" byte for byte, as strings.LastIndexByte does; the
// collation's LIKE would take a full-width "＠" for one).
func domainOf(col string) string { return "SUBSTRING_INDEX(" + col + ", '@', -1)" }

// hasDomain is the condition that the e-mail in col has an "@": its domain is shorter
// than the whole (NULL, false, for a missing e-mail).
func hasDomain(col string) string {
	return "CHAR_LENGTH(" + domainOf(col) + ") < CHAR_LENGTH(" + col + ")"
}

// prefixOf is the prefix of the row of kind k: the value's first k.prefix_len
// characters, for the initials the first name's first character and the last name's,
// and for the domain its first maxDomainLen characters.
var prefixOf = "CASE k.field WHEN 4 THEN CONCAT(LEFT(p.buyer_firstname, 1), LEFT(p.buyer_lastname, 1)) " +
	"WHEN 5 THEN LEFT(" + domainOf("p.buyer_email") + ", " + strconv.Itoa(maxDomainLen) + ") " +
	"ELSE LEFT(" + prefixValue + ", k.prefix_len) END"

// prefixHas tells whether a purchase has a row of kind k: a value of at least
// k.prefix_len characters (no LIKE pattern of as many literal characters matches a
// shorter one), for the initials both names of at least one, for the domain an e-mail
// with an "@".
var prefixHas = "CASE k.field WHEN 4 THEN CHAR_LENGTH(p.buyer_firstname) >= 1 AND CHAR_LENGTH(p.buyer_lastname) >= 1 " +
	"WHEN 5 THEN " + hasDomain("p.buyer_email") + " ELSE CHAR_LENGTH(" + prefixValue + ") >= k.prefix_len END"

// prefixRowsInsert writes the prefix rows of purchases p of one account: the format's
// arguments are the kinds (prefixKinds), the IN list of ids, "" or " IGNORE",
// prefixOf, prefixValue and prefixHas.
const prefixRowsInsert = `INSERT%[3]s INTO purchase_prefixes (account_id, field, prefix_len, prefix, created_at, purchase_id, value, storefront_id)
	SELECT p.account_id, k.field, k.prefix_len, %[4]s, p.created_at, p.id, %[5]s, p.storefront_id
	FROM purchases p JOIN %[1]s k ON %[6]s WHERE p.account_id = ? AND p.id IN %[2]s`

// prefixRowsDelete deletes the prefix rows of purchases p of one account, found by
// the keys their rows give: the format's arguments are the kinds, the IN list of ids
// and prefixOf.
const prefixRowsDelete = `DELETE x FROM purchases p JOIN %[1]s k JOIN purchase_prefixes x
	ON x.account_id = p.account_id AND x.field = k.field AND x.prefix_len = k.prefix_len
	AND x.prefix = %[3]s AND x.created_at = p.created_at AND x.purchase_id = p.id
	WHERE p.account_id = ? AND p.id IN %[2]s`

// prefixBatch bounds the purchases whose prefix rows (or pairs' rows) one statement
// writes or deletes.
const prefixBatch = 5000

// execBatches runs the statement that query makes of an IN list of purchase ids, for
// the given purchases of an account, a batch of them at a time; its arguments are the
// account and the batch's ids, lists times over. what names the rows, for errors.
func execBatches(ctx context.Context, q queryer, what string, accountID int64, ids []int64, lists int, query func(list string) string) error {
	for start := 0; start < len(ids); start += prefixBatch {
		list, args := inList(ids[start:min(start+prefixBatch, len(ids))])
		all := make([]any, 0, lists*(len(args)+1))
		for range lists {
			all = append(append(all, accountID), args...)
		}
		if _, err := q.ExecContext(ctx, query(list), all...); err != nil {
			return fmt.Errorf("%s: %w", what, translate(err))
		}
	}
	return nil
}

// insertPrefixes writes the prefix rows of the given kinds of the given purchases;
// with ignore " IGNORE", rows that exist are kept.
func insertPrefixes(ctx context.Context, q queryer, kinds, ignore string, accountID int64, ids []int64) error {
	return execBatches(ctx, q, "write prefix rows", accountID, ids, 1, func(list string) string {
		return fmt.Sprintf(prefixRowsInsert, kinds, list, ignore, prefixOf, prefixValue, prefixHas)
	})
}

// prefixTable derives prefix rows from purchases (prefixRows). The import writes the
// prefix rows of its purchases so too, from the purchases at hand. (It once derived
// them from the rows it had written, with prefixRowsInsert: vtgate sends that
// INSERT … SELECT, a join with a derived table of constants, to the shard with k.field
// left as a bind variable it never fills, "missing bind var k_field".)
var prefixTable = derivedRows[prefixRow]{
	insert: rowsInsert{"INSERT INTO purchase_prefixes (account_id, field, prefix_len, prefix, created_at, purchase_id, value, storefront_id, products, status)", 10, "prefix rows"},
	of:     prefixRows,
}

// prefixRow is one row of purchase_prefixes within an account; order is its prefix in
// lower case, to sort by.
type prefixRow struct {
	field, n             int
	prefix, value, order string
	at                   time.Time
	id, storefront       int64
	products             any // productList, on the rows that hold it (productsHeld)
	status               shop.PurchaseStatus
}

// compare orders prefix rows as the table's key does, near enough (the collation's
// order taken as lower case).
func (a prefixRow) compare(b prefixRow) int {
	if a.field != b.field {
		return cmp.Compare(a.field, b.field)
	}
	if a.n != b.n {
		return cmp.Compare(a.n, b.n)
	}
	if c := strings.Compare(a.order, b.order); c != 0 {
		return c
	}
	return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.id, b.id))
}

// appendValues appends the row's values, in prefixTable's columns, to args.
func (r prefixRow) appendValues(args []any, accountID int64) []any {
	return append(args, accountID, r.field, r.n, r.prefix, r.at, r.id, r.value, r.storefront, r.products, string(r.status))
}

// prefixRows appends the prefix rows of a purchase to rows, as prefixRowsInsert derives
// them from its row: for each of e-mail, first and last name, one row per length n of
// 1 to maxPrefixLen that the value has, its first n characters (LEFT counts the
// characters of utf8mb4: the runes of valid UTF-8) with the whole value; with both
// names the initials' row, without a value; and with an "@" in the e-mail the domain's
// row, with the e-mail. A missing value (NULL) has no rows. Every row holds the
// purchase's storefront and status.
func prefixRows(rows []prefixRow, p *shop.Purchase) []prefixRow {
	at := p.CreatedAt.UTC()
	var products any
	for i, v := range []*string{p.BuyerEmail, p.BuyerFirstname, p.BuyerLastname} {
		if v == nil {
			continue
		}
		cut := 0
		for n := 1; n <= maxPrefixLen && cut < len(*v); n++ {
			_, size := utf8.DecodeRuneInString((*v)[cut:])
			cut += size
			prefix := (*v)[:cut]
			r := prefixRow{field: int(prefixEmail) + i, n: n, prefix: prefix, value: *v, order: strings.ToLower(prefix),
				at: at, id: p.ID, storefront: p.StorefrontID, status: p.Status}
			if n >= productsHeld {
				if products == nil {
					products = productList(p)
				}
				r.products = products
			}
			rows = append(rows, r)
		}
	}
	if f, l := firstRune(p.BuyerFirstname), firstRune(p.BuyerLastname); f != "" && l != "" {
		rows = append(rows, prefixRow{field: int(prefixInitials), n: 2, prefix: f + l, order: strings.ToLower(f + l),
			at: at, id: p.ID, storefront: p.StorefrontID, status: p.Status})
	}
	if e := p.BuyerEmail; e != nil {
		if i := strings.LastIndexByte(*e, '@'); i >= 0 {
			d := firstRunes((*e)[i+1:], maxDomainLen)
			rows = append(rows, prefixRow{field: int(prefixDomain), n: 0, prefix: d, value: *e, order: strings.ToLower(d),
				at: at, id: p.ID, storefront: p.StorefrontID, status: p.Status})
		}
	}
	return rows
}

// productsHeld is the shortest prefix whose rows hold the purchase's products: a
// product with a prefix of one character reads the product's path and checks the
// character there (purchase_products' initials); with a longer one, the prefix's path,
// and checks the product on the entry.
const productsHeld = 2

// productList is the products column of a purchase's prefix rows: its products' ids,
// ascending, comma-separated, as fillPrefixProducts writes them; NULL without one.
func productList(p *shop.Purchase) any {
	ids := productIDs(p)
	if len(ids) == 0 {
		return nil
	}
	b := make([]byte, 0, 8*len(ids))
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, id, 10)
	}
	return string(b)
}

// productIDs returns the ids of the products a purchase holds, ascending, each once: the
// rows purchase_products has for it.
func productIDs(p *shop.Purchase) []int64 {
	ids := make([]int64, 0, len(p.LineItems))
	for _, li := range p.LineItems {
		ids = append(ids, li.ProductID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// prefixProductsFill writes the products column of every prefix row that holds it, from
// purchase_products (migration 00221 is the same statement): after the rows are derived
// by prefixRowsInsert, which leaves it NULL, as the migrations before the column do.
// Each row looks up its purchase's products by purchase_products_purchase, so the fill
// is linear in the rows. A join with the grouped products as a derived table, its first
// form, was read derived table first, and each purchase then scanned every prefix row
// of its account (the join's only usable key part): 0.62 s at 400 purchases, 64 s at
// 4,000 (against 0.04 and 0.17 s), so that the migration would not have ended on a
// merchant's database of any size (TestPrefixProductsFill_ProbesByPurchase).
const prefixProductsFill = `UPDATE purchase_prefixes x SET x.products = (
	SELECT GROUP_CONCAT(pp.product_id ORDER BY pp.product_id SEPARATOR ',')
	FROM purchase_products pp WHERE pp.account_id = x.account_id AND pp.purchase_id = x.purchase_id
)
WHERE x.field IN (1, 2, 3) AND x.prefix_len >= 2`

// prefixStatusFill writes the status column of every prefix row from its purchase's row
// (migration 00222 is the same statement): after the rows are derived by
// prefixRowsInsert, which leaves it NULL, as the migrations before the column do. Each
// row looks up its purchase by its primary key, so the fill is linear in the rows.
const prefixStatusFill = `UPDATE purchase_prefixes x SET x.status = (
	SELECT p.status FROM purchases p WHERE p.account_id = x.account_id AND p.id = x.purchase_id
)`

// setPrefixStatus sets the status held by the prefix rows of one purchase, as its row
// has it after a change of status (a reactivation): the rows are those prefixRows makes
// of the purchase's e-mail, names and creation time, updated by the primary key itself
// (named: planned by statistics that had the table nearly empty, an UPDATE may walk and
// lock every row of the account), one statement on one table, which Vitess sends to the
// account's shard.
func setPrefixStatus(ctx context.Context, q queryer, accountID int64, p *shop.Purchase) error {
	rows := prefixRows(nil, p)
	if len(rows) == 0 {
		return nil
	}
	args := make([]any, 0, 2+5*len(rows))
	args = append(args, string(p.Status), accountID)
	for _, r := range rows {
		args = append(args, r.field, r.n, r.prefix, r.at, r.id)
	}
	query := "UPDATE purchase_prefixes FORCE INDEX (PRIMARY) SET status = ? WHERE account_id = ? AND " +
		"(field, prefix_len, prefix, created_at, purchase_id) IN (" + rowPlaceholders(len(rows), 5) + ")"
	if _, err := q.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("prefix rows' status: %w", translate(err))
	}
	return nil
}

// firstRunes returns the first n characters of s (all of it when shorter), as LEFT
// counts them.
func firstRunes(s string, n int) string {
	cut := 0
	for i := 0; i < n && cut < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[cut:])
		cut += size
	}
	return s[:cut]
}

// firstRune returns the first character of *s, "" for nil or "".
func firstRune(s *string) string {
	if s == nil || *s == "" {
		return ""
	}
	_, size := utf8.DecodeRuneInString(*s)
	return (*s)[:size]
}

// deletePrefixes deletes the prefix rows of the given purchases of an account, found
// by their keys as the purchases' current rows give them: it runs before the rows
// change.
func deletePrefixes(ctx context.Context, q queryer, accountID int64, ids []int64) error {
	return execBatches(ctx, q, "delete prefix rows", accountID, ids, 1, func(list string) string {
		return fmt.Sprintf(prefixRowsDelete, prefixKinds, list, prefixOf)
	})
}

// backfillPrefixes writes the prefix rows of every purchase, a batch at a time in
// transactions of their own (migration 00033). Rows that exist are kept, so it is safe
// to run again and to interrupt.
func backfillPrefixes(ctx context.Context, sqlDB *sql.DB) error {
	return backfillPrefixKinds(ctx, sqlDB, prefixKinds)
}

// backfillInitials writes the initials' rows of every purchase (migration 00103), as
// backfillPrefixes does every row.
func backfillInitials(ctx context.Context, sqlDB *sql.DB) error {
	return backfillPrefixKinds(ctx, sqlDB, initialsKinds)
}

// backfillDomains writes the domain's rows of every purchase (migration 00131), as
// backfillPrefixes does every row.
func backfillDomains(ctx context.Context, sqlDB *sql.DB) error {
	return backfillPrefixKinds(ctx, sqlDB, domainKinds)
}

// backfillPrefixKinds writes the prefix rows of the given kinds of every purchase.
func backfillPrefixKinds(ctx context.Context, sqlDB *sql.DB, kinds string) error {
	return eachPurchaseBatch(ctx, sqlDB, func(ctx context.Context, tx *sql.Tx, account int64, ids []int64) error {
		return insertPrefixes(ctx, tx, kinds, " IGNORE", account, ids)
	})
}

// prefixPath is the ordered path of one prefix filter: the range of its first
// characters (at most maxPrefixLen) in purchase_prefixes, on which the filter's own
// LIKE is checked against the stored value; or of a domain filter: the range of its
// first maxDomainLen characters, on which the stored e-mail's domain is checked.
type prefixPath struct {
	field  prefixField
	length int
	prefix string
	like   string
}

// newPrefixPath returns the path of a prefix (or domain) filter's text.
func newPrefixPath(field prefixField, text string) prefixPath {
	if field == prefixDomain {
		return prefixPath{field: field, length: 0, prefix: firstRunes(text, maxDomainLen), like: escapeLike(text)}
	}
	n := min(utf8.RuneCountInString(text), maxPrefixLen)
	return prefixPath{field: field, length: n, prefix: firstRunes(text, n), like: escapeLike(text) + "%"}
}

// check is the filter's own LIKE on the value stored in the purchase_prefixes row of
// alias a: the prefix on the value, the domain on the stored e-mail's domain.
func (pp prefixPath) check(a string) sq.Sqlizer {
	value := a + ".value"
	if pp.field == prefixDomain {
		value = domainOf(value)
	}
	return sq.Expr(value+" LIKE ?", pp.like)
}

// domainCondition is a domain filter's condition on the e-mail column col of a
// purchase's row: it has an "@", and the text after its last one is the domain, as
// LIKE compares (character by character, ignoring case and accents, no wildcards).
func domainCondition(col, domain string) sq.Sqlizer {
	return sq.Expr(hasDomain(col)+" AND "+domainOf(col)+" LIKE ?", escapeLike(domain))
}

// Initial is the first character of a purchase's column as purchase_products keeps it
// beside each entry (email_initial, first_initial, last_initial): LEFT(col, 1), NULL
// for NULL.
func Initial(s *string) any {
	if s == nil {
		return nil
	}
	return firstRune(s)
}

// initialColumns names the column of purchase_products that holds each prefix field's
// first character.
var initialColumns = map[prefixField]string{prefixEmail: "email_initial", prefixFirst: "first_initial", prefixLast: "last_initial"}

// prefixFilters returns the prefix filters of f with their fields, longest first (the
// longer a prefix, the fewer purchases it usually matches), then e-mail, last name,
// first name; and after them the domain filter, whose path is read the same way.
func prefixFilters(f shop.PurchaseFilter) []struct {
	field prefixField
	text  string
} {
	type pf = struct {
		field prefixField
		text  string
	}
	var out []pf
	for _, c := range []pf{{prefixEmail, f.EmailPrefix}, {prefixLast, f.LastPrefix}, {prefixFirst, f.FirstPrefix}} {
		if c.text != "" {
			out = append(out, c)
		}
	}
	// Stable insertion sort by length, longest first: at most three entries.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && utf8.RuneCountInString(out[j].text) > utf8.RuneCountInString(out[j-1].text); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	if f.Domain != "" {
		out = append(out, pf{prefixDomain, f.Domain})
	}
	return out
}
