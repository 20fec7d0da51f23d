package web_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// viewTabs returns the saved views' tabs of a purchases page: name → address.
func viewTabs(body string) map[string]string {
	nav := regexp.MustCompile(`(?s)<nav aria-label="Saved views".*?</nav>`).FindString(body)
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<a href="([^"]*)"[^>]*>\s*([^<]*?)\s*(?:<span|</a>)`).FindAllStringSubmatch(nav, -1) {
		out[m[2]] = strings.ReplaceAll(m[1], "&amp;", "&")
	}
	return out
}

func TestDashboard_SavedViews(t *testing.T) {
	e := newAPI(t, 0)
	staff := e.signIn(e.id(1), "staff")
	owner := e.signIn(e.id(1), "owner")
	other := e.signIn(e.id(2), "owner")

	t.Run("SaveIsTheQueryString", func(t *testing.T) {
		r := staff.post("/purchases/views", url.Values{"name": {"Refunds"}, "query": {"status=RFD&customer_email=&order=&page=3"}})
		if r.status != 303 || r.header.Get("Location") != "/purchases?q=status%3ARFD" {
			t.Fatalf("save: got %d to %q, want 303 to /purchases?q=status%%3ARFD (the filters as one search)", r.status, r.header.Get("Location"))
		}
		tabs := viewTabs(string(staff.get("/purchases", false).body))
		if tabs["Refunds"] != "/purchases?q=status%3ARFD" {
			t.Errorf("tabs: got %v, want Refunds → /purchases?q=status%%3ARFD", tabs)
		}
		// The tab of the filters shown is the current one.
		if !regexp.MustCompile(`aria-current="page">\s*Refunds`).Match(staff.get("/purchases?status=RFD", false).body) {
			t.Error("the Refunds tab is not current on its own filters")
		}
		// Nobody else sees a personal view.
		if _, ok := viewTabs(string(owner.get("/purchases", false).body))["Refunds"]; ok {
			t.Error("another user of the account sees the staff member's view")
		}
	})

	t.Run("SharedViewsOwnersOnly", func(t *testing.T) {
		if r := staff.post("/purchases/views", url.Values{"name": {"Team"}, "query": {"status=ACT"}, "for": {"account"}}); r.status != 403 {
			t.Errorf("staff saving for the account: got %d, want 403", r.status)
		}
		if r := owner.post("/purchases/views", url.Values{"name": {"Active"}, "query": {"status=ACT"}, "for": {"account"}}); r.status != 303 {
			t.Fatalf("owner saving for the account: got %d", r.status)
		}
		body := string(staff.get("/purchases", false).body)
		if viewTabs(body)["Active"] != "/purchases?q=status%3AACT" {
			t.Errorf("staff does not see the account's view: %v", viewTabs(body))
		}
		if _, ok := viewTabs(string(other.get("/purchases", false).body))["Active"]; ok {
			t.Error("another account sees the view")
		}
	})

	t.Run("RenameMoveDelete", func(t *testing.T) {
		staff.post("/purchases/views", url.Values{"name": {"Second"}, "query": {"status=PND"}})
		body := string(staff.get("/purchases", false).body)
		ids := regexp.MustCompile(`action="/purchases/views/(\d+)/rename"`).FindAllStringSubmatch(body, -1)
		if len(ids) != 2 {
			t.Fatalf("staff can edit %d views, want their own 2 (not the shared one)", len(ids))
		}
		first, second := ids[0][1], ids[1][1]
		order := func() string {
			nav := regexp.MustCompile(`(?s)<nav aria-label="Saved views".*?</nav>`).FindString(string(staff.get("/purchases", false).body))
			var names []string
			for _, m := range regexp.MustCompile(`>\s*([A-Z][a-z ]+?)\s*<`).FindAllStringSubmatch(nav, -1) {
				names = append(names, m[1])
			}
			return strings.Join(names, ",")
		}
		if got := order(); got != "All purchases,Active,Refunds,Second" {
			t.Fatalf("tabs: got %s", got)
		}
		if r := staff.post("/purchases/views/"+second+"/move", url.Values{"by": {"-1"}, "back": {"status=PND"}}); r.status != 303 || r.header.Get("Location") != "/purchases?status=PND" {
			t.Fatalf("move: got %d to %s", r.status, r.header.Get("Location"))
		}
		if got := order(); got != "All purchases,Active,Second,Refunds" {
			t.Errorf("after moving Second earlier: got %s", got)
		}
		staff.post("/purchases/views/"+first+"/rename", url.Values{"name": {"Refunded"}})
		if got := order(); got != "All purchases,Active,Second,Refunded" {
			t.Errorf("after renaming: got %s", got)
		}
		if r := staff.post("/purchases/views/"+first+"/rename", url.Values{"name": {"  "}}); r.status != 400 || !strings.Contains(string(r.body), "Give the view a name") {
			t.Errorf("blank name: got %d", r.status)
		}
		staff.post("/purchases/views/"+first+"/delete", nil)
		if got := order(); got != "All purchases,Active,Second" {
			t.Errorf("after deleting: got %s", got)
		}
		// Another user's view, or another account's, is not there to change.
		if r := owner.post("/purchases/views/"+second+"/delete", nil); r.status != 404 {
			t.Errorf("deleting another user's view: got %d, want 404", r.status)
		}
		if r := other.post("/purchases/views/"+second+"/rename", url.Values{"name": {"x"}}); r.status != 404 {
			t.Errorf("renaming another account's view: got %d, want 404", r.status)
		}
	})

	t.Run("BadFiltersRefused", func(t *testing.T) {
		r := staff.post("/purchases/views", url.Values{"name": {"Bad"}, "query": {"date_min=not+a+date"}})
		if r.status != 400 || !strings.Contains(string(r.body), "Created from") {
			t.Errorf("got %d, want 400 naming Created from", r.status)
		}
	})
}
