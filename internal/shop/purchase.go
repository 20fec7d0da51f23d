package shop

import (
	"context"
	"slices"
	"strings"
	"time"
)

// PurchaseStatus is a purchase status code (docs/API.md#purchase).
type PurchaseStatus string

// Purchase statuses.
const (
	PurchaseActive   PurchaseStatus = "ACT" // completed and paid
	PurchasePending  PurchaseStatus = "PND" // pending payment
	PurchaseRefunded PurchaseStatus = "RFD" // refunded in part or in full
	PurchaseError    PurchaseStatus = "ERR" // error verifying the payment
	PurchaseCanceled PurchaseStatus = "CAN" // canceled
	PurchaseHeld     PurchaseStatus = "HLD" // held by fraud or blacklist checks
)

// PurchaseStatuses lists every purchase status in the order the API documents them.
var PurchaseStatuses = []PurchaseStatus{PurchaseActive, PurchasePending, PurchaseRefunded, PurchaseError, PurchaseCanceled, PurchaseHeld}

// ParsePurchaseStatus reads a status code in any letter case.
func ParsePurchaseStatus(s string) (PurchaseStatus, bool) {
	u := PurchaseStatus(strings.ToUpper(strings.TrimSpace(s)))
	if !slices.Contains(PurchaseStatuses, u) {
		return "", false
	}
	return u, true
}

// Reactivatable reports whether a purchase in this status may be reactivated
// (docs/API.md#reactivation).
func (s PurchaseStatus) Reactivatable() bool {
	return s == PurchaseActive || s == PurchasePending || s == PurchaseError
}

// Label is the status in words, for people.
func (s PurchaseStatus) Label() string {
	switch s {
	case PurchaseActive:
		return "Active"
	case PurchasePending:
		return "Pending"
	case PurchaseRefunded:
		return "Refunded"
	case PurchaseError:
		return "Error"
	case PurchaseCanceled:
		return "Canceled"
	case PurchaseHeld:
		return "Held"
	}
	return string(s)
}

// Purchase is a purchase with every field of docs/API.md#purchase. Optional text is a
// *string so that null and "" stay apart.
type Purchase struct {
	ID int64 `json:"id"`
	Timestamps
	StorefrontID           int64          `json:"storefront_id"`
	Salt                   string         `json:"salt"`
	Status                 PurchaseStatus `json:"status"`
	Currency               string         `json:"currency"`
	Subtotal               Money          `json:"subtotal"`
	Discount               Money          `json:"discount"`
	Tax                    Money          `json:"tax"`
	Shipping               Money          `json:"shipping"`
	Total                  Money          `json:"total"`
	ProcessorFee           *Money         `json:"processor_fee"`
	BuyerEmail             *string        `json:"buyer_email"`
	BuyerFirstname         *string        `json:"buyer_firstname"`
	BuyerLastname          *string        `json:"buyer_lastname"`
	Customer               *Customer      `json:"customer"`
	CustomerNotes          *string        `json:"customer_notes"`
	CustomFields           []CustomField  `json:"custom_fields"`
	ShippingFirstname      *string        `json:"shipping_firstname"`
	ShippingLastname       *string        `json:"shipping_lastname"`
	ShippingStreet         *string        `json:"shipping_street"`
	ShippingStreet2        *string        `json:"shipping_street2"`
	ShippingCity           *string        `json:"shipping_city"`
	ShippingState          *string        `json:"shipping_state"`
	ShippingZipCode        *string        `json:"shipping_zip_code"`
	ShippingCountryCode    *string        `json:"shipping_country_code"`
	ShippingCountry        *string        `json:"shipping_country"`
	ShippingPhone          *string        `json:"shipping_phone"`
	ShippingVATIN          *string        `json:"shipping_vatin"`
	ShippingBusinessName   *string        `json:"shipping_business_name"`
	ShippingCarrier        *string        `json:"shipping_carrier"`
	ShippingTrackingNumber *string        `json:"shipping_tracking_number"`
	RequiresShipping       bool           `json:"requires_shipping"`
	TangiblesToShip        *int64         `json:"tangibles_to_ship"`
	BillingFirstname       *string        `json:"billing_firstname"`
	BillingLastname        *string        `json:"billing_lastname"`
	BillingStreet          *string        `json:"billing_street"`
	BillingStreet2         *string        `json:"billing_street2"`
	BillingCity            *string        `json:"billing_city"`
	BillingState           *string        `json:"billing_state"`
	BillingZipCode         *string        `json:"billing_zip_code"`
	BillingCountryCode     *string        `json:"billing_country_code"`
	BillingCardType        *string        `json:"billing_card_type"`
	BillingCardNumber      *string        `json:"billing_card_number"`
	LineItems              []LineItem     `json:"line_items"`
	Coupons                []Coupon       `json:"coupons"`
	IPAddress              *string        `json:"ip_address"`
	MarketingOptin         bool           `json:"marketing_optin"`
	Transactions           []Transaction  `json:"transactions"`

	// SubscriberID links the purchase to the subscriber it pays for. The API does not
	// show it; the import format carries it (docs/API.md#import-documents).
	SubscriberID *int64 `json:"-"`
	// AccountID is the account that owns the purchase's storefront.
	AccountID int64 `json:"-"`
}

