package mysql_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/search"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

// searchNow is the clock of the search tests: the end of the seeded data's window.
var searchNow = time.Date(2026, 11, 20, 15, 4, 5, 0, time.UTC)

// hostilePurchases are buyers given to seeded purchases by hand: accents, the LIKE
// wildcards and the escape, quotes, blanks, e-mails with two "@" and shared domains
// in several letter cases, a domain with a trailing blank, an empty one, and domains
// longer than the 63 characters the domain's path keeps, alike in those.
var hostilePurchases = []struct{ email, first, last string }{
	{"zoë.o'neil@acme.io", "Zoë", "Müller"},
	{"100%_off@ACME.IO", "100%", "a_b"},
	{"a_b%c@acme.io", "a_b", "100%"},
	{"x@y@acme.io", "Éric", "van der Berg"},
	{"ann@sub.acme.io", "Ann", `O"Brien`},
	{`back\slash@Example.org`, `back\slash`, "Zoe"},
	{"zoe@example.org", "zoe", "Muller"},
	{"ZOË@EXAMPLE.ORG", "ÉRIC", "VAN"},
	{"%@acme.io", "_", "%"},
	{"müller@acme.io.evil", "Anna", "de la Cruz"},
	{"c@ACME.io ", "Cé", "Ann"},
	{"empty@", "Émile", "Zoë"},
	{"k@" + strings.Repeat("a", 60) + ".example.org", "Ann-Marie", "a_b"},
	{"l@" + strings.Repeat("A", 60) + ".example.net", "anna", "Müller"},
	// Letters the collation expands or keeps apart (collation_db_test.go): LIKE compares
	// them character by character, "=" by their expansions.
	{"straße@straße.de", "Straße", "Œuvre"},
	{"strasse@STRASSE.DE", "Strasse", "oeuvre"},
	{"ﬁn@ﬁ.io", "Øyvind", "Łukasz"},
	{"e\u0301mile@x＠acme.io", "E\u0301mile", "Émile"},
	{"😀@emoji.io", "😃", "ǅuro"},
}

