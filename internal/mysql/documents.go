package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// Every purchase is also stored as the JSON document the API answers for it
// (purchase_documents), written in the same transaction as every change to the
// purchase or its collections: import, seed, reactivation and refulfilment. A page of
// the API is then its ids, read in order from the plan's index, and one primary-key
// read of their documents, sent as stored.

// purchaseDocument is the document of a purchase: exactly what GET /purchases/{id}
// answers, without the final newline.
func purchaseDocument(p *shop.Purchase) ([]byte, error) {
	return json.Marshal(p)
}

// documentBatch bounds the purchases read back or written in one statement.
const documentBatch = statementRows

// storeDocuments writes the documents of the given purchases of one account.
func storeDocuments(ctx context.Context, q queryer, accountID int64, ps []*shop.Purchase) error {
	ids := make([]int64, len(ps))
	docs := make([][]byte, len(ps))
	for i, p := range ps {
		doc, err := purchaseDocument(p)
		if err != nil {
			return fmt.Errorf("document of purchase %d: %w", p.ID, err)
		}
		ids[i], docs[i] = p.ID, doc
	}
	return putDocuments(ctx, q, accountID, ids, docs)
}

// putDocuments writes documents of an account's purchases (docs[i] is that of ids[i]),
// documentBatch a statement. A full statement goes prepared (execRows), with the
// documents as bytes, which the server neither scans nor unescapes as it does a text
// statement's literals: on 100,000 seeded documents its work fell from ~4.9 s to ~2.7 s
// of CPU.
func putDocuments(ctx context.Context, q queryer, accountID int64, ids []int64, docs [][]byte) error {
	for start := 0; start < len(ids); start += documentBatch {
		n := min(documentBatch, len(ids)-start)
		args := make([]any, 0, 3*n)
		for i := start; i < start+n; i++ {
			args = append(args, accountID, ids[i], docs[i])
		}
		query := "INSERT INTO purchase_documents (account_id, purchase_id, document) VALUES " +
			rowPlaceholders(n, 3) + " ON DUPLICATE KEY UPDATE document = VALUES(document)"
		if err := execRows(ctx, q, query, n, args); err != nil {
			return err
		}
	}
	return nil
}

// writeDocuments rebuilds the stored documents of the given purchases of an account
// from their rows, as the transaction q sees them.
func writeDocuments(ctx context.Context, q queryer, accountID int64, ids []int64) error {
	for start := 0; start < len(ids); start += documentBatch {
		part := ids[start:min(start+documentBatch, len(ids))]
		page, err := readPurchases(ctx, q, &shop.PurchasePage{}, accountID, part, len(part))
		if err != nil {
			return err
		}
		if err := storeDocuments(ctx, q, accountID, page.Purchases); err != nil {
			return err
		}
	}
	return nil
}

// StoreDocuments writes the stored documents of the given purchases of an account,
// inside tx, from the purchases as given rather than from their rows: for writers
// outside this package (the seeder) that have just written those rows in tx and hold
// each purchase exactly as the read path would read it back (every collection
// non-nil, in the read path's order; money in the currency's digits; times in whole
// seconds).
func StoreDocuments(ctx context.Context, sqlTx *sql.Tx, accountID int64, ps []*shop.Purchase) error {
	tx := &Tx{Tx: sqlTx} // the seed's transaction queues no background work
	return storeDocuments(ctx, tx, accountID, ps)
}

