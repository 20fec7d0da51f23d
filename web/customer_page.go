package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// customerListSize bounds the activity and e-mails a customer's page shows.
const customerListSize = 100

// customerEmail reads the address of a customer's path. Anything that cannot be an
// address names no customer: a 404, as an unknown one is.
func customerEmail(c *gin.Context) (string, error) {
	email := c.Param("email")
	if email == "" || len(email) > 255 || strings.ContainsAny(email, "\r\n\x00") {
		return "", shop.Errorf(shop.ENotFound, "There is no customer with this e-mail address.")
	}
	return email, nil
}

// customerPage shows one customer (an address across every storefront of the account):
// the header's figures, the purchases, subscriptions, activity, e-mails and notes. An
// htmx request for another page of purchases gets the purchases alone.
func (s *Server) customerPage(c *gin.Context) error {
	email, err := customerEmail(c)
	if err != nil {
		return err
	}
	v, err := s.customerView(c, email, templates.NotesView{})
	if err != nil {
		return err
	}
	if isFragment(c) {
		return render(c, templates.CustomerPurchases(v.Results))
	}
	return render(c, templates.CustomerPage(*v))
}

// customerView loads everything the customer's page shows, the notes' form holding
// form (a refused note).
func (s *Server) customerView(c *gin.Context, email string, form templates.NotesView) (*templates.CustomerView, error) {
	ctx := c.Request.Context()
	acct := currentAccount(c)
	loc := s.location(acct.Timezone)
	if s.Customers == nil {
		return nil, shop.Errorf(shop.ENotFound, "There is no customer with this e-mail address.")
	}
	sum, err := s.Customers.FindCustomer(ctx, acct.ID, email)
	if err != nil {
		return nil, err
	}
	var after *shop.Cursor
	if cur := strings.TrimSpace(c.Query("cursor")); cur != "" {
		at, _, err := filter.DecodeCursor(cur, filter.KindPurchase)
		if err != nil {
			return nil, err
		}
		after = &at
	}
	page, err := s.Customers.FindCustomerPurchases(ctx, acct.ID, email, after, dashboardPageSize)
	if err != nil {
		return nil, err
	}
	names, err := s.storefrontNames(c)
	if err != nil {
		return nil, err
	}
	self := templates.CustomerURL(sum.Email)
	v := customerHeader(sum, loc)
	v.Chrome = s.chrome(c, sum.Email, "purchases")
	v.FullListURL = "/purchases?q=" + url.QueryEscape(`email:"`+sum.Email+`"`)
	v.Results = templates.PurchaseResults{ClearURL: self}
	for _, p := range page.Purchases {
		v.Results.Rows = append(v.Results.Rows, purchaseRow(p, names, loc))
	}
	v.Results.Count = templates.FormatCount(sum.Purchases)
	if u := currentUser(c); u != nil && u.CanReactivate() {
		v.Results.Bulk = &templates.BulkBar{NoAll: true}
	}
	if page.Next != nil {
		v.Results.OlderURL = self + "?cursor=" + url.QueryEscape(filter.EncodeCursor(*page.Next, filter.KindPurchase, true))
	}
	if after != nil {
		v.Results.NewerURL = self
	}

	subs, err := s.Subscribers.FindSubscribers(ctx, shop.SubscriberFilter{AccountID: acct.ID, Username: email, PerPage: shop.MaxPerPage})
	if err != nil {
		return nil, err
	}
	now := s.now()
	for _, sb := range subs.Subscribers {
		v.Subscriptions = append(v.Subscriptions, customerSubscription(sb, names, now, loc))
	}
	acts, err := s.Customers.FindCustomerActivity(ctx, acct.ID, email, customerListSize)
	if err != nil {
		return nil, err
	}
	for _, a := range acts {
		v.Activity = append(v.Activity, customerActivityRow(a, loc))
	}
	mails, err := s.Customers.FindCustomerEmails(ctx, acct.ID, email, customerListSize)
	if err != nil {
		return nil, err
	}
	for _, m := range mails {
		v.Emails = append(v.Emails, customerEmailRow(m, loc))
	}
	notes, err := s.Customers.FindCustomerNotes(ctx, acct.ID, email)
	if err != nil {
		return nil, err
	}
	v.Notes = notesView(notes, currentUser(c), self+"/notes", self, form, loc, true)
	return &v, nil
}

// addCustomerNote adds a note to a customer.
func (s *Server) addCustomerNote(c *gin.Context) error {
	email, err := customerEmail(c)
	if err != nil {
		return err
	}
	return s.addNote(c, shop.Note{CustomerEmail: email})
}

// addPurchaseNote adds a note to a purchase.
func (s *Server) addPurchaseNote(c *gin.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	return s.addNote(c, shop.Note{PurchaseID: id})
}

// addNote records a note and answers with the page's notes (htmx) or a redirect to the
// page (a plain form). A refused text is shown in the form with the reason: in the
// fragment for htmx, in the page (422) otherwise.
func (s *Server) addNote(c *gin.Context, n shop.Note) error {
	if err := readForm(c); err != nil {
		return err
	}
	user := currentUser(c)
	if s.Customers == nil {
		return shop.Errorf(shop.ENotFound, "Notes are not kept here.")
	}
	n.Body = c.Request.PostForm.Get("body")
	_, err := s.Customers.AddNote(c.Request.Context(), user, n)
	code := shop.ErrorCode(err)
	if err != nil && code != shop.EInvalid && code != shop.EMissing {
		return err
	}
	form := templates.NotesView{}
	if err != nil {
		form = templates.NotesView{Body: n.Body, Error: shop.ErrorMessage(err)}
	}
	return s.answerNotes(c, n, form, err != nil)
}

