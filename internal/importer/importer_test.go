package importer

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"storefront/internal/shop"
)

// memTx is an in-memory Tx that records what it is asked to write.
type memTx struct {
	accounts    map[int64]*shop.Account
	storefronts map[int64]*shop.Storefront
	subscribers map[int64]*shop.Subscriber
	purchases   map[int64]*shop.Purchase
	committed   bool
	rolledBack  bool
}

func newMemTx() *memTx {
	return &memTx{accounts: map[int64]*shop.Account{}, storefronts: map[int64]*shop.Storefront{},
		subscribers: map[int64]*shop.Subscriber{}, purchases: map[int64]*shop.Purchase{}}
}

func (m *memTx) BeginImport(context.Context) (Tx, error) { return m, nil }

func (m *memTx) LookupAccounts(_ context.Context, ids []int64) (map[int64]bool, error) {
	out := map[int64]bool{}
	for _, id := range ids {
		if m.accounts[id] != nil {
			out[id] = true
		}
	}
	return out, nil
}

func (m *memTx) LookupStorefronts(_ context.Context, ids []int64) (map[int64]StorefrontRef, error) {
	out := map[int64]StorefrontRef{}
	for _, id := range ids {
		if s := m.storefronts[id]; s != nil {
			out[id] = StorefrontRef{AccountID: s.AccountID, Currency: s.Currency}
		}
	}
	return out, nil
}

func (m *memTx) LookupAPIUsername(_ context.Context, accountID int64, name string) (int64, error) {
	for _, a := range m.accounts {
		if a.ID != accountID && strings.EqualFold(a.APIUsername, name) {
			return a.ID, nil
		}
	}
	return 0, nil
}

func (m *memTx) LookupBatchRefs(_ context.Context, _ *PurchaseBatch, subIDs []int64) (*BatchRefs, error) {
	refs := &BatchRefs{SubscriberAccounts: map[int64]int64{}}
	for _, id := range subIDs {
		if s := m.subscribers[id]; s != nil {
			refs.SubscriberAccounts[id] = m.storefronts[s.StorefrontID].AccountID
		}
	}
	return refs, nil
}

func (m *memTx) UpsertAccounts(_ context.Context, as []*shop.Account) error {
	for _, a := range as {
		m.accounts[a.ID] = a
	}
	return nil
}

func (m *memTx) UpsertStorefronts(_ context.Context, ss []*shop.Storefront) error {
	for _, s := range ss {
		m.storefronts[s.ID] = s
	}
	return nil
}

func (m *memTx) UpsertSubscribers(_ context.Context, ss []*shop.Subscriber) error {
	for _, s := range ss {
		m.subscribers[s.ID] = s
	}
	return nil
}

func (m *memTx) UpsertPurchases(_ context.Context, b *PurchaseBatch) error {
	for _, p := range b.Purchases {
		m.purchases[p.ID] = p
	}
	return nil
}

func (m *memTx) Commit() error   { m.committed = true; return nil }
func (m *memTx) Rollback() error { m.rolledBack = true; return nil }

const head = `{"accounts":[{"id":1,"name":"A","api_username":"a","timezone":"Europe/Berlin"}],` +
	`"storefronts":[{"id":2,"account_id":1,"name":"S","currency":"KWD","download_limit":0,"download_days":0}],`

func subscriberDoc(sub string) string {
	return head + `"subscribers":[{"id":3,"storefront_id":2,"created_at":1,"updated_at":1,"username":"u","last_login_at":null,"subscription":` + sub + `}]}`
}

