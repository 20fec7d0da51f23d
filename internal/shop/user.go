package shop

import (
	"context"
	"time"
)

// User is a dashboard user of one account.
type User struct {
	ID        int64
	AccountID int64
	Email     string
	Role      string
	CreatedAt Time
}

// CanReactivate reports whether the user's role may reactivate purchases.
func (u *User) CanReactivate() bool { return u.Role == RoleOwner || u.Role == RoleStaff }

// IsOwner reports whether the user manages users and keys.
func (u *User) IsOwner() bool { return u.Role == RoleOwner }

// SessionTTL is how long a dashboard session lasts without use.
const SessionTTL = 7 * 24 * time.Hour

// SessionClient is where a session was opened from: the device (named from the user
// agent) and the client's address.
type SessionClient struct {
	Device  string
	Address string
	// UserAgent is what the audit record keeps of the client, as it was sent.
	UserAgent string
}

// Audit record actions: what a user did to sign in or to guard their account
// (docs/SECURITY.md#audit-records).
const (
	AuditSignIn             = "sign_in"
	AuditSignInFailed       = "sign_in_failed"
	AuditSecondFactor       = "sign_in_second_factor"
	AuditSecondFactorFailed = "sign_in_second_factor_failed"
	AuditFactorAdded        = "factor_added"
	AuditFactorRemoved      = "factor_removed"
	AuditSessionEnded       = "session_ended"
)

// Session is one signed-in session of a user, as the Security page lists it.
type Session struct {
	ID         int64
	Client     SessionClient
	SignedInAt Time
	LastSeenAt Time
}

// UserService signs dashboard users in and keeps their sessions server-side, so that
// signing out (or a password change) really ends them.
type UserService interface {
	// PasskeyService keeps the users' passkeys.
	PasskeyService
	// CheckPassword returns the user with this e-mail and password. Returns
	// EUnauthenticated for an unknown e-mail or a wrong password, alike.
	// A wrong password of a known user leaves an AuditSignInFailed record.
	CheckPassword(ctx context.Context, email, password string, client SessionClient) (*User, error)
	// CreateSession starts a session for the user of the account, from client, and
	// returns its secret token.
	CreateSession(ctx context.Context, accountID, userID int64, client SessionClient) (string, error)
	// FindSession returns the user of a live session of the account and the session's
	// id, and marks it seen. Returns EUnauthenticated when the token names no live
	// session of the account (signed out, ended elsewhere, expired, user removed).
	FindSession(ctx context.Context, accountID int64, token string) (*User, int64, error)
	// DeleteSession ends one session.
	DeleteSession(ctx context.Context, accountID int64, token string, client SessionClient) error
	// FindSessions returns the user's live sessions, the last seen first.
	FindSessions(ctx context.Context, accountID, userID int64) ([]*Session, error)
	// EndSession ends one session of the user. Returns ENotFound when the user has no
	// live session with that id.
	EndSession(ctx context.Context, accountID, userID, sessionID int64, client SessionClient) error
	// EndOtherSessions ends every session of the user but keepID and returns how many.
	EndOtherSessions(ctx context.Context, accountID, userID, keepID int64, client SessionClient) (int, error)
	// FindUserByID returns a user of the account. Returns ENotFound for a user not in
	// the account.
	FindUserByID(ctx context.Context, accountID, id int64) (*User, error)
	// ChangePassword checks the user's current password, sets next, ends all of the
	// user's sessions and returns the token of a new one. Returns EInvalid with param
	// current_password (a wrong password) or new_password.
	ChangePassword(ctx context.Context, accountID, userID int64, current, next string, client SessionClient) (string, error)

	// FindAuthenticator returns the user's authenticator app. Returns ENotFound when
	// the user has none.
	FindAuthenticator(ctx context.Context, accountID, userID int64) (*Authenticator, error)
	// AddAuthenticator stores the user's authenticator app, whose code of time step
	// usedStep confirmed it, with the user's recovery codes (kept hashed), replacing
	// any earlier ones. Returns EInvalid when the user has an authenticator already.
	AddAuthenticator(ctx context.Context, accountID, userID int64, secret string, usedStep int64, recoveryCodes []string, client SessionClient) error
	// UseAuthenticatorStep records that the code of time step step was accepted.
	// Returns EInvalid when a code of that step or a later one was accepted already.
	UseAuthenticatorStep(ctx context.Context, accountID, userID, step int64, client SessionClient) error
	// UseRecoveryCode spends one of the user's recovery codes. Returns
	// EUnauthenticated when code is not one of them or was used.
	UseRecoveryCode(ctx context.Context, accountID, userID int64, code string, client SessionClient) error
	// RemoveAuthenticator removes the user's authenticator app and recovery codes and
	// ends every session of the user but keepSessionID. Returns ENotFound when the
	// user has none.
	RemoveAuthenticator(ctx context.Context, accountID, userID, keepSessionID int64, client SessionClient) error
	// RecordSecondFactorFailure leaves an AuditSecondFactorFailed record of a code
	// that matched no step.
	RecordSecondFactorFailure(ctx context.Context, accountID, userID int64, client SessionClient) error
}

