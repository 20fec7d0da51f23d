package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"storefront/internal/shop"
)

// Stats counts what an import read and wrote.
type Stats struct {
	Accounts    int
	Storefronts int
	Subscribers int
	Purchases   int
	// Elapsed is the wall time of the whole import, commit included.
	Elapsed time.Duration
}

// String summarises the counts and the rate, for the command's last line.
func (s Stats) String() string {
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Records()) / s.Elapsed.Seconds()
	}
	return fmt.Sprintf("%d accounts, %d storefronts, %d subscribers, %d purchases in %s (%.0f records/s)",
		s.Accounts, s.Storefronts, s.Subscribers, s.Purchases, s.Elapsed.Round(time.Millisecond), rate)
}

// Records is the number of top-level records of every kind.
func (s Stats) Records() int { return s.Accounts + s.Storefronts + s.Subscribers + s.Purchases }

// Defaults of an Importer.
const (
	// DefaultBatchSize is the number of subscribers written per batch.
	DefaultBatchSize = 500
	// DefaultPurchaseBatchSize is the number of purchases written per batch. The
	// database's time per purchase falls a little with larger batches
	// (docs/PERFORMANCE.md), but the importer holds about two batches at once, and at
	// 1,000 its heap grew by more than a 52 MB document's size (TestImport_Streaming).
	DefaultPurchaseBatchSize = 500
	DefaultProgressEvery     = 2 * time.Second
)

// Importer loads export documents into a Store. The zero value of each setting means
// its default; Store is required.
type Importer struct {
	Store Store
	// Progress receives a line of progress (records and rate) every ProgressEvery
	// while an import runs; nil for none.
	Progress      io.Writer
	ProgressEvery time.Duration
	// BatchSize is the number of purchases and subscribers written per batch; when
	// zero, DefaultPurchaseBatchSize purchases and DefaultBatchSize subscribers.
	BatchSize int
	// Now is the clock used for Stats.Elapsed and progress.
	Now func() time.Time
}

// Run imports the document read from r into store in one transaction, printing
// progress to progress (nil for none) every two seconds. A malformed document or a
// bad record is reported as a *shop.Error with code shop.EInvalid whose message names
// the record's position and field, such as
//
//	purchases[1234] (id 98765): line_items[0].total: "10.00" but subtotal + tax + discount is "12.00"
//
// and leaves the store as it was. Other errors (the database, reading r) are
// returned wrapped.
func Run(ctx context.Context, store Store, r io.Reader, progress io.Writer) (Stats, error) {
	im := &Importer{Store: store, Progress: progress}
	return im.Run(ctx, r)
}

// Run imports the document read from r; see the package function Run.
func (im *Importer) Run(ctx context.Context, r io.Reader) (Stats, error) {
	now := im.Now
	if now == nil {
		now = time.Now
	}
	start := now()
	tx, err := im.Store.BeginImport(ctx)
	if err != nil {
		return Stats{}, fmt.Errorf("import: begin: %w", err)
	}
	ru := newRun(ctx, im, tx, now, start)
	go ru.write()

	readErr := ru.read(r)
	if readErr == nil {
		readErr = ru.flushAll()
	}
	close(ru.ops)
	writeErr := <-ru.writeDone
	// A writer error concerns an earlier record than anything the reader found later.
	err = writeErr
	if err == nil {
		err = readErr
	}
	if err == nil {
		if cerr := tx.Commit(); cerr != nil {
			err = fmt.Errorf("import: commit: %w", cerr)
		}
	}
	if err != nil {
		_ = tx.Rollback()
		ru.stats.Elapsed = now().Sub(start)
		return ru.stats, err
	}
	ru.stats.Elapsed = now().Sub(start)
	return ru.stats, nil
}

// op is one step for the writer goroutine, which owns the transaction. done, when
// set, receives the outcome (for lookups the reader waits on).
type op struct {
	fn   func(ctx context.Context, tx Tx) error
	done chan error
}

// pos is the position of a record in the document.
type pos struct {
	kind  string
	index int
	id    int64
}

func (p pos) String() string {
	if p.id != 0 {
		return fmt.Sprintf("%s[%d] (id %d)", p.kind, p.index, p.id)
	}
	return fmt.Sprintf("%s[%d]", p.kind, p.index)
}

// recordError reports a bad record at its position.
func recordError(p pos, err error) error {
	return &shop.Error{Code: shop.EInvalid, Message: p.String() + ": " + err.Error()}
}

func recordErrorf(p pos, field, format string, args ...any) error {
	return recordError(p, &fieldError{field: field, msg: fmt.Sprintf(format, args...)})
}

// docError reports a document that is not well-formed.
func docError(format string, args ...any) error {
	return &shop.Error{Code: shop.EInvalid, Message: fmt.Sprintf(format, args...)}
}

// run is the state of one import.
type run struct {
	ctx   context.Context
	im    *Importer
	tx    Tx
	now   func() time.Time
	start time.Time
	// subBatch and purchBatch are the subscribers and purchases written per batch.
	subBatch, purchBatch int

	ops       chan op
	writeDone chan error
	failed    chan struct{} // closed by the writer on its first error

	// accounts and storefronts known to exist: imported earlier or found in the
	// database. Both are small next to purchases.
	accounts    map[int64]bool
	storefronts map[int64]StorefrontRef
	zones       map[string]bool

	subs  subscriberBatch
	purch purchaseBatch

	stats        Stats
	lastProgress time.Time
	progressAt   int
}

