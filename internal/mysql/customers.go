package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"storefront/internal/shop"
)

// The address is compared as the API's e-mail filters compare (docs/API.md#customers): = under utf8mb4_unicode_ci ignores
// letter case and accents, and the second test, with a mark after both sides, keeps
// "a@b.com " from being "a@b.com" (PAD SPACE). The first serves the index.

// FindCustomer implements shop.CustomerService: the figures of one address, in two
// reads of the address's range of purchases_account_email_created and one of its
// subscribers.
func (s *CustomerService) FindCustomer(ctx context.Context, accountID int64, email string) (*shop.CustomerSummary, error) {
	q := s.db.DB
	c := &shop.CustomerSummary{Lifetime: []shop.CurrencyAmount{}, Refunded: []shop.CurrencyAmount{}}
	var first, last *time.Time
	err := eachRow(ctx, q, `SELECT p.status, p.currency, COUNT(*), SUM(p.total), MIN(p.created_at), MAX(p.created_at), SUM(p.to_ship)
		FROM purchases p FORCE INDEX (purchases_account_email_created)
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')
		GROUP BY p.status, p.currency ORDER BY p.currency, p.status`,
		[]any{accountID, email, email}, func(rows *sql.Rows) error {
			var (
				status, currency, sum string
				n, toShip             int64
				lo, hi                time.Time
			)
			if err := rows.Scan(&status, &currency, &n, &sum, &lo, &hi, &toShip); err != nil {
				return err
			}
			c.Purchases += n
			c.ToShip += toShip
			if first == nil || lo.Before(*first) {
				first = &lo
			}
			if last == nil || hi.After(*last) {
				last = &hi
			}
			amount := shop.CurrencyAmount{Currency: currency, Amount: formatMoney(sum, currencyDigits(currency)), Count: n}
			switch shop.PurchaseStatus(status) {
			case shop.PurchaseActive:
				c.Lifetime = append(c.Lifetime, amount)
			case shop.PurchaseRefunded:
				c.Refunded = append(c.Refunded, amount)
			}
			return nil
		})
	if err != nil {
		return nil, translate(err)
	}
	if first != nil {
		f, l := shop.NewTime(*first), shop.NewTime(*last)
		c.FirstPurchaseAt, c.LastPurchaseAt = &f, &l
	}
	// The names, and the spelling of the address, of the latest purchases first.
	seen := map[string]bool{}
	err = eachRow(ctx, q, `SELECT p.buyer_email, COALESCE(p.buyer_firstname, ''), COALESCE(p.buyer_lastname, '')
		FROM purchases p FORCE INDEX (purchases_account_email_created)
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')
		ORDER BY p.created_at DESC, p.id DESC LIMIT 200`,
		[]any{accountID, email, email}, func(rows *sql.Rows) error {
			var addr, firstName, lastName string
			if err := rows.Scan(&addr, &firstName, &lastName); err != nil {
				return err
			}
			if c.Email == "" {
				c.Email = addr
			}
			name := strings.TrimSpace(firstName + " " + lastName)
			if key := strings.ToLower(name); name != "" && !seen[key] && len(c.Names) < 10 {
				seen[key] = true
				c.Names = append(c.Names, name)
			}
			return nil
		})
	if err != nil {
		return nil, translate(err)
	}
	var subscriber string
	err = s.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(sb.username), '') FROM subscribers sb
		WHERE sb.storefront_id IN (SELECT sf.id FROM storefronts sf WHERE sf.account_id = ?)
		AND sb.account_id = ? AND sb.username = ? AND CONCAT(sb.username, '.') = CONCAT(?, '.')`,
		accountID, accountID, email, email).Scan(&c.Subscribers, &subscriber)
	if err != nil {
		return nil, translate(err)
	}
	if c.Purchases == 0 && c.Subscribers == 0 {
		return nil, shop.Errorf(shop.ENotFound, "There is no customer with this e-mail address.")
	}
	if c.Email == "" {
		c.Email = subscriber
	}
	return c, nil
}

// FindCustomerPurchases implements shop.CustomerService: the ids of the page are the
// next entries of the address's range of purchases_account_email_created, newest
// first; the purchases are read by the one read path.
func (s *CustomerService) FindCustomerPurchases(ctx context.Context, accountID int64, email string, after *shop.Cursor, n int) (*shop.PurchasePage, error) {
	q := s.db.DB
	n = perPage(n)
	query := `SELECT p.id FROM purchases p FORCE INDEX (purchases_account_email_created)
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')`
	args := []any{accountID, email, email}
	if after != nil {
		at := after.CreatedAt.UTC()
		query += " AND (p.created_at < ? OR (p.created_at = ? AND p.id < ?))"
		args = append(args, at, at, after.ID)
	}
	query += " ORDER BY p.created_at DESC, p.id DESC LIMIT ?"
	args = append(args, n+1)
	ids, err := appendIDs(ctx, q, nil, query, args...)
	if err != nil {
		return nil, translate(err)
	}
	return readPurchases(ctx, q, &shop.PurchasePage{Total: -1}, accountID, ids, n)
}

