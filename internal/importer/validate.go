package importer

import (
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"storefront/internal/shop"
)

// Column sizes of the schema (db/migrations), checked before writing so that nothing
// is truncated or refused by the database half-way.
const (
	varchar255  = 255
	textBytes   = 65535
	maxInt32    = math.MaxInt32
	minUnixTime = -30610224000 // 1000-01-01, the start of DATETIME
	maxUnixTime = 253402300799 // 9999-12-31 23:59:59
)

// checker validates one record and keeps the first problem found; later checks are
// no-ops once it has one, so validation code reads as a list of rules.
type checker struct {
	err *fieldError
}

func (c *checker) failf(field, format string, args ...any) {
	if c.err == nil {
		c.err = &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
	}
}

func (c *checker) ok() bool { return c.err == nil }

// result returns the first problem as an error, or nil.
func (c *checker) result() error {
	if c.err == nil {
		return nil
	}
	return c.err
}

func (c *checker) present(field string, isNil bool) bool {
	if isNil {
		c.failf(field, "is required")
		return false
	}
	return true
}

// id checks a required positive id and returns it.
func (c *checker) id(field string, v *int64) int64 {
	if !c.present(field, v == nil) {
		return 0
	}
	if *v <= 0 {
		c.failf(field, "must be a positive integer, not %d", *v)
		return 0
	}
	return *v
}

// optID checks an optional positive id.
func (c *checker) optID(field string, v *int64) *int64 {
	if v == nil {
		return nil
	}
	c.id(field, v)
	return v
}

// intRange checks a required integer within [lo, hi] and returns it.
func (c *checker) intRange(field string, v *int64, lo, hi int64) int64 {
	if !c.present(field, v == nil) {
		return 0
	}
	if *v < lo || *v > hi {
		c.failf(field, "must be between %d and %d, not %d", lo, hi, *v)
		return 0
	}
	return *v
}

// optIntRange checks an optional integer within [lo, hi].
func (c *checker) optIntRange(field string, v *int64, lo, hi int64) *int64 {
	if v == nil {
		return nil
	}
	c.intRange(field, v, lo, hi)
	return v
}

// time checks a required UNIX timestamp and returns it.
func (c *checker) time(field string, v *int64) shop.Time {
	if !c.present(field, v == nil) {
		return shop.Time{}
	}
	if *v < minUnixTime || *v > maxUnixTime {
		c.failf(field, "UNIX timestamp %d is out of range", *v)
		return shop.Time{}
	}
	return shop.Unix(*v)
}

// optTime checks an optional UNIX timestamp.
func (c *checker) optTime(field string, v *int64) *shop.Time {
	if v == nil {
		return nil
	}
	t := c.time(field, v)
	return &t
}

// timestamps checks the created_at and updated_at of the record at pre ("", or
// "customer." for a nested record).
func (c *checker) timestamps(pre string, created, updated *int64) shop.Timestamps {
	return shop.Timestamps{CreatedAt: c.time(pre+"created_at", created), UpdatedAt: c.time(pre+"updated_at", updated)}
}

// str checks a required string of at most max characters and returns it.
func (c *checker) str(field string, v *string, max int) string {
	if !c.present(field, v == nil) {
		return ""
	}
	c.length(field, *v, max)
	return *v
}

// nonEmpty checks a required, non-empty string of at most max characters.
func (c *checker) nonEmpty(field string, v *string, max int) string {
	s := c.str(field, v, max)
	if v != nil && s == "" {
		c.failf(field, "must not be empty")
	}
	return s
}

// optStr checks an optional string of at most max characters.
func (c *checker) optStr(field string, v *string, max int) *string {
	if v != nil {
		c.length(field, *v, max)
	}
	return v
}

// optText checks an optional TEXT value (a limit in bytes).
func (c *checker) optText(field string, v *string) *string {
	if v != nil && len(*v) > textBytes {
		c.failf(field, "is %d bytes long; at most %d are allowed", len(*v), textBytes)
	}
	return v
}

func (c *checker) length(field, s string, max int) {
	if len(s) <= max {
		return // fast path: bytes bound characters
	}
	if n := utf8.RuneCountInString(s); n > max {
		c.failf(field, "is %d characters long; at most %d are allowed", n, max)
	}
}

func (c *checker) boolean(field string, v *bool) bool {
	if !c.present(field, v == nil) {
		return false
	}
	return *v
}

