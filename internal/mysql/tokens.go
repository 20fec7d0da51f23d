package mysql

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"
)

// lastUseEvery is how often a session's or an API key's last use is written at most, so
// that a busy one does not turn every request into a write.
const lastUseEvery = time.Minute

// newToken returns a secret of 256 random bits, URL-safe base64 without padding: a
// session token, a password change's new session, the body of an API key.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hashToken is the stored form of a secret: SHA-256, which is enough for a value of
// 256 random bits and is what lets the row be found by it.
func hashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}
