// Package filter reads the query parameters of the list routes (docs/API.md#routes,
// #reading-parameters, #lists-and-paging) into shop filters. It is pure: url.Values in, a
// filter or a parameter error out, so that the JSON API and the dashboard share one
// grammar.
package filter

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"storefront/internal/search"
	"storefront/internal/shop"
	"storefront/internal/strtotime"
)

// PurchaseParams are the parameters GET /purchases takes.
var PurchaseParams = []string{
	"status", "product_id", "storefront_id", "customer_id", "subscriber_id",
	"customer_email", "customer_first_name", "customer_last_name",
	"date_min", "date_max", "total", "total_op", "ship", "q",
	"order", "per_page", "cursor", "page", "include_count",
}

// SubscriberParams are the parameters GET /storefronts/:id/subscribers takes.
var SubscriberParams = []string{"username", "q", "order", "per_page", "cursor", "page", "include_count"}

// VerifyParams are the parameters of GET /storefronts/:id/subscribers/verify.
var VerifyParams = []string{"username", "id", "subscriber_id"}

// MaxTextLen bounds free-text filter values; longer text cannot match a stored value.
const MaxTextLen = 255

// values is a request's parameters after the common checks: every name known, every
// blank value dropped, every other value as sent.
type values map[string][]string

// Check rejects parameters not in allowed (even when empty) and returns the rest with
// blank values dropped, as docs/API.md#reading-parameters says: an empty field is the
// same as none. A value that is not all blanks is kept as sent, surrounding blanks
// included: the API reads it literally (" 1" is no id). A form that wants to forgive
// stray blanks trims its own fields before it builds the query.
func Check(v url.Values, allowed []string) (values, error) {
	names := make([]string, 0, len(v))
	for name := range v {
		names = append(names, name)
	}
	// Sorted, so that a request with several faults always gets the same answer.
	sort.Strings(names)
	for _, name := range names {
		if !slices.Contains(allowed, name) {
			shown := strings.ToValidUTF8(name, "\uFFFD")
			return nil, shop.ParamErrorf(shop.EUnknownParam, shown, "%q is not a parameter of this endpoint; it takes %s.", shown, strings.Join(allowed, ", "))
		}
	}
	out := values{}
	for _, name := range names {
		for _, s := range v[name] {
			if !utf8.ValidString(s) {
				return nil, shop.ParamErrorf(shop.EInvalid, name, "The value of %s is not valid UTF-8.", name)
			}
			if strings.TrimSpace(s) != "" {
				out[name] = append(out[name], s)
			}
		}
	}
	return out, nil
}

// one returns the single value of a parameter as sent, "" when absent. The same
// parameter given twice with different values is an error: which one was meant is
// unknowable.
func (v values) one(name string) (string, error) {
	vs := v[name]
	if len(vs) == 0 {
		return "", nil
	}
	for _, s := range vs[1:] {
		if s != vs[0] {
			return "", shop.ParamErrorf(shop.EInvalid, name, "%s is given more than once with different values.", name)
		}
	}
	return vs[0], nil
}

// either reads two parameters of which at most one may be given: the name and value
// of the one given, "" for none. Both given is an error of the first, with msg.
func (v values) either(a, b, msg string) (name, value string, err error) {
	for _, n := range []string{a, b} {
		s, err := v.one(n)
		if err != nil {
			return "", "", err
		}
		if s == "" {
			continue
		}
		if name != "" {
			return "", "", shop.ParamErrorf(shop.EInvalid, a, "%s", msg)
		}
		name, value = n, s
	}
	return name, value, nil
}

// flag reads a parameter of 1/0/true/false (ParseBool): nil when it is absent.
func (v values) flag(name string) (*bool, error) {
	s, err := v.one(name)
	if err != nil || s == "" {
		return nil, err
	}
	b, err := ParseBool(name, s)
	if err != nil {
		return nil, err
	}
	return &b, nil
}

