package web

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"storefront/internal/shop"
	"storefront/templates"
)

// overviewCharts draws the range's purchases and each currency's revenue by day, or by
// week when the range is long.
func overviewCharts(cells []shop.PurchaseCell, currencies []string, r overviewRange, loc *time.Location) []templates.Chart {
	// The cells come summed by the step (PurchaseFigures, FigureQuery.Step).
	weekly := r.before.Sub(r.from) > overviewWeekly
	first := midnightIn(r.from, loc)
	step := 1
	unit, per := "day", "Day"
	if weekly {
		step, unit, per = 7, "week", "Week of"
	}
	var starts []time.Time
	for d := first; d.Before(r.before); d = d.AddDate(0, 0, step) {
		starts = append(starts, d)
	}
	bucket := func(day time.Time) int {
		i := daysBetween(first, day, loc) / step
		return min(max(i, 0), len(starts)-1)
	}
	counts := make([]int64, len(starts))
	revenue := map[string][]*big.Rat{}
	for _, cur := range currencies {
		revenue[cur] = make([]*big.Rat, len(starts))
		for i := range starts {
			revenue[cur][i] = new(big.Rat)
		}
	}
	for _, c := range cells {
		i := bucket(c.Day)
		counts[i] += c.Purchases
		if c.Status == shop.PurchaseActive {
			revenue[c.Currency][i].Add(revenue[c.Currency][i], c.Total)
		}
	}
	label := func(t time.Time) string {
		if weekly || daysBetween(first, r.before, loc) > 14 {
			return t.Format("2 Jan")
		}
		return t.Format("Mon 2 Jan")
	}
	if first.Year() != r.before.Add(-time.Nanosecond).In(loc).Year() {
		label = func(t time.Time) string { return t.Format("2 Jan 2006") }
	}
	var out []templates.Chart
	for _, cur := range currencies {
		ch := templates.Chart{ID: "chart-revenue-" + strings.ToLower(cur), Title: fmt.Sprintf("Revenue per %s (%s)", unit, cur),
			Unit: "Revenue (" + cur + ")", BarClass: "fill-indigo-500"}
		peak, peakAt := new(big.Rat), ""
		for i, d := range starts {
			amount := revenue[cur][i]
			if amount.Cmp(peak) > 0 || peakAt == "" {
				peak, peakAt = amount, per+" "+label(d)
			}
			// The bar's height alone is a float; the amounts shown stay exact.
			ch.Points = append(ch.Points, templates.ChartPoint{Label: label(d), Value: ratFloat(amount), Text: formatMoney(amount, cur)})
		}
		ch.Description = fmt.Sprintf("Bars of the revenue of active purchases in %s for each of %d %ss from %s; the highest, %s, on %s.",
			cur, len(starts), unit, label(first), formatMoney(peak, cur), peakAt)
		out = append(out, ch)
	}
	ch := templates.Chart{ID: "chart-purchases", Title: fmt.Sprintf("Purchases per %s", unit), Unit: "Purchases", BarClass: "fill-emerald-500", Whole: true}
	var peak int64
	peakAt := ""
	for i, d := range starts {
		if counts[i] > peak || peakAt == "" {
			peak, peakAt = counts[i], per+" "+label(d)
		}
		ch.Points = append(ch.Points, templates.ChartPoint{Label: label(d), Value: float64(counts[i]), Text: templates.FormatCount(counts[i])})
	}
	ch.Description = fmt.Sprintf("Bars of the number of purchases in every status for each of %d %ss from %s; the most, %s, on %s.",
		len(starts), unit, label(first), templates.FormatCount(peak), peakAt)
	return append(out, ch)
}

func midnightIn(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}
