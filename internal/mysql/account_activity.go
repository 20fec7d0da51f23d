package mysql

import (
	"context"
	"database/sql"
	"time"

	"storefront/internal/shop"
)

// RecordAccountActivity implements shop.AccountActivityService.
func (s *AccountActivityService) RecordAccountActivity(ctx context.Context, accountID int64, a shop.Activity) error {
	at := a.CreatedAt.Time
	if at.IsZero() {
		at = time.Now()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO account_activity (account_id, actor, action, details, created_at) VALUES (?, ?, ?, ?, ?)`,
		accountID, a.Actor, a.Action, a.Details, at.UTC().Truncate(time.Second))
	return translate(err)
}

// FindAccountActivity implements shop.AccountActivityService.
func (s *AccountActivityService) FindAccountActivity(ctx context.Context, accountID int64, limit int) ([]shop.Activity, error) {
	out := []shop.Activity{}
	err := eachRow(ctx, s.db.DB, `SELECT id, actor, action, details, created_at FROM account_activity
		WHERE account_id = ? ORDER BY id DESC LIMIT ?`, []any{accountID, max(limit, 1)}, func(rows *sql.Rows) error {
		var a shop.Activity
		if err := rows.Scan(&a.ID, &a.Actor, &a.Action, &a.Details, &a.CreatedAt); err != nil {
			return err
		}
		out = append(out, a)
		return nil
	})
	return out, err
}
