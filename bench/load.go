package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// stats are the latencies of one bounded run.
type stats struct {
	lat     []time.Duration // sorted
	errs    int
	elapsed time.Duration
}

// pct returns the q-quantile (0 < q ≤ 1) by the nearest-rank method.
func (s stats) pct(q float64) time.Duration {
	if len(s.lat) == 0 {
		return 0
	}
	i := int(float64(len(s.lat))*q+0.999999) - 1
	return s.lat[max(0, min(i, len(s.lat)-1))]
}

func (s stats) rps() float64 {
	if s.elapsed <= 0 {
		return 0
	}
	return float64(len(s.lat)) / s.elapsed.Seconds()
}

// newClient is a keep-alive client with enough idle connections for every worker.
func newClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true, IdleConnTimeout: time.Minute},
		Timeout:   30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// load runs conc workers for dur, each sending the requests mk makes one after the
// other, after a short warm-up whose answers are not counted. A request that does not
// answer 200 counts as an error, not as a latency.
func load(client *http.Client, conc int, dur time.Duration, mk func(n int) *http.Request) stats {
	return loadMin(client, conc, dur, 0, mk)
}

// loadMin is load that goes on past dur until at least minN requests have answered
// (or failed), so that a slow page still has a median.
func loadMin(client *http.Client, conc int, dur time.Duration, minN int, mk func(n int) *http.Request) stats {
	run := func(d time.Duration, keep bool) stats {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var mu sync.Mutex
		var all []time.Duration
		errs := 0
		var wg sync.WaitGroup
		var sent atomic.Int64
		start := time.Now()
		for w := range conc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lat := make([]time.Duration, 0, 4096)
				bad := 0
				for n := w; ctx.Err() == nil || keep && sent.Add(1) <= int64(minN); n += conc {
					if ctx.Err() == nil {
						sent.Add(1)
					}
					req := mk(n)
					t0 := time.Now()
					resp, err := client.Do(req)
					if err != nil {
						bad++
						continue
					}
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					d := time.Since(t0)
					if err != nil || resp.StatusCode != http.StatusOK {
						if bad == 0 && keep {
							fmt.Fprintf(os.Stderr, "  %s %s: status %d\n", req.Method, req.URL.RequestURI(), resp.StatusCode)
						}
						bad++
						continue
					}
					lat = append(lat, d)
				}
				mu.Lock()
				all = append(all, lat...)
				errs += bad
				mu.Unlock()
			}()
		}
		wg.Wait()
		slices.Sort(all)
		return stats{lat: all, errs: errs, elapsed: time.Since(start)}
	}
	run(min(dur/5, 400*time.Millisecond), false)
	return run(dur, true)
}

// getter makes GET requests to base+paths[n%len(paths)] with the given headers.
func getter(base string, paths []string, header http.Header) func(int) *http.Request {
	return func(n int) *http.Request {
		req, err := http.NewRequest(http.MethodGet, base+paths[n%len(paths)], nil)
		if err != nil {
			panic(err)
		}
		for k, vs := range header {
			req.Header[k] = vs
		}
		return req
	}
}

// fetch sends req and returns the body of its answer, an error unless it is 200 OK.
func fetch(client *http.Client, req *http.Request) (string, error) {
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %d %v", req.URL.RequestURI(), resp.StatusCode, err)
	}
	return string(body), nil
}

// rssSampler follows a process's resident memory.
type rssSampler struct {
	pid  int
	mu   sync.Mutex
	peak int64 // kB, the highest VmRSS seen
	stop chan struct{}
	done chan struct{}
}

func startRSS(pid int) *rssSampler {
	r := &rssSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if v := procStatus(pid, "VmRSS"); v > 0 {
				r.mu.Lock()
				r.peak = max(r.peak, v)
				r.mu.Unlock()
			}
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
		}
	}()
	return r
}

// Stop ends sampling and returns the peak VmRSS seen and the kernel's VmHWM, in kB.
func (r *rssSampler) Stop() (peakRSS, hwm int64) {
	hwm = procStatus(r.pid, "VmHWM")
	close(r.stop)
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.peak, hwm
}

// procStatus reads one "kB" field of /proc/PID/status; 0 when it cannot.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// procCPU is the CPU time a process has used so far (user and system), from
// /proc/PID/stat; 0 when it cannot be read.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's closing parenthesis; utime and stime are the
	// 14th and 15th of the line, in clock ticks (100 a second on Linux).
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond
}

func ms(d time.Duration) string {
	return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000)
}