// ParseID reads a positive id in plain decimal (docs/API.md#reading-parameters).
func ParseID(name, s string) (int64, error) {
	if s == "" || s[0] < '1' || s[0] > '9' || len(s) > 19 {
		return 0, shop.ParamErrorf(shop.EInvalid, name, "%s must be a positive whole number, not %q.", name, clip(s))
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, shop.ParamErrorf(shop.EInvalid, name, "%s must be a positive whole number, not %q.", name, clip(s))
	}
	return n, nil
}

// dates reads date_min and date_max, free-form (docs/API.md#dates-in-filters), in loc;
// nil for one not given.
func (v values) dates(now time.Time, loc *time.Location) (from, before *time.Time, err error) {
	for _, d := range []struct {
		name string
		dst  **time.Time
	}{{"date_min", &from}, {"date_max", &before}} {
		s, err := v.text(d.name)
		if err != nil {
			return nil, nil, err
		}
		if s == "" {
			continue
		}
		t, err := ParseDate(d.name, s, now, loc)
		if err != nil {
			return nil, nil, err
		}
		*d.dst = &t
	}
	return from, before, nil
}

func (v values) id(name string) (int64, error) {
	s, err := v.one(name)
	if err != nil || s == "" {
		return 0, err
	}
	return ParseID(name, s)
}

// ParseBool reads 1/0/true/false in any letter case.
func ParseBool(name, s string) (bool, error) {
	switch strings.ToLower(s) {
	case "1", "true":
		return true, nil
	case "0", "false":
		return false, nil
	}
	return false, shop.ParamErrorf(shop.EInvalid, name, "%s must be 1, 0, true or false, not %q.", name, clip(s))
}

func (v values) text(name string) (string, error) {
	s, err := v.one(name)
	if err != nil {
		return "", err
	}
	if utf8.RuneCountInString(s) > MaxTextLen {
		return "", shop.ParamErrorf(shop.EInvalid, name, "%s is longer than %d characters.", name, MaxTextLen)
	}
	return s, nil
}

// ParseDate reads free-form date text as PHP's strtotime() does, relative to now in
// loc unless the text names a zone (docs/API.md#dates-in-filters). The text goes to the
// parser as sent, which, like PHP's, passes over white space between and around its words.
func ParseDate(name, s string, now time.Time, loc *time.Location) (time.Time, error) {
	t, err := strtotime.Parse(s, now.In(loc))
	if err != nil {
		return time.Time{}, shop.ParamErrorf(shop.EInvalid, name, "%s: %q is not a date or time that can be read.", name, clip(s))
	}
	return t, nil
}

// Paging is the order and page parameters shared by the lists
// (docs/API.md#lists-and-paging).
type Paging struct {
	Desc         bool
	PerPage      int
	Page         int
	After        *shop.Cursor
	IncludeCount bool
}

