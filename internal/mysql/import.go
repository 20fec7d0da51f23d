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
	return &importTx{db: db, conn: conn, tx: tx, accounts: map[int64]bool{}, storefronts: map[int64]bool{}}, nil
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
	tx    *sql.Tx
	ended bool
	// accounts and storefronts hold what the import wrote to, so that the accounts'
	// reads are fenced after the commit (RecordReadFences).
	accounts    map[int64]bool
	storefronts map[int64]bool
	// hooked, hookTargets and events serve the webhook events (import_events.go).
	hooked      map[int64]bool
	hookTargets map[int64][]hookTarget
	events      int
	// docStmt writes documentBatch documents (storeDocuments); the transaction
	// closes it.
	docStmt *sql.Stmt
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
		list, args := importInList(sfIDs)
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
	if err := t.end(t.tx.Commit); err != nil {
		return err
	}
	if t.events > 0 {
		t.db.webhookEventsWritten()
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

// insertRows runs "head VALUES (...),(...) tail" over args, a flat list of rows of
// cols values each, in as many statements as the limits require.
func (t *importTx) insertRows(ctx context.Context, head string, cols int, tail string, args []any) error {
	maxRows := importMaxParams / cols
	for start := 0; start < len(args); {
		rows, size := 0, 0
		end := start
		for end < len(args) && rows < maxRows && (rows == 0 || size < importMaxBytes) {
			for _, a := range args[end : end+cols] {
				if s, ok := a.(string); ok {
					size += 2*len(s) + 3
				} else {
					size += 24
				}
			}
			end += cols
			rows++
		}
		q := head + " VALUES " + rowPlaceholders(rows, cols) + " " + tail
		if _, err := t.tx.ExecContext(ctx, q, args[start:end]...); err != nil {
			return translate(err)
		}
		start = end
	}
	return nil
}

// deleteIn runs "DELETE FROM table WHERE col IN (ids)" in chunks.
func (t *importTx) deleteIn(ctx context.Context, table, col string, ids []int64) error {
	for len(ids) > 0 {
		n := min(len(ids), 10000)
		list, args := importInList(ids[:n])
		if _, err := t.tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE "+col+" IN "+list, args...); err != nil {
			return translate(err)
		}
		ids = ids[n:]
	}
	return nil
}

// lookupPairs runs query (with one "%s" for the IN list) over ids in chunks and maps
// the first column to the second.
func (t *importTx) lookupPairs(ctx context.Context, query string, ids []int64) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 10000)
		list, args := importInList(ids[:n])
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
	list, args := importInList(ids)
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
			list, a := importInList(ids[:n])
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

// Argument helpers: explicit conversions spare database/sql its reflection.

