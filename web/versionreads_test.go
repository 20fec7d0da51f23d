package web

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestVersionReads_NeverOlderThanTheRequest has many requests each commit a write (a
// new version) and then ask for the version: shared reads must never answer a request
// with a version read before it arrived, and must be shared.
func TestVersionReads_NeverOlderThanTheRequest(t *testing.T) {
	var version, reads atomic.Int64
	read := func(ctx context.Context, account int64) (int64, error) {
		reads.Add(1)
		v := version.Load() // the snapshot is taken when the read begins
		time.Sleep(2 * time.Millisecond)
		return v, nil
	}
	var r versionReads
	var wg sync.WaitGroup
	const workers, each = 32, 40
	for range workers {
		wg.Go(func() {
			for range each {
				committed := version.Add(1)
				got, err := r.read(context.Background(), 7, read)
				if err != nil {
					t.Error(err)
					return
				}
				if got < committed {
					t.Errorf("a request after the write of version %d was answered %d", committed, got)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := reads.Load(); n >= workers*each {
		t.Errorf("%d reads for %d requests: none shared", n, workers*each)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.accounts) != 0 {
		t.Errorf("accounts left after every read ended: %d", len(r.accounts))
	}
}

// TestVersionReads_Canceled: a request whose context ends stops waiting; the read goes
// on for the others.
func TestVersionReads_Canceled(t *testing.T) {
	release := make(chan struct{})
	read := func(ctx context.Context, account int64) (int64, error) {
		<-release
		return 1, nil
	}
	var r versionReads
	for range versionReadsAtOnce {
		go r.read(context.Background(), 1, read)
	}
	time.Sleep(10 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := r.read(ctx, 1, read); err == nil {
		t.Error("a canceled request got an answer while every read was held")
	}
	close(release)
	v, err := r.read(context.Background(), 1, read)
	if err != nil || v != 1 {
		t.Errorf("after the reads ended: got %d, %v; want 1", v, err)
	}
}
