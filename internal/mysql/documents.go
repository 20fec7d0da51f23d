package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"

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
const documentBatch = 500

// storeDocuments writes the documents of the given purchases of one account.
func storeDocuments(ctx context.Context, q queryer, accountID int64, ps []*shop.Purchase) error {
	for start := 0; start < len(ps); start += documentBatch {
		part := ps[start:min(start+documentBatch, len(ps))]
		args := make([]any, 0, 3*len(part))
		for _, p := range part {
			doc, err := purchaseDocument(p)
			if err != nil {
				return fmt.Errorf("document of purchase %d: %w", p.ID, err)
			}
			args = append(args, accountID, p.ID, doc)
		}
		query := "INSERT INTO purchase_documents (account_id, purchase_id, document) VALUES " +
			importPlaceholders(len(part), 3) + " ON DUPLICATE KEY UPDATE document = VALUES(document)"
		if _, err := q.ExecContext(ctx, query, args...); err != nil {
			return translate(err)
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

// WriteDocuments rebuilds the stored documents of the given purchases of an account
// from their rows, inside tx: for writers outside this package (the seeder) that have
// just written those rows in tx.
func WriteDocuments(ctx context.Context, tx *sql.Tx, accountID int64, ids []int64) error {
	return writeDocuments(ctx, tx, accountID, ids)
}

// readDocuments reads the stored documents of the given purchases of an account, in
// the order of ids. A purchase whose document is missing (a row written before the
// documents existed and not yet filled) has it built from its rows.
func readDocuments(ctx context.Context, q queryer, accountID int64, ids []int64) ([][]byte, error) {
	if len(ids) == 0 {
		return [][]byte{}, nil
	}
	query, args, err := sq.Select("purchase_id", "document").From("purchase_documents").
		Where(sq.And{sq.Eq{"account_id": accountID}, sq.Eq{"purchase_id": ids}}).ToSql()
	if err != nil {
		return nil, err
	}
	byID := make(map[int64][]byte, len(ids))
	err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var id int64
		var doc []byte
		if err := rows.Scan(&id, &doc); err != nil {
			return err
		}
		byID[id] = doc
		return nil
	})
	if err != nil {
		return nil, err
	}
	var missing []int64
	for _, id := range ids {
		if byID[id] == nil {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		slog.Warn("purchase documents missing; built from rows", "account", accountID, "purchases", len(missing))
		page, err := readPurchases(ctx, q, &shop.PurchasePage{}, accountID, missing, len(missing))
		if err != nil {
			return nil, err
		}
		for _, p := range page.Purchases {
			if byID[p.ID], err = purchaseDocument(p); err != nil {
				return nil, err
			}
		}
	}
	out := make([][]byte, 0, len(ids))
	for _, id := range ids {
		if doc := byID[id]; doc != nil {
			out = append(out, doc)
		}
	}
	return out, nil
}

// FindPurchaseDocuments implements shop.PurchaseService.
func (s *PurchaseService) FindPurchaseDocuments(ctx context.Context, f shop.PurchaseFilter) (*shop.DocumentPage, error) {
	db := s.db
	n := perPage(f.PerPage)
	page := &shop.DocumentPage{Total: -1}
	rows, err := pageIDs(ctx, db.DB, f, n, &page.Total)
	if err != nil {
		return nil, err
	}
	if len(rows) > n {
		rows = rows[:n]
		page.Next = &rows[n-1]
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	if page.Documents, err = readDocuments(ctx, db.DB, f.AccountID, ids); err != nil {
		return nil, err
	}
	return page, nil
}

// FindPurchaseDocument implements shop.PurchaseService.
func (s *PurchaseService) FindPurchaseDocument(ctx context.Context, accountID, id int64) ([]byte, error) {
	docs, err := readDocuments(ctx, s.db.DB, accountID, []int64{id})
	if err != nil {
		return nil, err
	}
	if len(docs) == 0 {
		return nil, shop.Errorf(shop.ENotFound, "Purchase %d was not found.", id)
	}
	return docs[0], nil
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
		for account, ids := range byAccount {
			if err := writeDocuments(ctx, tx, account, ids); err != nil {
				_ = tx.Rollback()
				return written, err
			}
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
// (purchase_prefixes), the stored documents and the rollups. For repairs
// after rows were changed by hand, and for tests that change them directly.
func RebuildDerived(ctx context.Context, sqlDB *sql.DB) error {
	for _, q := range []string{
		"DELETE FROM purchase_products",
		`INSERT IGNORE INTO purchase_products (account_id, product_id, created_at, purchase_id)
			SELECT p.account_id, li.product_id, p.created_at, p.id FROM purchases p
			JOIN line_items li ON li.account_id = p.account_id AND li.purchase_id = p.id`,
		"DELETE FROM purchase_documents",
		"DELETE FROM purchase_prefixes",
	} {
		if _, err := sqlDB.ExecContext(ctx, q); err != nil {
			return translate(err)
		}
	}
	if err := backfillPrefixes(ctx, sqlDB); err != nil {
		return err
	}
	if _, err := backfillDocuments(ctx, sqlDB); err != nil {
		return err
	}
	_, err := RebuildRollups(ctx, sqlDB)
	return err
}