// currency checks a required ISO 4217 code and returns it with its digits.
func (c *checker) currency(field string, v *string) (string, int) {
	if !c.present(field, v == nil) {
		return "", 2
	}
	d, ok := shop.CurrencyDigits(*v)
	if !ok {
		c.failf(field, "%q is not an ISO 4217 currency code", *v)
		return *v, 2
	}
	return *v, d
}

// money checks a required amount with the currency's digits and returns it in minor
// units.
func (c *checker) money(field string, v *shop.Money, digits int) (shop.Money, int64) {
	if !c.present(field, v == nil) {
		return "", 0
	}
	s := string(*v)
	n, err := shop.ParseMoney(s, digits)
	switch {
	case err != nil:
		c.failf(field, "%v", err)
	case len(s) > 1 && s[0] == '-' && n == 0:
		// The database keeps no sign on zero: "-0.00" would come back as "0.00".
		c.failf(field, "%q is a negative zero; write %q", s, s[1:])
	case hasLeadingZero(s):
		c.failf(field, "%q has a leading zero", s)
	}
	return *v, n
}

// hasLeadingZero reports whether the integer part of a decimal has more than one
// digit and starts with 0 ("01.50"), a form that would not come back as written.
func hasLeadingZero(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	return len(s) > 1 && s[0] == '0' && s[1] != '.'
}

// optMoney checks an optional amount.
func (c *checker) optMoney(field string, v *shop.Money, digits int) *shop.Money {
	if v != nil {
		c.money(field, v, digits)
	}
	return v
}

func (c *checker) unit(field string, v *string) {
	if v != nil && !shop.ValidPeriodUnit(*v) {
		c.failf(field, "%q is not a period unit (D, W, M or Y)", *v)
	}
}

// sum adds minor-unit amounts, reporting false on overflow.
func sum(xs ...int64) (int64, bool) {
	var s int64
	for _, x := range xs {
		if (x > 0 && s > math.MaxInt64-x) || (x < 0 && s < math.MinInt64-x) {
			return 0, false
		}
		s += x
	}
	return s, true
}

// addsUp checks that want equals the sum of parts.
func (c *checker) addsUp(field string, want shop.Money, wantN int64, digits int, what string, parts ...int64) {
	if !c.ok() {
		return
	}
	s, ok := sum(parts...)
	if !ok || s != wantN {
		got := "too large"
		if ok {
			got = fmt.Sprintf("%q", shop.FormatMinor(s, digits))
		}
		c.failf(field, "%q but %s is %s", want, what, got)
	}
}

func (c *checker) notPositive(field string, m shop.Money, n int64) {
	if c.ok() && n > 0 {
		c.failf(field, "%q must be zero or negative", m)
	}
}

// validateAccount checks an account record. zones caches time zone names already
// found loadable.
func validateAccount(in *accountIn, zones map[string]bool) (*shop.Account, error) {
	var c checker
	a := &shop.Account{
		ID:          c.id("id", in.ID),
		Name:        c.str("name", in.Name, varchar255),
		APIUsername: c.nonEmpty("api_username", in.APIUsername, 191),
		Timezone:    "UTC",
	}
	if in.Timezone != nil {
		a.Timezone = c.nonEmpty("timezone", in.Timezone, 64)
		if c.ok() && !zones[a.Timezone] {
			if _, err := time.LoadLocation(a.Timezone); err != nil || a.Timezone == "Local" {
				c.failf("timezone", "%q is not an IANA time zone", a.Timezone)
			} else {
				zones[a.Timezone] = true
			}
		}
	}
	return a, c.result()
}

// validateStorefront checks a storefront record (the account reference is checked
// by the caller).
func validateStorefront(in *storefrontIn) (*shop.Storefront, error) {
	var c checker
	s := &shop.Storefront{
		ID:               c.id("id", in.ID),
		AccountID:        c.id("account_id", in.AccountID),
		Name:             c.str("name", in.Name, varchar255),
		DownloadLimit:    c.intRange("download_limit", in.DownloadLimit, 0, maxInt32),
		DownloadDays:     c.intRange("download_days", in.DownloadDays, 0, maxInt32),
		PastDueGraceDays: shop.DefaultPastDueGraceDays,
	}
	if in.Currency != nil {
		cur, _ := c.currency("currency", in.Currency)
		s.Currency = &cur
	}
	if in.PastDueGraceDays != nil {
		s.PastDueGraceDays = c.intRange("past_due_grace_days", in.PastDueGraceDays, 0, maxInt32)
	}
	return s, c.result()
}

