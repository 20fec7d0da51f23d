// Package webhook delivers an account's events to its endpoints (docs/WEBHOOKS.md).
//
// An event is a row of webhook_events written in the same transaction as the change it
// reports, with one webhook_deliveries row per endpoint that takes it: the outbox that
// a Deliverer drains as the mail Sender drains e-mails. A Deliverer claims due
// deliveries in a short transaction (SELECT ... FOR UPDATE SKIP LOCKED, then a lease),
// POSTs each outside any transaction, signed with the endpoint's secret, and records
// the attempt: delivered on any 2xx, else retried with exponential back-off and
// jitter until three days have passed. Delivery is at least once; order is not kept.
//
// Connections go only to public addresses: the dialer refuses loopback, private,
// link-local and reserved addresses when it connects, whatever a name resolved to
// when the endpoint was saved (DNS rebinding), unless private addresses are allowed.
package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
)

// SecretPrefix starts every endpoint secret.
const SecretPrefix = "whsec_"

// NewSecret makes an endpoint secret: "whsec_" and 32 random bytes in hex.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return SecretPrefix + hex.EncodeToString(b)
}

// NewEventID makes an event id: "evt_" and 12 random bytes in hex.
func NewEventID() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "evt_" + hex.EncodeToString(b)
}

// Sign returns the lowercase hex HMAC-SHA256 of "{t}.{body}" keyed with the secret (the
// whole string, prefix included).
func Sign(secret string, t int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(t, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// SignatureHeader returns the Storefront-Signature header: "t=UNIX,v1=HEX" with one v1
// for each secret (two while a secret is being rotated).
func SignatureHeader(t int64, body []byte, secrets ...string) string {
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatInt(t, 10))
	for _, s := range secrets {
		b.WriteString(",v1=")
		b.WriteString(Sign(s, t, body))
	}
	return b.String()
}

// Event is the body of a delivery.
type Event struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Created   int64  `json:"created"`
	AccountID int64  `json:"account_id"`
	Data      struct {
		Object json.RawMessage `json:"object"`
	} `json:"data"`
}

// EventBody returns the JSON body of an event whose data.object is object (a JSON
// document, sent byte for byte).
func EventBody(id, typ string, created, accountID int64, object []byte) ([]byte, error) {
	e := Event{ID: id, Type: typ, Created: created, AccountID: accountID}
	e.Data.Object = json.RawMessage(object)
	return json.Marshal(e)
}
