package templates

import "testing"

// The bulk bar's and the confirmation's counts read as English for one purchase and for
// many.
func TestBulkLabels(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{selectAllLabel("1"), "Select the 1 matching purchase"},
		{selectAllLabel("12"), "Select all 12 matching"},
		{selectAllLabel("10,000+"), "Select all 10,000+ matching"},
		{reactivateLabel(1), "Reactivate 1 purchase"},
		{reactivateLabel(1200), "Reactivate 1,200 purchases"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
