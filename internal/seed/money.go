package seed

import (
	"strconv"
	"strings"

	"storefront/internal/shop"
)

// currency is an ISO 4217 code with its minor-unit digits and a conversion rate from
// US dollars for catalog prices.
type currency struct {
	code      string
	digits    int
	scale     int64 // 10^digits
	num, den  int64 // units of this currency per US dollar, as a fraction
	isDollars bool
}

func newCurrency(code string) currency {
	d, ok := shop.CurrencyDigits(code)
	if !ok {
		code, d = "USD", 2
	}
	c := currency{code: code, digits: d, scale: pow10(d), num: 1, den: 1}
	if r, ok := currencyPerUSD[code]; ok {
		c.num, c.den = r[0], r[1]
	}
	c.isDollars = code == "USD"
	return c
}

func pow10(d int) int64 {
	n := int64(1)
	for ; d > 0; d-- {
		n *= 10
	}
	return n
}

// fromUSD converts US cents to minor units of c without rounding to a price point.
func (c currency) fromUSD(cents int64) int64 {
	return divRound(cents*c.num*c.scale, c.den*100)
}

// price converts a catalog price in US cents to a price point in c: x.99 for
// currencies with cents, a round number ending in 80 for currencies without.
func (c currency) price(cents int64) int64 {
	if c.isDollars || cents == 0 {
		return cents
	}
	v := c.fromUSD(cents)
	switch {
	case c.digits == 0:
		p := (v+99)/100*100 - 20
		return max(p, 100)
	case c.digits == 2:
		return max((v+99)/100*100-1, 99)
	default:
		step := c.scale / 20 // 0.050 for three digits
		return max((v+step-1)/step*step, step)
	}
}

// whole converts US cents to minor units of c rounded to whole currency units: the
// amounts of money coupons and fixed fees.
func (c currency) whole(cents int64) int64 {
	v := c.fromUSD(cents)
	return max(divRound(v, c.scale), 1) * c.scale
}

// format writes minor units as the currency's decimal string.
func (c currency) format(n int64) string { return formatMinor(n, c.digits) }

// divRound divides a non-negative n by d, rounding half up.
func divRound(n, d int64) int64 { return (n + d/2) / d }

// percentOf returns amount × bps / 10,000 rounded half up, for non-negative amounts.
func percentOf(amount, bps int64) int64 { return divRound(amount*bps, 10000) }

// formatMinor writes n minor units with the given fraction digits exactly as
// shop.FormatMinor does, without its big.Rat arithmetic: the seeder formats tens of
// millions of amounts.
func formatMinor(n int64, digits int) string {
	if digits == 0 {
		return strconv.FormatInt(n, 10)
	}
	neg := n < 0
	u := uint64(n)
	if neg {
		u = -u
	}
	s := strconv.FormatUint(u, 10)
	if len(s) <= digits {
		s = strings.Repeat("0", digits-len(s)+1) + s
	}
	out := s[:len(s)-digits] + "." + s[len(s)-digits:]
	if neg {
		out = "-" + out
	}
	return out
}
