package web

import (
	"encoding/binary"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"storefront/internal/shop"
	"storefront/templates"
)

// Passkeys (WebAuthn): a user adds them on the Security page and signs in with one
// alone, which is both factors (the authenticator verifies its user); the ceremonies
// that do it are kept as passkey_ceremony.go says. docs/SECURITY.md#passkeys.

// passkeyUser is a user as the WebAuthn library sees them, with their passkeys.
type passkeyUser struct {
	u    *shop.User
	keys []*shop.Passkey
}

// userHandle is the WebAuthn user handle of a user: their account and their id, 8
// bytes each. The authenticator gives it back when it signs in, so that the passkey is
// looked up in its account's rows alone (docs/SCALING.md); it names no person.
func userHandle(accountID, userID int64) []byte {
	b := make([]byte, 16)
	binary.BigEndian.PutUint64(b, uint64(accountID))
	binary.BigEndian.PutUint64(b[8:], uint64(userID))
	return b
}

// parseUserHandle reads a user handle made by userHandle.
func parseUserHandle(h []byte) (accountID, userID int64, ok bool) {
	if len(h) != 16 {
		return 0, 0, false
	}
	accountID, userID = int64(binary.BigEndian.Uint64(h)), int64(binary.BigEndian.Uint64(h[8:]))
	return accountID, userID, accountID > 0 && userID > 0
}

func (p *passkeyUser) WebAuthnID() []byte          { return userHandle(p.u.AccountID, p.u.ID) }
func (p *passkeyUser) WebAuthnName() string        { return p.u.Email }
func (p *passkeyUser) WebAuthnDisplayName() string { return p.u.Email }
func (p *passkeyUser) WebAuthnCredentials() []webauthn.Credential {
	out := make([]webauthn.Credential, 0, len(p.keys))
	for _, k := range p.keys {
		var transports []protocol.AuthenticatorTransport
		for _, t := range k.Transports {
			transports = append(transports, protocol.AuthenticatorTransport(t))
		}
		out = append(out, webauthn.Credential{
			ID: k.CredentialID, PublicKey: k.PublicKey, AttestationType: k.AttestationType, Transport: transports,
			Flags:         webauthn.NewCredentialFlags(protocol.AuthenticatorFlags(k.Flags)),
			Authenticator: webauthn.Authenticator{AAGUID: k.AAGUID, SignCount: k.SignCount},
		})
	}
	return out
}

// PasskeyRelyingParty returns the relying party id and origin that passkeys are bound
// to: rpID and origin when given, else the origin of the public URL and its host name.
// It returns an error naming what is wrong (docs/SECURITY.md#passkeys).
func PasskeyRelyingParty(baseURL, rpID, origin string) (string, string, error) {
	if origin == "" {
		u, err := url.Parse(baseURL)
		if err != nil || u.Host == "" {
			return "", "", fmt.Errorf("the public URL %q has no host", baseURL)
		}
		origin = u.Scheme + "://" + u.Host
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return "", "", fmt.Errorf("the passkey origin %q is not scheme://host[:port]", origin)
	}
	origin = u.Scheme + "://" + u.Host
	host := strings.ToLower(u.Hostname())
	if rpID == "" {
		rpID = host
		// A relying party id is a domain name, never an address: a server on the
		// loopback address (the default http://127.0.0.1:8080) takes passkeys at
		// localhost, which browsers treat as secure too.
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			rpID, origin = "localhost", u.Scheme+"://localhost"
			if p := u.Port(); p != "" {
				origin += ":" + p
			}
			host = rpID
		}
	}
	rpID = strings.ToLower(rpID)
	if host != rpID && !strings.HasSuffix(host, "."+rpID) {
		return "", "", fmt.Errorf("the passkey relying party id %q is neither the host of %s nor a domain above it", rpID, origin)
	}
	return rpID, origin, nil
}

