package web

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"storefront/internal/shop"
	"storefront/templates"
)

// Field builders: null is "—", and the template shows an empty string as "(blank)".

func textField(label, key, v string) templates.Field {
	return templates.Field{Label: label, Key: key, Value: v}
}

func optField(label, key string, v *string) templates.Field {
	if v == nil {
		return templates.Field{Label: label, Key: key, Null: true}
	}
	return templates.Field{Label: label, Key: key, Value: *v}
}

func monoField(f templates.Field) templates.Field {
	f.Mono = true
	return f
}

// wideField spans both columns of a field list: free text.
func wideField(f templates.Field) templates.Field {
	f.Wide = true
	return f
}

func moneyField(label, key string, m shop.Money, currency string) templates.Field {
	// The record's field as the API has it, to be read and copied as stored.
	return templates.Field{Label: label, Key: key, Value: strings.TrimSpace(string(m) + " " + currency)}
}

func timeField(label, key string, t shop.Time, loc *time.Location) templates.Field {
	return templates.Field{Label: label, Key: key, Value: templates.FormatTime(t.Time, loc), ISO: t.UTC().Format(time.RFC3339)}
}

func boolField(label, key string, b bool) templates.Field {
	return templates.Field{Label: label, Key: key, Value: yesNo(b)}
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}

