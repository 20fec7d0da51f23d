// Package worker runs the work that happens behind requests (sending e-mail,
// delivering webhooks, bulk jobs, sweeps) in one shape.
//
// A Worker repeats a Step: a function that does a bounded piece of work (a batch of
// e-mails, one job item) and reports whether more is waiting. While more is waiting
// the worker steps again at once; otherwise it sleeps until the poll interval has
// passed or somebody wakes it (Wake: a transaction committed work for it). A step
// that fails is logged and retried after a back-off that doubles up to a cap; a wake-up
// cuts the back-off short, since a commit that queued work shows the database is back.
// A step that panics is logged with its stack and counts as a failure: the worker goes
// on. Stopping cancels the step's context and waits for the step under way to return:
// steps finish or hand back what they hold, and must not start new work once their
// context has ended.
//
// Work is claimed in the database, so every instance runs every worker; the wake-ups
// are only a way to start sooner than the next poll.
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"storefront/internal/shop"
)

// Step does one bounded piece of work and reports whether more is waiting now.
type Step func(ctx context.Context) (more bool, err error)

// Options tune a Worker. The zero value of each field means its default.
type Options struct {
	// Poll is how often an idle worker steps (default 1s).
	Poll time.Duration
	// BackoffBase is the wait after a failed step (default Poll); each further failure
	// in a row doubles it, up to BackoffMax (default 8 × BackoffBase).
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// Log receives failures and panics (default slog.Default()).
	Log *slog.Logger
	// Tracer, when set, makes every step a span named "worker NAME" (the root of a trace
	// of its own), in whose context the step runs: its statements and the spans it
	// starts are its children (docs/OPERATIONS.md#traces).
	Tracer trace.Tracer
}

// Worker runs one Step over and over; see the package comment.
type Worker struct {
	name string
	step Step
	opt  Options
	wake chan struct{}
}

// New returns a worker that runs step. The name identifies it in logs and to Group.Wake.
func New(name string, step Step, opt Options) *Worker {
	if opt.Poll <= 0 {
		opt.Poll = time.Second
	}
	if opt.BackoffBase <= 0 {
		opt.BackoffBase = opt.Poll
	}
	if opt.BackoffMax <= 0 {
		opt.BackoffMax = 8 * opt.BackoffBase
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	return &Worker{name: name, step: step, opt: opt, wake: make(chan struct{}, 1)}
}

// Name is the worker's name.
func (w *Worker) Name() string { return w.name }

// Wake makes the worker step at once if it is waiting, or once more right after the
// step under way. It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run steps until ctx ends, then returns nil once the step under way has returned.
func (w *Worker) Run(ctx context.Context) error {
	failures := 0
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		// A wake-up that arrives during the step is kept for after it.
		more, err := w.tracedStep(ctx)
		if ctx.Err() != nil {
			return nil
		}
		wait := w.opt.Poll
		switch {
		case err != nil:
			failures++
			wait = w.Backoff(failures)
			// An unreachable database is an outage the worker rides out: a warning. Anything
			// else is a fault to look at.
			level := slog.LevelError
			if shop.ErrorCode(err) == shop.EUnavailable {
				level = slog.LevelWarn
			}
			w.opt.Log.Log(ctx, level, "background work failed; trying again", "worker", w.name, "failures", failures, "retry_in", wait, "err", err)
		case more:
			failures = 0
			continue
		default:
			failures = 0
		}
		timer.Reset(wait)
		select {
		case <-ctx.Done():
			return nil
		case <-w.wake:
		case <-timer.C:
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
	}
}

// Backoff is the wait after the given number of failed steps in a row (1 for the
// first): BackoffBase doubled for each failure after the first, at most BackoffMax.
func (w *Worker) Backoff(failures int) time.Duration {
	d := w.opt.BackoffBase
	for i := 1; i < failures && d < w.opt.BackoffMax; i++ {
		d *= 2
	}
	return min(d, w.opt.BackoffMax)
}

// safeStep runs the step, turning a panic into an error.
func (w *Worker) safeStep(ctx context.Context) (more bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			w.opt.Log.Error("background work panicked", "worker", w.name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			more, err = false, fmt.Errorf("panic: %v", p)
		}
	}()
	return w.step(ctx)
}

// Group runs several workers and wakes them by name.
type Group struct {
	workers map[string]*Worker
	cancel  context.CancelFunc
	done    chan struct{}
}

// NewGroup returns a group of the workers; their names must differ.
func NewGroup(workers ...*Worker) *Group {
	g := &Group{workers: map[string]*Worker{}}
	for _, w := range workers {
		if _, dup := g.workers[w.name]; dup {
			panic("worker: two workers named " + w.name)
		}
		g.workers[w.name] = w
	}
	return g
}

// Wake wakes the workers of the given names; a name no worker has is ignored (a
// process may run without some of them). It never blocks.
func (g *Group) Wake(names ...string) {
	for _, n := range names {
		if w := g.workers[n]; w != nil {
			w.Wake()
		}
	}
}

// Start runs every worker in a goroutine of its own until Stop.
func (g *Group) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel, g.done = cancel, make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range g.workers {
		wg.Go(func() { _ = w.Run(ctx) })
	}
	go func() { wg.Wait(); close(g.done) }()
}

// Stop ends every worker's context and waits up to grace for the steps under way to
// return. It reports an error when some were still running at the end of grace (they
// go on in the background; their claims lapse if the process then exits).
func (g *Group) Stop(grace time.Duration) error {
	if g.cancel == nil {
		return nil
	}
	g.cancel()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-g.done:
		return nil
	case <-t.C:
		return fmt.Errorf("background work still running after the %s grace period", grace)
	}
}

// KeepLeased calls renew every interval, for a step that holds claims whose lease must
// outlive the work (an e-mail being sent, a webhook being posted), until the returned
// function is called; that function waits for a renewal under way. Renewals run past
// the end of ctx (a step finishes what it holds when it is stopped); one that fails is
// logged and the next is tried at its time.
func KeepLeased(ctx context.Context, every time.Duration, log *slog.Logger, renew func(context.Context) error) (stop func()) {
	if log == nil {
		log = slog.Default()
	}
	rctx := context.WithoutCancel(ctx)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if err := renew(rctx); err != nil {
					log.Warn("renewing a lease failed; trying again", "err", err)
				}
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); <-done }) }
}

// Counted is a step that also says how much work it did (e-mails delivered, say).
type Counted func(ctx context.Context) (done int, more bool, err error)

// Step is the worker's step of c.
func (c Counted) Step(ctx context.Context) (bool, error) {
	_, more, err := c(ctx)
	return more, err
}

// Drain runs c until nothing more is waiting, ctx ends or a step fails, and returns the
// work done: for tests and tools that want a queue emptied now.
func (c Counted) Drain(ctx context.Context) (int, error) {
	total := 0
	for {
		n, more, err := c(ctx)
		total += n
		if err != nil || !more || ctx.Err() != nil {
			return total, err
		}
	}
}

// Locked returns step made to hold mu while it runs, so that its calls take turns: the
// steps of a worker and a Drain by a test or tool never overlap.
func Locked(mu *sync.Mutex, step Counted) Counted {
	return func(ctx context.Context) (int, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		return step(ctx)
	}
}