func importStr(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func importMoney(m *shop.Money) any {
	if m == nil {
		return nil
	}
	return string(*m)
}

func importTime(t *shop.Time) any {
	if t == nil {
		return nil
	}
	return t.Time
}

func importInt(n *int64) any {
	if n == nil {
		return nil
	}
	return *n
}

// UpsertAccounts implements importer.Tx.
func (t *importTx) UpsertAccounts(ctx context.Context, accounts []*shop.Account) error {
	if len(accounts) == 0 {
		return nil
	}
	// A change of zone rebuilds the account's rollups from its rows: the changes
	// gathered so far are written first, in the zone they were counted in.
	if err := t.rollups.apply(ctx, t.tx); err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	t.rollups.forgetZones()
	args := make([]any, 0, 4*len(accounts))
	for _, a := range accounts {
		t.accounts[a.ID] = true
		args = append(args, a.ID, a.Name, a.APIUsername, a.Timezone)
	}
	zones, err := trackAccountZones(ctx, t.tx, accounts)
	if err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	err = t.insertRows(ctx, "INSERT INTO accounts (id, name, api_username, timezone)", 4,
		"ON DUPLICATE KEY UPDATE name = VALUES(name), api_username = VALUES(api_username), timezone = VALUES(timezone)", args)
	if err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	if err := zones.apply(ctx, t.tx); err != nil {
		return fmt.Errorf("upsert accounts: %w", err)
	}
	return nil
}

// UpsertStorefronts implements importer.Tx.
func (t *importTx) UpsertStorefronts(ctx context.Context, storefronts []*shop.Storefront) error {
	if len(storefronts) == 0 {
		return nil
	}
	args := make([]any, 0, 7*len(storefronts))
	for _, s := range storefronts {
		t.accounts[s.AccountID] = true
		args = append(args, s.ID, s.AccountID, s.Name, importStr(s.Currency), s.DownloadLimit, s.DownloadDays, s.PastDueGraceDays)
	}
	err := t.insertRows(ctx, "INSERT INTO storefronts (id, account_id, name, currency, download_limit, download_days, past_due_grace_days)", 7,
		"ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), name = VALUES(name), currency = VALUES(currency), "+
			"download_limit = VALUES(download_limit), download_days = VALUES(download_days), past_due_grace_days = VALUES(past_due_grace_days)", args)
	if err != nil {
		return fmt.Errorf("upsert storefronts: %w", err)
	}
	return nil
}

// UpsertSubscribers implements importer.Tx.
func (t *importTx) UpsertSubscribers(ctx context.Context, subs []*shop.Subscriber) error {
	if len(subs) == 0 {
		return nil
	}
	hookBefore, err := t.subscriptionsBefore(ctx, subs)
	if err != nil {
		return fmt.Errorf("subscriptions before: %w", err)
	}
	sfIDs := make([]int64, len(subs))
	for i, s := range subs {
		sfIDs[i] = s.StorefrontID
	}
	// Subscribers and their subscriptions carry their storefront's account.
	accountOf, err := t.lookupPairs(ctx, "SELECT id, account_id FROM storefronts WHERE id IN %s", sfIDs)
	if err != nil {
		return fmt.Errorf("find storefront accounts: %w", err)
	}
	ids := make([]int64, len(subs))
	var subIDs []int64
	args := make([]any, 0, 7*len(subs))
	var subArgs []any
	for i, s := range subs {
		t.storefronts[s.StorefrontID] = true
		ids[i] = s.ID
		account := accountOf[s.StorefrontID]
		args = append(args, s.ID, account, s.StorefrontID, s.Username, s.CreatedAt.Time, s.UpdatedAt.Time, importTime(s.LastLoginAt))
		if ss := s.Subscription; ss != nil {
			subIDs = append(subIDs, ss.ID)
			subArgs = append(subArgs, ss.ID, account, s.ID, string(ss.Status), string(ss.Price), ss.Period, ss.Unit, string(ss.TaxAmount),
				importMoney(ss.TrialPrice), importInt(ss.TrialPeriod), importStr(ss.TrialUnit), importMoney(ss.TrialTaxAmount),
				ss.CreatedAt.Time, ss.UpdatedAt.Time, importTime(ss.StartedAt), importTime(ss.EndedAt), importTime(ss.TrialStartedAt),
				importTime(ss.LastPaymentAt), importTime(ss.NextPaymentAt))
		}
	}
	roll, err := trackSubscriberRollups(ctx, t.tx, ids, subIDs)
	if err != nil {
		return err
	}
	err = t.insertRows(ctx, "INSERT INTO subscribers (id, account_id, storefront_id, username, created_at, updated_at, last_login_at)", 7,
		"ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), storefront_id = VALUES(storefront_id), username = VALUES(username), created_at = VALUES(created_at), "+
			"updated_at = VALUES(updated_at), last_login_at = VALUES(last_login_at)", args)
	if err != nil {
		return fmt.Errorf("upsert subscribers: %w", err)
	}
	// The timeline of a subscriber that moved to another account's storefront goes with it.
	if err := t.followAccount(ctx, "UPDATE subscriber_activity a JOIN subscribers sb ON sb.id = a.subscriber_id SET a.account_id = sb.account_id "+
		"WHERE a.account_id <> sb.account_id AND a.subscriber_id IN ", ids); err != nil {
		return fmt.Errorf("move subscriber activity: %w", err)
	}
	// The imported subscription replaces the subscriber's, and takes its id from
	// whichever subscriber held it.
	if err := t.deleteIn(ctx, "subscriptions", "subscriber_id", ids); err != nil {
		return fmt.Errorf("replace subscriptions: %w", err)
	}
	if err := t.deleteIn(ctx, "subscriptions", "id", subIDs); err != nil {
		return fmt.Errorf("replace subscriptions: %w", err)
	}
	if len(subArgs) > 0 {
		err = t.insertRows(ctx, "INSERT INTO subscriptions (id, account_id, subscriber_id, status, price, period, unit, tax_amount, trial_price, "+
			"trial_period, trial_unit, trial_tax_amount, created_at, updated_at, started_at, ended_at, trial_started_at, "+
			"last_payment_at, next_payment_at)", 19, "", subArgs)
		if err != nil {
			return fmt.Errorf("insert subscriptions: %w", err)
		}
	}
	if err := t.subscriptionEvents(ctx, subs, hookBefore); err != nil {
		return fmt.Errorf("subscription events: %w", err)
	}
	return roll.apply(ctx, t.tx)
}

// importPurchaseInsert is the column list of purchases written by an import; to_ship is
// generated by the database.
const importPurchaseInsert = "INSERT INTO purchases (id, account_id, storefront_id, customer_id, subscriber_id, created_at, updated_at, " +
	"salt, status, currency, subtotal, discount, tax, shipping, total, processor_fee, buyer_email, buyer_firstname, " +
	"buyer_lastname, customer_notes, shipping_firstname, shipping_lastname, shipping_street, shipping_street2, " +
	"shipping_city, shipping_state, shipping_zip_code, shipping_country_code, shipping_country, shipping_phone, " +
	"shipping_vatin, shipping_business_name, shipping_carrier, shipping_tracking_number, requires_shipping, " +
	"tangibles_to_ship, billing_firstname, billing_lastname, billing_street, billing_street2, billing_city, " +
	"billing_state, billing_zip_code, billing_country_code, billing_card_type, billing_card_number, ip_address, " +
	"marketing_optin)"

const importPurchaseCols = 48

// importPurchaseUpdate sets every column but id from the new row.
var importPurchaseUpdate = func() string {
	cols := strings.Split(strings.TrimSuffix(strings.SplitN(importPurchaseInsert, "(", 2)[1], ")"), ", ")
	set := make([]string, 0, len(cols)-1)
	for _, c := range cols[1:] {
		set = append(set, c+" = VALUES("+c+")")
	}
	return "ON DUPLICATE KEY UPDATE " + strings.Join(set, ", ")
}()

// UpsertPurchases implements importer.Tx.
func (t *importTx) UpsertPurchases(ctx context.Context, b *importer.PurchaseBatch) error {
	for _, p := range b.Purchases {
		t.accounts[p.AccountID] = true
	}
	for _, c := range b.Customers {
		t.accounts[c.AccountID] = true
	}
	// What exists of the batch's rows, as read by its references' lookup.
	found := t.looked
	t.looked = nil
	if found == nil || found.batch != b {
		var err error
		if found, err = t.lookupBatch(ctx, b, nil); err != nil {
			return fmt.Errorf("find existing rows: %w", err)
		}
	}
	// Documents embed their customer: a customer that this batch changes changes the
	// documents of its other purchases too.
	changedCustomers := found.changedCustomers()
	// A customer stored as the batch gives it (written by an earlier batch, or by an
	// earlier import) is left as it is.
	var custArgs []any
	for _, c := range b.Customers {
		if !found.unchanged(c) {
			custArgs = append(custArgs, c.ID, c.AccountID, importStr(c.Firstname), importStr(c.Lastname), importStr(c.Email), c.ReceivesEmail, c.CreatedAt.Time, c.UpdatedAt.Time)
		}
	}
	if len(custArgs) > 0 {
		err := t.insertRows(ctx, "INSERT INTO customers (id, account_id, firstname, lastname, email, receives_email, created_at, updated_at)", 8,
			"ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), firstname = VALUES(firstname), lastname = VALUES(lastname), "+
				"email = VALUES(email), receives_email = VALUES(receives_email), created_at = VALUES(created_at), updated_at = VALUES(updated_at)", custArgs)
		if err != nil {
			return fmt.Errorf("upsert customers: %w", err)
		}
	}
	if len(b.Products) > 0 {
		sfIDs := make([]int64, len(b.Products))
		for i, p := range b.Products {
			sfIDs[i] = p.StorefrontID
		}
		accountOf, err := t.lookupPairs(ctx, "SELECT id, account_id FROM storefronts WHERE id IN %s", sfIDs)
		if err != nil {
			return fmt.Errorf("find storefront accounts: %w", err)
		}
		args := make([]any, 0, 4*len(b.Products))
		for _, p := range b.Products {
			args = append(args, p.ID, accountOf[p.StorefrontID], p.StorefrontID, p.Name)
		}
		// An existing product keeps its name: line items carry their own.
		if err := t.insertRows(ctx, "INSERT INTO products (id, account_id, storefront_id, name)", 4, "ON DUPLICATE KEY UPDATE id = id", args); err != nil {
			return fmt.Errorf("insert products: %w", err)
		}
	}
	if len(b.Purchases) == 0 {
		return nil
	}

	w := t.prepared(b)
	if w.err != nil {
		return w.err
	}
	// Nested collections are replaced: what the purchases had goes, and so do line
	// items and transactions whose ids the batch takes over from other purchases.
	// Foreign key checks are off, so nothing cascades: product keys go explicitly.
	// The batch's lookup found what exists; a batch of new purchases deletes nothing.
	roll, err := trackImportRollups(ctx, t.tx, found.purchases)
	if err != nil {
		return err
	}
	old := make([]int64, 0, len(found.purchases))
	for id := range found.purchases {
		old = append(old, id)
	}
	// moved returns the ids held by purchases other than those replaced here.
	moved := func(held map[int64]int64) []int64 {
		var out []int64
		for id, purchase := range held {
			if _, replaced := found.purchases[purchase]; !replaced {
				out = append(out, id)
			}
		}
		return out
	}
	movedItems, movedTxns := moved(found.items), moved(found.txns)
	for _, d := range []struct {
		table, col string
		ids        []int64
	}{
		{"product_keys", "purchase_id", old},
		{"product_keys", "line_item_id", movedItems},
		{"line_items", "purchase_id", old},
		{"line_items", "id", movedItems},
		{"transactions", "purchase_id", old},
		{"transactions", "id", movedTxns},
		{"coupons", "purchase_id", old},
		{"custom_fields", "purchase_id", old},
	} {
		if err := t.deleteIn(ctx, d.table, d.col, d.ids); err != nil {
			return fmt.Errorf("replace %s: %w", d.table, err)
		}
	}
	// The product paths and documents of replaced purchases go with their old account
	// (an import may move a purchase); the new ones are written below.
	oldByAccount := map[int64][]int64{}
	for id, account := range found.purchases {
		oldByAccount[account] = append(oldByAccount[account], id)
	}
	newAccount := make(map[int64]int64, len(b.Purchases))
	for _, p := range b.Purchases {
		newAccount[p.ID] = p.AccountID
	}
	for account, old := range oldByAccount {
		if err := t.deleteInAccount(ctx, "purchase_products", account, old); err != nil {
			return fmt.Errorf("replace purchase_products: %w", err)
		}
		var moved []int64
		for _, id := range old {
			if newAccount[id] != account {
				moved = append(moved, id)
			}
		}
		if err := t.deleteInAccount(ctx, "purchase_documents", account, moved); err != nil {
			return fmt.Errorf("replace purchase_documents: %w", err)
		}
		// Found by the keys the old rows give them, so before the rows change.
		if err := deletePrefixes(ctx, t.tx, account, old); err != nil {
			return fmt.Errorf("replace purchase_prefixes: %w", err)
		}
	}
	if err := t.insertRows(ctx, importPurchaseInsert, importPurchaseCols, importPurchaseUpdate, w.args); err != nil {
		return fmt.Errorf("upsert purchases: %w", err)
	}
	idsByAccount := map[int64][]int64{}
	for _, p := range b.Purchases {
		idsByAccount[p.AccountID] = append(idsByAccount[p.AccountID], p.ID)
	}
	for account, ids := range idsByAccount {
		if err := writePrefixes(ctx, t.tx, account, ids); err != nil {
			return err
		}
	}
	// The timeline of a purchase that moved to another account goes with it.
	var movedAccount []int64
	for id, account := range found.purchases {
		if newAccount[id] != account {
			movedAccount = append(movedAccount, id)
		}
	}
	if err := t.followAccount(ctx, "UPDATE purchase_activity a JOIN purchases p ON p.id = a.purchase_id SET a.account_id = p.account_id WHERE a.purchase_id IN ", movedAccount); err != nil {
		return fmt.Errorf("move purchase activity: %w", err)
	}
	if err := t.rollups.add(ctx, t.tx, roll, b.Purchases, w.facts); err != nil {
		return err
	}
	for _, in := range []struct {
		head string
		cols int
		args []any
		tail string
	}{
		{"INSERT INTO purchase_products (account_id, product_id, created_at, purchase_id)", 4, w.products, "ON DUPLICATE KEY UPDATE purchase_id = purchase_id"},
		{"INSERT INTO line_items (id, account_id, purchase_id, product_id, price, quantity, subtotal, tax, discount, total, product_name, " +
			"download_limit, download_count, expires_at, has_all_keys)", 15, w.items, ""},
		{"INSERT INTO product_keys (line_item_id, position, account_id, purchase_id, key_value)", 5, w.keys, ""},
		{"INSERT INTO coupons (account_id, purchase_id, position, name, code, discount_amount, discount_type)", 7, w.coupons, ""},
		{"INSERT INTO custom_fields (account_id, purchase_id, position, label, response)", 5, w.fields, ""},
		{"INSERT INTO transactions (id, account_id, purchase_id, action, amount, currency, gateway, is_success, reference, message, " +
			"created_at, updated_at)", 12, w.txns, ""},
	} {
		if len(in.args) == 0 {
			continue
		}
		if err := t.insertRows(ctx, in.head, in.cols, in.tail, in.args); err != nil {
			return fmt.Errorf("insert %s: %w", strings.Fields(in.head)[2], err)
		}
	}
	if err := t.writeDocuments(ctx, b, changedCustomers, w.docs); err != nil {
		return fmt.Errorf("write documents: %w", err)
	}
	return nil
}

// followAccount runs update, which ends in "IN ", with the ids as its list, in chunks.
func (t *importTx) followAccount(ctx context.Context, update string, ids []int64) error {
	for start := 0; start < len(ids); start += importMaxParams {
		list, args := importInList(ids[start:min(start+importMaxParams, len(ids))])
		if _, err := t.tx.ExecContext(ctx, update+list, args...); err != nil {
			return translate(err)
		}
	}
	return nil
}

// deleteInAccount deletes the rows of an account's table whose purchase_id is in ids.
func (t *importTx) deleteInAccount(ctx context.Context, table string, account int64, ids []int64) error {
	for start := 0; start < len(ids); start += importMaxParams {
		list, args := importInList(ids[start:min(start+importMaxParams, len(ids))])
		if _, err := t.tx.ExecContext(ctx, "DELETE FROM "+table+" WHERE account_id = ? AND purchase_id IN "+list,
			append([]any{account}, args...)...); err != nil {
			return translate(err)
		}
	}
	return nil
}

func sameCustomer(a, b shop.Customer) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.Firstname, b.Firstname) && eq(a.Lastname, b.Lastname) && eq(a.Email, b.Email) &&
		a.ReceivesEmail == b.ReceivesEmail && a.CreatedAt.Unix() == b.CreatedAt.Unix() && a.UpdatedAt.Unix() == b.UpdatedAt.Unix()
}

