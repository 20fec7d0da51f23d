package mysql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"

	"storefront/internal/shop"
)

// FindAccountByID returns an account, or ENotFound.
func (s *AccountService) FindAccountByID(ctx context.Context, id int64) (*shop.Account, error) {
	var a shop.Account
	err := s.db.QueryRowContext(ctx, "SELECT id, name, api_username, timezone FROM accounts WHERE id = ?", id).
		Scan(&a.ID, &a.Name, &a.APIUsername, &a.Timezone)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shop.Errorf(shop.ENotFound, "Account %d was not found.", id)
	}
	if err != nil {
		return nil, translate(err)
	}
	return &a, nil
}

// FindStorefronts returns the account's storefronts ordered by id.
func (s *AccountService) FindStorefronts(ctx context.Context, accountID int64) ([]*shop.Storefront, error) {
	var out []*shop.Storefront
	err := eachRow(ctx, s.db.DB, "SELECT id, account_id, name, currency, download_limit, download_days, past_due_grace_days FROM storefronts WHERE account_id = ? ORDER BY id",
		[]any{accountID}, func(rows *sql.Rows) error {
			var s shop.Storefront
			if err := rows.Scan(&s.ID, &s.AccountID, &s.Name, &s.Currency, &s.DownloadLimit, &s.DownloadDays, &s.PastDueGraceDays); err != nil {
				return err
			}
			out = append(out, &s)
			return nil
		})
	return out, err
}

// CountAccounts returns how many accounts exist: zero means a database without data.
func (s *AccountService) CountAccounts(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts").Scan(&n)
	return n, translate(err)
}

// APIKeyPrefix starts every API key, so that a leaked key is recognisable.
const APIKeyPrefix = "sfk_"

// HashAPIKey is the stored form of a key: SHA-256 (the key carries 256 bits of entropy,
// so a slow hash adds nothing).
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// CreateAPIKey makes a new key for the account and returns it; only its hash is kept.
func (s *AdminService) CreateAPIKey(ctx context.Context, accountID int64, name, scope string) (string, error) {
	if scope != shop.ScopeRead && scope != shop.ScopeReadWrite {
		return "", shop.ParamErrorf(shop.EInvalid, "scope", "Scope must be %q or %q.", shop.ScopeRead, shop.ScopeReadWrite)
	}
	if _, err := NewAccountService(s.db).FindAccountByID(ctx, accountID); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	key := APIKeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	if err := s.InsertAPIKey(ctx, accountID, name, scope, key); err != nil {
		return "", err
	}
	return key, nil
}

// InsertAPIKey stores the hash of a given key; CreateAPIKey makes the key itself.
func (s *AdminService) InsertAPIKey(ctx context.Context, accountID int64, name, scope, key string) error {
	db := s.db
	_, err := db.ExecContext(ctx, "INSERT INTO api_keys (account_id, name, key_hash, scope, created_at) VALUES (?, ?, ?, ?, ?)",
		accountID, name, HashAPIKey(key), scope, db.Now().UTC())
	return translate(err)
}

// MaxPasswordBytes is bcrypt's limit; longer passwords are refused rather than cut.
const MaxPasswordBytes = 72

// BcryptCost is the cost of new password hashes; tests lower it.
var BcryptCost = 12

// CreateUser makes a dashboard user of the account.
func (s *AdminService) CreateUser(ctx context.Context, accountID int64, email, role, password string) (int64, error) {
	db := s.db
	email = strings.TrimSpace(email)
	if email == "" || !strings.Contains(email, "@") || strings.ContainsAny(email, " \r\n\t") {
		return 0, shop.ParamErrorf(shop.EInvalid, "email", "%q is not an e-mail address.", email)
	}
	if !shop.ValidRole(role) {
		return 0, shop.ParamErrorf(shop.EInvalid, "role", "Role must be owner, staff or viewer.")
	}
	if len(password) < 8 {
		return 0, shop.ParamErrorf(shop.EInvalid, "password", "The password must have at least 8 characters.")
	}
	if len(password) > MaxPasswordBytes {
		return 0, shop.ParamErrorf(shop.EInvalid, "password", "The password must have at most %d bytes.", MaxPasswordBytes)
	}
	if _, err := NewAccountService(db).FindAccountByID(ctx, accountID); err != nil {
		return 0, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), BcryptCost)
	if err != nil {
		return 0, err
	}
	now := db.Now().UTC()
	res, err := db.ExecContext(ctx, "INSERT INTO users (account_id, email, password_hash, role, created_at, password_changed_at) VALUES (?, ?, ?, ?, ?, ?)",
		accountID, email, string(hash), role, now, now)
	if isDuplicate(err) {
		return 0, shop.ParamErrorf(shop.EInvalid, "email", "A user with the e-mail %s already exists.", email)
	}
	if err != nil {
		return 0, translate(err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("user id: %w", err)
	}
	return id, nil
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
	now := db.Now().UTC().Truncate(time.Second)
	_, err := db.ExecContext(ctx, "UPDATE api_keys SET last_used_at = ? WHERE account_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at <= ?)",
		now, accountID, id, now.Add(-time.Minute))
	return translate(err)
}
