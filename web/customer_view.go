package web

import (
	"fmt"
	"strconv"
	"time"

	"storefront/internal/shop"
	"storefront/templates"
)

// customerHeader maps a customer's figures to the header of the page.
func customerHeader(c *shop.CustomerSummary, loc *time.Location) templates.CustomerView {
	v := templates.CustomerView{Email: c.Email, Names: c.Names, Purchases: templates.FormatCount(c.Purchases)}
	if c.FirstPurchaseAt != nil {
		v.First, v.FirstISO = templates.FormatTime(c.FirstPurchaseAt.Time, loc), c.FirstPurchaseAt.UTC().Format(time.RFC3339)
		v.Last, v.LastISO = templates.FormatTime(c.LastPurchaseAt.Time, loc), c.LastPurchaseAt.UTC().Format(time.RFC3339)
	}
	// As the overview writes money: thousands separated.
	amount := func(a shop.CurrencyAmount) string {
		return moneyText(a.Amount, a.Currency) + " · " + plural(int(a.Count), "purchase", "purchases")
	}
	for _, a := range c.Lifetime {
		v.Lifetime = append(v.Lifetime, amount(a))
	}
	for _, a := range c.Refunded {
		v.Refunded = append(v.Refunded, amount(a))
	}
	if c.ToShip > 0 {
		v.ToShip = plural(int(c.ToShip), "purchase", "purchases")
	}
	return v
}

// customerSubscription maps a subscriber record of the address with its entitlement now.
func customerSubscription(sb *shop.Subscriber, storefronts map[int64]string, now time.Time, loc *time.Location) templates.CustomerSubscription {
	e := shop.Entitle(sb.Subscription, now)
	s := templates.CustomerSubscription{
		Storefront: storefronts[sb.StorefrontID], URL: fmt.Sprintf("/storefronts/%d/subscribers/%d", sb.StorefrontID, sb.ID),
		Username: sb.Username, Status: "none", Receiving: e.ReceivingService, Reason: e.Reason,
	}
	if s.Storefront == "" {
		s.Storefront = fmt.Sprintf("Storefront %d", sb.StorefrontID)
	}
	if sb.Subscription != nil {
		s.Status = string(sb.Subscription.Status)
	}
	if e.AccessUntil != nil {
		s.AccessUntil = templates.FormatTime(e.AccessUntil.Time, loc)
	}
	return s
}

// customerActivityRow maps one entry of the activity of a customer's purchases.
func customerActivityRow(a shop.CustomerActivity, loc *time.Location) templates.CustomerActivityRow {
	r := templates.CustomerActivityRow{
		When: templates.FormatTime(a.CreatedAt.Time, loc), WhenISO: a.CreatedAt.UTC().Format(time.RFC3339), Actor: a.Actor,
		PurchaseID: strconv.FormatInt(a.PurchaseID, 10), PurchaseURL: fmt.Sprintf("/purchases/%d", a.PurchaseID), What: a.Action,
	}
	switch a.Action {
	case shop.ActionReactivated:
		r.What = "Reactivated, e-mail to " + a.To
		if a.Refulfill {
			r.What += fmt.Sprintf(", refulfilled (%s)", plural(a.KeysGenerated, "product key", "product keys"))
		}
	case shop.ActionEmailQueued:
		r.What = "E-mail queued to " + a.To
	}
	return r
}

// customerEmailRow maps one e-mail queued to the address.
func customerEmailRow(m shop.CustomerEmail, loc *time.Location) templates.CustomerEmailRow {
	r := templates.CustomerEmailRow{
		Kind:    map[string]string{shop.EmailPurchaseReady: "Purchase ready", shop.EmailWebhookDisabled: "Webhook disabled"}[m.Kind],
		Subject: m.Subject, Queued: templates.FormatTime(m.QueuedAt.Time, loc), QueuedISO: m.QueuedAt.UTC().Format(time.RFC3339),
	}
	if r.Kind == "" {
		r.Kind = "E-mail"
	}
	if m.PurchaseID != 0 {
		r.PurchaseID, r.PurchaseURL = strconv.FormatInt(m.PurchaseID, 10), fmt.Sprintf("/purchases/%d", m.PurchaseID)
	}
	switch m.Status {
	case shop.EmailSent:
		r.Status, r.Tone = "Sent", "ok"
		if m.SentAt != nil {
			r.Detail = "Sent " + templates.FormatTime(m.SentAt.Time, loc) + "."
		}
	case shop.EmailFailed:
		r.Status, r.Tone = "Failed", "bad"
		r.Detail = fmt.Sprintf("Given up after %s: %s", plural(m.Attempts, "attempt", "attempts"), orDash(m.LastError))
	case shop.EmailSending:
		r.Status, r.Tone = "Sending", "wait"
	default:
		r.Status, r.Tone = "Queued", "wait"
		if m.LastError != "" {
			r.Detail = "Last attempt failed: " + m.LastError
		}
	}
	return r
}

// notesView maps notes for a page; onCustomer names the purchase of each purchase note.
func notesView(notes []shop.Note, user *shop.User, action, back string, form templates.NotesView, loc *time.Location, onCustomer bool) templates.NotesView {
	v := templates.NotesView{Body: form.Body, Error: form.Error, Back: back}
	if user != nil && user.CanReactivate() {
		v.Action = action
	}
	for _, n := range notes {
		row := templates.NoteRow{
			ID: strconv.FormatInt(n.ID, 10), Author: n.Author, Body: n.Body,
			When: templates.FormatTime(n.CreatedAt.Time, loc), WhenISO: n.CreatedAt.UTC().Format(time.RFC3339),
		}
		if onCustomer && n.PurchaseID != 0 {
			row.About, row.AboutURL = fmt.Sprintf("purchase #%d", n.PurchaseID), fmt.Sprintf("/purchases/%d", n.PurchaseID)
		}
		if user != nil && user.MayDeleteNote(&n) {
			row.DeleteURL = fmt.Sprintf("/notes/%d/delete", n.ID)
		}
		v.Notes = append(v.Notes, row)
	}
	return v
}