// relyingParty builds the WebAuthn relying party of the server's configuration.
func (s *Server) relyingParty() (*webauthn.WebAuthn, error) {
	rpID, origin, err := PasskeyRelyingParty(s.BaseURL, s.PasskeyRPID, s.PasskeyOrigin)
	if err != nil {
		return nil, err
	}
	timeout := webauthn.TimeoutConfig{Enforce: true, Timeout: shop.CeremonyTTL, TimeoutUVD: shop.CeremonyTTL}
	return webauthn.New(&webauthn.Config{
		RPID: rpID, RPDisplayName: "storefront", RPOrigins: []string{origin},
		AttestationPreference: protocol.PreferNoAttestation,
		// A passkey alone signs in: it must be discoverable, and its authenticator must
		// verify its user (PIN, fingerprint, face), which is the second factor.
		AuthenticatorSelection: protocol.AuthenticatorSelection{
			ResidentKey: protocol.ResidentKeyRequirementRequired, RequireResidentKey: protocol.ResidentKeyRequired(),
			UserVerification: protocol.VerificationRequired,
		},
		Timeouts: webauthn.TimeoutsConfig{Login: timeout, Registration: timeout},
	})
}

// passkeyName reads the name of a passkey being added.
func passkeyName(c *gin.Context) (string, error) {
	name := strings.Join(strings.Fields(c.PostForm("name")), " ")
	switch {
	case !utf8.ValidString(name):
		return "", shop.ParamErrorf(shop.EInvalid, "name", "The name contains characters that cannot be read.")
	case name == "":
		return "", shop.ParamErrorf(shop.EMissing, "name", "Name the passkey (for example \"Work laptop\"), so that you can tell it from others.")
	case utf8.RuneCountInString(name) > shop.MaxPasskeyNameLen:
		return "", shop.ParamErrorf(shop.EInvalid, "name", "The name must have at most %d characters.", shop.MaxPasskeyNameLen)
	}
	return name, nil
}

// beginPasskeyAdd answers the options of a new passkey for the signed-in user.
func (s *Server) beginPasskeyAdd(c *gin.Context) error {
	name, err := passkeyName(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	keys, err := s.Users.FindPasskeys(c.Request.Context(), u.AccountID, u.ID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if strings.EqualFold(k.Name, name) {
			return shop.ParamErrorf(shop.EInvalid, "name", "You have a passkey named %q already; give this one another name.", name)
		}
	}
	pu := &passkeyUser{u: u, keys: keys}
	// The authenticator is told of the user's passkeys, so that it does not make a
	// second one for the same account.
	var exclude []protocol.CredentialDescriptor
	for _, cr := range pu.WebAuthnCredentials() {
		exclude = append(exclude, cr.Descriptor())
	}
	opts, data, err := s.webauthn.BeginRegistration(pu, webauthn.WithExclusions(exclude))
	if err != nil {
		return err
	}
	if err := s.beginCeremony(c, shop.Ceremony{Kind: shop.CeremonyRegister, AccountID: u.AccountID, UserID: u.ID, Name: name}, data); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, opts)
}

// finishPasskeyAdd checks the authenticator's answer and stores the new passkey.
func (s *Server) finishPasskeyAdd(c *gin.Context) error {
	body, err := readCeremonyAnswer(c)
	if err != nil {
		return err
	}
	u := currentUser(c)
	cer, data, err := s.takeCeremony(c, shop.CeremonyRegister)
	if err != nil {
		return err
	}
	if cer.AccountID != u.AccountID || cer.UserID != u.ID {
		return shop.Errorf(shop.EInvalid, "This passkey request was begun by another user. Try again.")
	}
	parsed, err := protocol.ParseCredentialCreationResponseBytes(body)
	if err != nil {
		return shop.Errorf(shop.EInvalid, "The passkey's answer could not be read.")
	}
	keys, err := s.Users.FindPasskeys(c.Request.Context(), u.AccountID, u.ID)
	if err != nil {
		return err
	}
	cred, err := s.webauthn.CreateCredential(&passkeyUser{u: u, keys: keys}, *data, parsed)
	if err != nil {
		return refusedAnswer(err)
	}
	var transports []string
	for _, t := range cred.Transport {
		transports = append(transports, string(t))
	}
	err = s.Users.AddPasskey(c.Request.Context(), &shop.Passkey{
		AccountID: u.AccountID, UserID: u.ID, Name: cer.Name, CredentialID: cred.ID, PublicKey: cred.PublicKey,
		AttestationType: cred.AttestationType, AAGUID: cred.Authenticator.AAGUID, Transports: transports,
		Flags: byte(cred.Flags.ProtocolValue()), SignCount: cred.Authenticator.SignCount,
	}, sessionClient(c))
	if err != nil {
		return err
	}
	s.flash(c, fmt.Sprintf("The passkey %q was added. It signs you in on its own.", cer.Name))
	return writeJSON(c, http.StatusOK, gin.H{"redirect": securityURL})
}

