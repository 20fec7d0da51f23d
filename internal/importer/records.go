package importer

import (
	"context"
	"encoding/json"
	"fmt"

	"storefront/internal/shop"
)

// account validates an account and queues its upsert.
func (ru *run) account(p pos, pr parsed) error {
	p.id = pr.id
	if pr.err != nil {
		return recordError(p, pr.err)
	}
	a, err := validateAccount(pr.rec.(*accountIn), ru.zones)
	if err != nil {
		return recordError(p, err)
	}
	ru.accounts[a.ID] = true
	ru.stats.Accounts++
	return ru.enqueue(func(ctx context.Context, tx Tx) error {
		other, err := tx.LookupAPIUsername(ctx, a.ID, a.APIUsername)
		if err != nil {
			return fmt.Errorf("import: look up api_username: %w", err)
		}
		if other != 0 {
			return recordErrorf(p, "api_username", "%q is already the API user name of account %d", a.APIUsername, other)
		}
		if err := tx.UpsertAccounts(ctx, []*shop.Account{a}); err != nil {
			return fmt.Errorf("import: %s: %w", p, err)
		}
		return nil
	})
}

// storefront validates a storefront and queues its upsert.
func (ru *run) storefront(p pos, pr parsed) error {
	p.id = pr.id
	if pr.err != nil {
		return recordError(p, pr.err)
	}
	s, err := validateStorefront(pr.rec.(*storefrontIn))
	if err != nil {
		return recordError(p, err)
	}
	ok, err := ru.accountExists(s.AccountID)
	if err != nil {
		return err
	}
	if !ok {
		return recordErrorf(p, "account_id", "account %d does not exist (neither earlier in the file nor in the database)", s.AccountID)
	}
	ru.storefronts[s.ID] = StorefrontRef{AccountID: s.AccountID, Currency: s.Currency}
	ru.stats.Storefronts++
	return ru.enqueue(func(ctx context.Context, tx Tx) error {
		if err := tx.UpsertStorefronts(ctx, []*shop.Storefront{s}); err != nil {
			return fmt.Errorf("import: %s: %w", p, err)
		}
		return nil
	})
}

func (ru *run) accountExists(id int64) (bool, error) {
	if ru.accounts[id] {
		return true, nil
	}
	found, _, err := lookupOne(ru, id, Tx.LookupAccounts)
	if found {
		ru.accounts[id] = true
	}
	return found, err
}

// lookupStorefront finds a storefront imported earlier or in the database.
func (ru *run) lookupStorefront(id int64) (StorefrontRef, bool, error) {
	if ref, ok := ru.storefronts[id]; ok {
		return ref, true, nil
	}
	ref, ok, err := lookupOne(ru, id, Tx.LookupStorefronts)
	if ok {
		ru.storefronts[id] = ref
	}
	return ref, ok, err
}

// lookupOne asks the database, with lookup, about one id: the value lookup found for
// it, if any.
func lookupOne[V any](ru *run, id int64, lookup func(Tx, context.Context, []int64) (map[int64]V, error)) (V, bool, error) {
	var found map[int64]V
	err := ru.call(func(ctx context.Context, tx Tx) error {
		var err error
		found, err = lookup(tx, ctx, []int64{id})
		return err
	})
	if err != nil {
		var zero V
		return zero, false, wrapLookup(err)
	}
	v, ok := found[id]
	return v, ok, nil
}

func wrapLookup(err error) error {
	if err == errWriterFailed {
		return err
	}
	return fmt.Errorf("import: look up: %w", err)
}

// recordID returns the id of a record for its position, even when the record could
// not be decoded as a whole.
func recordID(v *int64, raw []byte) int64 {
	if v != nil {
		return *v
	}
	var probe struct {
		ID int64 `json:"id"`
	}
	_ = json.Unmarshal(raw, &probe)
	return probe.ID
}

// subscriberBatch collects subscribers until a flush.
type subscriberBatch struct {
	subs []*shop.Subscriber
	ids  map[int64]bool // subscriber ids and, negated, subscription ids
}

// subscriber validates a subscriber and adds it to the batch.
func (ru *run) subscriber(p pos, pr parsed) error {
	p.id = pr.id
	if pr.err != nil {
		return recordError(p, pr.err)
	}
	in := pr.rec.(*subscriberIn)
	digits := 2
	if in.StorefrontID != nil && *in.StorefrontID > 0 {
		ref, ok, err := ru.lookupStorefront(*in.StorefrontID)
		if err != nil {
			return err
		}
		if !ok {
			return recordErrorf(p, "storefront_id", "storefront %d does not exist (neither earlier in the file nor in the database)", *in.StorefrontID)
		}
		if ref.Currency != nil {
			if d, ok := shop.CurrencyDigits(*ref.Currency); ok {
				digits = d
			}
		}
	}
	s, err := validateSubscriber(in, digits)
	if err != nil {
		return recordError(p, err)
	}
	b := &ru.subs
	if b.ids == nil {
		b.ids = map[int64]bool{}
	}
	// A repeated id starts a new batch, so that the later record wins as it would
	// across batches.
	if b.ids[s.ID] || (s.Subscription != nil && b.ids[-s.Subscription.ID]) {
		if err := ru.flushSubscribers(); err != nil {
			return err
		}
	}
	b.subs = append(b.subs, s)
	b.ids[s.ID] = true
	if s.Subscription != nil {
		b.ids[-s.Subscription.ID] = true
	}
	ru.stats.Subscribers++
	if len(b.subs) >= ru.subBatch {
		return ru.flushSubscribers()
	}
	return nil
}

