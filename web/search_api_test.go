package web_test

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/search"
	"storefront/internal/shop"
)

// TestAPI_Search checks q on the lists and exports: the JSON list (walked by its Link
// headers, both orders, small pages) and the CSV export of the same q hold the same
// records in the same order, which are those the language's meaning finds; answers
// name the query and its dates; a blank q is none; a bad q is a 400 naming q; and two
// different q never share a kept answer or an ETag.
func TestAPI_Search(t *testing.T) {
	e := newAPI(t, 0)
	ctx := context.Background()
	acct, err := mysql.NewAccountService(e.db).FindAccountByID(ctx, e.id(1))
	if err != nil {
		t.Fatal(err)
	}
	loc, err := time.LoadLocation(acct.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	all := e.with(t).walk("/api/v2/purchases?per_page=500", e.ro)
	var full []*shop.Purchase
	for _, p := range walkPages[shop.Purchase](e.with(t), "/api/v2/purchases?per_page=500", e.ro) {
		full = append(full, &p)
	}
	if len(full) != len(all) || len(all) < 100 {
		t.Fatalf("read %d purchases", len(all))
	}
	email := *full[17].BuyerEmail
	domain := email[strings.LastIndexByte(email, '@')+1:]
	// A payment reference and a product key of purchases past the first, for ref: and key:.
	var ref, key string
	for _, p := range full[20:] {
		for _, tr := range p.Transactions {
			if ref == "" && tr.Reference != nil && *tr.Reference != "" {
				ref = *tr.Reference
			}
		}
		for _, li := range p.LineItems {
			if key == "" && len(li.ProductKeys) > 0 {
				key = li.ProductKeys[0]
			}
		}
	}
	if ref == "" || key == "" {
		t.Fatalf("the demo data hold no payment reference (%q) or product key (%q)", ref, key)
	}

	t.Run("ListAndExportAgree", func(t *testing.T) {
		e := e.with(t)
		for _, q := range []string{
			"status:act,pnd total>50",
			"-status:RFD created>=-300days",
			"domain:" + strings.ToUpper(domain) + " OR total<=10",
			"email:" + email[:2] + e.path(" OR name:a OR id:%d..%d", 1, 20),
			"(status:act OR ship:yes) -total:10..100 created:*..yesterday",
			e.path("NOT (status:ERR OR status:CAN) storefront:%d,%d", 1, 2),
			strconv.FormatInt(full[3].ID, 10),
			"#" + strconv.FormatInt(full[4].ID, 10),
			"ref:" + strings.ToUpper(ref),
			`key:"` + strings.ToLower(key) + `" OR #` + strconv.FormatInt(full[5].ID, 10),
			"-ref:" + ref + " -key:" + key + " status:act",
		} {
			parsed, err := search.Parse(search.Purchases, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			res, err := parsed.Resolve(now, loc)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, p := range full {
				if res.MatchPurchase(p) {
					want = append(want, p.ID)
				}
			}
			if len(want) == 0 && strings.ContainsAny(q[:1], "rk#") {
				t.Errorf("%s: the language's meaning finds nothing; this test needs a purchase it names", q)
			}
			for _, order := range []string{"asc", "desc"} {
				w := slices.Clone(want)
				if order == "desc" {
					slices.Reverse(w)
				}
				qs := "q=" + url.QueryEscape(q) + "&order=" + order
				list := pids(e.walk("/api/v2/purchases?per_page=7&"+qs, e.ro))
				if !slices.Equal(list, w) && !(len(list) == 0 && len(w) == 0) {
					t.Errorf("%s %s: list %v, want %v", q, order, list, w)
				}
				r := e.get("/api/v2/purchases.csv?"+qs, e.ro)
				if r.status != 200 {
					t.Fatalf("%s: export %d %s", q, r.status, r.body)
				}
				if got := r.header.Get("Storefront-Query"); got != parsed.String() {
					t.Errorf("%s: export's Storefront-Query %q, want %q", q, got, parsed.String())
				}
				_, records := readCSV(t, r.body)
				var csvIDs []int64
				for _, rec := range records {
					id, _ := strconv.ParseInt(rec[0], 10, 64)
					csvIDs = append(csvIDs, id)
				}
				if !slices.Equal(csvIDs, list) {
					t.Errorf("%s %s: export %v, list %v", q, order, csvIDs, list)
				}
			}
			r := e.get("/api/v2/purchases?include_count=1&q="+url.QueryEscape(q), e.ro)
			wantCounted(t, q, r, len(want))
			if got := r.header.Get("Storefront-Query"); got != parsed.String() {
				t.Errorf("%s: Storefront-Query %q, want %q", q, got, parsed.String())
			}
			if got := r.header.Get("Storefront-Query-Dates"); got != res.Header() {
				t.Errorf("%s: Storefront-Query-Dates %q, want %q", q, got, res.Header())
			}
		}
	})

	// One query per kind of residual check and union, through the API, so that the
	// statements' recording (STOREFRONT_RECORD_SQL, scripts/vtcheck.sh) holds every shape
	// a search sends; each answer checked against the language's meaning.
	t.Run("EveryShape", func(t *testing.T) {
		e := e.with(t)
		for _, q := range []string{
			e.path("product:%d,%d,%d", 1, 2, 3), e.path("-product:%d", 1), "currency:usd,eur", "-currency:usd", e.path("-customer:%d", 1), e.path("customer:%d,%d", 1, 2),
			e.path("-subscriber:%d", 1), e.path("subscriber:%d,%d", 1, 2), e.path("storefront:%d,%d", 1, 2), e.path("-storefront:%d", 1), "name:a", "first:a,b", "last:a,b",
			"email:a,b", "-email:a", "domain:" + domain, "-domain:" + domain, "total:10,20", "total:10..20", "-total>50",
			"created:2026-01-01,2026-02-01", "-created>=-30days", e.path("id:%d..%d", 1, 50), e.path("-id:%d..%d", 1, 50), e.path("id:%d,%d,%d", 1, 2, 3),
			strconv.FormatInt(full[5].ID, 10), "an", "-ship:yes", "status:act -status:act", "(status:act OR status:rfd) total>5",
			"total>50 created>=-300days -ship:yes", "total<5 -status:RFD", e.path("email:a status:act,pnd product:%d OR domain:", 1) + domain,
			"ref:" + ref, "-ref:" + ref, `key:"` + key + `"`, `-key:"` + key + `" status:act`, "ref:" + ref + ",nothing-0 an", "#" + strconv.FormatInt(full[6].ID, 10),
		} {
			parsed, err := search.Parse(search.Purchases, q)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			res, err := parsed.Resolve(now, loc)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for _, p := range full {
				if res.MatchPurchase(p) {
					want = append(want, p.ID)
				}
			}
			qs := "q=" + url.QueryEscape(q)
			list := pids(e.walk("/api/v2/purchases?per_page=50&include_count=1&"+qs, e.ro))
			// The answers do not show a purchase's subscriber: its filter is checked
			// against the meaning by the storage tests.
			if !strings.Contains(q, "subscriber:") && !slices.Equal(list, want) && !(len(list) == 0 && len(want) == 0) {
				t.Errorf("%s: list %v, want %v", q, list, want)
			}
			if r := e.get("/api/v2/purchases?page=2&per_page=3&"+qs, e.ro); r.status != 200 {
				t.Errorf("%s: page 2: %d %s", q, r.status, r.body)
			}
		}
		for _, q := range []string{
			"username:a@b.com,c@d.com", "-status:active", "status:active,trial", "started:2026-01-01..2026-06-01",
			"ended>=-300days", "-ended:*..today", "active:today", "-active:yesterday", e.path("id:%d..%d", 1, 20), e.path("-id:%d", 5), "an", e.path("%d", 7),
			"email:a,b", "-email:a", "status:active OR started>=-30days", "username:a@b.com OR -active:today",
		} {
			if r := e.get(e.path("/api/v2/storefronts/%d/subscribers?include_count=1&per_page=2&q=", 1)+url.QueryEscape(q), e.ro); r.status != 200 {
				t.Errorf("%s: %d %s", q, r.status, r.body)
			}
			if r := e.get(e.path("/api/v2/storefronts/%d/subscribers?page=2&per_page=2&q=", 1)+url.QueryEscape(q), e.ro); r.status != 200 {
				t.Errorf("%s: page 2: %d %s", q, r.status, r.body)
			}
		}
	})

	t.Run("Subscribers", func(t *testing.T) {
		e := e.with(t)
		subs := walkPages[shop.Subscriber](e, e.path("/api/v2/storefronts/%d/subscribers?per_page=500", 1), e.ro)
		if len(subs) < 5 {
			t.Fatalf("storefront 1 has %d subscribers", len(subs))
		}
		for _, q := range []string{
			"status:active,trial OR active:today",
			"-status:closed started<=-30days",
			"email:" + subs[2].Username[:1] + " OR ended:*..today OR id:" + strconv.FormatInt(subs[4].ID, 10),
		} {
			parsed, err := search.Parse(search.Subscribers, q)
			if err != nil {
				t.Fatal(err)
			}
			res, err := parsed.Resolve(now, loc)
			if err != nil {
				t.Fatal(err)
			}
			var want []int64
			for i := range subs {
				if res.MatchSubscriber(&subs[i]) {
					want = append(want, subs[i].ID)
				}
			}
			qs := "q=" + url.QueryEscape(q)
			var list []int64
			for _, s := range walkPages[shop.Subscriber](e, e.path("/api/v2/storefronts/%d/subscribers?per_page=3&", 1)+qs, e.ro) {
				list = append(list, s.ID)
			}
			if !slices.Equal(list, want) {
				t.Errorf("%s: list %v, want %v", q, list, want)
			}
			r := e.get(e.path("/api/v2/storefronts/%d/subscribers.csv?", 1)+qs, e.ro)
			if r.status != 200 || r.header.Get("Storefront-Query") != parsed.String() || r.header.Get("Storefront-Query-Dates") != res.Header() {
				t.Fatalf("%s: export %d, headers %v", q, r.status, r.header)
			}
			_, records := readCSV(t, r.body)
			var csvIDs []int64
			for _, rec := range records {
				id, _ := strconv.ParseInt(rec[0], 10, 64)
				csvIDs = append(csvIDs, id)
			}
			if !slices.Equal(csvIDs, list) {
				t.Errorf("%s: export %v, list %v", q, csvIDs, list)
			}
		}
	})

	t.Run("BlankIsNone", func(t *testing.T) {
		e := e.with(t)
		plain := e.get("/api/v2/purchases?per_page=5", e.ro)
		blank := e.get("/api/v2/purchases?per_page=5&q=%20%09", e.ro)
		if blank.status != 200 || string(blank.body) != string(plain.body) || blank.header.Get("ETag") != plain.header.Get("ETag") {
			t.Errorf("blank q: got %d %s, want the answer without q", blank.status, blank.body)
		}
		if _, ok := blank.header["Storefront-Query"]; ok {
			t.Errorf("blank q: Storefront-Query sent")
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		e := e.with(t)
		for _, path := range []string{"/api/v2/purchases", "/api/v2/purchases.csv", e.path("/api/v2/storefronts/%d/subscribers", 1), e.path("/api/v2/storefronts/%d/subscribers.csv", 1)} {
			eb := wantError(t, e.get(path+"?q="+url.QueryEscape("emial:x"), e.ro), 400, "INVALID", "invalid_parameter", "q")
			if want := `unknown field "emial" at 1`; !strings.Contains(eb.Error.Message, want) {
				t.Errorf("%s: message %q, want it to contain %q", path, eb.Error.Message, want)
			}
		}
		// Read as sent: a leading blank moves the position.
		eb := wantError(t, e.get("/api/v2/purchases?q="+url.QueryEscape(" total>x"), e.ro), 400, "INVALID", "invalid_parameter", "q")
		if !strings.Contains(eb.Error.Message, "at 8") {
			t.Errorf("message %q, want the position 8", eb.Error.Message)
		}
	})

	t.Run("NoSharedAnswers", func(t *testing.T) {
		e := e.with(t)
		a := e.get("/api/v2/purchases?per_page=5&q="+url.QueryEscape("status:act"), e.ro)
		b := e.get("/api/v2/purchases?per_page=5&q="+url.QueryEscape("status:pnd"), e.ro)
		if a.status != 200 || b.status != 200 || a.header.Get("ETag") == b.header.Get("ETag") || string(a.body) == string(b.body) {
			t.Fatalf("two queries share an answer: %s / %s", a.header.Get("ETag"), b.header.Get("ETag"))
		}
		// The DPD filter of the same meaning is another request, with its own answer.
		c := e.get("/api/v2/purchases?per_page=5&status=ACT", e.ro)
		if c.header.Get("ETag") == a.header.Get("ETag") {
			t.Errorf("status=ACT and q=status:act share an ETag")
		}
		// The first's ETag does not revalidate the second.
		r := e.do("GET", "/api/v2/purchases?per_page=5&q="+url.QueryEscape("status:pnd"), e.ro, nil, map[string]string{"If-None-Match": a.header.Get("ETag")})
		if r.status != 200 || r.header.Get("Storefront-Query") != "status:PND" {
			t.Errorf("got %d, Storefront-Query %q; want 200, status:PND", r.status, r.header.Get("Storefront-Query"))
		}
		// A kept answer keeps its headers.
		again := e.get("/api/v2/purchases?per_page=5&q="+url.QueryEscape("status:act"), e.ro)
		if again.header.Get("ETag") != a.header.Get("ETag") || again.header.Get("Storefront-Query") != "status:ACT" {
			t.Errorf("the same query again: ETag %q, Storefront-Query %q", again.header.Get("ETag"), again.header.Get("Storefront-Query"))
		}
		// Accents travel percent-encoded.
		z := e.get("/api/v2/purchases?q="+url.QueryEscape("zoë 100%"), e.ro)
		if got := z.header.Get("Storefront-Query"); got != "zo%C3%AB 100%25" {
			t.Errorf("Storefront-Query %q, want %q", got, "zo%C3%AB 100%25")
		}
	})
}
