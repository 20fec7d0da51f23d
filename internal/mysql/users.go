package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"storefront/internal/shop"
)

// dummyHash is compared against when the e-mail is unknown, so that a wrong e-mail
// takes as long as a wrong password and does not reveal which accounts exist.
var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("storefront-no-such-user"), bcrypt.MinCost)

// userColumns are the columns of a user, in the order of userFields.
const userColumns = "id, account_id, email, role, created_at"

// userFields are the scan destinations of userColumns in u.
func userFields(u *shop.User) []any {
	return []any{&u.ID, &u.AccountID, &u.Email, &u.Role, &u.CreatedAt}
}

// CheckPassword returns the user with this e-mail and password, or EUnauthenticated.
func (s *UserService) CheckPassword(ctx context.Context, email, password string, client shop.SessionClient) (*shop.User, error) {
	wrong := shop.Errorf(shop.EUnauthenticated, "The e-mail or the password is not right.")
	var u shop.User
	var hash string
	err := s.db.QueryRowContext(ctx, "SELECT "+userColumns+", password_hash FROM users WHERE email = ?", strings.TrimSpace(email)).
		Scan(append(userFields(&u), &hash)...)
	if errors.Is(err, sql.ErrNoRows) {
		_ = bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return nil, wrong
	}
	if err != nil {
		return nil, translate(err)
	}
	if len(password) > MaxPasswordBytes || bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		if err := insertAudit(ctx, s.db.DB, s.db.Now(), u.AccountID, u.ID, shop.AuditSignInFailed, "wrong password", client); err != nil {
			return nil, err
		}
		return nil, wrong
	}
	return &u, nil
}

// FindUserByID returns a user of the account, or ENotFound.
func (s *UserService) FindUserByID(ctx context.Context, accountID, id int64) (*shop.User, error) {
	return scanOne(s.db.QueryRowContext(ctx, "SELECT "+userColumns+" FROM users WHERE account_id = ? AND id = ?", accountID, id),
		shop.Errorf(shop.ENotFound, "User %d was not found.", id), userFields)
}

// FindUsers returns the account's dashboard users ordered by e-mail.
func (s *AdminService) FindUsers(ctx context.Context, accountID int64) ([]*shop.User, error) {
	return collectRows(ctx, s.db.DB, "SELECT "+userColumns+" FROM users WHERE account_id = ? ORDER BY email",
		[]any{accountID}, func(rows *sql.Rows) (*shop.User, error) {
			var u shop.User
			return &u, rows.Scan(userFields(&u)...)
		})
}

// SetUserRole changes a user's role; the user's sessions keep going with the new role.
// The account's last owner cannot stop being one (EInvalid).
func (s *AdminService) SetUserRole(ctx context.Context, accountID, userID int64, role string) error {
	if !shop.ValidRole(role) {
		return shop.ParamErrorf(shop.EInvalid, "role", "Role must be owner, staff or viewer.")
	}
	return s.db.inTx(ctx, func(tx *Tx) error {
		if err := keepAnOwner(ctx, tx, accountID, userID, role); err != nil {
			return err
		}
		email, was, err := lockedUser(ctx, tx, accountID, userID)
		if err != nil || was == role {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE users SET role = ? WHERE id = ? AND account_id = ?", role, userID, accountID); err != nil {
			return translate(err)
		}
		return recordAudit(ctx, tx, s.db.Now(), accountID, shop.AuditUserRoleChanged, fmt.Sprintf("%s: %s to %s", email, was, role))
	})
}

// DeleteUser removes a user and ends their sessions. The account's last owner cannot
// be removed (EInvalid).
func (s *AdminService) DeleteUser(ctx context.Context, accountID, userID int64) error {
	return s.db.inTx(ctx, func(tx *Tx) error {
		if err := keepAnOwner(ctx, tx, accountID, userID, ""); err != nil {
			return err
		}
		// The user's sessions end with them, on every instance: each request reads its
		// session from the database.
		if _, err := tx.ExecContext(ctx, "DELETE FROM user_sessions WHERE account_id = ? AND user_id = ?", accountID, userID); err != nil {
			return translate(err)
		}
		// Their factors go too: a passkey alone signs in, and an authenticator app's
		// secret and recovery codes are no one's to keep.
		for _, table := range []string{"user_passkeys", "user_totp", "user_recovery_codes"} {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE account_id = ? AND user_id = ?", accountID, userID); err != nil {
				return translate(err)
			}
		}
		email, role, err := lockedUser(ctx, tx, accountID, userID)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM users WHERE id = ? AND account_id = ?", userID, accountID); err != nil {
			return translate(err)
		}
		return recordAudit(ctx, tx, s.db.Now(), accountID, shop.AuditUserRemoved, fmt.Sprintf("%s (%s)", email, role))
	})
}

// lockedUser returns the e-mail and role of a user of the account, whose row the
// transaction has locked. Returns ENotFound for a user not in the account.
func lockedUser(ctx context.Context, tx *Tx, accountID, userID int64) (string, string, error) {
	var email, role string
	err := tx.QueryRowContext(ctx, "SELECT email, role FROM users WHERE account_id = ? AND id = ? FOR UPDATE", accountID, userID).Scan(&email, &role)
	if errors.Is(err, sql.ErrNoRows) {
		return "", "", shop.Errorf(shop.ENotFound, "User %d was not found.", userID)
	}
	return email, role, translate(err)
}

// keepAnOwner refuses to leave the account without an owner when userID takes newRole
// ("" for removal). It locks the account's users, so that two owners demoting each
// other at once cannot both succeed.
func keepAnOwner(ctx context.Context, tx *Tx, accountID, userID int64, newRole string) error {
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
	var id int64
	err = db.inTx(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, "INSERT INTO users (account_id, email, password_hash, role, created_at, password_changed_at) VALUES (?, ?, ?, ?, ?, ?)",
			accountID, email, string(hash), role, now, now)
		if isDuplicate(err) {
			return shop.ParamErrorf(shop.EInvalid, "email", "A user with the e-mail %s already exists.", email)
		}
		if err != nil {
			return translate(err)
		}
		if id, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("user id: %w", err)
		}
		return recordAudit(ctx, tx, now, accountID, shop.AuditUserAdded, fmt.Sprintf("%s (%s)", email, role))
	})
	if err != nil {
		return 0, err
	}
	return id, nil
}
