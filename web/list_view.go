package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

func purchaseRow(p *shop.Purchase, storefronts map[int64]string, loc *time.Location) templates.PurchaseRow {
	row := templates.PurchaseRow{
		ID: p.ID, URL: fmt.Sprintf("/purchases/%d", p.ID),
		Date: p.CreatedAt.In(loc).Format("2 Jan 2006 15:04 MST"), DateISO: p.CreatedAt.UTC().Format(time.RFC3339),
		Buyer: strings.TrimSpace(deref(p.BuyerFirstname) + " " + deref(p.BuyerLastname)), Email: deref(p.BuyerEmail),
		CustomerURL: customerURL(deref(p.BuyerEmail)),
		Storefront:  storefronts[p.StorefrontID], Total: moneyText(p.Total, p.Currency),
		Status: string(p.Status), StatusText: p.Status.Label(),
	}
	if row.Buyer == "" {
		row.Buyer = "—"
	}
	var items []string
	for _, li := range p.LineItems {
		name := li.ProductName
		if li.Quantity != 1 {
			name = fmt.Sprintf("%d × %s", li.Quantity, name)
		}
		items = append(items, name)
	}
	row.Items = strings.Join(items, ", ")
	return row
}

// idOption is the option of a select that names a record by id, chosen when the id is
// selected.
func idOption(id int64, label, selected string) templates.Option {
	v := strconv.FormatInt(id, 10)
	return templates.Option{Value: v, Label: label, Selected: v == selected}
}

// chosenStatuses are the statuses a list's query names (several, or comma-separated,
// any letter case), to tick them in its form.
func chosenStatuses(q url.Values) map[string]bool {
	chosen := map[string]bool{}
	for _, v := range q["status"] {
		for _, part := range strings.Split(v, ",") {
			chosen[strings.ToUpper(strings.TrimSpace(part))] = true
		}
	}
	return chosen
}

// dateHint says what a free-text date resolves to in the account's zone, the way the
// filter will read it: "last monday → Mon 16 Nov 2026 00:00 EST".
func dateHint(text string, now time.Time, loc *time.Location) templates.Hint {
	text = strings.TrimSpace(text)
	if text == "" {
		return templates.Hint{}
	}
	t, err := filter.ParseDate("date", text, now, loc)
	if err != nil {
		return templates.Hint{Text: "Cannot read this as a date or time.", Error: true}
	}
	return templates.Hint{Text: text + " → " + templates.FormatTime(t, loc)}
}

// paramLabels name each dashboard list's parameters the way its form labels them.
var paramLabels = map[string]map[string]string{
	"purchases": {
		"status": "Status", "storefront_id": "Storefront", "product_id": "Product", "customer_email": "Customer e-mail",
		"customer_first_name": "First name", "customer_last_name": "Last name", "date_min": "Created from",
		"date_max": "Created before", "total": "Total", "total_op": "Total", "ship": "Unshipped only", "q": "Search",
	},
	"subscribers": {"email": "E-mail", "status": "Subscription status", "started_min": "Service started from",
		"started_max": "Service started before", "ended_min": "Service ended from", "ended_max": "Service ended before", "receiving_at": "Receiving service at", "q": "Search"},
}

// paramLabel begins an error message about a parameter of a list with its label.
func paramLabel(list, param string) string {
	if l, ok := paramLabels[list][param]; ok {
		return l + ": "
	}
	return ""
}

// pageLinks builds the next and previous links of a dashboard list (Older and Newer
// when it is shown newest first, desc): the same query with a cursor after the page's
// last row, in the list's order, or a "before" cursor ahead of its first row. A link
// that does not apply is "". next says the store has rows past the page in the order it
// read; walked that the page was reached by a link; backwards that it was read in the
// other order after a before link (and more rows ahead exist when the page was full).
func pageLinks(path string, q url.Values, kind byte, first, last shop.Cursor, desc, next, walked, backwards bool) (older, newer string) {
	hasOlder, hasNewer := next, walked
	if backwards {
		hasOlder, hasNewer = true, next
	}
	base := url.Values{}
	for k, vs := range q {
		if k != "cursor" && k != "before" && k != "page" {
			base[k] = vs
		}
	}
	if hasOlder {
		v := cloneValues(base)
		v.Set("cursor", filter.EncodeCursor(last, kind, desc))
		older = cleanURL(path, v)
	}
	if hasNewer {
		v := cloneValues(base)
		v.Set("before", filter.EncodeCursor(first, kind, false))
		newer = cleanURL(path, v)
	}
	return older, newer
}

// viewParams are the purchases filters a saved view keeps; paging is left out.
var viewParams = []string{"q", "status", "storefront_id", "product_id", "customer_email", "customer_first_name",
	"customer_last_name", "date_min", "date_max", "total", "total_op", "ship", "order"}

// viewQuery keeps the filters of a purchases query, blanks left out, in a stable order.
func viewQuery(q url.Values) string {
	out := url.Values{}
	for _, k := range viewParams {
		for _, v := range q[k] {
			if v = strings.TrimSpace(v); v != "" {
				out.Add(k, v)
			}
		}
	}
	if out.Get("total") == "" {
		out.Del("total_op")
	}
	return out.Encode()
}

// cleanURL writes path?query with blank values left out, for the address bar.
func cleanURL(path string, q url.Values) string {
	v := url.Values{}
	for k, vs := range q {
		for _, s := range vs {
			if strings.TrimSpace(s) != "" {
				v.Add(k, s)
			}
		}
	}
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// trimFields trims the blanks around every value of a dashboard query: a person's stray
// space in a search field means nothing. The API, which shares the parser, reads its
// parameters literally.
func trimFields(q url.Values) {
	for _, vs := range q {
		for i := range vs {
			vs[i] = strings.TrimSpace(vs[i])
		}
	}
}

// cursorAt is the list position of a row.
func cursorAt(t shop.Time, id int64) shop.Cursor { return shop.Cursor{CreatedAt: t.Time, ID: id} }

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
