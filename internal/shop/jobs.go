package shop

import "context"

// Job statuses.
const (
	JobQueued   = "queued"
	JobRunning  = "running"
	JobDone     = "done"
	JobCanceled = "canceled"
)

// Job item statuses.
const (
	ItemPending = "pending"
	ItemDone    = "done"
	ItemSkipped = "skipped"
	ItemFailed  = "failed"
)

// JobReactivate is the kind of a bulk reactivation.
const JobReactivate = "reactivate"

// MaxJobPurchases bounds the purchases of one job.
const MaxJobPurchases = 10_000

// Job is a background job of an account: a bulk reactivation, each purchase exactly as
// a single reactivation (docs/API.md#reactivation), its e-mail to the purchase's own
// address.
type Job struct {
	ID        int64
	AccountID int64
	Kind      string
	Status    string
	Actor     string
	Refulfill bool
	Total     int64
	// Counts of the items by status.
	Done, Skipped, Failed, Pending int64
	CreatedAt                      Time
	StartedAt, FinishedAt          *Time
}

// JobItem is one purchase of a job that was skipped or failed, and why.
type JobItem struct {
	PurchaseID int64
	Status     string
	Reason     string
}

// JobService keeps and runs background jobs.
type JobService interface {
	// CountStatuses counts the account's purchases among ids by status.
	CountStatuses(ctx context.Context, accountID int64, ids []int64) (map[PurchaseStatus]int64, error)
	// CreateReactivationJob queues the reactivation of the account's purchases ids.
	// Returns EInvalid when there are none or more than MaxJobPurchases.
	CreateReactivationJob(ctx context.Context, accountID int64, actor string, ids []int64, refulfill bool) (*Job, error)
	// FindJobs returns the account's jobs, newest first.
	FindJobs(ctx context.Context, accountID int64) ([]Job, error)
	// FindJob returns one job with its counts. Returns ENotFound.
	FindJob(ctx context.Context, accountID, id int64) (*Job, error)
	// FindJobProblems returns the job's skipped and failed items with their reasons.
	FindJobProblems(ctx context.Context, accountID, id int64) ([]JobItem, error)
	// CancelJob stops a job: the purchases not yet run stay as they are. Returns
	// ENotFound, or EConflict when the job has ended.
	CancelJob(ctx context.Context, accountID, id int64) error
	// RunJobStep runs one pending purchase of some job, if any, in one transaction,
	// and reports whether there was one.
	RunJobStep(ctx context.Context) (bool, error)
}