// documentPageQuery builds the one statement of a page of documents on the path: the
// account's purchases version and, when counted, the size of the filtered set (both in
// one row of their own, so that an empty page answers them too), then the page's n+1
// ids with their creation times (the cursor of the next page) in list order, each with
// its stored document (NULL when missing). One statement reads one snapshot: the
// version, the count and the page agree.
func documentPageQuery(f shop.PurchaseFilter, n int, pl plan) (string, []any, error) {
	ids, idArgs, err := purchaseListQuery(f, n, pl)
	if err != nil {
		return "", nil, err
	}
	head := pageHead(f, pl)
	if idsLead(f, pl) {
		headSQL, headArgs, err := headQuery(f, pl)
		if err != nil {
			return "", nil, err
		}
		cols := "v.version, v.total, t.id, t.created_at, d.document"
		if pl.optimistic {
			cols += ", t.m"
		}
		return "SELECT " + cols + " FROM (" + ids + ") t" +
				" LEFT JOIN purchase_documents d ON d.account_id = ? AND d.purchase_id = t.id CROSS JOIN (" + headSQL + ") v",
			append(append(idArgs, f.AccountID), headArgs...), nil
	}
	return sq.Select("v.version", "v.total", "t.id", "t.created_at", "d.document").FromSelect(head, "v").
		LeftJoin("("+ids+") t ON TRUE", idArgs...).
		LeftJoin("purchase_documents d ON d.account_id = ? AND d.purchase_id = t.id", f.AccountID).ToSql()
}

// idsLead reports whether a page's statement reads its ids first and joins the head's
// one row to each (documentPageQuery), so that an empty page has no row and headQuery
// answers for it: when the ids come from a UNION of ranges, or are checked with a
// search's subqueries or with correlated probes of a path table (a product with another
// path, a second prefix), which Vitess's planner cannot join ON TRUE to the head (it
// would need a hash join: "can't use [true] with hash joins").
func idsLead(f shop.PurchaseFilter, pl plan) bool {
	return pl.path == pathTotalBands || pl.path == pathUnion || len(f.Where) > 0 || planSelect(f, pl.path).probes
}

// pageHead is the one row of a page's head: the account's purchases version and, when
// counted, the size of the filtered set (-1 when not).
func pageHead(f shop.PurchaseFilter, pl plan) sq.SelectBuilder {
	head := sq.Select().Column(sq.Expr("("+versionQuery+") AS version", f.AccountID))
	if f.IncludeCount {
		count, args, err := countQuery(f, pl, 0)
		if err != nil {
			return head.Column(errSqlizer{err})
		}
		head = head.Column(sq.Expr("("+count+") AS total", args...))
	} else {
		head = head.Column("-1 AS total")
	}
	return head
}

// headQuery builds the statement of pageHead alone: the one row of an empty page whose
// ids lead (documentPageQuery), which has no row then. The head is a derived table, as
// in the page's statement: its count's correlated probes as a scalar subquery of a
// statement without a table are a shape Vitess's planner sends to every shard. It is
// joined to the account's row: a derived table without a table of its own is a
// "reference" route to vtgate, sent to any one shard, which need not hold the account
// (an empty page answered version 0 through a real vtgate); the account's row makes it
// one route to the account's shard.
func headQuery(f shop.PurchaseFilter, pl plan) (string, []any, error) {
	head, args, err := pageHead(f, pl).ToSql()
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf(headOfAccount, head), append(args, f.AccountID), nil
}

// headOfAccount is headQuery's statement; its argument is the head's.
const headOfAccount = "SELECT v.version, v.total FROM accounts a JOIN (%s) v WHERE a.id = ?"

// documentQuery builds the statement of one purchase's document: a primary-key read,
// with the account's purchases version as a scalar subquery in the same row (half the
// cost, in MariaDB, of a one-row derived table joined to the document). No row: the
// purchase has no document, or does not exist.
func documentQuery(accountID, id int64) (string, []any, error) {
	return sq.Select("d.document").Column(sq.Expr("(SELECT v.version FROM purchase_versions v WHERE v.account_id = ?) AS version", accountID)).
		From("purchase_documents d").Where(sq.And{sq.Eq{"d.account_id": accountID}, sq.Eq{"d.purchase_id": id}}).ToSql()
}

// FindPurchaseDocuments implements shop.PurchaseService: one statement after the plan's
// counts (when its rule needs them). The documents are copied from the driver's buffer
// straight into buf, framed as the JSON array the API answers.
func (s *PurchaseService) FindPurchaseDocuments(ctx context.Context, f shop.PurchaseFilter, buf []byte) (*shop.DocumentPage, error) {
	db := s.db
	return findDocumentPage(ctx, db.DB, db.bandEdges(), f, buf)
}

