package mysql

import (
	"context"
	"database/sql"
	"strings"

	"storefront/internal/shop"
)

// recoveryCodeHash is how a recovery code is stored: SHA-256 of the code as typed, less
// spaces and dashes, in lower case.
func recoveryCodeHash(code string) []byte {
	return hashToken(strings.ToLower(strings.NewReplacer(" ", "", "-", "").Replace(code)))
}

// FindAuthenticator implements shop.UserService.
func (s *UserService) FindAuthenticator(ctx context.Context, accountID, userID int64) (*shop.Authenticator, error) {
	return scanOne(s.db.QueryRowContext(ctx, `SELECT t.secret, t.last_step, t.created_at,
		(SELECT COUNT(*) FROM user_recovery_codes r WHERE r.account_id = ? AND r.user_id = ? AND r.used_at IS NULL)
		FROM user_totp t WHERE t.account_id = ? AND t.user_id = ?`, accountID, userID, accountID, userID),
		shop.Errorf(shop.ENotFound, "You have no authenticator app."),
		func(a *shop.Authenticator) []any {
			return []any{&a.Secret, &a.LastStep, &a.AddedAt, &a.RecoveryCodesLeft}
		})
}

// AddAuthenticator implements shop.UserService.
func (s *UserService) AddAuthenticator(ctx context.Context, accountID, userID int64, secret string, usedStep int64, recoveryCodes []string, client shop.SessionClient) error {
	now := s.db.Now().UTC()
	return s.db.inTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO user_totp (account_id, user_id, secret, last_step, created_at) VALUES (?, ?, ?, ?, ?)",
			accountID, userID, secret, usedStep, now)
		if isDuplicate(err) {
			return shop.Errorf(shop.EInvalid, "You already have an authenticator app; remove it first to set up another.")
		}
		if err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM user_recovery_codes WHERE account_id = ? AND user_id = ?", accountID, userID); err != nil {
			return translate(err)
		}
		if len(recoveryCodes) > 0 {
			var values []any
			for _, c := range recoveryCodes {
				values = append(values, accountID, userID, recoveryCodeHash(c))
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO user_recovery_codes (account_id, user_id, code_hash) VALUES "+rowPlaceholders(len(recoveryCodes), 3), values...); err != nil {
				return translate(err)
			}
		}
		return insertAudit(ctx, tx, now, accountID, userID, shop.AuditFactorAdded, "authenticator app", client)
	})
}

// UseAuthenticatorStep implements shop.UserService: the step is recorded only if it
// is later than the last one accepted, in one statement, so that two sign-ins with the
// same code at once cannot both pass.
func (s *UserService) UseAuthenticatorStep(ctx context.Context, accountID, userID, step int64, client shop.SessionClient) error {
	return s.useSecondFactor(ctx, accountID, userID, "authenticator app", client, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE user_totp SET last_step = ? WHERE account_id = ? AND user_id = ? AND last_step < ?",
			step, accountID, userID, step)
		return changedOrRefused(res, err, shop.Errorf(shop.EInvalid, "That code was used already. Wait for your app to show the next one."))
	})
}

// useSecondFactor runs use, which spends a code, and records the attempt: a success
// in use's transaction, a refusal on its own once use's transaction is rolled back.
func (s *UserService) useSecondFactor(ctx context.Context, accountID, userID int64, what string, client shop.SessionClient, use func(tx *Tx) error) error {
	now := s.db.Now()
	err := s.db.inTx(ctx, func(tx *Tx) error {
		if err := use(tx); err != nil {
			return err
		}
		return insertAudit(ctx, tx, now, accountID, userID, shop.AuditSecondFactor, what, client)
	})
	if code := shop.ErrorCode(err); code == shop.EInvalid || code == shop.EUnauthenticated {
		if aerr := insertAudit(ctx, s.db.DB, now, accountID, userID, shop.AuditSecondFactorFailed, what+": "+shop.ErrorMessage(err), client); aerr != nil {
			return aerr
		}
	}
	return err
}

// UseRecoveryCode implements shop.UserService.
func (s *UserService) UseRecoveryCode(ctx context.Context, accountID, userID int64, code string, client shop.SessionClient) error {
	return s.useSecondFactor(ctx, accountID, userID, "recovery code", client, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, "UPDATE user_recovery_codes SET used_at = ? WHERE account_id = ? AND user_id = ? AND code_hash = ? AND used_at IS NULL",
			s.db.Now().UTC(), accountID, userID, recoveryCodeHash(code))
		return changedOrRefused(res, err, shop.Errorf(shop.EUnauthenticated, "That recovery code is not right or was used already."))
	})
}

// RemoveAuthenticator implements shop.UserService.
func (s *UserService) RemoveAuthenticator(ctx context.Context, accountID, userID, keepSessionID int64, client shop.SessionClient) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		if err := keepOwnerFactor(ctx, tx, accountID, userID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM user_totp WHERE account_id = ? AND user_id = ?", accountID, userID)
		if err := changedOrRefused(res, err, shop.Errorf(shop.ENotFound, "You have no authenticator app.")); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM user_recovery_codes WHERE account_id = ? AND user_id = ?", accountID, userID); err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND user_id = ? AND id <> ?", accountID, userID, keepSessionID); err != nil {
			return translate(err)
		}
		return insertAudit(ctx, tx, s.db.Now(), accountID, userID, shop.AuditFactorRemoved, "authenticator app", client)
	})
}

// changedOrRefused returns the statement's error, or refused when it changed no row.
func changedOrRefused(res sql.Result, err error, refused error) error {
	if err != nil {
		return translate(err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return translate(err)
	} else if n == 0 {
		return refused
	}
	return nil
}
