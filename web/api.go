package web

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
)

// apiHandler is an API handler that returns its error for one adapter to answer.
type apiHandler func(c *gin.Context) error

func (s *Server) api(h apiHandler) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			s.writeAPIError(c, err)
		}
	}
}

// apiRoutes registers the routes of the JSON API (docs/API.md#routes).
func (s *Server) apiRoutes(r *gin.Engine) {
	g := r.Group("/api/v2")
	g.GET("", s.api(s.ping))
	g.GET("/", s.api(s.ping))
	g.GET("/openapi.json", s.api(s.openAPI))
	g.GET("/purchases", s.api(s.listPurchases))
	g.GET("/purchases.csv", s.api(s.exportPurchasesAPI))
	g.GET("/purchases/:id", s.api(s.getPurchase))
	g.POST("/purchases/:id/reactivate", s.api(s.reactivate))
	g.GET("/storefronts/:storefront_id/subscribers", s.api(s.listSubscribers))
	g.GET("/storefronts/:storefront_id/subscribers.csv", s.api(s.exportSubscribersAPI))
	g.GET("/storefronts/:storefront_id/subscribers/verify", s.api(s.verifySubscriber))
	g.GET("/storefronts/:storefront_id/subscribers/:id", s.api(s.getSubscriber))
}

// noParams rejects any query parameter on a route that takes none.
func noParams(c *gin.Context) error {
	_, err := filter.Check(c.Request.URL.Query(), nil)
	return err
}

func (s *Server) ping(c *gin.Context) error {
	if err := noParams(c); err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, gin.H{"status": "SUCCESS"})
	return nil
}

// pathID reads a path id (docs/API.md#reading-parameters): malformed is 400, well-formed
// is looked up (404 if unknown).
func pathID(c *gin.Context, name string) (int64, error) {
	return filter.ParseID(name, c.Param(name))
}

// location returns the account's time zone, UTC when its name cannot be loaded.
func (s *Server) location(name string) *time.Location {
	if v, ok := s.zones.Load(name); ok {
		return v.(*time.Location)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		loc = time.UTC
	}
	s.zones.Store(name, loc)
	return loc
}

func (s *Server) listPurchases(c *gin.Context) error {
	key := apiKey(c)
	f, err := filter.Purchases(c.Request.URL.Query(), key.AccountID, s.now(), s.location(key.Timezone))
	if err != nil {
		return err
	}
	f.IncludeCount = f.IncludeCount || countsAsDPD(f.Page)
	page, err := s.Purchases.FindPurchaseDocuments(c.Request.Context(), f)
	if err != nil {
		return err
	}
	if page.Next != nil {
		s.linkNext(c, filter.EncodeCursor(*page.Next, filter.KindPurchase, f.Desc))
	}
	setCount(c, page.Total)
	writeDocuments(c, page.Documents)
	return nil
}

// countsAsDPD reports whether a list request is counted because it asks, as DPD
// clients do, for the first page by number: they read the size of the whole list from
// that page's Dpd-Collection-Count header. Any other page is counted only with
// include_count, since counting a large set is costly.
func countsAsDPD(page int) bool { return page == 1 }

// setCount sends the size of the whole filtered list, when it was counted (total >= 0),
// under both names clients read: X-Total-Count and DPD's Dpd-Collection-Count.
func setCount(c *gin.Context, total int64) {
	if total < 0 {
		return
	}
	n := strconv.FormatInt(total, 10)
	c.Header("X-Total-Count", n)
	c.Header("Dpd-Collection-Count", n)
}

// linkNext sets the Link header (RFC 8288) to the next page: the same request with the
// cursor in place of any page or cursor it had.
func (s *Server) linkNext(c *gin.Context, cursor string) {
	q := c.Request.URL.Query()
	q.Del("page")
	q.Set("cursor", cursor)
	u := s.BaseURL + c.Request.URL.Path + "?" + q.Encode()
	c.Header("Link", "<"+u+`>; rel="next"`)
}

func (s *Server) getPurchase(c *gin.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := noParams(c); err != nil {
		return err
	}
	doc, err := s.Purchases.FindPurchaseDocument(c.Request.Context(), apiKey(c).AccountID, id)
	if err != nil {
		return err
	}
	c.Data(http.StatusOK, jsonType, append(doc, '\n'))
	return nil
}

func (s *Server) listSubscribers(c *gin.Context) error {
	key := apiKey(c)
	sf, err := pathID(c, "storefront_id")
	if err != nil {
		return err
	}
	f, err := filter.Subscribers(c.Request.URL.Query(), key.AccountID, sf)
	if err != nil {
		return err
	}
	f.IncludeCount = f.IncludeCount || countsAsDPD(f.Page)
	page, err := s.Subscribers.FindSubscribers(c.Request.Context(), f)
	if err != nil {
		return err
	}
	if page.Next != nil {
		s.linkNext(c, filter.EncodeCursor(*page.Next, filter.KindSubscriber, f.Desc))
	}
	setCount(c, page.Total)
	writeJSON(c, http.StatusOK, page.Subscribers)
	return nil
}