// docEntry is one purchase of a page being read: its cursor, and where its document
// lies in the buffer (off == end when it had none).
type docEntry struct {
	c        shop.Cursor
	off, end int
	missing  bool
}

// before reports whether a comes before b in the list order.
func before(a, b shop.Cursor, desc bool) bool {
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt) != desc
	}
	return (a.ID < b.ID) != desc
}

func findDocumentPage(ctx context.Context, q queryer, edges *bandEdges, f shop.PurchaseFilter, buf []byte) (*shop.DocumentPage, error) {
	f, err := lookUpNamed(ctx, q, f)
	if err != nil {
		return nil, err
	}
	var pl plan
	if edges != nil && bandable(f) {
		pl, err = edges.plan(ctx, q, f)
	} else {
		pl, err = planPurchases(ctx, q, f)
	}
	if err != nil {
		return nil, err
	}
	page, marks, err := readDocumentPage(ctx, q, f, pl, buf)
	if err != nil {
		return nil, err
	}
	if edges != nil {
		edges.seen(f, pl, page.Version)
	}
	if pl.optimistic && page.Version != pl.edge.version {
		// The purchases changed since the edge was read: the page is read again on
		// the edge as it is now (bandEdges).
		if pl, err = edges.fresh(ctx, q, f); err != nil {
			return nil, err
		}
		page, marks, err = readDocumentPage(ctx, q, f, pl, buf)
		if err != nil {
			return nil, err
		}
	}
	if !pl.optimistic {
		return page, nil
	}
	if edges != nil {
		edges.read(f, pl, marks)
	}
	if !pl.complete(marks) {
		// The page reached the end of the own band's walk, or of a band read up to
		// a limit (bandsListQuery): count the own band's matches, and read every band
		// up to the page's end.
		if pl, err = planSliver(ctx, q, f, pl.bands); err != nil {
			return nil, err
		}
		page, _, err = readDocumentPage(ctx, q, f, pl, buf)
	}
	return page, err
}

// readDocumentPage reads a page on the plan (documentPageQuery) into buf; on an
// optimistic plan marks counts its rows by their mark (bandsListQuery: 0 the own
// band's sentinel, 1 the own band's matches, 2+i the i-th band's rows), by which the
// page is known to be complete (plan.complete) or not to be answered.
func readDocumentPage(ctx context.Context, q queryer, f shop.PurchaseFilter, path plan, buf []byte) (_ *shop.DocumentPage, marks []int, _ error) {
	n := perPage(f.PerPage)
	query, args, err := documentPageQuery(f, n, path)
	if err != nil {
		return nil, nil, err
	}
	page := &shop.DocumentPage{Total: -1}
	start := len(buf)
	buf = append(buf, '[')
	entries := make([]docEntry, 0, n+1)
	inOrder, missing, rowless := true, false, true
	var (
		id  sql.NullInt64
		at  sql.NullTime
		doc sql.RawBytes  // the driver's buffer, valid until the next row
		m   sql.NullInt64 // an optimistic plan's mark: 0 for its sentinel
	)
	dest := []any{&page.Version, &page.Total, &id, &at, &doc}
	if path.optimistic {
		dest = append(dest, &m)
	}
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		rowless = false
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if !id.Valid {
			return nil // the one row of an empty page
		}
		if m.Valid {
			for int(m.Int64) >= len(marks) {
				marks = append(marks, 0)
			}
			marks[m.Int64]++
			if m.Int64 == 0 {
				return nil // the sentinel: not a row of the page
			}
		}
		e := docEntry{c: shop.Cursor{CreatedAt: at.Time, ID: id.Int64}, missing: doc == nil}
		if k := len(entries); k > 0 {
			inOrder = inOrder && before(entries[k-1].c, e.c, f.Desc)
			buf = append(buf, ',')
		}
		e.off = len(buf)
		buf = append(buf, doc...)
		e.end = len(buf)
		missing = missing || e.missing
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if rowless { // an empty page of a statement whose ids lead (documentPageQuery)
		query, args, err := headQuery(f, path)
		if err != nil {
			return nil, nil, err
		}
		if err := q.QueryRowContext(ctx, query, args...).Scan(&page.Version, &page.Total); err != nil {
			return nil, nil, translate(err)
		}
	}
	if len(entries) > n {
		page.Next = &entries[n-1].c
	}
	if inOrder && !missing {
		// The rows came in list order (they do: the ids are joined in the order they
		// were selected) and every document was there: buf is the page.
		if len(entries) > n {
			buf = buf[:entries[n-1].end]
		}
		page.Body = append(buf, ']', '\n')[start:]
		return page, marks, nil
	}
	page.Body, err = assemblePage(ctx, q, f.AccountID, f.Desc, entries[:min(n, len(entries))], buf, start)
	return page, marks, err
}