// Customer is an account's buyer record (docs/API.md#customer).
type Customer struct {
	ID            int64   `json:"id"`
	Firstname     *string `json:"firstname"`
	Lastname      *string `json:"lastname"`
	Email         *string `json:"email"`
	ReceivesEmail bool    `json:"receives_email"`
	Timestamps
}

// LineItem is one product line of a purchase (docs/API.md#line-item).
type LineItem struct {
	ID            int64    `json:"id"`
	PurchaseID    int64    `json:"purchase_id"`
	ProductID     int64    `json:"product_id"`
	Price         Money    `json:"price"`
	Quantity      int64    `json:"quantity"`
	Subtotal      Money    `json:"subtotal"`
	Tax           Money    `json:"tax"`
	Discount      Money    `json:"discount"`
	Total         Money    `json:"total"`
	ProductName   string   `json:"product_name"`
	DownloadLimit int64    `json:"download_limit"`
	DownloadCount int64    `json:"download_count"`
	ExpiresAt     *Time    `json:"expires_at"`
	ProductKeys   []string `json:"product_keys"`
	HasAllKeys    bool     `json:"has_all_keys"`
}

// CustomField is a question asked at checkout and the customer's answer (2.6).
type CustomField struct {
	Label    string `json:"label"`
	Response string `json:"response"`
}

// Coupon discount types (2.7).
const (
	DiscountMoney   = "money"
	DiscountPercent = "percent"
)

// Coupon is a coupon redeemed with a purchase (2.7). DiscountAmount is money for a
// "money" coupon and a percentage, kept as given, for a "percent" one
// (docs/API.md#money-numbers-and-times).
type Coupon struct {
	Name           string `json:"name"`
	Code           string `json:"code"`
	DiscountAmount string `json:"discount_amount"`
	DiscountType   string `json:"discount_type"`
}

// Transaction is a payment transaction of a purchase (2.8).
type Transaction struct {
	ID         int64   `json:"id"`
	PurchaseID int64   `json:"purchase_id"`
	Action     string  `json:"action"`
	Amount     Money   `json:"amount"`
	Currency   string  `json:"currency"`
	Gateway    string  `json:"gateway"`
	IsSuccess  bool    `json:"is_success"`
	Reference  *string `json:"reference"`
	Message    *string `json:"message"`
	Timestamps
}

// TotalOp compares a purchase total with a filter value.
type TotalOp string

// Total comparisons of the total_op parameter.
const (
	TotalEq TotalOp = "eq"
	TotalNe TotalOp = "ne"
	TotalGt TotalOp = "gt"
	TotalLt TotalOp = "lt"
)

// Cursor is a keyset position in the (created_at, id) order: the last row of a page.
type Cursor struct {
	CreatedAt time.Time
	ID        int64
}

// PurchaseFilter holds every filter of GET /api/v2/purchases plus order and paging. The
// zero value of each field means "no condition".
type PurchaseFilter struct {
	AccountID     int64   // required: every query is scoped to one account
	IDs           []int64 // only these purchases; nil for no condition
	Statuses      []PurchaseStatus
	ProductID     int64
	StorefrontID  int64
	CustomerID    int64
	SubscriberID  int64
	EmailPrefix   string
	FirstPrefix   string
	LastPrefix    string
	Domain        string     // the e-mail's domain, exactly (any case); a search's domain:
	CreatedFrom   *time.Time // created_at >= CreatedFrom
	CreatedBefore *time.Time // created_at < CreatedBefore
	Total         string     // a decimal number; "" for none
	TotalOp       TotalOp
	Unshipped     *bool // true: tangibles_to_ship > 0; false: 0 or null
	// Where holds the conditions of a search (the API's q) that the fields above
	// cannot express; all of them must hold too.
	Where []Cond
	// Any, when not empty, makes the filter a union: a purchase matches when it
	// matches any of these filters, each of conditions only (their order and paging
	// fields are ignored). The filter's own condition fields and Where are then left
	// zero; its order and paging fields page through the union.
	Any          []PurchaseFilter
	Desc         bool
	PerPage      int
	Page         int     // 1-based offset paging; 0 when unused
	After        *Cursor // keyset paging: rows after this one in the chosen order
	IncludeCount bool
}

