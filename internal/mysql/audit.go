package mysql

import (
	"context"
	"database/sql"
	"time"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// insertAudit writes one audit record with q: the transaction of the change it
// records, or the connection for a refusal, which changes nothing else.
func insertAudit(ctx context.Context, q queryer, now time.Time, accountID, userID int64, action, details string, client shop.SessionClient) error {
	_, err := q.ExecContext(ctx, "INSERT INTO audit_records (account_id, user_id, action, details, address, user_agent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
		accountID, userID, action, truncateRunes(details, 255), truncateRunes(client.Address, 64), truncateRunes(client.UserAgent, 255), now.UTC())
	return translate(err)
}

// recordAudit writes the audit record of a change with tx, the change's transaction:
// its actor and client are those ctx carries (shop.WithActor), the system when it
// carries none.
func recordAudit(ctx context.Context, tx queryer, now time.Time, accountID int64, action, details string) error {
	a := shop.ActorFrom(ctx)
	var keyID sql.NullInt64
	if a.APIKeyID != 0 {
		keyID = sql.NullInt64{Int64: a.APIKeyID, Valid: true}
	}
	name := a.Name
	if a.UserID == 0 && a.APIKeyID == 0 {
		name = "system"
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO audit_records (account_id, user_id, api_key_id, actor, action, details, address, user_agent, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		accountID, a.UserID, keyID, truncateRunes(name, 255), action, truncateRunes(details, 255),
		truncateRunes(a.Client.Address, 64), truncateRunes(a.Client.UserAgent, 255), now.UTC().Truncate(time.Second))
	return translate(err)
}

// RecordSecondFactorFailure implements shop.UserService.
func (s *UserService) RecordSecondFactorFailure(ctx context.Context, accountID, userID int64, client shop.SessionClient) error {
	return insertAudit(ctx, s.db.DB, s.db.Now(), accountID, userID, shop.AuditSecondFactorFailed, "wrong code", client)
}

// AuditService reads the account's audit log.
type AuditService struct{ db *DB }

// NewAuditService returns the AuditService of db.
func NewAuditService(db *DB) *AuditService { return &AuditService{db: db} }

// auditActor is the actor's name as shown: the one the record keeps, else (the
// records of signing in keep none) the user's e-mail now.
const auditActor = "COALESCE(NULLIF(a.actor, ''), u.email, '')"

// FindAuditRecords implements shop.AuditService: newest first, by (created_at, id)
// through the index on (account_id, created_at), whose entries hold the id.
func (s *AuditService) FindAuditRecords(ctx context.Context, f shop.AuditFilter) ([]shop.AuditRecord, *shop.Cursor, error) {
	return findAuditRecords(ctx, s.db.DB, f)
}

func findAuditRecords(ctx context.Context, db queryer, f shop.AuditFilter) ([]shop.AuditRecord, *shop.Cursor, error) {
	per := f.PerPage
	if per <= 0 {
		per = shop.DefaultPerPage
	}
	q := sq.Select("a.id", "a.user_id", "COALESCE(a.api_key_id, 0)", auditActor, "a.action", "a.details", "a.address", "a.user_agent", "a.created_at").
		From("audit_records a").
		LeftJoin("users u ON u.account_id = a.account_id AND u.id = a.user_id").
		Where(sq.Eq{"a.account_id": f.AccountID}).
		OrderBy("a.created_at DESC", "a.id DESC").
		Limit(uint64(per) + 1)
	if f.Actor != "" {
		q = q.Where(sq.Expr(auditActor+" = ?", f.Actor))
	}
	if f.Action != "" {
		q = q.Where(sq.Eq{"a.action": f.Action})
	}
	if f.CreatedFrom != nil {
		q = q.Where(sq.GtOrEq{"a.created_at": f.CreatedFrom.UTC()})
	}
	if f.CreatedBefore != nil {
		q = q.Where(sq.Lt{"a.created_at": f.CreatedBefore.UTC()})
	}
	if f.After != nil {
		q = q.Where(sq.Expr("(a.created_at, a.id) < (?, ?)", f.After.CreatedAt.UTC(), f.After.ID))
	}
	query, args, err := q.ToSql()
	if err != nil {
		return nil, nil, err
	}
	out := []shop.AuditRecord{}
	err = eachRow(ctx, db, query, args, func(rows *sql.Rows) error {
		var r shop.AuditRecord
		if err := rows.Scan(&r.ID, &r.UserID, &r.APIKeyID, &r.Actor, &r.Action, &r.Details, &r.Address, &r.UserAgent, &r.CreatedAt); err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	var next *shop.Cursor
	if len(out) > per {
		out = out[:per]
		last := out[per-1]
		next = &shop.Cursor{CreatedAt: last.CreatedAt.Time, ID: last.ID}
	}
	return out, next, nil
}
