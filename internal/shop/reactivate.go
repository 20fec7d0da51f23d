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