// validateSubscriber checks a subscriber record; digits are those of the
// storefront's currency (2 when it has none).
func validateSubscriber(in *subscriberIn, digits int) (*shop.Subscriber, error) {
	var c checker
	s := &shop.Subscriber{
		ID:           c.id("id", in.ID),
		StorefrontID: c.id("storefront_id", in.StorefrontID),
		Timestamps:   c.timestamps("", in.CreatedAt, in.UpdatedAt),
		Username:     c.nonEmpty("username", in.Username, varchar255),
		LastLoginAt:  c.optTime("last_login_at", in.LastLoginAt),
	}
	if in.Subscription != nil {
		sub := in.Subscription
		out := &shop.Subscription{
			ID:             c.id("subscription.id", sub.ID),
			Period:         c.intRange("subscription.period", sub.Period, 0, maxInt32),
			Unit:           c.str("subscription.unit", sub.Unit, 1),
			TrialPeriod:    c.optIntRange("subscription.trial_period", sub.TrialPeriod, 0, maxInt32),
			TrialUnit:      sub.TrialUnit,
			Timestamps:     c.timestamps("subscription.", sub.CreatedAt, sub.UpdatedAt),
			StartedAt:      c.optTime("subscription.started_at", sub.StartedAt),
			EndedAt:        c.optTime("subscription.ended_at", sub.EndedAt),
			TrialStartedAt: c.optTime("subscription.trial_started_at", sub.TrialStartedAt),
			LastPaymentAt:  c.optTime("subscription.last_payment_at", sub.LastPaymentAt),
			NextPaymentAt:  c.optTime("subscription.next_payment_at", sub.NextPaymentAt),
		}
		if c.present("subscription.status", sub.Status == nil) {
			out.Status = shop.SubscriptionStatus(*sub.Status)
			if !out.Status.Valid() {
				c.failf("subscription.status", "%q is not a subscription status", *sub.Status)
			}
		}
		if sub.Unit != nil {
			c.unit("subscription.unit", sub.Unit)
		}
		c.unit("subscription.trial_unit", sub.TrialUnit)
		out.Price, _ = c.money("subscription.price", sub.Price, digits)
		out.TaxAmount, _ = c.money("subscription.tax_amount", sub.TaxAmount, digits)
		out.TrialPrice = c.optMoney("subscription.trial_price", sub.TrialPrice, digits)
		out.TrialTaxAmount = c.optMoney("subscription.trial_tax_amount", sub.TrialTaxAmount, digits)
		s.Subscription = out
	}
	return s, c.result()
}

