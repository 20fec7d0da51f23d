package mysql

// The background work a transaction can queue, named as the workers that do it
// (internal/worker): a transaction that wrote some wakes them when it commits.
const (
	// WorkEmails: rows of email_outbox, sent by the mail sender.
	WorkEmails = "email"
	// WorkWebhooks: webhook deliveries, attempted by the webhook deliverer.
	WorkWebhooks = "webhooks"
	// WorkJobs: jobs' items, run by the job runner.
	WorkJobs = "jobs"
)
