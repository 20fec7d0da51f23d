package web

import (
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/search"
	"storefront/internal/shop"
	"storefront/templates"
)

// findMeant reads the purchases the purchases list finds for the text as its search,
// or for the text as a person may have meant it (reading) when that finds something or
// the text could not be read at all.
func (s *Server) findMeant(c *gin.Context, text string) (foundPurchases, error) {
	found, err := s.findPurchases(c, text)
	if err != nil || (found.read && found.n > 0) {
		return found, err
	}
	meant, err := reading(search.Purchases, text, s.purchaseValues(c))
	if err != nil || meant == "" {
		return found, err
	}
	alt, err := s.findPurchases(c, meant)
	if err != nil {
		return found, err
	}
	if alt.read && (alt.n > 0 || !found.read) {
		return alt, nil
	}
	return found, nil
}

// readAs says how a list read the text: "" as it is, else "read as " the search.
func readAs(text, q string) string {
	if q == text {
		return ""
	}
	return "read as " + q
}

// foundPurchases is what the purchases list finds for a search q: the newest
// findCustomersRead of its purchases and how many there are (up to maxFindCount;
// capped when there are more), or why it reads nothing.
type foundPurchases struct {
	q       string
	read    bool
	refused string
	newest  []*shop.Purchase
	n       int64
	capped  bool
}

// findPurchases reads the purchases the purchases list finds for the search q: a page
// of the newest, and their count when there are more than the page holds (a search
// that finds a few, a name's, walks its path once, not twice).
func (s *Server) findPurchases(c *gin.Context, q string) (foundPurchases, error) {
	ctx := c.Request.Context()
	found := foundPurchases{q: q}
	f, err := filter.Purchases(url.Values{"q": {q}}, currentAccount(c).ID, s.now(), s.zone(c))
	if err == nil {
		newest := f
		newest.Desc, newest.PerPage, newest.Page, newest.After, newest.IncludeCount = true, findCustomersRead, 0, nil, false
		var page *shop.PurchasePage
		if page, err = s.Purchases.FindPurchases(ctx, newest); err == nil {
			found.newest, found.n = page.Purchases, int64(len(page.Purchases))
			if page.Next != nil {
				found.n, found.capped, err = s.Purchases.CountPurchases(ctx, f, maxFindCount)
			}
		}
	}
	switch {
	case err == nil:
		found.read = true
	case shop.ErrorCode(err) == shop.EInternal:
		return found, err
	default:
		found.refused = shop.ErrorMessage(err)
	}
	return found, nil
}

// subscriberSearch returns q and why the subscribers list's language refuses it, ""
// when it reads it.
func (s *Server) subscriberSearch(c *gin.Context, q string) (string, string, error) {
	_, _, err := filter.SubscriberSearch(url.Values{"q": {q}}, currentAccount(c).ID, 0, s.now(), s.zone(c))
	switch {
	case err == nil:
		return q, "", nil
	case shop.ErrorCode(err) == shop.EInternal:
		return q, "", err
	}
	return q, shop.ErrorMessage(err), nil
}

// findCustomersRead is how many of the newest purchases found the Find page reads for
// their buyers, and maxFindCustomers how many of those buyers it lists: one page of the
// purchases list, whatever the number found.
const (
	findCustomersRead = 100
	maxFindCustomers  = 8
)

// findCustomers sets the customers (buyer addresses, as the customer page compares
// them) of the newest purchases found, newest buyer first, each with the name of their
// newest purchase among these and how many of these are theirs; a customer the text
// names exactly is left out, being named above.
func (s *Server) findCustomers(found foundPurchases, loc *time.Location, v *templates.FindView) {
	named := map[string]bool{}
	for _, h := range v.Hits {
		if h.Kind == "Customer" {
			named[string(search.WeightString(h.Title))] = true
		}
	}
	type buyer struct {
		p     *shop.Purchase
		count int64
	}
	var order []string
	buyers := map[string]*buyer{}
	for _, p := range found.newest {
		if p.BuyerEmail == nil || strings.TrimSpace(*p.BuyerEmail) == "" {
			continue
		}
		k := string(search.WeightString(*p.BuyerEmail))
		if named[k] {
			continue
		}
		if buyers[k] == nil {
			buyers[k] = &buyer{p: p}
			order = append(order, k)
		}
		buyers[k].count++
	}
	read := int64(len(found.newest))
	exact := !found.capped && found.n <= read
	for _, k := range order[:min(len(order), maxFindCustomers)] {
		b := buyers[k]
		detail := []string{findCount(b.count, false, "purchase found", "purchases found"),
			"latest " + b.p.CreatedAt.In(loc).Format("2 Jan 2006")}
		if !exact {
			detail[0] = templates.FormatCount(b.count) + " of the newest " + templates.FormatCount(read) + " found"
		}
		if name := buyerName(b.p); name != "" {
			detail = append([]string{name}, detail...)
		}
		v.Customers = append(v.Customers, templates.FindHit{Kind: "Customer", Title: *b.p.BuyerEmail,
			Detail: strings.Join(detail, " · "), URL: customerURL(*b.p.BuyerEmail)})
	}
	switch {
	case !exact:
		v.CustomersNote = "The buyers of the newest " + templates.FormatCount(read) + " of the " +
			findCount(found.n, found.capped, "purchase", "purchases") + " found; the purchases list below shows them all."
	case len(order) > maxFindCustomers:
		v.CustomersNote = findCount(int64(len(order)-maxFindCustomers), false, "more buyer", "more buyers") + "; the purchases list below shows them all."
	}
}

// buyerName is a purchase's buyer's first and last names, "" when it has neither.
func buyerName(p *shop.Purchase) string {
	var parts []string
	for _, s := range []*string{p.BuyerFirstname, p.BuyerLastname} {
		if s != nil && strings.TrimSpace(*s) != "" {
			parts = append(parts, strings.TrimSpace(*s))
		}
	}
	return strings.Join(parts, " ")
}

// findCount writes a count and its noun: "1 purchase", "12 purchases", "1,000+
// purchases" when capped.
func findCount(n int64, capped bool, one, many string) string {
	if n == 1 && !capped {
		return "1 " + one
	}
	c := templates.FormatCount(n)
	if capped {
		c += "+"
	}
	return c + " " + many
}