// validatePurchase checks everything about a purchase record that needs no lookup:
// types, required fields, statuses, currencies, money digits and totals, lengths,
// and the purchase_id of nested records. References are checked by the caller.
func validatePurchase(in *purchaseIn) (*shop.Purchase, error) {
	var c checker
	p := in.Purchase // the nullable text fields, decoded in place
	p.ID = c.id("id", in.ID)
	p.CreatedAt = c.time("created_at", in.CreatedAt)
	p.UpdatedAt = c.time("updated_at", in.UpdatedAt)
	p.StorefrontID = c.id("storefront_id", in.StorefrontID)
	p.SubscriberID = c.optID("subscriber_id", in.SubscriberID)
	p.Salt = c.str("salt", in.Salt, varchar255)
	if c.present("status", in.Status == nil) {
		st, ok := shop.ParsePurchaseStatus(*in.Status)
		if !ok || string(st) != *in.Status {
			c.failf("status", "%q is not a purchase status (ACT, PND, RFD, ERR, CAN or HLD)", *in.Status)
		}
		p.Status = st
	}
	var digits int
	p.Currency, digits = c.currency("currency", in.Currency)
	var subtotal, discount, tax, shipping, total int64
	p.Subtotal, subtotal = c.money("subtotal", in.Subtotal, digits)
	p.Discount, discount = c.money("discount", in.Discount, digits)
	p.Tax, tax = c.money("tax", in.Tax, digits)
	p.Shipping, shipping = c.money("shipping", in.Shipping, digits)
	p.Total, total = c.money("total", in.Total, digits)
	c.notPositive("discount", p.Discount, discount)
	c.addsUp("total", p.Total, total, digits, "subtotal + discount + tax + shipping", subtotal, discount, tax, shipping)
	c.optMoney("processor_fee", p.ProcessorFee, digits)
	p.RequiresShipping = c.boolean("requires_shipping", in.RequiresShipping)
	p.MarketingOptin = c.boolean("marketing_optin", in.MarketingOptin)
	c.optIntRange("tangibles_to_ship", p.TangiblesToShip, 0, maxInt32)
	if c.ok() && !p.RequiresShipping && p.TangiblesToShip != nil {
		c.failf("tangibles_to_ship", "must be null when requires_shipping is false")
	}
	c.optText("customer_notes", p.CustomerNotes)
	for _, f := range []struct {
		name string
		v    *string
	}{
		{"buyer_email", p.BuyerEmail}, {"buyer_firstname", p.BuyerFirstname}, {"buyer_lastname", p.BuyerLastname},
		{"shipping_firstname", p.ShippingFirstname}, {"shipping_lastname", p.ShippingLastname},
		{"shipping_street", p.ShippingStreet}, {"shipping_street2", p.ShippingStreet2}, {"shipping_city", p.ShippingCity},
		{"shipping_state", p.ShippingState}, {"shipping_zip_code", p.ShippingZipCode},
		{"shipping_country_code", p.ShippingCountryCode}, {"shipping_country", p.ShippingCountry},
		{"shipping_phone", p.ShippingPhone}, {"shipping_vatin", p.ShippingVATIN},
		{"shipping_business_name", p.ShippingBusinessName}, {"shipping_carrier", p.ShippingCarrier},
		{"shipping_tracking_number", p.ShippingTrackingNumber},
		{"billing_firstname", p.BillingFirstname}, {"billing_lastname", p.BillingLastname},
		{"billing_street", p.BillingStreet}, {"billing_street2", p.BillingStreet2}, {"billing_city", p.BillingCity},
		{"billing_state", p.BillingState}, {"billing_zip_code", p.BillingZipCode},
		{"billing_country_code", p.BillingCountryCode}, {"billing_card_type", p.BillingCardType},
		{"billing_card_number", p.BillingCardNumber}, {"ip_address", p.IPAddress},
	} {
		c.optStr(f.name, f.v, varchar255)
	}

	p.Customer = nil
	if cu := in.Customer; cu != nil {
		p.Customer = &shop.Customer{
			ID:            c.id("customer.id", cu.ID),
			Firstname:     c.optStr("customer.firstname", cu.Firstname, varchar255),
			Lastname:      c.optStr("customer.lastname", cu.Lastname, varchar255),
			Email:         c.optStr("customer.email", cu.Email, varchar255),
			ReceivesEmail: c.boolean("customer.receives_email", cu.ReceivesEmail),
			Timestamps:    c.timestamps("customer.", cu.CreatedAt, cu.UpdatedAt),
		}
	}

	p.CustomFields = checkRecords(&c, "custom_fields", in.CustomFields, func(pre string, f customFieldIn) shop.CustomField {
		out := shop.CustomField{
			Label:    c.str(pre+"label", f.Label, varchar255),
			Response: c.str(pre+"response", f.Response, textBytes),
		}
		if f.Response != nil && len(*f.Response) > textBytes {
			c.failf(pre+"response", "is %d bytes long; at most %d are allowed", len(*f.Response), textBytes)
		}
		return out
	})

	p.Coupons = checkRecords(&c, "coupons", in.Coupons, func(pre string, cp couponIn) shop.Coupon {
		out := shop.Coupon{
			Name:           c.str(pre+"name", cp.Name, varchar255),
			Code:           c.str(pre+"code", cp.Code, varchar255),
			DiscountAmount: c.str(pre+"discount_amount", cp.DiscountAmount, 40),
			DiscountType:   c.str(pre+"discount_type", cp.DiscountType, 16),
		}
		if c.ok() {
			switch out.DiscountType {
			case shop.DiscountPercent:
				if !shop.IsDecimal(out.DiscountAmount) {
					c.failf(pre+"discount_amount", "%q is not a decimal number", out.DiscountAmount)
				}
			case shop.DiscountMoney:
				m := shop.Money(out.DiscountAmount)
				c.money(pre+"discount_amount", &m, digits)
			default:
				c.failf(pre+"discount_type", "%q is neither %q nor %q", out.DiscountType, shop.DiscountMoney, shop.DiscountPercent)
			}
		}
		return out
	})

	p.LineItems = checkRecords(&c, "line_items", in.LineItems, func(pre string, li lineItemIn) shop.LineItem {
		out := shop.LineItem{
			ID:            c.id(pre+"id", li.ID),
			PurchaseID:    c.id(pre+"purchase_id", li.PurchaseID),
			ProductID:     c.id(pre+"product_id", li.ProductID),
			Quantity:      c.intRange(pre+"quantity", li.Quantity, 0, maxInt32),
			ProductName:   c.str(pre+"product_name", li.ProductName, varchar255),
			DownloadLimit: c.intRange(pre+"download_limit", li.DownloadLimit, 0, maxInt32),
			DownloadCount: c.intRange(pre+"download_count", li.DownloadCount, 0, maxInt32),
			ExpiresAt:     c.optTime(pre+"expires_at", li.ExpiresAt),
			HasAllKeys:    c.boolean(pre+"has_all_keys", li.HasAllKeys),
		}
		c.ofPurchase(pre, out.PurchaseID, p.ID)
		var price, sub, tax, disc, tot int64
		out.Price, price = c.money(pre+"price", li.Price, digits)
		out.Subtotal, sub = c.money(pre+"subtotal", li.Subtotal, digits)
		out.Tax, tax = c.money(pre+"tax", li.Tax, digits)
		out.Discount, disc = c.money(pre+"discount", li.Discount, digits)
		out.Total, tot = c.money(pre+"total", li.Total, digits)
		c.notPositive(pre+"discount", out.Discount, disc)
		if c.ok() {
			hi, lo := bitsMul(price, out.Quantity)
			if hi || lo != sub {
				c.failf(pre+"subtotal", "%q but price * quantity is %q", out.Subtotal, formatProduct(price, out.Quantity, digits))
			}
		}
		c.addsUp(pre+"total", out.Total, tot, digits, "subtotal + tax + discount", sub, tax, disc)
		out.ProductKeys = checkList(&c, pre+"product_keys", li.ProductKeys, func(at string, key *string) string {
			return c.str(at, key, varchar255)
		})
		return out
	})

	p.Transactions = checkRecords(&c, "transactions", in.Transactions, func(pre string, t transactionIn) shop.Transaction {
		out := shop.Transaction{
			ID:         c.id(pre+"id", t.ID),
			PurchaseID: c.id(pre+"purchase_id", t.PurchaseID),
			Action:     c.str(pre+"action", t.Action, 64),
			Gateway:    c.str(pre+"gateway", t.Gateway, varchar255),
			IsSuccess:  c.boolean(pre+"is_success", t.IsSuccess),
			Reference:  c.optStr(pre+"reference", t.Reference, varchar255),
			Message:    c.optText(pre+"message", t.Message),
			Timestamps: c.timestamps(pre, t.CreatedAt, t.UpdatedAt),
		}
		c.ofPurchase(pre, out.PurchaseID, p.ID)
		var d int
		out.Currency, d = c.currency(pre+"currency", t.Currency)
		out.Amount, _ = c.money(pre+"amount", t.Amount, d)
		return out
	})
	return &p, c.result()
}