// FindCustomerActivity implements shop.CustomerService.
func (s *CustomerService) FindCustomerActivity(ctx context.Context, accountID int64, email string, limit int) ([]shop.CustomerActivity, error) {
	out := []shop.CustomerActivity{}
	err := eachRow(ctx, s.db.DB, `SELECT a.id, a.purchase_id, a.actor, a.action, a.details, a.created_at FROM purchases p FORCE INDEX (purchases_account_email_created)
		JOIN purchase_activity a ON a.account_id = p.account_id AND a.purchase_id = p.id
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')
		ORDER BY a.created_at DESC, a.id DESC LIMIT ?`,
		[]any{accountID, email, email, max(limit, 1)}, func(rows *sql.Rows) error {
			var e shop.CustomerActivity
			if err := rows.Scan(&e.ID, &e.PurchaseID, &e.Actor, &e.Action, &e.Details, &e.CreatedAt); err != nil {
				return err
			}
			var d activityDetails
			if json.Unmarshal([]byte(e.Details), &d) == nil {
				e.To, e.Subject, e.Refulfill, e.KeysGenerated, e.FromStatus, e.ToStatus = d.To, d.Subject, d.Refulfill, d.KeysGenerated, d.FromStatus, d.ToStatus
			}
			out = append(out, e)
			return nil
		})
	return out, translate(err)
}

// FindCustomerEmails implements shop.CustomerService.
func (s *CustomerService) FindCustomerEmails(ctx context.Context, accountID int64, email string, limit int) ([]shop.CustomerEmail, error) {
	out := []shop.CustomerEmail{}
	err := eachRow(ctx, s.db.DB, `SELECT o.id, o.kind, COALESCE(o.purchase_id, 0), COALESCE(o.subject, ''), o.status, o.attempts, COALESCE(o.last_error, ''), o.created_at, o.sent_at
		FROM email_outbox o FORCE INDEX (email_outbox_account_to)
		WHERE o.account_id = ? AND o.to_address = ? AND CONCAT(o.to_address, '.') = CONCAT(?, '.')
		ORDER BY o.id DESC LIMIT ?`,
		[]any{accountID, email, email, max(limit, 1)}, func(rows *sql.Rows) error {
			var (
				m    shop.CustomerEmail
				sent sql.NullTime
			)
			if err := rows.Scan(&m.ID, &m.Kind, &m.PurchaseID, &m.Subject, &m.Status, &m.Attempts, &m.LastError, &m.QueuedAt, &sent); err != nil {
				return err
			}
			if sent.Valid {
				t := shop.NewTime(sent.Time)
				m.SentAt = &t
			}
			out = append(out, m)
			return nil
		})
	return out, translate(err)
}

// noteColumns are the columns of notes n in the order scanNote reads them.
const noteColumns = "n.id, n.account_id, COALESCE(n.customer_email, ''), COALESCE(n.purchase_id, 0), n.author_id, n.author, n.body, n.created_at"

func scanNote(rows *sql.Rows) (shop.Note, error) {
	var n shop.Note
	err := rows.Scan(&n.ID, &n.AccountID, &n.CustomerEmail, &n.PurchaseID, &n.AuthorID, &n.Author, &n.Body, &n.CreatedAt)
	return n, err
}

func (s *CustomerService) readNotes(ctx context.Context, query string, args ...any) ([]shop.Note, error) {
	out := []shop.Note{}
	err := eachRow(ctx, s.db.DB, query, args, func(rows *sql.Rows) error {
		n, err := scanNote(rows)
		if err != nil {
			return err
		}
		out = append(out, n)
		return nil
	})
	return out, translate(err)
}

// FindCustomerNotes implements shop.CustomerService: the notes on the address and on
// its purchases.
func (s *CustomerService) FindCustomerNotes(ctx context.Context, accountID int64, email string) ([]shop.Note, error) {
	return s.readNotes(ctx, `SELECT `+noteColumns+` FROM notes n
		WHERE n.account_id = ? AND n.customer_email = ? AND CONCAT(n.customer_email, '.') = CONCAT(?, '.')
		UNION ALL SELECT `+noteColumns+` FROM purchases p FORCE INDEX (purchases_account_email_created)
		JOIN notes n ON n.account_id = p.account_id AND n.purchase_id = p.id
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')
		ORDER BY 8 DESC, 1 DESC LIMIT 500`, accountID, email, email, accountID, email, email)
}