// perPage reads per_page (docs/API.md#lists-and-paging): shop.DefaultPerPage when it
// is absent, and when it cannot be read.
func (v values) perPage() (int, error) {
	s, err := v.one("per_page")
	if err != nil || s == "" {
		return shop.DefaultPerPage, err
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > shop.MaxPerPage {
		return shop.DefaultPerPage, shop.ParamErrorf(shop.EInvalid, "per_page", "per_page must be a whole number from 1 to %d, not %q.", shop.MaxPerPage, clip(s))
	}
	return n, nil
}

func (v values) paging(kind byte) (Paging, error) {
	p := Paging{PerPage: shop.DefaultPerPage}
	order, err := v.one("order")
	if err != nil {
		return p, err
	}
	switch strings.ToLower(order) {
	case "", "asc":
	case "desc":
		p.Desc = true
	default:
		return p, shop.ParamErrorf(shop.EInvalid, "order", "order must be asc or desc, not %q.", clip(order))
	}
	if p.PerPage, err = v.perPage(); err != nil {
		return p, err
	}
	name, s, err := v.either("cursor", "page", "Page with cursor or with page, not both.")
	if err != nil {
		return p, err
	}
	switch name {
	case "page":
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1_000_000_000 {
			return p, shop.ParamErrorf(shop.EInvalid, "page", "page must be a whole number from 1, not %q.", clip(s))
		}
		p.Page = n
	case "cursor":
		c, desc, err := DecodeCursor(s, kind)
		if err != nil {
			return p, err
		}
		if desc != p.Desc {
			return p, shop.ParamErrorf(shop.EInvalid, "cursor", "This cursor belongs to a list in the other order; keep the order parameter of the request that gave it.")
		}
		p.After = &c
	}
	count, err := v.flag("include_count")
	if err != nil {
		return p, err
	}
	p.IncludeCount = count != nil && *count
	// A request for the first page by number is counted as DPD clients expect: they
	// read the size of the whole list from that page's Dpd-Collection-Count header. Any
	// other page is counted only with include_count, since counting a large set is
	// costly.
	p.IncludeCount = p.IncludeCount || p.Page == 1
	return p, nil
}

// cursorKey authenticates cursors, so that a cursor not issued by us is recognised. It
// is not a secret: a cursor only names a position in a list the caller may read anyway.
var cursorKey = []byte("storefront cursor v1")

// Cursor kinds: a purchase cursor is no subscriber cursor.
const (
	KindPurchase   = 'p'
	KindSubscriber = 's'
	KindAudit      = 'a'
)

// EncodeCursor writes an opaque cursor for the position c in a list of the given kind
// and order.
func EncodeCursor(c shop.Cursor, kind byte, desc bool) string {
	b := make([]byte, 0, 32)
	b = append(b, 1, kind)
	if desc {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(c.CreatedAt.Unix()))
	b = binary.BigEndian.AppendUint64(b, uint64(c.ID))
	mac := hmac.New(sha256.New, cursorKey)
	mac.Write(b)
	b = append(b, mac.Sum(nil)[:8]...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a cursor made by EncodeCursor for a list of the given kind.
func DecodeCursor(s string, kind byte) (shop.Cursor, bool, error) {
	bad := shop.ParamErrorf(shop.EInvalid, "cursor", "The cursor was not issued by this service; take it from the Link header of the previous page.")
	b, err := base64.RawURLEncoding.DecodeString(s)
	// The decoder passes over line breaks; a cursor is only ever the exact text
	// EncodeCursor wrote.
	if err != nil || len(b) != 27 || b[0] != 1 || b[1] != kind || b[2] > 1 || base64.RawURLEncoding.EncodeToString(b) != s {
		return shop.Cursor{}, false, bad
	}
	mac := hmac.New(sha256.New, cursorKey)
	mac.Write(b[:19])
	if !hmac.Equal(mac.Sum(nil)[:8], b[19:]) {
		return shop.Cursor{}, false, bad
	}
	at := int64(binary.BigEndian.Uint64(b[3:11]))
	id := int64(binary.BigEndian.Uint64(b[11:19]))
	if id <= 0 {
		return shop.Cursor{}, false, bad
	}
	return shop.Cursor{CreatedAt: time.Unix(at, 0).UTC(), ID: id}, b[2] == 1, nil
}

// Purchases reads the parameters of GET /purchases into a filter for the account.
// Dates are read relative to now in loc, the account's time zone.
func Purchases(q url.Values, accountID int64, now time.Time, loc *time.Location) (shop.PurchaseFilter, error) {
	f, _, err := PurchaseSearch(q, accountID, now, loc)
	return f, err
}

// PurchaseSearch reads the parameters of GET /purchases as Purchases does, and tells
// what its search (q) meant.
func PurchaseSearch(q url.Values, accountID int64, now time.Time, loc *time.Location) (shop.PurchaseFilter, Search, error) {
	f, err := purchases(q, accountID, now, loc)
	if err != nil {
		return f, Search{}, err
	}
	v, _ := Check(url.Values{"q": q["q"]}, []string{"q"})
	r, s, err := readSearch(v, search.Purchases, now, loc)
	if err != nil || r == nil {
		return f, s, err
	}
	f, err = r.ApplyPurchases(f)
	return f, s, err
}

func purchases(q url.Values, accountID int64, now time.Time, loc *time.Location) (shop.PurchaseFilter, error) {
	f := shop.PurchaseFilter{AccountID: accountID}
	v, err := Check(q, PurchaseParams)
	if err != nil {
		return f, err
	}
	seen := map[shop.PurchaseStatus]bool{}
	for _, s := range v["status"] {
		for _, part := range strings.Split(s, ",") {
			// An empty item ("ACT," or "ACT,,RFD") names nothing; an item with blanks
			// around a code ("ACT, RFD") is no code.
			if strings.TrimSpace(part) == "" {
				continue
			}
			st, ok := shop.ParsePurchaseStatus(part)
			if !ok || string(st) != strings.ToUpper(part) {
				return f, shop.ParamErrorf(shop.EInvalid, "status", "%q is not a purchase status; use ACT, PND, RFD, ERR, CAN or HLD.", clip(part))
			}
			if !seen[st] {
				seen[st] = true
				f.Statuses = append(f.Statuses, st)
			}
		}
	}
	for _, idp := range []struct {
		name string
		dst  *int64
	}{{"product_id", &f.ProductID}, {"storefront_id", &f.StorefrontID}, {"customer_id", &f.CustomerID}, {"subscriber_id", &f.SubscriberID}} {
		if *idp.dst, err = v.id(idp.name); err != nil {
			return f, err
		}
	}
	if f.EmailPrefix, err = v.text("customer_email"); err != nil {
		return f, err
	}
	if f.FirstPrefix, err = v.text("customer_first_name"); err != nil {
		return f, err
	}
	if f.LastPrefix, err = v.text("customer_last_name"); err != nil {
		return f, err
	}
	if f.CreatedFrom, f.CreatedBefore, err = v.dates(now, loc); err != nil {
		return f, err
	}
	total, err := v.one("total")
	if err != nil {
		return f, err
	}
	op, err := v.one("total_op")
	if err != nil {
		return f, err
	}
	if total != "" {
		if !shop.IsDecimal(total) {
			return f, shop.ParamErrorf(shop.EInvalid, "total", "total must be a decimal number such as 10 or 10.5, not %q.", clip(total))
		}
		f.Total, f.TotalOp = total, shop.TotalEq
	}
	if op != "" {
		switch o := shop.TotalOp(strings.ToLower(op)); o {
		case shop.TotalEq, shop.TotalNe, shop.TotalGt, shop.TotalLt:
			f.TotalOp = o
		default:
			return f, shop.ParamErrorf(shop.EInvalid, "total_op", "total_op must be eq, ne, gt or lt, not %q.", clip(op))
		}
		if total == "" {
			return f, shop.ParamErrorf(shop.EInvalid, "total_op", "total_op needs a total to compare with.")
		}
	}
	if f.Unshipped, err = v.flag("ship"); err != nil {
		return f, err
	}
	p, err := v.paging(KindPurchase)
	if err != nil {
		return f, err
	}
	f.Desc, f.PerPage, f.Page, f.After, f.IncludeCount = p.Desc, p.PerPage, p.Page, p.After, p.IncludeCount
	return f, nil
}

// Subscribers reads the parameters of GET /storefronts/:id/subscribers. The dates of
// its search (q) are read relative to now in loc, the account's time zone.
func Subscribers(q url.Values, accountID, storefrontID int64, now time.Time, loc *time.Location) (shop.SubscriberFilter, error) {
	f, _, err := SubscribersSearch(q, accountID, storefrontID, now, loc)
	return f, err
}

// SubscribersSearch reads the parameters of GET /storefronts/:id/subscribers as
// Subscribers does, and tells what its search (q) meant.
func SubscribersSearch(q url.Values, accountID, storefrontID int64, now time.Time, loc *time.Location) (shop.SubscriberFilter, Search, error) {
	f := shop.SubscriberFilter{AccountID: accountID, StorefrontID: storefrontID}
	v, err := Check(q, SubscriberParams)
	if err != nil {
		return f, Search{}, err
	}
	if f.Username, err = v.text("username"); err != nil {
		return f, Search{}, err
	}
	p, err := v.paging(KindSubscriber)
	if err != nil {
		return f, Search{}, err
	}
	f.Desc, f.PerPage, f.Page, f.After, f.IncludeCount = p.Desc, p.PerPage, p.Page, p.After, p.IncludeCount
	r, s, err := readSearch(v, search.Subscribers, now, loc)
	if err != nil || r == nil {
		return f, s, err
	}
	f, err = r.ApplySubscribers(f)
	return f, s, err
}

// Search is what a request's search (q, docs/SEARCH.md) meant, for the answer's
// headers and cache key; the zero value when the request has none.
type Search struct {
	// Query is the search in canonical form (search.Query.String), "" without one.
	Query string
	// Dates names the instants its dates resolved to (search.Resolved.Header), ""
	// when it has none.
	Dates string
	// Key identifies the filter the search made, for a cache: the canonical form and
	// every resolved instant to the nanosecond.
	Key string
}

// Header names of the answer to a request with a search.
const (
	HeaderQuery = "Storefront-Query"
	HeaderDates = search.HeaderDates
)

// HeaderValue is the Storefront-Query header's value: the canonical form with every
// byte that is not printable ASCII, and "%", percent-encoded (%XX, UTF-8), so that a
// query with accents or control characters travels intact in an HTTP header.
func (s Search) HeaderValue() string {
	var b strings.Builder
	for i := 0; i < len(s.Query); i++ {
		c := s.Query[i]
		if c < 0x20 || c >= 0x7f || c == '%' {
			b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)|0x100, 16)[1:]))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// readSearch reads the q parameter: nil without one (blank is none), else the query
// resolved at now in loc. Its text is read as sent, blanks included.
func readSearch(v values, kind search.Kind, now time.Time, loc *time.Location) (*search.Resolved, Search, error) {
	text, err := v.one("q")
	if err != nil || text == "" {
		return nil, Search{}, err
	}
	query, err := search.Parse(kind, text)
	if err != nil {
		return nil, Search{}, err
	}
	r, err := query.Resolve(now, loc)
	if err != nil {
		return nil, Search{}, err
	}
	s := Search{Query: query.String(), Dates: r.Header()}
	var key strings.Builder
	key.WriteString(s.Query)
	for _, d := range r.Dates {
		fmt.Fprintf(&key, "\x00%d.%09d/%d.%09d", d.From.Unix(), d.From.Nanosecond(), d.To.Unix(), d.To.Nanosecond())
	}
	s.Key = key.String()
	return r, s, nil
}

// VerifyQuery is who verify asks about: by username, by id, or both
// (docs/API.md#get-apiv2storefrontsstorefront_idsubscribersverify).
type VerifyQuery struct {
	Username string
	ID       int64
}

// Verify reads the parameters of the verify route.
func Verify(q url.Values) (VerifyQuery, error) {
	var vq VerifyQuery
	v, err := Check(q, VerifyParams)
	if err != nil {
		return vq, err
	}
	if vq.Username, err = v.text("username"); err != nil {
		return vq, err
	}
	// id and subscriber_id are two names of the subscriber's id.
	for _, name := range []string{"id", "subscriber_id"} {
		id, err := v.id(name)
		if err != nil {
			return vq, err
		}
		if id != 0 && vq.ID != 0 && id != vq.ID {
			return vq, shop.ParamErrorf(shop.EInvalid, "subscriber_id", "id and subscriber_id name different subscribers; give one.")
		}
		vq.ID = max(vq.ID, id)
	}
	if vq.Username == "" && vq.ID == 0 {
		return vq, shop.ParamErrorf(shop.EMissing, "username", "Give the subscriber's username or id.")
	}
	return vq, nil
}

// clip shortens a value quoted back in an error message.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 64 {
		return s
	}
	r := []rune(s)
	return string(r[:64]) + "…"
}