// removePasskey removes one of the user's passkeys and signs their other sessions out.
func (s *Server) removePasskey(c *gin.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	u := currentUser(c)
	err = s.Users.RemovePasskey(c.Request.Context(), u.AccountID, u.ID, id, currentSessionID(c), sessionClient(c))
	return s.factorRemoved(c, err, "The passkey was removed; your other sessions were signed out.")
}

// beginPasskeySignIn answers the options of a sign-in with any passkey of this site
// (discoverable credentials: nobody is named before the authenticator answers).
func (s *Server) beginPasskeySignIn(c *gin.Context) error {
	opts, data, err := s.webauthn.BeginDiscoverableLogin(webauthn.WithUserVerification(protocol.VerificationRequired))
	if err != nil {
		return err
	}
	if err := s.beginCeremony(c, shop.Ceremony{Kind: shop.CeremonySignIn}, data); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, opts)
}

// finishPasskeySignIn checks the authenticator's answer, and signs its user in with a
// new session: the passkey is both factors.
func (s *Server) finishPasskeySignIn(c *gin.Context) error {
	ctx := c.Request.Context()
	body, err := readCeremonyAnswer(c)
	if err != nil {
		return err
	}
	_, data, err := s.takeCeremony(c, shop.CeremonySignIn)
	if err != nil {
		return err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBytes(body)
	if err != nil {
		return shop.Errorf(shop.EInvalid, "The passkey's answer could not be read.")
	}
	unknown := shop.Errorf(shop.EUnauthenticated, "This passkey is not one of this site's. Sign in with your e-mail and password, then add it on the Security page.")
	accountID, userID, ok := parseUserHandle(parsed.Response.UserHandle)
	if !ok {
		return unknown
	}
	var found *passkeyUser
	var lookupErr error
	handler := func(rawID, handle []byte) (webauthn.User, error) {
		u, err := s.Users.FindUserByID(ctx, accountID, userID)
		if err == nil {
			var keys []*shop.Passkey
			if keys, err = s.Users.FindPasskeys(ctx, accountID, userID); err == nil {
				found = &passkeyUser{u: u, keys: keys}
				return found, nil
			}
		}
		lookupErr = err
		return nil, err
	}
	_, cred, err := s.webauthn.ValidatePasskeyLogin(handler, *data, parsed)
	if err != nil {
		if lookupErr != nil && shop.ErrorCode(lookupErr) != shop.ENotFound {
			return lookupErr
		}
		if found == nil || len(found.keys) == 0 {
			return unknown
		}
		refused := refusedAnswer(err)
		if aerr := s.Users.RecordPasskeyFailure(ctx, accountID, userID, truncate(shop.ErrorMessage(refused), 200), sessionClient(c)); aerr != nil {
			return aerr
		}
		return refused
	}
	token, err := s.Users.SignInWithPasskey(ctx, accountID, userID, cred.ID, parsed.Response.AuthenticatorData.Counter, sessionClient(c))
	if err != nil {
		return err
	}
	if t, a := s.cookieSession(c); t != "" {
		_ = s.Users.DeleteSession(ctx, a, t, sessionClient(c))
	}
	if err := s.startSession(c, accountID, token, ""); err != nil {
		return err
	}
	return writeJSON(c, http.StatusOK, gin.H{"redirect": safeNext(c.Query("next"))})
}

// truncate cuts s to at most n bytes, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// passkeysView is the Security page's list of the user's passkeys.
func (s *Server) passkeysView(c *gin.Context) (templates.PasskeysView, error) {
	u := currentUser(c)
	keys, err := s.Users.FindPasskeys(c.Request.Context(), u.AccountID, u.ID)
	if err != nil {
		return templates.PasskeysView{}, err
	}
	loc := s.zone(c)
	var v templates.PasskeysView
	for _, k := range keys {
		r := templates.PasskeyRow{Name: k.Name, Added: templates.FormatTime(k.AddedAt.Time, loc), AddedISO: k.AddedAt.UTC().Format(time.RFC3339),
			RemoveURL: fmt.Sprintf("%s/passkeys/%d/remove", securityURL, k.ID)}
		if k.LastUsedAt != nil {
			r.LastUsed, r.LastUsedISO = templates.FormatTime(k.LastUsedAt.Time, loc), k.LastUsedAt.UTC().Format(time.RFC3339)
		}
		v.Rows = append(v.Rows, r)
	}
	return v, nil
}