func (s *Server) getSubscriber(c *gin.Context) error {
	sf, err := pathID(c, "storefront_id")
	if err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := noParams(c); err != nil {
		return err
	}
	sub, err := s.Subscribers.FindSubscriberByID(c.Request.Context(), apiKey(c).AccountID, sf, id)
	if err != nil {
		return err
	}
	writeJSON(c, http.StatusOK, sub)
	return nil
}

// verifyBody is the answer of verify (docs/API.md#verify).
type verifyBody struct {
	Status           *shop.SubscriptionStatus `json:"status"`
	ID               int64                    `json:"id"`
	Username         string                   `json:"username"`
	ReceivingService bool                     `json:"receiving_service"`
	AccessUntil      *shop.Time               `json:"access_until"`
	Reason           string                   `json:"reason"`
}

func (s *Server) verifySubscriber(c *gin.Context) error {
	key := apiKey(c)
	sf, err := pathID(c, "storefront_id")
	if err != nil {
		return err
	}
	vq, err := filter.Verify(c.Request.URL.Query())
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	var sub *shop.Subscriber
	if vq.ID != 0 {
		sub, err = s.Subscribers.FindSubscriberByID(ctx, key.AccountID, sf, vq.ID)
		if err != nil {
			return err
		}
		if vq.Username != "" {
			// Both given: they must name the same subscriber.
			page, err := s.Subscribers.FindSubscribers(ctx, shop.SubscriberFilter{AccountID: key.AccountID, StorefrontID: sf, Username: vq.Username, PerPage: shop.MaxPerPage})
			if err != nil {
				return err
			}
			same := false
			for _, o := range page.Subscribers {
				same = same || o.ID == sub.ID
			}
			if !same {
				return shop.Errorf(shop.ENotFound, "No subscriber has both id %d and username %q.", vq.ID, vq.Username)
			}
		}
	} else {
		page, err := s.Subscribers.FindSubscribers(ctx, shop.SubscriberFilter{AccountID: key.AccountID, StorefrontID: sf, Username: vq.Username, PerPage: 1})
		if err != nil {
			return err
		}
		if len(page.Subscribers) == 0 {
			return shop.Errorf(shop.ENotFound, "No subscriber with username %q.", vq.Username)
		}
		sub = page.Subscribers[0]
	}
	ent := shop.Entitle(sub.Subscription, s.now())
	body := verifyBody{ID: sub.ID, Username: sub.Username, ReceivingService: ent.ReceivingService, AccessUntil: ent.AccessUntil, Reason: ent.Reason}
	if sub.Subscription != nil {
		st := sub.Subscription.Status
		body.Status = &st
	}
	writeJSON(c, http.StatusOK, body)
	return nil
}

// reactivateParams are the parameters of reactivate
// (docs/API.md#post-apiv2purchasesidreactivate).
var reactivateParams = []string{"customer_email", "refulfill"}

func (s *Server) reactivate(c *gin.Context) error {
	if err := requireWrite(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	key := apiKey(c)
	// An unknown purchase is a 404 before its parameters are looked at (the documented
	// order of checks).
	if _, err := s.Purchases.FindPurchaseByID(c.Request.Context(), key.AccountID, id); err != nil {
		return err
	}
	email, refulfill, err := readReactivateParams(c.Request)
	if err != nil {
		return err
	}
	idem, err := idempotencyKey(c.Request)
	if err != nil {
		return err
	}
	actor := "API key " + strconv.FormatInt(key.ID, 10)
	if key.Name != "" {
		actor += " (" + key.Name + ")"
	}
	_, err = s.Writer.Reactivate(c.Request.Context(), shop.ReactivateRequest{
		AccountID: key.AccountID, PurchaseID: id, CustomerEmail: email, Refulfill: refulfill, Actor: actor, IdempotencyKey: idem,
	})
	if err != nil {
		return err
	}
	if s.OnEmailQueued != nil {
		s.OnEmailQueued()
	}
	writeJSON(c, http.StatusOK, gin.H{"status": "OK"})
	return nil
}

// idempotencyKey reads the Idempotency-Key header: 1 to 255 printable ASCII characters;
// empty is the same as none.
func idempotencyKey(r *http.Request) (string, error) {
	vs := r.Header.Values("Idempotency-Key")
	if len(vs) > 1 {
		return "", shop.ParamErrorf(shop.EInvalid, "Idempotency-Key", "Send one Idempotency-Key header.")
	}
	if len(vs) == 0 || vs[0] == "" {
		return "", nil
	}
	k := vs[0]
	if len(k) > 255 {
		return "", shop.ParamErrorf(shop.EInvalid, "Idempotency-Key", "The Idempotency-Key is longer than 255 characters.")
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return "", shop.ParamErrorf(shop.EInvalid, "Idempotency-Key", "The Idempotency-Key must be printable ASCII.")
		}
	}
	return k, nil
}