// searchDB seeds a database for the search tests: seeded purchases and subscribers,
// some given the hostile buyers and user names above, their derived rows rebuilt.
func searchDB(t *testing.T) *mysql.DB {
	t.Helper()
	ctx := context.Background()
	db := dbtest.New(t)
	if _, err := seed.Run(ctx, db.DB, seed.Options{Purchases: 400, Subscribers: 80, Seed: 11, Now: searchNow}, nil); err != nil {
		t.Fatal(err)
	}
	ids := naiveIDs(t, db, "SELECT id FROM purchases WHERE account_id = 1 ORDER BY id")
	for i, h := range hostilePurchases {
		for _, id := range []int64{ids[i*7+3], ids[len(ids)-1-i*5]} {
			if _, err := db.Exec("UPDATE purchases SET buyer_email = ?, buyer_firstname = ?, buyer_lastname = ? WHERE account_id = 1 AND id = ?",
				h.email, h.first, h.last, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := db.Exec("UPDATE purchases SET buyer_firstname = NULL, buyer_lastname = NULL WHERE account_id = 1 AND id = ?", ids[5]); err != nil {
		t.Fatal(err)
	}
	subs := naiveIDs(t, db, "SELECT id FROM subscribers WHERE account_id = 1 ORDER BY id")
	for i, h := range hostilePurchases {
		if _, err := db.Exec("UPDATE subscribers SET username = ? WHERE account_id = 1 AND id = ?", h.email, subs[i*3+1]); err != nil {
			t.Fatal(err)
		}
	}
	// References and keys that "=" takes for the same text, or not (a trailing blank
	// counts for the search), and one reference on several purchases.
	txs := naiveIDs(t, db, "SELECT id FROM transactions WHERE account_id = 1 ORDER BY id")
	for i, ref := range []string{"straße-77", "STRASSE-77", "ref-9 ", "Ref-9", "shared-5", "shared-5", "shared-5", "e\u0301-1", "é-1"} {
		if _, err := db.Exec("UPDATE transactions SET reference = ? WHERE account_id = 1 AND id = ?", ref, txs[i*11+2]); err != nil {
			t.Fatal(err)
		}
	}
	for i, key := range []string{"KEY-ß-1", "key-ss-1", "KEY-7 ", "key-7"} {
		if _, err := db.Exec("UPDATE product_keys SET key_value = ? WHERE account_id = 1 AND purchase_id = ? ORDER BY line_item_id, position LIMIT 1", key, ids[i*13+4]); err != nil {
			t.Fatal(err)
		}
	}
	if err := mysql.RebuildDerived(ctx, db.DB); err != nil {
		t.Fatal(err)
	}
	return db
}

// allPurchases reads every purchase of account 1 through the one read path.
func allPurchases(t *testing.T, svc *mysql.PurchaseService) []*shop.Purchase {
	t.Helper()
	var out []*shop.Purchase
	f := shop.PurchaseFilter{AccountID: 1, PerPage: shop.MaxPerPage}
	for {
		page, err := svc.FindPurchases(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Purchases...)
		if page.Next == nil {
			return out
		}
		f.After = page.Next
	}
}

// allSubscribers reads every subscriber of account 1 that the filter selects, page by
// page.
func allSubscribers(t *testing.T, svc *mysql.SubscriberService, f shop.SubscriberFilter) []*shop.Subscriber {
	t.Helper()
	f.AccountID, f.PerPage = 1, shop.MaxPerPage
	var out []*shop.Subscriber
	for {
		page, err := svc.FindSubscribers(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Subscribers...)
		if page.Next == nil {
			return out
		}
		f.After = page.Next
	}
}

// queryGen writes random queries of the search language from values found in the data.
type queryGen struct {
	r     *rand.Rand
	loc   *time.Location
	atoms []func() string
}

// word writes a value as a query word: quoted unless it is plain.
func word(s string) string {
	plain := s != "" && s != "OR" && s != "NOT" && s[0] != '-' && s != "*"
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '@' || r == '_') {
			plain = false
		}
	}
	if plain {
		return s
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func (g *queryGen) pick(xs []string) string { return pick(g.r, xs) }

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// prefix is a random beginning of s, in a random letter case.
func (g *queryGen) prefix(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return "a"
	}
	p := string(r[:1+g.r.IntN(min(len(r), 5))])
	switch g.r.IntN(3) {
	case 0:
		p = strings.ToUpper(p)
	case 1:
		p = strings.ToLower(p)
	}
	return g.variant(p)
}

// variant sometimes writes a text with the expansions of its letters in place of
// them, or the other way round, which "=" takes for the same text and LIKE does not.
func (g *queryGen) variant(s string) string {
	if g.r.IntN(3) != 0 {
		return s
	}
	return pick(g.r, []*strings.Replacer{
		strings.NewReplacer("ß", "ss", "œ", "oe", "Œ", "OE", "ﬁ", "fi", "é", "e\u0301", "ø", "o"),
		strings.NewReplacer("ss", "ß", "SS", "ß", "oe", "œ", "fi", "ﬁ", "e\u0301", "é", "@", "＠"),
	}).Replace(s)
}

// list writes one to three values of gen, comma-separated.
func (g *queryGen) list(gen func() string) string {
	n := 1 + g.r.IntN(3)
	if g.r.IntN(2) == 0 {
		n = 1
	}
	var vs []string
	for range n {
		vs = append(vs, gen())
	}
	return strings.Join(vs, ",")
}

// date writes a date value around t: a whole day, an instant, or a relative text.
func (g *queryGen) date(t time.Time) string {
	t = t.In(g.loc)
	switch g.r.IntN(6) {
	case 0, 1:
		return t.Format("2006-01-02")
	case 2:
		return word(t.Format("2006-01-02 15:04:05"))
	case 3:
		return "@" + strconv.FormatInt(t.Unix(), 10)
	case 4:
		return g.pick([]string{"today", "yesterday", `"last monday"`, "-30days", `"first day of this month"`, "-1year"})
	}
	return word(t.Add(time.Duration(g.r.IntN(48)-24) * time.Hour).Format("2006-01-02 15:04"))
}

// compared writes an operator and a value or a range of vals: ":v", ":a,b", ">v",
// "<=v", ":a..b", ":*..b".
func (g *queryGen) compared(val func() string) string {
	switch g.r.IntN(7) {
	case 0:
		return ":" + g.list(val)
	case 1:
		return ">" + val()
	case 2:
		return ">=" + val()
	case 3:
		return "<" + val()
	case 4:
		return "<=" + val()
	case 5:
		a, b := val(), val()
		if g.r.IntN(4) == 0 {
			a = "*"
		}
		return ":" + a + ".." + b
	}
	return ":" + val()
}

// query writes an OR of one to three ANDs of one to three atoms, some negated, some
// parenthesised ORs.
func (g *queryGen) query() string {
	var ors []string
	for range 1 + g.r.IntN(3) {
		var ands []string
		for range 1 + g.r.IntN(3) {
			a := g.atoms[g.r.IntN(len(g.atoms))]()
			if g.r.IntN(8) == 0 {
				a = "(" + a + " OR " + g.atoms[g.r.IntN(len(g.atoms))]() + ")"
			}
			switch g.r.IntN(6) {
			case 0:
				a = "-" + a
			case 1:
				a = "NOT " + a
			}
			ands = append(ands, a)
		}
		ors = append(ors, strings.Join(ands, " "))
	}
	return strings.Join(ors, " OR ")
}

func purchaseGen(r *rand.Rand, loc *time.Location, ps []*shop.Purchase) *queryGen {
	g := &queryGen{r: r, loc: loc}
	p := func() *shop.Purchase { return ps[r.IntN(len(ps))] }
	str := func(s *string) string {
		if s == nil {
			return "x"
		}
		return *s
	}
	id := func() string { return strconv.FormatInt(p().ID, 10) }
	texts := func() string {
		q := p()
		return g.prefix(g.pick([]string{str(q.BuyerEmail), str(q.BuyerFirstname), str(q.BuyerLastname)}))
	}
	ref := func(get func(*shop.Purchase) (int64, bool)) func() string {
		return func() string {
			for range 20 {
				if v, ok := get(p()); ok {
					return strconv.FormatInt(v, 10)
				}
			}
			return "1"
		}
	}
	domains := []string{"acme.io", "ACME.IO", "acme.io.evil", "acme.io ", "sub.acme.io", "Example.org", "example.org ",
		strings.Repeat("a", 60) + ".example.org", strings.Repeat("A", 60) + ".example.NET", strings.Repeat("a", 60) + ".ex", "ac_e.io"}
	domain := func() string {
		if g.r.IntN(3) == 0 {
			return word(g.pick(domains))
		}
		e := str(p().BuyerEmail)
		d := e[strings.LastIndexByte(e, '@')+1:]
		if g.r.IntN(2) == 0 {
			d = strings.ToUpper(d)
		}
		return word(g.variant(d))
	}
	name := func() string {
		return "name:" + g.list(func() string {
			return word(g.prefix(g.pick([]string{str(p().BuyerFirstname), str(p().BuyerLastname)})))
		})
	}
	g.atoms = []func() string{
		func() string { return word(texts()) },
		func() string { return word(texts()) }, // bare words, names and domains twice as often
		func() string { return name() },
		func() string { return "domain:" + g.list(domain) },
		func() string { return id() },
		func() string { return "id" + g.compared(id) },
		func() string {
			return "status:" + g.list(func() string { return strings.ToLower(string(p().Status)) })
		},
		func() string {
			return "product:" + g.list(ref(func(q *shop.Purchase) (int64, bool) {
				if len(q.LineItems) == 0 {
					return 0, false
				}
				return q.LineItems[r.IntN(len(q.LineItems))].ProductID, true
			}))
		},
		func() string {
			return "storefront:" + g.list(ref(func(q *shop.Purchase) (int64, bool) { return q.StorefrontID, true }))
		},
		func() string {
			return "customer:" + g.list(ref(func(q *shop.Purchase) (int64, bool) {
				if q.Customer == nil {
					return 0, false
				}
				return q.Customer.ID, true
			}))
		},
		func() string {
			return "subscriber:" + g.list(ref(func(q *shop.Purchase) (int64, bool) {
				if q.SubscriberID == nil {
					return 0, false
				}
				return *q.SubscriberID, true
			}))
		},
		func() string {
			return "email:" + g.list(func() string { return word(g.prefix(str(p().BuyerEmail))) })
		},
		func() string {
			return "first:" + g.list(func() string { return word(g.prefix(str(p().BuyerFirstname))) })
		},
		func() string {
			return "last:" + g.list(func() string { return word(g.prefix(str(p().BuyerLastname))) })
		},
		func() string { return name() },
		func() string { return "domain:" + g.list(domain) },
		func() string { return "currency:" + g.list(func() string { return strings.ToLower(p().Currency) }) },
		func() string { return "total" + g.compared(func() string { return string(p().Total) }) },
		func() string { return "created" + g.compared(func() string { return g.date(p().CreatedAt.Time) }) },
		func() string { return g.pick([]string{"ship:yes", "ship:no", "is:unshipped", "is:shipped"}) },
		func() string { return "#" + id() },
		func() string { return "ref:" + g.list(func() string { return word(g.named(p, references)) }) },
		func() string { return "key:" + g.list(func() string { return word(g.named(p, productKeys)) }) },
	}
	return g
}

// references and productKeys are the texts of a purchase that ref: and key: compare.
func references(p *shop.Purchase) (out []string) {
	for _, t := range p.Transactions {
		if t.Reference != nil {
			out = append(out, *t.Reference)
		}
	}
	return out
}

func productKeys(p *shop.Purchase) (out []string) {
	for _, li := range p.LineItems {
		out = append(out, li.ProductKeys...)
	}
	return out
}

// named writes a text of a random purchase that ref: or key: compares (of, tried on a
// few purchases), in a random letter case or with a blank after it (which "=" would
// pass over and the search does not), or now and then a text no purchase has.
func (g *queryGen) named(p func() *shop.Purchase, of func(*shop.Purchase) []string) string {
	if g.r.IntN(4) == 0 { // searchDB's texts that "=" and the search compare apart, or alike
		return g.pick([]string{"strasse-77", "STRAßE-77", "ref-9", "REF-9 ", "shared-5", "e\u0301-1", "É-1", "key-SS-1", "KEY-ß-1", "key-7 ", "KEY-7"})
	}
	for range 20 {
		if ts := of(p()); len(ts) > 0 && g.r.IntN(8) != 0 {
			t := g.pick(ts)
			switch g.r.IntN(4) {
			case 0:
				t = strings.ToLower(t)
			case 1:
				t = strings.ToUpper(t)
			case 2:
				if g.r.IntN(3) == 0 {
					t += " "
				}
			}
			return t
		}
	}
	return "no-such-text-0"
}

// pagedIDs pages through a list to its end, asking page for each page from its
// cursor (or number), and returns the ids in the order the pages held them.
func pagedIDs(t *testing.T, q string, page func(after *shop.Cursor, n int) ([]int64, *shop.Cursor, int64)) ([]int64, int64) {
	t.Helper()
	var out []int64
	var after *shop.Cursor
	total := int64(-1)
	for n := 1; ; n++ {
		ids, next, tot := page(after, n)
		if n == 1 {
			total = tot
		}
		out = append(out, ids...)
		if next == nil {
			return out, total
		}
		if n > 1000 {
			t.Fatalf("%s: more than 1000 pages", q)
		}
		after = next
	}
}

// TestSearch_PurchasesMeaning checks the planner against the search language's
// meaning: for random queries of every field, operator, negation and OR, built from
// the data's own values, the ids every page of FindPurchases and
// FindPurchaseDocuments holds (cursor and page paging, both orders, small pages)
// equal, in list order, the purchases for which Resolved.MatchPurchase holds among
// all those the one read path reads; and counts agree.
func TestSearch_PurchasesMeaning(t *testing.T) {
	ctx := context.Background()
	db := searchDB(t)
	svc := mysql.NewPurchaseService(db)
	all := allPurchases(t, svc)
	loc, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 24))
	gen := purchaseGen(r, loc, all)
	queries, refused, unions, empty, named := 0, 0, 0, 0, 0
	for i := 0; queries < 1000; i++ {
		text := gen.query()
		q, err := search.Parse(search.Purchases, text)
		if err != nil {
			refused++ // past the limits (more than 8 branches): the parser's tests cover it
			continue
		}
		res, err := q.Resolve(searchNow, loc)
		if err != nil {
			refused++ // a range that ends before it starts
			continue
		}
		queries++
		desc := r.IntN(2) == 0
		var want []int64
		for _, p := range all {
			if res.MatchPurchase(p) {
				want = append(want, p.ID)
			}
		}
		if desc {
			slices.Reverse(want)
		}
		if len(want) == 0 {
			empty++
		}
		per := max(1+r.IntN(7), len(want)/5)
		base := shop.PurchaseFilter{AccountID: 1, PerPage: per, Desc: desc, IncludeCount: true}
		f, err := res.ApplyPurchases(base)
		if err != nil {
			t.Fatal(err)
		}
		if (len(f.Any) > 0 || f.Domain != "") && r.IntN(4) == 0 {
			// Deep pages of unions and domains: up to 20 pages, by cursor and by number.
			f.PerPage = max(1+r.IntN(3), len(want)/20)
			per = f.PerPage
		}
		if len(f.Any) > 0 {
			unions++
		}
		byNumber := r.IntN(4) == 0
		name := fmt.Sprintf("%s (desc %v, per_page %d, by number %v)", text, desc, per, byNumber)
		var got []int64
		var total int64
		if i%2 == 0 {
			got, total = pagedIDs(t, name, func(after *shop.Cursor, n int) ([]int64, *shop.Cursor, int64) {
				g := f
				g.IncludeCount = n == 1 // the count is checked on the first page
				if byNumber {
					g.Page = n
				} else {
					g.After = after
				}
				page, err := svc.FindPurchaseDocuments(ctx, g, nil)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var docs []struct{ ID int64 }
				if err := json.Unmarshal(page.Body, &docs); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var ids []int64
				for _, d := range docs {
					ids = append(ids, d.ID)
				}
				return ids, page.Next, page.Total
			})
		} else {
			got, total = pagedIDs(t, name, func(after *shop.Cursor, n int) ([]int64, *shop.Cursor, int64) {
				g := f
				g.IncludeCount = n == 1
				if byNumber {
					g.Page = n
				} else {
					g.After = after
				}
				page, err := svc.FindPurchases(ctx, g)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var ids []int64
				for _, p := range page.Purchases {
					ids = append(ids, p.ID)
				}
				return ids, page.Next, page.Total
			})
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
		if total != int64(len(want)) {
			t.Errorf("%s: count %d, want %d", name, total, len(want))
		}
		if i%10 == 0 {
			n, capped, err := svc.CountPurchases(ctx, f, 5)
			if err != nil || n != int64(min(len(want), 5)) || capped != (len(want) > 5) {
				t.Errorf("%s: capped count %d, %v, %v; want %d of %d", name, n, capped, err, min(len(want), 5), len(want))
			}
		}
		if t.Failed() && i > 50 {
			t.FailNow()
		}
		if n := len(want); n > 0 && n <= 5 && (strings.Contains(text, "ref:") || strings.Contains(text, "key:")) {
			named++ // most likely the purchases a reference or key names
		}
	}
	t.Logf("%d queries (%d unions, %d matching nothing, %d with ref: or key: that found 1 to 5), %d refused by the parser, over %d purchases", queries, unions, empty, named, refused, len(all))
	if unions < queries/4 || empty > queries/2 || named < 10 {
		t.Errorf("the generator made %d unions, %d empty answers and %d ref:/key: answers of %d queries: not what this test needs", unions, empty, named, queries)
	}
}

func subscriberGen(r *rand.Rand, loc *time.Location, ss []*shop.Subscriber) *queryGen {
	g := &queryGen{r: r, loc: loc}
	s := func() *shop.Subscriber { return ss[r.IntN(len(ss))] }
	id := func() string { return strconv.FormatInt(s().ID, 10) }
	when := func() time.Time {
		for range 20 {
			if sub := s().Subscription; sub != nil {
				for _, t := range []*shop.Time{sub.StartedAt, sub.EndedAt, sub.NextPaymentAt, &sub.CreatedAt, &sub.UpdatedAt} {
					if t != nil && r.IntN(2) == 0 {
						return t.Time
					}
				}
			}
		}
		return searchNow.AddDate(0, -r.IntN(24), 0)
	}
	date := func() string { return g.date(when()) }
	statuses := []string{"new", "trial", "active", "canceled", "closed", "past_due"}
	g.atoms = []func() string{
		func() string { return word(g.prefix(s().Username)) },
		func() string { return id() },
		func() string { return "id" + g.compared(id) },
		func() string { return "status:" + g.list(func() string { return g.pick(statuses) }) },
		func() string { return "email:" + g.list(func() string { return word(g.prefix(s().Username)) }) },
		func() string {
			return "username:" + g.list(func() string {
				u := s().Username
				if r.IntN(2) == 0 {
					u = strings.ToUpper(u)
				}
				return word(g.variant(u))
			})
		},
		func() string { return "started" + g.compared(date) },
		func() string { return "ended" + g.compared(date) },
		func() string { return "active" + g.compared(date) },
	}
	return g
}

// TestSearch_SubscribersMeaning checks the subscribers list against the search
// language's meaning as TestSearch_PurchasesMeaning does for purchases, with
// Resolved.MatchSubscriber over every subscriber the one read path reads.
func TestSearch_SubscribersMeaning(t *testing.T) {
	ctx := context.Background()
	db := searchDB(t)
	svc := mysql.NewSubscriberService(db)
	all := allSubscribers(t, svc, shop.SubscriberFilter{})
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 24))
	gen := subscriberGen(r, loc, all)
	queries, unions, empty := 0, 0, 0
	for i := 0; queries < 1000; i++ {
		text := gen.query()
		q, err := search.Parse(search.Subscribers, text)
		if err != nil {
			continue
		}
		res, err := q.Resolve(searchNow, loc)
		if err != nil {
			continue
		}
		queries++
		desc := r.IntN(2) == 0
		var want []int64
		for _, s := range all {
			if res.MatchSubscriber(s) {
				want = append(want, s.ID)
			}
		}
		if desc {
			slices.Reverse(want)
		}
		if len(want) == 0 {
			empty++
		}
		per := max(1+r.IntN(5), len(want)/5)
		f, err := res.ApplySubscribers(shop.SubscriberFilter{AccountID: 1, PerPage: per, Desc: desc, IncludeCount: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Any) > 0 {
			unions++
		}
		byNumber := r.IntN(4) == 0
		name := fmt.Sprintf("%s (desc %v, per_page %d, by number %v)", text, desc, per, byNumber)
		got, total := pagedIDs(t, name, func(after *shop.Cursor, n int) ([]int64, *shop.Cursor, int64) {
			g := f
			if byNumber {
				g.Page = n
			} else {
				g.After = after
			}
			page, err := svc.FindSubscribers(ctx, g)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var ids []int64
			for _, s := range page.Subscribers {
				ids = append(ids, s.ID)
			}
			return ids, page.Next, page.Total
		})
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
		if total != int64(len(want)) {
			t.Errorf("%s: count %d, want %d", name, total, len(want))
		}
		if t.Failed() && i > 50 {
			t.FailNow()
		}
	}
	t.Logf("%d queries (%d unions, %d matching nothing) over %d subscribers", queries, unions, empty, len(all))
	if unions < queries/4 || empty > queries/2 {
		t.Errorf("the generator made %d unions and %d empty answers of %d queries: not what this test needs", unions, empty, queries)
	}
}

