package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"storefront/internal/shop"
)

// The address is compared as the API's e-mail filters compare (docs/API.md#customers): = under utf8mb4_unicode_ci ignores
// letter case and accents, and the second test, with a mark after both sides, keeps
// "a@b.com " from being "a@b.com" (PAD SPACE). The first serves the index.

// customerQuery is the one statement of a customer's figures, each row led by its kind:
// 1, a customer_rollups row (currency, status, purchases, total, to ship); 2, the first
// purchase (spelling, created_at), the first entry of the address's range of
// purchases_account_email_created; 3, one of the latest purchases (spelling, first
// and last name, created_at), the last entries of that range; 4, the subscriber
// records (a spelling, how many). Every part reads a bounded number of entries,
// whatever the number of purchases: the rollup holds a row per currency and status.
const customerQuery = `SELECT 1, r.currency, r.status, '', r.purchases, r.total, r.to_ship, NULL FROM customer_rollups r
		WHERE r.account_id = ? AND r.email = ? AND r.purchases <> 0
	UNION ALL (SELECT 2, p.buyer_email, '', '', 0, 0, 0, p.created_at FROM purchases p FORCE INDEX (purchases_account_email_created)
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')
		ORDER BY p.created_at, p.id LIMIT 1)
	UNION ALL (SELECT 3, p.buyer_email, COALESCE(p.buyer_firstname, ''), COALESCE(p.buyer_lastname, ''), 0, 0, 0, p.created_at
		FROM purchases p FORCE INDEX (purchases_account_email_created)
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')
		ORDER BY p.created_at DESC, p.id DESC LIMIT ?)
	UNION ALL SELECT 4, COALESCE(MAX(sb.username), ''), '', '', COUNT(*), 0, 0, NULL FROM subscribers sb FORCE INDEX (subscribers_storefront_username)
		WHERE sb.storefront_id IN (SELECT sf.id FROM storefronts sf WHERE sf.account_id = ?)
		AND sb.account_id = ? AND sb.username = ? AND CONCAT(sb.username, '.') = CONCAT(?, '.')
	ORDER BY 1, 8 DESC, 2, 3`

