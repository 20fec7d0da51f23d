package web_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fxamacker/cbor/v2"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/web"
)

// softKey is an authenticator made in Go, as an attacker would: it signs whatever
// challenge, origin and relying party id it is given, with a counter it chooses.
type softKey struct {
	priv   *ecdsa.PrivateKey
	id     []byte
	handle []byte
	count  uint32
}

func newSoftKey(t testing.TB, accountID, userID int64) *softKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	h := make([]byte, 16)
	binary.BigEndian.PutUint64(h, uint64(accountID))
	binary.BigEndian.PutUint64(h[8:], uint64(userID))
	return &softKey{priv: priv, id: id, handle: h}
}

// cose is the key's public half as COSE (EC2, P-256, ES256).
func (k *softKey) cose(t testing.TB) []byte {
	t.Helper()
	b, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: k.priv.X.FillBytes(make([]byte, 32)), -3: k.priv.Y.FillBytes(make([]byte, 32))})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// store adds the key as a passkey of its user, as if it had been registered.
func (k *softKey) store(t testing.TB, e *apiEnv, name string) {
	t.Helper()
	acct, user := int64(binary.BigEndian.Uint64(k.handle)), int64(binary.BigEndian.Uint64(k.handle[8:]))
	if err := mysql.NewUserService(e.db).AddPasskey(context.Background(), &shop.Passkey{AccountID: acct, UserID: user, Name: name,
		CredentialID: k.id, PublicKey: k.cose(t), AttestationType: "none", AAGUID: make([]byte, 16), Flags: 0x05}, shop.SessionClient{}); err != nil {
		t.Fatal(err)
	}
}

var b64 = base64.RawURLEncoding

// assertion answers a sign-in's challenge for origin and relying party rpID with the
// counter count.
func (k *softKey) assertion(t testing.TB, challenge, origin, rpID string, count uint32) []byte {
	t.Helper()
	client, _ := json.Marshal(map[string]any{"type": "webauthn.get", "challenge": challenge, "origin": origin, "crossOrigin": false})
	rp := sha256.Sum256([]byte(rpID))
	auth := append(rp[:], 0x05, 0, 0, 0, 0) // user present and verified
	binary.BigEndian.PutUint32(auth[33:], count)
	ch := sha256.Sum256(client)
	digest := sha256.Sum256(append(append([]byte{}, auth...), ch[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.priv, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(client), "authenticatorData": b64.EncodeToString(auth),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(k.handle)}})
	return b
}

// attestation answers a registration's challenge ("none" attestation).
func (k *softKey) attestation(t testing.TB, challenge, origin, rpID string) []byte {
	t.Helper()
	client, _ := json.Marshal(map[string]any{"type": "webauthn.create", "challenge": challenge, "origin": origin, "crossOrigin": false})
	rp := sha256.Sum256([]byte(rpID))
	auth := append(rp[:], 0x45, 0, 0, 0, 0) // user present and verified, credential data
	auth = append(auth, make([]byte, 16)...)
	auth = binary.BigEndian.AppendUint16(auth, uint16(len(k.id)))
	auth = append(append(auth, k.id...), k.cose(t)...)
	obj, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": auth})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.id), "rawId": b64.EncodeToString(k.id), "type": "public-key",
		"clientExtensionResults": map[string]any{},
		"response":               map[string]any{"clientDataJSON": b64.EncodeToString(client), "attestationObject": b64.EncodeToString(obj), "transports": []string{"internal"}}})
	return b
}

