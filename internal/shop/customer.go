package shop

import (
	"context"
	"strings"
	"unicode/utf8"
)

// A customer is an e-mail address within an account, across every storefront: the
// purchases whose buyer_email is the address and the subscribers whose username is,
// compared as the API's e-mail filters compare (letter case and accents ignored,
// docs/API.md#customers).

// CurrencyAmount is a sum of money in one currency and how many purchases make it.
type CurrencyAmount struct {
	Currency string
	Amount   Money
	Count    int64
}

// CustomerSummary is the header of a customer's page and the answer of
// GET /api/v2/customers/{email}.
type CustomerSummary struct {
	// Email is the address as the latest purchase (else subscriber) spells it.
	Email string
	// Names are the distinct names the person bought under in their latest purchases
	// (CustomerNamesRead of them), most recent first.
	Names []string
	// FirstPurchaseAt and LastPurchaseAt are nil when the address bought nothing.
	FirstPurchaseAt, LastPurchaseAt *Time
	// Purchases counts every purchase of the address, whatever its status.
	Purchases int64
	// Lifetime is the total of the ACT purchases per currency; Refunded that of the
	// RFD ones, never netted against it. Both ordered by currency code.
	Lifetime []CurrencyAmount
	Refunded []CurrencyAmount
	// ToShip counts the purchases with tangible goods not yet shipped.
	ToShip int64
	// Subscribers counts the address's subscriber records across storefronts.
	Subscribers int64
}

// CustomerNamesRead is how many of a customer's latest purchases their names are read
// from: a bounded read, whatever the number of purchases.
const CustomerNamesRead = 50

// CustomerEmail is one e-mail the product queued to a customer's address.
type CustomerEmail struct {
	ID         int64
	Kind       string
	PurchaseID int64 // 0 for none
	Subject    string
	Status     string // EmailQueued, EmailSending, EmailSent or EmailFailed
	Attempts   int
	LastError  string
	QueuedAt   Time
	SentAt     *Time
}

// CustomerActivity is one entry of the activity of a customer's purchases.
type CustomerActivity struct {
	TimelineEntry
	PurchaseID int64
}

// Note is a plain-text note staff wrote about a customer or a purchase.
type Note struct {
	ID        int64
	AccountID int64
	// PurchaseID is the purchase a note is about, 0 for a note about a customer;
	// CustomerEmail the customer whose page shows it: the one it is about, or the
	// purchase's buyer address ("" for a purchase without one).
	CustomerEmail string
	PurchaseID    int64
	AuthorID      int64
	Author        string
	Body          string
	CreatedAt     Time
}

// MaxNoteLength is the most characters a note holds.
const MaxNoteLength = 2000

// Account activity actions of notes.
const (
	ActionNoteAdded   = "note_added"
	ActionNoteDeleted = "note_deleted"
)

// CleanNote checks a note's text: trimmed, not empty, at most MaxNoteLength
// characters, valid UTF-8. Returns EInvalid (param "body") otherwise.
func CleanNote(body string) (string, error) {
	body = strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))
	switch {
	case !utf8.ValidString(body) || strings.ContainsRune(body, 0):
		return "", ParamErrorf(EInvalid, "body", "The note holds characters that are not text.")
	case body == "":
		return "", ParamErrorf(EMissing, "body", "Write the note before adding it.")
	case utf8.RuneCountInString(body) > MaxNoteLength:
		return "", ParamErrorf(EInvalid, "body", "A note holds at most %d characters; this one has %d.", MaxNoteLength, utf8.RuneCountInString(body))
	}
	return body, nil
}

// MayDeleteNote reports whether the user may delete the note: its author or an owner.
func (u *User) MayDeleteNote(n *Note) bool {
	return u.IsOwner() || (u.CanReactivate() && u.ID == n.AuthorID)
}

// CustomerService reads customers: an address's figures, purchases, e-mails and
// activity, and keeps notes.
type CustomerService interface {
	// FindCustomer returns the figures of the address in the account. Returns ENotFound
	// when the account has no purchase and no subscriber with that address.
	FindCustomer(ctx context.Context, accountID int64, email string) (*CustomerSummary, error)
	// FindCustomerPurchases returns one page of perPage of the address's purchases,
	// newest first, after the cursor when one is given, with their collections as
	// FindPurchases reads them. An unknown address has an empty page.
	FindCustomerPurchases(ctx context.Context, accountID int64, email string, after *Cursor, perPage int) (*PurchasePage, error)
	// FindCustomerActivity returns the activity of the address's purchases, newest
	// first: at most limit entries older than the entry before (0: the newest), and
	// the before of the next older page, 0 when there is none.
	FindCustomerActivity(ctx context.Context, accountID int64, email string, before int64, limit int) ([]CustomerActivity, int64, error)
	// FindCustomerEmails returns the e-mails queued to the address, newest first, paged
	// as FindCustomerActivity.
	FindCustomerEmails(ctx context.Context, accountID int64, email string, before int64, limit int) ([]CustomerEmail, int64, error)
	// FindCustomerNotes returns the notes on the address and on its purchases, newest
	// first, paged as FindCustomerActivity.
	FindCustomerNotes(ctx context.Context, accountID int64, email string, before int64, limit int) ([]Note, int64, error)
	// FindPurchaseNotes returns the notes on a purchase, newest first.
	FindPurchaseNotes(ctx context.Context, accountID, purchaseID int64) ([]Note, error)
	// AddNote records a note (on n.CustomerEmail or n.PurchaseID) by the user and an
	// entry of the account's activity. Returns EInvalid or EMissing for a text
	// CleanNote refuses, EForbidden for a viewer, ENotFound for a purchase or customer
	// not in the account.
	AddNote(ctx context.Context, user *User, n Note) (*Note, error)
	// DeleteNote deletes a note of the account and records it in the account's
	// activity. Returns ENotFound for a note not in the account and EForbidden when
	// the user is neither its author nor an owner.
	DeleteNote(ctx context.Context, user *User, id int64) (*Note, error)
}
