package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"storefront/internal/shop"
)

// FindPasskeys implements shop.PasskeyService.
func (s *UserService) FindPasskeys(ctx context.Context, accountID, userID int64) ([]*shop.Passkey, error) {
	var out []*shop.Passkey
	err := eachRow(ctx, s.db.DB, `SELECT id, name, credential_id, public_key, attestation_type, aaguid, transports, flags, sign_count, created_at, last_used_at
		FROM user_passkeys WHERE account_id = ? AND user_id = ? ORDER BY id`, []any{accountID, userID}, func(rows *sql.Rows) error {
		p := &shop.Passkey{AccountID: accountID, UserID: userID}
		var transports string
		var created time.Time
		var used sql.NullTime
		if err := rows.Scan(&p.ID, &p.Name, &p.CredentialID, &p.PublicKey, &p.AttestationType, &p.AAGUID, &transports, &p.Flags, &p.SignCount, &created, &used); err != nil {
			return err
		}
		if transports != "" {
			p.Transports = strings.Split(transports, ",")
		}
		p.AddedAt = shop.NewTime(created)
		if used.Valid {
			t := shop.NewTime(used.Time)
			p.LastUsedAt = &t
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// AddPasskey implements shop.PasskeyService.
func (s *UserService) AddPasskey(ctx context.Context, p *shop.Passkey, client shop.SessionClient) error {
	now := s.db.nowSecond()
	return s.db.inTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO user_passkeys (account_id, user_id, credential_id, name, public_key, attestation_type, aaguid, transports, flags, sign_count, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.AccountID, p.UserID, p.CredentialID, truncateRunes(p.Name, shop.MaxPasskeyNameLen), p.PublicKey, truncateRunes(p.AttestationType, 32),
			p.AAGUID, truncateRunes(strings.Join(p.Transports, ","), 128), p.Flags, p.SignCount, now)
		if isDuplicate(err) {
			return shop.Errorf(shop.EInvalid, "This passkey is added already.")
		}
		if err != nil {
			return translate(err)
		}
		return insertAudit(ctx, tx, now, p.AccountID, p.UserID, shop.AuditFactorAdded, "passkey: "+p.Name, client)
	})
}

// RemovePasskey implements shop.PasskeyService.
func (s *UserService) RemovePasskey(ctx context.Context, accountID, userID, id, keepSessionID int64, client shop.SessionClient) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		var name string
		err := tx.QueryRowContext(ctx, "SELECT name FROM user_passkeys WHERE account_id = ? AND user_id = ? AND id = ?", accountID, userID, id).Scan(&name)
		if errors.Is(err, sql.ErrNoRows) {
			return shop.Errorf(shop.ENotFound, "You have no passkey %d; it may have been removed already.", id)
		}
		if err != nil {
			return translate(err)
		}
		if err := keepOwnerFactor(ctx, tx, accountID, userID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM user_passkeys WHERE account_id = ? AND user_id = ? AND id = ?", accountID, userID, id)
		if err := mustAffect(res, err, "You have no passkey %d; it may have been removed already.", id); err != nil {
			return err
		}
		// A removed factor ends the user's other sessions at once, on every instance.
		if _, err := tx.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND user_id = ? AND id <> ?", accountID, userID, keepSessionID); err != nil {
			return translate(err)
		}
		return insertAudit(ctx, tx, s.db.Now(), accountID, userID, shop.AuditFactorRemoved, "passkey: "+name, client)
	})
}

