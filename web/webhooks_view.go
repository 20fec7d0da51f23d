package web

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"storefront/internal/shop"
	"storefront/templates"
)

// webhookRow is an endpoint as the Webhooks pages show it.
func webhookRow(e *shop.WebhookEndpoint, loc *time.Location) templates.WebhookRow {
	base := fmt.Sprintf("/webhooks/%d", e.ID)
	r := templates.WebhookRow{
		ID: e.ID, URL: e.URL, Enabled: e.Enabled, Status: "Enabled", Events: "All events",
		DetailURL: base, ToggleURL: base + "/disable", ToggleLabel: "Disable",
		RotateURL: base + "/rotate", TestURL: base + "/test", DeleteURL: base + "/delete",
	}
	if len(e.EventTypes) > 0 {
		r.Events = strings.Join(e.EventTypes, ", ")
	}
	if !e.Enabled {
		r.Status, r.ToggleURL, r.ToggleLabel = "Disabled", base+"/enable", "Enable"
		if e.DisabledReason != "" {
			r.Status = "Disabled: " + e.DisabledReason
		}
	}
	if e.Rotating && e.PreviousSecretUntil != nil {
		r.Rotating = "The previous secret also signs until " + templates.FormatTime(e.PreviousSecretUntil.Time, loc) + "."
	}
	return r
}

// webhookDeliveryRows are an endpoint's deliveries as its page shows them, each with
// its attempts.
func webhookDeliveryRows(endpointID int64, ds []*shop.WebhookDelivery, loc *time.Location) []templates.WebhookDeliveryRow {
	var out []templates.WebhookDeliveryRow
	for _, d := range ds {
		r := templates.WebhookDeliveryRow{
			ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, Attempts: d.Attempts,
			LastStatus: "—", Duration: "—", Next: "—", Body: d.Body,
			Created: templates.FormatTime(d.CreatedAt.Time, loc), CreatedISO: d.CreatedAt.UTC().Format(time.RFC3339),
			ResendURL: fmt.Sprintf("/webhooks/%d/deliveries/%d/resend", endpointID, d.ID),
		}
		if d.LastStatus != nil {
			r.LastStatus = strconv.Itoa(*d.LastStatus)
		}
		if d.NextAttemptAt != nil {
			r.Next, r.NextISO = templates.FormatTime(d.NextAttemptAt.Time, loc), d.NextAttemptAt.UTC().Format(time.RFC3339)
		}
		if len(d.Log) > 0 {
			r.Duration = d.Log[0].Duration.Round(time.Millisecond).String()
		}
		for _, a := range d.Log {
			row := templates.WebhookAttemptRow{
				Attempt: a.Attempt, Started: templates.FormatTime(a.StartedAt, loc), StartedISO: a.StartedAt.UTC().Format(time.RFC3339),
				Duration: a.Duration.Round(time.Millisecond).String(), Status: "no response", Error: a.Error,
				RequestHeaders: a.RequestHeaders, ResponseBody: a.ResponseBody,
			}
			if a.StatusCode != nil {
				row.Status = "HTTP " + strconv.Itoa(*a.StatusCode)
			}
			r.Log = append(r.Log, row)
		}
		out = append(out, r)
	}
	return out
}
