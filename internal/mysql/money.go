package mysql

import (
	"fmt"
	"math/big"
	"strings"

	"storefront/internal/shop"
)

// currencyDigits returns the minor-unit digits of a stored currency code (2 for a code
// that is somehow unknown, which validation on every write prevents).
func currencyDigits(code string) int {
	if d, ok := shop.CurrencyDigits(code); ok {
		return d
	}
	return 2
}

// formatMoney writes a DECIMAL read from the database ("19.9900") with the given
// number of fraction digits ("19.99"). Stored amounts never carry more digits than
// their currency has, so the dropped digits are zeros.
func formatMoney(raw string, digits int) shop.Money {
	intPart, frac, _ := strings.Cut(raw, ".")
	if digits == 0 {
		return shop.Money(intPart)
	}
	if len(frac) < digits {
		frac += strings.Repeat("0", digits-len(frac))
		return shop.Money(intPart + "." + frac[:digits])
	}
	// raw itself up to the last digit wanted, without a copy.
	return shop.Money(raw[:len(intPart)+1+digits])
}

// decimal reads a DECIMAL column's text.
func decimal(s string) (*big.Rat, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%q is not a decimal number", s)
	}
	return r, nil
}
