package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"storefront/internal/importer"
	"storefront/internal/shop"
)

// Limits of one import statement: placeholders stay below the protocol's 65,535 and
// the statement well below max_allowed_packet (16 MiB by default) even when every
// text is escaped.
const (
	importMaxParams = 60000
	importMaxBytes  = 4 << 20
)

// BeginImport starts the transaction of an import (importer.Store) on a connection of
// its own. Foreign key checks are off for that connection while the import runs:
// the importer checks every reference before it writes, and the checks are restored
// before the connection goes back to the pool.
func (db *DB) BeginImport(ctx context.Context) (importer.Tx, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, translate(err)
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 0"); err != nil {
		conn.Close()
		return nil, translate(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		releaseImportConn(conn)
		return nil, translate(err)
	}
	return &importTx{db: db, conn: conn, tx: &Tx{Tx: tx}, accounts: map[int64]bool{}, storefronts: map[int64]bool{}}, nil
}

// releaseImportConn restores foreign key checks and returns the connection to the
// pool, or drops it when the checks cannot be restored.
func releaseImportConn(conn *sql.Conn) {
	if _, err := conn.ExecContext(context.Background(), "SET SESSION foreign_key_checks = 1"); err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	conn.Close()
}

// importTx implements importer.Tx.
type importTx struct {
	db    *DB
	conn  *sql.Conn
	tx    *Tx
	ended bool
	// accounts and storefronts hold what the import wrote to, so that the accounts'
	// reads are fenced after the commit (RecordReadFences).
	accounts    map[int64]bool
	storefronts map[int64]bool
	// hooked, hookTargets and events serve the webhook events (import_events.go).
	hooked      map[int64]bool
	hookTargets map[int64][]hookTarget
	events      int
	// looked holds what the lookup of the batch being written read (LookupBatchRefs),
	// for its UpsertPurchases.
	looked *batchRows
	// work is the preparation of the batch being written, started by its lookup.
	work <-chan *batchWork
	// rollups gathers the purchases' rollup changes of every batch, written at the
	// commit or before accounts are written, whichever comes first.
	rollups importDeltas
}

func (t *importTx) end(fn func() error) error {
	if t.ended {
		return nil
	}
	t.ended = true
	err := fn()
	releaseImportConn(t.conn)
	return translate(err)
}

// Commit implements importer.Tx. Once the import has committed, the accounts it wrote
// to read from the primary until a replica has applied it; a fence that cannot be
// recorded is logged, and the import stands.
func (t *importTx) Commit() error {
	if t.ended {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sfIDs []int64
	for id := range t.storefronts {
		sfIDs = append(sfIDs, id)
	}
	if len(sfIDs) > 0 {
		// The subscribers' accounts, through their storefronts (as committed).
		list, args := inList(sfIDs)
		err := eachRow(ctx, t.tx, "SELECT DISTINCT account_id FROM storefronts WHERE id IN "+list, args, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			t.accounts[id] = true
			return nil
		})
		if err != nil {
			_ = t.Rollback()
			return fmt.Errorf("accounts of the imported subscribers: %w", err)
		}
	}
	if err := t.rollups.apply(ctx, t.tx); err != nil {
		_ = t.Rollback()
		return err
	}
	// Last: the accounts' API answers change with this commit (versions.go).
	accounts := make([]int64, 0, len(t.accounts))
	for id := range t.accounts {
		accounts = append(accounts, id)
	}
	if err := bumpPurchaseVersions(ctx, t.tx, accounts...); err != nil {
		_ = t.Rollback()
		return err
	}
	// The commit wakes the webhook deliverer when the import wrote events.
	if err := t.end(func() error { return t.db.commit(t.tx) }); err != nil {
		return err
	}
	ids := make([]int64, 0, len(t.accounts))
	for id := range t.accounts {
		ids = append(ids, id)
	}
	if err := t.db.RecordReadFences(ctx, ids...); err != nil {
		slog.Warn("import committed; its accounts may read what was there before from a lagging replica", "err", err)
	}
	return nil
}

// Rollback implements importer.Tx.
func (t *importTx) Rollback() error { return t.end(t.tx.Rollback) }

// Argument helpers: explicit conversions spare database/sql its reflection.

// lookupPairs runs query (with one "%s" for the IN list) over ids in chunks and maps
// the first column to the second.
func (t *importTx) lookupPairs(ctx context.Context, query string, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 10000)
		list, args := inList(ids[:n])
		ids = ids[n:]
		err := func() error {
			rows, err := t.tx.QueryContext(ctx, fmt.Sprintf(query, list), args...)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var k, v int64
				if err := rows.Scan(&k, &v); err != nil {
					return err
				}
				out[k] = v
			}
			return rows.Err()
		}()
		if err != nil {
			return nil, translate(err)
		}
	}
	return out, nil
}

