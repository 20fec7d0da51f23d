package mysql

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"

	"storefront/internal/shop"
)

// idempotencyWindow is how long an Idempotency-Key answers with its first response
// (docs/API.md#reactivation).
const idempotencyWindow = 24 * time.Hour

// Reactivate reactivates a purchase (docs/API.md#reactivation): in one transaction the
// status becomes ACT, every line item's downloads are reset to the storefront's current
// limit and window, missing product keys are generated when refulfilling, the activity is
// recorded and the "purchase ready" e-mail is queued. With an idempotency key, a repeat
// within 24 hours answers as the first request did and changes nothing.
func (s *PurchaseService) Reactivate(ctx context.Context, req shop.ReactivateRequest) (*shop.ReactivateResult, error) {
	db := s.db
	var res *shop.ReactivateResult
	// A concurrent request with the same idempotency key loses the race on the unique
	// key; running again then finds the winner's answer.
	//
	// READ COMMITTED: under REPEATABLE READ the look-up of an idempotency key that is
	// not there yet (DELETE ... and SELECT ... FOR UPDATE) takes a gap lock on the
	// key's unique index, and two reactivations of different purchases whose keys fall
	// into the same gap then deadlock on their INSERTs. The purchase row lock still
	// serialises reactivations of one purchase. Reactivations of one account's
	// purchases do not deadlock: each locks its own purchase's rows, through the index
	// its statements name, then the rollup rows in key order and the version row last
	// (TestReactivate_ConcurrentAfterRestart). A deadlock that happens anyway rolled the
	// whole transaction back, so it is run again.
	rc := &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	for attempt := 0; ; attempt++ {
		var answer error
		err := db.inTxWith(ctx, rc, func(tx *Tx) error {
			var err error
			res, err = db.reactivate(ctx, tx, req)
			var ce *committedError
			if errors.As(err, &ce) {
				answer = ce.error
				return nil
			}
			if err != nil || res.Replayed {
				return err
			}
			return recordAudit(ctx, tx, db.Now(), req.AccountID, shop.AuditReactivated,
				fmt.Sprintf("purchase %d, e-mail to %s, refulfill %v, %d keys made", req.PurchaseID, res.To, req.Refulfill, res.KeysGenerated))
		})
		if err == nil && answer != nil {
			return nil, answer
		}
		if isDuplicate(err) && req.IdempotencyKey != "" && attempt < 2 {
			continue
		}
		if isDeadlock(err) && attempt < reactivateDeadlockRetries {
			db.deadlockRetried(retryReactivate)
			// The victim waits a moment, longer each time and at random, so that the
			// two do not meet again at once.
			time.Sleep(time.Duration(min(attempt+1, 10)) * time.Duration(1+mrand.IntN(5)) * time.Millisecond)
			continue
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

// reactivateDeadlockRetries is how many times a reactivation that InnoDB rolled back as
// a deadlock's victim is run again; a victim waits at most 50 ms a time. A safety net:
// the deadlocks TestDatabaseDown met (one reactivation answered 500 after eight
// retries) came from the status UPDATE locking every purchase of the account, with
// statistics older than the data, and no longer happen.
const reactivateDeadlockRetries = 20

type idemOutcome struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	Param   string `json:"param,omitempty"`
	To      string `json:"to,omitempty"`
	Keys    int    `json:"keys,omitempty"`
}

// reactivated is the purchase a reactivation locked, as it was before.
type reactivated struct {
	status       shop.PurchaseStatus
	storefrontID int64
	customerID   sql.NullInt64
	buyerEmail   sql.NullString
	createdAt    time.Time
}

func (db *DB) reactivate(ctx context.Context, tx *Tx, req shop.ReactivateRequest) (*shop.ReactivateResult, error) {
	now := db.nowSecond()
	var p reactivated
	// Lock the purchase row only: reactivations of other purchases of the same
	// storefront or customer go on in parallel. A purchase not in the account is a 404
	// before anything about the request is looked at.
	err := tx.QueryRowContext(ctx, "SELECT status, storefront_id, customer_id, buyer_email, created_at FROM purchases WHERE id = ? AND account_id = ? FOR UPDATE",
		req.PurchaseID, req.AccountID).Scan(&p.status, &p.storefrontID, &p.customerID, &p.buyerEmail, &p.createdAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shop.Errorf(shop.ENotFound, "Purchase %d was not found.", req.PurchaseID)
	}
	if err != nil {
		return nil, translate(err)
	}
	if req.ParamsErr != nil {
		return nil, req.ParamsErr
	}
	var reqHash []byte
	if req.IdempotencyKey != "" {
		// Blank is the same as no address; any other address counts as given.
		email := req.CustomerEmail
		if strings.TrimSpace(email) == "" {
			email = ""
		}
		h := sha256.Sum256([]byte(fmt.Sprintf("%q|%v", email, req.Refulfill)))
		reqHash = h[:]
		// The key is looked up, and an expired one deleted, through the unique key
		// alone: a condition on created_at let the server read idempotency_keys_created
		// instead, and that range scan locked the first key past the window, of any
		// purchase, until the commit, so that every reactivation with a key waited for
		// that one row while holding its own purchase.
		var (
			stored  []byte
			body    string
			created time.Time
		)
		err := tx.QueryRowContext(ctx, "SELECT request_hash, response_body, created_at FROM idempotency_keys WHERE account_id = ? AND purchase_id = ? AND idem_key = ? FOR UPDATE",
			req.AccountID, req.PurchaseID, req.IdempotencyKey).Scan(&stored, &body, &created)
		if err == nil && !created.After(now.Add(-idempotencyWindow)) {
			if _, err := tx.ExecContext(ctx, "DELETE FROM idempotency_keys WHERE account_id = ? AND purchase_id = ? AND idem_key = ?",
				req.AccountID, req.PurchaseID, req.IdempotencyKey); err != nil {
				return nil, translate(err)
			}
			err = sql.ErrNoRows
		}
		switch {
		case err == nil:
			if string(stored) != string(reqHash) {
				return nil, shop.ParamErrorf(shop.EIdempotency, "Idempotency-Key", "This Idempotency-Key was used with other parameters for this purchase.")
			}
			var o idemOutcome
			if err := json.Unmarshal([]byte(body), &o); err != nil {
				return nil, fmt.Errorf("stored idempotent answer: %w", err)
			}
			if o.Code != "" {
				return nil, &shop.Error{Code: o.Code, Message: o.Message, Param: o.Param}
			}
			return &shop.ReactivateResult{To: o.To, KeysGenerated: o.Keys, Replayed: true}, nil
		case !errors.Is(err, sql.ErrNoRows):
			return nil, translate(err)
		}
	}

	res, err := db.reactivateOnce(ctx, tx, req, p, now)
	var se *shop.Error
	// Only answers fixed by the purchase's state are remembered: a request that failed
	// for another reason did nothing, and may be tried again with the same key.
	if req.IdempotencyKey != "" && (err == nil || (errors.As(err, &se) && se.Code == shop.EConflict)) {
		o := idemOutcome{}
		status := 200
		if err != nil {
			o = idemOutcome{Code: se.Code, Message: se.Message, Param: se.Param}
			status = 409
		} else {
			o.To, o.Keys = res.To, res.KeysGenerated
		}
		body, _ := json.Marshal(o)
		if _, ierr := tx.ExecContext(ctx, `INSERT INTO idempotency_keys (account_id, purchase_id, idem_key, request_hash, response_status, response_body, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, req.AccountID, req.PurchaseID, req.IdempotencyKey, reqHash, status, string(body), now); ierr != nil {
			return nil, translate(ierr)
		}
		if err != nil {
			// The 409 is the answer, and remembering it must be committed too.
			return nil, &committedError{err}
		}
	}
	return res, err
}

// committedError is an answer that is an error for the caller but whose transaction
// must still commit (the remembered idempotent answer).
type committedError struct{ error }

func (e *committedError) Unwrap() error { return e.error }

func (db *DB) reactivateOnce(ctx context.Context, tx *Tx, req shop.ReactivateRequest, p reactivated, now time.Time) (*shop.ReactivateResult, error) {
	var (
		downloadLimit, downloadDay int64
		customerEmail              sql.NullString
	)
	status, storefrontID, customerID := p.status, p.storefrontID, p.customerID
	if err := tx.QueryRowContext(ctx, "SELECT download_limit, download_days FROM storefronts WHERE account_id = ? AND id = ?", req.AccountID, storefrontID).
		Scan(&downloadLimit, &downloadDay); err != nil {
		return nil, translate(err)
	}
	if customerID.Valid {
		err := tx.QueryRowContext(ctx, "SELECT email FROM customers WHERE account_id = ? AND id = ?", req.AccountID, customerID.Int64).Scan(&customerEmail)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, translate(err)
		}
	}
	if !status.Reactivatable() {
		return nil, shop.Errorf(shop.EConflict, "Purchase %d is %s (%s) and cannot be reactivated; only ACT, PND and ERR purchases can.", req.PurchaseID, status, strings.ToLower(status.Label()))
	}
	to, err := shop.Recipient(req.PurchaseID, req.CustomerEmail, customerEmail.String, p.buyerEmail.String)
	if err != nil {
		return nil, err
	}

	var expires any
	if downloadDay > 0 {
		expires = now.Add(time.Duration(downloadDay) * 24 * time.Hour)
	}
	roll, err := trackRollups(ctx, tx, req.AccountID, req.PurchaseID)
	if err != nil {
		return nil, err
	}
	// Its status's pairs' rows go: ACT has none.
	if err := deleteStatusPairs(ctx, tx, req.AccountID, req.PurchaseID, status, p.buyerEmail, p.createdAt); err != nil {
		return nil, err
	}
	// Every locking statement names the index of its own rows. Planned by the
	// statistics alone, this UPDATE ran over an index of the account's purchases
	// whenever InnoDB's statistics had the table nearly empty (they are saved when it
	// is created, and read back as they were when the server starts again before it
	// recomputes them), and locked every purchase of the account it passed: two
	// reactivations, each holding its own purchase, then waited for each other.
	if _, err := tx.ExecContext(ctx, "UPDATE purchases FORCE INDEX (PRIMARY) SET status = 'ACT', updated_at = ? WHERE account_id = ? AND id = ?", now, req.AccountID, req.PurchaseID); err != nil {
		return nil, translate(err)
	}
	if err := roll.apply(ctx, tx); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, "UPDATE line_items FORCE INDEX (line_items_purchase) SET download_count = 0, download_limit = ?, expires_at = ? WHERE account_id = ? AND purchase_id = ?",
		downloadLimit, expires, req.AccountID, req.PurchaseID); err != nil {
		return nil, translate(err)
	}
	res := &shop.ReactivateResult{To: to}
	if req.Refulfill {
		n, err := refulfill(ctx, tx, req.AccountID, req.PurchaseID)
		if err != nil {
			return nil, err
		}
		res.KeysGenerated = n
	}

	details, _ := json.Marshal(map[string]any{"to": to, "refulfill": req.Refulfill, "keys_generated": res.KeysGenerated, "from_status": status})
	if err := addActivity(ctx, tx, req.AccountID, req.PurchaseID, p.buyerEmail, req.Actor, "reactivated", string(details), now); err != nil {
		return nil, err
	}

	purchase, err := findPurchaseByID(ctx, tx, req.AccountID, req.PurchaseID)
	if err != nil {
		return nil, err
	}
	// The stored document follows the rows, in the same transaction, and so does the
	// status its prefix rows hold.
	if err := storeDocuments(ctx, tx, req.AccountID, []*shop.Purchase{purchase}); err != nil {
		return nil, err
	}
	if status != purchase.Status {
		if err := setPrefixStatus(ctx, tx, req.AccountID, purchase); err != nil {
			return nil, err
		}
	}
	if err := reactivatedEvent(ctx, tx, req.AccountID, purchase, now); err != nil {
		return nil, err
	}
	// internal/mail writes the e-mail when it sends it, from the purchase as it is then.
	if _, err := enqueueEmail(ctx, tx, shop.Email{AccountID: req.AccountID, Kind: shop.EmailPurchaseReady, PurchaseID: req.PurchaseID,
		To: to, Facts: shop.EmailFacts{Refulfill: req.Refulfill}}, now); err != nil {
		return nil, err
	}
	details, _ = json.Marshal(map[string]any{"to": to, "kind": shop.EmailPurchaseReady})
	if err := addActivity(ctx, tx, req.AccountID, req.PurchaseID, p.buyerEmail, "system", "email_queued", string(details), now); err != nil {
		return nil, err
	}
	// Last: the account's API answers change with this commit (versions.go).
	if err := bumpPurchaseVersions(ctx, tx, req.AccountID); err != nil {
		return nil, err
	}
	return res, nil
}

// refulfill tops up every line item's product keys to its quantity, keeping the keys
// already delivered, and returns how many it made.
func refulfill(ctx context.Context, tx *Tx, accountID, purchaseID int64) (int, error) {
	type item struct{ id, quantity, keys, next int64 }
	var items []item
	// Each line item with its key count and the position after its highest key
	// (positions continue after it, whatever gaps an import left): one join, which
	// Vitess plans within the account's shard, where a correlated count would not be.
	err := eachRow(ctx, tx, `SELECT li.id, li.quantity, COUNT(k.position), COALESCE(MAX(k.position), -1) + 1
		FROM line_items li LEFT JOIN product_keys k ON k.account_id = li.account_id AND k.line_item_id = li.id
		WHERE li.account_id = ? AND li.purchase_id = ? GROUP BY li.id, li.quantity ORDER BY li.id`, []any{accountID, purchaseID}, func(rows *sql.Rows) error {
		var it item
		if err := rows.Scan(&it.id, &it.quantity, &it.keys, &it.next); err != nil {
			return err
		}
		items = append(items, it)
		return nil
	})
	if err != nil {
		return 0, err
	}
	made := 0
	for _, it := range items {
		next := it.next
		for n := it.keys; n < it.quantity; n++ {
			if _, err := tx.ExecContext(ctx, "INSERT INTO product_keys (line_item_id, position, account_id, purchase_id, key_value) VALUES (?, ?, ?, ?, ?)",
				it.id, next, accountID, purchaseID, newProductKey()); err != nil {
				return 0, translate(err)
			}
			next++
			made++
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE line_items FORCE INDEX (line_items_purchase) SET has_all_keys = TRUE WHERE account_id = ? AND purchase_id = ?", accountID, purchaseID); err != nil {
		return 0, translate(err)
	}
	return made, nil
}

// newProductKey makes a product key such as "7KQ2M-XW9PD-3RTFB-H6NCA": 100 bits from an
// alphabet without look-alike characters.
func newProductKey() string {
	const alphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	var sb strings.Builder
	for i, c := range b {
		if i > 0 && i%5 == 0 {
			sb.WriteByte('-')
		}
		sb.WriteByte(alphabet[int(c)%len(alphabet)])
	}
	return sb.String()
}
