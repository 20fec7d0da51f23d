package web

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/search"
	"storefront/internal/shop"
	"storefront/templates"
)

// maxFindCount is how far the Find page counts a list before it says "1,000+".
const maxFindCount = 1000

// findPage serves GET /find?q=: the header's Find box, for the fragment support starts
// from when it does not know yet whether it is a purchase, a customer or a subscriber.
// It shows what the text names exactly (a purchase by its id, "#42" or "42", by a
// payment reference or a product key; a subscriber by its id, "42"; a customer by an
// address, or by the address of a From line pasted whole), then the purchases and
// subscribers lists that read it as their search, the purchases counted. Blanks around
// the text are left out, as a person pasting it means.
func (s *Server) findPage(c *gin.Context) error {
	text := strings.TrimSpace(c.Query("q"))
	v := templates.FindView{Chrome: s.chrome(c, "Find", ""), Query: text}
	switch {
	case text == "":
		v.Message = "Type or paste what you were given: a purchase number, an e-mail address or a From line, a payment reference, a product key, a name."
	case !readable(text):
		v.Message = "This text cannot be searched: it is not valid UTF-8, or longer than " + strconv.Itoa(search.MaxLen) + " characters."
	default:
		var err error
		if v.Hits, err = s.findHits(c, text); err != nil {
			return err
		}
		if err = s.findLists(c, text, &v); err != nil {
			return err
		}
	}
	return render(c, templates.Find(v))
}

