package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"storefront/internal/shop"
)

// APIKeyPrefix starts every API key, so that a leaked key is recognisable.
const APIKeyPrefix = "sfk_"

// HashAPIKey is the stored form of a key: SHA-256 (the key carries 256 bits of entropy,
// so a slow hash adds nothing).
func HashAPIKey(key string) []byte { return hashToken(key) }

// CreateAPIKey makes a new key for the account and returns it; only its hash is kept.
func (s *AdminService) CreateAPIKey(ctx context.Context, accountID int64, name, scope string) (string, error) {
	if !shop.ValidScope(scope) {
		return "", shop.ParamErrorf(shop.EInvalid, "scope", "Scope must be %q, %q or %q.", shop.ScopeRead, shop.ScopeReadWrite, shop.ScopeAudit)
	}
	if _, err := NewAccountService(s.db).FindAccountByID(ctx, accountID); err != nil {
		return "", err
	}
	token, err := newToken()
	if err != nil {
		return "", err
	}
	key := APIKeyPrefix + token
	if err := s.InsertAPIKey(ctx, accountID, name, scope, key); err != nil {
		return "", err
	}
	return key, nil
}

// InsertAPIKey stores the hash of a given key; CreateAPIKey makes the key itself.
func (s *AdminService) InsertAPIKey(ctx context.Context, accountID int64, name, scope, key string) error {
	db := s.db
	now := db.Now().UTC()
	return db.inTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, "INSERT INTO api_keys (account_id, name, key_hash, scope, created_at) VALUES (?, ?, ?, ?, ?)",
			accountID, name, HashAPIKey(key), scope, now)
		if err != nil {
			return translate(err)
		}
		id, err := res.LastInsertId()
		if err != nil {
			return fmt.Errorf("key id: %w", err)
		}
		return recordAudit(ctx, tx, now, accountID, shop.AuditKeyCreated, fmt.Sprintf("key %d %q (%s)", id, name, scope))
	})
}

// AuthenticateAPIKey returns the live key with this secret, or EUnauthenticated.
func (s *APIKeyService) AuthenticateAPIKey(ctx context.Context, secret string) (*shop.APIKey, error) {
	var k shop.APIKey
	err := s.db.QueryRowContext(ctx, `SELECT k.id, k.account_id, k.name, k.scope, a.api_username, a.timezone
		FROM api_keys k JOIN accounts a ON a.id = k.account_id
		WHERE k.key_hash = ? AND k.revoked_at IS NULL`, HashAPIKey(secret)).
		Scan(&k.ID, &k.AccountID, &k.Name, &k.Scope, &k.APIUsername, &k.Timezone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shop.Errorf(shop.EUnauthenticated, "The API key is not valid.")
	}
	if err != nil {
		return nil, translate(err)
	}
	return &k, nil
}

// TouchAPIKey records the key's last use. Writes at most once a minute per key, so that
// a busy key does not turn every read into a write.
func (s *APIKeyService) TouchAPIKey(ctx context.Context, accountID, id int64) error {
	db := s.db
	now := db.nowSecond()
	_, err := db.ExecContext(ctx, "UPDATE api_keys SET last_used_at = ? WHERE account_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at <= ?)",
		now, accountID, id, now.Add(-lastUseEvery))
	return translate(err)
}

// FindAPIKeys returns the account's keys, newest first.
func (s *AdminService) FindAPIKeys(ctx context.Context, accountID int64) ([]*shop.APIKeyInfo, error) {
	return collectRows(ctx, s.db.DB, "SELECT id, name, scope, created_at, last_used_at, revoked_at FROM api_keys WHERE account_id = ? ORDER BY id DESC",
		[]any{accountID}, func(rows *sql.Rows) (*shop.APIKeyInfo, error) {
			var k shop.APIKeyInfo
			return &k, rows.Scan(&k.ID, &k.Name, &k.Scope, &k.CreatedAt, &k.LastUsedAt, &k.RevokedAt)
		})
}

// RevokeAPIKey revokes a key: AuthenticateAPIKey refuses it from the commit on. (The
// web server keeps what it authenticated for a few seconds, web.KeyCacheTTL.)
func (s *AdminService) RevokeAPIKey(ctx context.Context, accountID, keyID int64) error {
	db := s.db
	now := db.Now().UTC()
	return db.inTx(ctx, func(tx *Tx) error {
		var name string
		var revoked sql.NullTime
		err := tx.QueryRowContext(ctx, "SELECT name, revoked_at FROM api_keys WHERE account_id = ? AND id = ? FOR UPDATE", accountID, keyID).Scan(&name, &revoked)
		if errors.Is(err, sql.ErrNoRows) {
			return shop.Errorf(shop.ENotFound, "API key %d was not found.", keyID)
		}
		if err != nil || revoked.Valid {
			// Revoked already: nothing changes.
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ?", now, keyID, accountID); err != nil {
			return translate(err)
		}
		return recordAudit(ctx, tx, now, accountID, shop.AuditKeyRevoked, fmt.Sprintf("key %d %q", keyID, name))
	})
}
