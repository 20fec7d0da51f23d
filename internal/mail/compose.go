package mail

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"storefront/internal/shop"
)

// MaxSubjectRunes bounds a composed subject; the outbox column holds 255 characters.
const MaxSubjectRunes = 200

// ComposePurchaseReady writes the "purchase ready" e-mail of a purchase
// (docs/API.md#reactivation): a plain-text message greeting the buyer by first name when
// it is known, and listing every line item with its product name, quantity, download link
// ({baseURL}/downloads/{salt}/{line item id}), download limit and expiry when there are
// any, and all of its product keys.
//
// The subject is a single line whatever the product or storefront names contain: control
// characters (CR and LF among them) become spaces, so no header can be smuggled in.
func ComposePurchaseReady(p *shop.Purchase, storefrontName, baseURL string) (subject, textBody string) {
	store := oneLine(storefrontName)
	if store == "" {
		store = "our store"
	}
	subject = "Your purchase from " + store + " is ready"
	if len(p.LineItems) == 1 {
		if name := oneLine(p.LineItems[0].ProductName); name != "" {
			subject = "Your purchase is ready: " + name
		}
	}
	subject = Subject(subject)

	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	var b strings.Builder
	if first := firstName(p); first != "" {
		fmt.Fprintf(&b, "Hello %s,\n\n", first)
	} else {
		b.WriteString("Hello,\n\n")
	}
	fmt.Fprintf(&b, "thank you for your purchase from %s. It is ready for you:\n", store)
	for _, li := range p.LineItems {
		name := oneLine(li.ProductName)
		if name == "" {
			name = fmt.Sprintf("Product %d", li.ProductID)
		}
		fmt.Fprintf(&b, "\n* %s\n", name)
		if li.Quantity != 1 {
			fmt.Fprintf(&b, "  Quantity: %d\n", li.Quantity)
		}
		fmt.Fprintf(&b, "  Download: %s\n", DownloadURL(base, p.Salt, li.ID))
		if li.DownloadLimit > 0 {
			fmt.Fprintf(&b, "  Downloads allowed: %d\n", li.DownloadLimit)
		}
		if li.ExpiresAt != nil {
			fmt.Fprintf(&b, "  Link valid until: %s\n", li.ExpiresAt.UTC().Format("2 January 2006, 15:04 MST"))
		}
		switch len(li.ProductKeys) {
		case 0:
		case 1:
			fmt.Fprintf(&b, "  Product key: %s\n", oneLine(li.ProductKeys[0]))
		default:
			b.WriteString("  Product keys:\n")
			for _, k := range li.ProductKeys {
				fmt.Fprintf(&b, "    %s\n", oneLine(k))
			}
		}
	}
	fmt.Fprintf(&b, "\nPurchase reference: %s\n", oneLine(p.Salt))
	b.WriteString("\nPlease keep this e-mail: the links and keys above are yours.\n")
	fmt.Fprintf(&b, "\n%s\n", store)
	return subject, b.String()
}

// DownloadURL is the link to download one line item of a purchase.
func DownloadURL(baseURL, salt string, lineItemID int64) string {
	return fmt.Sprintf("%s/downloads/%s/%d", strings.TrimRight(baseURL, "/"), url.PathEscape(salt), lineItemID)
}

// Subject makes s safe for a Subject header: control characters (CR and LF among
// them) become spaces, runs of white space collapse, and the result is cut to
// MaxSubjectRunes runes.
func Subject(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= MaxSubjectRunes {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:MaxSubjectRunes-1])) + "…"
}

// firstName is the buyer's first name, else the customer record's, else "".
func firstName(p *shop.Purchase) string {
	if p.BuyerFirstname != nil {
		if s := oneLine(*p.BuyerFirstname); s != "" {
			return s
		}
	}
	if p.Customer != nil && p.Customer.Firstname != nil {
		return oneLine(*p.Customer.Firstname)
	}
	return ""
}

// oneLine turns every control or line-separating character into a space, collapses
// runs of white space and trims the ends, so that text taken from the database can
// neither break a header nor forge lines in a body.
func oneLine(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
	}), " ")
}
