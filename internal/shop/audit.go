package shop

import (
	"context"
	"time"
)

// Audit record actions of the dashboard's and the API's changes and bulk reads
// (docs/SECURITY.md#audit-records); the sign-in actions are in user.go.
const (
	AuditReactivated     = "purchase_reactivated"
	AuditJobStarted      = "reactivation_job_started"
	AuditJobCancelled    = "reactivation_job_cancelled"
	AuditExport          = "export"
	AuditNoteAdded       = "note_added"
	AuditNoteDeleted     = "note_deleted"
	AuditViewSaved       = "view_saved"
	AuditViewRemoved     = "view_removed"
	AuditUserAdded       = "user_added"
	AuditUserRoleChanged = "user_role_changed"
	AuditUserRemoved     = "user_removed"
	AuditKeyCreated      = "api_key_created"
	AuditKeyRevoked      = "api_key_revoked"
	AuditWebhookAdded    = "webhook_added"
	AuditWebhookChanged  = "webhook_changed"
	AuditWebhookRotated  = "webhook_secret_rotated"
	AuditWebhookDeleted  = "webhook_deleted"
)

// AuditActions are the actions an audit record may have, as the filters offer them,
// each with its label.
var AuditActions = []struct{ Name, Label string }{
	{AuditSignIn, "Signed in"},
	{AuditSignInFailed, "Sign-in failed"},
	{AuditSecondFactor, "Second factor used"},
	{AuditSecondFactorFailed, "Second factor failed"},
	{AuditFactorAdded, "Factor added"},
	{AuditFactorRemoved, "Factor removed"},
	{AuditSessionEnded, "Session ended"},
	{AuditPasskeySignInFailed, "Passkey sign-in failed"},
	{AuditRequireTwoFactor, "Two-step sign-in requirement"},
	{AuditReactivated, "Purchase reactivated"},
	{AuditJobStarted, "Bulk reactivation started"},
	{AuditJobCancelled, "Bulk reactivation cancelled"},
	{AuditExport, "Export"},
	{AuditNoteAdded, "Note added"},
	{AuditNoteDeleted, "Note deleted"},
	{AuditViewSaved, "View saved"},
	{AuditViewRemoved, "View removed"},
	{AuditUserAdded, "User added"},
	{AuditUserRoleChanged, "User's role changed"},
	{AuditUserRemoved, "User removed"},
	{AuditKeyCreated, "API key created"},
	{AuditKeyRevoked, "API key revoked"},
	{AuditWebhookAdded, "Webhook endpoint added"},
	{AuditWebhookChanged, "Webhook endpoint changed"},
	{AuditWebhookRotated, "Webhook secret rotated"},
	{AuditWebhookDeleted, "Webhook endpoint deleted"},
}

// AuditActionLabel returns the label of an action, or the action itself when it has
// none.
func AuditActionLabel(action string) string {
	for _, a := range AuditActions {
		if a.Name == action {
			return a.Label
		}
	}
	return action
}

// Actor is who makes a request's changes: a signed-in user or an API key, and the
// client they came from. The HTTP layer puts it on the request's context
// (WithActor); the storage layer writes it on the audit records of the changes.
type Actor struct {
	// UserID is the signed-in user; 0 for an API key.
	UserID int64
	// APIKeyID is the API key; 0 for a user.
	APIKeyID int64
	// Name is the user's e-mail or the key's name, as the record keeps it.
	Name   string
	Client SessionClient
}

type actorKey struct{}

// WithActor returns ctx carrying the actor of its changes.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor ctx carries; one with no user and no key (the system:
// a command, a worker) when it carries none.
func ActorFrom(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

// AuditRecord is one entry of the account's audit log.
type AuditRecord struct {
	ID int64
	// UserID and APIKeyID name the actor: one of them is set, or neither for the
	// system.
	UserID   int64
	APIKeyID int64
	// Actor is the user's e-mail or the key's name when the record was written.
	Actor     string
	Action    string
	Details   string
	Address   string
	UserAgent string
	CreatedAt Time
}

// ActorKind is "user", "api_key" or "system".
func (r AuditRecord) ActorKind() string {
	switch {
	case r.APIKeyID != 0:
		return "api_key"
	case r.UserID != 0:
		return "user"
	}
	return "system"
}

// AuditFilter selects audit records: every field's zero value means no condition.
type AuditFilter struct {
	AccountID int64
	// Actor is a user's e-mail or a key's name, matched whole (letter case aside).
	Actor  string
	Action string
	// CreatedFrom and CreatedBefore bound the time: from inclusive, before exclusive.
	CreatedFrom   *time.Time
	CreatedBefore *time.Time
	// After is the last record of the previous page (newest first); nil for the first.
	After   *Cursor
	PerPage int
}

// AuditService reads the account's audit log. Records are written by the services
// that make the changes, in their transactions; none edits or deletes one.
type AuditService interface {
	// FindAuditRecords returns a page of records, newest first, and the cursor of the
	// next page (nil on the last).
	FindAuditRecords(ctx context.Context, f AuditFilter) ([]AuditRecord, *Cursor, error)
}
