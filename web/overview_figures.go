package web

import (
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"storefront/internal/shop"
	"storefront/templates"
)

// The overview's figures: the sums over a range and how they compare with the range
// before, written for the page.

// periodFigures are the overview's sums over one range.
type periodFigures struct {
	purchases, refunds int64
	revenue            map[string]*big.Rat // active purchases' totals by currency
	active             map[string]int64    // active purchases by currency
	subs               *shop.SubscriberFigures
}

func sumFigures(cells []shop.PurchaseCell, subs *shop.SubscriberFigures) periodFigures {
	f := periodFigures{revenue: map[string]*big.Rat{}, active: map[string]int64{}, subs: subs}
	for _, c := range cells {
		f.purchases += c.Purchases
		switch c.Status {
		case shop.PurchaseRefunded:
			f.refunds += c.Purchases
		case shop.PurchaseActive:
			if f.revenue[c.Currency] == nil {
				f.revenue[c.Currency] = new(big.Rat)
			}
			f.revenue[c.Currency].Add(f.revenue[c.Currency], c.Total)
			f.active[c.Currency] += c.Purchases
		}
	}
	return f
}

func currencySet(ms ...map[string]*big.Rat) []string {
	seen := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			seen[k] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

func ratOr0(r *big.Rat) *big.Rat {
	if r == nil {
		return new(big.Rat)
	}
	return r
}

func ratFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

func average0(total *big.Rat, n int64) *big.Rat {
	if n == 0 {
		return new(big.Rat)
	}
	return new(big.Rat).Quo(total, new(big.Rat).SetInt64(n))
}

// change compares a figure with the previous range's: "+12.5%", "−3.0%", "no change",
// or "new" when there was nothing before.
func change(now, before float64) (text, trend string) {
	switch {
	case now == before:
		return "no change", ""
	case before == 0:
		return "new", "up"
	}
	pct := (now - before) / before * 100
	if pct > 0 {
		return fmt.Sprintf("+%.1f%%", pct), "up"
	}
	return fmt.Sprintf("−%.1f%%", -pct), "down"
}

// flip marks a rise as bad news (refunds, churn).
func flip(trend string) string {
	switch trend {
	case "up":
		return "down"
	case "down":
		return "up"
	}
	return trend
}

// percent writes part as a percentage of whole: "12.5%".
func percent(part, whole int64) string {
	if whole == 0 {
		return "0%"
	}
	return fmt.Sprintf("%.1f%%", float64(part)/float64(whole)*100)
}

// moneyText writes a stored amount as formatMoney does ("12,345.60 EUR"); an amount
// that is no number (never stored) as it is.
func moneyText(m shop.Money, currency string) string {
	r, ok := new(big.Rat).SetString(string(m))
	if !ok || currency == "" {
		return strings.TrimSpace(string(m) + " " + currency)
	}
	return formatMoney(r, currency)
}

// formatMoney writes an amount with its currency's minor digits and thousands
// separators: "12,345.60 EUR".
func formatMoney(r *big.Rat, currency string) string {
	digits, ok := shop.CurrencyDigits(currency)
	if !ok {
		digits = 2
	}
	s := r.FloatString(digits)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(whole, 10, 64)
	if err == nil {
		whole = templates.FormatCount(n)
	}
	if frac != "" {
		whole += "." + frac
	}
	if neg {
		whole = "−" + whole
	}
	return whole + " " + currency
}