// Authenticator is a user's authenticator app (TOTP): its secret and how many recovery
// codes are left.
type Authenticator struct {
	Secret            string
	LastStep          int64
	RecoveryCodesLeft int
	AddedAt           Time
}

// APIKeyInfo describes a key for the owner's list; the secret is never kept.
type APIKeyInfo struct {
	ID         int64
	Name       string
	Scope      string
	CreatedAt  Time
	LastUsedAt *Time
	RevokedAt  *Time
}

// AdminService is what an owner manages: the account's users and API keys.
type AdminService interface {
	// TwoFactorService turns the account's requirement of two-step sign-in on and off.
	TwoFactorService
	FindUsers(ctx context.Context, accountID int64) ([]*User, error)
	// CreateUser returns EInvalid for a bad e-mail, role or password, or a taken e-mail.
	CreateUser(ctx context.Context, accountID int64, email, role, password string) (int64, error)
	// SetUserRole returns ENotFound for a user not in the account.
	SetUserRole(ctx context.Context, accountID, userID int64, role string) error
	// DeleteUser returns ENotFound for a user not in the account.
	DeleteUser(ctx context.Context, accountID, userID int64) error
	FindAPIKeys(ctx context.Context, accountID int64) ([]*APIKeyInfo, error)
	CreateAPIKey(ctx context.Context, accountID int64, name, scope string) (string, error)
	// RevokeAPIKey returns ENotFound for a key not in the account.
	RevokeAPIKey(ctx context.Context, accountID, keyID int64) error
}

// SignInFailures is what a throttle key (a client address or an e-mail) has failed:
// how many sign-ins in a row and when the last one was.
type SignInFailures struct {
	Count int
	Last  time.Time
}

// SignInThrottleStore keeps failed sign-ins where every instance of the program sees
// them, so that the sign-in throttle holds across instances. Keys are opaque strings
// such as "ip:192.0.2.1" or "email:zoe@example.com".
type SignInThrottleStore interface {
	// SignInFailures returns the failures of those keys whose last failure was at or
	// after since.
	SignInFailures(ctx context.Context, keys []string, since time.Time) (map[string]SignInFailures, error)
	// AddSignInFailure counts a failure at now under each key; a count whose last
	// failure was before restart starts again at one.
	AddSignInFailure(ctx context.Context, keys []string, now, restart time.Time) error
	// ClearSignInFailures forgets the failures of key.
	ClearSignInFailures(ctx context.Context, key string) error
}

// KeepAnOwner returns an EInvalid error when giving target the role newRole ("" to
// remove the user) would leave the account, whose users are given, without an owner:
// the last owner stays an owner.
func KeepAnOwner(users []*User, target *User, newRole string) error {
	if target.Role != RoleOwner || newRole == RoleOwner {
		return nil
	}
	for _, u := range users {
		if u.ID != target.ID && u.Role == RoleOwner {
			return nil
		}
	}
	who := target.Email
	if who == "" {
		who = "This user"
	}
	if newRole == "" {
		return ParamErrorf(EInvalid, "role", "%s is the account's only owner and cannot be removed. Make another user an owner first.", who)
	}
	return ParamErrorf(EInvalid, "role", "%s is the account's only owner and must stay one. Make another user an owner first.", who)
}
