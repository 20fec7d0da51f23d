package mysql

import (
	"context"
	"database/sql"
	"errors"
	"slices"
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
	// Each filter reads through its index of (account_id, …, created_at), from the
	// cursor on. The index is named: left to itself MariaDB reads the account's
	// entries from the newest down to the cursor (a ref on account_id) rather than a
	// range that starts at it. No join either, for the same reason.
	index := "audit_records_account_created"
	switch {
	case f.Actor != "":
		index = "audit_records_account_actor"
	case f.Action != "":
		index = "audit_records_account_action"
	}
	q := sq.Select("a.id", "a.user_id", "COALESCE(a.api_key_id, 0)", "a.actor", "a.action", "a.details", "a.address", "a.user_agent", "a.created_at").
		Where(sq.Eq{"a.account_id": f.AccountID}).
		OrderBy("a.created_at DESC", "a.id DESC").
		Limit(uint64(per) + 1)
	if f.Actor != "" {
		// A user of the account is found by their id, through the index on
		// (account_id, user_id, created_at): the records of signing in keep no name.
		// Any other actor (a key, a removed user) by the name the records keep.
		var userID int64
		err := db.QueryRowContext(ctx, "SELECT id FROM users WHERE account_id = ? AND email = ?", f.AccountID, f.Actor).Scan(&userID)
		switch {
		case err == nil:
			index = "audit_records_account_user"
			q = q.Where(sq.Eq{"a.user_id": userID})
		case errors.Is(err, sql.ErrNoRows):
			q = q.Where(sq.Eq{"a.actor": f.Actor})
		default:
			return nil, nil, translate(err)
		}
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
		// Written so that the index's range starts at the cursor: MariaDB does not
		// range-scan a row comparison.
		at := f.After.CreatedAt.UTC()
		q = q.Where(sq.Expr("a.created_at <= ? AND (a.created_at < ? OR a.id < ?)", at, at, f.After.ID))
	}
	query, args, err := q.From("audit_records a FORCE INDEX (" + index + ")").ToSql()
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
	// The records of signing in keep no name: they show the user's e-mail now.
	var unnamed []int64
	for _, r := range out {
		if r.Actor == "" && r.UserID != 0 && !slices.Contains(unnamed, r.UserID) {
			unnamed = append(unnamed, r.UserID)
		}
	}
	if len(unnamed) > 0 {
		list, args := inList(unnamed)
		emails := map[int64]string{}
		err := eachRow(ctx, db, "SELECT id, email FROM users WHERE account_id = ? AND id IN "+list, append([]any{f.AccountID}, args...), func(rows *sql.Rows) error {
			var id int64
			var email string
			if err := rows.Scan(&id, &email); err != nil {
				return err
			}
			emails[id] = email
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
		for i := range out {
			if out[i].Actor == "" {
				out[i].Actor = emails[out[i].UserID]
			}
		}
	}
	return out, next, nil
}
