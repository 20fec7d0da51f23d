package shop

import "context"

// ExportBatch is how many purchases an export reads at a time, after its first batch
// of ExportFirstBatch. It stays under 1,000 ids: MariaDB turns a longer IN list into a
// derived table and sorts it. Subscribers are read MaxPerPage at a time, as the list's
// pages are.
const ExportBatch = 999

// ExportFirstBatch is the size of an export's first batch: small, so that the file's
// first bytes leave sooner than a page of the JSON list would.
const ExportFirstBatch = 25

// ExportLines says which fields of their line items an export's purchases carry.
type ExportLines int

const (
	// ExportProducts: each line item's product name and quantity only, what a file of
	// one row per purchase shows (its products and their summed quantity).
	ExportProducts ExportLines = iota
	// ExportLineItems: every field that a file of one row per line item shows.
	ExportLineItems
)

// ActionExport is the account activity of a CSV export; its details are JSON
// {"what","filters","rows","complete"}.
const ActionExport = "export"

// AccountActivityService records and reads what happened in an account as a whole.
type AccountActivityService interface {
	// RecordAccountActivity adds an entry to the account's activity; its ID and, when
	// zero, its time are set by the service.
	RecordAccountActivity(ctx context.Context, accountID int64, a Activity) error
	// FindAccountActivity returns the account's latest entries, newest first, at most
	// limit of them.
	FindAccountActivity(ctx context.Context, accountID int64, limit int) ([]Activity, error)
}