// assemblePage builds a page whose rows came out of order or lacked documents: the
// entries sorted in list order, and a document built from its rows (the one read path)
// for each purchase that had none (written before the documents existed and not yet
// filled).
func assemblePage(ctx context.Context, q queryer, accountID int64, desc bool, entries []docEntry, buf []byte, start int) ([]byte, error) {
	slices.SortFunc(entries, func(a, b docEntry) int {
		if before(a.c, b.c, desc) {
			return -1
		}
		return 1
	})
	built := map[int64][]byte{}
	var ids []int64
	for _, e := range entries {
		if e.missing {
			ids = append(ids, e.c.ID)
		}
	}
	if len(ids) > 0 {
		slog.Warn("purchase documents missing; built from rows", "account", accountID, "purchases", len(ids))
		page, err := readPurchases(ctx, q, &shop.PurchasePage{}, accountID, ids, len(ids))
		if err != nil {
			return nil, err
		}
		for _, p := range page.Purchases {
			if built[p.ID], err = purchaseDocument(p); err != nil {
				return nil, err
			}
		}
	}
	out := make([]byte, 0, len(buf)-start+64)
	out = append(out, '[')
	for i, e := range entries {
		if i > 0 {
			out = append(out, ',')
		}
		if e.missing {
			out = append(out, built[e.c.ID]...)
		} else {
			out = append(out, buf[e.off:e.end]...)
		}
	}
	return append(out, ']', '\n'), nil
}

