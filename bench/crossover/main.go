// Command crossover measures where reading and sorting a prefix's matches stops being
// cheaper than walking the list order until a page of them is found: the sortLimit of
// the plan rule (internal/mysql/plan.go, db/README.md "Plans").
//
// For each prefix column it picks prefixes by SQL whose match counts span 100 to
// 100,000 in account 1 of the bench database, and times, newest first, the first page
// of 101 ids read both ways: from the prefix's own index, sorted ("sort"), and from
// the covering index in list order that holds the column, checking the prefix on each
// entry ("walk").
//
//	go run ./bench/crossover -dsn 'root@tcp(127.0.0.1:3306)/storefront_bench'
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

func main() {
	dsn := flag.String("dsn", "root@tcp(127.0.0.1:3306)/storefront_bench", "DSN of the bench database")
	runs := flag.Int("runs", 7, "timed runs of each statement (the median is shown)")
	flag.Parse()
	if err := run(*dsn, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "crossover:", err)
		os.Exit(1)
	}
}

type column struct{ name, index, walk string }

func run(dsn string, runs int) error {
	ctx := context.Background()
	db, err := sql.Open("mysql", dsn+"?parseTime=true")
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Println("| column | prefix | matches | sort p50 ms | walk p50 ms | walk/sort |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	for _, col := range []column{
		{"buyer_email", "purchases_account_email", "purchases_account_created_email"},
		{"buyer_lastname", "purchases_account_lastname", "purchases_account_created_names"},
	} {
		counts, err := prefixCounts(ctx, db, col.name)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, target := range []int{100, 300, 1000, 2000, 4000, 8000, 16000, 32000, 100000} {
			prefix, n := pick(counts, target)
			if seen[prefix] {
				continue
			}
			seen[prefix] = true
			cond := col.name + " LIKE ?"
			arg := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix) + "%"
			q := func(index string) string {
				return "SELECT p.id, p.created_at FROM purchases p FORCE INDEX (" + index + ") WHERE p.account_id = 1 AND " + cond +
					" ORDER BY p.created_at DESC, p.id DESC LIMIT 101"
			}
			sortT, err := median(ctx, db, runs, q(col.index), arg)
			if err != nil {
				return err
			}
			walkT, err := median(ctx, db, runs, q(col.walk), arg)
			if err != nil {
				return err
			}
			fmt.Printf("| %s | %q | %d | %.2f | %.2f | %.1f |\n", col.name, prefix, n, ms(sortT), ms(walkT), float64(walkT)/float64(sortT))
		}
	}
	return nil
}

// prefixCounts counts the matches in account 1 of every prefix of one to four
// characters of the column.
func prefixCounts(ctx context.Context, db *sql.DB, col string) (map[string]int, error) {
	out := map[string]int{}
	for l := 1; l <= 4; l++ {
		rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT LEFT(%[1]s, %[2]d), COUNT(*) FROM purchases WHERE account_id = 1 AND %[1]s IS NOT NULL GROUP BY LEFT(%[1]s, %[2]d)", col, l))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var p string
			var n int
			if err := rows.Scan(&p, &n); err != nil {
				rows.Close()
				return nil, err
			}
			out[p] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pick returns the prefix whose match count is closest to target (in ratio).
func pick(counts map[string]int, target int) (string, int) {
	best, bestN, bestD := "", 0, math.Inf(1)
	for p, n := range counts {
		if d := math.Abs(math.Log(float64(n) / float64(target))); d < bestD || (d == bestD && p < best) {
			best, bestN, bestD = p, n, d
		}
	}
	return best, bestN
}

func median(ctx context.Context, db *sql.DB, runs int, query string, args ...any) (time.Duration, error) {
	var ts []time.Duration
	for i := 0; i <= runs; i++ {
		t0 := time.Now()
		rows, err := db.QueryContext(ctx, query, args...)
		if err != nil {
			return 0, err
		}
		for rows.Next() {
		}
		rows.Close()
		if i > 0 { // the first run warms the pages
			ts = append(ts, time.Since(t0))
		}
	}
	slices.Sort(ts)
	return ts[len(ts)/2], nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
