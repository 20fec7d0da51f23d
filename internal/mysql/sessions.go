package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"storefront/internal/shop"
)

// insertSession inserts a new session; sessionValues gives its values.
const insertSession = "INSERT INTO user_sessions (token_hash, account_id, user_id, created_at, last_seen_at, expires_at, device, address) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"

// sessionValues are the values of insertSession for a new session at now.
func sessionValues(token string, accountID, userID int64, now time.Time, client shop.SessionClient) []any {
	return []any{hashToken(token), accountID, userID, now, now, now.Add(shop.SessionTTL),
		truncateRunes(client.Device, 255), truncateRunes(client.Address, 64)}
}

// truncateRunes cuts s to at most n characters (a column's width).
func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// CreateSession starts a server-side session and returns its secret token.
func (s *UserService) CreateSession(ctx context.Context, accountID, userID int64, client shop.SessionClient) (string, error) {
	db := s.db
	token, err := newToken()
	if err != nil {
		return "", err
	}
	now := db.nowSecond()
	err = db.inTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, insertSession, sessionValues(token, accountID, userID, now, client)...); err != nil {
			return translate(err)
		}
		return insertAudit(ctx, tx, now, accountID, userID, shop.AuditSignIn, "", client)
	})
	if err != nil {
		return "", err
	}
	// The account's expired sessions are swept now and then, on sign-in.
	_, _ = db.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND expires_at < ? LIMIT 1000", accountID, now)
	return token, nil
}

// FindSession returns the user of a live session and the session's id, extending the
// session at most once a minute. It reads the database on every request, so a session
// ended anywhere (another instance included) is refused at once.
func (s *UserService) FindSession(ctx context.Context, accountID int64, token string) (*shop.User, int64, error) {
	db := s.db
	ended := shop.Errorf(shop.EUnauthenticated, "Your session has ended; please sign in again.")
	if token == "" || accountID <= 0 {
		return nil, 0, ended
	}
	now := db.nowSecond()
	var u shop.User
	var id int64
	var lastSeen time.Time
	err := db.QueryRowContext(ctx, `SELECT u.id, u.account_id, u.email, u.role, u.created_at, s.id, s.last_seen_at
		FROM user_sessions s JOIN users u ON u.account_id = s.account_id AND u.id = s.user_id
		WHERE s.account_id = ? AND u.account_id = ? AND s.token_hash = ? AND s.expires_at > ?`, accountID, accountID, hashToken(token), now).
		Scan(&u.ID, &u.AccountID, &u.Email, &u.Role, &u.CreatedAt, &id, &lastSeen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, ended
	}
	if err != nil {
		return nil, 0, translate(err)
	}
	if now.Sub(lastSeen) >= lastUseEvery {
		_, _ = db.ExecContext(ctx, "UPDATE user_sessions SET last_seen_at = ?, expires_at = ? WHERE account_id = ? AND token_hash = ?",
			now, now.Add(shop.SessionTTL), accountID, hashToken(token))
	}
	return &u, id, nil
}

// DeleteSession ends one session (signing out), with its audit record.
func (s *UserService) DeleteSession(ctx context.Context, accountID int64, token string, client shop.SessionClient) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		var userID int64
		err := tx.QueryRowContext(ctx, "SELECT user_id FROM user_sessions WHERE account_id = ? AND token_hash = ? FOR UPDATE", accountID, hashToken(token)).Scan(&userID)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND token_hash = ?", accountID, hashToken(token)); err != nil {
			return translate(err)
		}
		return insertAudit(ctx, tx, s.db.Now(), accountID, userID, shop.AuditSessionEnded, "signed out", client)
	})
}

// FindSessions returns the user's live sessions, the last seen first.
func (s *UserService) FindSessions(ctx context.Context, accountID, userID int64) ([]*shop.Session, error) {
	var out []*shop.Session
	err := eachRow(ctx, s.db.DB, `SELECT id, device, address, created_at, last_seen_at FROM user_sessions
		WHERE account_id = ? AND user_id = ? AND expires_at > ? ORDER BY last_seen_at DESC, id DESC`,
		[]any{accountID, userID, s.db.Now().UTC()}, func(rows *sql.Rows) error {
			var ss shop.Session
			var created, seen time.Time
			if err := rows.Scan(&ss.ID, &ss.Client.Device, &ss.Client.Address, &created, &seen); err != nil {
				return err
			}
			ss.SignedInAt, ss.LastSeenAt = shop.NewTime(created), shop.NewTime(seen)
			out = append(out, &ss)
			return nil
		})
	return out, err
}

// EndSession ends one session of the user, with its audit record.
func (s *UserService) EndSession(ctx context.Context, accountID, userID, sessionID int64, client shop.SessionClient) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND user_id = ? AND id = ?", accountID, userID, sessionID)
		if err := mustAffect(res, err, "You have no session %d; it may have ended already.", sessionID); err != nil {
			return err
		}
		return insertAudit(ctx, tx, s.db.Now(), accountID, userID, shop.AuditSessionEnded, fmt.Sprintf("session %d", sessionID), client)
	})
}

// EndOtherSessions ends every session of the user but keepID, with one audit record
// when it ended any.
func (s *UserService) EndOtherSessions(ctx context.Context, accountID, userID, keepID int64, client shop.SessionClient) (int, error) {
	var n int64
	err := s.db.inTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND user_id = ? AND id <> ?", accountID, userID, keepID)
		if err != nil {
			return translate(err)
		}
		if n, err = res.RowsAffected(); err != nil || n == 0 {
			return translate(err)
		}
		return insertAudit(ctx, tx, s.db.Now(), accountID, userID, shop.AuditSessionEnded, fmt.Sprintf("every other session (%d)", n), client)
	})
	return int(n), err
}
