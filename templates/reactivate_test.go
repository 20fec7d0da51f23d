package templates

import "testing"

func TestReactivatePanel_WhatHappens(t *testing.T) {
	base := "The status becomes Active. Downloads are reset to 5 per item for 30 days"
	for _, c := range []struct {
		name string
		p    ReactivatePanel
		want string
	}{
		{"default address", ReactivatePanel{WhatBase: base, DefaultTo: "zoe@example.com"},
			base + " and an e-mail with the download links and product keys goes to zoe@example.com. Product keys stay as they are; tick Refulfill to generate missing ones."},
		{"typed address and Refulfill", ReactivatePanel{WhatBase: base, DefaultTo: "zoe@example.com", Email: " ann@example.com ", Refulfill: true},
			base + " and an e-mail with the download links and product keys goes to ann@example.com. Refulfill: missing product keys are generated."},
		{"no address at all", ReactivatePanel{WhatBase: "Downloads are reset to unlimited, never expiring,"},
			"Downloads are reset to unlimited, never expiring. Enter a Send to address for the e-mail with the download links and product keys. Product keys stay as they are; tick Refulfill to generate missing ones."},
	} {
		if got := c.p.WhatHappens(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	p := ReactivatePanel{WhatBase: base, DefaultTo: "zoe@example.com", ConfirmPrefix: "Reactivate purchase #7?"}
	if got, want := p.Confirm(), "Reactivate purchase #7? "+p.WhatHappens(); got != want {
		t.Errorf("Confirm: got %q, want %q", got, want)
	}
}
