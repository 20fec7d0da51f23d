package shop

import "time"

// Email is an e-mail to queue in the outbox, the table the mail sender drains.
type Email struct {
	AccountID int64
	// PurchaseID is the purchase the e-mail is about; 0 for none.
	PurchaseID int64
	To         string
	Subject    string
	Body       string
}

// ClaimedEmail is an outbox row claimed for sending.
type ClaimedEmail struct {
	ID      int64
	To      string
	Subject string
	Body    string
	// Attempts counts the claims of the row, this one included.
	Attempts int
	// LeaseUntil is when the claim lapses and another sender may claim the row again.
	// It also identifies this claim to the outbox's Retry, Fail and Release methods.
	LeaseUntil time.Time
}
