package main

import (
	"context"
	"database/sql"
	"fmt"
)

// sweepPicks are the single-filter values of the sweep that its two-filter
// combinations reuse.
type sweepPicks struct {
	prefix   map[string]string // "customer_email ~1 %", "customer_first_name densest letter", …: the prefix
	products []idCount         // the account's products, most bought first
}

// sweepCombo is one two-filter combination of the sweep.
type sweepCombo struct {
	name string
	kv   []string
}

// comboValues chooses the sweep's two-filter combinations whose filters, each alone,
// would be read from different ordered paths (product, e-mail or name prefix, status,
// storefront, ship, total): a rare and a common value of each side, so that one side
// leaves few of the other's rows, or many. The values come from SQL on purchases, as
// the single filters' do.
func comboValues(ctx context.Context, db *sql.DB, account, n int64, p sweepPicks) ([]sweepCombo, error) {
	one := func(query string, dst ...any) error {
		if err := db.QueryRowContext(ctx, query, account).Scan(dst...); err != nil {
			return fmt.Errorf("%s: %w", query, err)
		}
		return nil
	}
	var rareStatus, commonStatus string
	if err := one(`SELECT status FROM purchases WHERE account_id = ? GROUP BY status ORDER BY COUNT(*), status LIMIT 1`, &rareStatus); err != nil {
		return nil, err
	}
	if err := one(`SELECT status FROM purchases WHERE account_id = ? GROUP BY status ORDER BY COUNT(*) DESC, status LIMIT 1`, &commonStatus); err != nil {
		return nil, err
	}
	var smallSF, bigSF int64
	if err := one(`SELECT storefront_id FROM purchases WHERE account_id = ? GROUP BY storefront_id ORDER BY COUNT(*), storefront_id LIMIT 1`, &smallSF); err != nil {
		return nil, err
	}
	if err := one(`SELECT storefront_id FROM purchases WHERE account_id = ? GROUP BY storefront_id ORDER BY COUNT(*) DESC, storefront_id LIMIT 1`, &bigSF); err != nil {
		return nil, err
	}
	var top1pc, median string
	if err := one(fmt.Sprintf("SELECT total FROM purchases WHERE account_id = ? ORDER BY total DESC LIMIT 1 OFFSET %d", n/100), &top1pc); err != nil {
		return nil, err
	}
	if err := one(fmt.Sprintf("SELECT total FROM purchases WHERE account_id = ? ORDER BY total LIMIT 1 OFFSET %d", n/2), &median); err != nil {
		return nil, err
	}
	most := fmt.Sprint(p.products[0].id)
	least := fmt.Sprint(p.products[len(p.products)-1].id)
	email1pc, emailDense := p.prefix["customer_email ~1 %"], p.prefix["customer_email densest letter"]
	gt1pc, lt50pc := []string{"total", trimDecimal(top1pc), "total_op", "gt"}, []string{"total", trimDecimal(median), "total_op", "lt"}
	c := func(name string, kv ...string) sweepCombo { return sweepCombo{name, kv} }
	return []sweepCombo{
		// product + ship
		c("product_id most bought + ship=1", "product_id", most, "ship", "1"),
		c("product_id least bought + ship=1", "product_id", least, "ship", "1"),
		// e-mail prefix + status or ship
		c("customer_email ~1 % + the rarest status ("+rareStatus+")", "customer_email", email1pc, "status", rareStatus),
		c("customer_email ~1 % + the commonest status ("+commonStatus+")", "customer_email", email1pc, "status", commonStatus),
		c("customer_email ~1 % + ship=1", "customer_email", email1pc, "ship", "1"),
		c("customer_email densest letter + the commonest status ("+commonStatus+")", "customer_email", emailDense, "status", commonStatus),
		// storefront + name prefix
		c("storefront_id with the fewest purchases + customer_first_name densest letter",
			"storefront_id", fmt.Sprint(smallSF), "customer_first_name", p.prefix["customer_first_name densest letter"]),
		c("storefront_id with the fewest purchases + customer_last_name ~1 %",
			"storefront_id", fmt.Sprint(smallSF), "customer_last_name", p.prefix["customer_last_name ~1 %"]),
		c("storefront_id with the most purchases + customer_last_name ~10",
			"storefront_id", fmt.Sprint(bigSF), "customer_last_name", p.prefix["customer_last_name ~10"]),
		c("storefront_id with the most purchases + customer_first_name densest letter",
			"storefront_id", fmt.Sprint(bigSF), "customer_first_name", p.prefix["customer_first_name densest letter"]),
		// status + total comparison
		c("the rarest status ("+rareStatus+") + total_op=gt ~1 %", append([]string{"status", rareStatus}, gt1pc...)...),
		c("the commonest status ("+commonStatus+") + total_op=gt ~1 %", append([]string{"status", commonStatus}, gt1pc...)...),
		c("the rarest status ("+rareStatus+") + total_op=lt ~50 %", append([]string{"status", rareStatus}, lt50pc...)...),
		// product + e-mail prefix
		c("product_id most bought + customer_email ~1 %", "product_id", most, "customer_email", email1pc),
		c("product_id least bought + customer_email densest letter", "product_id", least, "customer_email", emailDense),
		c("product_id most bought + customer_email densest letter", "product_id", most, "customer_email", emailDense),
	}, nil
}
