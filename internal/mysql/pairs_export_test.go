package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"storefront/internal/shop"
)

// pairMismatches rebuilds in Go, from the purchases' rows and line items, the pairs'
// rows each should have (for its status unless ACT and for tangibles to ship: one per
// product it holds, and one per prefix of 1 to 3 characters of its e-mail, as runes)
// and lists those missing, different or extra in purchase_pairs.
func pairMismatches(ctx context.Context, db *DB) ([]string, error) {
	type key struct {
		account, id, product int64
		mark                 string
		field, n             int
		prefix, when         string
	}
	type purchase struct {
		account int64
		marks   []string
		when    string
	}
	want := map[key]string{}
	purchases := map[int64]purchase{}
	err := eachRow(ctx, db.DB, "SELECT account_id, id, created_at, status, to_ship, buyer_email FROM purchases", nil, func(rows *sql.Rows) error {
		var (
			p       purchase
			id      int64
			created time.Time
			status  string
			toShip  bool
			email   sql.NullString
		)
		if err := rows.Scan(&p.account, &id, &created, &status, &toShip, &email); err != nil {
			return err
		}
		if status != "ACT" {
			p.marks = append(p.marks, status)
		}
		if toShip {
			p.marks = append(p.marks, "ship")
		}
		p.when = created.UTC().Format(time.DateTime)
		runes := []rune(email.String)
		purchases[id] = p
		for _, m := range p.marks {
			for n := 1; n <= 3 && n <= len(runes); n++ {
				want[key{p.account, id, 0, m, 1, n, string(runes[:n]), p.when}] = email.String
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = eachRow(ctx, db.DB, "SELECT DISTINCT purchase_id, product_id FROM line_items", nil, func(rows *sql.Rows) error {
		var id, product int64
		if err := rows.Scan(&id, &product); err != nil {
			return err
		}
		p := purchases[id]
		for _, m := range p.marks {
			want[key{p.account, id, product, m, 0, 0, "", p.when}] = ""
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	err = eachRow(ctx, db.DB, "SELECT account_id, purchase_id, product_id, mark, field, prefix_len, prefix, created_at, value FROM purchase_pairs", nil,
		func(rows *sql.Rows) error {
			var (
				k       key
				created time.Time
				value   string
			)
			if err := rows.Scan(&k.account, &k.id, &k.product, &k.mark, &k.field, &k.n, &k.prefix, &created, &value); err != nil {
				return err
			}
			k.when = created.UTC().Format(time.DateTime)
			w, ok := want[k]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("purchase %d: pair row extra: %+v", k.id, k))
			case w != value:
				out = append(out, fmt.Sprintf("purchase %d: pair row %+v holds %q, want %q", k.id, k, value, w))
			}
			delete(want, k)
			return nil
		})
	for k := range want {
		out = append(out, fmt.Sprintf("purchase %d: pair row missing: %+v", k.id, k))
	}
	return out, err
}

// BackfillPairs runs migration 142's backfill of the marks' rows.
func (db *DB) BackfillPairs(ctx context.Context) error { return backfillPairs(ctx, db.DB) }

// PlanPath returns the name of the access path the plan rule takes for the filter.
func (db *DB) PlanPath(ctx context.Context, f shop.PurchaseFilter) (string, error) {
	pl, err := planPurchases(ctx, db.DB, f)
	return pl.path.String(), err
}
