// Command crossover measures where reading and sorting a condition's matches stops
// being cheaper than walking an ordered path until a page of them is found: the limits
// of the plan rule (internal/mysql/plan.go, db/README.md "Plans").
//
// For prefixes longer than three characters of the name and e-mail columns it picks,
// by SQL, prefixes whose match counts span 100 to 100,000 in account 1 of the bench
// database and times, newest first, the first page of 101 ids read both ways: from the
// column's own index, sorted ("sort"), and from the prefix path of its first three
// characters in purchase_prefixes, checking the whole prefix on each entry ("walk").
// For total comparisons (total > x) it does the same with the total index and the
// list-order index that holds the total.
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

type column struct {
	name  string
	field int
	index string
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
	for _, col := range []column{
		{"buyer_email", 1, "purchases_account_email"},
		{"buyer_firstname", 2, "purchases_account_firstname"},
		{"buyer_lastname", 3, "purchases_account_lastname"},
	} {
		counts, err := groupCounts(ctx, db, col.name, 4, 6)
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, target := range targets {
			prefix, n := pick(counts, target)
			if seen[prefix] {
				continue
			}
			seen[prefix] = true
			arg := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix) + "%"
			sortT, err := median(ctx, db, runs, "SELECT p.id, p.created_at FROM purchases p FORCE INDEX ("+col.index+") WHERE p.account_id = 1 AND "+
				col.name+" LIKE ? ORDER BY p.created_at DESC, p.id DESC LIMIT 101", arg)
			if err != nil {
				return err
			}
			walkT, err := median(ctx, db, runs, "SELECT x.purchase_id, x.created_at FROM purchase_prefixes x FORCE INDEX (PRIMARY) "+
				"WHERE x.account_id = 1 AND x.field = ? AND x.prefix_len = 3 AND x.prefix = ? AND x.value LIKE ? "+
				"ORDER BY x.created_at DESC, x.purchase_id DESC LIMIT 101", col.field, string([]rune(prefix)[:3]), arg)
			if err != nil {
				return err
			}
			fmt.Printf("| %s LIKE | %q | %d | %.2f | %.2f | %.1f |\n", col.name, prefix, n, ms(sortT), ms(walkT), float64(walkT)/float64(sortT))
		}
	}
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

// groupCounts counts the matches in account 1 of every prefix of from to to
// characters of the column.
func groupCounts(ctx context.Context, db *sql.DB, col string, from, to int) (map[string]int, error) {
	out := map[string]int{}
	for l := from; l <= to; l++ {
		rows, err := db.QueryContext(ctx, fmt.Sprintf("SELECT LEFT(%[1]s, %[2]d), COUNT(*) FROM purchases WHERE account_id = 1 AND CHAR_LENGTH(%[1]s) >= %[2]d GROUP BY LEFT(%[1]s, %[2]d)", col, l))
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
