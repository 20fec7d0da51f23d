package mysql

import (
	"context"
	"database/sql"
	"errors"

	"golang.org/x/crypto/bcrypt"

	"storefront/internal/shop"
)

// MinPasswordBytes is the shortest password a user may choose.
const MinPasswordBytes = 8

// ChangePassword replaces the user's password after checking the current one, ends
// every session of the user and starts a new one, whose token it returns: the caller
// renews its own session with it, and every other session is signed out.
//
// It returns EInvalid with param current_password when current is not the user's
// password, EInvalid with param new_password when next is shorter than
// MinPasswordBytes or longer than MaxPasswordBytes, and ENotFound for an unknown user.
func (s *UserService) ChangePassword(ctx context.Context, accountID, userID int64, current, next string, client shop.SessionClient) (string, error) {
	db := s.db
	switch {
	case len(next) < MinPasswordBytes:
		return "", shop.ParamErrorf(shop.EInvalid, "new_password", "The new password must have at least %d characters.", MinPasswordBytes)
	case len(next) > MaxPasswordBytes:
		return "", shop.ParamErrorf(shop.EInvalid, "new_password", "The new password must have at most %d bytes.", MaxPasswordBytes)
	}
	wrong := shop.ParamErrorf(shop.EInvalid, "current_password", "The current password is not right.")
	var old string
	err := db.QueryRowContext(ctx, "SELECT password_hash FROM users WHERE account_id = ? AND id = ?", accountID, userID).Scan(&old)
	if errors.Is(err, sql.ErrNoRows) {
		return "", shop.Errorf(shop.ENotFound, "User %d was not found.", userID)
	}
	if err != nil {
		return "", translate(err)
	}
	if len(current) > MaxPasswordBytes || bcrypt.CompareHashAndPassword([]byte(old), []byte(current)) != nil {
		return "", wrong
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(next), BcryptCost)
	if err != nil {
		return "", err
	}
	token, err := newToken()
	if err != nil {
		return "", err
	}
	now := db.nowSecond()
	err = db.inTx(ctx, func(tx *Tx) error {
		// The hash checked above must still be the user's: two changes at once cannot
		// both pass with the same current password.
		res, err := tx.ExecContext(ctx, "UPDATE users SET password_hash = ?, password_changed_at = ? WHERE account_id = ? AND id = ? AND password_hash = ?",
			string(hash), now, accountID, userID, old)
		if err := changedOrRefused(res, err, wrong); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND user_id = ?", accountID, userID); err != nil {
			return translate(err)
		}
		_, err = tx.ExecContext(ctx, insertSession, sessionValues(token, accountID, userID, now, client)...)
		return translate(err)
	})
	if err != nil {
		return "", err
	}
	return token, nil
}
