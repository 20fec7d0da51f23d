package mysql

import (
	"context"
	"database/sql"
	"slices"
	"time"

	sq "github.com/Masterminds/squirrel"

	"storefront/internal/shop"
)

// PurchaseDataColumns are the columns of a purchases row that hold the purchase's own
// data, in the order the read path and the seeder use them: every column but the
// keys (id, account_id, storefront_id, customer_id, subscriber_id), the times
// (created_at, updated_at) and the generated to_ship.
var PurchaseDataColumns = []string{
	"salt", "status", "currency",
	"subtotal", "discount", "tax", "shipping", "total", "processor_fee",
	"buyer_email", "buyer_firstname", "buyer_lastname", "customer_notes",
	"shipping_firstname", "shipping_lastname", "shipping_street", "shipping_street2", "shipping_city",
	"shipping_state", "shipping_zip_code", "shipping_country_code", "shipping_country", "shipping_phone",
	"shipping_vatin", "shipping_business_name", "shipping_carrier", "shipping_tracking_number",
	"requires_shipping", "tangibles_to_ship",
	"billing_firstname", "billing_lastname", "billing_street", "billing_street2", "billing_city",
	"billing_state", "billing_zip_code", "billing_country_code", "billing_card_type", "billing_card_number",
	"ip_address", "marketing_optin",
}

// purchaseColumns is the one column list of the purchase read path, in the order
// scanPurchase reads them.
var purchaseColumns = func() []string {
	cols := []string{"p.id", "p.account_id", "p.created_at", "p.updated_at", "p.storefront_id", "p.subscriber_id"}
	for _, c := range PurchaseDataColumns {
		cols = append(cols, "p."+c)
	}
	return append(cols, "c.id", "c.firstname", "c.lastname", "c.email", "c.receives_email", "c.created_at", "c.updated_at")
}()

func scanPurchase(rows *sql.Rows) (*shop.Purchase, error) {
	var (
		p                                    shop.Purchase
		subtotal, discount, tax, ship, total string
		fee                                  sql.NullString
		cID                                  sql.NullInt64
		cFirst, cLast, cEmail                *string
		cReceives                            sql.NullBool
		cCreated, cUpdated                   *shop.Time
	)
	err := rows.Scan(
		&p.ID, &p.AccountID, &p.CreatedAt, &p.UpdatedAt, &p.StorefrontID, &p.SubscriberID, &p.Salt, &p.Status, &p.Currency,
		&subtotal, &discount, &tax, &ship, &total, &fee,
		&p.BuyerEmail, &p.BuyerFirstname, &p.BuyerLastname, &p.CustomerNotes,
		&p.ShippingFirstname, &p.ShippingLastname, &p.ShippingStreet, &p.ShippingStreet2, &p.ShippingCity,
		&p.ShippingState, &p.ShippingZipCode, &p.ShippingCountryCode, &p.ShippingCountry, &p.ShippingPhone,
		&p.ShippingVATIN, &p.ShippingBusinessName, &p.ShippingCarrier, &p.ShippingTrackingNumber,
		&p.RequiresShipping, &p.TangiblesToShip,
		&p.BillingFirstname, &p.BillingLastname, &p.BillingStreet, &p.BillingStreet2, &p.BillingCity,
		&p.BillingState, &p.BillingZipCode, &p.BillingCountryCode, &p.BillingCardType, &p.BillingCardNumber,
		&p.IPAddress, &p.MarketingOptin,
		&cID, &cFirst, &cLast, &cEmail, &cReceives, &cCreated, &cUpdated,
	)
	if err != nil {
		return nil, err
	}
	digits := currencyDigits(p.Currency)
	p.Subtotal = formatMoney(subtotal, digits)
	p.Discount = formatMoney(discount, digits)
	p.Tax = formatMoney(tax, digits)
	p.Shipping = formatMoney(ship, digits)
	p.Total = formatMoney(total, digits)
	if fee.Valid {
		m := formatMoney(fee.String, digits)
		p.ProcessorFee = &m
	}
	if cID.Valid {
		p.Customer = &shop.Customer{ID: cID.Int64, Firstname: cFirst, Lastname: cLast, Email: cEmail, ReceivesEmail: cReceives.Bool}
		if cCreated != nil {
			p.Customer.CreatedAt = *cCreated
		}
		if cUpdated != nil {
			p.Customer.UpdatedAt = *cUpdated
		}
	}
	p.CustomFields = []shop.CustomField{}
	p.LineItems = []shop.LineItem{}
	p.Coupons = []shop.Coupon{}
	p.Transactions = []shop.Transaction{}
	return &p, nil
}

