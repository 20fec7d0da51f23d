package web

import (
	"fmt"
	"net/url"
	"strings"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// panelState is what the reactivation panel shows of the last attempt: the form's
// values as sent with the problems found in them, or the outcome.
type panelState struct {
	email      string
	refulfill  bool
	emailError string
	problem    string
	result     string
}

// reactivateParams reads a posted reactivation form: the parameters the API takes, and
// the form's token as the request's idempotency key ("" when it could not be one).
// Spaces typed around the address or a value mean nothing to a person; the API reads
// its parameters literally. A line break is never trimmed: it is refused.
func reactivateParams(posted url.Values) (params url.Values, idem string) {
	params = url.Values{}
	for k, vs := range posted {
		for _, v := range vs {
			params.Add(k, strings.Trim(v, " \t"))
		}
	}
	if tok := params.Get("form_token"); validFormToken(tok) {
		idem = "dashboard:" + tok
	}
	params.Del("form_token")
	return params, idem
}

// reactivateProblem turns an expected reactivation error into what the panel shows
// with the form as sent; false means the error is not one the panel explains.
func reactivateProblem(err error, sent url.Values) (panelState, bool) {
	typed := sent.Get("customer_email")
	st := panelState{email: typed}
	st.refulfill, _ = filter.ParseBool("refulfill", sent.Get("refulfill"))
	switch shop.ErrorCode(err) {
	case shop.EConflict:
		st.problem = shop.ErrorMessage(err)
	case shop.EMissing:
		st.emailError = "This purchase has no e-mail address on record; enter the address to send to."
	case shop.EInvalid, shop.EUnknownParam:
		switch {
		case shop.ErrorParam(err) != "customer_email":
			st.problem = shop.ErrorMessage(err)
		case strings.ContainsAny(typed, "\r\n"):
			st.emailError = "An e-mail address cannot contain a line break."
		case strings.TrimSpace(typed) != "":
			st.emailError = "Enter one e-mail address, such as ann@example.com."
		default:
			// The purchase's own address is not usable.
			st.emailError = shop.ErrorMessage(err)
		}
	default:
		return st, false
	}
	return st, true
}

// reactivatedMessage says what a reactivation did.
func reactivatedMessage(id int64, refulfill bool, res *shop.ReactivateResult) string {
	msg := fmt.Sprintf("Purchase #%d was reactivated. The e-mail to %s is queued.", id, res.To)
	switch {
	case res.KeysGenerated == 1:
		msg += " 1 missing product key was generated."
	case res.KeysGenerated > 1:
		msg += fmt.Sprintf(" %d missing product keys were generated.", res.KeysGenerated)
	case refulfill:
		msg += " No product keys were missing."
	}
	return msg
}

// reactivatePanel builds the form, with the token of this rendering and what the last
// attempt left in it, or the reasons it is not offered. What the reactivation will do
// is written for the form as it is and for every other state of it, for the page's
// script to show as the form is edited.
func reactivatePanel(p *shop.Purchase, sf *shop.Storefront, u *shop.User, token string, st panelState) templates.ReactivatePanel {
	panel := templates.ReactivatePanel{
		Action: fmt.Sprintf("/purchases/%d/reactivate", p.ID), Token: token,
		Email: st.email, Refulfill: st.refulfill, EmailError: st.emailError, Error: st.problem, Result: st.result,
	}
	if !p.Status.Reactivatable() {
		panel.Reasons = append(panel.Reasons, p.Status.Label()+" purchases cannot be reactivated.")
	}
	if !u.CanReactivate() {
		panel.Reasons = append(panel.Reasons, u.CannotReactivate())
	}
	panel.DefaultTo = p.DefaultRecipient()
	panel.Placeholder = panel.DefaultTo
	if panel.Placeholder == "" {
		panel.Placeholder = "name@example.com"
	}
	to := strings.TrimSpace(st.email)
	if to == "" {
		to = panel.DefaultTo
	}
	what := func(to string, refulfill bool) string { return p.WhatReactivationDoes(sf, to, refulfill) }
	panel.What = what(to, st.refulfill)
	panel.WhatIf = templates.WhatIf{
		To: what(templates.AddressMark, false), ToRefulfill: what(templates.AddressMark, true),
		NoTo: what("", false), NoToRefulfill: what("", true),
	}
	panel.ConfirmPrefix = fmt.Sprintf("Reactivate purchase #%d?", p.ID)
	panel.Confirm = panel.ConfirmPrefix + " " + panel.What
	return panel
}
