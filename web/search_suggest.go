package web

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"storefront/internal/search"
	"storefront/internal/shop"
	"storefront/templates"
)

// maxSuggestions is how many suggestions the box lists at most.
const maxSuggestions = 8

// subscriberSuggestURL is where the subscribers lists' Search box finds its suggestions.
const subscriberSuggestURL = "/subscribers/suggest"

// suggester adds the suggestions of a value after a field: part is the item being
// typed (lower case), prefix what goes before it.
type suggester func(field search.Field, prefix, part string, add func(value, label, kind string)) error

// purchaseSuggestions serves GET /purchases/suggest?q=: what the purchases' Search box
// may go on with (purchaseValues), and the saved views by name.
func (s *Server) purchaseSuggestions(c *gin.Context) error {
	acct := currentAccount(c)
	ctx := c.Request.Context()
	views := func(word string, add func(value, label, kind string)) error {
		views, err := s.Views.FindSavedViews(ctx, acct.ID, currentUser(c).ID)
		if err != nil {
			return err
		}
		for _, v := range views {
			if !strings.Contains(strings.ToLower(v.Name), word) {
				continue
			}
			vq, _ := url.ParseQuery(purchaseViewQuery(v.Query))
			if q := vq.Get("q"); q != "" {
				add(q, "Saved view · "+v.Name, "view")
			}
		}
		return nil
	}
	return suggest(c, search.Purchases, s.purchaseValues(c), views)
}

// purchaseValues suggests the values of the purchases' fields: after a field it
// completes a status, a storefront or product (by name, inserted as its id), a keyword
// or an e-mail domain. A bare word is also offered as the fields it may stand for:
// "refunded" as status:RFD, "acme" as the storefront or product of that name, or as
// the e-mail domain acme.io (a bare word itself finds only e-mails and names that start
// with it), a payment reference or product key pasted whole as ref: or key:, and a run
// of them that is a date as created ("since last monday").
func (s *Server) purchaseValues(c *gin.Context) suggester {
	acct := currentAccount(c)
	ctx := c.Request.Context()
	// Read once a request, however many runs of bare words ask.
	storefronts := sync.OnceValues(func() ([]*shop.Storefront, error) { return s.Accounts.FindStorefronts(ctx, acct.ID) })
	products := sync.OnceValues(func() ([]shop.Product, error) { return s.Accounts.FindProducts(ctx, acct.ID) })
	// A word's domains, and the purchases it names as a reference or key, read once a
	// request: the whole text's reading and the last word's suggestions ask for the same
	// word.
	domains := map[string][]string{}
	lookNamed := s.namedLookup(ctx, acct.ID)
	now, loc := s.now(), s.zone(c)
	var values suggester
	values = func(field search.Field, prefix, part string, add func(value, label, kind string)) error {
		// A record by name or by the start of its id, inserted as its id.
		named := func(id int64, name, kind string) {
			if sid := strconv.FormatInt(id, 10); strings.Contains(strings.ToLower(name), part) || strings.HasPrefix(sid, part) {
				add(prefix+sid+" ", sid+" · "+name, kind)
			}
		}
		switch field {
		case search.FieldStatus:
			for _, st := range shop.PurchaseStatuses {
				statusSuggestion(string(st), st.Label(), prefix, part, add)
			}
		case search.FieldStorefront:
			sfs, err := storefronts()
			return forEach(sfs, err, func(sf *shop.Storefront) { named(sf.ID, sf.Name, "storefront") })
		case search.FieldProduct:
			ps, err := products()
			return forEach(ps, err, func(p shop.Product) { named(p.ID, p.Name, "product") })
		case search.FieldShip:
			keywordSuggestions("ship", []string{"yes", "no"}, prefix, part, add)
		case search.FieldIs:
			keywordSuggestions("is", []string{"unshipped", "shipped"}, prefix, part, add)
		case search.FieldDomain:
			// A run of several bare words is a name, never a domain: no statement for it.
			if strings.ContainsAny(part, " \t") {
				return nil
			}
			ds, ok := domains[part]
			if !ok {
				var err error
				if ds, err = s.Accounts.FindDomains(ctx, acct.ID, part, maxSuggestions); err != nil {
					return err
				}
				domains[part] = ds
			}
			return forEach(ds, nil, func(d string) { add(prefix+search.Word(d)+" ", "domain:"+d, "domain") })
		case search.FieldRef, search.FieldKey:
			if !maybeIdentifier(part) {
				return nil
			}
			found, err := lookNamed(field, part)
			if err != nil || len(found) == 0 {
				return err
			}
			add(prefix+search.Word(found[0].Text)+" ", namedLabel(field, found), string(field))
		case bareWord:
			if err := bareSuggestions(values, prefix, part, add, search.FieldStatus, search.FieldIs,
				search.FieldStorefront, search.FieldProduct, search.FieldDomain, search.FieldRef, search.FieldKey); err != nil {
				return err
			}
			dateSuggestion(search.FieldCreated, now, loc, prefix, part, add)
		}
		return nil
	}
	return values
}