// FindCustomer implements shop.CustomerService: the figures of one address in one
// statement (customerQuery).
func (s *CustomerService) FindCustomer(ctx context.Context, accountID int64, email string) (*shop.CustomerSummary, error) {
	c := &shop.CustomerSummary{Lifetime: []shop.CurrencyAmount{}, Refunded: []shop.CurrencyAmount{}}
	seen := map[string]bool{}
	subscriber := ""
	err := eachRow(ctx, s.db.DB, customerQuery, []any{accountID, email, accountID, email, email, accountID, email, email, shop.CustomerNamesRead,
		accountID, accountID, email, email}, func(rows *sql.Rows) error {
		var (
			kind         int
			a, b, d, sum string
			n, toShip    int64
			at           sql.NullTime
		)
		if err := rows.Scan(&kind, &a, &b, &d, &n, &sum, &toShip, &at); err != nil {
			return err
		}
		switch kind {
		case 1:
			c.Purchases += n
			c.ToShip += toShip
			amount := shop.CurrencyAmount{Currency: a, Amount: formatMoney(sum, currencyDigits(a)), Count: n}
			switch shop.PurchaseStatus(b) {
			case shop.PurchaseActive:
				c.Lifetime = append(c.Lifetime, amount)
			case shop.PurchaseRefunded:
				c.Refunded = append(c.Refunded, amount)
			}
		case 2:
			t := shop.NewTime(at.Time)
			c.FirstPurchaseAt = &t
		case 3:
			if c.LastPurchaseAt == nil {
				t := shop.NewTime(at.Time)
				c.Email, c.LastPurchaseAt = a, &t
			}
			name := strings.TrimSpace(b + " " + d)
			if key := strings.ToLower(name); name != "" && !seen[key] && len(c.Names) < 10 {
				seen[key] = true
				c.Names = append(c.Names, name)
			}
		case 4:
			c.Subscribers, subscriber = n, a
		}
		return nil
	})
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

// FindCustomerPurchases implements shop.CustomerService in one statement: the page's
// n+1 ids, the next entries of the address's range of purchases_account_email_created,
// newest first, joined with their stored documents (the API list's read); a purchase
// whose document is missing is read from its rows (the one read path).
func (s *CustomerService) FindCustomerPurchases(ctx context.Context, accountID int64, email string, after *shop.Cursor, n int) (*shop.PurchasePage, error) {
	q := s.db.DB
	n = perPage(n)
	query := `SELECT t.id, d.document FROM (SELECT p.id, p.created_at FROM purchases p FORCE INDEX (purchases_account_email_created)
		WHERE p.account_id = ? AND p.buyer_email = ? AND CONCAT(p.buyer_email, '.') = CONCAT(?, '.')`
	args := []any{accountID, email, email}
	if after != nil {
		at := after.CreatedAt.UTC()
		query += " AND (p.created_at < ? OR (p.created_at = ? AND p.id < ?))"
		args = append(args, at, at, after.ID)
	}
	query += ` ORDER BY p.created_at DESC, p.id DESC LIMIT ?) t
		LEFT JOIN purchase_documents d ON d.account_id = ? AND d.purchase_id = t.id
		ORDER BY t.created_at DESC, t.id DESC`
	args = append(args, n+1, accountID)
	var ids, missing []int64
	byID := map[int64]*shop.Purchase{}
	err := eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var (
			id  int64
			doc sql.RawBytes
		)
		if err := rows.Scan(&id, &doc); err != nil {
			return err
		}
		ids = append(ids, id)
		if doc == nil {
			missing = append(missing, id)
			return nil
		}
		p := &shop.Purchase{}
		if err := json.Unmarshal(doc, p); err != nil {
			return fmt.Errorf("purchase %d: document: %w", id, err)
		}
		p.AccountID = accountID
		byID[id] = p
		return nil
	})
	if err != nil {
		return nil, translate(err)
	}
	if len(missing) > 0 {
		built, err := readPurchases(ctx, q, &shop.PurchasePage{}, accountID, missing, len(missing))
		if err != nil {
			return nil, err
		}
		for _, p := range built.Purchases {
			byID[p.ID] = p
		}
	}
	page := &shop.PurchasePage{Total: -1, Purchases: []*shop.Purchase{}}
	for _, id := range ids {
		if p := byID[id]; p != nil {
			page.Purchases = append(page.Purchases, p)
		}
	}
	if len(page.Purchases) > n {
		page.Purchases = page.Purchases[:n]
		last := page.Purchases[n-1]
		page.Next = &shop.Cursor{CreatedAt: last.CreatedAt.Time, ID: last.ID}
	}
	return page, nil
}

// customerPage appends a page of entries of one address's range of an index ordered
// by id: at most limit of them older than before (0: the newest), and the before of the
// next older page, 0 when none. query ends with the conditions on the address of the
// table named alias; scan reads one row and returns its id.
func customerPage(ctx context.Context, q queryer, alias, query string, args []any, before int64, limit int, scan func(*sql.Rows) (int64, error)) (int64, error) {
	limit = max(limit, 1)
	if before > 0 {
		query += " AND " + alias + ".id < ?"
		args = append(args, before)
	}
	query += " ORDER BY " + alias + ".id DESC LIMIT ?"
	args = append(args, limit+1)
	var ids []int64
	err := eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		id, err := scan(rows)
		ids = append(ids, id)
		return err
	})
	if err != nil || len(ids) <= limit {
		return 0, translate(err)
	}
	return ids[limit-1], nil
}

// FindCustomerActivity implements shop.CustomerService: the next entries of the
// address's range of purchase_activity_account_email.
func (s *CustomerService) FindCustomerActivity(ctx context.Context, accountID int64, email string, before int64, limit int) ([]shop.CustomerActivity, int64, error) {
	out := []shop.CustomerActivity{}
	next, err := customerPage(ctx, s.db.DB, "a", `SELECT a.id, a.purchase_id, a.actor, a.action, a.details, a.created_at
		FROM purchase_activity a FORCE INDEX (purchase_activity_account_email)
		WHERE a.account_id = ? AND a.buyer_email = ? AND CONCAT(a.buyer_email, '.') = CONCAT(?, '.')`, []any{accountID, email, email}, before, limit,
		func(rows *sql.Rows) (int64, error) {
			var e shop.CustomerActivity
			if err := rows.Scan(&e.ID, &e.PurchaseID, &e.Actor, &e.Action, &e.Details, &e.CreatedAt); err != nil {
				return 0, err
			}
			var d activityDetails
			if json.Unmarshal([]byte(e.Details), &d) == nil {
				e.To, e.Subject, e.Refulfill, e.KeysGenerated, e.FromStatus, e.ToStatus = d.To, d.Subject, d.Refulfill, d.KeysGenerated, d.FromStatus, d.ToStatus
			}
			if len(out) < max(limit, 1) {
				out = append(out, e)
			}
			return e.ID, nil
		})
	return out, next, err
}

