// Command entries counts the index entries that one list page of the API reads: for each
// filter given (as the query string of GET /api/v2/purchases, account 1), newest and
// oldest first, it runs ANALYZE FORMAT=JSON on the statements the API sends for the page
// (mysql.PurchasePageStatements: the plan's capped counts and the page's ids) and sums the
// rows each table read; and times those statements (median of 5). Unlike a latency, the
// count does not depend on the machine's load. With -depth N, also the page N newest first
// by cursor (as the shape sweep's deep cell: each page's last id is the next one's cursor).
//
//	go run ./bench/entries -dsn 'root@tcp(127.0.0.1:3306)/storefront_bench' 'customer_email=re' 'customer_first_name=a&customer_last_name=s'
//	go run ./bench/entries -depth 20 'product_id=4&ship=1'
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"net/url"
	"os"
	"slices"
	"time"

	"storefront/internal/filter"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

func main() {
	dsn := flag.String("dsn", "root@tcp(127.0.0.1:3306)/storefront_bench", "DSN of the bench database")
	flag.BoolVar(&verbose, "v", false, "print each statement, with its entries, before its filter's row")
	flag.IntVar(&depth, "depth", 0, "also the page of this number newest first, by cursor (0: none)")
	flag.Parse()
	if err := run(*dsn, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "entries:", err)
		os.Exit(1)
	}
}

// verbose prints each statement and the entries it reads.
var verbose bool

// depth is the page, newest first by cursor, measured besides the first pages.
var depth int

func run(dsn string, queries []string) error {
	ctx := context.Background()
	mdb, err := mysql.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer mdb.Close()
	db := mdb.DB
	fmt.Println("| filter | order | index entries read (plan counts + page ids) | ms (median of 5, SQL only) |")
	fmt.Println("|---|---|---:|---:|")
	for _, query := range append([]string{""}, queries...) {
		orders := []string{"desc", "asc"}
		if depth > 1 {
			orders = append(orders, fmt.Sprintf("desc, page %d", depth))
		}
		for i, order := range orders {
			q, err := url.ParseQuery(query)
			if err != nil {
				return err
			}
			q.Set("order", orders[min(i, 1)])
			q.Set("per_page", "100")
			f, err := filter.Purchases(q, 1, time.Now(), time.UTC)
			if err != nil {
				return fmt.Errorf("%s: %w", query, err)
			}
			if i == 2 {
				if f.After, err = cursorAt(ctx, db, f, depth); err != nil {
					return err
				}
				if f.After == nil {
					fmt.Printf("| `%s` | %s | fewer pages | |\n", query, order)
					continue
				}
			}
			plan, list, _, err := mysql.PurchasePageStatements(ctx, db, f)
			if err != nil {
				return err
			}
			stmts := append(plan, list)
			var total float64
			for _, s := range stmts {
				n, err := mysql.EntriesRead(ctx, db, s)
				if err != nil {
					return err
				}
				total += n
				if verbose {
					fmt.Printf("%.0f entries, %.3f ms: %s %v\n", n, medianMs(ctx, db, s), s.Query, s.Args)
				}
			}
			var ts []time.Duration
			for range 5 {
				t0 := time.Now()
				for _, s := range stmts {
					rows, err := db.QueryContext(ctx, s.Query, s.Args...)
					if err != nil {
						return err
					}
					for rows.Next() {
					}
					rows.Close()
				}
				ts = append(ts, time.Since(t0))
			}
			slices.Sort(ts)
			name := query
			if name == "" {
				name = "(none)"
			}
			fmt.Printf("| `%s` | %s | %.0f | %.2f |\n", name, order, total, float64(ts[2].Microseconds())/1000)
		}
	}
	return nil
}

// cursorAt returns the cursor of the page of number page of the filter (the last row of
// the page before it), nil when the list is shorter.
func cursorAt(ctx context.Context, db *sql.DB, f shop.PurchaseFilter, page int) (*shop.Cursor, error) {
	n := perPage(f.PerPage)
	for p := 1; p < page; p++ {
		_, list, _, err := mysql.PurchasePageStatements(ctx, db, f)
		if err != nil {
			return nil, err
		}
		rows, err := db.QueryContext(ctx, list.Query, list.Args...)
		if err != nil {
			return nil, err
		}
		cols, _ := rows.Columns()
		var (
			c    shop.Cursor
			seen int
		)
		for seen < n && rows.Next() {
			var m sql.NullInt64 // the total bands' mark of an optimistic plan: 0 for its sentinel
			dest := []any{&c.ID, &c.CreatedAt}
			if len(cols) > 2 {
				dest = append(dest, &m)
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, err
			}
			if !m.Valid || m.Int64 != 0 {
				seen++
			}
		}
		more := rows.Next()
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if !more {
			return nil, nil
		}
		after := c
		f.After = &after
	}
	return f.After, nil
}

// perPage is the page size of a filter (100 when unset).
func perPage(n int) int {
	if n <= 0 {
		return 100
	}
	return n
}

// medianMs times one statement: the median of 21 runs, in milliseconds.
func medianMs(ctx context.Context, db *sql.DB, s mysql.Statement) float64 {
	var ts []time.Duration
	for range 21 {
		t0 := time.Now()
		rows, err := db.QueryContext(ctx, s.Query, s.Args...)
		if err != nil {
			return -1
		}
		for rows.Next() {
		}
		rows.Close()
		ts = append(ts, time.Since(t0))
	}
	slices.Sort(ts)
	return float64(ts[10].Microseconds()) / 1000
}
