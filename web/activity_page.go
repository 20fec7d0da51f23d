package web

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// activityPageSize is how many entries the account's activity page shows.
const activityPageSize = 100

// exportActivity is the Details of an export's entry in the account's activity:
// recordExport writes it, the activity page reads it. The fields stand in the order of
// their names, the order the entries have always had them in.
type exportActivity struct {
	Complete     bool   `json:"complete"`
	Filters      string `json:"filters"`
	Rows         int64  `json:"rows"`
	StorefrontID int64  `json:"storefront_id,omitempty"`
	What         string `json:"what"`
}

// activityPage shows the account's latest exports: who, what, with which filters, how
// many rows.
func (s *Server) activityPage(c *gin.Context) error {
	acct := currentAccount(c)
	v := templates.ActivityView{Chrome: s.chrome(c, "Account activity", "account")}
	if s.Activity != nil {
		acts, err := s.Activity.FindAccountActivity(c.Request.Context(), acct.ID, activityPageSize)
		if err != nil {
			return err
		}
		loc := s.location(acct.Timezone)
		for _, a := range acts {
			v.Rows = append(v.Rows, activityRow(a, loc))
		}
	}
	return render(c, templates.Activity(v))
}

func activityRow(a shop.Activity, loc *time.Location) templates.ActivityRow {
	row := templates.ActivityRow{When: templates.FormatTime(a.CreatedAt.Time, loc), WhenISO: a.CreatedAt.UTC().Format(time.RFC3339), Actor: a.Actor, What: a.Action}
	var d exportActivity
	if a.Action == shop.ActionExport && json.Unmarshal([]byte(a.Details), &d) == nil {
		row.What = map[string]string{"purchases": "Purchases CSV", "line_items": "Line items CSV", "subscribers": "Subscribers CSV"}[d.What]
		switch {
		case d.StorefrontID != 0:
			row.What += fmt.Sprintf(" (storefront %d)", d.StorefrontID)
		case d.What == "subscribers":
			row.What += " (every storefront)"
		}
		row.Filters = d.Filters
		if row.Filters == "" {
			row.Filters = "none"
		}
		row.Rows = templates.FormatCount(d.Rows)
		row.Incomplete = !d.Complete
	}
	var n struct {
		Customer   string `json:"customer"`
		PurchaseID int64  `json:"purchase_id"`
		Body       string `json:"body"`
	}
	if (a.Action == shop.ActionNoteAdded || a.Action == shop.ActionNoteDeleted) && json.Unmarshal([]byte(a.Details), &n) == nil {
		row.What = map[string]string{shop.ActionNoteAdded: "Note added on ", shop.ActionNoteDeleted: "Note deleted from "}[a.Action]
		if n.Customer != "" {
			row.What += n.Customer
			row.URL = customerURL(n.Customer) + "#notes"
		} else {
			row.What += fmt.Sprintf("purchase #%d", n.PurchaseID)
			row.URL = fmt.Sprintf("/purchases/%d#notes", n.PurchaseID)
		}
		row.Filters, row.Rows = n.Body, "—"
	}
	return row
}