// statusCondition is the condition that col holds one of the statuses (at least one).
func statusCondition(col string, statuses []shop.PurchaseStatus) sq.Eq {
	if len(statuses) == 1 {
		return sq.Eq{col: string(statuses[0])}
	}
	st := make([]string, len(statuses))
	for i, s := range statuses {
		st[i] = string(s)
	}
	return sq.Eq{col: st}
}

// purchaseConditions turns the filters of GET /api/v2/purchases into WHERE conditions
// on purchases p. Every condition carries the account (docs/API.md#accounts-and-tenancy).
func purchaseConditions(f shop.PurchaseFilter) sq.And {
	where := sq.And{sq.Eq{"p.account_id": f.AccountID}}
	if f.IDs != nil {
		where = append(where, sq.Eq{"p.id": f.IDs})
	}
	if len(f.Statuses) > 0 {
		where = append(where, statusCondition("p.status", f.Statuses))
	}
	if f.ProductID != 0 {
		// One primary-key probe of the product's ordered path per purchase.
		where = append(where, sq.Expr("EXISTS (SELECT 1 FROM purchase_products pp WHERE pp.account_id = p.account_id "+
			"AND pp.product_id = ? AND pp.created_at = p.created_at AND pp.purchase_id = p.id)", f.ProductID))
	}
	if f.StorefrontID != 0 {
		where = append(where, sq.Eq{"p.storefront_id": f.StorefrontID})
	}
	if f.CustomerID != 0 {
		where = append(where, sq.Eq{"p.customer_id": f.CustomerID})
	}
	if f.SubscriberID != 0 {
		where = append(where, sq.Eq{"p.subscriber_id": f.SubscriberID})
	}
	if f.EmailPrefix != "" {
		where = append(where, sq.Expr("p.buyer_email LIKE ?", escapeLike(f.EmailPrefix)+"%"))
	}
	if f.FirstPrefix != "" {
		where = append(where, sq.Expr("p.buyer_firstname LIKE ?", escapeLike(f.FirstPrefix)+"%"))
	}
	if f.LastPrefix != "" {
		where = append(where, sq.Expr("p.buyer_lastname LIKE ?", escapeLike(f.LastPrefix)+"%"))
	}
	if f.Domain != "" {
		where = append(where, domainCondition("p.buyer_email", f.Domain))
	}
	if f.CreatedFrom != nil {
		where = append(where, sq.Expr("p.created_at >= ?", clampTime(*f.CreatedFrom)))
	}
	if f.CreatedBefore != nil {
		where = append(where, sq.Expr("p.created_at < ?", clampTime(*f.CreatedBefore)))
	}
	if f.Total != "" {
		where = append(where, totalCondition(f))
	}
	if f.Unshipped != nil {
		where = append(where, sq.Eq{"p.to_ship": *f.Unshipped})
	}
	// A search's residual conditions, checked on the row of the path's purchase.
	return append(where, searchConditions(f.Where, func(c shop.Cond) sq.Sqlizer { return purchaseCondition(f.AccountID, c) })...)
}

// totalCondition compares the purchase total with the filter's. A string compared with
// DECIMAL would be compared as a double: it is cast so the comparison is exact.
func totalCondition(f shop.PurchaseFilter) sq.Sqlizer {
	ops := map[shop.TotalOp]string{shop.TotalEq: "=", shop.TotalNe: "<>", shop.TotalGt: ">", shop.TotalLt: "<"}
	op, ok := ops[f.TotalOp]
	if !ok {
		op = "="
	}
	return sq.Expr("p.total "+op+" CAST(? AS DECIMAL(65,30))", f.Total)
}