// writeDocuments stores the documents of the batch's purchases, built from what the
// batch wrote (each with its customer as the batch leaves it), and rebuilds from their
// rows those of other purchases whose customer the batch changed.
func (t *importTx) writeDocuments(ctx context.Context, b *importer.PurchaseBatch, changedCustomers map[int64][]int64, built <-chan *batchDocuments) error {
	docs := <-built
	if docs.err != nil {
		return docs.err
	}
	inBatch := make(map[int64]bool, len(b.Purchases))
	for _, p := range b.Purchases {
		inBatch[p.ID] = true
	}
	for _, account := range docs.accounts {
		ids := docs.ids[account]
		before, err := t.documentsBefore(ctx, account, ids)
		if err != nil {
			return err
		}
		if err := t.storeDocuments(ctx, account, ids, docs.docs[account]); err != nil {
			return err
		}
		if err := t.purchaseEvents(ctx, account, ids, before); err != nil {
			return err
		}
	}
	for account, custIDs := range changedCustomers {
		list, args := importInList(custIDs)
		var others []int64
		err := eachRow(ctx, t.tx, "SELECT id FROM purchases WHERE account_id = ? AND customer_id IN "+list, append([]any{account}, args...),
			func(rows *sql.Rows) error {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				if !inBatch[id] {
					others = append(others, id)
				}
				return nil
			})
		if err != nil {
			return err
		}
		before, err := t.documentsBefore(ctx, account, others)
		if err != nil {
			return err
		}
		if err := writeDocuments(ctx, t.tx, account, others); err != nil {
			return err
		}
		if err := t.purchaseEvents(ctx, account, others, before); err != nil {
			return err
		}
	}
	return nil
}

