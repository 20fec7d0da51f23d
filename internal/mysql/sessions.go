package mysql

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"storefront/internal/shop"
)

// CreateSession starts a server-side session and returns its secret token.
func (s *UserService) CreateSession(ctx context.Context, accountID, userID int64) (string, error) {
	db := s.db
	token, err := newToken()
	if err != nil {
		return "", err
	}
	now := db.Now().UTC().Truncate(time.Second)
	_, err = db.ExecContext(ctx, "INSERT INTO user_sessions (token_hash, account_id, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
		hashToken(token), accountID, userID, now, now, now.Add(shop.SessionTTL))
	if err != nil {
		return "", translate(err)
	}
	// The account's expired sessions are swept now and then, on sign-in.
	_, _ = db.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND expires_at < ? LIMIT 1000", accountID, now)
	return token, nil
}

// FindSession returns the user of a live session, extending it at most once a minute.
func (s *UserService) FindSession(ctx context.Context, token string) (*shop.User, error) {
	db := s.db
	if token == "" {
		return nil, shop.Errorf(shop.EUnauthenticated, "Please sign in.")
	}
	now := db.Now().UTC().Truncate(time.Second)
	var u shop.User
	var lastSeen time.Time
	err := db.QueryRowContext(ctx, `SELECT u.id, u.account_id, u.email, u.role, u.created_at, s.last_seen_at
		FROM user_sessions s JOIN users u ON u.account_id = s.account_id AND u.id = s.user_id
		WHERE s.token_hash = ? AND s.expires_at > ?`, hashToken(token), now).
		Scan(&u.ID, &u.AccountID, &u.Email, &u.Role, &u.CreatedAt, &lastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shop.Errorf(shop.EUnauthenticated, "Your session has ended; please sign in again.")
	}
	if err != nil {
		return nil, translate(err)
	}
	if now.Sub(lastSeen) > time.Minute {
		_, _ = db.ExecContext(ctx, "UPDATE user_sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?",
			now, now.Add(shop.SessionTTL), hashToken(token))
	}
	return &u, nil
}

// DeleteSession ends one session.
func (s *UserService) DeleteSession(ctx context.Context, token string) error {
	_, err := s.db.ExecContext(ctx, "DELETE FROM user_sessions WHERE token_hash = ?", hashToken(token))
	return translate(err)
}
