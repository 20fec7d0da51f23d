package mysql

import (
	"context"
	"database/sql"
	"slices"
)

// Every account has a purchases version (purchase_versions): a counter that every
// transaction changing what the API answers for the account's purchases (their rows and
// collections, stored documents, filter paths) bumps, as its last statement before it
// commits. A page or a purchase read together with the version is what the API answers
// for as long as the version stays the same, on every instance: the API's ETag and its
// validated response cache rest on it (docs/API.md#conditional-requests).
//
// The writers that bump it: import (importTx.Commit), seed (internal/seed writeChunk),
// reactivation and refulfilment, the bulk jobs through them (reactivateOnce), the
// documents' backfill (backfillDocuments) and RebuildDerived. A new writer of
// purchases must call BumpPurchaseVersions too; TestPurchaseVersions_Writers checks
// each of these.

// versionQuery reads an account's purchases version, 0 for an account never written.
const versionQuery = "SELECT COALESCE(MAX(version), 0) FROM purchase_versions WHERE account_id = ?"

// BumpPurchaseVersions bumps the purchases version of each account, inside tx. Call it
// just before the commit: the row stays locked until then, so writers of one account
// wait for each other's commit from that point only.
func BumpPurchaseVersions(ctx context.Context, sqlTx *sql.Tx, accountIDs ...int64) error {
	tx := &Tx{Tx: sqlTx} // the seed's transaction queues no background work
	return bumpPurchaseVersions(ctx, tx, accountIDs...)
}

func bumpPurchaseVersions(ctx context.Context, q queryer, accountIDs ...int64) error {
	ids := slices.Clone(accountIDs)
	// One order for every writer, so that two bumping overlapping accounts cannot deadlock.
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if _, err := q.ExecContext(ctx, "INSERT INTO purchase_versions (account_id, version) VALUES (?, 1) "+
			"ON DUPLICATE KEY UPDATE version = version + 1", id); err != nil {
			return translate(err)
		}
	}
	return nil
}

// PurchasesVersion implements shop.PurchaseService.
func (s *PurchaseService) PurchasesVersion(ctx context.Context, accountID int64) (int64, error) {
	return s.db.purchasesVersion(ctx, accountID)
}

func (db *DB) purchasesVersion(ctx context.Context, accountID int64) (int64, error) {
	var v int64
	if err := db.QueryRowContext(ctx, versionQuery, accountID).Scan(&v); err != nil {
		return 0, translate(err)
	}
	return v, nil
}
