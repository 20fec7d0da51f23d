package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

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

// reactivateOutcome is what the panel shows after a reactivation of purchase id with
// the address typed and Refulfill as ticked: the outcome when err is nil, else the form
// as sent with its problem; false means err is not one the panel explains.
func reactivateOutcome(id int64, typed string, refulfill bool, res *shop.ReactivateResult, err error) (panelState, bool) {
	st := panelState{email: typed, refulfill: refulfill}
	switch shop.ErrorCode(err) {
	case "":
		return panelState{result: reactivatedMessage(id, refulfill, res)}, true
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

// heldTextBytes bounds each text the session holds for the panel: the session is a
// cookie, and no e-mail address is longer.
const heldTextBytes = 320

// holdPanel keeps what the panel of purchase id shows for the next rendering of its
// page, which the reactivation redirects to.
func (s *Server) holdPanel(c *gin.Context, id int64, st panelState) {
	clip := func(t string) string {
		if len(t) > heldTextBytes {
			t = strings.ToValidUTF8(t[:heldTextBytes], "")
		}
		return t
	}
	v := url.Values{"id": {strconv.FormatInt(id, 10)}, "email": {clip(st.email)}, "email_error": {clip(st.emailError)},
		"problem": {clip(st.problem)}, "result": {clip(st.result)}}
	if st.refulfill {
		v.Set("refulfill", "1")
	}
	if sess, err := s.store.Get(c.Request, sessionName); err == nil {
		sess.Values[sessionPanel] = v.Encode()
		_ = sess.Save(c.Request, c.Writer)
	}
}

// heldPanel returns, once, what holdPanel kept for purchase id; the zero state when
// nothing was kept for it.
func (s *Server) heldPanel(c *gin.Context, id int64) panelState {
	sess, err := s.store.Get(c.Request, sessionName)
	if err != nil {
		return panelState{}
	}
	held, _ := sess.Values[sessionPanel].(string)
	v, _ := url.ParseQuery(held)
	if held == "" || v.Get("id") != strconv.FormatInt(id, 10) {
		return panelState{}
	}
	delete(sess.Values, sessionPanel)
	_ = sess.Save(c.Request, c.Writer)
	return panelState{email: v.Get("email"), refulfill: v.Get("refulfill") == "1", emailError: v.Get("email_error"),
		problem: v.Get("problem"), result: v.Get("result")}
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