// batchWork is what Go prepares of a purchase batch while the database works: the
// rows' arguments, what the purchases count for in the rollups (facts[i] is
// b.Purchases[i]'s) and, later, the documents.
type batchWork struct {
	batch                                              *importer.PurchaseBatch
	args, items, keys, coupons, fields, txns, products []any
	facts                                              []*purchaseFact
	err                                                error
	docs                                               chan *batchDocuments
}

// prepare starts preparing the batch on a goroutine of its own: the arguments and
// facts, then the documents. The batch is only read, there and by the writer.
func prepare(b *importer.PurchaseBatch) <-chan *batchWork {
	out := make(chan *batchWork, 1)
	go func() {
		w := buildArgs(b)
		w.batch = b
		out <- w
		if w.err == nil {
			w.docs <- buildDocuments(b)
		}
	}()
	return out
}

// prepared returns the batch's preparation, started by its lookup (LookupBatchRefs) or
// now.
func (t *importTx) prepared(b *importer.PurchaseBatch) *batchWork {
	work := t.work
	t.work = nil
	if work == nil {
		work = prepare(b)
	}
	w := <-work
	if w.batch != b {
		w = <-prepare(b)
	}
	return w
}

// buildArgs builds the arguments of the batch's rows and what its purchases count for.
func buildArgs(b *importer.PurchaseBatch) *batchWork {
	w := &batchWork{docs: make(chan *batchDocuments, 1)}
	w.args = make([]any, 0, importPurchaseCols*len(b.Purchases))
	w.facts = make([]*purchaseFact, len(b.Purchases))
	for i, p := range b.Purchases {
		f, err := factOf(p)
		if err != nil {
			w.err = fmt.Errorf("rollups: purchase %d: %w", p.ID, err)
			return w
		}
		w.facts[i] = f
		var customerID any
		if p.Customer != nil {
			customerID = p.Customer.ID
		}
		w.args = append(w.args, p.ID, p.AccountID, p.StorefrontID, customerID, importInt(p.SubscriberID), p.CreatedAt.Time, p.UpdatedAt.Time,
			p.Salt, string(p.Status), p.Currency, string(p.Subtotal), string(p.Discount), string(p.Tax), string(p.Shipping), string(p.Total),
			importMoney(p.ProcessorFee), importStr(p.BuyerEmail), importStr(p.BuyerFirstname), importStr(p.BuyerLastname), importStr(p.CustomerNotes),
			importStr(p.ShippingFirstname), importStr(p.ShippingLastname), importStr(p.ShippingStreet), importStr(p.ShippingStreet2),
			importStr(p.ShippingCity), importStr(p.ShippingState), importStr(p.ShippingZipCode), importStr(p.ShippingCountryCode),
			importStr(p.ShippingCountry), importStr(p.ShippingPhone), importStr(p.ShippingVATIN), importStr(p.ShippingBusinessName),
			importStr(p.ShippingCarrier), importStr(p.ShippingTrackingNumber), p.RequiresShipping, importInt(p.TangiblesToShip),
			importStr(p.BillingFirstname), importStr(p.BillingLastname), importStr(p.BillingStreet), importStr(p.BillingStreet2),
			importStr(p.BillingCity), importStr(p.BillingState), importStr(p.BillingZipCode), importStr(p.BillingCountryCode),
			importStr(p.BillingCardType), importStr(p.BillingCardNumber), importStr(p.IPAddress), p.MarketingOptin)
		seen := map[int64]bool{}
		for _, li := range p.LineItems {
			if !seen[li.ProductID] {
				seen[li.ProductID] = true
				w.products = append(w.products, p.AccountID, li.ProductID, p.CreatedAt.Time, p.ID)
			}
			w.items = append(w.items, li.ID, p.AccountID, p.ID, li.ProductID, string(li.Price), li.Quantity, string(li.Subtotal), string(li.Tax),
				string(li.Discount), string(li.Total), li.ProductName, li.DownloadLimit, li.DownloadCount, importTime(li.ExpiresAt), li.HasAllKeys)
			for k, key := range li.ProductKeys {
				w.keys = append(w.keys, li.ID, k, p.AccountID, p.ID, key)
			}
		}
		for k, c := range p.Coupons {
			w.coupons = append(w.coupons, p.AccountID, p.ID, k, c.Name, c.Code, c.DiscountAmount, c.DiscountType)
		}
		for k, f := range p.CustomFields {
			w.fields = append(w.fields, p.AccountID, p.ID, k, f.Label, f.Response)
		}
		for _, tr := range p.Transactions {
			w.txns = append(w.txns, tr.ID, p.AccountID, p.ID, tr.Action, string(tr.Amount), tr.Currency, tr.Gateway, tr.IsSuccess,
				importStr(tr.Reference), importStr(tr.Message), tr.CreatedAt.Time, tr.UpdatedAt.Time)
		}
	}
	return w
}

