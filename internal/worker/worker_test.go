package worker_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"storefront/internal/shop"
	"storefront/internal/worker"
)

// syncBuffer is a log sink safe for the worker's goroutine and the test's.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newLog() (*slog.Logger, *syncBuffer) {
	var buf syncBuffer
	return slog.New(slog.NewTextHandler(&buf, nil)), &buf
}

// waitFor fails the test unless ch yields within a generous bound: what is checked is
// that the event happens at all, not how fast (the poll it must not wait for is an hour).
func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
	var zero T
	return zero
}

func TestWorker_Wake(t *testing.T) {
	steps := make(chan struct{}, 10)
	w := worker.New("test", func(ctx context.Context) (bool, error) {
		steps <- struct{}{}
		return false, nil
	}, worker.Options{Poll: time.Hour})
	g := worker.NewGroup(w)
	g.Start()
	defer g.Stop(time.Second)
	waitFor(t, steps, "the first step")
	// The next poll is an hour away: only the wake-up makes it step again.
	select {
	case <-steps:
		t.Fatal("stepped again without a wake-up")
	case <-time.After(100 * time.Millisecond):
	}
	g.Wake("test", "no-such-worker")
	waitFor(t, steps, "the step after Wake")
}

func TestWorker_MoreStepsAtOnce(t *testing.T) {
	var n atomic.Int32
	done := make(chan struct{})
	w := worker.New("test", func(ctx context.Context) (bool, error) {
		if n.Add(1) == 5 {
			close(done)
		}
		return n.Load() < 5, nil
	}, worker.Options{Poll: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitFor(t, done, "five steps while more was waiting")
}

func TestWorker_StopWhileStepRuns(t *testing.T) {
	started, finished := make(chan struct{}), make(chan struct{})
	w := worker.New("slow", func(ctx context.Context) (bool, error) {
		close(started)
		<-ctx.Done()
		// What the step holds is finished after its context ends.
		time.Sleep(50 * time.Millisecond)
		close(finished)
		return true, nil
	}, worker.Options{Poll: time.Hour})
	g := worker.NewGroup(w)
	g.Start()
	waitFor(t, started, "the step")
	if err := g.Stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	select {
	case <-finished:
	default:
		t.Fatal("Stop returned before the step under way had finished")
	}

	t.Run("GraceRunsOut", func(t *testing.T) {
		release, started := make(chan struct{}), make(chan struct{})
		defer close(release)
		w := worker.New("stuck", func(ctx context.Context) (bool, error) {
			close(started)
			<-release
			return false, nil
		}, worker.Options{})
		g := worker.NewGroup(w)
		g.Start()
		waitFor(t, started, "the step")
		err := g.Stop(10 * time.Millisecond)
		if err == nil || !strings.Contains(err.Error(), "grace period") {
			t.Fatalf("Stop = %v, want the grace period's error", err)
		}
	})
}

func TestWorker_PanicLoggedAndSurvived(t *testing.T) {
	log, buf := newLog()
	var n atomic.Int32
	again := make(chan struct{})
	w := worker.New("fragile", func(ctx context.Context) (bool, error) {
		if n.Add(1) == 1 {
			var m map[string]int
			m["boom"]++ // a nil map: panics
		}
		if n.Load() == 2 {
			close(again)
		}
		return false, nil
	}, worker.Options{Poll: time.Hour, BackoffBase: time.Millisecond, Log: log})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	waitFor(t, again, "a step after the panic")
	out := buf.String()
	for _, want := range []string{"level=ERROR", "background work panicked", "worker=fragile", "assignment to entry in nil map", "worker_test.go"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestWorker_Backoff(t *testing.T) {
	w := worker.New("b", nil, worker.Options{BackoffBase: time.Second, BackoffMax: 5 * time.Second})
	for failures, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 5 * time.Second, 40: 5 * time.Second} {
		if got := w.Backoff(failures); got != want {
			t.Errorf("Backoff(%d) = %s, want %s", failures, got, want)
		}
	}

	t.Run("FailuresWaitAndAreLogged", func(t *testing.T) {
		log, buf := newLog()
		var n atomic.Int32
		ok := make(chan struct{})
		unavailable := fmt.Errorf("claim: %w", &shop.Error{Code: shop.EUnavailable, Message: "The database is unavailable."})
		w := worker.New("flaky", func(ctx context.Context) (bool, error) {
			switch n.Add(1) {
			case 1:
				return false, unavailable
			case 2:
				return false, errors.New("a fault")
			case 3:
				close(ok)
			}
			return false, nil
		}, worker.Options{Poll: time.Hour, BackoffBase: time.Millisecond, Log: log})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go w.Run(ctx)
		// The failed steps are retried after their back-off, not the hour's poll.
		waitFor(t, ok, "the retries")
		out := buf.String()
		if !strings.Contains(out, `level=WARN msg="background work failed; trying again" worker=flaky failures=1`) {
			t.Errorf("an unreachable database is not a warning:\n%s", out)
		}
		if !strings.Contains(out, `level=ERROR msg="background work failed; trying again" worker=flaky failures=2`) {
			t.Errorf("another failure is not an error:\n%s", out)
		}
	})

	t.Run("WakeCutsBackoffShort", func(t *testing.T) {
		var n atomic.Int32
		ok := make(chan struct{})
		failed := make(chan struct{})
		w := worker.New("down", func(ctx context.Context) (bool, error) {
			if n.Add(1) == 1 {
				close(failed)
				return false, errors.New("down")
			}
			close(ok)
			return false, nil
		}, worker.Options{Poll: time.Hour, BackoffBase: time.Hour, Log: slog.New(slog.DiscardHandler)})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go w.Run(ctx)
		waitFor(t, failed, "the failed step")
		w.Wake()
		waitFor(t, ok, "the step after the wake-up")
	})
}

func TestKeepLeased(t *testing.T) {
	var renewals atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	renewed := make(chan struct{}, 100)
	stop := worker.KeepLeased(ctx, time.Millisecond, nil, func(rctx context.Context) error {
		if rctx.Err() != nil {
			t.Error("a renewal got an ended context")
		}
		renewals.Add(1)
		renewed <- struct{}{}
		return nil
	})
	waitFor(t, renewed, "a renewal")
	// The step's context ends (the process is stopping): what it holds stays leased.
	cancel()
	waitFor(t, renewed, "a renewal after the step's context ended")
	stop()
	stop()
	n := renewals.Load()
	time.Sleep(20 * time.Millisecond)
	if renewals.Load() != n {
		t.Fatal("renewed after stop")
	}
}

func TestCounted_Drain(t *testing.T) {
	batches := []int{10, 10, 3}
	step := worker.Counted(func(ctx context.Context) (int, bool, error) {
		n := batches[0]
		batches = batches[1:]
		return n, len(batches) > 0, nil
	})
	if n, err := step.Drain(context.Background()); n != 23 || err != nil {
		t.Fatalf("Drain = %d, %v; want the 23 of three steps", n, err)
	}
	failing := worker.Counted(func(ctx context.Context) (int, bool, error) { return 2, true, errors.New("down") })
	if n, err := failing.Drain(context.Background()); n != 2 || err == nil {
		t.Fatalf("Drain = %d, %v; want the first step's 2 and its error", n, err)
	}
}

func TestLocked(t *testing.T) {
	var mu sync.Mutex
	var running, overlaps atomic.Int32
	step := worker.Locked(&mu, func(ctx context.Context) (int, bool, error) {
		if running.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(time.Millisecond)
		running.Add(-1)
		return 1, false, nil
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				step.Step(context.Background())
			}
		}()
	}
	wg.Wait()
	if n := overlaps.Load(); n != 0 {
		t.Fatalf("got %d overlapping calls, want 0", n)
	}
}