// PurchasePage is one page of purchases.
type PurchasePage struct {
	Purchases []*Purchase
	// Next is the position after which the next page starts, nil on the last page.
	Next *Cursor
	// Total is the size of the whole filtered set when asked for, else -1.
	Total int64
}

// DocumentPage is one page of purchases as the API answers them: each purchase's stored
// JSON document (what GET /purchases/{id} answers), in list order.
type DocumentPage struct {
	// Body is the page's documents as one JSON array followed by a newline: the API's
	// answer, appended to the buffer given to FindPurchaseDocuments.
	Body []byte
	// Next is the position after which the next page starts, nil on the last page.
	Next *Cursor
	// Total is the size of the whole filtered set when asked for, else -1.
	Total int64
	// Version is the account's purchases version the page was read at
	// (PurchasesVersion).
	Version int64
}

// DefaultPerPage and MaxPerPage bound page sizes (docs/API.md#lists-and-paging).
const (
	DefaultPerPage = 100
	MaxPerPage     = 500
)

// PurchaseService reads purchases.
type PurchaseService interface {
	// FindPurchaseByID returns one purchase of the account with all nested collections.
	// Returns ENotFound when the purchase does not exist or belongs to another account.
	FindPurchaseByID(ctx context.Context, accountID, id int64) (*Purchase, error)
	// FindPurchases returns one page of the account's purchases matching the filter.
	FindPurchases(ctx context.Context, f PurchaseFilter) (*PurchasePage, error)
	// FindPurchaseDocument appends one purchase of the account as its stored JSON
	// document to buf and returns what it appended, with the account's purchases
	// version read with it. Returns ENotFound as FindPurchaseByID does.
	FindPurchaseDocument(ctx context.Context, accountID, id int64, buf []byte) (doc []byte, version int64, err error)
	// FindPurchaseDocuments returns one page of the account's purchases matching the
	// filter as their stored JSON documents, its body appended to buf.
	FindPurchaseDocuments(ctx context.Context, f PurchaseFilter, buf []byte) (*DocumentPage, error)
	// PurchasesVersion returns the account's purchases version: a number that changes
	// with every committed change to what FindPurchaseDocument and
	// FindPurchaseDocuments answer for the account, on every instance (0 for an
	// account never written).
	PurchasesVersion(ctx context.Context, accountID int64) (int64, error)
	// CountPurchases counts matches up to limit; capped is true when there are more.
	CountPurchases(ctx context.Context, f PurchaseFilter, limit int64) (n int64, capped bool, err error)
	// FindPurchaseTimeline returns a purchase's activity, newest first, each e-mail
	// queued with the state of its delivery. An unknown purchase, or one of another
	// account, has an empty timeline.
	FindPurchaseTimeline(ctx context.Context, accountID, purchaseID int64) ([]TimelineEntry, error)
	// ExportPurchases calls fn with every purchase of the account matching the filter
	// (its paging fields other than Desc ignored, PerPage the batch size), in list
	// order, a batch at a time, as FindPurchases would page through them. Each purchase
	// carries the fields of the CSV export (docs/API.md#get-apiv2purchasescsv): its
	// row's own fields, SubscriberID, Customer with only its ID, and its line items
	// without product keys, with the fields lines names (only product name and quantity
	// for ExportProducts); other collections are empty. It stops at the first error of
	// fn or of the database, and when ctx ends.
	ExportPurchases(ctx context.Context, f PurchaseFilter, lines ExportLines, fn func([]*Purchase) error) error
	// FindPurchasesNamed returns up to limit of the account's purchases, in id order,
	// that have a row whose text equals value: a payment transaction's reference
	// (NamedByReference) or a product key (NamedByProductKey), compared as MariaDB's
	// "=" compares in utf8mb4_unicode_ci, trailing blanks counting (the search's ref:
	// and key:, docs/SEARCH.md).
	FindPurchasesNamed(ctx context.Context, accountID int64, by NamedBy, value string, limit int) ([]NamedPurchase, error)
}