// keepOwnerFactor refuses, while the account requires two-step sign-in, to take the
// last second factor of the account's last owner who has one: the requirement stays
// kept by someone who can turn it off. It must be called before the factor is
// deleted; it locks the account's row, so that two removals (or a removal and the
// requirement turned on) are decided one after the other.
func keepOwnerFactor(ctx context.Context, tx *Tx, accountID, userID int64) error {
	var required bool
	if err := tx.QueryRowContext(ctx, "SELECT require_two_factor FROM accounts WHERE id = ? FOR UPDATE", accountID).Scan(&required); err != nil {
		return translate(err)
	}
	if !required {
		return nil
	}
	var role string
	if err := tx.QueryRowContext(ctx, "SELECT role FROM users WHERE account_id = ? AND id = ?", accountID, userID).Scan(&role); err != nil {
		return translate(err)
	}
	if role != shop.RoleOwner {
		return nil
	}
	n, err := countFactors(ctx, tx, accountID, userID)
	if err != nil || n > 1 {
		return err
	}
	var others int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users u WHERE u.account_id = ? AND u.role = 'owner' AND u.id <> ?
		AND (EXISTS (SELECT 1 FROM user_totp t WHERE t.account_id = ? AND t.user_id = u.id)
		  OR EXISTS (SELECT 1 FROM user_passkeys p WHERE p.account_id = ? AND p.user_id = u.id))`,
		accountID, userID, accountID, accountID).Scan(&others); err != nil {
		return translate(err)
	}
	if others > 0 {
		return nil
	}
	return shop.Errorf(shop.EInvalid, "This account requires two-step sign-in, and this is the last second factor of its last owner who has one. "+
		"Add another passkey or an authenticator app first, or turn the requirement off on the Keys & users page.")
}

// countFactors counts the user's second factors: passkeys, and the authenticator app.
func countFactors(ctx context.Context, q queryer, accountID, userID int64) (int, error) {
	var keys, apps int
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM user_passkeys WHERE account_id = ? AND user_id = ?", accountID, userID).Scan(&keys); err != nil {
		return 0, translate(err)
	}
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM user_totp WHERE account_id = ? AND user_id = ?", accountID, userID).Scan(&apps); err != nil {
		return 0, translate(err)
	}
	return keys + apps, nil
}

// HasSecondFactor implements shop.PasskeyService.
func (s *UserService) HasSecondFactor(ctx context.Context, accountID, userID int64) (bool, error) {
	n, err := countFactors(ctx, s.db.DB, accountID, userID)
	return n > 0, err
}

// SignInWithPasskey implements shop.PasskeyService. The counter is written only if it
// grew, in the statement that checks it, so that two sign-ins with one answer cannot
// both pass; authenticators that do not count (0, as synced passkeys send) rely on the
// single-use challenge alone.
func (s *UserService) SignInWithPasskey(ctx context.Context, accountID, userID int64, credentialID []byte, signCount uint32, client shop.SessionClient) (string, error) {
	token, err := newToken()
	if err != nil {
		return "", err
	}
	now := s.db.nowSecond()
	var name string
	err = s.db.inTx(ctx, func(tx *Tx) error {
		var stored uint32
		err := tx.QueryRowContext(ctx, "SELECT name, sign_count FROM user_passkeys WHERE account_id = ? AND user_id = ? AND credential_id = ? FOR UPDATE",
			accountID, userID, credentialID).Scan(&name, &stored)
		if errors.Is(err, sql.ErrNoRows) {
			return shop.Errorf(shop.EUnauthenticated, "This passkey is no longer on your account.")
		}
		if err != nil {
			return translate(err)
		}
		if (signCount != 0 || stored != 0) && signCount <= stored {
			return shop.Errorf(shop.EUnauthenticated, "This passkey's answer was seen before (its counter did not grow). Try again; if it happens again, remove the passkey and add it anew.")
		}
		if _, err := tx.ExecContext(ctx, "UPDATE user_passkeys SET sign_count = ?, last_used_at = ? WHERE account_id = ? AND user_id = ? AND credential_id = ?",
			signCount, now, accountID, userID, credentialID); err != nil {
			return translate(err)
		}
		if _, err := tx.ExecContext(ctx, insertSession, sessionValues(token, accountID, userID, now, client)...); err != nil {
			return translate(err)
		}
		return insertAudit(ctx, tx, now, accountID, userID, shop.AuditSignIn, "passkey: "+name, client)
	})
	if code := shop.ErrorCode(err); code == shop.EUnauthenticated {
		if aerr := insertAudit(ctx, s.db.DB, now, accountID, userID, shop.AuditPasskeySignInFailed, truncateRunes(shop.ErrorMessage(err), 200), client); aerr != nil {
			return "", aerr
		}
	}
	if err != nil {
		return "", err
	}
	_, _ = s.db.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND expires_at < ? LIMIT 1000", accountID, now)
	return token, nil
}

// RecordPasskeyFailure implements shop.PasskeyService.
func (s *UserService) RecordPasskeyFailure(ctx context.Context, accountID, userID int64, why string, client shop.SessionClient) error {
	return insertAudit(ctx, s.db.DB, s.db.Now(), accountID, userID, shop.AuditPasskeySignInFailed, why, client)
}

// SaveCeremony implements shop.PasskeyService. Ceremonies that expired are deleted on
// the way, a few at a time.
func (s *UserService) SaveCeremony(ctx context.Context, token string, c shop.Ceremony) error {
	now := s.db.Now().UTC()
	if _, err := s.db.ExecContext(ctx, `INSERT INTO webauthn_ceremonies (token_hash, kind, account_id, user_id, name, session_data, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		hashToken(token), c.Kind, c.AccountID, c.UserID, truncateRunes(c.Name, shop.MaxPasskeyNameLen), string(c.SessionData), now.Add(shop.CeremonyTTL)); err != nil {
		return fmt.Errorf("save passkey ceremony: %w", translate(err))
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM webauthn_ceremonies WHERE expires_at < ? LIMIT 100", now); err != nil {
		return fmt.Errorf("forget old passkey ceremonies: %w", translate(err))
	}
	return nil
}