func newRun(ctx context.Context, im *Importer, tx Tx, now func() time.Time, start time.Time) *run {
	subBatch, purchBatch := im.BatchSize, im.BatchSize
	if im.BatchSize <= 0 {
		subBatch, purchBatch = DefaultBatchSize, DefaultPurchaseBatchSize
	}
	return &run{
		ctx: ctx, im: im, tx: tx, now: now, start: start, subBatch: subBatch, purchBatch: purchBatch,
		ops:          make(chan op, 2),
		writeDone:    make(chan error, 1),
		failed:       make(chan struct{}),
		accounts:     map[int64]bool{},
		storefronts:  map[int64]StorefrontRef{},
		zones:        map[string]bool{"UTC": true},
		lastProgress: start,
	}
}

// write runs the ops in order until the channel closes, stopping work at the first
// error (later ops are skipped, their waiters told the error).
func (ru *run) write() {
	var err error
	for o := range ru.ops {
		if err == nil {
			if err = ru.ctx.Err(); err == nil {
				err = o.fn(ru.ctx, ru.tx)
			}
			if err != nil {
				close(ru.failed)
			}
		}
		if o.done != nil {
			o.done <- err
		}
	}
	ru.writeDone <- err
}

// enqueue hands an op to the writer; it fails fast when the writer already failed.
func (ru *run) enqueue(fn func(ctx context.Context, tx Tx) error) error {
	select {
	case ru.ops <- op{fn: fn}:
		return nil
	case <-ru.failed:
		return errWriterFailed
	case <-ru.ctx.Done():
		return ru.ctx.Err()
	}
}

// call runs fn on the writer after everything queued before it, and waits.
func (ru *run) call(fn func(ctx context.Context, tx Tx) error) error {
	done := make(chan error, 1)
	select {
	case ru.ops <- op{fn: fn, done: done}:
	case <-ru.failed:
		return errWriterFailed
	case <-ru.ctx.Done():
		return ru.ctx.Err()
	}
	return <-done
}

// errWriterFailed stops the reader; the writer's own error is what Run returns.
var errWriterFailed = errors.New("import: writer failed")

// chunkSize is the number of records a worker decodes in one go.
const chunkSize = 64

// chunk is a run of consecutive records of one array, decoded by a worker while the
// sequencer handles earlier chunks. Chunks reach the sequencer in document order.
type chunk struct {
	kind  string
	first int // index of raws[0] in its array
	raws  [][]byte
	out   []parsed
	parse parseFunc
	done  chan struct{} // closed when out is filled
	// endOfArray marks the last chunk of an array; err, a reader error found
	// after the chunk's records.
	endOfArray bool
	err        error
}

// kinds maps the document's keys to their decoders.
var kinds = map[string]parseFunc{
	"accounts":    parseAccount,
	"storefronts": parseStorefront,
	"subscribers": parseSubscriber,
	"purchases":   parsePurchase,
}

func (ru *run) handler(kind string) func(pos, parsed) error {
	switch kind {
	case "accounts":
		return ru.account
	case "storefronts":
		return ru.storefront
	case "subscribers":
		return ru.subscriber
	}
	return ru.purchase
}

// read walks the document with three kinds of goroutines: a reader that splits it
// into chunks of raw records, workers that decode and validate chunks in parallel,
// and this goroutine, the sequencer, which takes chunks in document order, checks
// references and builds the batches the writer writes. Channels are bounded, so the
// memory held does not depend on the document's size.
func (ru *run) read(r io.Reader) error {
	workers := max(1, runtime.GOMAXPROCS(0))
	ordered := make(chan *chunk, 2*workers)
	jobs := make(chan *chunk, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// On return, stop the reader and the workers, then wait for the workers. The
	// reader may be blocked reading r; it ends at its next chunk.
	defer wg.Wait()
	defer close(stop)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case c, ok := <-jobs:
					if !ok {
						return
					}
					c.out = make([]parsed, len(c.raws))
					for i, raw := range c.raws {
						c.out[i] = c.parse(raw)
					}
					close(c.done)
				case <-stop:
					return
				}
			}
		}()
	}
	go func() {
		defer close(ordered)
		defer close(jobs)
		split(r, chunkSize, func(c *chunk) bool {
			if len(c.raws) > 0 {
				c.done = make(chan struct{})
				select {
				case jobs <- c:
				case <-stop:
					return false
				}
			}
			select {
			case ordered <- c:
				return true
			case <-stop:
				return false
			}
		})
	}()

	for c := range ordered {
		if len(c.raws) > 0 {
			<-c.done
			handle := ru.handler(c.kind)
			for i, pr := range c.out {
				if err := handle(pos{kind: c.kind, index: c.first + i}, pr); err != nil {
					return err
				}
				ru.progress()
			}
		}
		if c.err != nil {
			return c.err
		}
		if c.endOfArray {
			// Records may refer only to what comes before them in the file:
			// write what is pending before the next array starts.
			if err := ru.flushAll(); err != nil {
				return err
			}
		}
	}
	return nil
}

// progress prints a line every ProgressEvery.
func (ru *run) progress() {
	if ru.im.Progress == nil {
		return
	}
	ru.progressAt++
	if ru.progressAt < 256 {
		return
	}
	ru.progressAt = 0
	every := ru.im.ProgressEvery
	if every <= 0 {
		every = DefaultProgressEvery
	}
	now := ru.now()
	if now.Sub(ru.lastProgress) < every {
		return
	}
	ru.lastProgress = now
	el := now.Sub(ru.start)
	s := ru.stats
	fmt.Fprintf(ru.im.Progress, "import: %d records (%d accounts, %d storefronts, %d subscribers, %d purchases) in %s, %.0f records/s\n",
		s.Records(), s.Accounts, s.Storefronts, s.Subscribers, s.Purchases, el.Round(time.Second), float64(s.Records())/el.Seconds())
}

func (ru *run) flushAll() error {
	if err := ru.flushSubscribers(); err != nil {
		return err
	}
	return ru.flushPurchases()
}
