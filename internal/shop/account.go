package shop

import "context"

// Account owns storefronts, API keys and dashboard users
// (docs/API.md#accounts-and-tenancy).
type Account struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	APIUsername string `json:"api_username"`
	// Timezone is an IANA zone name; dates in filters are read in it.
	Timezone string `json:"timezone"`
	// RequireTwoFactor is whether every user must sign in with a second factor: a
	// user without one can reach only the Security page.
	RequireTwoFactor bool `json:"-"`
}

// Storefront belongs to an account and owns subscribers, products and purchases.
type Storefront struct {
	ID        int64   `json:"id"`
	AccountID int64   `json:"account_id"`
	Name      string  `json:"name"`
	Currency  *string `json:"currency"`
	// DownloadLimit is how often a product may be downloaded; 0 means unlimited.
	DownloadLimit int64 `json:"download_limit"`
	// DownloadDays is how long downloads stay open after fulfilment; 0 means forever.
	DownloadDays int64 `json:"download_days"`
	// PastDueGraceDays is how long a PAST_DUE subscription keeps service
	// (docs/API.md#entitlement).
	PastDueGraceDays int64 `json:"past_due_grace_days"`
}

// DefaultPastDueGraceDays is the grace period when a storefront names none.
const DefaultPastDueGraceDays = 14

// Roles of dashboard users: an owner may do everything and manages users and keys,
// staff may also reactivate, a viewer only reads.
const (
	RoleOwner  = "owner"
	RoleStaff  = "staff"
	RoleViewer = "viewer"
)

// ValidRole reports whether r is a dashboard role.
func ValidRole(r string) bool { return r == RoleOwner || r == RoleStaff || r == RoleViewer }

// API key scopes (docs/API.md#authentication).
const (
	ScopeRead      = "read"
	ScopeReadWrite = "read_write"
	// ScopeAudit reads the account's audit log (GET /api/v2/audit) and nothing else.
	ScopeAudit = "audit"
)

// ValidScope reports whether s is an API key scope.
func ValidScope(s string) bool { return s == ScopeRead || s == ScopeReadWrite || s == ScopeAudit }

// AccountService reads accounts and storefronts.
type AccountService interface {
	// FindAccountByID returns ENotFound for an unknown id.
	FindAccountByID(ctx context.Context, id int64) (*Account, error)
	// FindStorefronts returns the account's storefronts ordered by id.
	FindStorefronts(ctx context.Context, accountID int64) ([]*Storefront, error)
	// FindProducts returns the products of the account's storefronts, by name.
	FindProducts(ctx context.Context, accountID int64) ([]Product, error)
	// FindDomains returns up to limit e-mail domains of the account's purchases that
	// start with prefix, as a search's domain: compares (docs/SEARCH.md#text), in the
	// collation's order, each once.
	FindDomains(ctx context.Context, accountID int64, prefix string, limit int) ([]string, error)
}

// APIKey is an authenticated API key with what the request needs to know of its account.
type APIKey struct {
	ID          int64
	AccountID   int64
	Name        string
	Scope       string
	APIUsername string
	Timezone    string
}

// APIKeyService authenticates API keys.
type APIKeyService interface {
	// AuthenticateAPIKey returns the live (not revoked) key with this secret. Returns
	// EUnauthenticated when there is none.
	AuthenticateAPIKey(ctx context.Context, secret string) (*APIKey, error)
	// TouchAPIKey records that the account's key was used now.
	TouchAPIKey(ctx context.Context, accountID, id int64) error
}

// Product is something a storefront sells.
type Product struct {
	ID           int64
	StorefrontID int64
	Name         string
}