// subscriberSuggestions serves GET /subscribers/suggest?q=: what the subscribers'
// Search box may go on with (subscriberValues). Saved views are the purchases list's
// alone.
func (s *Server) subscriberSuggestions(c *gin.Context) error {
	return suggest(c, search.Subscribers, s.subscriberValues(c), nil)
}

// subscriberValues suggests the values of the subscribers' fields: subscription
// statuses after status: or for a bare word that starts one ("past" as
// status:PAST_DUE), and a date typed bare as started.
func (s *Server) subscriberValues(c *gin.Context) suggester {
	now, loc := s.now(), s.zone(c)
	var values suggester
	values = func(field search.Field, prefix, part string, add func(value, label, kind string)) error {
		switch field {
		case search.FieldStatus:
			for _, st := range shop.SubscriptionStatuses {
				statusSuggestion(string(st), templates.SubscriptionStatusLabel(string(st)), prefix, part, add)
			}
		case bareWord:
			if err := bareSuggestions(values, prefix, part, add, search.FieldStatus); err != nil {
				return err
			}
			dateSuggestion(search.FieldStarted, now, loc, prefix, part, add)
		}
		return nil
	}
	return values
}

// bareWord is the field a suggester is asked for when the word typed has none.
const bareWord search.Field = ""

// bareSuggestions offers a bare word (part, lower case) as the value of each of the
// fields, in turn, with values: the suggestion replaces the word with field:value, and
// its label names the field. A whole number is a purchase's or subscriber's id, which
// the bare word finds already: it is offered as nothing else.
func bareSuggestions(values suggester, prefix, part string, add func(value, label, kind string), fields ...search.Field) error {
	if _, err := strconv.ParseUint(part, 10, 64); err == nil {
		return nil
	}
	for _, f := range fields {
		name := string(f) + ":"
		labelled := func(value, label, kind string) {
			if !strings.HasPrefix(label, name) {
				label = name + label
			}
			add(value, label, kind)
		}
		if err := values(f, prefix+name, part, labelled); err != nil {
			return err
		}
	}
	return nil
}

// statusSuggestion offers a status whose code or label starts with part.
func statusSuggestion(code, label, prefix, part string, add func(value, label, kind string)) {
	if strings.HasPrefix(strings.ToLower(code), part) || strings.HasPrefix(strings.ToLower(label), part) {
		add(prefix+code+" ", code+" · "+label, "status")
	}
}

// keywordSuggestions offers the keywords of a field that start with part.
func keywordSuggestions(field string, words []string, prefix, part string, add func(value, label, kind string)) {
	for _, v := range words {
		if strings.HasPrefix(v, part) {
			add(prefix+v+" ", field+":"+v, "value")
		}
	}
}