// batchDocuments holds the documents of a batch's purchases, by account in the order
// the accounts first appear in the batch.
type batchDocuments struct {
	accounts []int64
	ids      map[int64][]int64
	docs     map[int64][][]byte
	err      error
}

// buildDocuments builds the documents of the batch's purchases, each with its customer
// as the batch leaves it.
func buildDocuments(b *importer.PurchaseBatch) *batchDocuments {
	customers := make(map[int64]*shop.Customer, len(b.Customers))
	for i := range b.Customers {
		customers[b.Customers[i].ID] = &b.Customers[i].Customer
	}
	d := &batchDocuments{ids: map[int64][]int64{}, docs: map[int64][][]byte{}}
	for _, p := range b.Purchases {
		doc := *p
		if doc.Customer != nil {
			doc.Customer = customers[doc.Customer.ID]
		}
		normalizeDocument(&doc)
		raw, err := purchaseDocument(&doc)
		if err != nil {
			d.err = fmt.Errorf("document of purchase %d: %w", p.ID, err)
			break
		}
		if _, ok := d.ids[p.AccountID]; !ok {
			d.accounts = append(d.accounts, p.AccountID)
		}
		d.ids[p.AccountID] = append(d.ids[p.AccountID], p.ID)
		d.docs[p.AccountID] = append(d.docs[p.AccountID], raw)
	}
	return d
}

