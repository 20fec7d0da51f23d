package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"storefront/internal/mysql"
)

// The Search box's domain suggestions (AccountService.FindDomains, db/README.md
// "Domains"), straight on the bench database: for the account with the most purchases,
// a prefix of the commonest domain and of the rarest, the domain whole, one letter that
// starts several, none (the first eight) and one no domain starts with. Each is called
// suggestRounds times in turn with the others; the figure is each one's median, and the
// ratio of the commonest domain's to the rarest's, which one descent a domain should
// keep near 1.

// suggestRounds is how many times each prefix is asked.
const suggestRounds = 200

// suggestRow is one prefix's figures.
type suggestRow struct {
	name, prefix string
	purchases    int64 // purchases whose e-mail has a domain offered
	offered      int
	p50          time.Duration
}

func benchSuggest(ctx context.Context, o options) ([]suggestRow, error) {
	db, err := mysql.Open(ctx, o.rootDSN+o.db)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var account int64
	if err := db.QueryRowContext(ctx, "SELECT account_id FROM purchases GROUP BY account_id ORDER BY COUNT(*) DESC LIMIT 1").Scan(&account); err != nil {
		return nil, err
	}
	// The domains by how many purchases hold them (the domain rows, field 5).
	type domain struct {
		name string
		n    int64
	}
	rows, err := db.QueryContext(ctx, `SELECT prefix, COUNT(*) FROM purchase_prefixes WHERE account_id = ? AND field = 5 AND prefix_len = 0 AND prefix <> ''
		GROUP BY prefix ORDER BY COUNT(*) DESC, prefix`, account)
	if err != nil {
		return nil, err
	}
	var domains []domain
	for rows.Next() {
		var d domain
		if err := rows.Scan(&d.name, &d.n); err != nil {
			rows.Close()
			return nil, err
		}
		domains = append(domains, d)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if len(domains) == 0 {
		return nil, fmt.Errorf("account %d has no domain rows", account)
	}
	common, rare := domains[0], domains[len(domains)-1]
	first := func(s string, n int) string { r := []rune(s); return string(r[:min(n, len(r))]) }
	out := []suggestRow{
		{name: "the commonest domain, whole", prefix: common.name},
		{name: "the rarest domain, whole", prefix: rare.name},
		{name: "the commonest domain's first 3 characters", prefix: first(common.name, 3)},
		{name: "the rarest domain's first 3 characters", prefix: first(rare.name, 3)},
		{name: "the commonest domain's first letter", prefix: first(common.name, 1)},
		{name: "none: the first 8 domains", prefix: ""},
		{name: "a prefix no domain has", prefix: "zzq"},
	}
	accounts := mysql.NewAccountService(db)
	times := make([][]time.Duration, len(out))
	for range suggestRounds {
		for i := range out {
			start := time.Now()
			got, err := accounts.FindDomains(ctx, account, out[i].prefix, 8)
			if err != nil {
				return nil, err
			}
			times[i] = append(times[i], time.Since(start))
			out[i].offered = len(got)
		}
	}
	for i := range out {
		slices.Sort(times[i])
		out[i].p50 = times[i][len(times[i])/2]
		got, _ := accounts.FindDomains(ctx, account, out[i].prefix, 8)
		for _, g := range got {
			for _, d := range domains {
				if d.name == g {
					out[i].purchases += d.n
				}
			}
		}
	}
	return out, nil
}

func printSuggest(w io.Writer, rows []suggestRow) {
	fmt.Fprintf(w, "\nSearch box domain suggestions (FindDomains, at most 8, straight on the database; median of %d calls each, in turn):\n\n", suggestRounds)
	fmt.Fprintln(w, "| prefix | what | domains offered | their purchases | p50 |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|")
	for _, r := range rows {
		fmt.Fprintf(w, "| `%s` | %s | %d | %d | %.3f ms |\n", r.prefix, r.name, r.offered, r.purchases, float64(r.p50.Microseconds())/1000)
	}
	fmt.Fprintf(w, "\nThe commonest domain against the rarest, whole (one domain each): %.2f×.\n", float64(rows[0].p50)/float64(rows[1].p50))
}
