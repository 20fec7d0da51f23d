package mail

import (
	"context"
	"errors"
	"fmt"

	"storefront/internal/shop"
)

// PurchaseFinder reads the purchase an e-mail is about (shop.PurchaseService).
type PurchaseFinder interface {
	// FindPurchaseByID returns one purchase of the account with its line items and
	// product keys; ENotFound when there is none.
	FindPurchaseByID(ctx context.Context, accountID, id int64) (*shop.Purchase, error)
}

// StorefrontFinder reads the storefront an e-mail speaks for (shop.AccountService).
type StorefrontFinder interface {
	// FindStorefronts returns the account's storefronts.
	FindStorefronts(ctx context.Context, accountID int64) ([]*shop.Storefront, error)
}

// Composer writes the text of a claimed outbox row when it is sent: every e-mail
// storefront sends is written here, from what the row says it is about and the data as
// it is at that moment.
type Composer struct {
	// Purchases and Storefronts are read for the purchase and its storefront's name;
	// give the primary's, so that the e-mail of a change that just committed sees it.
	Purchases   PurchaseFinder
	Storefronts StorefrontFinder
	// BaseURL is the public URL that links start with.
	BaseURL string
}

// errGone marks a row whose purchase no longer exists: no retry can write it.
var errGone = errors.New("what the e-mail is about no longer exists")

// Compose returns the subject and plain-text body of e. A row of a kind it does not
// know, or about a purchase that is gone, is a permanent error (see IsPermanent).
func (c *Composer) Compose(ctx context.Context, e Claimed) (subject, body string, err error) {
	switch e.Kind {
	case shop.EmailComposed:
		return e.Subject, e.Body, nil
	case shop.EmailPurchaseReady:
		p, err := c.Purchases.FindPurchaseByID(ctx, e.AccountID, e.PurchaseID)
		if shop.ErrorCode(err) == shop.ENotFound {
			return "", "", Permanent(fmt.Errorf("purchase %d: %w", e.PurchaseID, errGone))
		}
		if err != nil {
			return "", "", fmt.Errorf("read purchase %d: %w", e.PurchaseID, err)
		}
		stores, err := c.Storefronts.FindStorefronts(ctx, e.AccountID)
		if err != nil {
			return "", "", fmt.Errorf("read storefronts of account %d: %w", e.AccountID, err)
		}
		name := ""
		for _, s := range stores {
			if s.ID == p.StorefrontID {
				name = s.Name
			}
		}
		subject, body := ComposePurchaseReady(p, name, c.BaseURL)
		return subject, body, nil
	case shop.EmailWebhookDisabled:
		subject, body := ComposeWebhookDisabled(e.Facts.EndpointID, e.Facts.EndpointURL, e.Facts.Reason, c.BaseURL)
		return subject, body, nil
	}
	return "", "", Permanent(fmt.Errorf("e-mail %d is of kind %q, which this version does not write", e.ID, e.Kind))
}
