package faults_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestLoad runs a steady mix of API traffic (80% lists with varied filters, 15%
// single purchases, 5% reactivations) from -load.workers concurrent clients against
// the real binary on a private database seeded with -load.purchases purchases, for
// -load.duration. Every request must succeed. The server's RSS is sampled every
// second; when the run lasts two minutes or more (make load), the last minute must
// not trend up: its last sample within 10% of the one at the minute's start, and its
// least-squares slope under 10% of that sample over the minute.
//
// go test ./faults runs it for 10 s on 5,000 purchases; make load runs it for two
// minutes on 50,000.
func TestLoad(t *testing.T) {
	f := seeded(t, *loadPurchases)
	srv := startServer(t, f.db.DSN())
	tr := &traffic{base: srv.base, client: newClient(*loadWorkers), key: f.key, ids: f.ids}

	var (
		mu      sync.Mutex
		samples []int64     // KiB, one about every second
		times   []time.Time // of each sample
	)
	sample := func() {
		kb, err := rssKiB(srv.Pid())
		if err != nil {
			t.Errorf("read RSS: %v", err)
			return
		}
		mu.Lock()
		samples = append(samples, kb)
		times = append(times, time.Now())
		mu.Unlock()
	}
	ctx, cancel := context.WithTimeout(context.Background(), *loadDuration)
	defer cancel()
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		sample()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				sample()
			}
		}
	}()

	tl := newTally()
	start := time.Now()
	tr.run(ctx, *loadWorkers, func(o outcome) { tl.add(o, o.err == nil && o.status == 200) })
	elapsed := time.Since(start)
	<-sampled
	sample()

	t.Logf("load: %d workers for %s on %d purchases: %s", *loadWorkers, elapsed.Round(time.Millisecond), *loadPurchases, tl)
	t.Logf("load: %.0f requests/s", float64(tl.n)/elapsed.Seconds())
	if tl.nErrors > 0 {
		t.Errorf("%d of %d requests failed", tl.nErrors, tl.n)
	}
	if tl.n == 0 {
		t.Fatal("no requests were made")
	}

	first, last, peak := samples[0], samples[len(samples)-1], int64(0)
	for _, s := range samples {
		peak = max(peak, s)
	}
	t.Logf("RSS: first %d MiB, peak %d MiB, last %d MiB (%d samples)", first>>10, peak>>10, last>>10, len(samples))
	if elapsed >= 2*time.Minute {
		// The last minute, by the clock: a busy machine may delay a sample.
		end := times[len(times)-1]
		i := len(times) - 1
		for i > 0 && end.Sub(times[i-1]) <= time.Minute {
			i--
		}
		window, wt := samples[i:], times[i:]
		mid := window[0]
		slope := slopeKiBPerS(window, wt)
		t.Logf("RSS over the last %s (%d samples): from %d MiB to %d MiB (%+.1f%%), least-squares slope %+.1f KiB/s (%+.2f%% a minute)",
			end.Sub(wt[0]).Round(time.Second), len(window), mid>>10, last>>10, 100*float64(last-mid)/float64(mid), slope, 100*slope*60/float64(mid))
		if float64(last) > 1.10*float64(mid) {
			t.Errorf("RSS grew over the last minute: %d KiB to %d KiB", mid, last)
		}
		if slope*60 > 0.10*float64(mid) {
			t.Errorf("RSS trends up over the last minute: %+.1f KiB/s", slope)
		}
		t.Logf("RSS samples (KiB): %v", fmtSamples(samples))
	} else {
		t.Logf("RSS samples (KiB): %v", fmtSamples(samples))
	}
}

// slopeKiBPerS is the least-squares slope of samples taken at the given times.
func slopeKiBPerS(s []int64, at []time.Time) float64 {
	n := float64(len(s))
	var sx, sy, sxx, sxy float64
	for i, v := range s {
		x, y := at[i].Sub(at[0]).Seconds(), float64(v)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

func fmtSamples(s []int64) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprint(v)
	}
	return out
}
