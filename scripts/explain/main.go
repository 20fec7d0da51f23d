// Command explain prints, for every single filter of GET /api/v2/purchases, which index
// MariaDB uses for the first page of purchases (newest first), and how long that page
// takes: the check behind db/README.md's index plan.
//
//	go run ./scripts/explain -dsn 'root@tcp(127.0.0.1:3306)/storefront_bench' -account 1
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/shop"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("explain: ")
	dsn := flag.String("dsn", "", "database DSN")
	account := flag.Int64("account", 1, "account id")
	flag.Parse()
	if err := run(*dsn, *account); err != nil {
		log.Fatal(err)
	}
}

func run(dsn string, account int64) error {
	ctx := context.Background()
	db, err := mysql.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	// Filter values taken from the data itself, so that each filter matches something.
	var product, storefront, customer, subscriber int64
	var total string
	q := func(query string, dst ...any) error {
		return db.QueryRowContext(ctx, query, append([]any{}, account)...).Scan(dst...)
	}
	if err := q("SELECT li.product_id FROM line_items li JOIN purchases p ON p.id = li.purchase_id WHERE p.account_id = ? ORDER BY li.id DESC LIMIT 1", &product); err != nil {
		return err
	}
	if err := q("SELECT MIN(id) FROM storefronts WHERE account_id = ?", &storefront); err != nil {
		return err
	}
	if err := q("SELECT customer_id FROM purchases WHERE account_id = ? AND customer_id IS NOT NULL ORDER BY id DESC LIMIT 1", &customer); err != nil {
		return err
	}
	if err := q("SELECT subscriber_id FROM purchases WHERE account_id = ? AND subscriber_id IS NOT NULL ORDER BY id DESC LIMIT 1", &subscriber); err != nil {
		return err
	}
	if err := q("SELECT total FROM purchases WHERE account_id = ? ORDER BY id DESC LIMIT 1", &total); err != nil {
		return err
	}
	var newest time.Time
	if err := q("SELECT MAX(created_at) FROM purchases WHERE account_id = ?", &newest); err != nil {
		return err
	}
	from, to := newest.AddDate(0, 0, -30), newest.AddDate(0, 0, -7)
	yes := true
	cases := []struct {
		name string
		f    shop.PurchaseFilter
	}{
		{"(none)", shop.PurchaseFilter{}},
		{"status=RFD", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"RFD"}}},
		{"status=PND,ERR", shop.PurchaseFilter{Statuses: []shop.PurchaseStatus{"PND", "ERR"}}},
		{fmt.Sprintf("product_id=%d", product), shop.PurchaseFilter{ProductID: product}},
		{fmt.Sprintf("storefront_id=%d", storefront), shop.PurchaseFilter{StorefrontID: storefront}},
		{fmt.Sprintf("customer_id=%d", customer), shop.PurchaseFilter{CustomerID: customer}},
		{fmt.Sprintf("subscriber_id=%d", subscriber), shop.PurchaseFilter{SubscriberID: subscriber}},
		{"customer_email=jo", shop.PurchaseFilter{EmailPrefix: "jo"}},
		{"customer_first_name=zoe", shop.PurchaseFilter{FirstPrefix: "zoe"}},
		{"customer_last_name=muller", shop.PurchaseFilter{LastPrefix: "muller"}},
		{"date_min (30 days)", shop.PurchaseFilter{CreatedFrom: &from}},
		{"date_min+date_max", shop.PurchaseFilter{CreatedFrom: &from, CreatedBefore: &to}},
		{"total=" + total, shop.PurchaseFilter{Total: total, TotalOp: shop.TotalEq}},
		{"total>100", shop.PurchaseFilter{Total: "100", TotalOp: shop.TotalGt}},
		{"ship=1", shop.PurchaseFilter{Unshipped: &yes}},
	}
	fmt.Println("| filter | index used (purchases) | access | rows examined (est.) | extra | first page, median of 5 |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, c := range cases {
		f := c.f
		f.AccountID, f.Desc, f.PerPage = account, true, 100
		plan, err := mysql.NewPurchaseService(db).ExplainPurchases(ctx, f)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		var keys, access, rows, extra []string
		for _, r := range plan {
			if r["table"] == "c" {
				continue
			}
			keys = append(keys, r["table"]+": "+or(r["key"], "—"))
			access = append(access, r["type"])
			rows = append(rows, r["rows"])
			extra = append(extra, r["Extra"])
		}
		var times []time.Duration
		for range 5 {
			start := time.Now()
			if _, err := mysql.NewPurchaseService(db).FindPurchases(ctx, f); err != nil {
				return err
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		fmt.Printf("| %s | %s | %s | %s | %s | %s |\n", c.name, strings.Join(keys, "; "), strings.Join(access, "; "),
			strings.Join(rows, "; "), strings.Join(extra, "; "), times[2].Round(10*time.Microsecond))
	}
	return nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