func TestRun(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		m := newMemTx()
		doc := subscriberDoc(`{"id":4,"status":"PAST_DUE","price":"1.250","period":1,"unit":"M","tax_amount":"0.000","trial_price":null,` +
			`"trial_period":null,"trial_unit":null,"trial_tax_amount":null,"created_at":1,"updated_at":1,"started_at":null,"ended_at":null,` +
			`"trial_started_at":null,"last_payment_at":null,"next_payment_at":null}`)
		stats, err := Run(context.Background(), m, strings.NewReader(doc), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !m.committed || stats.Accounts != 1 || stats.Storefronts != 1 || stats.Subscribers != 1 {
			t.Errorf("got committed %v, stats %+v", m.committed, stats)
		}
		if s := m.subscribers[3]; s == nil || s.Subscription == nil || s.Subscription.Price != "1.250" || s.StorefrontID != 2 {
			t.Errorf("subscriber 3: got %+v", s)
		}
	})
	tests := []struct {
		name, doc, want string
	}{
		{"SubscriptionDigits", subscriberDoc(`{"id":4,"status":"ACTIVE","price":"1.25","period":1,"unit":"M","tax_amount":"0.000","created_at":1,"updated_at":1}`),
			`subscribers[0] (id 3): subscription.price: "1.25" must have exactly 3 decimal places`},
		{"NegativeZero", subscriberDoc(`{"id":4,"status":"ACTIVE","price":"1.250","period":1,"unit":"M","tax_amount":"-0.000","created_at":1,"updated_at":1}`),
			`subscribers[0] (id 3): subscription.tax_amount: "-0.000" is a negative zero`},
		{"LeadingZero", subscriberDoc(`{"id":4,"status":"ACTIVE","price":"01.250","period":1,"unit":"M","tax_amount":"0.000","created_at":1,"updated_at":1}`),
			`subscribers[0] (id 3): subscription.price: "01.250" has a leading zero`},
		{"Unit", subscriberDoc(`{"id":4,"status":"ACTIVE","price":"1.250","period":1,"unit":"X","tax_amount":"0.000","created_at":1,"updated_at":1}`),
			`subscribers[0] (id 3): subscription.unit: "X" is not a period unit`},
		{"SubscriptionUnknownField", subscriberDoc(`{"id":4,"foo":1}`), `subscribers[0] (id 3): subscription.foo: unknown field`},
		{"TimeType", subscriberDoc(`{"id":4,"status":"ACTIVE","price":"1.250","period":1,"unit":"M","tax_amount":"0.000","created_at":"1","updated_at":1}`),
			`subscribers[0] (id 3): subscription.created_at: must be an integer, not string`},
		{"NegativeID", head + `"subscribers":[{"id":-3,"storefront_id":2,"created_at":1,"updated_at":1,"username":"u"}]}`,
			`subscribers[0] (id -3): id: must be a positive integer, not -3`},
		{"NotAnObject", head + `"subscribers":[17]}`, `subscribers[0]: must be an object, not a number`},
		// Fields that a record type takes from the shop type it embeds are named by
		// their keys alone.
		{"EmbeddedFieldType", head + `"purchases":[{"id":5,"buyer_email":5}]}`, `purchases[0] (id 5): buyer_email: must be a string, not number`},
		{"CustomerFieldType", head + `"purchases":[{"id":5,"customer":{"id":6,"firstname":5}}]}`,
			`purchases[0] (id 5): customer.firstname: must be a string, not number`},
		{"TransactionFieldType", head + `"purchases":[{"id":5,"transactions":[{"id":7,"reference":true}]}]}`,
			`purchases[0] (id 5): transactions[0].reference: must be a string, not bool`},
		{"TrialFieldType", subscriberDoc(`{"id":4,"trial_period":"1"}`), `subscribers[0] (id 3): subscription.trial_period: must be an integer, not string`},
		{"UnknownAccount", `{"storefronts":[{"id":2,"account_id":9,"name":"S","download_limit":0,"download_days":0}]}`,
			`storefronts[0] (id 2): account_id: account 9 does not exist`},
		{"LongName", `{"accounts":[{"id":1,"name":"` + strings.Repeat("é", 256) + `","api_username":"a"}]}`,
			`accounts[0] (id 1): name: is 256 characters long; at most 255 are allowed`},
		{"Malformed", head + `"subscribers":[{"id":3,}]}`, `subscribers[0]: malformed JSON`},
		{"Empty", ``, `the document: the document ends early`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMemTx()
			_, err := Run(context.Background(), m, strings.NewReader(tt.doc), nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error containing %q", err, tt.want)
			}
			if shop.ErrorCode(err) != shop.EInvalid {
				t.Errorf("code: got %q, want %q", shop.ErrorCode(err), shop.EInvalid)
			}
			if m.committed || !m.rolledBack {
				t.Errorf("got committed %v, rolled back %v; want a rollback", m.committed, m.rolledBack)
			}
		})
	}
}

// nopTx accepts everything and writes nothing: it measures decoding and validation.
type nopTx struct{ memTx }

func (*nopTx) UpsertPurchases(context.Context, *PurchaseBatch) error { return nil }

