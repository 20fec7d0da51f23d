package web

import (
	"fmt"
	"net/http"
	"time"

	"github.com/a-h/templ"
	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
	"storefront/templates"
)

// A sign-in waiting for its second factor: the cookie holds who gave their password,
// when, and where they were going; no session exists yet.
const (
	pendingUser    = "pending_user"
	pendingAccount = "pending_account"
	pendingAt      = "pending_at"
	pendingNext    = "pending_next"
	// pendingTTL is how long the code may take after the password.
	pendingTTL = 5 * time.Minute
)

// startSecondStep remembers a right password in a new cookie and asks for the code.
func (s *Server) startSecondStep(c *gin.Context, u *shop.User, next string) error {
	if t, a := s.cookieSession(c); t != "" {
		_ = s.Users.DeleteSession(c.Request.Context(), a, t, sessionClient(c))
	}
	sess, _ := s.store.New(c.Request, sessionName)
	sess.Values[pendingUser] = u.ID
	sess.Values[pendingAccount] = u.AccountID
	sess.Values[pendingAt] = s.now().Unix()
	sess.Values[pendingNext] = next
	if err := sess.Save(c.Request, c.Writer); err != nil {
		return err
	}
	c.Redirect(http.StatusSeeOther, "/login/code")
	return nil
}

// pendingSignIn returns the user whose password was given in the last 5 minutes, and
// where they were going.
func (s *Server) pendingSignIn(c *gin.Context) (*shop.User, string, error) {
	expired := shop.Errorf(shop.EUnauthenticated, "Your sign-in has expired; enter your e-mail and password again.")
	sess, _ := s.store.Get(c.Request, sessionName)
	userID, _ := sess.Values[pendingUser].(int64)
	accountID, _ := sess.Values[pendingAccount].(int64)
	at, _ := sess.Values[pendingAt].(int64)
	next, _ := sess.Values[pendingNext].(string)
	if userID == 0 || s.now().Sub(time.Unix(at, 0)) > pendingTTL {
		return nil, "", expired
	}
	u, err := s.Users.FindUserByID(c.Request.Context(), accountID, userID)
	if shop.ErrorCode(err) == shop.ENotFound {
		return nil, "", expired
	}
	return u, safeNext(next), err
}

func (s *Server) loginCodePage(c *gin.Context) error {
	u, next, err := s.pendingSignIn(c)
	if err != nil {
		if shop.ErrorCode(err) == shop.EUnauthenticated {
			c.Redirect(http.StatusSeeOther, "/login")
			return nil
		}
		return err
	}
	v, err := s.loginCodeView(c, u, next)
	if err != nil {
		return err
	}
	return render(c, templates.LoginCode(v))
}

// loginCodeView offers the second factors the user has: a code (authenticator app or
// recovery code), a passkey; either leads on to next.
func (s *Server) loginCodeView(c *gin.Context, u *shop.User, next string) (templates.LoginCodeView, error) {
	v := templates.LoginCodeView{Next: next}
	_, err := s.Users.FindAuthenticator(c.Request.Context(), u.AccountID, u.ID)
	switch shop.ErrorCode(err) {
	case "":
		v.Code = true
	case shop.ENotFound:
	default:
		return v, err
	}
	keys, err := s.Users.FindPasskeys(c.Request.Context(), u.AccountID, u.ID)
	v.Passkey = len(keys) > 0
	return v, err
}

// loginCode ends a sign-in with a code from the user's authenticator app or one of
// their recovery codes. Wrong, expired and reused codes count against the sign-in
// throttle, per address and per e-mail, as wrong passwords do.
func (s *Server) loginCode(c *gin.Context) error {
	ctx := c.Request.Context()
	u, next, err := s.pendingSignIn(c)
	if shop.ErrorCode(err) == shop.EUnauthenticated {
		return &formError{err, func(bool) (templ.Component, error) {
			return templates.Login(templates.LoginView{Error: shop.ErrorMessage(err)}), nil
		}}
	}
	if err != nil {
		return err
	}
	refuse := func(code, msg string) error {
		return &formError{shop.Errorf(code, "%s", msg), func(bool) (templ.Component, error) {
			v, err := s.loginCodeView(c, u, next)
			v.Error, v.Code = msg, true
			return templates.LoginCode(v), err
		}}
	}
	ip := clientIP(c.Request)
	wait, err := s.throttle.wait(ctx, ip, u.Email)
	if err != nil {
		return err
	}
	if wait > 0 {
		return refuse(shop.ERateLimited, fmt.Sprintf("Too many wrong codes. Try again in %d seconds.", retryAfter(c, wait)))
	}
	code := normalizeCode(c.PostForm("code"))
	if code == "" {
		return refuse(shop.EMissing, "Enter the code from your authenticator app, or a recovery code.")
	}
	if msg, err := s.checkSecondFactor(c, u, code); err != nil || msg != "" {
		if err != nil {
			return err
		}
		if err := s.throttle.fail(ctx, ip, u.Email); err != nil {
			return err
		}
		return refuse(shop.EUnauthenticated, msg)
	}
	if err := s.throttle.succeed(ctx, u.Email); err != nil {
		return err
	}
	token, err := s.Users.CreateSession(ctx, u.AccountID, u.ID, sessionClient(c))
	if err != nil {
		return err
	}
	if err := s.startSession(c, u.AccountID, token, ""); err != nil {
		return err
	}
	c.Redirect(http.StatusSeeOther, next)
	return nil
}

// checkSecondFactor spends code, an app's code or a recovery code, for u. A refused
// code returns the message saying why.
func (s *Server) checkSecondFactor(c *gin.Context, u *shop.User, code string) (string, error) {
	ctx := c.Request.Context()
	if !isTOTPCode(code) {
		err := s.Users.UseRecoveryCode(ctx, u.AccountID, u.ID, code, sessionClient(c))
		if shop.ErrorCode(err) == shop.EUnauthenticated {
			return shop.ErrorMessage(err), nil
		}
		return "", err
	}
	a, err := s.Users.FindAuthenticator(ctx, u.AccountID, u.ID)
	if err != nil && shop.ErrorCode(err) != shop.ENotFound {
		return "", err
	}
	step, ok := int64(0), false
	if a != nil {
		step, ok = checkTOTP(a.Secret, code, s.now())
	}
	if !ok {
		return "That code is not right or has expired. Enter the code your app shows now.", s.Users.RecordSecondFactorFailure(ctx, u.AccountID, u.ID, sessionClient(c))
	}
	err = s.Users.UseAuthenticatorStep(ctx, u.AccountID, u.ID, step, sessionClient(c))
	if shop.ErrorCode(err) == shop.EInvalid {
		return shop.ErrorMessage(err), nil
	}
	return "", err
}
