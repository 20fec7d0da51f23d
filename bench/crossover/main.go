// Command crossover measures where reading and sorting a total comparison's matches
// stops being cheaper than walking the list order until a page of them is found: the
// sortLimit of the plan rule (internal/mysql/plan.go, db/README.md "Plans").
//
// It picks, by SQL, totals of account 1 of the bench database above which 100 to
// 100,000 purchases lie, and times, newest first, the first page of 101 ids of
// total > x read both ways: from the total's own index, sorted ("sort"), and from the
// list-order index that holds the total, checking it on each entry ("walk"). (The
// prefix filters have ordered paths of their own and no cross-over.)
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

func run(dsn string, runs int) error {
	ctx := context.Background()
	db, err := sql.Open("mysql", dsn+"?parseTime=true&collation=utf8mb4_unicode_ci")
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Println("| condition | value | matches | sort p50 ms | walk p50 ms | walk/sort |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	targets := []int{100, 300, 1000, 2000, 4000, 8000, 16000, 32000, 100000}
	// Totals: the count above each distinct total, from the largest down.
	counts, err := totalCounts(ctx, db)
	if err != nil {
		return err
	}
	for _, target := range targets {
		total, n := pick(counts, target)
		q := func(index string) string {
			return "SELECT p.id, p.created_at FROM purchases p FORCE INDEX (" + index + ") WHERE p.account_id = 1 AND p.total > CAST(? AS DECIMAL(65,30)) " +
				"ORDER BY p.created_at DESC, p.id DESC LIMIT 101"
		}
		sortT, err := median(ctx, db, runs, q("purchases_account_total"), total)
		if err != nil {
			return err
		}
		walkT, err := median(ctx, db, runs, q("purchases_account_created_total"), total)
		if err != nil {
			return err
		}
		fmt.Printf("| total > | %s | %d | %.2f | %.2f | %.1f |\n", total, n, ms(sortT), ms(walkT), float64(walkT)/float64(sortT))
	}
	return nil
}

// totalCounts maps each distinct total of account 1 (as text) to the number of its
// purchases with a larger total.
func totalCounts(ctx context.Context, db *sql.DB) (map[string]int, error) {
	rows, err := db.QueryContext(ctx, "SELECT total, COUNT(*) FROM purchases WHERE account_id = 1 GROUP BY total ORDER BY total DESC")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	above := 0
	for rows.Next() {
		var total string
		var n int
		if err := rows.Scan(&total, &n); err != nil {
			return nil, err
		}
		out[total] = above
		above += n
	}
	return out, rows.Err()
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
