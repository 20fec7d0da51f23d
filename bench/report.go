package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// printHeader writes the line that says when, where and on what the bench ran.
func printHeader(w io.Writer, r *report, o options) {
	runs := fmt.Sprintf("; %s per load run, bare SQL %s per page", o.dur, o.sqlDur)
	if o.only == "sweep" || o.only == "export" || o.only == "rates" {
		runs = ""
	}
	if o.only == "observe" {
		runs = fmt.Sprintf("; %s per load run", o.dur)
	}
	fmt.Fprintf(w, "Storefront bench, %s: %s CPUs, %s; code %s; %s; %d purchases in %s%s; load average at start %s, at end %s.\n",
		r.started.Format("2006-01-02 15:04"), r.cpus, r.goVersion, r.commit, r.server, r.benchPurchases, o.db, runs, r.load1, r.load5)
}

// printReport writes the one table, in markdown.
func printReport(w io.Writer, r *report, o options) {
	printHeader(w, r, o)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| measurement | page | matches | p50 @1 | p99 @1 | p50 @32 | p99 @32 | bare SQL p50 @1 | bare SQL p50 / p99 @32 | p50 @1 ÷ SQL |")
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, row := range r.rows {
		ratio := "—"
		if row.sql > 0 && len(row.c1.lat) > 0 {
			ratio = fmt.Sprintf("%.2f", float64(row.c1.pct(0.5))/float64(row.sql))
		}
		fmt.Fprintf(w, "| GET /purchases %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |\n", row.name, row.page, row.matches,
			ms(row.c1.pct(0.5)), ms(row.c1.pct(0.99)), ms(row.c32.pct(0.5)), ms(row.c32.pct(0.99)), ms(row.sql),
			ms(row.sql32.pct(0.5)), ms(row.sql32.pct(0.99)), ratio+errNote(row.c1, row.c32))
	}
	if len(r.getAPI.lat) > 0 {
		fmt.Fprintf(w, "| GET /purchases/:id, validated cache (req/s @1, @32) | | | %.0f/s | p99 %s | %.0f/s | p99 %s | bare Gin: %.0f/s @1 | %.0f/s @32 | %.0f%% of bare Gin @32 |\n",
			r.getAPI1.rps(), ms(r.getAPI1.pct(0.99)), r.getAPI.rps(), ms(r.getAPI.pct(0.99)), r.getGin1.rps(), r.getGin.rps(),
			100*r.getAPI.rps()/r.getGin.rps())
	}
	if len(r.getAPIU.lat) > 0 {
		fmt.Fprintf(w, "| GET /purchases/:id, uncached (no-cache) (req/s @1, @32) | | | %.0f/s | p99 %s | %.0f/s | p99 %s | bare Gin: %.0f/s @1 | %.0f/s @32 | %.0f%% of bare Gin @32 |\n",
			r.getAPIU1.rps(), ms(r.getAPIU1.pct(0.99)), r.getAPIU.rps(), ms(r.getAPIU.pct(0.99)), r.getGin1.rps(), r.getGin.rps(),
			100*r.getAPIU.rps()/r.getGin.rps())
	}
	if len(r.listAPI.lat) > 0 {
		fmt.Fprintf(w, "| first list page, 100 purchases, validated cache (req/s @32) | | | | | %.0f/s | p99 %s | bare Gin: %.0f/s @32 | | %.0f%% of bare Gin @32 |\n",
			r.listAPI.rps(), ms(r.listAPI.pct(0.99)), r.listGin.rps(), 100*r.listAPI.rps()/r.listGin.rps())
	}
	if len(r.listAPIU.lat) > 0 {
		fmt.Fprintf(w, "| first list page, 100 purchases, uncached (no-cache) (req/s @32) | | | | | %.0f/s | p99 %s | bare Gin: %.0f/s @32 | | %.0f%% of bare Gin @32 |\n",
			r.listAPIU.rps(), ms(r.listAPIU.pct(0.99)), r.listGin.rps(), 100*r.listAPIU.rps()/r.listGin.rps())
	}
	if len(r.getSQL.lat) > 0 {
		fmt.Fprintf(w, "| bare SQL of GET /purchases/:id (req/s @1, @32) | | | %.0f/s | p99 %s | %.0f/s | p99 %s | | | uncached API @32 = %.0f%% of bare SQL |\n",
			r.getSQL1.rps(), ms(r.getSQL1.pct(0.99)), r.getSQL.rps(), ms(r.getSQL.pct(0.99)), 100*r.getAPIU.rps()/r.getSQL.rps())
	}
	for _, f := range r.fragments {
		fmt.Fprintf(w, "| dashboard fragment %s (p50 / p95) | first, 25 rows | | %s | p95 %s | %s | p95 %s | | | %s |\n",
			f.name, ms(f.c1.pct(0.5)), ms(f.c1.pct(0.95)), ms(f.c32.pct(0.5)), ms(f.c32.pct(0.95)), errNote(f.c1, f.c32))
	}
	for _, pg := range r.pages {
		ratio := ""
		if strings.HasPrefix(pg.name, "customer page") && r.pages[0].c1.pct(0.5) > 0 {
			// Issue 25's measure: the p50 at one client.
			ratio = fmt.Sprintf("p50 @1 = %.2f× the purchases page's, @32 = %.2f×; ", float64(pg.c1.pct(0.5))/float64(r.pages[0].c1.pct(0.5)),
				float64(pg.c32.pct(0.5))/float64(r.pages[0].c32.pct(0.5)))
			if pg.ref.pct(0.5) > 0 {
				ratio += fmt.Sprintf("paired with it @1: %s over %s = %.2f×; ", ms(pg.paired.pct(0.5)), ms(pg.ref.pct(0.5)),
					float64(pg.paired.pct(0.5))/float64(pg.ref.pct(0.5)))
			}
		}
		if len(r.pages) > 0 && pg.name != r.pages[0].name && r.pages[0].c1.pct(0.95) > 0 {
			ratio += fmt.Sprintf("p95 @1 = %.2f× the purchases page's, @32 = %.2f×", float64(pg.c1.pct(0.95))/float64(r.pages[0].c1.pct(0.95)),
				float64(pg.c32.pct(0.95))/float64(r.pages[0].c32.pct(0.95)))
		}
		fmt.Fprintf(w, "| dashboard %s (p50 / p95) | whole page | | %s | p95 %s | %s | p95 %s | | | %s |\n",
			pg.name, ms(pg.c1.pct(0.5)), ms(pg.c1.pct(0.95)), ms(pg.c32.pct(0.5)), ms(pg.c32.pct(0.95)), ratio+errNote(pg.c1, pg.c32))
	}
	printRateRows(w, r)
	if r.benchSeedDur > 0 {
		fmt.Fprintf(w, "| seed of the bench database, %d purchases | | | %s | | | | | | %.0f purchases/s |\n",
			r.benchPurchases, r.benchSeedDur.Round(time.Millisecond), float64(r.benchPurchases)/r.benchSeedDur.Seconds())
	}
	fmt.Fprintf(w, "| server RSS: at start, peak sampled during the load, VmHWM | | | %d MB | | %d MB | | | | VmHWM %d MB |\n",
		r.idleRSS/1024, r.peakRSS/1024, r.hwm/1024)
}

