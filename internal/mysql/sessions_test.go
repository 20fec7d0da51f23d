package mysql_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// TestUserService_Sessions: a session is found only under its account, its last seen
// is written at most once a minute, and the device and address are kept.
func TestUserService_Sessions(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	dbtest.MustExec(t, db.DB, "INSERT INTO accounts (id, name, api_username, timezone) VALUES (1, 'One', 'one', 'UTC'), (2, 'Two', 'two', 'UTC')")
	mysql.BcryptCost = bcrypt.MinCost
	uid, err := mysql.NewAdminService(db).CreateUser(ctx, 1, "zoe@example.com", shop.RoleStaff, "a long enough password")
	if err != nil {
		t.Fatal(err)
	}
	users := mysql.NewUserService(db)
	token, err := users.CreateSession(ctx, 1, uid, shop.SessionClient{Device: "Firefox on Linux", Address: "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := users.FindSession(ctx, 2, token); shop.ErrorCode(err) != shop.EUnauthenticated {
		t.Fatalf("under another account: %v", err)
	}
	lastSeen := func() time.Time {
		t.Helper()
		ss, err := users.FindSessions(ctx, 1, uid)
		if err != nil || len(ss) != 1 {
			t.Fatalf("sessions: %v, %d", err, len(ss))
		}
		if ss[0].Client.Device != "Firefox on Linux" || ss[0].Client.Address != "192.0.2.7" {
			t.Fatalf("session %+v", ss[0])
		}
		return ss[0].LastSeenAt.Time
	}
	start := now
	now = start.Add(59 * time.Second)
	if _, _, err := users.FindSession(ctx, 1, token); err != nil {
		t.Fatal(err)
	}
	if got := lastSeen(); !got.Equal(start) {
		t.Fatalf("last seen after 59 s: %v, want %v (no write)", got, start)
	}
	now = start.Add(61 * time.Second)
	if _, _, err := users.FindSession(ctx, 1, token); err != nil {
		t.Fatal(err)
	}
	if got := lastSeen(); !got.Equal(now) {
		t.Fatalf("last seen after 61 s: %v, want %v", got, now)
	}
}