// browserClient is a client with its own cookies that does not follow redirects.
func (e *apiEnv) browserClient() *dashUser {
	jar, _ := cookiejar.New(nil)
	return &dashUser{e: e, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// postJSON posts a body as the page's script does.
func (u *dashUser) postJSON(path string, body []byte) response {
	u.e.t.Helper()
	req, _ := http.NewRequest("POST", u.e.url+path, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Origin", u.e.url)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return u.do(req)
}

// options begins a ceremony at path and returns its challenge and relying party id.
func (u *dashUser) options(t testing.TB, path string, form url.Values) (string, string) {
	t.Helper()
	r := u.post(path, form)
	if r.status != http.StatusOK {
		t.Fatalf("%s: got %d %s", path, r.status, r.body)
	}
	var o struct {
		PublicKey struct {
			Challenge string `json:"challenge"`
			RPID      string `json:"rpId"`
			RP        struct {
				ID string `json:"id"`
			} `json:"rp"`
		} `json:"publicKey"`
	}
	r.json(t, &o)
	if o.PublicKey.RPID == "" {
		o.PublicKey.RPID = o.PublicKey.RP.ID
	}
	return o.PublicKey.Challenge, o.PublicKey.RPID
}

// refused checks that r is the JSON refusal status with a message holding want.
func refused(t *testing.T, what string, r response, status int, want string) {
	t.Helper()
	var body struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(r.body, &body)
	if r.status != status || !strings.Contains(body.Error, want) {
		t.Errorf("%s: got %d %s, want %d with %q", what, r.status, r.body, status, want)
	}
}

func TestPasskeys_Hostile(t *testing.T) {
	e := newAPI(t, 0)
	origin := passkeyOrigin(e.url)

	t.Run("SignIn", func(t *testing.T) {
		e := e.with(t)
		email := e.newUser(e.id(1), "staff")
		key := newSoftKey(t, e.id(1), e.acctUserID(email))
		key.store(t, e, "Soft key")

		// A right answer signs in, alone: it is both factors.
		a := e.browserClient()
		challenge, rpID := a.options(t, "/login/passkey/options", nil)
		if rpID != "localhost" {
			t.Fatalf("relying party id %q, want localhost", rpID)
		}
		// A second client holding the same cookie (the same challenge) answers after.
		b := e.browserClient()
		b.client.Jar.SetCookies(mustURL(e.url), a.client.Jar.Cookies(mustURL(e.url)))
		key.count = 1
		good := key.assertion(t, challenge, origin, rpID, key.count)
		if r := a.postJSON("/login/passkey?next=/purchases", good); r.status != http.StatusOK || !strings.Contains(string(r.body), `"redirect":"/purchases"`) {
			t.Fatalf("sign in: %d %s", r.status, r.body)
		}
		a.email = email
		if a.signedOut(t) {
			t.Fatal("the passkey did not sign in")
		}
		if n := e.count("SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND action = 'sign_in' AND details = 'passkey: Soft key'", e.id(1)); n != 1 {
			t.Fatalf("%d sign-in records", n)
		}

		// The challenge used twice: the same answer, with the cookie that held it.
		refused(t, "challenge used twice", b.postJSON("/login/passkey", good), http.StatusBadRequest, "expired or was used already")
		if !b.signedOut(t) {
			t.Fatal("the replayed answer signed in")
		}
		// The answer replayed against a new challenge.
		c := e.browserClient()
		challenge2, _ := c.options(t, "/login/passkey/options", nil)
		refused(t, "answer to another challenge", c.postJSON("/login/passkey", good), http.StatusUnauthorized, "refused")

		// A fresh challenge signed with a counter that did not grow (a cloned key, or
		// a replay of its signature): refused, and recorded.
		c = e.browserClient()
		challenge3, _ := c.options(t, "/login/passkey/options", nil)
		refused(t, "counter not grown", c.postJSON("/login/passkey", key.assertion(t, challenge3, origin, rpID, key.count)), http.StatusUnauthorized, "counter did not grow")
		if !c.signedOut(t) {
			t.Fatal("an answer with an old counter signed in")
		}
		if n := e.count("SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND action = 'sign_in_passkey_failed' AND user_id = ?", e.id(1), e.acctUserID(email)); n == 0 {
			t.Fatal("no record of the refused passkey")
		}

		for _, tc := range []struct {
			name, origin, rpID string
		}{
			{"WrongOrigin", "http://evil.test", rpID},
			{"WrongOriginPort", "http://localhost:1", rpID},
			{"WrongRPID", origin, "evil.test"},
		} {
			c := e.browserClient()
			ch, _ := c.options(t, "/login/passkey/options", nil)
			key.count++
			refused(t, tc.name, c.postJSON("/login/passkey", key.assertion(t, ch, tc.origin, tc.rpID, key.count)), http.StatusUnauthorized, "refused")
			if !c.signedOut(t) {
				t.Fatalf("%s: signed in", tc.name)
			}
		}

		// Signed by another key; an unknown user handle; nonsense.
		c = e.browserClient()
		ch, _ := c.options(t, "/login/passkey/options", nil)
		forged := newSoftKey(t, e.id(1), e.acctUserID(email))
		forged.id = key.id
		key.count++
		refused(t, "forged signature", c.postJSON("/login/passkey", forged.assertion(t, ch, origin, rpID, key.count)), http.StatusUnauthorized, "refused")
		ch, _ = c.options(t, "/login/passkey/options", nil)
		stranger := newSoftKey(t, e.id(2), 999999)
		refused(t, "unknown user", c.postJSON("/login/passkey", stranger.assertion(t, ch, origin, rpID, 1)), http.StatusUnauthorized, "not one of this site's")
		ch, _ = c.options(t, "/login/passkey/options", nil)
		other := newSoftKey(t, e.id(2), e.acctUserID(email)) // the right user, the wrong account
		other.id = key.id
		refused(t, "other account", c.postJSON("/login/passkey", other.assertion(t, ch, origin, rpID, 100)), http.StatusUnauthorized, "not one of this site's")
		c.options(t, "/login/passkey/options", nil)
		refused(t, "not JSON", c.postJSON("/login/passkey", []byte("{nonsense")), http.StatusBadRequest, "could not be read")
		refused(t, "no ceremony", e.browserClient().postJSON("/login/passkey", good), http.StatusBadRequest, "expired or was used already")
		big := make([]byte, 70<<10)
		refused(t, "too large", e.browserClient().postJSON("/login/passkey", big), http.StatusRequestEntityTooLarge, "larger than")

		// A challenge answered after five minutes has expired.
		c = e.browserClient()
		ch, _ = c.options(t, "/login/passkey/options", nil)
		e.clock.advance(shop.CeremonyTTL + time.Second)
		key.count++
		refused(t, "expired", c.postJSON("/login/passkey", key.assertion(t, ch, origin, rpID, key.count)), http.StatusBadRequest, "expired")

		// And the right one still works.
		c = e.browserClient()
		ch, _ = c.options(t, "/login/passkey/options", nil)
		key.count++
		if r := c.postJSON("/login/passkey", key.assertion(t, ch, origin, rpID, key.count)); r.status != http.StatusOK {
			t.Fatalf("sign in again: %d %s", r.status, r.body)
		}
		_ = challenge2
	})

	t.Run("Add", func(t *testing.T) {
		e := e.with(t)
		u := e.signIn(e.id(1), "viewer")
		id := e.acctUserID(u.email)
		refused(t, "no name", u.postJSON("/account/security/passkeys/options", nil), http.StatusBadRequest, "Name the passkey")
		refused(t, "long name", func() response {
			return u.post("/account/security/passkeys/options", url.Values{"name": {strings.Repeat("x", 65)}})
		}(), http.StatusBadRequest, "at most 64")

		key := newSoftKey(t, e.id(1), id)
		challenge, rpID := u.options(t, "/account/security/passkeys/options", url.Values{"name": {"My key"}})
		// Made for another origin or relying party: refused; the challenge is spent.
		refused(t, "wrong origin", u.postJSON("/account/security/passkeys", key.attestation(t, challenge, "http://evil.test", rpID)), http.StatusUnauthorized, "refused")
		refused(t, "again", u.postJSON("/account/security/passkeys", key.attestation(t, challenge, passkeyOrigin(e.url), rpID)), http.StatusBadRequest, "expired or was used already")
		challenge, _ = u.options(t, "/account/security/passkeys/options", url.Values{"name": {"My key"}})
		refused(t, "wrong RP id", u.postJSON("/account/security/passkeys", key.attestation(t, challenge, passkeyOrigin(e.url), "evil.test")), http.StatusUnauthorized, "refused")
		// A sign-in's challenge is not a registration's.
		c := e.browserClient()
		c.client.Jar = u.client.Jar
		ch, _ := c.options(t, "/login/passkey/options", nil)
		refused(t, "sign-in challenge", u.postJSON("/account/security/passkeys", key.attestation(t, ch, passkeyOrigin(e.url), rpID)), http.StatusBadRequest, "expired or was used already")
		// Another user's registration challenge, in this user's session.
		if n := e.count("SELECT COUNT(*) FROM user_passkeys WHERE account_id = ? AND user_id = ?", e.id(1), id); n != 0 {
			t.Fatalf("%d passkeys stored by refused answers", n)
		}

		challenge, _ = u.options(t, "/account/security/passkeys/options", url.Values{"name": {"My key"}})
		if r := u.postJSON("/account/security/passkeys", key.attestation(t, challenge, passkeyOrigin(e.url), rpID)); r.status != http.StatusOK {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
		page := string(u.get("/account/security", false).body)
		for _, want := range []string{"The passkey &#34;My key&#34; was added", "My key", "Not used to sign in yet", "Remove the passkey My key"} {
			if !strings.Contains(page, want) {
				t.Errorf("Security page lacks %q", want)
			}
		}
		if n := e.count("SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND user_id = ? AND action = 'factor_added' AND details = 'passkey: My key'", e.id(1), id); n != 1 {
			t.Fatalf("%d records of the passkey added", n)
		}
		// The same authenticator again: refused.
		challenge, _ = u.options(t, "/account/security/passkeys/options", url.Values{"name": {"Again"}})
		refused(t, "same credential", u.postJSON("/account/security/passkeys", key.attestation(t, challenge, passkeyOrigin(e.url), rpID)), http.StatusBadRequest, "")
		refused(t, "same name", u.post("/account/security/passkeys/options", url.Values{"name": {"my key"}}), http.StatusBadRequest, "named")
	})

	t.Run("RemoveEndsOtherSessions", func(t *testing.T) {
		e := e.with(t)
		email := e.newUser(e.id(1), "staff")
		id := e.acctUserID(email)
		a := e.signInAs(email, dashPassword)
		b := e.signInAs(email, dashPassword)
		key := newSoftKey(t, e.id(1), id)
		key.store(t, e, "Laptop")
		// With a passkey, the password asks for it next, and the passkey leads on to
		// where the sign-in was going.
		pw := e.browserClient()
		if r := pw.post("/login", url.Values{"email": {email}, "password": {dashPassword}, "next": {"/purchases?status=ACT"}}); r.status != http.StatusSeeOther || r.header.Get("Location") != "/login/code" {
			t.Fatalf("password of a user with a passkey: %d %q", r.status, r.header.Get("Location"))
		}
		if r := pw.get("/login/code", false); r.status != http.StatusOK || !strings.Contains(string(r.body), `data-finish="/login/passkey?next=%2Fpurchases%3Fstatus%3DACT"`) {
			t.Fatalf("the second step's passkey button forgets where the sign-in goes: %d %s", r.status, r.body)
		}
		var pid int64
		if err := e.db.QueryRow("SELECT id FROM user_passkeys WHERE account_id = ? AND user_id = ?", e.id(1), id).Scan(&pid); err != nil {
			t.Fatal(err)
		}
		other := e.signIn(e.id(1), "staff")
		if r := other.post(fmt.Sprintf("/account/security/passkeys/%d/remove", pid), nil); r.status != http.StatusNotFound {
			t.Fatalf("another user's passkey: %d", r.status)
		}
		if r := a.post("/account/security/passkeys/abc/remove", nil); r.status != http.StatusBadRequest {
			t.Fatalf("bad id: %d", r.status)
		}
		if r := a.post(fmt.Sprintf("/account/security/passkeys/%d/remove", pid), nil); r.status != http.StatusSeeOther {
			t.Fatalf("remove: %d %s", r.status, r.body)
		}
		if !b.signedOut(t) || a.signedOut(t) {
			t.Fatal("after removing a passkey: the other session lives, or this one ended")
		}
		if n := e.count("SELECT COUNT(*) FROM audit_records WHERE account_id = ? AND user_id = ? AND action = 'factor_removed' AND details = 'passkey: Laptop'", e.id(1), id); n != 1 {
			t.Fatalf("%d records of the passkey removed", n)
		}
		if r := a.post(fmt.Sprintf("/account/security/passkeys/%d/remove", pid), nil); r.status != http.StatusNotFound {
			t.Fatalf("again: %d", r.status)
		}
		// The removed passkey signs in no more.
		c := e.browserClient()
		ch, rp := c.options(t, "/login/passkey/options", nil)
		refused(t, "removed passkey", c.postJSON("/login/passkey", key.assertion(t, ch, passkeyOrigin(e.url), rp, 5)), http.StatusUnauthorized, "not one of this site's")
	})
}

func TestPasskeyRelyingParty(t *testing.T) {
	for _, tc := range []struct {
		base, rpID, origin string
		wantRP, wantOrigin string
		wantErr            bool
	}{
		{base: "https://shop.example", wantRP: "shop.example", wantOrigin: "https://shop.example"},
		{base: "https://shop.example:8443/", wantRP: "shop.example", wantOrigin: "https://shop.example:8443"},
		{base: "http://127.0.0.1:8080", wantRP: "localhost", wantOrigin: "http://localhost:8080"},
		{base: "http://127.0.0.1:8080", origin: "https://dash.example.com", rpID: "example.com", wantRP: "example.com", wantOrigin: "https://dash.example.com"},
		{base: "https://shop.example", rpID: "other.example", wantErr: true},
		{base: "https://shop.example", rpID: "hop.example", wantErr: true},
		{base: "https://shop.example", origin: "https://shop.example/path", wantErr: true},
		{base: "https://shop.example", origin: "ftp://shop.example", wantErr: true},
	} {
		rp, origin, err := web.PasskeyRelyingParty(tc.base, tc.rpID, tc.origin)
		if (err != nil) != tc.wantErr || rp != tc.wantRP || origin != tc.wantOrigin {
			t.Errorf("%q %q %q: got %q %q %v, want %q %q (error %v)", tc.base, tc.rpID, tc.origin, rp, origin, err, tc.wantRP, tc.wantOrigin, tc.wantErr)
		}
	}
	// A server whose settings are wrong says so on the passkey routes (503), and
	// serves everything else.
	e := newAPI(t, 0, func(s *web.Server) { s.PasskeyOrigin = "http://10.0.0.1:8080" })
	r := e.browserClient().post("/login/passkey/options", nil)
	refused(t, "passkeys off", r, http.StatusServiceUnavailable, "Passkeys are not available on this server")
	if r := e.browserClient().get("/login", false); r.status != http.StatusOK {
		t.Fatalf("sign-in page: %d", r.status)
	}
}

// passkeyTenancyCases are TestTenancy's cases of the passkey and two-step routes:
// account 2 reaches no passkey of account 1, nor its requirement.
func passkeyTenancyCases(t *testing.T, e *apiEnv, owner2, staff1 *dashUser) map[string]func(t *testing.T) {
	t.Helper()
	email1 := e.newUser(e.id(1), "staff")
	key1 := newSoftKey(t, e.id(1), e.acctUserID(email1))
	key1.store(t, e, "Account one's key")
	var pid int64
	if err := e.db.QueryRow("SELECT id FROM user_passkeys WHERE account_id = ? AND user_id = ?", e.id(1), e.acctUserID(email1)).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	kept := func(t *testing.T) {
		t.Helper()
		if n := e.count("SELECT COUNT(*) FROM user_passkeys WHERE account_id = ? AND id = ?", e.id(1), pid); n != 1 {
			t.Fatal("account 1's passkey is gone")
		}
	}
	origin := passkeyOrigin(e.url)
	return map[string]func(t *testing.T){
		"POST /account/security/passkeys/:id/remove": func(t *testing.T) {
			mustStatus(t, owner2.post(fmt.Sprintf("/account/security/passkeys/%d/remove", pid), nil), 404)
			mustStatus(t, owner2.post("/account/security/passkeys/999999999/remove", nil), 404)
			kept(t)
		},
		"POST /account/security/passkeys/options": func(t *testing.T) {
			r := mustStatus(t, owner2.post("/account/security/passkeys/options", url.Values{"name": {"Two's key"}}), 200)
			if strings.Contains(string(r.body), b64.EncodeToString(key1.id)) {
				t.Fatal("account 2's options name account 1's passkey")
			}
			noAccount1(t, r)
		},
		"POST /account/security/passkeys": func(t *testing.T) {
			// Account 1's authenticator answering account 2's challenge is stored for
			// account 2's user, never for account 1's.
			u := e.with(t).signIn(e.id(2), "viewer")
			ch, rp := u.options(t, "/account/security/passkeys/options", url.Values{"name": {"Borrowed"}})
			mustStatus(t, u.postJSON("/account/security/passkeys", key1.attestation(t, ch, origin, rp)), 200)
			if n := e.count("SELECT COUNT(*) FROM user_passkeys WHERE account_id = ? AND name = 'Borrowed'", e.id(1)); n != 0 {
				t.Fatal("a passkey of account 2 was stored in account 1")
			}
			mustStatus(t, owner2.postJSON("/account/security/passkeys", key1.attestation(t, "x", origin, rp)), 400)
			kept(t)
		},
		"POST /account/two-factor": func(t *testing.T) {
			mustStatus(t, owner2.post("/account/two-factor", url.Values{"require": {"on"}}), 400)
			mustStatus(t, staff1.post("/account/two-factor", url.Values{"require": {"on"}}), 403)
			if n := e.count("SELECT COUNT(*) FROM accounts WHERE id = ? AND require_two_factor", e.id(1)); n != 0 {
				t.Fatal("account 1 requires two-step sign-in")
			}
		},
		"POST /login/passkey/options": func(t *testing.T) {
			noAccount1(t, mustStatus(t, owner2.post("/login/passkey/options", nil), 200))
		},
		"POST /login/passkey": func(t *testing.T) {
			// Account 1's passkey presented as a user of account 2 (the user handle
			// names account 2): not found there.
			c := e.with(t).browserClient()
			ch, rp := c.options(t, "/login/passkey/options", nil)
			forged := *key1
			forged.handle = append([]byte{}, key1.handle...)
			binary.BigEndian.PutUint64(forged.handle, uint64(e.id(2)))
			r := mustStatus(t, c.postJSON("/login/passkey", forged.assertion(t, ch, origin, rp, 50)), 401)
			noAccount1(t, r)
		},
	}
}
