package shop

import (
	"context"
	"time"
)

// Audit record actions of passkeys and of the account's two-factor requirement
// (docs/SECURITY.md#audit-records). A passkey added or removed is an AuditFactorAdded
// or AuditFactorRemoved record whose details name it; a sign-in with a passkey is an
// AuditSignIn record with the details "passkey: NAME".
const (
	// AuditPasskeySignInFailed is a passkey's answer refused for a known user.
	AuditPasskeySignInFailed = "sign_in_passkey_failed"
	// AuditRequireTwoFactor is the requirement turned on or off (details "on", "off").
	AuditRequireTwoFactor = "require_two_factor"
)

// MaxPasskeyNameLen is the longest name of a passkey, in characters.
const MaxPasskeyNameLen = 64

// Passkey is one of a user's WebAuthn credentials, as stored.
type Passkey struct {
	ID        int64
	AccountID int64
	UserID    int64
	Name      string
	// CredentialID and PublicKey are the authenticator's; AAGUID names its model.
	CredentialID    []byte
	PublicKey       []byte
	AttestationType string
	AAGUID          []byte
	Transports      []string
	// Flags is the authenticator data's flags byte at registration (backup
	// eligibility must not change afterwards).
	Flags byte
	// SignCount is the signature counter last seen: an authenticator that counts must
	// show a larger one each time.
	SignCount  uint32
	AddedAt    Time
	LastUsedAt *Time
}

// Ceremony kinds.
const (
	CeremonyRegister = "register"
	CeremonySignIn   = "sign_in"
)

// CeremonyTTL is how long a passkey ceremony may take, from its challenge to its answer.
const CeremonyTTL = 5 * time.Minute

// Ceremony is a passkey ceremony under way: what the WebAuthn library needs to check
// its answer (SessionData, as JSON), and for whom (AccountID and UserID are 0 for a
// sign-in, where nobody is known yet). Name is the name of the passkey being added.
type Ceremony struct {
	Kind        string
	AccountID   int64
	UserID      int64
	Name        string
	SessionData []byte
}

// PasskeyService keeps users' passkeys and the ceremonies that add them and sign in
// with them; *mysql.UserService implements it.
type PasskeyService interface {
	// FindPasskeys returns the user's passkeys, the oldest first.
	FindPasskeys(ctx context.Context, accountID, userID int64) ([]*Passkey, error)
	// AddPasskey stores a new passkey (AuditFactorAdded). Returns EInvalid when the
	// credential is stored already.
	AddPasskey(ctx context.Context, p *Passkey, client SessionClient) error
	// RemovePasskey removes one of the user's passkeys and ends every session of the
	// user but keepSessionID (AuditFactorRemoved). Returns ENotFound when the user has
	// no passkey id, EInvalid when it is the last factor of the account's last owner
	// with one while the account requires two-step sign-in.
	RemovePasskey(ctx context.Context, accountID, userID, id, keepSessionID int64, client SessionClient) error
	// SignInWithPasskey records a verified use of the user's passkey credentialID with
	// the authenticator's counter signCount, and starts a session (AuditSignIn),
	// returning its token. Returns EUnauthenticated when the passkey is no longer the
	// user's, or when the counter did not grow (a replayed or cloned authenticator's
	// answer) while either the stored or the new counter is not 0.
	SignInWithPasskey(ctx context.Context, accountID, userID int64, credentialID []byte, signCount uint32, client SessionClient) (string, error)
	// RecordPasskeyFailure leaves an AuditPasskeySignInFailed record saying why.
	RecordPasskeyFailure(ctx context.Context, accountID, userID int64, why string, client SessionClient) error
	// SaveCeremony keeps a ceremony under the token for CeremonyTTL.
	SaveCeremony(ctx context.Context, token string, c Ceremony) error
	// TakeCeremony returns the ceremony of the token and deletes it, so that its
	// challenge is answered once. Returns ENotFound when there is none (never begun,
	// used already, or expired).
	TakeCeremony(ctx context.Context, token string) (*Ceremony, error)
	// HasSecondFactor reports whether the user has a passkey or an authenticator app.
	HasSecondFactor(ctx context.Context, accountID, userID int64) (bool, error)
}

// TwoFactorService turns the account's requirement of two-step sign-in on and off;
// *mysql.AdminService implements it.
type TwoFactorService interface {
	// SetRequireTwoFactor turns the requirement on or off, by the owner userID
	// (AuditRequireTwoFactor). Turning it on returns EInvalid when that owner has no
	// second factor.
	SetRequireTwoFactor(ctx context.Context, accountID, userID int64, on bool, client SessionClient) error
}