func (ru *run) flushSubscribers() error {
	b := &ru.subs
	if len(b.subs) == 0 {
		return nil
	}
	subs := b.subs
	b.subs = nil
	clear(b.ids)
	return ru.enqueue(func(ctx context.Context, tx Tx) error {
		if err := tx.UpsertSubscribers(ctx, subs); err != nil {
			return fmt.Errorf("import: write subscribers: %w", err)
		}
		return nil
	})
}

// purchaseBatch collects purchases until a flush.
type purchaseBatch struct {
	batch     *PurchaseBatch
	positions []pos
	purchases map[int64]bool
	items     map[int64]bool
	txns      map[int64]bool
	customers map[int64]int // id -> index in batch.Customers
	custPos   []pos         // first purchase naming each customer
	products  map[int64]int // id -> index in batch.Products
	prodPos   []fieldPos
	subIDs    map[int64]bool // subscriber ids referred to
}

func (b *purchaseBatch) reset() {
	b.batch = &PurchaseBatch{}
	b.positions = nil
	b.custPos, b.prodPos = nil, nil
	for _, m := range []map[int64]bool{b.purchases, b.items, b.txns, b.subIDs} {
		clear(m)
	}
	clear(b.customers)
	clear(b.products)
}

// collides reports whether p repeats an id of the batch.
func (b *purchaseBatch) collides(p *shop.Purchase) bool {
	if b.purchases[p.ID] {
		return true
	}
	for _, li := range p.LineItems {
		if b.items[li.ID] {
			return true
		}
	}
	for _, t := range p.Transactions {
		if b.txns[t.ID] {
			return true
		}
	}
	return false
}

// purchase validates a purchase and adds it to the batch.
func (ru *run) purchase(p pos, pr parsed) error {
	p.id = pr.id
	if pr.err != nil {
		return recordError(p, pr.err)
	}
	pu := pr.rec.(*shop.Purchase)
	ref, ok, err := ru.lookupStorefront(pu.StorefrontID)
	if err != nil {
		return err
	}
	if !ok {
		return recordErrorf(p, "storefront_id", "storefront %d does not exist (neither earlier in the file nor in the database)", pu.StorefrontID)
	}
	pu.AccountID = ref.AccountID

	b := &ru.purch
	if b.batch == nil {
		b.purchases, b.items, b.txns, b.subIDs = map[int64]bool{}, map[int64]bool{}, map[int64]bool{}, map[int64]bool{}
		b.customers, b.products = map[int64]int{}, map[int64]int{}
		b.reset()
	}
	if b.collides(pu) {
		if err := ru.flushPurchases(); err != nil {
			return err
		}
	}
	if c := pu.Customer; c != nil {
		if i, ok := b.customers[c.ID]; ok {
			if acc := b.batch.Customers[i].AccountID; acc != pu.AccountID {
				return recordErrorf(p, "customer.id", "customer %d belongs to account %d, not to the purchase's account %d", c.ID, acc, pu.AccountID)
			}
			b.batch.Customers[i].Customer = *c // the last version wins
		} else {
			b.customers[c.ID] = len(b.batch.Customers)
			b.batch.Customers = append(b.batch.Customers, CustomerRow{AccountID: pu.AccountID, Customer: *c})
			b.custPos = append(b.custPos, p)
		}
	}
	for i, li := range pu.LineItems {
		if j, ok := b.products[li.ProductID]; ok {
			if sf := b.batch.Products[j].StorefrontID; sf != pu.StorefrontID {
				return recordErrorf(p, fmt.Sprintf("line_items[%d].product_id", i), "product %d belongs to storefront %d, not to the purchase's storefront %d", li.ProductID, sf, pu.StorefrontID)
			}
			continue
		}
		b.products[li.ProductID] = len(b.batch.Products)
		b.batch.Products = append(b.batch.Products, Product{ID: li.ProductID, StorefrontID: pu.StorefrontID, Name: li.ProductName})
		b.prodPos = append(b.prodPos, fieldPos{p, fmt.Sprintf("line_items[%d].product_id", i)})
	}
	b.purchases[pu.ID] = true
	for _, li := range pu.LineItems {
		b.items[li.ID] = true
	}
	for _, t := range pu.Transactions {
		b.txns[t.ID] = true
	}
	if pu.SubscriberID != nil {
		b.subIDs[*pu.SubscriberID] = true
	}
	b.batch.Purchases = append(b.batch.Purchases, pu)
	b.positions = append(b.positions, p)
	ru.stats.Purchases++
	if len(b.batch.Purchases) >= ru.purchBatch {
		return ru.flushPurchases()
	}
	return nil
}