// FindPurchaseNotes implements shop.CustomerService.
func (s *CustomerService) FindPurchaseNotes(ctx context.Context, accountID, purchaseID int64) ([]shop.Note, error) {
	return s.readNotes(ctx, `SELECT `+noteColumns+` FROM notes n WHERE n.account_id = ? AND n.purchase_id = ? ORDER BY n.id DESC`, accountID, purchaseID)
}

// noteActivity is what the account's activity records of a note.
type noteActivity struct {
	Note       int64  `json:"note"`
	Customer   string `json:"customer,omitempty"`
	PurchaseID int64  `json:"purchase_id,omitempty"`
	Body       string `json:"body"`
}

// AddNote implements shop.CustomerService.
func (s *CustomerService) AddNote(ctx context.Context, user *shop.User, n shop.Note) (*shop.Note, error) {
	if !user.CanReactivate() {
		return nil, shop.Errorf(shop.EForbidden, "Viewers cannot add notes.")
	}
	body, err := shop.CleanNote(n.Body)
	if err != nil {
		return nil, err
	}
	if (n.CustomerEmail == "") == (n.PurchaseID == 0) {
		return nil, shop.Errorf(shop.EInvalid, "A note is about one customer or one purchase.")
	}
	if n.CustomerEmail != "" {
		c, err := s.FindCustomer(ctx, user.AccountID, n.CustomerEmail)
		if err != nil {
			return nil, err
		}
		n.CustomerEmail = c.Email
	}
	n.AccountID, n.AuthorID, n.Author, n.Body = user.AccountID, user.ID, user.Email, body
	now := s.db.Now().UTC().Truncate(time.Second)
	n.CreatedAt = shop.NewTime(now)
	var customer *string
	var purchase *int64
	if n.CustomerEmail != "" {
		customer = &n.CustomerEmail
	} else {
		purchase = &n.PurchaseID
	}
	err = s.db.inTx(ctx, func(tx *Tx) error {
		if purchase != nil {
			var id int64
			err := tx.QueryRowContext(ctx, "SELECT id FROM purchases WHERE account_id = ? AND id = ?", n.AccountID, n.PurchaseID).Scan(&id)
			if errors.Is(err, sql.ErrNoRows) {
				return shop.Errorf(shop.ENotFound, "There is no purchase #%d.", n.PurchaseID)
			}
			if err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO notes (account_id, customer_email, purchase_id, author_id, author, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			n.AccountID, customer, purchase, n.AuthorID, n.Author, n.Body, now)
		if err != nil {
			return err
		}
		if n.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		return recordNoteActivity(ctx, tx, &n, shop.ActionNoteAdded, user.Email, now)
	})
	if err != nil {
		return nil, err
	}
	return &n, nil
}

// DeleteNote implements shop.CustomerService.
func (s *CustomerService) DeleteNote(ctx context.Context, user *shop.User, id int64) (*shop.Note, error) {
	var note shop.Note
	err := s.db.inTx(ctx, func(tx *Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+noteColumns+` FROM notes n WHERE n.account_id = ? AND n.id = ? FOR UPDATE`, user.AccountID, id)
		if err != nil {
			return err
		}
		found := rows.Next()
		if found {
			note, err = scanNote(rows)
		}
		rows.Close()
		if err != nil {
			return err
		}
		if !found {
			return shop.Errorf(shop.ENotFound, "There is no such note.")
		}
		if !user.MayDeleteNote(&note) {
			return shop.Errorf(shop.EForbidden, "Only the note's author or an owner can delete it.")
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM notes WHERE account_id = ? AND id = ?", user.AccountID, id); err != nil {
			return err
		}
		return recordNoteActivity(ctx, tx, &note, shop.ActionNoteDeleted, user.Email, s.db.Now().UTC().Truncate(time.Second))
	})
	if err != nil {
		return nil, err
	}
	return &note, nil
}

func recordNoteActivity(ctx context.Context, tx *Tx, n *shop.Note, action, actor string, at time.Time) error {
	details, err := json.Marshal(noteActivity{Note: n.ID, Customer: n.CustomerEmail, PurchaseID: n.PurchaseID, Body: n.Body})
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO account_activity (account_id, actor, action, details, created_at) VALUES (?, ?, ?, ?, ?)`,
		n.AccountID, actor, action, string(details), at)
	return err
}
