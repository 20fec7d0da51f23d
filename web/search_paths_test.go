package web_test

import (
	"html"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSearch_SameRowsEverywhere checks that one search selects the same purchases
// wherever it is used: the API's list (every page), the API's CSV export, the
// dashboard's Export CSV of the page that shows the search, a saved view of it (every
// page of the list the view opens), and a bulk "Reactivate selected" job made from the
// page's "Select all matching" (the purchases the job holds). Searches with OR, a
// negation, relative dates, a domain and bare words.
func TestSearch_SameRowsEverywhere(t *testing.T) {
	e := newAPI(t, 0)
	staff := e.signIn(e.id(1), "staff")
	var domain, word string
	if err := e.db.QueryRow(`SELECT SUBSTRING_INDEX(buyer_email, '@', -1) d FROM purchases WHERE account_id = ?
		GROUP BY d HAVING COUNT(*) BETWEEN 3 AND 40 ORDER BY COUNT(*) DESC, d LIMIT 1`, e.id(1)).Scan(&domain); err != nil {
		t.Fatal(err)
	}
	if err := e.db.QueryRow(`SELECT LEFT(buyer_firstname, 2) w FROM purchases WHERE account_id = ? AND buyer_firstname IS NOT NULL
		GROUP BY w HAVING COUNT(*) BETWEEN 3 AND 40 ORDER BY COUNT(*) DESC, w LIMIT 1`, e.id(1)).Scan(&word); err != nil {
		t.Fatal(err)
	}
	for i, q := range []string{
		"status:pnd,err OR status:hld total>100",
		"-status:act -status:rfd -ship:yes",
		`created>=-40days created<"yesterday noon" -status:can`,
		"domain:" + strings.ToUpper(domain),
		word + " OR " + strings.ToLower(word) + "zz",
		`(domain:` + domain + ` OR name:` + word + `) created>="-1 year" NOT (status:act total<20)`,
	} {
		t.Run(q, func(t *testing.T) {
			e := e.with(t)
			qs := "q=" + url.QueryEscape(q)
			list := pids(e.walk("/api/v2/purchases?per_page=500&"+qs, e.ro))
			slices.Sort(list)
			if len(list) == 0 || len(list) > 120 {
				t.Fatalf("the list holds %d purchases: pick a search that holds some, and not too many for a job", len(list))
			}
			same := func(path string, ids []int64) {
				t.Helper()
				slices.Sort(ids)
				if !slices.Equal(ids, list) {
					t.Errorf("%s: %v, the API's list %v", path, ids, list)
				}
			}
			same("the API's export", csvIDs(t, e.get("/api/v2/purchases.csv?"+qs, e.ro)))

			page := staff.get("/purchases?"+qs, false)
			if page.status != 200 {
				t.Fatalf("the purchases page: %d", page.status)
			}
			same("the page's Export CSV", csvIDs(t, staff.get(exportLink(t, string(page.body), "purchases"), false)))

			// A saved view of the page's search, opened and paged through.
			name := "Same rows " + strconv.Itoa(i)
			r := staff.post("/purchases/views", url.Values{"name": {name}, "query": {qs}})
			if r.status != 303 {
				t.Fatalf("save the view: %d %s", r.status, r.body)
			}
			view := viewTabs(string(staff.get("/purchases", false).body))[name]
			if view == "" {
				t.Fatal("the saved view has no tab")
			}
			var shown []int64
			for next, n := view, 0; next != ""; n++ {
				if n > 20 {
					t.Fatal("the view's pages do not end")
				}
				body := string(staff.get(next, false).body)
				for _, id := range rowIDs(body) {
					v, _ := strconv.ParseInt(id, 10, 64)
					shown = append(shown, v)
				}
				next = ""
				if m := regexp.MustCompile(`<a href="([^"]*)"[^>]*rel="next"`).FindStringSubmatch(body); m != nil {
					next = html.UnescapeString(m[1])
				}
			}
			same("the saved view "+view, shown)

			// Reactivate selected, all matching: the form's selection, confirmed.
			sel := regexp.MustCompile(`<form id="bulk"[^>]*>\s*<input type="hidden" name="query" value="([^"]*)"`).FindStringSubmatch(string(page.body))
			if sel == nil {
				t.Fatal("the page has no Select all matching")
			}
			confirm := staff.get("/purchases/reactivate?"+url.Values{"all": {"1"}, "query": {html.UnescapeString(sel[1])}}.Encode(), false)
			query := regexp.MustCompile(`<input type="hidden" name="query" value="([^"]*)"`).FindStringSubmatch(string(confirm.body))
			if confirm.status != 200 || query == nil {
				t.Fatalf("the confirmation: %d %s", confirm.status, confirm.body)
			}
			r = staff.post("/jobs", url.Values{"all": {"1"}, "query": {html.UnescapeString(query[1])}})
			job := strings.TrimPrefix(r.header.Get("Location"), "/jobs/")
			if r.status != 303 || job == "" {
				t.Fatalf("create the job: %d %s", r.status, r.body)
			}
			same("job "+job, naiveIDs(t, e, "SELECT purchase_id FROM job_items WHERE account_id = ? AND job_id = ?", e.id(1), job))
			// The job changes statuses: the next search starts once it is done.
			waitJob(t, e, job)
		})
	}
}

// csvIDs returns the purchase ids of an export's rows.
func csvIDs(t *testing.T, r response) []int64 {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("export: %d %s", r.status, r.body)
	}
	_, records := readCSV(t, r.body)
	var ids []int64
	for _, rec := range records {
		id, err := strconv.ParseInt(rec[0], 10, 64)
		if err != nil {
			t.Fatalf("export row %v", rec)
		}
		ids = append(ids, id)
	}
	return ids
}

// naiveIDs reads a column of ids.
func naiveIDs(t *testing.T, e *apiEnv, query string, args ...any) []int64 {
	t.Helper()
	rows, err := e.db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}
