package web

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	lru "github.com/hashicorp/golang-lru/v2"

	"storefront/internal/filter"
	"storefront/internal/shop"
)

// The purchase list and GET of one purchase answer with an ETag, and keep their
// answers in a validated in-process cache (docs/API.md#conditional-requests). Both
// rest on the account's purchases version (shop.PurchaseService.PurchasesVersion),
// which every write of the account's purchases bumps in its own transaction: a request
// reads the version from the database, every time, in one round trip; an answer kept
// for the same request at the same version is the answer, on every instance, since any
// committed write on any instance has changed the version. A request with
// `Cache-Control: no-cache` skips the cache (and refreshes it): the benchmark measures
// the uncached path that way.

// DefaultResponseCacheBytes bounds the answers an instance keeps when
// Server.ResponseCacheBytes is 0.
const DefaultResponseCacheBytes = 32 << 20

// respCacheEntries bounds the number of answers kept, whatever their size.
const respCacheEntries = 4096

// cachedAnswer is an answer kept for one request: its body and the list headers' values.
type cachedAnswer struct {
	version int64
	etag    string
	body    []byte
	next    *shop.Cursor
	total   int64
}

// respCache keeps answers by request key, at most limit bytes of bodies.
type respCache struct {
	lru   *lru.Cache[string, *cachedAnswer]
	size  atomic.Int64
	limit int64
}

func newRespCache(limit int64) *respCache {
	c := &respCache{limit: limit}
	l, err := lru.NewWithEvict(respCacheEntries, func(_ string, a *cachedAnswer) { c.size.Add(-int64(len(a.body))) })
	if err != nil {
		panic(err) // only for a size <= 0
	}
	c.lru = l
	return c
}

func (c *respCache) get(key string) *cachedAnswer {
	if c == nil {
		return nil
	}
	a, _ := c.lru.Get(key)
	return a
}

// put keeps a copy of a's body under key, evicting the least recently used answers
// while the bodies kept exceed the limit.
func (c *respCache) put(key string, a cachedAnswer) {
	if c == nil || int64(len(a.body)) > c.limit/4 {
		return
	}
	a.body = append([]byte(nil), a.body...)
	if old, ok := c.lru.Peek(key); ok && old.version > a.version {
		return // a newer answer is already there
	}
	c.size.Add(int64(len(a.body)))
	c.lru.Add(key, &a)
	for c.size.Load() > c.limit {
		if _, _, ok := c.lru.RemoveOldest(); !ok {
			break
		}
	}
}

// bodyPool holds the buffers the answers are read into.
var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// maxPooledBody is the largest buffer put back: a page of 500 large purchases is not
// kept for the pages of 100 that follow.
const maxPooledBody = 4 << 20

func getBody() *[]byte { return bodyPool.Get().(*[]byte) }

func putBody(b *[]byte) {
	if cap(*b) <= maxPooledBody {
		*b = (*b)[:0]
		bodyPool.Put(b)
	}
}

// listKey is the cache key of a list request: the filter as read (dates resolved to
// instants, the account, the page) and its search (its canonical form and resolved
// instants, which make the filter's search conditions), so that two requests share an
// answer only when they ask for the same purchases.
func listKey(f shop.PurchaseFilter, sr filter.Search) string {
	// Instants as seconds and nanoseconds: JSON refuses times outside years 0-9999,
	// which a filter may hold (date_min=@-99999999999).
	instant := func(t *time.Time) *[2]int64 {
		if t == nil {
			return nil
		}
		return &[2]int64{t.Unix(), int64(t.Nanosecond())}
	}
	k := struct {
		shop.PurchaseFilter
		CreatedFrom, CreatedBefore, After *[2]int64
		AfterID                           int64
		// The search's conditions are named by its key; these hide the filter's
		// own, so that a request without one has the key it always had.
		Where, Any *struct{} `json:",omitempty"`
		Search     string    `json:",omitempty"`
	}{PurchaseFilter: f, Search: sr.Key, CreatedFrom: instant(f.CreatedFrom), CreatedBefore: instant(f.CreatedBefore)}
	if f.After != nil {
		k.After, k.AfterID = instant(&f.After.CreatedAt), f.After.ID
	}
	raw, err := json.Marshal(k)
	if err != nil {
		panic(err) // every field left is a number, a string or a list of them
	}
	return "L" + string(raw)
}

// purchaseKey is the cache key of GET /purchases/{id}.
func purchaseKey(accountID, id int64) string {
	return "G" + strconv.FormatInt(accountID, 10) + "/" + strconv.FormatInt(id, 10)
}

// etagOf is the strong ETag of the answer to the request key at a purchases version.
func etagOf(key string, version int64) string {
	h := sha256.Sum256([]byte(key))
	return `"` + strconv.FormatInt(version, 10) + "-" + base64.RawURLEncoding.EncodeToString(h[:12]) + `"`
}

// noCache reports whether the request asks not to be answered from a cache
// (Cache-Control: no-cache, or the legacy Pragma: no-cache).
func noCache(c *gin.Context) bool {
	for _, v := range c.Request.Header.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(d), "no-cache") {
				return true
			}
		}
	}
	return strings.EqualFold(strings.TrimSpace(c.GetHeader("Pragma")), "no-cache")
}