func (n *nopTx) BeginImport(context.Context) (Tx, error) { return n, nil }

// benchDoc returns a document of n purchases like those of a real export.
func benchDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"accounts":[{"id":1,"name":"A","api_username":"a"}],"storefronts":[{"id":2,"account_id":1,"name":"S","currency":"USD","download_limit":0,"download_days":0}],"purchases":[`)
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"created_at":1700000000,"updated_at":1700000000,"storefront_id":2,"salt":"abcdef%d","status":"ACT","currency":"USD",`+
			`"subtotal":"30.00","discount":"-1.00","tax":"2.40","shipping":"4.95","total":"36.35","processor_fee":"1.20",`+
			`"buyer_email":"buyer@example.com","buyer_firstname":"Zoë","buyer_lastname":"Müller",`+
			`"customer":{"id":%d,"firstname":"Zoë","lastname":"Müller","email":"b@example.com","receives_email":true,"created_at":1700000000,"updated_at":1700000000},`+
			`"customer_notes":null,"custom_fields":[{"label":"Gift","response":"yes"}],"shipping_firstname":"Zoë","shipping_lastname":"Müller",`+
			`"shipping_street":"Hauptstraße 1","shipping_street2":null,"shipping_city":"München","shipping_state":"BY","shipping_zip_code":"80331",`+
			`"shipping_country_code":"DE","shipping_country":"Germany","shipping_phone":null,"shipping_vatin":null,"shipping_business_name":null,`+
			`"shipping_carrier":"DHL","shipping_tracking_number":"JJD1","requires_shipping":true,"tangibles_to_ship":1,`+
			`"billing_firstname":"Zoë","billing_lastname":"Müller","billing_street":"Hauptstraße 1","billing_street2":null,"billing_city":"München",`+
			`"billing_state":"BY","billing_zip_code":"80331","billing_country_code":"DE","billing_card_type":"Visa","billing_card_number":"************4242",`+
			`"line_items":[`, i, i, i%1000+1)
		for j := 0; j < 3; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"id":%d,"purchase_id":%d,"product_id":%d,"price":"10.00","quantity":1,"subtotal":"10.00","tax":"0.80",`+
				`"discount":"0.00","total":"10.80","product_name":"Product","download_limit":5,"download_count":0,"expires_at":1702592000,`+
				`"product_keys":["KEY-%d-%d"],"has_all_keys":true}`, i*3+j, i, j+1, i, j)
		}
		fmt.Fprintf(&b, `],"coupons":[{"name":"Ten","code":"TEN","discount_amount":"10","discount_type":"percent"}],"ip_address":"192.0.2.1",`+
			`"marketing_optin":false,"transactions":[{"id":%d,"purchase_id":%d,"action":"AuthorizeAndCapture","amount":"36.35","currency":"USD",`+
			`"gateway":"stripe","is_success":true,"reference":"ch_1","message":"Approved","created_at":1700000000,"updated_at":1700000000}],"subscriber_id":null}`, i, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkRun measures decoding and validation alone (the store writes nothing).
func BenchmarkRun(b *testing.B) {
	const n = 20000
	doc := benchDoc(n)
	b.SetBytes(int64(len(doc)))
	total := 0
	start := time.Now()
	for b.Loop() {
		tx := &nopTx{*newMemTx()}
		if _, err := Run(context.Background(), tx, bytes.NewReader(doc), nil); err != nil {
			b.Fatal(err)
		}
		total += n
	}
	b.ReportMetric(float64(total)/time.Since(start).Seconds(), "purchases/s")
}

func TestRun_Progress(t *testing.T) {
	var clock time.Time
	var out strings.Builder
	im := &Importer{
		Store:         newMemTx(),
		Progress:      &out,
		ProgressEvery: time.Second,
		// Every reading of the clock is a second later.
		Now: func() time.Time { clock = clock.Add(time.Second); return clock },
	}
	stats, err := im.Run(context.Background(), bytes.NewReader(benchDoc(600)))
	if err != nil {
		t.Fatal(err)
	}
	if stats.Purchases != 600 {
		t.Errorf("purchases: got %d, want 600", stats.Purchases)
	}
	if !strings.Contains(out.String(), " purchases) in ") || !strings.Contains(out.String(), "records/s") {
		t.Errorf("progress: got %q, want lines with counts and a rate", out.String())
	}
}