// purchaseDetail lays out every field of a purchase (docs/API.md#purchase) in groups.
func purchaseDetail(p *shop.Purchase, sf *shop.Storefront, loc *time.Location) templates.PurchaseDetail {
	cur := p.Currency
	d := templates.PurchaseDetail{ID: p.ID, Status: string(p.Status), StatusText: p.Status.Label()}

	buyer := strings.TrimSpace(deref(p.BuyerFirstname) + " " + deref(p.BuyerLastname))
	if buyer == "" {
		buyer = deref(p.BuyerEmail)
	}
	if buyer == "" {
		buyer = "No buyer name"
	}
	d.Headline = fmt.Sprintf("%s · %s · created %s", buyer, moneyText(p.Total, cur), templates.FormatTime(p.CreatedAt.Time, loc))

	storefront := fmt.Sprintf("#%d", p.StorefrontID)
	if sf != nil {
		storefront = fmt.Sprintf("%s (#%d)", sf.Name, p.StorefrontID)
	}
	fee := templates.Field{Label: "Processor fee", Key: "processor_fee", Null: true}
	if p.ProcessorFee != nil {
		fee = moneyField("Processor fee", "processor_fee", *p.ProcessorFee, cur)
	}
	d.Summary = []templates.Field{
		textField("Status", "status", fmt.Sprintf("%s (%s)", p.Status.Label(), p.Status)),
		textField("Storefront", "storefront_id", storefront),
		timeField("Created", "created_at", p.CreatedAt, loc),
		timeField("Updated", "updated_at", p.UpdatedAt, loc),
		textField("Currency", "currency", cur),
		moneyField("Subtotal", "subtotal", p.Subtotal, cur),
		moneyField("Discount", "discount", p.Discount, cur),
		moneyField("Tax", "tax", p.Tax, cur),
		moneyField("Shipping", "shipping", p.Shipping, cur),
		moneyField("Total", "total", p.Total, cur),
		fee,
		monoField(textField("Salt", "salt", p.Salt)),
		monoField(optField("IP address", "ip_address", p.IPAddress)),
		boolField("Marketing opt-in", "marketing_optin", p.MarketingOptin),
	}

	// The buyer's address and names lead to the customer's page.
	customer := customerURL(deref(p.BuyerEmail))
	d.Buyer = []templates.Field{
		optField("E-mail", "buyer_email", p.BuyerEmail),
		optField("First name", "buyer_firstname", p.BuyerFirstname),
		optField("Last name", "buyer_lastname", p.BuyerLastname),
		wideField(optField("Notes from the customer", "customer_notes", p.CustomerNotes)),
	}
	for i := range 3 {
		d.Buyer[i].URL = customer
	}
	if cu := p.Customer; cu != nil {
		d.Customer = []templates.Field{
			textField("Customer ID", "customer.id", strconv.FormatInt(cu.ID, 10)),
			optField("E-mail", "customer.email", cu.Email),
			optField("First name", "customer.firstname", cu.Firstname),
			optField("Last name", "customer.lastname", cu.Lastname),
			boolField("Receives product update e-mails", "customer.receives_email", cu.ReceivesEmail),
			timeField("Customer since", "customer.created_at", cu.CreatedAt, loc),
			timeField("Customer record updated", "customer.updated_at", cu.UpdatedAt, loc),
		}
	}

	d.Billing = []templates.Field{
		optField("First name", "billing_firstname", p.BillingFirstname),
		optField("Last name", "billing_lastname", p.BillingLastname),
		optField("Street", "billing_street", p.BillingStreet),
		optField("Street, line 2", "billing_street2", p.BillingStreet2),
		optField("City", "billing_city", p.BillingCity),
		optField("State or province", "billing_state", p.BillingState),
		optField("ZIP or postal code", "billing_zip_code", p.BillingZipCode),
		optField("Country code", "billing_country_code", p.BillingCountryCode),
		optField("Card type", "billing_card_type", p.BillingCardType),
		monoField(optField("Card number", "billing_card_number", p.BillingCardNumber)),
	}

	toShip := templates.Field{Label: "Still to ship", Key: "tangibles_to_ship", Null: true}
	if n := p.TangiblesToShip; n != nil {
		toShip.Null = false
		if *n == 0 {
			toShip.Value = "All shipped"
		} else {
			toShip.Value = fmt.Sprintf("%d still to ship", *n)
		}
	}
	d.Shipping = []templates.Field{
		boolField("Requires shipping", "requires_shipping", p.RequiresShipping),
		toShip,
		optField("Carrier", "shipping_carrier", p.ShippingCarrier),
		monoField(optField("Tracking number", "shipping_tracking_number", p.ShippingTrackingNumber)),
		optField("First name", "shipping_firstname", p.ShippingFirstname),
		optField("Last name", "shipping_lastname", p.ShippingLastname),
		optField("Business name", "shipping_business_name", p.ShippingBusinessName),
		optField("Street", "shipping_street", p.ShippingStreet),
		optField("Street, line 2", "shipping_street2", p.ShippingStreet2),
		optField("City", "shipping_city", p.ShippingCity),
		optField("State or province", "shipping_state", p.ShippingState),
		optField("ZIP or postal code", "shipping_zip_code", p.ShippingZipCode),
		optField("Country code", "shipping_country_code", p.ShippingCountryCode),
		optField("Country", "shipping_country", p.ShippingCountry),
		optField("Phone", "shipping_phone", p.ShippingPhone),
		optField("VAT ID", "shipping_vatin", p.ShippingVATIN),
	}
	d.NoShipping = !p.RequiresShipping
	for _, f := range d.Shipping[1:] {
		if !f.Null {
			d.NoShipping = false
		}
	}

	for i, li := range p.LineItems {
		k := func(name string) string { return fmt.Sprintf("line_items.%d.%s", i, name) }
		downloads := fmt.Sprintf("%d of %d", li.DownloadCount, li.DownloadLimit)
		if li.DownloadLimit == 0 {
			downloads = fmt.Sprintf("%d used, unlimited", li.DownloadCount)
		}
		expires := templates.Field{Label: "Downloads expire", Key: k("expires_at"), Value: "never"}
		if li.ExpiresAt != nil {
			expires = timeField("Downloads expire", k("expires_at"), *li.ExpiresAt, loc)
		}
		v := templates.LineItemView{
			ID:   li.ID,
			Name: textField("Product", k("product_name"), li.ProductName),
			Fields: []templates.Field{
				textField("Product ID", k("product_id"), strconv.FormatInt(li.ProductID, 10)),
				textField("Line item ID", k("id"), strconv.FormatInt(li.ID, 10)),
				textField("Quantity", k("quantity"), strconv.FormatInt(li.Quantity, 10)),
				moneyField("Price", k("price"), li.Price, cur),
				moneyField("Subtotal", k("subtotal"), li.Subtotal, cur),
				moneyField("Tax", k("tax"), li.Tax, cur),
				moneyField("Discount", k("discount"), li.Discount, cur),
				moneyField("Total", k("total"), li.Total, cur),
				textField("Downloads used", k("downloads"), downloads),
				expires,
				boolField("All keys delivered", k("has_all_keys"), li.HasAllKeys),
			},
		}
		for j, key := range li.ProductKeys {
			v.Keys = append(v.Keys, templates.ProductKey{Key: fmt.Sprintf("line_items.%d.product_keys.%d", i, j), Value: key})
		}
		switch n := len(li.ProductKeys); {
		case n == 0 && li.HasAllKeys:
			v.KeysNote = "This product has no keys."
		case n == 0:
			v.KeysNote = "No keys delivered yet; Refulfill generates them."
		case li.HasAllKeys:
			v.KeysNote = fmt.Sprintf("%d delivered; all keys are in.", n)
		default:
			v.KeysNote = fmt.Sprintf("%d delivered, some still missing; Refulfill generates them.", n)
		}
		d.LineItems = append(d.LineItems, v)
	}

	for i, cp := range p.Coupons {
		k := func(name string) string { return fmt.Sprintf("coupons.%d.%s", i, name) }
		disc := cp.DiscountAmount + " " + cur
		typ := "Money off"
		if cp.DiscountType == shop.DiscountPercent {
			disc, typ = cp.DiscountAmount+"%", "Percent off"
		}
		d.Coupons = append(d.Coupons, templates.CouponView{
			Name: textField("Name", k("name"), cp.Name), Code: textField("Code", k("code"), cp.Code),
			Discount: textField("Discount", k("discount_amount"), disc),
			Type:     textField("Type", k("discount_type"), typ+" ("+cp.DiscountType+")"),
		})
	}
	for i, cf := range p.CustomFields {
		d.CustomFields = append(d.CustomFields, templates.CustomFieldView{
			Label:    textField("Question", fmt.Sprintf("custom_fields.%d.label", i), cf.Label),
			Response: textField("Answer", fmt.Sprintf("custom_fields.%d.response", i), cf.Response),
		})
	}
	for i, tx := range p.Transactions {
		k := func(name string) string { return fmt.Sprintf("transactions.%d.%s", i, name) }
		success := "Failed"
		if tx.IsSuccess {
			success = "Succeeded"
		}
		d.Transactions = append(d.Transactions, templates.TransactionView{
			ID:        textField("Transaction", k("id"), strconv.FormatInt(tx.ID, 10)),
			When:      timeField("Time", k("created_at"), tx.CreatedAt, loc),
			Action:    textField("Action", k("action"), tx.Action),
			Amount:    moneyField("Amount", k("amount"), tx.Amount, tx.Currency),
			Gateway:   textField("Gateway", k("gateway"), tx.Gateway),
			Success:   textField("Result", k("is_success"), success),
			OK:        tx.IsSuccess,
			Reference: monoField(optField("Reference", k("reference"), tx.Reference)),
			Message:   optField("Message", k("message"), tx.Message),
			Updated:   timeField("Updated", k("updated_at"), tx.UpdatedAt, loc),
		})
	}
	return d
}