// suggest answers a Search box's suggestions for the text typed so far (q), as a
// listbox fragment.
func suggest(c *gin.Context, kind search.Kind, values suggester, views func(word string, add func(value, label, kind string)) error) error {
	text := c.Query("q")
	opts, err := suggestions(text, kind, values, views)
	if err != nil {
		return err
	}
	// The whole text read as meant, first, when every word of it stood for something
	// and it says more than the suggestions of its last word: "acme last week not
	// refunded" as domain:acme.io created>="last week" -status:RFD. (A word that stood
	// for nothing may be a name, or one still being typed: the page that finds nothing
	// offers such readings.)
	if readable(text) {
		whole, bare, err := readWords(kind, text, values)
		if err != nil {
			return err
		}
		_, perr := search.Parse(kind, whole)
		if whole != "" && bare == 0 && perr == nil && !slices.ContainsFunc(opts, func(o templates.Suggestion) bool { return strings.TrimSpace(o.Value) == whole }) {
			opts = slices.Insert(opts, 0, templates.Suggestion{Value: whole + " ", Label: whole + " · the whole search, read", Kind: "reading"})
			opts = opts[:min(len(opts), maxSuggestions)]
		}
	}
	return render(c, templates.SearchSuggestions(opts))
}

// suggestions lists what the text typed so far may go on with: the word being typed
// (after the last blank or parenthesis) is completed as a field name of the list's
// kind; after a field, as what values names; as the first word, as a saved view by
// name (views, nil for none), which replaces the query with the view's; and a bare word
// as what values names for bareWord. Each suggestion's Value is the whole new text.
func suggestions(text string, kind search.Kind, values suggester, views func(word string, add func(value, label, kind string)) error) ([]templates.Suggestion, error) {
	head, word := text, ""
	if i := strings.LastIndexAny(text, " \t("); i >= 0 {
		head, word = text[:i+1], text[i+1:]
	} else {
		head, word = "", text
	}
	neg := ""
	if strings.HasPrefix(word, "-") {
		neg, word = "-", word[1:]
	}
	var opts []templates.Suggestion
	add := func(value, label, kind string) {
		if len(opts) < maxSuggestions {
			opts = append(opts, templates.Suggestion{Value: value, Label: label, Kind: kind})
		}
	}
	if q := pastedAddresses(text); q != "" {
		// A From line pasted whole: who wrote in.
		add(q+" ", q+" · the address pasted", "email")
		return opts, nil
	}
	lower := strings.ToLower(word)
	if field, rest, ok := strings.Cut(word, ":"); ok && field != "" {
		// A value after a field: complete the item after the last comma.
		done, part := "", rest
		if i := strings.LastIndex(rest, ","); i >= 0 {
			done, part = rest[:i+1], rest[i+1:]
		}
		prefix := head + neg + strings.ToLower(field) + ":" + done
		if err := values(search.Field(strings.ToLower(field)), prefix, strings.ToLower(part), add); err != nil {
			return nil, err
		}
	} else if word != "" && !strings.ContainsAny(word, "<>\"") {
		for _, f := range search.Fields(kind) {
			if strings.HasPrefix(string(f.Name), lower) {
				add(head+neg+string(f.Name)+":", string(f.Name)+":", "field")
			}
		}
		if neg == "" && head == "" && views != nil {
			if err := views(lower, add); err != nil {
				return nil, err
			}
		}
		// The bare words that end the text, the longest run first (a storefront's or
		// product's name may be typed in several words): the longest run that stands
		// for something is offered, and the shorter ones within it are not.
		for _, t := range bareRuns(text, maxBareRun) {
			n := len(opts)
			if err := values(bareWord, t.head+t.neg, strings.ToLower(t.words), add); err != nil {
				return nil, err
			}
			if len(opts) > n {
				break
			}
		}
	}
	return opts, nil
}

// maxBareRun is the most bare words a suggestion reads together: a product's name, or
// a date ("since first day of last month").
const maxBareRun = 6

