package shop

import (
	"fmt"
	"strings"
)

// DefaultRecipient is where a reactivation's e-mail goes when no address is given
// (docs/API.md#reactivation): the customer record's address, else the buyer's, each
// without surrounding blanks; "" when neither is there.
func DefaultRecipient(customerEmail, buyerEmail string) string {
	if e := strings.TrimSpace(customerEmail); e != "" {
		return e
	}
	return strings.TrimSpace(buyerEmail)
}

// DefaultRecipient is the purchase's own address for its e-mails (the package function
// of the same name).
func (p *Purchase) DefaultRecipient() string {
	var customer string
	if p.Customer != nil && p.Customer.Email != nil {
		customer = *p.Customer.Email
	}
	var buyer string
	if p.BuyerEmail != nil {
		buyer = *p.BuyerEmail
	}
	return DefaultRecipient(customer, buyer)
}

// Recipient is the address a reactivation of purchase id sends its e-mail to: given,
// taken exactly as given (an address with a line break or surrounding blanks is refused,
// never trimmed into another the caller did not write), else the default recipient.
// Returns EInvalid (param customer_email) when the address is not one valid e-mail
// address, and EMissing when none is given and none is recorded.
func Recipient(id int64, given, customerEmail, buyerEmail string) (string, error) {
	if strings.TrimSpace(given) != "" {
		if !ValidEmail(given) {
			return "", ParamErrorf(EInvalid, "customer_email", "customer_email must be one e-mail address such as ann@example.com.")
		}
		return given, nil
	}
	to := DefaultRecipient(customerEmail, buyerEmail)
	if to == "" {
		return "", ParamErrorf(EMissing, "customer_email", "Purchase %d has no e-mail address; give customer_email.", id)
	}
	if !ValidEmail(to) {
		return "", ParamErrorf(EInvalid, "customer_email", "The purchase's address %q is not a valid e-mail address; give customer_email.", to)
	}
	return to, nil
}

// MayReactivate returns an EForbidden error unless the user's role may reactivate
// purchases (owners and staff may; viewers only look).
func (u *User) MayReactivate() error {
	if u.CanReactivate() {
		return nil
	}
	return Errorf(EForbidden, "%s", u.CannotReactivate())
}

// CannotReactivate says why the user may not reactivate purchases.
func (u *User) CannotReactivate() string {
	return fmt.Sprintf("Your role (%s) can look but not reactivate; ask an owner or staff member.", u.Role)
}

// WhatReactivationDoes says, in the dashboard's words, what reactivating p does: the
// status, the downloads as storefront sf sets them (nil when it is not known), where
// the e-mail goes (to; "" when there is no address to send to) and what Refulfill
// does, ticked or not.
func (p *Purchase) WhatReactivationDoes(sf *Storefront, to string, refulfill bool) string {
	var b strings.Builder
	if p.Status != PurchaseActive {
		b.WriteString("The status becomes Active. ")
	}
	switch {
	case sf == nil:
		b.WriteString("Downloads are reset to the storefront's limit and window")
	case sf.DownloadLimit > 0:
		fmt.Fprintf(&b, "Downloads are reset to %d per item", sf.DownloadLimit)
	default:
		b.WriteString("Downloads are reset to unlimited")
	}
	switch {
	case sf == nil:
	case sf.DownloadDays == 1:
		b.WriteString(" for 1 day")
	case sf.DownloadDays > 0:
		fmt.Fprintf(&b, " for %d days", sf.DownloadDays)
	case to != "":
		b.WriteString(", never expiring,")
	default:
		b.WriteString(", never expiring")
	}
	if to != "" {
		b.WriteString(" and an e-mail with the download links and product keys goes to " + to + ".")
	} else {
		b.WriteString(". Enter a Send to address for the e-mail with the download links and product keys.")
	}
	if refulfill {
		b.WriteString(" Refulfill: missing product keys are generated.")
	} else {
		b.WriteString(" Product keys stay as they are; tick Refulfill to generate missing ones.")
	}
	return b.String()
}