// storeDocuments writes documents of an account's purchases (docs[i] is that of
// ids[i]), documentBatch a statement. Each statement is prepared, so that the
// documents travel as bytes rather than as escaped text for the server to parse (a
// third of the time of writing them); that of a whole batch is prepared once an
// import.
func (t *importTx) storeDocuments(ctx context.Context, account int64, ids []int64, docs [][]byte) error {
	for start := 0; start < len(ids); start += documentBatch {
		n := min(documentBatch, len(ids)-start)
		args := make([]any, 0, 3*n)
		for i := start; i < start+n; i++ {
			args = append(args, account, ids[i], docs[i])
		}
		query := "INSERT INTO purchase_documents (account_id, purchase_id, document) VALUES " +
			rowPlaceholders(n, 3) + " ON DUPLICATE KEY UPDATE document = VALUES(document)"
		stmt := t.docStmt
		if n != documentBatch || stmt == nil {
			var err error
			if stmt, err = t.tx.PrepareContext(ctx, query); err != nil {
				return translate(err)
			}
			if n == documentBatch {
				t.docStmt = stmt
			} else {
				defer stmt.Close()
			}
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return translate(err)
		}
	}
	return nil
}

// normalizeDocument gives an imported purchase the empty collections the read path
// gives a purchase without any, so that its document is what the API answers.
func normalizeDocument(p *shop.Purchase) {
	if p.CustomFields == nil {
		p.CustomFields = []shop.CustomField{}
	}
	if p.Coupons == nil {
		p.Coupons = []shop.Coupon{}
	}
	if p.Transactions == nil {
		p.Transactions = []shop.Transaction{}
	}
	if p.LineItems == nil {
		p.LineItems = []shop.LineItem{}
	}
	items := make([]shop.LineItem, len(p.LineItems))
	copy(items, p.LineItems)
	for i := range items {
		if items[i].ProductKeys == nil {
			items[i].ProductKeys = []string{}
		}
	}
	p.LineItems = items
}
