package mysql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"storefront/internal/shop"
)

// dummyHash is compared against when the e-mail is unknown, so that a wrong e-mail
// takes as long as a wrong password and does not reveal which accounts exist.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("storefront-no-such-user"), bcrypt.MinCost)

// CheckPassword returns the user with this e-mail and password, or EUnauthenticated.
func (s *UserService) CheckPassword(ctx context.Context, email, password string) (*shop.User, error) {
	wrong := shop.Errorf(shop.EUnauthenticated, "The e-mail or the password is not right.")
	var u shop.User
	var hash string
	err := s.db.QueryRowContext(ctx, "SELECT id, account_id, email, role, created_at, password_hash FROM users WHERE email = ?", strings.TrimSpace(email)).
		Scan(&u.ID, &u.AccountID, &u.Email, &u.Role, &u.CreatedAt, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return nil, wrong
	}
	if err != nil {
		return nil, translate(err)
	}
	if len(password) > MaxPasswordBytes || bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return nil, wrong
	}
	return &u, nil
}

func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// CreateSession starts a server-side session and returns its secret token.
func (s *UserService) CreateSession(ctx context.Context, accountID, userID int64) (string, error) {
	db := s.db
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	now := db.Now().UTC().Truncate(time.Second)
	_, err := db.ExecContext(ctx, "INSERT INTO user_sessions (token_hash, account_id, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
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

// FindUserByID returns a user of the account, or ENotFound.
func (s *UserService) FindUserByID(ctx context.Context, accountID, id int64) (*shop.User, error) {
	var u shop.User
	err := s.db.QueryRowContext(ctx, "SELECT id, account_id, email, role, created_at FROM users WHERE account_id = ? AND id = ?", accountID, id).
		Scan(&u.ID, &u.AccountID, &u.Email, &u.Role, &u.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shop.Errorf(shop.ENotFound, "User %d was not found.", id)
	}
	if err != nil {
		return nil, translate(err)
	}
	return &u, nil
}

// DeleteSession ends one session.
func (s *UserService) DeleteSession(ctx context.Context, token string) error {
	_, err := s.db.ExecContext(ctx, "DELETE FROM user_sessions WHERE token_hash = ?", hashToken(token))
	return translate(err)
}

// FindUsers returns the account's dashboard users ordered by e-mail.
func (s *AdminService) FindUsers(ctx context.Context, accountID int64) ([]*shop.User, error) {
	var out []*shop.User
	err := eachRow(ctx, s.db.DB, "SELECT id, account_id, email, role, created_at FROM users WHERE account_id = ? ORDER BY email",
		[]any{accountID}, func(rows *sql.Rows) error {
			var u shop.User
			if err := rows.Scan(&u.ID, &u.AccountID, &u.Email, &u.Role, &u.CreatedAt); err != nil {
				return err
			}
			out = append(out, &u)
			return nil
		})
	return out, err
}

// SetUserRole changes a user's role; the user's sessions keep going with the new role.
// The account's last owner cannot stop being one (EInvalid).
func (s *AdminService) SetUserRole(ctx context.Context, accountID, userID int64, role string) error {
	if !shop.ValidRole(role) {
		return shop.ParamErrorf(shop.EInvalid, "role", "Role must be owner, staff or viewer.")
	}
	return s.db.inTx(ctx, func(tx *sql.Tx) error {
		if err := keepAnOwner(ctx, tx, accountID, userID, role); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "UPDATE users SET role = ? WHERE id = ? AND account_id = ?", role, userID, accountID)
		return mustAffect(res, err, "User %d was not found.", userID)
	})
}

// DeleteUser removes a user and ends their sessions. The account's last owner cannot
// be removed (EInvalid).
func (s *AdminService) DeleteUser(ctx context.Context, accountID, userID int64) error {
	return s.db.inTx(ctx, func(tx *sql.Tx) error {
		if err := keepAnOwner(ctx, tx, accountID, userID, ""); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM users WHERE id = ? AND account_id = ?", userID, accountID)
		return mustAffect(res, err, "User %d was not found.", userID)
	})
}

// keepAnOwner refuses to leave the account without an owner when userID takes newRole
// ("" for removal). It locks the account's users, so that two owners demoting each
// other at once cannot both succeed.
func keepAnOwner(ctx context.Context, tx *sql.Tx, accountID, userID int64, newRole string) error {
	var users []*shop.User
	var target *shop.User
	err := eachRow(ctx, tx, "SELECT id, role FROM users WHERE account_id = ? FOR UPDATE", []any{accountID}, func(rows *sql.Rows) error {
		u := &shop.User{AccountID: accountID}
		if err := rows.Scan(&u.ID, &u.Role); err != nil {
			return err
		}
		users = append(users, u)
		if u.ID == userID {
			target = u
		}
		return nil
	})
	if err != nil || target == nil {
		return err
	}
	return shop.KeepAnOwner(users, target, newRole)
}

// FindAPIKeys returns the account's keys, newest first.
func (s *AdminService) FindAPIKeys(ctx context.Context, accountID int64) ([]*shop.APIKeyInfo, error) {
	var out []*shop.APIKeyInfo
	err := eachRow(ctx, s.db.DB, "SELECT id, name, scope, created_at, last_used_at, revoked_at FROM api_keys WHERE account_id = ? ORDER BY id DESC",
		[]any{accountID}, func(rows *sql.Rows) error {
			var k shop.APIKeyInfo
			if err := rows.Scan(&k.ID, &k.Name, &k.Scope, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt); err != nil {
				return err
			}
			out = append(out, &k)
			return nil
		})
	return out, err
}

// RevokeAPIKey revokes a key: AuthenticateAPIKey refuses it from the commit on. (The
// web server keeps what it authenticated for a few seconds, web.KeyCacheTTL.)
func (s *AdminService) RevokeAPIKey(ctx context.Context, accountID, keyID int64) error {
	db := s.db
	res, err := db.ExecContext(ctx, "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND account_id = ?",
		db.Now().UTC(), keyID, accountID)
	return mustAffect(res, err, "API key %d was not found.", keyID)
}

// mustAffect turns "no row matched" into ENotFound.
func mustAffect(res sql.Result, err error, format string, id int64) error {
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return shop.Errorf(shop.ENotFound, format, id)
	}
	return nil
}