// deleteNote deletes a note, by its author or an owner.
func (s *Server) deleteNote(c *gin.Context) error {
	id, err := pageID(c, "id", "note")
	if err != nil {
		return err
	}
	if err := readForm(c); err != nil {
		return err
	}
	if s.Customers == nil {
		return shop.Errorf(shop.ENotFound, "There is no such note.")
	}
	n, err := s.Customers.DeleteNote(c.Request.Context(), currentUser(c), id)
	if err != nil {
		return err
	}
	// The page the note was deleted on: the customer's when the form says so.
	if back := c.Request.PostForm.Get("back"); strings.HasPrefix(back, "/customers/") {
		if email, err := url.PathUnescape(strings.TrimPrefix(back, "/customers/")); err == nil {
			*n = shop.Note{CustomerEmail: email}
		}
	}
	return s.answerNotes(c, shop.Note{CustomerEmail: n.CustomerEmail, PurchaseID: n.PurchaseID}, templates.NotesView{}, false)
}

// answerNotes answers a change of notes on the page of n's customer or purchase.
func (s *Server) answerNotes(c *gin.Context, n shop.Note, form templates.NotesView, refused bool) error {
	ctx := c.Request.Context()
	acct := currentAccount(c)
	loc := s.location(acct.Timezone)
	page := fmt.Sprintf("/purchases/%d", n.PurchaseID)
	if n.CustomerEmail != "" {
		page = templates.CustomerURL(n.CustomerEmail)
	}
	if !isFragment(c) {
		if !refused {
			c.Redirect(http.StatusSeeOther, page+"#notes")
			return nil
		}
		if n.CustomerEmail != "" {
			v, err := s.customerView(c, n.CustomerEmail, form)
			if err != nil {
				return err
			}
			return write(c, http.StatusUnprocessableEntity, templates.CustomerPage(*v))
		}
		v, err := s.purchaseView(c, n.PurchaseID, s.heldPanel(c, n.PurchaseID))
		if err != nil {
			return err
		}
		v.Notes.Body, v.Notes.Error = form.Body, form.Error
		return write(c, http.StatusUnprocessableEntity, templates.PurchasePage(*v))
	}
	var (
		notes []shop.Note
		err   error
	)
	if n.CustomerEmail != "" {
		notes, err = s.Customers.FindCustomerNotes(ctx, acct.ID, n.CustomerEmail)
	} else {
		notes, err = s.Customers.FindPurchaseNotes(ctx, acct.ID, n.PurchaseID)
	}
	if err != nil {
		return err
	}
	return render(c, templates.Notes(notesView(notes, currentUser(c), page+"/notes", page, form, loc, n.CustomerEmail != "")))
}

// purchaseNotes loads the notes of a purchase for its page.
func (s *Server) purchaseNotes(c *gin.Context, id int64) (templates.NotesView, error) {
	if s.Customers == nil {
		return templates.NotesView{}, nil
	}
	acct := currentAccount(c)
	notes, err := s.Customers.FindPurchaseNotes(c.Request.Context(), acct.ID, id)
	if err != nil {
		return templates.NotesView{}, err
	}
	page := fmt.Sprintf("/purchases/%d", id)
	return notesView(notes, currentUser(c), page+"/notes", page, templates.NotesView{}, s.location(acct.Timezone), false), nil
}

// getCustomer answers GET /api/v2/customers/{email}: the figures of the customer's page.
func (s *Server) getCustomer(c *gin.Context) error {
	email, err := customerEmail(c)
	if err != nil {
		return err
	}
	if err := noParams(c); err != nil {
		return err
	}
	if s.Customers == nil {
		return shop.Errorf(shop.ENotFound, "There is no customer with this e-mail address.")
	}
	sum, err := s.Customers.FindCustomer(c.Request.Context(), apiKey(c).AccountID, email)
	if err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, customerJSON(sum))
}

// customerDoc is the answer of GET /api/v2/customers/{email} (docs/API.md#customers).
type customerDoc struct {
	Email           string       `json:"email"`
	Names           []string     `json:"names"`
	FirstPurchaseAt *shop.Time   `json:"first_purchase_at"`
	LastPurchaseAt  *shop.Time   `json:"last_purchase_at"`
	Purchases       int64        `json:"purchases"`
	Subscribers     int64        `json:"subscribers"`
	LifetimeValue   []amountJSON `json:"lifetime_value"`
	Refunded        []amountJSON `json:"refunded"`
	ToShip          int64        `json:"to_ship"`
}

type amountJSON struct {
	Currency  string     `json:"currency"`
	Amount    shop.Money `json:"amount"`
	Purchases int64      `json:"purchases"`
}

func customerJSON(c *shop.CustomerSummary) customerDoc {
	d := customerDoc{Email: c.Email, Names: c.Names, FirstPurchaseAt: c.FirstPurchaseAt, LastPurchaseAt: c.LastPurchaseAt,
		Purchases: c.Purchases, Subscribers: c.Subscribers, ToShip: c.ToShip, LifetimeValue: []amountJSON{}, Refunded: []amountJSON{}}
	if d.Names == nil {
		d.Names = []string{}
	}
	for _, a := range c.Lifetime {
		d.LifetimeValue = append(d.LifetimeValue, amountJSON{a.Currency, a.Amount, a.Count})
	}
	for _, a := range c.Refunded {
		d.Refunded = append(d.Refunded, amountJSON{a.Currency, a.Amount, a.Count})
	}
	return d
}