// flushPurchases queues the batch: references that need the database (subscribers,
// customers and products written before) are checked by the writer, in order, right
// before the batch is written.
func (ru *run) flushPurchases() error {
	b := &ru.purch
	if b.batch == nil || len(b.batch.Purchases) == 0 {
		return nil
	}
	batch, positions, custPos, prodPos := b.batch, b.positions, b.custPos, b.prodPos
	subIDs := keys(b.subIDs)
	b.reset()
	return ru.enqueue(func(ctx context.Context, tx Tx) error {
		if err := checkBatchRefs(ctx, tx, batch, positions, custPos, prodPos, subIDs); err != nil {
			return err
		}
		if err := tx.UpsertPurchases(ctx, batch); err != nil {
			return fmt.Errorf("import: write purchases %s to %s: %w", positions[0], positions[len(positions)-1], err)
		}
		return nil
	})
}

// fieldPos is a field of the record at a position.
type fieldPos struct {
	pos
	field string
}

func checkBatchRefs(ctx context.Context, tx Tx, batch *PurchaseBatch, positions, custPos []pos, prodPos []fieldPos, subIDs []int64) error {
	refs, err := tx.LookupBatchRefs(ctx, batch, subIDs)
	if err != nil {
		return fmt.Errorf("import: look up references: %w", err)
	}
	for i, p := range batch.Purchases {
		if p.SubscriberID == nil {
			continue
		}
		acc, ok := refs.SubscriberAccounts[*p.SubscriberID]
		if !ok {
			return recordErrorf(positions[i], "subscriber_id", "subscriber %d does not exist (neither earlier in the file nor in the database)", *p.SubscriberID)
		}
		if acc != p.AccountID {
			return recordErrorf(positions[i], "subscriber_id", "subscriber %d belongs to account %d, not to the purchase's account %d", *p.SubscriberID, acc, p.AccountID)
		}
	}
	for i, c := range batch.Customers {
		if acc, ok := refs.CustomerAccounts[c.ID]; ok && acc != c.AccountID {
			return recordErrorf(custPos[i], "customer.id", "customer %d belongs to account %d, not to the purchase's account %d", c.ID, acc, c.AccountID)
		}
	}
	for i, p := range batch.Products {
		if sf, ok := refs.ProductStorefronts[p.ID]; ok && sf != p.StorefrontID {
			return recordErrorf(prodPos[i].pos, prodPos[i].field, "product %d belongs to storefront %d, not to the purchase's storefront %d", p.ID, sf, p.StorefrontID)
		}
	}
	return nil
}

func keys(m map[int64]bool) []int64 {
	if len(m) == 0 {
		return nil
	}
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// parsed is a record decoded (and, for a purchase, validated) by a worker, away
// from the sequencer: rec is an *accountIn, *storefrontIn, *subscriberIn or
// *shop.Purchase; err is a problem with the record, without its position.
type parsed struct {
	id  int64
	rec any
	err error
}

// parseFunc decodes one record; it has no state and runs on any goroutine.
type parseFunc func(raw []byte) parsed

func parseAccount(raw []byte) parsed {
	in := new(accountIn)
	err := decodeRecord(raw, in, nil)
	return parsed{id: recordID(in.ID, raw), rec: in, err: err}
}

func parseStorefront(raw []byte) parsed {
	in := new(storefrontIn)
	err := decodeRecord(raw, in, nil)
	return parsed{id: recordID(in.ID, raw), rec: in, err: err}
}

func parseSubscriber(raw []byte) parsed {
	in := new(subscriberIn)
	err := decodeRecord(raw, in, subscriberNested)
	return parsed{id: recordID(in.ID, raw), rec: in, err: err}
}

// parsePurchase decodes a purchase and checks everything that needs no lookup.
func parsePurchase(raw []byte) parsed {
	var in purchaseIn
	err := decodeRecord(raw, &in, purchaseNested)
	out := parsed{id: recordID(in.ID, raw), err: err}
	if err != nil {
		return out
	}
	pu, err := validatePurchase(&in)
	if err != nil {
		out.err = err
		return out
	}
	// Line item and transaction ids are unique within the purchase.
	seen := make(map[int64]bool, len(pu.LineItems)+len(pu.Transactions))
	for i, li := range pu.LineItems {
		if seen[li.ID] {
			out.err = &fieldError{field: fmt.Sprintf("line_items[%d].id", i), msg: fmt.Sprintf("%d appears twice in the purchase", li.ID)}
			return out
		}
		seen[li.ID] = true
	}
	clear(seen)
	for i, t := range pu.Transactions {
		if seen[t.ID] {
			out.err = &fieldError{field: fmt.Sprintf("transactions[%d].id", i), msg: fmt.Sprintf("%d appears twice in the purchase", t.ID)}
			return out
		}
		seen[t.ID] = true
	}
	out.rec = pu
	return out
}
