package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"storefront/internal/shop"
	"storefront/templates"
)

// subscriberForm fills the search form with the values of the request.
func subscriberForm(action string, q url.Values, locked map[string]bool) templates.SubscriberFilterForm {
	form := templates.SubscriberFilterForm{Action: action, Email: q.Get("email"), Rest: q.Get("q"), Locked: locked}
	chosen := chosenStatuses(q)
	for _, st := range shop.SubscriptionStatuses {
		form.Statuses = append(form.Statuses, templates.Check{Value: string(st), Label: templates.SubscriptionStatusLabel(string(st)), Checked: chosen[string(st)]})
	}
	return form
}

func subscriberRow(sb *shop.Subscriber, sf *shop.Storefront, now time.Time, loc *time.Location) templates.SubscriberRow {
	row := templates.SubscriberRow{
		ID: sb.ID, URL: fmt.Sprintf("%s/%d", subscribersURL(sf.ID), sb.ID), Email: sb.Username, Storefront: sf.Name,
		Plan: "—", NextPayment: "—",
		Receiving: shop.Entitle(sb.Subscription, now).ReceivingService,
	}
	if sub := sb.Subscription; sub != nil {
		row.Status = string(sub.Status)
		row.Plan = subscriberPlan(sub.Price, sub.Period, sub.Unit, storefrontCurrency(sf))
		if sub.NextPaymentAt != nil {
			row.NextPayment = templates.FormatTime(sub.NextPaymentAt.Time, loc)
			row.NextPaymentISO = sub.NextPaymentAt.UTC().Format(time.RFC3339)
		}
	}
	row.StatusText = templates.SubscriptionStatusLabel(row.Status)
	return row
}

func storefrontCurrency(sf *shop.Storefront) string {
	if sf.Currency == nil {
		return ""
	}
	return *sf.Currency
}

// periodUnitName names a period unit (D, W, M, Y), singular and plural.
func periodUnitName(unit string, n int64) string {
	names := map[string][2]string{"D": {"day", "days"}, "W": {"week", "weeks"}, "M": {"month", "months"}, "Y": {"year", "years"}}
	nm, ok := names[unit]
	if !ok {
		return unit
	}
	if n == 1 {
		return nm[0]
	}
	return nm[1]
}

// subscriberPlan writes a price and its period: "9.99 USD / month", "25.00 / 3 months".
func subscriberPlan(price shop.Money, period int64, unit, currency string) string {
	amount := string(price)
	if currency != "" {
		amount += " " + currency
	}
	if period == 1 {
		return amount + " / " + periodUnitName(unit, 1)
	}
	return fmt.Sprintf("%s / %d %s", amount, period, periodUnitName(unit, period))
}

// subscriberTimeField shows an instant in the account's zone, "—" for null.
func subscriberTimeField(label string, t *shop.Time, loc *time.Location) templates.SubscriberField {
	if t == nil {
		return templates.SubscriberField{Label: label, Value: "—"}
	}
	return templates.SubscriberField{Label: label, Value: templates.FormatTime(t.Time, loc), ISO: t.UTC().Format(time.RFC3339)}
}

// subscriptionFields lists every field of a subscription (docs/API.md#subscription); null
// is "—".
func subscriptionFields(sub *shop.Subscription, currency string, loc *time.Location) []templates.SubscriberField {
	money := func(m *shop.Money) string {
		if m == nil {
			return "—"
		}
		if currency != "" {
			return string(*m) + " " + currency
		}
		return string(*m)
	}
	unit := func(u *string) string {
		if u == nil {
			return "—"
		}
		if name := periodUnitName(*u, 1); name != *u {
			return fmt.Sprintf("%s (%s)", *u, name)
		}
		return *u
	}
	num := func(n *int64) string {
		if n == nil {
			return "—"
		}
		return strconv.FormatInt(*n, 10)
	}
	price, tax, period, u := sub.Price, sub.TaxAmount, sub.Period, sub.Unit
	return []templates.SubscriberField{
		{Label: "Subscription id", Value: strconv.FormatInt(sub.ID, 10)},
		{Label: "Status", Value: string(sub.Status)},
		{Label: "Price", Value: money(&price)},
		{Label: "Period", Value: num(&period)},
		{Label: "Unit", Value: unit(&u)},
		{Label: "Tax amount", Value: money(&tax)},
		{Label: "Trial price", Value: money(sub.TrialPrice)},
		{Label: "Trial period", Value: num(sub.TrialPeriod)},
		{Label: "Trial unit", Value: unit(sub.TrialUnit)},
		{Label: "Trial tax amount", Value: money(sub.TrialTaxAmount)},
		subscriberTimeField("Created", &sub.CreatedAt, loc),
		subscriberTimeField("Updated", &sub.UpdatedAt, loc),
		subscriberTimeField("Started", sub.StartedAt, loc),
		subscriberTimeField("Ended", sub.EndedAt, loc),
		subscriberTimeField("Trial started", sub.TrialStartedAt, loc),
		subscriberTimeField("Last payment", sub.LastPaymentAt, loc),
		subscriberTimeField("Next payment", sub.NextPaymentAt, loc),
	}
}

