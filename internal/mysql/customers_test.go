package mysql_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"sort"
	"strings"
	"testing"

	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// sums adds up the totals of the purchases per currency, as the figures should.
func sums(ps []*shop.Purchase) []shop.CurrencyAmount {
	by := map[string]*big.Rat{}
	n := map[string]int64{}
	for _, p := range ps {
		r, _ := new(big.Rat).SetString(string(p.Total))
		if by[p.Currency] == nil {
			by[p.Currency] = new(big.Rat)
		}
		by[p.Currency].Add(by[p.Currency], r)
		n[p.Currency]++
	}
	out := []shop.CurrencyAmount{}
	for cur, r := range by {
		d, _ := shop.CurrencyDigits(cur)
		out = append(out, shop.CurrencyAmount{Currency: cur, Amount: shop.Money(r.FloatString(d)), Count: n[cur]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out
}

func TestCustomerService_FindCustomer(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	s := mysql.NewCustomerService(db)
	var theirs, act, rfd []*shop.Purchase
	var toShip int64
	for _, p := range f.purchases {
		if p.AccountID == f.id(1) && *p.BuyerEmail == "zoe@example.com" {
			theirs = append(theirs, p)
			switch p.Status {
			case shop.PurchaseActive:
				act = append(act, p)
			case shop.PurchaseRefunded:
				rfd = append(rfd, p)
			}
			if p.TangiblesToShip != nil && *p.TangiblesToShip > 0 {
				toShip++
			}
		}
	}
	t.Run("OK", func(t *testing.T) {
		// Letter case and accents ignored; another address that starts the same is not it.
		c, err := s.FindCustomer(ctx, f.id(1), "ZOË@Example.COM")
		if err != nil {
			t.Fatal(err)
		}
		if c.Email != "zoe@example.com" || c.Purchases != int64(len(theirs)) || c.ToShip != toShip {
			t.Errorf("got %s, %d purchases, %d to ship; want zoe@example.com, %d, %d", c.Email, c.Purchases, c.ToShip, len(theirs), toShip)
		}
		if got, want := c.Lifetime, sums(act); !slices.Equal(got, want) {
			t.Errorf("lifetime: got %v, want %v", got, want)
		}
		if got, want := c.Refunded, sums(rfd); !slices.Equal(got, want) {
			t.Errorf("refunded: got %v, want %v", got, want)
		}
		if !slices.Equal(c.Names, []string{"Zoë Müller"}) {
			t.Errorf("names: got %q", c.Names)
		}
		first, last := theirs[0].CreatedAt, theirs[0].CreatedAt
		for _, p := range theirs {
			if p.CreatedAt.Before(first.Time) {
				first = p.CreatedAt
			}
			if p.CreatedAt.After(last.Time) {
				last = p.CreatedAt
			}
		}
		if !c.FirstPurchaseAt.Equal(first.Time) || !c.LastPurchaseAt.Equal(last.Time) {
			t.Errorf("dates: got %v–%v, want %v–%v", c.FirstPurchaseAt, c.LastPurchaseAt, first, last)
		}
	})
	t.Run("Subscriber", func(t *testing.T) {
		c, err := s.FindCustomer(ctx, f.id(1), "sub@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if c.Email != "Sub@Example.com" || c.Purchases != 0 || c.Subscribers != 1 || c.FirstPurchaseAt != nil {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		for _, tc := range []struct {
			account int64
			email   string
		}{{f.id(2), "zoe@example.com"}, {f.id(2), "sub@example.com"}, {f.id(1), "zoe"}, {f.id(1), "zoe@example.com "}, {f.id(1), "nobody@example.com"}} {
			var se *shop.Error
			if _, err := s.FindCustomer(ctx, tc.account, tc.email); !errors.As(err, &se) || se.Code != shop.ENotFound {
				t.Errorf("account %d %q: got %v, want not found", tc.account, tc.email, err)
			}
		}
	})
}

func TestCustomerService_FindCustomerPurchases(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	s := mysql.NewCustomerService(db)
	want := f.want(f.id(1), true, func(p *shop.Purchase) bool { return strings.EqualFold(*p.BuyerEmail, "zoe@example.com") })
	var got []int64
	var after *shop.Cursor
	for range 10 {
		page, err := s.FindCustomerPurchases(ctx, f.id(1), "Zoe@example.com", after, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ids(page.Purchases)...)
		if page.Next == nil {
			break
		}
		after = page.Next
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// Read from their documents, or from their rows when a document is missing: the
	// purchases as the one read path reads them.
	if _, err := db.ExecContext(ctx, "DELETE FROM purchase_documents WHERE account_id = ? AND purchase_id = ?", f.id(1), want[0]); err != nil {
		t.Fatal(err)
	}
	page, err := s.FindCustomerPurchases(ctx, f.id(1), "zoe@example.com", nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range page.Purchases {
		rows, err := mysql.NewPurchaseService(db).FindPurchaseByID(ctx, f.id(1), p.ID)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(p)
		b, _ := json.Marshal(rows)
		if string(a) != string(b) || p.AccountID != f.id(1) {
			t.Errorf("purchase %d (account %d): got %s, want %s", p.ID, p.AccountID, a, b)
		}
	}
	page, err = s.FindCustomerPurchases(ctx, f.id(2), "zoe@example.com", nil, 10)
	if err != nil || len(page.Purchases) != 0 {
		t.Errorf("another account: got %v, %v; want none", page, err)
	}
}

func TestCustomerService_Notes(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	s := mysql.NewCustomerService(db)
	admin := mysql.NewAdminService(db)
	mk := func(account int64, email, role string) *shop.User {
		id, err := admin.CreateUser(ctx, account, email, role, "correct horse battery")
		if err != nil {
			t.Fatal(err)
		}
		return &shop.User{ID: id, AccountID: account, Email: email, Role: role}
	}
	owner, staff, other, viewer := mk(f.id(1), "o@x.test", shop.RoleOwner), mk(f.id(1), "s@x.test", shop.RoleStaff), mk(f.id(1), "s2@x.test", shop.RoleStaff), mk(f.id(1), "v@x.test", shop.RoleViewer)
	var pid int64
	for _, p := range f.purchases {
		if p.AccountID == f.id(1) && *p.BuyerEmail == "zoe@example.com" {
			pid = p.ID
			break
		}
	}
	t.Run("OK", func(t *testing.T) {
		n1, err := s.AddNote(ctx, staff, shop.Note{CustomerEmail: "ZOE@example.com", Body: "  <b>called</b> about a refund "})
		if err != nil {
			t.Fatal(err)
		}
		n2, err := s.AddNote(ctx, staff, shop.Note{PurchaseID: pid, Body: "key resent"})
		if err != nil {
			t.Fatal(err)
		}
		notes, next, err := s.FindCustomerNotes(ctx, f.id(1), "zoe@example.com", 0, 100)
		if err != nil || next != 0 {
			t.Fatal(next, err)
		}
		if len(notes) != 2 || notes[0].ID != n2.ID || notes[1].Body != "<b>called</b> about a refund" || notes[1].Author != "s@x.test" {
			t.Errorf("got %+v", notes)
		}
		pn, err := s.FindPurchaseNotes(ctx, f.id(1), pid)
		if err != nil || len(pn) != 1 || pn[0].ID != n2.ID {
			t.Errorf("purchase notes: got %+v, %v", pn, err)
		}
		acts, err := mysql.NewAccountActivityService(db).FindAccountActivity(ctx, f.id(1), 10)
		if err != nil || len(acts) < 2 || acts[0].Action != shop.ActionNoteAdded || !strings.Contains(acts[0].Details, "key resent") {
			t.Errorf("account activity: got %+v, %v", acts, err)
		}
		// Another staff member may not delete it; its author and an owner may.
		if _, err := s.DeleteNote(ctx, other, n1.ID); shop.ErrorCode(err) != shop.EForbidden {
			t.Errorf("other staff: got %v, want forbidden", err)
		}
		if _, err := s.DeleteNote(ctx, staff, n1.ID); err != nil {
			t.Errorf("author: %v", err)
		}
		if _, err := s.DeleteNote(ctx, owner, n2.ID); err != nil {
			t.Errorf("owner: %v", err)
		}
		if notes, _, _ := s.FindCustomerNotes(ctx, f.id(1), "zoe@example.com", 0, 100); len(notes) != 0 {
			t.Errorf("after delete: got %+v", notes)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for name, tc := range map[string]struct {
			user *shop.User
			n    shop.Note
			code string
		}{
			"viewer":        {viewer, shop.Note{CustomerEmail: "zoe@example.com", Body: "x"}, shop.EForbidden},
			"empty":         {staff, shop.Note{CustomerEmail: "zoe@example.com", Body: "  "}, shop.EMissing},
			"long":          {staff, shop.Note{CustomerEmail: "zoe@example.com", Body: strings.Repeat("é", 2001)}, shop.EInvalid},
			"no customer":   {staff, shop.Note{CustomerEmail: "nobody@example.com", Body: "x"}, shop.ENotFound},
			"other account": {staff, shop.Note{PurchaseID: otherAccountPurchase(f), Body: "x"}, shop.ENotFound},
		} {
			if _, err := s.AddNote(ctx, tc.user, tc.n); shop.ErrorCode(err) != tc.code {
				t.Errorf("%s: got %v, want %s", name, err, tc.code)
			}
		}
		if _, err := s.AddNote(ctx, staff, shop.Note{CustomerEmail: "zoe@example.com", Body: strings.Repeat("é", 2000)}); err != nil {
			t.Errorf("2,000 characters: %v", err)
		}
	})
}

func otherAccountPurchase(f fixture) int64 {
	for _, p := range f.purchases {
		if p.AccountID == f.id(2) {
			return p.ID
		}
	}
	return 0
}

// TestCustomerService_Pages: a customer's notes, activity and e-mails are paged newest
// first, each page after the last entry of the one before, so that every entry is
// reached once; another address's and another account's are never in them.
func TestCustomerService_Pages(t *testing.T) {
	db, f := loadFixture(t)
	ctx := context.Background()
	s := mysql.NewCustomerService(db)
	id, err := mysql.NewAdminService(db).CreateUser(ctx, f.id(1), "s@x.test", shop.RoleStaff, "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	staff := &shop.User{ID: id, AccountID: f.id(1), Email: "s@x.test", Role: shop.RoleStaff}
	var pid int64
	for _, p := range f.purchases {
		if p.AccountID == f.id(1) && *p.BuyerEmail == "zoe@example.com" {
			pid = p.ID
		}
	}
	var notes, acts, mails []int64
	for i := range 7 {
		n := shop.Note{CustomerEmail: "zoe@example.com", Body: "note"}
		if i%2 == 1 {
			n = shop.Note{PurchaseID: pid, Body: "purchase note"}
		}
		added, err := s.AddNote(ctx, staff, n)
		if err != nil {
			t.Fatal(err)
		}
		notes = append([]int64{added.ID}, notes...)
		res, err := db.ExecContext(ctx, `INSERT INTO purchase_activity (account_id, purchase_id, buyer_email, actor, action, details, created_at)
			VALUES (?, ?, 'Zoe@Example.com', 'test', 'reactivated', '{}', NOW())`, f.id(1), pid)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := res.LastInsertId()
		acts = append([]int64{a}, acts...)
		res, err = db.ExecContext(ctx, `INSERT INTO email_outbox (account_id, kind, purchase_id, to_address, subject, body, status, attempts, created_at, next_attempt_at)
			VALUES (?, 'purchase_ready', ?, 'zoe@example.com', 's', 'b', 'sent', 1, NOW(), NOW())`, f.id(1), pid)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := res.LastInsertId()
		mails = append([]int64{m}, mails...)
	}
	// Look-alikes that are other customers: another address, another account.
	for _, q := range []struct {
		account int64
		stmt    string
	}{
		{f.id(1), `INSERT INTO purchase_activity (account_id, purchase_id, buyer_email, actor, action, details, created_at) VALUES (?, ?, 'zoe@example.com ', 'test', 'reactivated', '{}', NOW())`},
		{f.id(2), `INSERT INTO email_outbox (account_id, kind, purchase_id, to_address, subject, body, status, attempts, created_at, next_attempt_at) VALUES (?, 'purchase_ready', ?, 'zoe@example.com', 's', 'b', 'sent', 1, NOW(), NOW())`},
	} {
		if _, err := db.ExecContext(ctx, q.stmt, q.account, pid); err != nil {
			t.Fatal(err)
		}
	}
	walk := func(what string, page func(before int64) ([]int64, int64, error), want []int64) {
		t.Helper()
		var got []int64
		before := int64(0)
		for range 10 {
			ids, next, err := page(before)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if len(ids) > 3 {
				t.Fatalf("%s: %d entries in a page of 3", what, len(ids))
			}
			got = append(got, ids...)
			if next == 0 {
				break
			}
			before = next
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	walk("notes", func(before int64) ([]int64, int64, error) {
		ns, next, err := s.FindCustomerNotes(ctx, f.id(1), "ZOË@example.com", before, 3)
		var ids []int64
		for _, n := range ns {
			ids = append(ids, n.ID)
		}
		return ids, next, err
	}, notes)
	walk("activity", func(before int64) ([]int64, int64, error) {
		as, next, err := s.FindCustomerActivity(ctx, f.id(1), "zoe@example.com", before, 3)
		var ids []int64
		for _, a := range as {
			ids = append(ids, a.ID)
		}
		return ids, next, err
	}, acts)
	walk("e-mails", func(before int64) ([]int64, int64, error) {
		ms, next, err := s.FindCustomerEmails(ctx, f.id(1), "zoe@example.com", before, 3)
		var ids []int64
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		return ids, next, err
	}, mails)
}