// ifNoneMatch reports whether the request's If-None-Match names etag (weak comparison,
// RFC 9110 13.1.2), or is "*" and exists is true (the answer is known to exist: "*"
// never turns a 404 into a 304).
func ifNoneMatch(c *gin.Context, etag string, exists bool) bool {
	for _, v := range c.Request.Header.Values("If-None-Match") {
		for _, t := range strings.Split(v, ",") {
			t = strings.TrimSpace(t)
			if t == "*" && exists || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// revalidate answers a request of key with 304 when its If-None-Match names the
// current answer, and otherwise returns the answer kept for it when that is still the
// current one (nil when the caller must read it). It reads the account's purchases
// version once, and not at all when there is neither a kept answer nor a condition.
func (s *Server) revalidate(c *gin.Context, key string, accountID int64) (notModified bool, kept *cachedAnswer, err error) {
	if !noCache(c) {
		kept = s.answers.get(key)
	}
	conditional := c.GetHeader("If-None-Match") != ""
	if kept == nil && !conditional {
		s.Metrics.count(cacheMiss)
		return false, nil, nil
	}
	v, err := s.versions.read(c.Request.Context(), accountID, s.Purchases.PurchasesVersion)
	if err != nil {
		return false, nil, err
	}
	current := kept != nil && kept.version == v
	if etag := etagOf(key, v); conditional && ifNoneMatch(c, etag, current) {
		validators(c, etag)
		c.Status(http.StatusNotModified)
		return true, nil, nil
	}
	if !current {
		s.Metrics.count(cacheMiss)
		return false, nil, nil
	}
	s.Metrics.count(cacheHit)
	return false, kept, nil
}

// validators sends the headers of an answer that carries an ETag: clients and caches
// keep it but ask again (If-None-Match) before they use it.
func validators(c *gin.Context, etag string) {
	c.Header("ETag", etag)
	c.Header("Cache-Control", "private, no-cache")
}

// keepAnswer puts an answer read from the database in the cache, unless the request asked
// for no cache: such requests neither use nor fill it.
func (s *Server) keepAnswer(c *gin.Context, key string, a cachedAnswer) {
	if !noCache(c) {
		s.answers.put(key, a)
	}
}

// versionReads shares reads of an account's purchases version among the requests that
// wait for one at the same time, without ever answering a request from a read that
// began before it arrived: while a read of the account is under way, the requests that
// arrive wait for the next read, which begins once that one has ended, and share it.
// So every request is checked against the database, by a read that began after it
// arrived, and sees every write committed before it arrived, on any instance; 32
// requests at once cost one or two reads instead of 32.
type versionReads struct {
	mu       sync.Mutex
	accounts map[int64]*versionState
}

// versionState is one account's reads: whether one is under way, and the one that the
// requests arriving meanwhile wait for.
type versionState struct {
	running int
	next    *versionRead
}

// versionReadsAtOnce is how many reads of one account's version may be under way at
// once: a request that finds fewer starts its own at once, so that it waits for less
// than a whole read before its own begins.
const versionReadsAtOnce = 4

// versionRead is one read of a version and the requests sharing it.
type versionRead struct {
	done chan struct{}
	v    int64
	err  error
}

// versionReadTimeout bounds a shared read: it runs apart from the requests that wait
// for it, each of which stops waiting when its own context ends.
const versionReadTimeout = 30 * time.Second

func (r *versionReads) read(ctx context.Context, accountID int64, read func(context.Context, int64) (int64, error)) (int64, error) {
	r.mu.Lock()
	if r.accounts == nil {
		r.accounts = map[int64]*versionState{}
	}
	st := r.accounts[accountID]
	if st == nil {
		st = &versionState{}
		r.accounts[accountID] = st
	}
	var call *versionRead
	if st.running >= versionReadsAtOnce {
		if st.next == nil {
			st.next = &versionRead{done: make(chan struct{})}
		}
		call = st.next
		r.mu.Unlock()
	} else {
		st.running++
		call = &versionRead{done: make(chan struct{})}
		r.mu.Unlock()
		r.run(context.WithoutCancel(ctx), accountID, st, call, read)
	}
	select {
	case <-call.done:
		return call.v, call.err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// run makes the read of call, then starts the one the requests that arrived during it
// wait for, if any.
func (r *versionReads) run(parent context.Context, accountID int64, st *versionState, call *versionRead, read func(context.Context, int64) (int64, error)) {
	ctx, cancel := context.WithTimeout(parent, versionReadTimeout)
	call.v, call.err = read(ctx, accountID)
	cancel()
	r.mu.Lock()
	next := st.next
	st.next = nil
	if next == nil {
		st.running--
		if st.running == 0 {
			delete(r.accounts, accountID)
		}
	}
	r.mu.Unlock()
	// The requests sharing call are answered once the account's state no longer counts
	// this read: a request that arrives after its answer never finds the read running.
	close(call.done)
	if next != nil {
		go r.run(parent, accountID, st, next, read)
	}
}
