package mysql

import (
	"context"
	"time"

	"storefront/internal/shop"
)

// insertAudit writes one audit record with q: the transaction of the change it
// records, or the connection for a refusal, which changes nothing else.
func insertAudit(ctx context.Context, q queryer, now time.Time, accountID, userID int64, action, details string, client shop.SessionClient) error {
	_, err := q.ExecContext(ctx, "INSERT INTO audit_records (account_id, user_id, action, details, address, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		accountID, userID, action, truncateRunes(details, 255), truncateRunes(client.Address, 64), truncateRunes(client.UserAgent, 255), now.UTC())
	return translate(err)
}

// RecordSecondFactorFailure implements shop.UserService.
func (s *UserService) RecordSecondFactorFailure(ctx context.Context, accountID, userID int64, client shop.SessionClient) error {
	return insertAudit(ctx, s.db.DB, s.db.Now(), accountID, userID, shop.AuditSecondFactorFailed, "wrong code", client)
}
