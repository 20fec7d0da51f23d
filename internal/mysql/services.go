// The services of the database, one value per entity (as benbjohnson/wtf does): each
// holds the *DB and implements the shop interfaces of its entity, checked by the
// compiler below.
package mysql

import (
	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// PurchaseService reads purchases (list, by id, stored documents, counts, timeline, export) and reactivates them; it implements shop.PurchaseService and shop.PurchaseWriter.
type PurchaseService struct{ db *DB }

// NewPurchaseService returns the PurchaseService of db.
func NewPurchaseService(db *DB) *PurchaseService { return &PurchaseService{db: db} }

// SubscriberService reads subscribers and their activity; it implements shop.SubscriberService.
type SubscriberService struct{ db *DB }

// NewSubscriberService returns the SubscriberService of db.
func NewSubscriberService(db *DB) *SubscriberService { return &SubscriberService{db: db} }

// AccountService reads accounts, their storefronts and products; it implements shop.AccountService.
type AccountService struct{ db *DB }

// NewAccountService returns the AccountService of db.
func NewAccountService(db *DB) *AccountService { return &AccountService{db: db} }

// APIKeyService authenticates API keys; it implements shop.APIKeyService.
type APIKeyService struct{ db *DB }

// NewAPIKeyService returns the APIKeyService of db.
func NewAPIKeyService(db *DB) *APIKeyService { return &APIKeyService{db: db} }

// UserService signs dashboard users in and out and changes their passwords; it implements shop.UserService.
type UserService struct{ db *DB }

// NewUserService returns the UserService of db.
func NewUserService(db *DB) *UserService { return &UserService{db: db} }

// AdminService manages an account's users and API keys; it implements shop.AdminService.
type AdminService struct{ db *DB }

// NewAdminService returns the AdminService of db.
func NewAdminService(db *DB) *AdminService { return &AdminService{db: db} }

// AccountActivityService records and reads the account's activity (exports); it implements shop.AccountActivityService.
type AccountActivityService struct{ db *DB }

// NewAccountActivityService returns the AccountActivityService of db.
func NewAccountActivityService(db *DB) *AccountActivityService {
	return &AccountActivityService{db: db}
}

// OverviewService reads the overview's figures from the rollups; it implements shop.OverviewService.
type OverviewService struct{ db *DB }

// NewOverviewService returns the OverviewService of db.
func NewOverviewService(db *DB) *OverviewService { return &OverviewService{db: db} }

// SavedViewService keeps the purchases page's saved views; it implements shop.SavedViewService.
type SavedViewService struct{ db *DB }

// NewSavedViewService returns the SavedViewService of db.
func NewSavedViewService(db *DB) *SavedViewService { return &SavedViewService{db: db} }

// JobService keeps background jobs (bulk reactivation) and runs their steps; it implements shop.JobService.
type JobService struct{ db *DB }

// NewJobService returns the JobService of db.
func NewJobService(db *DB) *JobService { return &JobService{db: db} }

// WebhookService manages webhook endpoints and their deliveries; it implements shop.WebhookService.
type WebhookService struct{ db *DB }

// NewWebhookService returns the WebhookService of db.
func NewWebhookService(db *DB) *WebhookService { return &WebhookService{db: db} }

// WebhookDeliveryStore is the webhook deliverers' queue: it claims due deliveries and records their attempts; it implements webhook.Store.
type WebhookDeliveryStore struct{ db *DB }

// NewWebhookDeliveryStore returns the WebhookDeliveryStore of db.
func NewWebhookDeliveryStore(db *DB) *WebhookDeliveryStore { return &WebhookDeliveryStore{db: db} }

// SignInStore keeps failed sign-ins where every instance sees them; it implements shop.SignInThrottleStore.
type SignInStore struct{ db *DB }

// NewSignInStore returns the SignInStore of db.
func NewSignInStore(db *DB) *SignInStore { return &SignInStore{db: db} }

// Outbox is the e-mail outbox: it queues e-mails and is drained by the mail sender; it implements internal/mail's Outbox.
type Outbox struct{ db *DB }

// NewOutbox returns the Outbox of db.
func NewOutbox(db *DB) *Outbox { return &Outbox{db: db} }

// CustomerService reads customers (an address within the account) and keeps notes; it implements shop.CustomerService.
type CustomerService struct{ db *DB }

// NewCustomerService returns the CustomerService of db.
func NewCustomerService(db *DB) *CustomerService { return &CustomerService{db: db} }

// RateStore keeps the API rate limit's per-key buckets where every instance shares them; it implements web.TokenStore.
type RateStore struct{ db *DB }

// NewRateStore returns the RateStore of db.
func NewRateStore(db *DB) *RateStore { return &RateStore{db: db} }

var (
	_ shop.PurchaseService        = (*PurchaseService)(nil)
	_ shop.PurchaseWriter         = (*PurchaseService)(nil)
	_ shop.SubscriberService      = (*SubscriberService)(nil)
	_ shop.AccountService         = (*AccountService)(nil)
	_ shop.APIKeyService          = (*APIKeyService)(nil)
	_ shop.UserService            = (*UserService)(nil)
	_ shop.PasskeyService         = (*UserService)(nil)
	_ shop.TwoFactorService       = (*AdminService)(nil)
	_ shop.AdminService           = (*AdminService)(nil)
	_ shop.AccountActivityService = (*AccountActivityService)(nil)
	_ shop.OverviewService        = (*OverviewService)(nil)
	_ shop.SavedViewService       = (*SavedViewService)(nil)
	_ shop.JobService             = (*JobService)(nil)
	_ shop.WebhookService         = (*WebhookService)(nil)
	_ webhook.Store               = (*WebhookDeliveryStore)(nil)
	_ shop.SignInThrottleStore    = (*SignInStore)(nil)
	_ shop.CustomerService        = (*CustomerService)(nil)
)
