package web

import (
	"cmp"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
)

// noParams rejects any query parameter on a route that takes none.
func noParams(c *gin.Context) error {
	_, err := filter.Check(c.Request.URL.Query(), nil)
	return err
}

func (s *Server) ping(c *gin.Context) error {
	if err := noParams(c); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, gin.H{"status": "SUCCESS"})
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
	f, sr, err := filter.PurchaseSearch(c.Request.URL.Query(), key.AccountID, s.now(), s.location(key.Timezone))
	if err != nil {
		return err
	}
	searchHeaders(c, sr)
	ck := listKey(f, sr)
	notModified, kept, err := s.revalidate(c, ck, key.AccountID)
	if err != nil || notModified {
		return err
	}
	if kept != nil {
		s.listHeaders(c, kept.next, filter.KindPurchase, f.Desc, kept.total)
		validators(c, kept.etag)
		c.Data(http.StatusOK, jsonType, kept.body)
		return nil
	}
	buf := getBody()
	defer putBody(buf)
	page, err := s.Purchases.FindPurchaseDocuments(c.Request.Context(), f, (*buf)[:0])
	if err != nil {
		return err
	}
	*buf = page.Body
	etag := etagOf(ck, page.Version)
	if ifNoneMatch(c, etag, true) {
		validators(c, etag)
		c.Status(http.StatusNotModified)
		return nil
	}
	s.keepAnswer(c, ck, cachedAnswer{version: page.Version, etag: etag, body: page.Body, next: page.Next, total: page.Total})
	s.listHeaders(c, page.Next, filter.KindPurchase, f.Desc, page.Total)
	validators(c, etag)
	c.Data(http.StatusOK, jsonType, page.Body)
	return nil
}

// searchHeaders names what the request's search (q) meant (docs/API.md#search):
// Storefront-Query, its canonical form, and Storefront-Query-Dates, the instants its
// dates resolved to (empty when it has none), so that every answer to a search says
// both. Nothing without a search.
func searchHeaders(c *gin.Context, sr filter.Search) {
	if sr.Query == "" {
		return
	}
	c.Header(filter.HeaderQuery, sr.HeaderValue())
	c.Writer.Header().Set(filter.HeaderDates, sr.Dates) // gin's c.Header drops an empty value
}

// listHeaders sends the headers of a list page. Link (RFC 8288) names the next page,
// when there is one: the same request with a cursor after next in place of any page or
// cursor it had. The size of the whole filtered list, when it was counted (total >= 0),
// goes under both names clients read: X-Total-Count and DPD's Dpd-Collection-Count.
func (s *Server) listHeaders(c *gin.Context, next *shop.Cursor, kind byte, desc bool, total int64) {
	if next != nil {
		q := c.Request.URL.Query()
		q.Del("page")
		q.Set("cursor", filter.EncodeCursor(*next, kind, desc))
		c.Header("Link", "<"+s.BaseURL+c.Request.URL.Path+"?"+q.Encode()+`>; rel="next"`)
	}
	if total >= 0 {
		n := strconv.FormatInt(total, 10)
		c.Header("X-Total-Count", n)
		c.Header("Dpd-Collection-Count", n)
	}
}

func (s *Server) getPurchase(c *gin.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := noParams(c); err != nil {
		return err
	}
	account := apiKey(c).AccountID
	ck := purchaseKey(account, id)
	notModified, kept, err := s.revalidate(c, ck, account)
	if err != nil || notModified {
		return err
	}
	if kept != nil {
		validators(c, kept.etag)
		c.Data(http.StatusOK, jsonType, kept.body)
		return nil
	}
	buf := getBody()
	defer putBody(buf)
	doc, version, err := s.Purchases.FindPurchaseDocument(c.Request.Context(), account, id, (*buf)[:0])
	if err != nil {
		return err
	}
	body := append(doc, '\n')
	*buf = body
	etag := etagOf(ck, version)
	if ifNoneMatch(c, etag, true) {
		validators(c, etag)
		c.Status(http.StatusNotModified)
		return nil
	}
	s.keepAnswer(c, ck, cachedAnswer{version: version, etag: etag, body: body})
	validators(c, etag)
	c.Data(http.StatusOK, jsonType, body)
	return nil
}

func (s *Server) listSubscribers(c *gin.Context) error {
	key := apiKey(c)
	sf, err := pathID(c, "storefront_id")
	if err != nil {
		return err
	}
	f, sr, err := filter.SubscribersSearch(c.Request.URL.Query(), key.AccountID, sf, s.now(), s.location(key.Timezone))
	if err != nil {
		return err
	}
	searchHeaders(c, sr)
	page, err := s.Subscribers.FindSubscribers(c.Request.Context(), f)
	if err != nil {
		return err
	}
	s.listHeaders(c, page.Next, filter.KindSubscriber, f.Desc, page.Total)
	return writeJSON(c, http.StatusOK, page.Subscribers)
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
	return writeJSON(c, http.StatusOK, sub)
}

// nullID is the id of a record that may be absent: null in JSON when it is 0.
type nullID int64

// MarshalJSON writes the id, or null for 0.
func (id nullID) MarshalJSON() ([]byte, error) {
	if id == 0 {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, int64(id), 10), nil
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
	return writeJSON(c, http.StatusOK, body)
}

func (s *Server) reactivate(c *gin.Context) error {
	if err := requireWrite(c); err != nil {
		return err
	}
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	key := apiKey(c)
	body, err := readBody(c, "request body")
	if err != nil {
		return err
	}
	// The parameters' problems are answered by the service after the purchase is
	// found: an unknown purchase is a 404 whatever was sent.
	p, perr := filter.Reactivate(c.Request.URL.Query(), c.GetHeader("Content-Type"), body)
	idem, ierr := filter.IdempotencyKey(c.Request.Header.Values("Idempotency-Key"))
	_, err = s.Writer.Reactivate(c.Request.Context(), shop.ReactivateRequest{
		AccountID: key.AccountID, PurchaseID: id, CustomerEmail: p.CustomerEmail, Refulfill: p.Refulfill,
		Actor: keyActor(key), IdempotencyKey: idem, ParamsErr: cmp.Or(perr, ierr),
	})
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, gin.H{"status": "OK"})
}

// readBody reads a request's body, at most MaxBodyBytes; what names it in errors.
func readBody(c *gin.Context, what string) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, MaxBodyBytes))
	if err != nil {
		if isMaxBytes(err) {
			return nil, tooLarge(what)
		}
		return nil, shop.Errorf(shop.EInvalid, "The %s could not be read.", what)
	}
	return body, nil
}