// entitlementView puts the entitlement decision at now in words.
func entitlementView(sub *shop.Subscription, sf *shop.Storefront, now time.Time, loc *time.Location) templates.EntitlementView {
	e := shop.Entitle(sub, now)
	v := templates.EntitlementView{Receiving: e.ReceivingService, Reason: e.Reason, Headline: "Not receiving service"}
	if e.ReceivingService {
		v.Headline = "Receiving service"
	}
	if e.AccessUntil != nil {
		v.Until = templates.FormatTime(e.AccessUntil.Time, loc)
		v.UntilISO = e.AccessUntil.UTC().Format(time.RFC3339)
	}
	switch e.Reason {
	case shop.ReasonActive:
		v.Why = "The subscription is active and no payment is due."
	case shop.ReasonTrial:
		v.Why = "The subscription is in its trial period."
	case shop.ReasonPastDue:
		v.Why = fmt.Sprintf("A payment is overdue. Service continues for a grace period of %d days after the missed payment; if the payment has not arrived by then, the subscription is closed.", sf.PastDueGraceDays)
		if sub.NextPaymentAt != nil {
			end := sub.NextPaymentAt.AddDate(0, 0, int(sf.PastDueGraceDays))
			v.Why = fmt.Sprintf("A payment is overdue. Service continues during the grace period of %d days, until %s; if the payment has not arrived by then, the subscription is closed.",
				sf.PastDueGraceDays, templates.FormatTime(end, loc))
		}
	case shop.ReasonCanceledUntilTermEnd:
		v.Why = "The subscription was canceled. Service continues until the end of the term already paid for."
	case shop.ReasonCanceledTermEnded:
		if e.AccessUntil != nil {
			v.Why = "The subscription was canceled and the term it paid for has ended."
		} else {
			v.Why = "The subscription was canceled and no paid term is known (it has neither an end nor a next payment time), so no service is left."
		}
	case shop.ReasonClosed:
		v.Why = "The subscription was canceled and closed."
	case shop.ReasonNew:
		v.Why = "The subscription was never activated: the subscriber is checking out or abandoned the sign-up."
	case shop.ReasonNoSubscription:
		v.Why = "This subscriber has no subscription."
	}
	return v
}

// subscriberActivityEntry puts one activity record in words.
func subscriberActivityEntry(a shop.Activity, loc *time.Location) templates.SubscriberActivityEntry {
	e := templates.SubscriberActivityEntry{
		When: templates.FormatTime(a.CreatedAt.Time, loc), WhenISO: a.CreatedAt.UTC().Format(time.RFC3339),
		Actor: a.Actor, Action: strings.ReplaceAll(a.Action, "_", " "), Details: a.Details,
	}
	if a.Action == "closed_past_due" {
		e.Action = "Subscription closed: payment not received"
		var d struct {
			From         string `json:"from"`
			To           string `json:"to"`
			GraceEndedAt *int64 `json:"grace_ended_at"`
		}
		if json.Unmarshal([]byte(a.Details), &d) == nil && d.From != "" && d.To != "" {
			e.Details = fmt.Sprintf("Status changed from %s to %s", d.From, d.To)
			if d.GraceEndedAt != nil {
				e.Details += "; the grace period ended " + templates.FormatTime(time.Unix(*d.GraceEndedAt, 0), loc)
			}
			e.Details += "."
		}
	}
	return e
}
