package mysql_test

import (
	"context"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// TestPasskeys_Once: of answers sent at the same moment, one ceremony is taken once,
// and one counter value opens one session.
func TestPasskeys_Once(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	dbtest.MustExec(t, db.DB, "INSERT INTO accounts (id, name, api_username, timezone) VALUES (1, 'One', 'one', 'UTC')")
	mysql.BcryptCost = bcrypt.MinCost
	uid, err := mysql.NewAdminService(db).CreateUser(ctx, 1, "zoe@example.com", shop.RoleStaff, "a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	users := mysql.NewUserService(db)

	t.Run("CeremonyTakenOnce", func(t *testing.T) {
		if err := users.SaveCeremony(ctx, "token", shop.Ceremony{Kind: shop.CeremonySignIn, SessionData: []byte(`{}`)}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		taken, gone := 0, 0
		for range 8 {
			wg.Go(func() {
				_, err := users.TakeCeremony(ctx, "token")
				mu.Lock()
				defer mu.Unlock()
				switch shop.ErrorCode(err) {
				case "":
					taken++
				case shop.ENotFound:
					gone++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if taken != 1 || gone != 7 {
			t.Fatalf("taken %d, gone %d; want 1 and 7", taken, gone)
		}
	})

	t.Run("CounterOnce", func(t *testing.T) {
		cred := []byte("credential-1")
		if err := users.AddPasskey(ctx, &shop.Passkey{AccountID: 1, UserID: uid, Name: "Key", CredentialID: cred, PublicKey: []byte{1},
			AttestationType: "none", AAGUID: make([]byte, 16), Flags: 5, SignCount: 3}, shop.SessionClient{}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		opened, refused := 0, 0
		for range 6 {
			wg.Go(func() {
				_, err := users.SignInWithPasskey(ctx, 1, uid, cred, 4, shop.SessionClient{})
				mu.Lock()
				defer mu.Unlock()
				switch shop.ErrorCode(err) {
				case "":
					opened++
				case shop.EUnauthenticated:
					refused++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if opened != 1 || refused != 5 {
			t.Fatalf("opened %d, refused %d; want 1 and 5", opened, refused)
		}
		// A counter that does not count (0 after 0) relies on the challenge alone; a
		// counter going back is refused; another user's credential is not found.
		if _, err := users.SignInWithPasskey(ctx, 1, uid, cred, 2, shop.SessionClient{}); shop.ErrorCode(err) != shop.EUnauthenticated {
			t.Fatalf("counter back: %v", err)
		}
		if _, err := users.SignInWithPasskey(ctx, 1, uid+1, cred, 9, shop.SessionClient{}); shop.ErrorCode(err) != shop.EUnauthenticated {
			t.Fatalf("another user: %v", err)
		}
		zero := []byte("credential-0")
		if err := users.AddPasskey(ctx, &shop.Passkey{AccountID: 1, UserID: uid, Name: "Synced", CredentialID: zero, PublicKey: []byte{1},
			AttestationType: "none", AAGUID: make([]byte, 16), Flags: 0x1d}, shop.SessionClient{}); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, err := users.SignInWithPasskey(ctx, 1, uid, zero, 0, shop.SessionClient{}); err != nil {
				t.Fatalf("a passkey that does not count: %v", err)
			}
		}
	})
}