// bareRun is a run of bare words at the end of a query's text: what stands before it,
// the negation of its first word ("-" or ""), and its words as typed.
type bareRun struct{ head, neg, words string }

// bareRuns lists the runs of bare words that end text, longest first, of at most max
// words: the last word alone, then it with the word before, and so on, while each is a
// bare word (no field, comparison, quote or parenthesis; not OR or NOT). A run starts
// after a blank or an opening parenthesis; a negated word ("-pixel") starts one, and a
// "not" in any letter case before a run negates it ("not refunded" is read as
// -refunded: the language's NOT is upper case, a person's often is not).
func bareRuns(text string, max int) []bareRun {
	var out []bareRun
	for end := len(text); len(out) < max; {
		i := strings.LastIndexAny(text[:end], " \t(")
		w := text[i+1 : end]
		if w == "" || w == "OR" || w == "NOT" || strings.ContainsAny(w, ":<>\"()") {
			break
		}
		if strings.EqualFold(w, "not") && len(out) > 0 {
			// "not refunded": the run after it, negated.
			if r := &out[len(out)-1]; r.neg == "" {
				r.head, r.neg = text[:i+1], "-"
			}
			break
		}
		neg := ""
		if strings.HasPrefix(w, "-") {
			neg = "-"
		}
		out = append(out, bareRun{head: text[:i+1], neg: neg, words: text[i+1+len(neg):]})
		if neg != "" || i < 0 || text[i] == '(' {
			break
		}
		end = i
	}
	slices.Reverse(out)
	return out
}

// purchaseAlternatives are the purchases list's alternatives of query, with the
// filters and order of page.
func (s *Server) purchaseAlternatives(c *gin.Context, query string, page url.Values) ([]templates.Alternative, error) {
	return alternatives(search.Purchases, "/purchases", query, s.purchaseValues(c), page)
}

// alternatives are the searches of a list (kind, at path) to offer when query found
// nothing, each as the page's address with that query (at most four): first the whole
// query read as a person may have meant it (reading: "acme last week not refunded" as
// domain:acme.io created>="last week" -status:RFD), then the query with only its last
// bare word read as each field it may stand for ("acme" as domain:acme.io; after a
// whole reading, only the readings it did not take). A query whose last word is a field
// or a value after one has only the first. Each offered query reads: a query the
// language refused ("last week, not refunded") may be offered one that it takes.
func alternatives(kind search.Kind, path, query string, values suggester, page url.Values) ([]templates.Alternative, error) {
	var out []templates.Alternative
	offer := func(label, q string) {
		if _, err := search.Parse(kind, q); err != nil || q == "" {
			return // only a query the language reads
		}
		if len(out) < 4 && !slices.ContainsFunc(out, func(a templates.Alternative) bool { return a.Query == q }) {
			v := cloneValues(page)
			v.Set("q", q)
			out = append(out, templates.Alternative{Label: label, Query: q, URL: cleanURL(path, v)})
		}
	}
	whole, err := reading(kind, query, values)
	if err != nil {
		return nil, err
	}
	offer(whole, whole)
	if word := query[strings.LastIndexAny(query, " \t(")+1:]; word == "" || strings.ContainsAny(word, ":<>\"") {
		return out, nil
	}
	opts, err := suggestions(query, kind, values, nil)
	if err != nil {
		return nil, err
	}
	first := true
	for _, o := range opts {
		if o.Kind == "field" {
			continue
		}
		// The whole query's reading ends with the last run's first reading already.
		if !first || whole == "" {
			offer(o.Label, strings.TrimSpace(o.Value))
		}
		first = false
	}
	return out, nil
}

// forEach calls fn for each of the records that a read returned, or returns err, the
// read's error.
func forEach[T any](records []T, err error, fn func(T)) error {
	if err != nil {
		return err
	}
	for _, r := range records {
		fn(r)
	}
	return nil
}
