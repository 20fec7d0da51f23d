package web

import (
	"testing"

	"storefront/internal/shop"
)

// Amounts in lists, headlines and customer figures are written as the overview writes
// money: thousands separated, the currency's minor digits.
func TestMoneyText(t *testing.T) {
	for _, c := range []struct{ m, cur, want string }{
		{"1234.50", "EUR", "1,234.50 EUR"},
		{"999.99", "USD", "999.99 USD"},
		{"1234567", "JPY", "1,234,567 JPY"},
		{"-9.00", "EUR", "−9.00 EUR"},
		{"", "EUR", "EUR"},
	} {
		if got := moneyText(shop.Money(c.m), c.cur); got != c.want {
			t.Errorf("%s %s: got %q, want %q", c.m, c.cur, got, c.want)
		}
	}
}
