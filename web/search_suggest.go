package web

import (
	"net/url"
	"strconv"
	"strings"

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
// may go on with. After a field it completes a status, a storefront or product (by
// name, inserted as its id) or a keyword; it also offers the saved views by name. A
// bare word is also offered as the fields it may stand for: "refunded" as
// status:RFD, "acme" as the storefront or product of that name, or as the e-mail
// domain acme.io (a bare word itself finds only e-mails and names that start with it).
func (s *Server) purchaseSuggestions(c *gin.Context) error {
	acct := currentAccount(c)
	ctx := c.Request.Context()
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
			sfs, err := s.Accounts.FindStorefronts(ctx, acct.ID)
			return forEach(sfs, err, func(sf *shop.Storefront) { named(sf.ID, sf.Name, "storefront") })
		case search.FieldProduct:
			ps, err := s.Accounts.FindProducts(ctx, acct.ID)
			return forEach(ps, err, func(p shop.Product) { named(p.ID, p.Name, "product") })
		case search.FieldShip:
			keywordSuggestions("ship", []string{"yes", "no"}, prefix, part, add)
		case search.FieldIs:
			keywordSuggestions("is", []string{"unshipped", "shipped"}, prefix, part, add)
		case search.FieldDomain:
			ds, err := s.Accounts.FindDomains(ctx, acct.ID, part, maxSuggestions)
			return forEach(ds, err, func(d string) { add(prefix+search.Word(d)+" ", "domain:"+d, "domain") })
		case bareWord:
			return bareSuggestions(values, prefix, part, add, search.FieldStatus, search.FieldIs,
				search.FieldStorefront, search.FieldProduct, search.FieldDomain)
		}
		return nil
	}
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
	return suggest(c, search.Purchases, values, views)
}

// subscriberSuggestions serves GET /subscribers/suggest?q=: what the subscribers'
// Search box may go on with: field names, and subscription statuses after status:
// or for a bare word that starts one ("past" as status:PAST_DUE). Saved views are the
// purchases list's alone.
func (s *Server) subscriberSuggestions(c *gin.Context) error {
	var values suggester
	values = func(field search.Field, prefix, part string, add func(value, label, kind string)) error {
		switch field {
		case search.FieldStatus:
			for _, st := range shop.SubscriptionStatuses {
				statusSuggestion(string(st), templates.SubscriptionStatusLabel(string(st)), prefix, part, add)
			}
		case bareWord:
			return bareSuggestions(values, prefix, part, add, search.FieldStatus)
		}
		return nil
	}
	return suggest(c, search.Subscribers, values, nil)
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
// listbox fragment. The word being typed (after the last blank or parenthesis) is
// completed: a field name of the list's kind; after a field, what values names; as the
// first word, a saved view by name (views, nil for none), which replaces the query with
// the view's; and a bare word as what values names for bareWord.
func suggest(c *gin.Context, kind search.Kind, values suggester, views func(word string, add func(value, label, kind string)) error) error {
	text := c.Query("q")
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
	lower := strings.ToLower(word)
	if field, rest, ok := strings.Cut(word, ":"); ok && field != "" {
		// A value after a field: complete the item after the last comma.
		done, part := "", rest
		if i := strings.LastIndex(rest, ","); i >= 0 {
			done, part = rest[:i+1], rest[i+1:]
		}
		prefix := head + neg + strings.ToLower(field) + ":" + done
		if err := values(search.Field(strings.ToLower(field)), prefix, strings.ToLower(part), add); err != nil {
			return err
		}
	} else if word != "" && !strings.ContainsAny(word, "<>\"") {
		for _, f := range search.Fields(kind) {
			if strings.HasPrefix(string(f.Name), lower) {
				add(head+neg+string(f.Name)+":", string(f.Name)+":", "field")
			}
		}
		if neg == "" && head == "" && views != nil {
			if err := views(lower, add); err != nil {
				return err
			}
		}
		if err := values(bareWord, head+neg, lower, add); err != nil {
			return err
		}
	}
	return render(c, templates.SearchSuggestions(opts))
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
