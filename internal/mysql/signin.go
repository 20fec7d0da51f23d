package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"storefront/internal/shop"
)

// signInKeyHash is how a throttle key is stored: what was typed into the e-mail
// field of the sign-in form is not kept.
func signInKeyHash(key string) []byte { return hashToken(key) }

// SignInFailures implements shop.SignInThrottleStore.
func (s *SignInStore) SignInFailures(ctx context.Context, keys []string, since time.Time) (map[string]shop.SignInFailures, error) {
	out := map[string]shop.SignInFailures{}
	if len(keys) == 0 {
		return out, nil
	}
	byHash := map[string]string{}
	args := []any{since.UTC()}
	for _, k := range keys {
		h := signInKeyHash(k)
		byHash[string(h)] = k
		args = append(args, h)
	}
	err := eachRow(ctx, s.db.DB, `SELECT key_hash, failures, last_failed_at FROM sign_in_failures
		WHERE last_failed_at >= ? AND key_hash IN (`+placeholders(len(keys))+`)`, args, func(rows *sql.Rows) error {
		var h []byte
		var f shop.SignInFailures
		if err := rows.Scan(&h, &f.Count, &f.Last); err != nil {
			return err
		}
		out[byHash[string(h)]] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sign-in failures: %w", err)
	}
	return out, nil
}

// AddSignInFailure implements shop.SignInThrottleStore. Rows whose last failure is a
// day old are deleted on the way, a few at a time.
func (s *SignInStore) AddSignInFailure(ctx context.Context, keys []string, now, restart time.Time) error {
	db := s.db
	if len(keys) == 0 {
		return nil
	}
	now, restart = now.UTC(), restart.UTC()
	var values []any
	for _, k := range keys {
		values = append(values, signInKeyHash(k), 1, now)
	}
	values = append(values, restart)
	// failures is assigned first, so it still sees the old last_failed_at.
	if _, err := db.ExecContext(ctx, `INSERT INTO sign_in_failures (key_hash, failures, last_failed_at)
		VALUES `+rowPlaceholders(len(keys), 3)+`
		ON DUPLICATE KEY UPDATE failures = IF(last_failed_at < ?, 1, failures + 1), last_failed_at = VALUES(last_failed_at)`,
		values...); err != nil {
		return fmt.Errorf("count sign-in failure: %w", translate(err))
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM sign_in_failures WHERE last_failed_at < ? LIMIT 100`,
		now.Add(-24*time.Hour)); err != nil {
		return fmt.Errorf("forget old sign-in failures: %w", translate(err))
	}
	return nil
}

// ClearSignInFailures implements shop.SignInThrottleStore.
func (s *SignInStore) ClearSignInFailures(ctx context.Context, key string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM sign_in_failures WHERE key_hash = ?`, signInKeyHash(key)); err != nil {
		return fmt.Errorf("clear sign-in failures: %w", translate(err))
	}
	return nil
}