// ofPurchase checks, unless a check failed already, that the element at pre of a
// purchase's list names that purchase in its purchase_id.
func (c *checker) ofPurchase(pre string, purchaseID, id int64) {
	if c.ok() && purchaseID != id {
		c.failf(pre+"purchase_id", "%d is not the purchase's id %d", purchaseID, id)
	}
}

// checkList checks a required list with elem, which checks one element given the
// element's field ("coupons[2]"); nil for a missing list.
func checkList[In, Out any](c *checker, field string, in *[]In, elem func(at string, v In) Out) []Out {
	if !c.present(field, in == nil) {
		return nil
	}
	out := make([]Out, len(*in))
	for i, v := range *in {
		out[i] = elem(fmt.Sprintf("%s[%d]", field, i), v)
	}
	return out
}

// checkRecords checks a required list of records with elem, which checks one record
// given the prefix of its fields ("coupons[2]."); nil for a missing list.
func checkRecords[In, Out any](c *checker, field string, in *[]In, elem func(pre string, v In) Out) []Out {
	return checkList(c, field, in, func(at string, v In) Out { return elem(at+".", v) })
}

// bitsMul multiplies minor units by a quantity, reporting overflow.
func bitsMul(a, q int64) (overflow bool, p int64) {
	if q == 0 || a == 0 {
		return false, 0
	}
	p = a * q
	if p/q != a {
		return true, 0
	}
	return false, p
}

func formatProduct(price, q int64, digits int) string {
	if over, p := bitsMul(price, q); !over {
		return string(shop.FormatMinor(p, digits))
	}
	return "too large"
}
