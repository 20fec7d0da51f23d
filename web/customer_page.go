package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// customerListSize is how many entries a page of the customer page's activity,
// e-mails and notes shows; older ones are a link away.
const customerListSize = 100

// customerEmail reads the address of a customer's path (/customers/{email}{suffix}):
// the route's catch-all, so that an address with "/" in it (escaped as %2F in links)
// reaches it whole. Anything that cannot be an address names no customer: a 404, as an
// unknown one is.
func customerEmail(c *gin.Context, suffix string) (string, error) {
	email, ok := strings.CutSuffix(strings.TrimPrefix(c.Param("email"), "/"), suffix)
	if !ok || email == "" || len(email) > 255 || strings.ContainsAny(email, "\r\n\x00") {
		return "", shop.Errorf(shop.ENotFound, "There is no customer with this e-mail address.")
	}
	return email, nil
}

// customer returns the figures of the account's customer whose address the path
// holds (customerEmail); check, when not nil, vets the rest of the request first.
func (s *Server) customer(c *gin.Context, accountID int64, check func(*gin.Context) error) (*shop.CustomerSummary, error) {
	email, err := customerEmail(c, "")
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(c); err != nil {
			return nil, err
		}
	}
	if s.Customers == nil {
		return nil, shop.Errorf(shop.ENotFound, "There is no customer with this e-mail address.")
	}
	return s.Customers.FindCustomer(c.Request.Context(), accountID, email)
}

// customerURL is the page of the customer with the e-mail address, the path
// customerEmail reads; "" for no address.
func customerURL(email string) string {
	if strings.TrimSpace(email) == "" {
		return ""
	}
	return "/customers/" + url.PathEscape(email)
}

// customerBefore reads a list's paging parameter: the entry the page starts after, 0
// for the newest.
func customerBefore(c *gin.Context, name string) (int64, error) {
	v, ok := c.GetQuery(name)
	if !ok {
		return 0, nil
	}
	return filter.ParseID(name, v)
}

// customerPage shows one customer (an address across every storefront of the account):
// the header's figures, the purchases, subscriptions, activity, e-mails and notes. An
// htmx request for another page of one list gets that list alone: the element it
// targets (HX-Target), the purchases by default.
func (s *Server) customerPage(c *gin.Context) error {
	sum, err := s.customer(c, currentAccount(c).ID, nil)
	if err != nil {
		return err
	}
	if isFragment(c) {
		part, err := s.customerPart(c, sum)
		if err != nil {
			return err
		}
		return render(c, part)
	}
	v, err := s.customerView(c, sum, templates.NotesView{})
	if err != nil {
		return err
	}
	return render(c, templates.CustomerPage(*v))
}

// customerPart loads the one list of the customer's page that htmx asks for: the
// element it targets (HX-Target), the purchases by default.
func (s *Server) customerPart(c *gin.Context, sum *shop.CustomerSummary) (templ.Component, error) {
	switch c.GetHeader("HX-Target") {
	case "activity":
		rows, p, err := s.customerActivity(c, sum.Email)
		return templates.CustomerActivity(rows, p), err
	case "emails":
		rows, p, err := s.customerEmails(c, sum.Email)
		return templates.CustomerEmails(rows, p), err
	case "notes":
		v, err := s.customerNotes(c, sum.Email, templates.NotesView{})
		return templates.Notes(v), err
	}
	names, err := s.storefrontNames(c)
	if err != nil {
		return nil, err
	}
	res, err := s.customerPurchases(c, sum, names)
	return templates.CustomerPurchases(res), err
}

// customerView loads everything the customer's page shows, the notes' form holding
// form (a refused note).
func (s *Server) customerView(c *gin.Context, sum *shop.CustomerSummary, form templates.NotesView) (*templates.CustomerView, error) {
	ctx := c.Request.Context()
	acct := currentAccount(c)
	loc := s.location(acct.Timezone)
	v := customerHeader(sum, loc)
	v.Chrome = s.chrome(c, sum.Email, "purchases")
	v.FullListURL = "/purchases?q=" + url.QueryEscape(`email:"`+sum.Email+`"`)
	names, err := s.storefrontNames(c)
	if err != nil {
		return nil, err
	}
	if v.Results, err = s.customerPurchases(c, sum, names); err != nil {
		return nil, err
	}
	subs, err := s.Subscribers.FindSubscribers(ctx, shop.SubscriberFilter{AccountID: acct.ID, Username: sum.Email, PerPage: shop.MaxPerPage})
	if err != nil {
		return nil, err
	}
	now := s.now()
	for _, sb := range subs.Subscribers {
		v.Subscriptions = append(v.Subscriptions, customerSubscription(sb, names, now, loc))
	}
	if v.Activity, v.ActivityPager, err = s.customerActivity(c, sum.Email); err != nil {
		return nil, err
	}
	if v.Emails, v.EmailsPager, err = s.customerEmails(c, sum.Email); err != nil {
		return nil, err
	}
	if v.Notes, err = s.customerNotes(c, sum.Email, form); err != nil {
		return nil, err
	}
	return &v, nil
}

