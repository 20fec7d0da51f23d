package mysql

import (
	"context"
	"database/sql"

	"storefront/internal/shop"
)

// FindSubscriberActivity returns a subscriber's timeline (the PAST_DUE job's closings,
// among others), newest first. A subscriber of another account has no activity.
func (s *SubscriberService) FindSubscriberActivity(ctx context.Context, accountID, storefrontID, subscriberID int64) ([]shop.Activity, error) {
	out := []shop.Activity{}
	err := eachRow(ctx, s.db.DB, `SELECT a.id, a.actor, a.action, a.details, a.created_at FROM subscriber_activity a
		JOIN subscribers sb ON sb.account_id = a.account_id AND sb.id = a.subscriber_id
		WHERE a.account_id = ? AND a.subscriber_id = ? AND sb.storefront_id = ? ORDER BY a.id DESC LIMIT 200`,
		[]any{accountID, subscriberID, storefrontID}, func(rows *sql.Rows) error {
			var a shop.Activity
			if err := rows.Scan(&a.ID, &a.Actor, &a.Action, &a.Details, &a.CreatedAt); err != nil {
				return err
			}
			out = append(out, a)
			return nil
		})
	return out, err
}
