package templates

import "strings"

// The words of the sentence WhatHappens writes after WhatBase. The form carries them
// (its data-what-* attributes), so that static/app.js writes the same sentence from
// the same words while the form is edited.
const (
	// WhatTo comes before the address the e-mail goes to.
	WhatTo = " and an e-mail with the download links and product keys goes to "
	// WhatNoTo ends the sentence when there is no address.
	WhatNoTo = ". Enter a Send to address for the e-mail with the download links and product keys."
	// WhatRefulfill and WhatKeepKeys say what Refulfill does, ticked or not.
	WhatRefulfill = " Refulfill: missing product keys are generated."
	WhatKeepKeys  = " Product keys stay as they are; tick Refulfill to generate missing ones."
)

// WhatHappens says what reactivating does with the form's values as they are: where
// the e-mail goes (the typed Send to address, else the default one) and whether
// Refulfill generates keys.
func (p ReactivatePanel) WhatHappens() string {
	to := strings.TrimSpace(p.Email)
	if to == "" {
		to = p.DefaultTo
	}
	var b strings.Builder
	if to != "" {
		b.WriteString(p.WhatBase + WhatTo + to + ".")
	} else {
		b.WriteString(strings.TrimSuffix(p.WhatBase, ",") + WhatNoTo)
	}
	if p.Refulfill {
		b.WriteString(WhatRefulfill)
	} else {
		b.WriteString(WhatKeepKeys)
	}
	return b.String()
}

// Confirm is the question htmx asks before sending the form.
func (p ReactivatePanel) Confirm() string {
	return p.ConfirmPrefix + " " + p.WhatHappens()
}
