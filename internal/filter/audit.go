package filter

import (
	"net/url"
	"time"

	"storefront/internal/shop"
)

// AuditParams are the parameters of the audit log: GET /api/v2/audit, the dashboard's
// Account → Audit log page and its CSV.
var AuditParams = []string{"actor", "action", "date_min", "date_max", "cursor", "per_page"}

// Audit reads the parameters of the audit log into a filter for the account, newest
// first. Dates are read relative to now in loc, the account's time zone, as the
// purchases' date_min and date_max are (docs/API.md#dates-in-filters).
func Audit(q url.Values, accountID int64, now time.Time, loc *time.Location) (shop.AuditFilter, error) {
	f := shop.AuditFilter{AccountID: accountID, PerPage: shop.DefaultPerPage}
	v, err := Check(q, AuditParams)
	if err != nil {
		return f, err
	}
	if f.Actor, err = v.text("actor"); err != nil {
		return f, err
	}
	if f.Action, err = v.one("action"); err != nil {
		return f, err
	}
	if f.Action != "" && shop.AuditActionLabel(f.Action) == f.Action {
		return f, shop.ParamErrorf(shop.EInvalid, "action", "action %q is not an action of the audit log; see the list in docs/API.md#audit-log.", clip(f.Action))
	}
	if f.CreatedFrom, f.CreatedBefore, err = v.dates(now, loc); err != nil {
		return f, err
	}
	if f.PerPage, err = v.perPage(); err != nil {
		return f, err
	}
	cursor, err := v.one("cursor")
	if err != nil {
		return f, err
	}
	if cursor != "" {
		c, _, err := DecodeCursor(cursor, KindAudit)
		if err != nil {
			return f, err
		}
		f.After = &c
	}
	return f, nil
}