// timelineView writes the activity entries for people.
func timelineView(entries []shop.TimelineEntry, purchaseID int64, loc *time.Location) templates.Timeline {
	t := templates.Timeline{}
	when := func(at *shop.Time) string { return templates.FormatTime(at.Time, loc) }
	for _, a := range entries {
		e := templates.TimelineEntry{
			When: templates.FormatTime(a.CreatedAt.Time, loc), WhenISO: a.CreatedAt.UTC().Format(time.RFC3339),
			Actor: a.Actor,
		}
		if a.Actor == "system" || a.Actor == "mailer" {
			e.Actor = ""
		}
		switch a.Action {
		case shop.ActionReactivated:
			e.Title = "Reactivated"
			if from, _ := shop.ParsePurchaseStatus(a.FromStatus); from != "" && from != shop.PurchaseActive {
				e.Details = append(e.Details, fmt.Sprintf("Status changed from %s (%s) to Active (ACT).", from.Label(), from))
			}
			e.Details = append(e.Details, "Downloads reset; the e-mail goes to "+a.To+".")
			if a.Refulfill {
				e.Details = append(e.Details, fmt.Sprintf("Refulfilled: %s generated.", plural(a.KeysGenerated, "product key", "product keys")))
			} else {
				e.Details = append(e.Details, "Not refulfilled.")
			}
		case shop.ActionEmailQueued:
			e.Title = "E-mail queued to " + a.To
			if a.Subject != "" {
				e.Details = append(e.Details, "Subject: "+a.Subject)
			}
			switch a.EmailStatus {
			case shop.EmailSent:
				e.Badge, e.Tone = "Sent", "ok"
				if a.SentAt != nil {
					e.Details = append(e.Details, "Sent "+when(a.SentAt)+".")
				}
			case shop.EmailFailed:
				e.Badge, e.Tone = "Failed", "bad"
				e.Details = append(e.Details, fmt.Sprintf("Given up after %s: %s", plural(a.Attempts, "attempt", "attempts"), orDash(a.LastError)))
			case shop.EmailSending:
				e.Badge, e.Tone = "Sending", "wait"
				t.RefreshURL = fmt.Sprintf("/purchases/%d/activity", purchaseID)
			case shop.EmailQueued:
				e.Badge, e.Tone = "Waiting to send", "wait"
				if a.Attempts > 0 && a.NextAttemptAt != nil {
					e.Details = append(e.Details, fmt.Sprintf("%s failed (%s); next try %s.", plural(a.Attempts, "attempt", "attempts"), orDash(a.LastError), when(a.NextAttemptAt)))
				}
				t.RefreshURL = fmt.Sprintf("/purchases/%d/activity", purchaseID)
			default:
				e.Badge, e.Tone = "Queued", "wait"
			}
		case shop.ActionEmailSent:
			e.Title = "E-mail sent to " + a.To
		default:
			e.Title = strings.ToUpper(a.Action[:min(1, len(a.Action))]) + strings.ReplaceAll(a.Action[min(1, len(a.Action)):], "_", " ")
			e.Details = otherDetails(a)
		}
		t.Entries = append(t.Entries, e)
	}
	return t
}

// otherDetails writes the details of an action the timeline has no words of its own
// for: a status change, else each field of its details, else the text as it is.
func otherDetails(a shop.TimelineEntry) []string {
	if a.FromStatus != "" || a.ToStatus != "" {
		return []string{fmt.Sprintf("Status changed from %s to %s.", orDash(a.FromStatus), orDash(a.ToStatus))}
	}
	var fields map[string]any
	if json.Unmarshal([]byte(a.Details), &fields) != nil || fields == nil {
		if a.Details == "" {
			return nil
		}
		return []string{a.Details}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		out = append(out, fmt.Sprintf("%s: %v", strings.ReplaceAll(k, "_", " "), fields[k]))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