// NamedPurchase is a purchase that FindPurchasesNamed found, with the text as its row
// holds it (its letter case may differ from the value asked for).
type NamedPurchase struct {
	ID   int64
	Text string
}

// NamedBy says which of a purchase's rows FindPurchasesNamed compares.
type NamedBy int

// The texts that name a purchase.
const (
	NamedByReference  NamedBy = iota + 1 // a payment transaction's reference
	NamedByProductKey                    // a product key of a line item
)

// NamedBys are the texts that name a purchase, in the order they are looked up.
var NamedBys = []NamedBy{NamedByReference, NamedByProductKey}

// String names the text in messages and labels: "payment reference", "product key".
func (b NamedBy) String() string {
	if b == NamedByProductKey {
		return "product key"
	}
	return "payment reference"
}

// ReactivateRequest asks to reactivate a purchase (docs/API.md#reactivation).
type ReactivateRequest struct {
	AccountID  int64
	PurchaseID int64
	// CustomerEmail is where the e-mail goes, taken as given (an address with a line
	// break or surrounding blanks is an EInvalid error); "" or blank means the
	// purchase's own address.
	CustomerEmail string
	// Refulfill runs fulfilment again: missing product keys are generated.
	Refulfill bool
	// Actor names who asks: a dashboard user or an API key, for the activity record.
	Actor string
	// IdempotencyKey makes a repeat within 24 hours return the first answer; "" for none.
	IdempotencyKey string
	// ParamsErr is why the caller could not read the parameters (CustomerEmail,
	// Refulfill, IdempotencyKey) as sent, or nil. Reactivate answers it once the
	// purchase is found, so that an unknown purchase is a 404 whatever its parameters
	// (the documented order of checks).
	ParamsErr error
}

// ReactivateResult tells what a reactivation did.
type ReactivateResult struct {
	// To is the address the "purchase ready" e-mail was queued to.
	To string
	// KeysGenerated counts product keys made by refulfilment.
	KeysGenerated int
	// Replayed is true when an earlier request with the same idempotency key answered.
	Replayed bool
}

// Activity is one entry of a purchase's timeline.
type Activity struct {
	ID        int64
	Actor     string
	Action    string
	Details   string
	CreatedAt Time
}

// Timeline actions: the activity a reactivation records, and the delivery of its e-mail.
const (
	ActionReactivated = "reactivated"
	ActionEmailQueued = "email_queued"
	// ActionEmailSent is an e-mail the mailer delivered, at the time it was sent.
	ActionEmailSent = "email_sent"
)

// E-mail delivery states of a timeline entry (EmailStatus).
const (
	EmailQueued  = "queued"
	EmailSending = "sending"
	EmailSent    = "sent"
	EmailFailed  = "failed"
)

// TimelineEntry is one entry of a purchase's timeline: an activity record with what its
// details say read into fields, and, for an e-mail, the state of its delivery.
type TimelineEntry struct {
	Activity
	// To and Subject are where an e-mail went and its subject line.
	To      string
	Subject string
	// Refulfill and KeysGenerated say what a reactivation did to product keys.
	Refulfill     bool
	KeysGenerated int
	// FromStatus and ToStatus are the purchase statuses before and after.
	FromStatus string
	ToStatus   string
	// EmailStatus is a queued e-mail's delivery state (EmailQueued ...), "" when its
	// outbox row is not known; Attempts, LastError and the times go with it.
	EmailStatus   string
	Attempts      int
	LastError     string
	SentAt        *Time
	NextAttemptAt *Time
}

// PurchaseWriter changes purchases.
type PurchaseWriter interface {
	// Reactivate reactivates a purchase in one transaction and queues its e-mail. It
	// locks the purchase, then checks, in this order: the purchase (ENotFound for one
	// not in the account), req.ParamsErr, the idempotency key, the status and the
	// address to send to. Returns ENotFound for a purchase not in the account,
	// req.ParamsErr when set, EConflict when its status
	// forbids it, EIdempotency when the key was used with other parameters, and
	// EMissing when there is no address to send to, EInvalid when the address to send
	// to is not one valid e-mail address.
	Reactivate(ctx context.Context, req ReactivateRequest) (*ReactivateResult, error)
}