// FindCustomerEmails implements shop.CustomerService: the next entries of the
// address's range of email_outbox_account_to.
func (s *CustomerService) FindCustomerEmails(ctx context.Context, accountID int64, email string, before int64, limit int) ([]shop.CustomerEmail, int64, error) {
	out := []shop.CustomerEmail{}
	next, err := customerPage(ctx, s.db.DB, "o", `SELECT o.id, o.kind, COALESCE(o.purchase_id, 0), COALESCE(o.subject, ''), o.status, o.attempts, COALESCE(o.last_error, ''), o.created_at, o.sent_at
		FROM email_outbox o FORCE INDEX (email_outbox_account_to)
		WHERE o.account_id = ? AND o.to_address = ? AND CONCAT(o.to_address, '.') = CONCAT(?, '.')`, []any{accountID, email, email}, before, limit,
		func(rows *sql.Rows) (int64, error) {
			var (
				m    shop.CustomerEmail
				sent sql.NullTime
			)
			if err := rows.Scan(&m.ID, &m.Kind, &m.PurchaseID, &m.Subject, &m.Status, &m.Attempts, &m.LastError, &m.QueuedAt, &sent); err != nil {
				return 0, err
			}
			if sent.Valid {
				t := shop.NewTime(sent.Time)
				m.SentAt = &t
			}
			if len(out) < max(limit, 1) {
				out = append(out, m)
			}
			return m.ID, nil
		})
	return out, next, err
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

// FindCustomerNotes implements shop.CustomerService: the next entries of the address's
// range of notes_customer, which holds the notes on the address and those on its
// purchases (their customer_email is the purchase's buyer address).
func (s *CustomerService) FindCustomerNotes(ctx context.Context, accountID int64, email string, before int64, limit int) ([]shop.Note, int64, error) {
	out := []shop.Note{}
	next, err := customerPage(ctx, s.db.DB, "n", `SELECT `+noteColumns+` FROM notes n FORCE INDEX (notes_customer)
		WHERE n.account_id = ? AND n.customer_email = ? AND CONCAT(n.customer_email, '.') = CONCAT(?, '.')`, []any{accountID, email, email}, before, limit,
		func(rows *sql.Rows) (int64, error) {
			n, err := scanNote(rows)
			if err == nil && len(out) < max(limit, 1) {
				out = append(out, n)
			}
			return n.ID, err
		})
	return out, next, err
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
	now := s.db.nowSecond()
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
			// The purchase's note shows on its buyer's page too.
			err := tx.QueryRowContext(ctx, "SELECT buyer_email FROM purchases WHERE account_id = ? AND id = ?", n.AccountID, n.PurchaseID).Scan(&customer)
			if errors.Is(err, sql.ErrNoRows) {
				return shop.Errorf(shop.ENotFound, "There is no purchase #%d.", n.PurchaseID)
			}
			if err != nil {
				return err
			}
			if customer != nil {
				n.CustomerEmail = *customer
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
		return recordNoteActivity(ctx, tx, &note, shop.ActionNoteDeleted, user.Email, s.db.nowSecond())
	})
	if err != nil {
		return nil, err
	}
	return &note, nil
}