// customerPurchases loads the page of the customer's purchases the request asks for
// (cursor), newest first, as the purchases list shows them with the storefronts' names.
func (s *Server) customerPurchases(c *gin.Context, sum *shop.CustomerSummary, names map[int64]string) (templates.PurchaseResults, error) {
	acct := currentAccount(c)
	loc := s.location(acct.Timezone)
	self := customerURL(sum.Email)
	res := templates.PurchaseResults{ClearURL: self, Count: templates.FormatCount(sum.Purchases), OneBuyer: true}
	var after *shop.Cursor
	if cur := strings.TrimSpace(c.Query("cursor")); cur != "" {
		at, _, err := filter.DecodeCursor(cur, filter.KindPurchase)
		if err != nil {
			return res, err
		}
		after = &at
	}
	page, err := s.Customers.FindCustomerPurchases(c.Request.Context(), acct.ID, sum.Email, after, dashboardPageSize)
	if err != nil {
		return res, err
	}
	for _, p := range page.Purchases {
		res.Rows = append(res.Rows, purchaseRow(p, names, loc))
	}
	if u := currentUser(c); u != nil && u.CanReactivate() {
		res.Bulk = &templates.BulkBar{NoAll: true}
	}
	if page.Next != nil {
		res.OlderURL = self + "?cursor=" + url.QueryEscape(filter.EncodeCursor(*page.Next, filter.KindPurchase, true))
	}
	if after != nil {
		res.NewerURL = self
	}
	return res, nil
}

// customerPager is the paging of one of the customer page's lists, read from the
// parameter name: next is the entry the next older page starts after (0: none).
func customerPager(self, name string, before, next int64) templates.Pager {
	var p templates.Pager
	if next > 0 {
		p.OlderURL = self + "?" + name + "=" + strconv.FormatInt(next, 10)
	}
	if before > 0 {
		p.NewestURL = self
	}
	return p
}

// customerList loads the page of one of the customer's lists that the request asks for
// (the parameter name: the entry it starts after), newest first: find reads the
// entries, row shows one.
func customerList[E, R any](c *gin.Context, email, name string, loc *time.Location,
	find func(ctx context.Context, accountID int64, email string, before int64, limit int) ([]E, int64, error),
	row func(E, *time.Location) R) ([]R, templates.Pager, error) {
	before, err := customerBefore(c, name)
	if err != nil {
		return nil, templates.Pager{}, err
	}
	entries, next, err := find(c.Request.Context(), currentAccount(c).ID, email, before, customerListSize)
	if err != nil {
		return nil, templates.Pager{}, err
	}
	rows := make([]R, 0, len(entries))
	for _, e := range entries {
		rows = append(rows, row(e, loc))
	}
	return rows, customerPager(customerURL(email), name, before, next), nil
}

// customerActivity loads the page of the activity of the customer's purchases the
// request asks for.
func (s *Server) customerActivity(c *gin.Context, email string) ([]templates.CustomerActivityRow, templates.Pager, error) {
	return customerList(c, email, "activity", s.location(currentAccount(c).Timezone), s.Customers.FindCustomerActivity, customerActivityRow)
}

// customerEmails loads the page of the e-mails to the customer's address the request
// asks for.
func (s *Server) customerEmails(c *gin.Context, email string) ([]templates.CustomerEmailRow, templates.Pager, error) {
	return customerList(c, email, "emails", s.location(currentAccount(c).Timezone), s.Customers.FindCustomerEmails, customerEmailRow)
}

// customerNotes loads the page of the customer's notes the request asks for, the form
// holding form.
func (s *Server) customerNotes(c *gin.Context, email string, form templates.NotesView) (templates.NotesView, error) {
	loc := s.location(currentAccount(c).Timezone)
	notes, pager, err := customerList(c, email, "notes", loc, s.Customers.FindCustomerNotes, func(n shop.Note, _ *time.Location) shop.Note { return n })
	if err != nil {
		return templates.NotesView{}, err
	}
	self := customerURL(email)
	v := notesView(notes, currentUser(c), self+"/notes", self, form, loc, true)
	v.Pager = pager
	return v, nil
}

// addCustomerNote adds a note to a customer.
func (s *Server) addCustomerNote(c *gin.Context) error {
	email, err := customerEmail(c, "/notes")
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

// answerNotes answers a change of notes on the page of n's purchase, or of its customer
// when it has no purchase.
func (s *Server) answerNotes(c *gin.Context, n shop.Note, form templates.NotesView, refused bool) error {
	onCustomer := n.PurchaseID == 0
	page := fmt.Sprintf("/purchases/%d", n.PurchaseID)
	if onCustomer {
		page = customerURL(n.CustomerEmail)
	}
	if !isFragment(c) && !refused {
		c.Redirect(http.StatusSeeOther, page+"#notes")
		return nil
	}
	if !onCustomer {
		if isFragment(c) {
			v, err := s.purchaseNotes(c, n.PurchaseID)
			if err != nil {
				return err
			}
			v.Body, v.Error = form.Body, form.Error
			return render(c, templates.Notes(v))
		}
		v, err := s.purchaseView(c, n.PurchaseID, s.heldPanel(c, n.PurchaseID))
		if err != nil {
			return err
		}
		v.Notes.Body, v.Notes.Error = form.Body, form.Error
		return write(c, http.StatusUnprocessableEntity, templates.PurchasePage(*v))
	}
	sum, err := s.Customers.FindCustomer(c.Request.Context(), currentAccount(c).ID, n.CustomerEmail)
	if err != nil {
		return err
	}
	if isFragment(c) {
		v, err := s.customerNotes(c, sum.Email, form)
		if err != nil {
			return err
		}
		return render(c, templates.Notes(v))
	}
	v, err := s.customerView(c, sum, form)
	if err != nil {
		return err
	}
	return write(c, http.StatusUnprocessableEntity, templates.CustomerPage(*v))
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