// FindPurchaseDocument implements shop.PurchaseService: one statement, the document
// copied from the driver's buffer into buf.
func (s *PurchaseService) FindPurchaseDocument(ctx context.Context, accountID, id int64, buf []byte) ([]byte, int64, error) {
	db := s.db
	query, args, err := documentQuery(accountID, id)
	if err != nil {
		return nil, 0, err
	}
	var version sql.NullInt64 // NULL: the account was never written (version 0)
	found := false
	start := len(buf)
	err = eachRow(ctx, db.DB, query, args, func(rows *sql.Rows) error {
		var doc sql.RawBytes
		if err := rows.Scan(&doc, &version); err != nil {
			return err
		}
		found = true
		buf = append(buf, doc...)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if found {
		return buf[start:], version.Int64, nil
	}
	// No document: no such purchase, or one whose document was not filled yet. The
	// version is read first, so that the rows read after it are at least as new.
	v, err := db.purchasesVersion(ctx, accountID)
	if err != nil {
		return nil, 0, err
	}
	page, err := readPurchases(ctx, db.DB, &shop.PurchasePage{}, accountID, []int64{id}, 1)
	if err != nil {
		return nil, 0, err
	}
	if len(page.Purchases) == 0 {
		return nil, 0, shop.Errorf(shop.ENotFound, "Purchase %d was not found.", id)
	}
	slog.Warn("purchase documents missing; built from rows", "account", accountID, "purchases", 1)
	doc, err := purchaseDocument(page.Purchases[0])
	if err != nil {
		return nil, 0, err
	}
	return append(buf, doc...)[start:], v, nil
}

// BackfillDocuments writes the documents of every purchase that has none, a batch at a
// time in transactions of their own, and returns how many it wrote. `migrate` runs it
// once after the table is made; it is safe to run again and to interrupt.
func (db *DB) BackfillDocuments(ctx context.Context) (int, error) {
	return backfillDocuments(ctx, db.DB)
}

func backfillDocuments(ctx context.Context, sqlDB *sql.DB) (int, error) {
	written := 0
	var afterID int64
	for {
		type ref struct{ account, id int64 }
		var refs []ref
		err := eachRow(ctx, sqlDB, `SELECT p.account_id, p.id FROM purchases p
			LEFT JOIN purchase_documents d ON d.account_id = p.account_id AND d.purchase_id = p.id
			WHERE p.id > ? AND d.purchase_id IS NULL ORDER BY p.id LIMIT 2000`, []any{afterID}, func(rows *sql.Rows) error {
			var r ref
			if err := rows.Scan(&r.account, &r.id); err != nil {
				return err
			}
			refs = append(refs, r)
			return nil
		})
		if err != nil || len(refs) == 0 {
			return written, err
		}
		byAccount := map[int64][]int64{}
		for _, r := range refs {
			byAccount[r.account] = append(byAccount[r.account], r.id)
		}
		tx, err := sqlDB.BeginTx(ctx, nil)
		if err != nil {
			return written, translate(err)
		}
		accounts := make([]int64, 0, len(byAccount))
		for account, ids := range byAccount {
			if err := writeDocuments(ctx, tx, account, ids); err != nil {
				_ = tx.Rollback()
				return written, err
			}
			accounts = append(accounts, account)
		}
		if err := bumpPurchaseVersions(ctx, tx, accounts...); err != nil {
			_ = tx.Rollback()
			return written, err
		}
		if err := tx.Commit(); err != nil {
			return written, translate(err)
		}
		written += len(refs)
		afterID = refs[len(refs)-1].id
	}
}

// RebuildDerived rebuilds, for every account, what is derived from the purchases' rows:
// the product filter's path (purchase_products), the prefix filters' paths
// (purchase_prefixes), the marks' paths (purchase_pairs), the stored documents and the rollups. For repairs
// after rows were changed by hand, and for tests that change them directly.
func RebuildDerived(ctx context.Context, sqlDB *sql.DB) error {
	for _, q := range []string{
		"DELETE FROM purchase_products",
		`INSERT IGNORE INTO purchase_products (account_id, product_id, created_at, purchase_id, email_initial, first_initial, last_initial)
			SELECT p.account_id, li.product_id, p.created_at, p.id,
				LEFT(p.buyer_email, 1), LEFT(p.buyer_firstname, 1), LEFT(p.buyer_lastname, 1) FROM purchases p
			JOIN line_items li ON li.account_id = p.account_id AND li.purchase_id = p.id`,
		"DELETE FROM purchase_documents",
		"DELETE FROM purchase_prefixes",
		"DELETE FROM purchase_pairs",
	} {
		if _, err := sqlDB.ExecContext(ctx, q); err != nil {
			return translate(err)
		}
	}
	if err := backfillPrefixes(ctx, sqlDB); err != nil {
		return err
	}
	for _, fill := range []string{prefixProductsFill, prefixStatusFill} {
		if _, err := sqlDB.ExecContext(ctx, fill); err != nil {
			return translate(err)
		}
	}
	if err := backfillPairs(ctx, sqlDB); err != nil {
		return err
	}
	if _, err := backfillDocuments(ctx, sqlDB); err != nil {
		return err
	}
	if _, err := RebuildRollups(ctx, sqlDB); err != nil {
		return err
	}
	// Rows changed by hand are seen by the API's validated answers from here on.
	_, err := sqlDB.ExecContext(ctx, `INSERT INTO purchase_versions (account_id, version) SELECT id, 1 FROM accounts
		ON DUPLICATE KEY UPDATE version = purchase_versions.version + 1`)
	return translate(err)
}