// FindPurchases returns one page of the account's purchases matching the filter, with
// their nested collections, in a constant number of queries.
func (s *PurchaseService) FindPurchases(ctx context.Context, f shop.PurchaseFilter) (*shop.PurchasePage, error) {
	db := s.db
	return db.findPurchases(ctx, db.DB, f)
}

// findPurchases is the one read path of purchases.
func (db *DB) findPurchases(ctx context.Context, q queryer, f shop.PurchaseFilter) (*shop.PurchasePage, error) {
	n := perPage(f.PerPage)
	page := &shop.PurchasePage{Total: -1}
	f, err := lookUpNamed(ctx, q, f)
	if err != nil {
		return nil, err
	}
	rows, err := pageIDs(ctx, q, f, n, &page.Total)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	return readPurchases(ctx, q, page, f.AccountID, ids, n)
}

// pageIDs chooses the filter's access path and reads the ids of its page from it, n+1
// of them in list order with their creation times (the cursor of the next page), and
// the size of the filtered set into total when asked for.
func pageIDs(ctx context.Context, q queryer, f shop.PurchaseFilter, n int, total *int64) ([]shop.Cursor, error) {
	path, err := planPurchases(ctx, q, f)
	if err != nil {
		return nil, err
	}
	if f.IncludeCount {
		query, args, err := countQuery(f, path, 0)
		if err != nil {
			return nil, err
		}
		if err := q.QueryRowContext(ctx, query, args...).Scan(total); err != nil {
			return nil, translate(err)
		}
	}
	query, args, err := purchaseListQuery(f, n, path)
	if err != nil {
		return nil, err
	}
	return collectRows(ctx, q, query, args, func(rows *sql.Rows) (shop.Cursor, error) {
		var c shop.Cursor
		err := rows.Scan(&c.ID, &c.CreatedAt)
		return c, err
	})
}

// readPurchases reads the purchases with the given ids (at most n+1, in list order)
// into page: the first n with their collections, and the cursor of the next page when
// there is an n+1st.
func readPurchases(ctx context.Context, q queryer, page *shop.PurchasePage, accountID int64, ids []int64, n int) (*shop.PurchasePage, error) {
	if len(ids) > 0 {
		query, args, err := purchaseRowsQuery(accountID, ids)
		if err != nil {
			return nil, err
		}
		byID := make(map[int64]*shop.Purchase, len(ids))
		err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
			p, err := scanPurchase(rows)
			if err != nil {
				return err
			}
			byID[p.ID] = p
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if p, ok := byID[id]; ok {
				page.Purchases = append(page.Purchases, p)
			}
		}
	}
	if len(page.Purchases) > n {
		page.Purchases = page.Purchases[:n]
		last := page.Purchases[n-1]
		page.Next = &shop.Cursor{CreatedAt: last.CreatedAt.Time, ID: last.ID}
	}
	if page.Purchases == nil {
		page.Purchases = []*shop.Purchase{}
	}
	if err := loadPurchaseCollections(ctx, q, page.Purchases); err != nil {
		return nil, err
	}
	return page, nil
}

// purchaseRowsQuery builds the statement that reads the purchases with the given ids,
// with their customers.
func purchaseRowsQuery(accountID int64, ids []int64) (string, []any, error) {
	return sq.Select(purchaseColumns...).From("purchases p").
		LeftJoin("customers c ON c.account_id = p.account_id AND c.id = p.customer_id").
		Where(sq.And{sq.Eq{"p.account_id": accountID}, sq.Eq{"p.id": ids}}).ToSql()
}

// Statement is one SQL statement with its arguments.
type Statement struct {
	Query string
	Args  []any
}

