package templates

import "strings"

// WhatHappens says what reactivating does with the form's values as they are: where
// the e-mail goes (the typed Send to address, else the default one) and whether
// Refulfill generates keys. static/app.js writes the same sentence while the form is
// edited; the two must stay alike.
func (p ReactivatePanel) WhatHappens() string {
	to := strings.TrimSpace(p.Email)
	if to == "" {
		to = p.DefaultTo
	}
	var b strings.Builder
	if to != "" {
		b.WriteString(p.WhatBase + " and an e-mail with the download links and product keys goes to " + to + ".")
	} else {
		b.WriteString(strings.TrimSuffix(p.WhatBase, ",") + ". Enter a Send to address for the e-mail with the download links and product keys.")
	}
	if p.Refulfill {
		b.WriteString(" Refulfill: missing product keys are generated.")
	} else {
		b.WriteString(" Product keys stay as they are; tick Refulfill to generate missing ones.")
	}
	return b.String()
}

// Confirm is the question htmx asks before sending the form.
func (p ReactivatePanel) Confirm() string {
	return p.ConfirmPrefix + " " + p.WhatHappens()
}
