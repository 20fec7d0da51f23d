package jobs

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"storefront/internal/shop"
)

// steps is a job store with work pending purchases left; it fails once at the start.
type steps struct {
	shop.JobService
	work  atomic.Int64
	calls atomic.Int64
	fail  atomic.Bool
}

func (s *steps) RunJobStep(context.Context) (bool, error) {
	s.calls.Add(1)
	if s.fail.CompareAndSwap(true, false) {
		return false, errors.New("database away")
	}
	if s.work.Load() > 0 {
		s.work.Add(-1)
		return true, nil
	}
	return false, nil
}

func TestRunner(t *testing.T) {
	s := &steps{}
	s.work.Store(50)
	s.fail.Store(true)
	r := New(s, time.Hour, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.Run(ctx) }()
	// The first step fails: the runner waits for a kick (Poll is an hour), then runs
	// the 50 steps back to back and waits again.
	time.Sleep(50 * time.Millisecond)
	if got := s.work.Load(); got != 50 {
		t.Fatalf("after a failed step, %d steps left; want the runner waiting with 50", got)
	}
	r.Kick()
	deadline := time.Now().Add(5 * time.Second)
	for s.work.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := s.work.Load(); got != 0 {
		t.Fatalf("after a kick: %d steps left, want 0", got)
	}
	calls := s.calls.Load()
	time.Sleep(50 * time.Millisecond)
	if got := s.calls.Load(); got != calls {
		t.Errorf("an idle runner asked %d more times within its poll interval", got-calls)
	}
	s.work.Store(3)
	r.Kick()
	deadline = time.Now().Add(5 * time.Second)
	for s.work.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := s.work.Load(); got != 0 {
		t.Errorf("a second kick: %d steps left", got)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run: got %v, want context.Canceled", err)
	}
}
