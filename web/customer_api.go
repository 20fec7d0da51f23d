package web

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
)

// getCustomer answers GET /api/v2/customers/{email}: the figures of the customer's page.
func (s *Server) getCustomer(c *gin.Context) error {
	sum, err := s.customer(c, apiKey(c).AccountID, noParams)
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