// readReactivateParams reads customer_email and refulfill from a form-encoded or JSON
// body, or from the query string. Unknown parameters are refused. Values are read as
// sent; a blank one is the same as none.
func readReactivateParams(r *http.Request) (email string, refulfill bool, err error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if isMaxBytes(err) {
			return "", false, &statusError{shop.Errorf(shop.ETooLarge, "The request body is larger than %d bytes.", MaxBodyBytes), http.StatusRequestEntityTooLarge}
		}
		return "", false, shop.Errorf(shop.EInvalid, "The request body could not be read.")
	}
	params := map[string]any{}
	// Query parameters count as form fields.
	for name, vs := range r.URL.Query() {
		params[name] = vs
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
	case ct == "application/json" || (ct == "" && trimmed[0] == '{'):
		var m map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		if err := dec.Decode(&m); err != nil || dec.More() || m == nil {
			return "", false, shop.Errorf(shop.EInvalid, "The body is not a JSON object.")
		}
		for k, v := range m {
			if _, dup := params[k]; dup {
				return "", false, shop.ParamErrorf(shop.EInvalid, k, "%s is given both in the query string and in the body.", k)
			}
			params[k] = v
		}
	case ct == "application/x-www-form-urlencoded" || ct == "" || ct == "text/plain":
		// The body as sent: a line break after a value is part of the value.
		form, err := url.ParseQuery(string(body))
		if err != nil {
			return "", false, shop.Errorf(shop.EInvalid, "The body is not form-encoded.")
		}
		for k, vs := range form {
			if _, dup := params[k]; dup {
				return "", false, shop.ParamErrorf(shop.EInvalid, k, "%s is given both in the query string and in the body.", k)
			}
			params[k] = vs
		}
	default:
		return "", false, shop.Errorf(shop.EInvalid, "Send the parameters form-encoded or as JSON, not as %s.", ct)
	}
	for name := range params {
		known := false
		for _, p := range reactivateParams {
			known = known || p == name
		}
		if !known {
			return "", false, shop.ParamErrorf(shop.EUnknownParam, strings.ToValidUTF8(name, "\uFFFD"), "%q is not a parameter of reactivate; it takes customer_email and refulfill.", strings.ToValidUTF8(name, "\uFFFD"))
		}
	}
	if v, ok := params["customer_email"]; ok {
		if email, err = paramString("customer_email", v); err != nil {
			return "", false, err
		}
		// Read literally (docs/API.md#reading-parameters): "ann@example.com\n" is no address, and is refused
		// rather than trimmed into one. A blank value is the same as none.
		if strings.TrimSpace(email) == "" {
			email = ""
		}
		if email != "" && !shop.ValidEmail(email) {
			return "", false, shop.ParamErrorf(shop.EInvalid, "customer_email", "customer_email must be one e-mail address such as ann@example.com.")
		}
	}
	if v, ok := params["refulfill"]; ok {
		if refulfill, err = paramBool("refulfill", v); err != nil {
			return "", false, err
		}
	}
	return email, refulfill, nil
}

// paramString reads a text parameter from a form ([]string) or JSON (raw) value.
func paramString(name string, v any) (string, error) {
	switch v := v.(type) {
	case []string:
		var out string
		for _, s := range v {
			if strings.TrimSpace(s) == "" {
				continue
			}
			if out != "" && s != out {
				return "", shop.ParamErrorf(shop.EInvalid, name, "%s is given more than once.", name)
			}
			out = s
		}
		if !utf8Valid(out) {
			return "", shop.ParamErrorf(shop.EInvalid, name, "%s is not valid UTF-8.", name)
		}
		return out, nil
	case json.RawMessage:
		if string(v) == "null" {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", shop.ParamErrorf(shop.EInvalid, name, "%s must be a string.", name)
		}
		// encoding/json turns invalid UTF-8 into U+FFFD: the text would no longer be
		// what was sent (an address would receive mail meant for another).
		if !utf8.Valid(v) {
			return "", shop.ParamErrorf(shop.EInvalid, name, "%s is not valid UTF-8.", name)
		}
		return s, nil
	}
	return "", shop.ParamErrorf(shop.EInvalid, name, "%s cannot be read.", name)
}

// paramBool reads refulfill: 1/0/true/false in a form; in JSON also a boolean or the
// numbers 1 and 0. A string is read literally: blank is the same as none, and anything
// else must be one of the words exactly, without surrounding blanks.
func paramBool(name string, v any) (bool, error) {
	switch v := v.(type) {
	case []string:
		s, err := paramString(name, v)
		if err != nil || s == "" {
			return false, err
		}
		return filter.ParseBool(name, s)
	case json.RawMessage:
		switch string(v) {
		case "true", "1":
			return true, nil
		case "false", "0", "null":
			return false, nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			if strings.TrimSpace(s) == "" {
				return false, nil
			}
			// " 1" is none of the accepted words.
			return filter.ParseBool(name, s)
		}
	}
	return false, shop.ParamErrorf(shop.EInvalid, name, "%s must be true, false, 1 or 0.", name)
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }
