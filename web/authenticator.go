package web

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"storefront/internal/shop"
	"storefront/templates"
)

// Authenticator codes: RFC 6238's defaults, which every app reads from the QR code.
const (
	totpPeriod = 30
	totpIssuer = "storefront"
	// sessionTOTPSetup is the cookie's key of the secret being set up: it reaches the
	// database only once its first code confirms it.
	sessionTOTPSetup  = "totp_setup"
	recoveryCodeCount = 10
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// totpStep is the time step of t.
func totpStep(t time.Time) int64 { return t.Unix() / totpPeriod }

// checkTOTP returns the time step whose code code is, among the step of now and the
// one before (a code typed as the period turned). Every candidate is computed and
// compared in constant time, whatever matches.
func checkTOTP(secret, code string, now time.Time) (int64, bool) {
	var step int64
	found := 0
	for _, st := range []int64{totpStep(now) - 1, totpStep(now)} {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(st*totpPeriod, 0), totpOpts)
		if err != nil {
			return 0, false
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			step, found = st, 1
		}
	}
	return step, found == 1
}

// isTOTPCode reports whether code has the shape of an app's code (6 digits); anything
// else is read as a recovery code.
func isTOTPCode(code string) bool {
	if len(code) != 6 {
		return false
	}
	for _, r := range code {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// recoveryAlphabet leaves out letters read alike (0/o, 1/l/i).
const recoveryAlphabet = "23456789abcdefghjkmnpqrstuvwxyz"

// newRecoveryCodes returns n codes of 10 random characters, as xxxxx-xxxxx.
func newRecoveryCodes(n int) ([]string, error) {
	codes := make([]string, n)
	for i := range codes {
		b := make([]byte, 10)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		for j := range b {
			b[j] = recoveryAlphabet[int(b[j])%len(recoveryAlphabet)]
		}
		codes[i] = string(b[:5]) + "-" + string(b[5:])
	}
	return codes, nil
}

// authenticatorView is the Security page's part about the user's authenticator.
func (s *Server) authenticatorView(c *gin.Context) (templates.AuthenticatorView, error) {
	u := currentUser(c)
	a, err := s.Users.FindAuthenticator(c.Request.Context(), u.AccountID, u.ID)
	if shop.ErrorCode(err) == shop.ENotFound {
		return templates.AuthenticatorView{}, nil
	}
	if err != nil {
		return templates.AuthenticatorView{}, err
	}
	return templates.AuthenticatorView{On: true, Added: templates.FormatTime(a.AddedAt.Time, s.zone(c)),
		AddedISO: a.AddedAt.UTC().Format(time.RFC3339), CodesLeft: a.RecoveryCodesLeft}, nil
}

// setupView shows the key being set up: its QR code (the otpauth:// address apps
// read) and its text.
func (s *Server) setupView(c *gin.Context, secret, errMsg string) (templates.AuthenticatorSetupView, error) {
	v := templates.AuthenticatorSetupView{Chrome: s.chrome(c, "Set up an authenticator app", ""), Secret: secret, Error: errMsg}
	label := url.PathEscape(totpIssuer + ":" + currentUser(c).Email)
	q := url.Values{"secret": {secret}, "issuer": {totpIssuer}, "period": {"30"}, "digits": {"6"}, "algorithm": {"SHA1"}}
	key, err := otp.NewKeyFromURL("otpauth://totp/" + label + "?" + q.Encode())
	if err != nil {
		return v, err
	}
	img, err := key.Image(200, 200)
	if err != nil {
		return v, err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return v, err
	}
	v.QR = "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	return v, nil
}

// authenticatorSetupPage shows a new key, kept in the session cookie until its first
// code confirms it (a reload shows the same key).
func (s *Server) authenticatorSetupPage(c *gin.Context) error {
	u := currentUser(c)
	if _, err := s.Users.FindAuthenticator(c.Request.Context(), u.AccountID, u.ID); err == nil {
		c.Redirect(http.StatusSeeOther, securityURL)
		return nil
	} else if shop.ErrorCode(err) != shop.ENotFound {
		return err
	}
	sess, _ := s.store.Get(c.Request, sessionName)
	secret, _ := sess.Values[sessionTOTPSetup].(string)
	if secret == "" {
		key, err := totp.Generate(totp.GenerateOpts{Issuer: totpIssuer, AccountName: u.Email})
		if err != nil {
			return err
		}
		secret = key.Secret()
		sess.Values[sessionTOTPSetup] = secret
		if err := sess.Save(c.Request, c.Writer); err != nil {
			return err
		}
	}
	v, err := s.setupView(c, secret, "")
	if err != nil {
		return err
	}
	return render(c, templates.AuthenticatorSetup(v))
}

// addAuthenticator turns the app on once its first code is right, and shows the
// recovery codes this once.
func (s *Server) addAuthenticator(c *gin.Context) error {
	u := currentUser(c)
	sess, _ := s.store.Get(c.Request, sessionName)
	secret, _ := sess.Values[sessionTOTPSetup].(string)
	if secret == "" {
		c.Redirect(http.StatusSeeOther, "/account/security/authenticator")
		return nil
	}
	code := normalizeCode(c.PostForm("code"))
	refuse := func(msg string) error {
		return &formError{shop.ParamErrorf(shop.EInvalid, "code", "%s", msg), func(bool) (templ.Component, error) {
			v, err := s.setupView(c, secret, msg)
			return templates.AuthenticatorSetup(v), err
		}}
	}
	step, ok := checkTOTP(secret, code, s.now())
	switch {
	case code == "":
		return refuse("Enter the 6-digit code your app shows.")
	case !isTOTPCode(code):
		return refuse("The code is the 6 digits your app shows.")
	case !ok:
		return refuse("That code is not right or has expired. Enter the code your app shows now; check that this device's clock is right.")
	}
	codes, err := newRecoveryCodes(recoveryCodeCount)
	if err != nil {
		return err
	}
	if err := s.Users.AddAuthenticator(c.Request.Context(), u.AccountID, u.ID, secret, step, codes, sessionClient(c)); err != nil {
		if shop.ErrorCode(err) == shop.EInvalid {
			return refuse(shop.ErrorMessage(err))
		}
		return err
	}
	delete(sess.Values, sessionTOTPSetup)
	if err := sess.Save(c.Request, c.Writer); err != nil {
		return err
	}
	return render(c, templates.RecoveryCodes(templates.RecoveryCodesView{Chrome: s.chrome(c, "Recovery codes", ""), Codes: codes}))
}

// removeAuthenticator turns the app off and signs the user's other sessions out.
func (s *Server) removeAuthenticator(c *gin.Context) error {
	u := currentUser(c)
	err := s.Users.RemoveAuthenticator(c.Request.Context(), u.AccountID, u.ID, currentSessionID(c), sessionClient(c))
	return s.factorRemoved(c, err, "The authenticator app was removed; your other sessions were signed out.")
}

// factorRemoved answers the removal of a second factor: the Security page with the
// refusal (the account's last owner with a factor keeps it while two-step sign-in is
// required, docs/SECURITY.md), or back to it with done said.
func (s *Server) factorRemoved(c *gin.Context, err error, done string) error {
	if shop.ErrorCode(err) == shop.EInvalid {
		return &formError{err, func(bool) (templ.Component, error) {
			v, verr := s.securityView(c)
			v.Error = shop.ErrorMessage(err)
			return templates.Security(v), verr
		}}
	}
	if err != nil {
		return err
	}
	s.flash(c, done)
	c.Redirect(http.StatusSeeOther, securityURL)
	return nil
}

// normalizeCode drops the spaces a code may be typed or pasted with.
func normalizeCode(code string) string {
	return strings.Join(strings.Fields(code), "")
}
