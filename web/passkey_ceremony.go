package web

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"storefront/internal/shop"
)

// A passkey ceremony (adding a passkey, signing in with one) is two requests of the
// page's script: the options, then the authenticator's answer. The ceremony's challenge
// is kept in the database (shop.PasskeyService.SaveCeremony) under a random token that
// the session cookie holds, and is deleted as it is answered: each is answered once.

// sessionCeremony is the cookie's key of the token of the passkey ceremony under way.
const sessionCeremony = "passkey_ceremony"

// handleJSON adapts a handler of the passkey ceremonies, which the page's script
// calls: its error is answered as JSON {"error": message} with the error's status.
// While passkeys are off (passkeysOff) the handler does not run.
func (s *Server) handleJSON(h func(c *gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		err := s.passkeysOff()
		if err == nil {
			err = h(c)
		}
		if err == nil {
			return
		}
		code := shop.ErrorCode(err)
		kind, ok := errorTable[code]
		if !ok {
			code, kind = shop.EInternal, errorTable[shop.EInternal]
		}
		msg := shop.ErrorMessage(err)
		switch code {
		case shop.EInternal:
			rid := c.GetString(ctxRequestID)
			s.Logger.Error("internal error", "request_id", rid, "method", c.Request.Method, "path", c.Request.URL.Path, "err", err)
			msg = "Something went wrong on our side. The request id is " + rid + "."
		case shop.EUnavailable:
			c.Header("Retry-After", "5")
		}
		_ = writeJSON(c, kind.status, gin.H{"error": msg})
	}
}

// passkeysOff is the error of a server whose passkey settings are wrong.
func (s *Server) passkeysOff() error {
	if s.webauthn != nil {
		return nil
	}
	return shop.Errorf(shop.EUnavailable, "Passkeys are not available on this server: its passkey settings are wrong (%v).", s.webauthnErr)
}

// beginCeremony keeps the library's session data of a new ceremony in the database,
// under a token the cookie holds, replacing any earlier ceremony of this browser.
func (s *Server) beginCeremony(c *gin.Context, cer shop.Ceremony, data *webauthn.SessionData) error {
	b, err := json.Marshal(data)
	if err != nil {
		return err
	}
	cer.SessionData = b
	tok := make([]byte, 32)
	if _, err := rand.Read(tok); err != nil {
		return err
	}
	token := base64.RawURLEncoding.EncodeToString(tok)
	if err := s.Users.SaveCeremony(c.Request.Context(), token, cer); err != nil {
		return err
	}
	sess, _ := s.store.Get(c.Request, sessionName)
	sess.Values[sessionCeremony] = token
	return sess.Save(c.Request, c.Writer)
}

// takeCeremony returns the ceremony of this browser, of kind, and forgets it: a second
// answer to the same challenge finds nothing (400).
func (s *Server) takeCeremony(c *gin.Context, kind string) (*shop.Ceremony, *webauthn.SessionData, error) {
	gone := shop.Errorf(shop.EInvalid, "This passkey request has expired or was used already. Try again.")
	sess, _ := s.store.Get(c.Request, sessionName)
	token, _ := sess.Values[sessionCeremony].(string)
	if token == "" {
		return nil, nil, gone
	}
	cer, err := s.Users.TakeCeremony(c.Request.Context(), token)
	if shop.ErrorCode(err) == shop.ENotFound {
		return nil, nil, gone
	}
	if err != nil {
		return nil, nil, err
	}
	if cer.Kind != kind {
		return nil, nil, gone
	}
	var data webauthn.SessionData
	if err := json.Unmarshal(cer.SessionData, &data); err != nil {
		return nil, nil, fmt.Errorf("passkey ceremony: %w", err)
	}
	return cer, &data, nil
}

// readCeremonyAnswer reads the body of a ceremony's answer, at most MaxBodyBytes.
func readCeremonyAnswer(c *gin.Context) ([]byte, error) {
	if c.Request.ContentLength > MaxBodyBytes {
		return nil, tooLarge("passkey's answer")
	}
	b, err := io.ReadAll(io.LimitReader(c.Request.Body, MaxBodyBytes+1))
	if err != nil {
		return nil, shop.Errorf(shop.EInvalid, "The passkey's answer could not be read.")
	}
	if len(b) > MaxBodyBytes {
		return nil, tooLarge("passkey's answer")
	}
	return b, nil
}

// refusedAnswer is the error of an answer the library refused: a clear 400 or 401
// saying what failed, never the library's internals.
func refusedAnswer(err error) error {
	var perr *protocol.Error
	detail := ""
	if errors.As(err, &perr) {
		detail = perr.Details
	}
	return shop.Errorf(shop.EUnauthenticated, "The passkey's answer was refused%s. Try again.", strings.TrimSuffix(": "+detail, ": "))
}
