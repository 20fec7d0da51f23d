package shop

import (
	"net/mail"
	"strings"
)

// ValidEmail reports whether s is a bare e-mail address (local@domain, no display name,
// no line breaks) fit for an envelope recipient.
func ValidEmail(s string) bool {
	if s == "" || len(s) > 254 || strings.ContainsAny(s, "\r\n\x00") {
		return false
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	return at > 0 && at < len(s)-1
}