func errNote(ss ...stats) string {
	n := 0
	for _, s := range ss {
		n += s.errs
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d errors)", n)
}

// rateRows returns the measured import and seed rates: what, how long, how many a second.
func rateRows(r *report) (rows [][3]string) {
	if r.importDur > 0 {
		rows = append(rows, [3]string{fmt.Sprintf("import, %d purchases (`storefront import`, scratch database)", r.importN),
			r.importDur.Round(time.Millisecond).String(), fmt.Sprintf("%.0f purchases/s", float64(r.importN)/r.importDur.Seconds())})
	}
	if r.seedDur > 0 {
		rows = append(rows, [3]string{fmt.Sprintf("seed, %d purchases + %d subscribers (`storefront seed`, scratch database)", r.seedN, r.seedN/10),
			r.seedDur.Round(time.Millisecond).String(), fmt.Sprintf("%.0f purchases/s", float64(r.seedN)/r.seedDur.Seconds())})
	}
	return rows
}

// printRates writes the import and seed rates alone, as a table of their own (-only rates).
func printRates(w io.Writer, r *report) {
	fmt.Fprintln(w, "| measurement | time | rate |")
	fmt.Fprintln(w, "|---|---:|---:|")
	for _, row := range rateRows(r) {
		fmt.Fprintf(w, "| %s | %s | %s |\n", row[0], row[1], row[2])
	}
}

// printRateRows writes the import and seed rates as rows of the one table.
func printRateRows(w io.Writer, r *report) {
	for _, row := range rateRows(r) {
		fmt.Fprintf(w, "| %s | | | %s | | | | | | %s |\n", row[0], row[1], row[2])
	}
}
