// Package jobs runs the background jobs that the dashboard queues (bulk
// reactivation): each instance runs one Runner, and the store hands every purchase to
// one worker only, so that several instances share a job and a restart resumes it.
package jobs

import (
	"context"
	"log/slog"
	"time"

	"storefront/internal/shop"
)

// Runner runs job steps until its context ends: at once while there is work, else
// every Poll or when kicked.
type Runner struct {
	Store shop.JobService
	// Poll is how often an idle runner looks for work; 0 means a second.
	Poll time.Duration
	Log  *slog.Logger
	kick chan struct{}
}

// New returns a runner over the store.
func New(store shop.JobService, poll time.Duration, log *slog.Logger) *Runner {
	if poll <= 0 {
		poll = time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	return &Runner{Store: store, Poll: poll, Log: log, kick: make(chan struct{}, 1)}
}

// Kick wakes the runner: a job was queued.
func (r *Runner) Kick() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Run runs jobs until ctx ends.
func (r *Runner) Run(ctx context.Context) error {
	for {
		worked, err := r.Store.RunJobStep(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			r.Log.Warn("background job step failed; trying again shortly", "err", err)
		}
		if worked && err == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-r.kick:
		case <-time.After(r.Poll):
		}
	}
}