// TestSearch_NamedTooMany checks that a reference on more purchases than one text of
// ref: may name is a 400 of the search that names it, on every read of the list, and
// that as many as it may name are found.
func TestSearch_NamedTooMany(t *testing.T) {
	ctx := context.Background()
	db := searchDB(t)
	svc := mysql.NewPurchaseService(db)
	defer mysql.MaxNamed(2)()
	filter := func(q string) shop.PurchaseFilter {
		parsed, err := search.Parse(search.Purchases, q)
		if err != nil {
			t.Fatal(err)
		}
		res, err := parsed.Resolve(searchNow, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		f, err := res.ApplyPurchases(shop.PurchaseFilter{AccountID: 1, PerPage: 10})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := filter("status:act OR -ref:shared-5")
	reads := map[string]error{}
	_, reads["FindPurchases"] = svc.FindPurchases(ctx, f)
	_, reads["FindPurchaseDocuments"] = svc.FindPurchaseDocuments(ctx, f, nil)
	_, _, reads["CountPurchases"] = svc.CountPurchases(ctx, f, 5)
	reads["ExportPurchases"] = svc.ExportPurchases(ctx, f, shop.ExportLineItems, func([]*shop.Purchase) error { return nil })
	for name, err := range reads {
		if shop.ErrorCode(err) != shop.EInvalid || shop.ErrorParam(err) != "q" ||
			shop.ErrorMessage(err) != `The payment reference "shared-5" is on more than 2 purchases: search them by another field, such as product.` {
			t.Errorf("%s: %v (code %q, param %q); want the search's error", name, err, shop.ErrorCode(err), shop.ErrorParam(err))
		}
	}
	page, err := svc.FindPurchases(ctx, filter("ref:STRASSE-77"))
	if err != nil || len(page.Purchases) != 2 {
		t.Fatalf("ref:STRASSE-77, on two purchases (straße-77 is the same text): %v, %v", page, err)
	}
}