// TakeCeremony implements shop.PasskeyService: the row is locked, read and deleted in
// one transaction, so that of two answers to one challenge only the first finds it.
func (s *UserService) TakeCeremony(ctx context.Context, token string) (*shop.Ceremony, error) {
	gone := shop.Errorf(shop.ENotFound, "This passkey request has expired or was used already. Try again.")
	var c shop.Ceremony
	expired := false
	err := s.db.inTx(ctx, func(tx *Tx) error {
		var data string
		var expires time.Time
		err := tx.QueryRowContext(ctx, "SELECT kind, account_id, user_id, name, session_data, expires_at FROM webauthn_ceremonies WHERE token_hash = ? FOR UPDATE",
			hashToken(token)).Scan(&c.Kind, &c.AccountID, &c.UserID, &c.Name, &data, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return gone
		}
		if err != nil {
			return translate(err)
		}
		c.SessionData = []byte(data)
		if _, err := tx.ExecContext(ctx, "DELETE FROM webauthn_ceremonies WHERE token_hash = ?", hashToken(token)); err != nil {
			return translate(err)
		}
		// An expired row is deleted all the same, and refused once committed.
		expired = !expires.After(s.db.Now().UTC())
		return nil
	})
	if err != nil {
		return nil, err
	}
	if expired {
		return nil, gone
	}
	return &c, nil
}

// SetRequireTwoFactor implements shop.TwoFactorService.
func (s *AdminService) SetRequireTwoFactor(ctx context.Context, accountID, userID int64, on bool, client shop.SessionClient) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		var was bool
		if err := tx.QueryRowContext(ctx, "SELECT require_two_factor FROM accounts WHERE id = ? FOR UPDATE", accountID).Scan(&was); err != nil {
			return translate(err)
		}
		if was == on {
			return nil
		}
		if on {
			n, err := countFactors(ctx, tx, accountID, userID)
			if err != nil {
				return err
			}
			if n == 0 {
				return shop.ParamErrorf(shop.EInvalid, "require_two_factor", "Add a passkey or an authenticator app to your own sign-in first (on the Security page): the requirement would lock you out of everything else.")
			}
		}
		if _, err := tx.ExecContext(ctx, "UPDATE accounts SET require_two_factor = ? WHERE id = ?", on, accountID); err != nil {
			return translate(err)
		}
		details := "off"
		if on {
			details = "on"
		}
		return recordAudit(ctx, tx, s.db.Now(), accountID, shop.AuditRequireTwoFactor, details)
	})
}