// PurchasePageStatements returns the statements that the API sends for one page of
// the filter (FindPurchaseDocuments) in its steady state, for a benchmark to send the
// same SQL: plan counts the matches of the filter's range conditions when the plan
// rule needs them (it has been run once here to choose the path); page is the one
// statement that reads the page (its ids joined with their stored documents, and the
// account's purchases version); list selects the page's n+1 ids alone, as page does
// inside, for counting the index entries a page reads.
//
// A total comparison alone is planned as the API plans it once the account's edge
// band is remembered (bandEdges) and its purchases have not changed since: with no
// plan statement when the page's rows do not reach the sentinel of the own band's
// walk (bandsListQuery); else that optimistic page is sent first, as a plan
// statement, then the count of the own band, then the page on the counted plan.
func PurchasePageStatements(ctx context.Context, db *sql.DB, f shop.PurchaseFilter) (plan []Statement, list, page Statement, err error) {
	n := perPage(f.PerPage)
	if f, err = lookUpNamed(ctx, db, f); err != nil {
		return nil, list, page, err
	}
	path, err := planPurchases(ctx, db, f)
	if err != nil {
		return nil, list, page, err
	}
	if bandable(f) && path.edge != nil && pageNeed(f) <= bandWalkProbe {
		opt := optimisticPlan(f, *path.edge)
		var optList, optPage Statement
		if optList.Query, optList.Args, err = purchaseListQuery(f, n, opt); err != nil {
			return nil, list, page, err
		}
		if optPage.Query, optPage.Args, err = documentPageQuery(f, n, opt); err != nil {
			return nil, list, page, err
		}
		sentinel := false
		if opt.optimistic {
			err := eachRow(ctx, db, optList.Query, optList.Args, func(rows *sql.Rows) error {
				var (
					id, m int64
					at    time.Time
				)
				err := rows.Scan(&id, &at, &m)
				sentinel = sentinel || m == 0
				return err
			})
			if err != nil {
				return nil, list, page, err
			}
		}
		if !sentinel {
			return nil, optList, optPage, nil
		}
		plan = append(plan, optPage)
		var s Statement
		if s.Query, s.Args, err = sliverStatement(f); err != nil {
			return nil, list, page, err
		}
		plan = append(plan, s)
		if path, err = planSliver(ctx, db, f, opt.bands); err != nil {
			return nil, list, page, err
		}
	} else if plan, err = planStatements(f, path); err != nil {
		return nil, list, page, err
	}
	if list.Query, list.Args, err = purchaseListQuery(f, n, path); err != nil {
		return nil, list, page, err
	}
	page.Query, page.Args, err = documentPageQuery(f, n, path)
	return plan, list, page, err
}

