package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/web"
)

// countingPurchases counts the reads of answers and of versions.
type countingPurchases struct {
	*mysql.PurchaseService
	pages, docs, versions atomic.Int64
}

func (c *countingPurchases) FindPurchaseDocuments(ctx context.Context, f shop.PurchaseFilter, buf []byte) (*shop.DocumentPage, error) {
	c.pages.Add(1)
	return c.PurchaseService.FindPurchaseDocuments(ctx, f, buf)
}

func (c *countingPurchases) FindPurchaseDocument(ctx context.Context, accountID, id int64, buf []byte) ([]byte, int64, error) {
	c.docs.Add(1)
	return c.PurchaseService.FindPurchaseDocument(ctx, accountID, id, buf)
}

func (c *countingPurchases) PurchasesVersion(ctx context.Context, accountID int64) (int64, error) {
	c.versions.Add(1)
	return c.PurchaseService.PurchasesVersion(ctx, accountID)
}

// TestAPI_ValidatedCache runs two instances on one database: each keeps answers, a
// write through either one (or from outside both) is seen by the next request to
// each, the kept answers are the bytes and headers the database gives, and ETags
// answer 304 until a write (docs/API.md#conditional-requests).
func TestAPI_ValidatedCache(t *testing.T) {
	e := newAPI(t, 0)
	counts := &countingPurchases{PurchaseService: mysql.NewPurchaseService(e.db)}
	s2 := &web.Server{Purchases: counts, Writer: mysql.NewPurchaseService(e.db), Subscribers: mysql.NewSubscriberService(e.db), Keys: mysql.NewAPIKeyService(e.db),
		Accounts: mysql.NewAccountService(e.db), Users: mysql.NewUserService(e.db), Admin: mysql.NewAdminService(e.db),
		Logger: serverLog, BaseURL: "http://shop.test", Now: e.clock.now}
	hs := httptest.NewServer(s2.Handler())
	t.Cleanup(hs.Close)
	e2 := *e
	e2.url = hs.URL
	noCache := map[string]string{"Cache-Control": "no-cache"}

	list := "/api/v2/purchases?order=desc&per_page=50&include_count=1"
	var target int64
	var page []purchase
	e.get(list, e.ro).json(t, &page)
	for _, p := range page {
		if p.Status == "ACT" || p.Status == "PND" || p.Status == "ERR" {
			target = p.ID
			break
		}
	}
	if target == 0 {
		t.Fatal("no reactivatable purchase on the first page")
	}
	one := fmt.Sprintf("/api/v2/purchases/%d", target)

	// same checks that r is the answer the database gives now, as want (read with
	// no-cache) is, headers included.
	same := func(what string, r, want response) {
		t.Helper()
		if r.status != 200 || string(r.body) != string(want.body) {
			t.Errorf("%s: got %d, %d bytes; want 200, the %d bytes read with no-cache", what, r.status, len(r.body), len(want.body))
		}
		for _, h := range []string{"Link", "X-Total-Count", "Dpd-Collection-Count", "ETag", "Cache-Control", "Content-Type", "Content-Length"} {
			if r.header.Get(h) != want.header.Get(h) {
				t.Errorf("%s: %s got %q, want %q", what, h, r.header.Get(h), want.header.Get(h))
			}
		}
	}
	fresh := func(path string) response {
		r := e.do("GET", path, e.ro, nil, noCache)
		if r.status != 200 || r.header.Get("ETag") == "" || r.header.Get("Cache-Control") != "private, no-cache" {
			t.Fatalf("GET %s: got %d, ETag %q, Cache-Control %q", path, r.status, r.header.Get("ETag"), r.header.Get("Cache-Control"))
		}
		return r
	}

	for _, path := range []string{list, one} {
		want := fresh(path)
		same(path+" on the first instance", e.get(path, e.ro), want)
		same(path+" kept by the first instance", e.get(path, e.ro), want)
		reads := counts.pages.Load() + counts.docs.Load()
		same(path+" on the second instance", e2.get(path, e.ro), want)
		same(path+" kept by the second instance", e2.get(path, e.ro), want)
		if got := counts.pages.Load() + counts.docs.Load() - reads; got != 1 {
			t.Errorf("%s twice on the second instance: %d reads of the answer, want 1 (the second kept)", path, got)
		}
		etag := want.header.Get("ETag")
		for _, inm := range []string{etag, "W/" + etag, `"other", ` + etag, "*"} {
			r := e2.do("GET", path, e.ro, nil, map[string]string{"If-None-Match": inm})
			if r.status != 304 || len(r.body) != 0 || r.header.Get("ETag") != etag {
				t.Errorf("%s with If-None-Match %s: got %d, %d bytes, ETag %q; want 304, none, %s", path, inm, r.status, len(r.body), r.header.Get("ETag"), etag)
			}
		}
		if r := e2.do("GET", path, e.ro, nil, map[string]string{"If-None-Match": `"other"`}); r.status != 200 {
			t.Errorf("%s with another ETag: got %d, want 200", path, r.status)
		}
	}
	// "*" matches an answer that exists, never a missing purchase.
	if r := e.do("GET", "/api/v2/purchases/999999999", e.ro, nil, map[string]string{"If-None-Match": "*"}); r.status != 404 {
		t.Errorf("an unknown purchase with If-None-Match *: got %d, want 404", r.status)
	}
	// Another account's request never shares an answer or an ETag.
	if r, mine := e.get("/api/v2/purchases?order=desc&per_page=50&include_count=1", e.other), fresh(list); string(r.body) == string(mine.body) || r.header.Get("ETag") == mine.header.Get("ETag") {
		t.Errorf("another account's list: got the same answer or ETag as account 1's")
	}

	// A write through the second instance: the first sees it at its next request.
	before, beforeOne := fresh(list), fresh(one)
	if r := e2.do("POST", one+"/reactivate", e.rw, nil, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}); r.status != 200 {
		t.Fatalf("reactivate: got %d %s", r.status, r.body)
	}
	for _, path := range []string{list, one} {
		want := fresh(path)
		old := before
		if path == one {
			old = beforeOne
		}
		if string(want.body) == string(old.body) || want.header.Get("ETag") == old.header.Get("ETag") {
			t.Fatalf("%s: the reactivation changed neither the answer nor its ETag", path)
		}
		same(path+" on the first instance after a write on the second", e.get(path, e.ro), want)
		same(path+" on the second instance after its write", e2.get(path, e.ro), want)
		if r := e.do("GET", path, e.ro, nil, map[string]string{"If-None-Match": old.header.Get("ETag")}); r.status != 200 {
			t.Errorf("%s with the ETag from before the write: got %d, want 200", path, r.status)
		}
	}

	// A write from outside both instances (another process).
	before, beforeOne = fresh(list), fresh(one)
	e.clock.advance(61 * 1e9)
	if _, err := mysql.NewPurchaseService(e.db).Reactivate(context.Background(), shop.ReactivateRequest{AccountID: e.id(1), PurchaseID: target, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{list, one} {
		want := fresh(path)
		if path == list && string(want.body) == string(before.body) || path == one && string(want.body) == string(beforeOne.body) {
			t.Fatalf("%s: the second reactivation did not change the answer", path)
		}
		same(path+" on the first instance after an outside write", e.get(path, e.ro), want)
		same(path+" on the second instance after an outside write", e2.get(path, e.ro), want)
	}

	// no-cache neither uses nor fills the kept answers.
	reads := counts.pages.Load()
	for range 2 {
		e2.do("GET", list, e.ro, nil, noCache)
	}
	if got := counts.pages.Load() - reads; got != 2 {
		t.Errorf("two no-cache lists: %d reads of the page, want 2", got)
	}
}