// LookupAccounts implements importer.Tx.
func (t *importTx) LookupAccounts(ctx context.Context, ids []int64) (map[int64]bool, error) {
	m, err := t.lookupPairs(ctx, "SELECT id, id FROM accounts WHERE id IN %s", ids)
	if err != nil {
		return nil, fmt.Errorf("look up accounts: %w", err)
	}
	out := make(map[int64]bool, len(m))
	for id := range m {
		out[id] = true
	}
	return out, nil
}

// LookupStorefronts implements importer.Tx.
func (t *importTx) LookupStorefronts(ctx context.Context, ids []int64) (map[int64]importer.StorefrontRef, error) {
	out := map[int64]importer.StorefrontRef{}
	if len(ids) == 0 {
		return out, nil
	}
	list, args := inList(ids)
	rows, err := t.tx.QueryContext(ctx, "SELECT id, account_id, currency FROM storefronts WHERE id IN "+list, args...)
	if err != nil {
		return nil, fmt.Errorf("look up storefronts: %w", translate(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ref importer.StorefrontRef
		if err := rows.Scan(&id, &ref.AccountID, &ref.Currency); err != nil {
			return nil, fmt.Errorf("look up storefronts: %w", err)
		}
		out[id] = ref
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("look up storefronts: %w", translate(err))
	}
	return out, nil
}

// LookupAPIUsername implements importer.Tx.
func (t *importTx) LookupAPIUsername(ctx context.Context, accountID int64, name string) (int64, error) {
	var id int64
	err := t.tx.QueryRowContext(ctx, "SELECT id FROM accounts WHERE api_username = ? AND id <> ? LIMIT 1", name, accountID).Scan(&id)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("look up api_username: %w", translate(err))
	}
	return id, nil
}

// unionPart is one SELECT of a lookup run as a UNION ALL: query selects the columns
// every part of the lookup selects, and has one "%s" for the IN list. Each part's rows
// are tagged with its index.
type unionPart struct {
	query string
	ids   []int64
}

// lookupUnion runs the parts in as few statements as the limits allow, and hands each
// row (its tag first) to scan.
func (t *importTx) lookupUnion(ctx context.Context, parts []unionPart, scan func(rows *sql.Rows) error) error {
	var (
		sqls []string
		args []any
	)
	flush := func() error {
		if len(sqls) == 0 {
			return nil
		}
		err := eachRow(ctx, t.tx, strings.Join(sqls, " UNION ALL "), args, scan)
		sqls, args = sqls[:0], args[:0]
		return translate(err)
	}
	for tag, p := range parts {
		for ids := p.ids; len(ids) > 0; {
			n := min(len(ids), 10000)
			if len(args)+n > importMaxParams {
				if err := flush(); err != nil {
					return err
				}
			}
			list, a := inList(ids[:n])
			sqls = append(sqls, fmt.Sprintf("(SELECT %d, "+p.query+")", tag, list))
			args = append(args, a...)
			ids = ids[n:]
		}
	}
	return flush()
}

// batchRows is what the lookup of a purchase batch found of the rows it names: the
// owners of its references, and the rows it replaces.
type batchRows struct {
	batch *importer.PurchaseBatch
	refs  importer.BatchRefs
	// purchases maps the batch's purchases that exist to their accounts; items and
	// txns map its line item and transaction ids that exist to their purchases.
	purchases, items, txns map[int64]int64
	// customers holds the batch's customers that exist, as stored.
	customers map[int64]storedCustomer
}

// storedCustomer is a customers row.
type storedCustomer struct {
	account int64
	shop.Customer
}

// lookupBatch reads, in one statement for a batch of the importer's size, what the
// checks of a purchase batch and its upsert need to know of the rows it names: the
// owners of the subscribers (subscriberIDs), customers and products, the customers
// as stored, and which of its purchases, line items and transactions exist.
func (t *importTx) lookupBatch(ctx context.Context, b *importer.PurchaseBatch, subscriberIDs []int64) (*batchRows, error) {
	custIDs := make([]int64, len(b.Customers))
	for i, c := range b.Customers {
		custIDs[i] = c.ID
	}
	prodIDs := make([]int64, len(b.Products))
	for i, p := range b.Products {
		prodIDs[i] = p.ID
	}
	ids := make([]int64, len(b.Purchases))
	var itemIDs, txnIDs []int64
	for i, p := range b.Purchases {
		ids[i] = p.ID
		for _, li := range p.LineItems {
			itemIDs = append(itemIDs, li.ID)
		}
		for _, tr := range p.Transactions {
			txnIDs = append(txnIDs, tr.ID)
		}
	}
	// Every part selects a customer's columns; the others fill them with NULL.
	const none = ", NULL, NULL, NULL, NULL, NULL, NULL"
	const (
		tagSubscriber = iota
		tagCustomer
		tagProduct
		tagPurchase
		tagItem
		tagTxn
	)
	r := &batchRows{batch: b,
		refs:      importer.BatchRefs{SubscriberAccounts: map[int64]int64{}, CustomerAccounts: map[int64]int64{}, ProductStorefronts: map[int64]int64{}},
		purchases: map[int64]int64{}, items: map[int64]int64{}, txns: map[int64]int64{}, customers: map[int64]storedCustomer{}}
	err := t.lookupUnion(ctx, []unionPart{
		tagSubscriber: {"sb.id, sf.account_id" + none + " FROM " + subscribersByID + " WHERE sb.id IN %s", subscriberIDs},
		tagCustomer:   {"id, account_id, firstname, lastname, email, receives_email, created_at, updated_at FROM customers WHERE id IN %s", custIDs},
		tagProduct:    {"id, storefront_id" + none + " FROM products WHERE id IN %s", prodIDs},
		tagPurchase:   {"id, account_id" + none + " FROM purchases WHERE id IN %s", ids},
		tagItem:       {"id, purchase_id" + none + " FROM line_items WHERE id IN %s", itemIDs},
		tagTxn:        {"id, purchase_id" + none + " FROM transactions WHERE id IN %s", txnIDs},
	}, func(rows *sql.Rows) error {
		var (
			tag              int
			k, v             int64
			first, last, em  sql.NullString
			receives         sql.NullBool
			created, updated sql.NullTime
		)
		if err := rows.Scan(&tag, &k, &v, &first, &last, &em, &receives, &created, &updated); err != nil {
			return err
		}
		switch tag {
		case tagSubscriber:
			r.refs.SubscriberAccounts[k] = v
		case tagCustomer:
			r.refs.CustomerAccounts[k] = v
			c := storedCustomer{account: v, Customer: shop.Customer{ID: k, ReceivesEmail: receives.Bool}}
			c.Firstname, c.Lastname, c.Email = nullStr(first), nullStr(last), nullStr(em)
			c.CreatedAt.Time, c.UpdatedAt.Time = created.Time, updated.Time
			r.customers[k] = c
		case tagProduct:
			r.refs.ProductStorefronts[k] = v
		case tagPurchase:
			r.purchases[k] = v
		case tagItem:
			r.items[k] = v
		case tagTxn:
			r.txns[k] = v
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

func nullStr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}

// LookupBatchRefs implements importer.Tx: what it reads of the batch's rows is kept for
// the batch's UpsertPurchases.
func (t *importTx) LookupBatchRefs(ctx context.Context, b *importer.PurchaseBatch, subscriberIDs []int64) (*importer.BatchRefs, error) {
	// Go prepares the batch's rows while the database looks.
	t.work = prepare(b)
	r, err := t.lookupBatch(ctx, b, subscriberIDs)
	if err != nil {
		return nil, fmt.Errorf("look up references: %w", err)
	}
	t.looked = r
	return &r.refs, nil
}

// changedCustomers returns the customers of the batch that exist with other values
// than the batch gives them, by account.
func (r *batchRows) changedCustomers() map[int64][]int64 {
	changed := map[int64][]int64{}
	for _, n := range r.batch.Customers {
		if _, ok := r.customers[n.ID]; ok && !r.unchanged(n) {
			changed[n.AccountID] = append(changed[n.AccountID], n.ID)
		}
	}
	return changed
}

// unchanged reports whether the customer is stored exactly as the batch gives it.
func (r *batchRows) unchanged(n importer.CustomerRow) bool {
	c, ok := r.customers[n.ID]
	return ok && c.account == n.AccountID && sameCustomer(c.Customer, n.Customer)
}

func sameCustomer(a, b shop.Customer) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.Firstname, b.Firstname) && eq(a.Lastname, b.Lastname) && eq(a.Email, b.Email) &&
		a.ReceivesEmail == b.ReceivesEmail && a.CreatedAt.Unix() == b.CreatedAt.Unix() && a.UpdatedAt.Unix() == b.UpdatedAt.Unix()
}