func recordNoteActivity(ctx context.Context, tx *Tx, n *shop.Note, action, actor string, at time.Time) error {
	a := noteActivity{Note: n.ID, PurchaseID: n.PurchaseID, Body: n.Body}
	if n.PurchaseID == 0 {
		a.Customer = n.CustomerEmail
	}
	details, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if _, err = tx.ExecContext(ctx, `INSERT INTO account_activity (account_id, actor, action, details, created_at) VALUES (?, ?, ?, ?, ?)`,
		n.AccountID, actor, action, string(details), at); err != nil {
		return err
	}
	what := fmt.Sprintf("note %d on purchase %d", n.ID, n.PurchaseID)
	if n.PurchaseID == 0 {
		what = fmt.Sprintf("note %d on customer %s", n.ID, n.CustomerEmail)
	}
	return recordAudit(ctx, tx, at, n.AccountID, map[string]string{shop.ActionNoteAdded: shop.AuditNoteAdded, shop.ActionNoteDeleted: shop.AuditNoteDeleted}[action], what)
}

// syncBuyerEmails sets the buyer address of the account's purchases with these ids
// (every purchase when ids is nil) on their timelines' entries and notes, in the
// transaction that changed it: the customer page reads them by it.
func syncBuyerEmails(ctx context.Context, q queryer, account int64, ids []int64) error {
	if ids != nil && len(ids) == 0 {
		return nil
	}
	if ids != nil {
		return syncBuyerEmailsOf(ctx, q, account, ids)
	}
	// A subquery, not a join: Vitess plans an UPDATE with a join on no shard. (The
	// repair of every purchase of an account runs shard by shard, targeted, where
	// vtgate sends it as written; through vtgate itself a correlated subquery in SET
	// is refused, so the import's own ids take syncBuyerEmailsOf.)
	for _, stmt := range []struct{ update, purchase string }{
		{"UPDATE purchase_activity a SET a.buyer_email = (SELECT p.buyer_email FROM purchases p WHERE p.account_id = ? AND p.id = a.purchase_id) WHERE a.account_id = ?", "a.purchase_id"},
		{"UPDATE notes n SET n.customer_email = (SELECT p.buyer_email FROM purchases p WHERE p.account_id = ? AND p.id = n.purchase_id) WHERE n.account_id = ? AND n.purchase_id IS NOT NULL", "n.purchase_id"},
	} {
		for start := 0; start == 0 || start < len(ids); start += importMaxParams {
			query, args := stmt.update, []any{account, account}
			if ids != nil {
				list, in := inList(ids[start:min(start+importMaxParams, len(ids))])
				query, args = query+" AND "+stmt.purchase+" IN "+list, append(args, in...)
			}
			if _, err := q.ExecContext(ctx, query, args...); err != nil {
				return translate(err)
			}
			if ids == nil {
				break
			}
		}
	}
	return nil
}

// syncBuyerEmailsOf is syncBuyerEmails for the given purchases: their addresses are
// read first and written by a CASE on the purchase, one statement per table and chunk
// of ids, each naming the account: vtgate sends them to its shard (it refuses the
// correlated subquery in SET: "unmergable subquery can not be inside complex
// expression").
func syncBuyerEmailsOf(ctx context.Context, q queryer, account int64, ids []int64) error {
	const chunk = importMaxParams / 4
	for start := 0; start < len(ids); start += chunk {
		list, in := inList(ids[start:min(start+chunk, len(ids))])
		var cases strings.Builder
		var caseArgs []any
		err := eachRow(ctx, q, "SELECT id, buyer_email FROM purchases WHERE account_id = ? AND id IN "+list, append([]any{account}, in...),
			func(rows *sql.Rows) error {
				var id int64
				var email sql.NullString
				if err := rows.Scan(&id, &email); err != nil {
					return err
				}
				cases.WriteString(" WHEN ? THEN ?")
				caseArgs = append(caseArgs, id, email)
				return nil
			})
		if err != nil {
			return err
		}
		if len(caseArgs) == 0 {
			continue
		}
		for _, stmt := range []string{
			"UPDATE purchase_activity SET buyer_email = CASE purchase_id%s END WHERE account_id = ? AND purchase_id IN %s",
			"UPDATE notes SET customer_email = CASE purchase_id%s END WHERE account_id = ? AND purchase_id IN %s",
		} {
			args := append(append(append([]any{}, caseArgs...), account), in...)
			if _, err := q.ExecContext(ctx, fmt.Sprintf(stmt, cases.String(), list), args...); err != nil {
				return translate(err)
			}
		}
	}
	return nil
}
