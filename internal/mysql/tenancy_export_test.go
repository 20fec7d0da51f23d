package mysql

import (
	"context"
	"database/sql"
	"sync"
	"time"

	"storefront/internal/shop"
)

// recordingQueryer keeps the text of every statement sent through it.
// An export reads on several connections at once, hence the lock.
type recordingQueryer struct {
	queryer
	mu    sync.Mutex
	stmts []string
}

func (r *recordingQueryer) record(q string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stmts = append(r.stmts, q)
}

func (r *recordingQueryer) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	r.record(q)
	return r.queryer.QueryContext(ctx, q, args...)
}

func (r *recordingQueryer) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	r.record(q)
	return r.queryer.QueryRowContext(ctx, q, args...)
}

func (r *recordingQueryer) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	r.record(q)
	return r.queryer.ExecContext(ctx, q, args...)
}

// BuiltStatements runs the read paths whose SQL is built at run time (squirrel) with
// every filter of the purchase and subscriber lists, and returns the statements they
// sent.
func (db *DB) BuiltStatements(ctx context.Context, accountID, storefrontID, purchaseID int64) ([]string, error) {
	r := &recordingQueryer{queryer: db.DB}
	day := time.Now().Add(-30 * 24 * time.Hour)
	yes := true
	cursor := &shop.Cursor{CreatedAt: day, ID: 1}
	for _, f := range []shop.PurchaseFilter{
		{}, {IncludeCount: true}, {Statuses: []shop.PurchaseStatus{"ACT"}}, {Statuses: []shop.PurchaseStatus{"PND", "ERR"}},
		{ProductID: 1}, {StorefrontID: storefrontID}, {CustomerID: 1}, {SubscriberID: 1},
		{EmailPrefix: "a"}, {FirstPrefix: "a"}, {LastPrefix: "a"}, {CreatedFrom: &day, CreatedBefore: &day},
		{Total: "10", TotalOp: shop.TotalGt}, {Unshipped: &yes}, {Desc: true, After: cursor}, {Page: 2}, {IDs: []int64{purchaseID}},
	} {
		f.AccountID = accountID
		if _, err := db.findPurchases(ctx, r, f); err != nil {
			return nil, err
		}
		// The CSV export of the same filter, in batches small enough to need several.
		f.PerPage, f.Page, f.After = 7, 0, nil
		for _, lines := range []shop.ExportLines{shop.ExportLineItems, shop.ExportProducts} {
			if err := exportPurchases(ctx, r, f, lines, func([]*shop.Purchase) error { return nil }); err != nil {
				return nil, err
			}
		}
	}
	if _, err := findPurchaseByID(ctx, r, accountID, purchaseID); err != nil {
		return nil, err
	}
	for _, f := range []shop.SubscriberFilter{
		{}, {IncludeCount: true}, {Username: "a@b.c"}, {UsernamePrefix: "a"},
		{Statuses: []shop.SubscriptionStatus{"ACTIVE"}}, {Desc: true, After: cursor}, {Page: 2},
		{StartedFrom: &day, StartedBefore: &day, IncludeCount: true}, {EndedFrom: &day, EndedBefore: &day}, {ReceivingAt: &day},
	} {
		f.AccountID, f.StorefrontID = accountID, storefrontID
		if _, err := db.findSubscribers(ctx, r, f, 0); err != nil {
			return nil, err
		}
		// The dashboard's list of every storefront's subscribers.
		f.StorefrontID = 0
		if _, err := db.findSubscribers(ctx, r, f, 0); err != nil {
			return nil, err
		}
	}
	// The audit log, with each of its filters and a page after a cursor.
	for _, f := range []shop.AuditFilter{
		{}, {Actor: "a@b.c"}, {Action: shop.AuditSignIn}, {CreatedFrom: &day, CreatedBefore: &day}, {After: cursor, PerPage: 2},
	} {
		f.AccountID = accountID
		if _, _, err := findAuditRecords(ctx, r, f); err != nil {
			return nil, err
		}
	}
	return r.stmts, nil
}
