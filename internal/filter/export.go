package filter

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"storefront/internal/shop"
)

// Rows of a purchase export: one per purchase, or one per line item.
const (
	RowsPurchases = "purchases"
	RowsLineItems = "line_items"
)

// pagingParams are the list parameters an export refuses: it answers every match.
var pagingParams = []string{"cursor", "include_count", "page", "per_page"}

// PurchaseExportParams are the parameters GET /purchases.csv takes: the filters of
// GET /purchases, order, and rows.
var PurchaseExportParams = append(withoutPaging(PurchaseParams), "rows")

// SubscriberExportParams are the parameters GET /storefronts/:id/subscribers.csv takes.
var SubscriberExportParams = withoutPaging(SubscriberParams)

func withoutPaging(params []string) []string {
	var out []string
	for _, p := range params {
		if !slices.Contains(pagingParams, p) {
			out = append(out, p)
		}
	}
	return out
}

// exportCheck refuses unknown parameters (listing what the export takes) and the
// paging parameters of the lists, even blank: an export is every matching row.
func exportCheck(q url.Values, allowed []string) error {
	known := append(slices.Clone(allowed), pagingParams...)
	if _, err := Check(q, known); err != nil {
		if shop.ErrorCode(err) != shop.EUnknownParam {
			return err
		}
		return shop.ParamErrorf(shop.EUnknownParam, shop.ErrorParam(err), "%q is not a parameter of this export; it takes %s.", shop.ErrorParam(err), strings.Join(allowed, ", "))
	}
	for _, p := range pagingParams {
		if _, ok := q[p]; ok {
			return shop.ParamErrorf(shop.EInvalid, p, "An export answers every matching row in one file: %s does not apply to it.", p)
		}
	}
	return nil
}

// PurchaseExport reads the parameters of GET /purchases.csv: the filter, read as
// GET /purchases reads it, and which rows the file holds (RowsPurchases or
// RowsLineItems).
func PurchaseExport(q url.Values, accountID int64, now time.Time, loc *time.Location) (shop.PurchaseFilter, string, error) {
	f, rows, _, err := PurchaseExportSearch(q, accountID, now, loc)
	return f, rows, err
}

// PurchaseExportSearch reads the parameters of GET /purchases.csv as PurchaseExport
// does, and tells what its search (q) meant.
func PurchaseExportSearch(q url.Values, accountID int64, now time.Time, loc *time.Location) (shop.PurchaseFilter, string, Search, error) {
	if err := exportCheck(q, PurchaseExportParams); err != nil {
		return shop.PurchaseFilter{AccountID: accountID}, "", Search{}, err
	}
	v, _ := Check(url.Values{"rows": q["rows"]}, []string{"rows"})
	s, err := v.one("rows")
	if err != nil {
		return shop.PurchaseFilter{AccountID: accountID}, "", Search{}, err
	}
	rows := RowsPurchases
	switch strings.ToLower(s) {
	case "", RowsPurchases:
	case RowsLineItems:
		rows = RowsLineItems
	default:
		return shop.PurchaseFilter{AccountID: accountID}, "", Search{}, shop.ParamErrorf(shop.EInvalid, "rows", "rows must be purchases or line_items, not %q.", clip(s))
	}
	rest := url.Values{}
	for k, vs := range q {
		if k != "rows" {
			rest[k] = vs
		}
	}
	f, sr, err := PurchaseSearch(rest, accountID, now, loc)
	return f, rows, sr, err
}

// SubscriberExport reads the parameters of GET /storefronts/:id/subscribers.csv, the
// dates of its search (q) relative to now in loc.
func SubscriberExport(q url.Values, accountID, storefrontID int64, now time.Time, loc *time.Location) (shop.SubscriberFilter, error) {
	f, _, err := SubscriberExportSearch(q, accountID, storefrontID, now, loc)
	return f, err
}

// SubscriberExportSearch reads the parameters of GET
// /storefronts/:id/subscribers.csv as SubscriberExport does, and tells what its
// search (q) meant.
func SubscriberExportSearch(q url.Values, accountID, storefrontID int64, now time.Time, loc *time.Location) (shop.SubscriberFilter, Search, error) {
	if err := exportCheck(q, SubscriberExportParams); err != nil {
		return shop.SubscriberFilter{AccountID: accountID, StorefrontID: storefrontID}, Search{}, err
	}
	return SubscribersSearch(q, accountID, storefrontID, now, loc)
}
