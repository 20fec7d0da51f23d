// Package importer loads a storefront export document (docs/API.md#import-documents) into
// a Store: it walks the JSON as a stream, decodes and validates records in Go, and hands
// the Store validated batches to write inside one transaction, so that a file is imported
// whole or not at all and memory does not grow with the file's size.
//
// The document is an object with the arrays "accounts", "storefronts",
// "subscribers" and "purchases", in any order. A record may refer only to records
// earlier in the file or already in the database. Records are upserted by id; when
// an id appears twice, the later record wins, as it would in a second import.
//
// The work is a pipeline: a reader cuts the arrays into raw records, workers (one
// per CPU) decode and validate them in parallel, a sequencer takes them back in
// document order to check references and build batches, and a writer goroutine,
// which owns the transaction, writes the batches while the rest goes on.
//
// The package depends on the standard library and internal/shop only; the database
// side (internal/mysql) implements Store.
package importer

import (
	"context"

	"storefront/internal/shop"
)

// Store opens the transaction an import runs in.
type Store interface {
	// BeginImport starts the one transaction of an import. The transaction may trust
	// that every reference in the batches it receives has been checked by the
	// importer (it may turn off the database's own foreign key checks).
	BeginImport(ctx context.Context) (Tx, error)
}

// StorefrontRef is what validation needs to know about a storefront that is already
// in the database.
type StorefrontRef struct {
	AccountID int64
	// Currency is the storefront's display currency, nil when it has none.
	Currency *string
}

// Tx is one import transaction. Lookups see the writes made earlier in the same
// transaction. Methods return database errors wrapped with %w; none of them returns a
// *shop.Error for bad input, because the importer validates everything first.
// A Tx is used from one goroutine at a time.
type Tx interface {
	// LookupAccounts returns the subset of ids that exist as accounts.
	LookupAccounts(ctx context.Context, ids []int64) (map[int64]bool, error)
	// LookupStorefronts returns the storefronts among ids that exist.
	LookupStorefronts(ctx context.Context, ids []int64) (map[int64]StorefrontRef, error)
	// LookupAPIUsername returns the id of an account other than accountID whose
	// api_username equals name under the database's collation, or 0 when none.
	LookupAPIUsername(ctx context.Context, accountID int64, name string) (int64, error)
	// LookupBatchRefs finds, in one go, the owners of the subscribers (subscriberIDs,
	// those the batch's purchases name), customers and products of a purchase batch
	// that already exist. The Tx may read with them what the UpsertPurchases of the
	// same batch, which follows, needs to know of the rows the batch replaces.
	LookupBatchRefs(ctx context.Context, batch *PurchaseBatch, subscriberIDs []int64) (*BatchRefs, error)

	// UpsertAccounts inserts or updates accounts by id (created_at is kept).
	UpsertAccounts(ctx context.Context, accounts []*shop.Account) error
	// UpsertStorefronts inserts or updates storefronts by id.
	UpsertStorefronts(ctx context.Context, storefronts []*shop.Storefront) error
	// UpsertSubscribers inserts or updates subscribers by id and replaces their
	// subscriptions: a subscriber whose Subscription is nil ends up without one. A
	// subscription id already held by another subscriber moves to the new one.
	UpsertSubscribers(ctx context.Context, subscribers []*shop.Subscriber) error
	// UpsertPurchases writes a batch: customers (inserted or updated by id), products
	// (inserted when missing, an existing product is left as it is), purchases
	// (inserted or updated by id) and their nested collections, which replace what the
	// purchases had. Line item and transaction ids held by other purchases move.
	UpsertPurchases(ctx context.Context, batch *PurchaseBatch) error

	// Commit makes the import visible.
	Commit() error
	// Rollback discards the import; it is safe to call after Commit (a no-op then).
	Rollback() error
}

// Product is a products row created for a line item's product_id when missing.
type Product struct {
	ID           int64
	StorefrontID int64
	Name         string
}

// CustomerRow is a customer record to upsert, scoped to an account.
type CustomerRow struct {
	AccountID int64
	shop.Customer
}

// PurchaseBatch is a group of validated purchases written together. Purchase ids,
// line item ids and transaction ids are unique within a batch; each purchase has
// AccountID set and SubscriberID as imported.
type PurchaseBatch struct {
	Purchases []*shop.Purchase
	// Customers holds each customer named by the purchases once (the last version).
	Customers []CustomerRow
	// Products holds each product named by the line items once (the first name).
	Products []Product
}

// BatchRefs describes the existing records a purchase batch refers to. An id that
// does not exist is absent from its map.
type BatchRefs struct {
	// SubscriberAccounts maps a subscriber to the account owning its storefront.
	SubscriberAccounts map[int64]int64
	// CustomerAccounts maps a customer to its account.
	CustomerAccounts map[int64]int64
	// ProductStorefronts maps a product to its storefront.
	ProductStorefronts map[int64]int64
}