// planStatements returns the statements planPurchases sends to plan the filter's
// path: the bands' edge (and the own band's count when the plan counted it), the
// counts of a range path, each branch's of a union.
func planStatements(f shop.PurchaseFilter, path plan) ([]Statement, error) {
	var build []func(shop.PurchaseFilter) (string, []any, error)
	switch {
	case path.path == pathUnion:
		var out []Statement
		for i, b := range f.Any {
			s, err := planStatements(branch(f, b, pageNeed(f)), path.union[i])
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
		return out, nil
	case bandable(f):
		build = append(build, edgeStatement)
		if path.counted {
			build = append(build, sliverStatement)
		}
	case needsCounts(f):
		for _, p := range rangePaths(f) {
			build = append(build, func(f shop.PurchaseFilter) (string, []any, error) { return rangeCount(f, p) })
		}
	}
	out := make([]Statement, len(build))
	for i, b := range build {
		var err error
		if out[i].Query, out[i].Args, err = b(f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PurchaseDocumentStatement returns the one statement GET /purchases/{id} sends
// (FindPurchaseDocument), for a benchmark to send the same SQL.
func PurchaseDocumentStatement(accountID, id int64) (Statement, error) {
	var s Statement
	var err error
	s.Query, s.Args, err = documentQuery(accountID, id)
	return s, err
}

// collectionQueries builds the statements that read the nested collections of the
// given purchases of the given accounts (one, on every request), in the order
// loadPurchaseCollections sends them: line items, product keys, coupons, custom fields,
// transactions. The account lets Vitess send each to the account's shard only.
func collectionQueries(accountIDs, ids []int64) []Statement {
	in := sq.And{sq.Eq{"account_id": accountIDs}, sq.Eq{"purchase_id": ids}}
	sels := []sq.SelectBuilder{
		sq.Select("id", "purchase_id", "product_id", "price", "quantity", "subtotal", "tax", "discount", "total",
			"product_name", "download_limit", "download_count", "expires_at", "has_all_keys").
			From("line_items").Where(in).OrderBy("purchase_id", "id"),
		sq.Select("line_item_id", "key_value").From("product_keys").Where(in).OrderBy("line_item_id", "position"),
		sq.Select("purchase_id", "name", "code", "discount_amount", "discount_type").
			From("coupons").Where(in).OrderBy("purchase_id", "position"),
		sq.Select("purchase_id", "label", "response").
			From("custom_fields").Where(in).OrderBy("purchase_id", "position"),
		sq.Select("id", "purchase_id", "action", "amount", "currency", "gateway", "is_success", "reference", "message", "created_at", "updated_at").
			From("transactions").Where(in).OrderBy("purchase_id", "id"),
	}
	out := make([]Statement, len(sels))
	for i, b := range sels {
		// The builders are fixed and always valid.
		out[i].Query, out[i].Args, _ = b.ToSql()
	}
	return out
}

// ExplainPurchases returns MariaDB's EXPLAIN of the statement that lists a page of
// purchases for the filter: one line per table with the index it uses.
func (s *PurchaseService) ExplainPurchases(ctx context.Context, f shop.PurchaseFilter) ([]map[string]string, error) {
	db := s.db
	f, err := lookUpNamed(ctx, db.DB, f)
	if err != nil {
		return nil, err
	}
	path, err := planPurchases(ctx, db.DB, f)
	if err != nil {
		return nil, err
	}
	query, args, err := purchaseListQuery(f, perPage(f.PerPage), path)
	if err != nil {
		return nil, err
	}
	return explainRows(ctx, db, query, args...)
}

// FindPurchaseByID returns one purchase of the account with all nested collections.
func (s *PurchaseService) FindPurchaseByID(ctx context.Context, accountID, id int64) (*shop.Purchase, error) {
	return findPurchaseByID(ctx, s.db.DB, accountID, id)
}

func findPurchaseByID(ctx context.Context, q queryer, accountID, id int64) (*shop.Purchase, error) {
	// By primary key there is no list to page through: read the row straight away,
	// one round trip fewer than findPurchases (GET of one purchase was 8 queries).
	page, err := readPurchases(ctx, q, &shop.PurchasePage{Total: -1}, accountID, []int64{id}, 1)
	if err != nil {
		return nil, err
	}
	if len(page.Purchases) == 0 {
		return nil, shop.Errorf(shop.ENotFound, "Purchase %d was not found.", id)
	}
	return page.Purchases[0], nil
}

// loadPurchaseCollections fills line items (with product keys), coupons, custom fields
// and transactions of the given purchases: one query per collection.
func loadPurchaseCollections(ctx context.Context, q queryer, ps []*shop.Purchase) error {
	if len(ps) == 0 {
		return nil
	}
	byID := make(map[int64]*shop.Purchase, len(ps))
	ids := make([]int64, len(ps))
	var accounts []int64
	for i, p := range ps {
		byID[p.ID] = p
		ids[i] = p.ID
		if !slices.Contains(accounts, p.AccountID) {
			accounts = append(accounts, p.AccountID)
		}
	}
	stmts := collectionQueries(accounts, ids)

	// Line items, then their keys.
	query, args := stmts[0].Query, stmts[0].Args
	type liRef struct {
		p *shop.Purchase
		i int
	}
	items := map[int64]liRef{}
	err := eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var li shop.LineItem
		var price, subtotal, tax, discount, total string
		if err := rows.Scan(&li.ID, &li.PurchaseID, &li.ProductID, &price, &li.Quantity, &subtotal, &tax, &discount, &total,
			&li.ProductName, &li.DownloadLimit, &li.DownloadCount, &li.ExpiresAt, &li.HasAllKeys); err != nil {
			return err
		}
		p := byID[li.PurchaseID]
		d := currencyDigits(p.Currency)
		li.Price, li.Subtotal, li.Tax, li.Discount, li.Total = formatMoney(price, d), formatMoney(subtotal, d), formatMoney(tax, d), formatMoney(discount, d), formatMoney(total, d)
		li.ProductKeys = []string{}
		p.LineItems = append(p.LineItems, li)
		items[li.ID] = liRef{p, len(p.LineItems) - 1}
		return nil
	})
	if err != nil {
		return err
	}
	if len(items) > 0 {
		query, args = stmts[1].Query, stmts[1].Args
		err = eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
			var liID int64
			var key string
			if err := rows.Scan(&liID, &key); err != nil {
				return err
			}
			if ref, ok := items[liID]; ok {
				li := &ref.p.LineItems[ref.i]
				li.ProductKeys = append(li.ProductKeys, key)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}

	err = appendToPurchases(ctx, q, stmts[2], byID, func(p *shop.Purchase) *[]shop.Coupon { return &p.Coupons },
		func(c *shop.Coupon) []any { return []any{&c.Name, &c.Code, &c.DiscountAmount, &c.DiscountType} })
	if err != nil {
		return err
	}
	err = appendToPurchases(ctx, q, stmts[3], byID, func(p *shop.Purchase) *[]shop.CustomField { return &p.CustomFields },
		func(f *shop.CustomField) []any { return []any{&f.Label, &f.Response} })
	if err != nil {
		return err
	}

	query, args = stmts[4].Query, stmts[4].Args
	return eachRow(ctx, q, query, args, func(rows *sql.Rows) error {
		var t shop.Transaction
		var amount string
		if err := rows.Scan(&t.ID, &t.PurchaseID, &t.Action, &amount, &t.Currency, &t.Gateway, &t.IsSuccess, &t.Reference, &t.Message, &t.CreatedAt, &t.UpdatedAt); err != nil {
			return err
		}
		t.Amount = formatMoney(amount, currencyDigits(t.Currency))
		byID[t.PurchaseID].Transactions = append(byID[t.PurchaseID].Transactions, t)
		return nil
	})
}

// appendToPurchases runs a collection query whose rows are a purchase id and the
// columns of one element, read into the element's fields, and appends each element
// to its purchase's collection, in the query's order.
func appendToPurchases[T any](ctx context.Context, q queryer, stmt Statement, byID map[int64]*shop.Purchase,
	collection func(*shop.Purchase) *[]T, fields func(*T) []any) error {
	return eachRow(ctx, q, stmt.Query, stmt.Args, func(rows *sql.Rows) error {
		var id int64
		var v T
		if err := rows.Scan(append([]any{&id}, fields(&v)...)...); err != nil {
			return err
		}
		c := collection(byID[id])
		*c = append(*c, v)
		return nil
	})
}

// CountPurchases counts the purchases matching the filter, stopping at limit: a count
// that stays cheap on large data ("10,000+"). capped is true when there are more.
func (s *PurchaseService) CountPurchases(ctx context.Context, f shop.PurchaseFilter, limit int64) (n int64, capped bool, err error) {
	db := s.db
	f, err = lookUpNamed(ctx, db.DB, f)
	if err != nil {
		return 0, false, err
	}
	path, err := planPurchases(ctx, db.DB, f)
	if err != nil {
		return 0, false, err
	}
	query, args, err := countQuery(f, path, limit)
	if err != nil {
		return 0, false, err
	}
	if err := db.QueryRowContext(ctx, query, args...).Scan(&n); err != nil {
		return 0, false, translate(err)
	}
	if n > limit {
		return limit, true, nil
	}
	return n, false, nil
}

// countUpTo builds the statement that counts the rows of sel (a SELECT of "1"), up to
// limit+1 of them.
func countUpTo(sel sq.SelectBuilder, limit int64) (string, []any, error) {
	inner, args, err := sel.Limit(uint64(limit + 1)).ToSql()
	return "SELECT COUNT(*) FROM (" + inner + ") t", args, err
}

// FindProducts returns the products of the account's storefronts, by name.
func (s *AccountService) FindProducts(ctx context.Context, accountID int64) ([]shop.Product, error) {
	return collectRows(ctx, s.db.DB, `SELECT p.id, p.storefront_id, p.name FROM products p
		WHERE p.account_id = ? ORDER BY p.name, p.id`, []any{accountID}, func(rows *sql.Rows) (shop.Product, error) {
		var p shop.Product
		err := rows.Scan(&p.ID, &p.StorefrontID, &p.Name)
		return p, err
	})
}