// findHits returns the records the text names exactly.
func (s *Server) findHits(c *gin.Context, text string) ([]templates.FindHit, error) {
	ctx := c.Request.Context()
	acct := currentAccount(c)
	var hits []templates.FindHit
	purchase := func(id int64, how string) error {
		p, err := s.Purchases.FindPurchaseByID(ctx, acct.ID, id)
		if shop.ErrorCode(err) == shop.ENotFound {
			return nil
		}
		if err != nil {
			return err
		}
		detail := []string{moneyText(p.Total, p.Currency), p.Status.Label()}
		if p.BuyerEmail != nil {
			detail = append([]string{*p.BuyerEmail}, detail...)
		}
		if how != "" {
			detail = append([]string{how}, detail...)
		}
		hits = append(hits, templates.FindHit{Kind: "Purchase", Title: "#" + strconv.FormatInt(id, 10),
			Detail: strings.Join(detail, " · "), URL: "/purchases/" + strconv.FormatInt(id, 10)})
		return nil
	}
	if id, err := filter.ParseID("q", strings.TrimPrefix(text, "#")); err == nil {
		if err := purchase(id, ""); err != nil {
			return nil, err
		}
		// A number without "#" may be a subscriber's id too (the API's, an
		// integration's log).
		if !strings.HasPrefix(text, "#") {
			sub, err := s.findSubscriberHit(ctx, acct.ID, id)
			if err != nil {
				return nil, err
			}
			hits = append(hits, sub...)
		}
	}
	if maybeIdentifier(text) {
		for _, by := range shop.NamedBys {
			found, err := s.Purchases.FindPurchasesNamed(ctx, acct.ID, by, text, maxSuggestions)
			if err != nil {
				return nil, err
			}
			for _, n := range found {
				if err := purchase(n.ID, by.String()+" "+n.Text); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, addr := range findAddresses(text) {
		if s.Customers == nil {
			break
		}
		sum, err := s.Customers.FindCustomer(ctx, acct.ID, addr)
		if shop.ErrorCode(err) == shop.ENotFound {
			continue
		}
		if err != nil {
			return nil, err
		}
		detail := findCount(sum.Purchases, false, "purchase", "purchases")
		if len(sum.Names) > 0 {
			detail = sum.Names[0] + " · " + detail
		}
		hits = append(hits, templates.FindHit{Kind: "Customer", Title: sum.Email, Detail: detail, URL: customerURL(sum.Email)})
	}
	return hits, nil
}

// findSubscriberHit returns the account's subscriber of this id, on whichever
// storefront, as a Find hit; none when there is none.
func (s *Server) findSubscriberHit(ctx context.Context, accountID, id int64) ([]templates.FindHit, error) {
	page, err := s.Subscribers.FindSubscribers(ctx, shop.SubscriberFilter{AccountID: accountID, PerPage: 1,
		Where: []shop.Cond{{Field: shop.CondID, IDs: []shop.IDRange{{Min: id, Max: id}}}}})
	if err != nil || len(page.Subscribers) == 0 {
		return nil, err
	}
	sb := page.Subscribers[0]
	sfs, err := s.Accounts.FindStorefronts(ctx, accountID)
	if err != nil {
		return nil, err
	}
	sf := &shop.Storefront{ID: sb.StorefrontID}
	for _, one := range sfs {
		if one.ID == sb.StorefrontID {
			sf = one
		}
	}
	// As the subscribers list shows it (its times aside).
	row := subscriberRow(sb, sf, s.now(), time.UTC)
	detail := "subscriber " + strconv.FormatInt(sb.ID, 10)
	if row.Storefront != "" {
		detail += " · " + row.Storefront
	}
	return []templates.FindHit{{Kind: "Subscriber", Title: row.Email, Detail: detail + " · " + row.StatusText, URL: row.URL}}, nil
}

// findAddresses returns the e-mail addresses the text is, or holds as a From line or a
// mailto: link pasted whole.
func findAddresses(text string) []string {
	if q := pastedAddresses(text); q != "" {
		var out []string
		for _, a := range strings.Split(strings.TrimPrefix(q, "email:"), ",") {
			out = append(out, strings.Trim(a, `"`))
		}
		return out
	}
	if strings.Count(text, "@") == 1 && !strings.ContainsFunc(text, unicode.IsSpace) {
		return []string{text}
	}
	return nil
}

// findLists sets the purchases and subscribers lists with the text as their search,
// the purchases' counted up to maxFindCount, and the customers who made the newest of
// those purchases. A text a list's language refuses, or that finds no purchase, is read
// as a person may have meant it, as the lists' own boxes read it (a From line as its
// address; "the acme order last week, not refunded" as domain:acme.io created>="last
// week" -status:RFD), when that reading finds something or the text could not be read
// at all; a list that reads nothing links to it all the same, where the list shows why
// and what it may mean.
func (s *Server) findLists(c *gin.Context, text string, v *templates.FindView) error {
	found, err := s.findMeant(c, text)
	if err != nil {
		return err
	}
	purchases := templates.FindList{Label: "purchases", URL: "/purchases?" + url.Values{"q": {found.q}}.Encode(), Note: readAs(text, found.q)}
	switch {
	case found.refused != "":
		purchases.Note = found.refused
	default:
		purchases.Count = findCount(found.n, found.capped, "purchase", "purchases")
		if found.n > 0 {
			s.findCustomers(found, s.zone(c), v)
		}
	}
	// The subscribers list is linked, not counted: its search is checks on each
	// subscriber of the account (one path, db/README.md "Searches"), a walk of them all
	// for a count; the customer above already names a subscriber by its address.
	q, refused, err := s.subscriberSearch(c, text)
	if err != nil {
		return err
	}
	if refused != "" {
		meant, err := reading(search.Subscribers, text, s.subscriberValues(c))
		if err != nil {
			return err
		}
		if meant != "" {
			if _, again, err := s.subscriberSearch(c, meant); err != nil {
				return err
			} else if again == "" {
				q, refused = meant, ""
			}
		}
	}
	subscribers := templates.FindList{Label: "subscribers", URL: allSubscribersURL + "?" + url.Values{"q": {q}}.Encode(), Note: readAs(text, q)}
	if refused != "" {
		subscribers.Note = refused
	}
	v.Lists = []templates.FindList{purchases, subscribers}
	return nil
}

// namedLookup returns the purchases (two at most) that a word names as a payment
// reference or a product key, each word read once a request: the whole text's reading
// and the last word's suggestions ask for the same word.
func (s *Server) namedLookup(ctx context.Context, accountID int64) func(field search.Field, part string) ([]shop.NamedPurchase, error) {
	memo := map[search.Field]map[string][]shop.NamedPurchase{search.FieldRef: {}, search.FieldKey: {}}
	return func(field search.Field, part string) ([]shop.NamedPurchase, error) {
		if found, ok := memo[field][part]; ok {
			return found, nil
		}
		found, err := s.Purchases.FindPurchasesNamed(ctx, accountID, namedBy[field], part, 2)
		if err == nil {
			memo[field][part] = found
		}
		return found, err
	}
}

// namedBy is what ref: and key: compare.
var namedBy = map[search.Field]shop.NamedBy{search.FieldRef: shop.NamedByReference, search.FieldKey: shop.NamedByProductKey}

// namedLabel is the label of a ref: or key: suggestion of the purchases found: the text
// as the first one's row holds it (the word typed is read in lower case), and whose.
func namedLabel(field search.Field, found []shop.NamedPurchase) string {
	whose := "purchase #" + strconv.FormatInt(found[0].ID, 10)
	if len(found) > 1 {
		whose = "purchases #" + strconv.FormatInt(found[0].ID, 10) + " and more"
	}
	return string(field) + ":" + found[0].Text + " · the " + namedBy[field].String() + " of " + whose
}

// maybeIdentifier tells whether a word typed may be a payment reference or a product
// key, which support pastes whole: one word of six characters or more with a digit in
// it. Other words (a name, a status) are not looked up, so that they cost no statement.
func maybeIdentifier(part string) bool {
	return utf8.RuneCountInString(part) >= 6 && len(strings.Fields(part)) == 1 && strings.ContainsAny(part, "0123456789")
}

// maxFindSuggestions is how many records the header's Find box offers as the user
// types, before its last option: all results, on the Find page.
const maxFindSuggestions = 5

// findSuggestions serves GET /find/suggest?q=: the header's Find box's listbox as the
// user types. It offers what the Find page shows first, each a link to its page: the
// records the text names exactly, then who bought the purchases it finds (a name typed
// offers the addresses that person bought under), and last the Find page itself. A
// text of one character, or one that cannot be searched, offers nothing.
func (s *Server) findSuggestions(c *gin.Context) error {
	text := strings.TrimSpace(c.Query("q"))
	if utf8.RuneCountInString(text) < 2 || !readable(text) {
		return render(c, templates.FindSuggestions(nil))
	}
	var v templates.FindView
	var err error
	if v.Hits, err = s.findHits(c, text); err != nil {
		return err
	}
	found, err := s.findMeant(c, text)
	if err != nil {
		return err
	}
	if found.read && found.n > 0 {
		s.findCustomers(found, s.zone(c), &v)
	}
	opts := append(v.Hits, v.Customers...)
	opts = opts[:min(len(opts), maxFindSuggestions)]
	return render(c, templates.FindSuggestions(append(opts, templates.FindHit{Kind: "Find",
		Title: "All results for “" + text + "”", URL: templates.FindURL + "?" + url.Values{"q": {text}}.Encode()})))
}
