package web

import (
	"context"
	"testing"
	"time"
)

// TestLoginThrottle_InProcess checks the throttle a Server without a SignInStore keeps
// in memory; the database-backed one runs under every sign-in test of login_test.go.
func TestLoginThrottle_InProcess(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	th := &loginThrottle{now: func() time.Time { return now }, store: &memorySignInStore{}}
	wait := func(ip, email string) time.Duration {
		t.Helper()
		d, err := th.wait(ctx, ip, email)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for i := range freeLoginFailures {
		if d := wait("192.0.2.1", "zoe@example.com"); d != 0 {
			t.Fatalf("before failure %d: wait %v, want none", i+1, d)
		}
		if err := th.fail(ctx, "192.0.2.1", "Zoe@Example.com"); err != nil {
			t.Fatal(err)
		}
	}
	// Held back by the account from another address, and by the address for another account.
	if d := wait("198.51.100.7", "zoe@example.com"); d != time.Second {
		t.Errorf("same e-mail, other address: wait %v, want 1s", d)
	}
	if d := wait("192.0.2.1", "ann@example.com"); d != time.Second {
		t.Errorf("same address, other e-mail: wait %v, want 1s", d)
	}
	// Each further failure doubles the wait.
	for range 3 {
		if err := th.fail(ctx, "192.0.2.1", "zoe@example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if d := wait("192.0.2.1", "zoe@example.com"); d != 8*time.Second {
		t.Errorf("after 8 failures: wait %v, want 8s", d)
	}
	// A success forgets the account's failures, not the address's.
	if err := th.succeed(ctx, "zoe@example.com"); err != nil {
		t.Fatal(err)
	}
	if d := wait("198.51.100.7", "zoe@example.com"); d != 0 {
		t.Errorf("after a success, other address: wait %v, want none", d)
	}
	if d := wait("192.0.2.1", "ann@example.com"); d != 8*time.Second {
		t.Errorf("after a success, same address: wait %v, want 8s", d)
	}
	// An hour later the count starts again.
	now = now.Add(2 * time.Hour)
	if err := th.fail(ctx, "192.0.2.1", "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	if d := wait("192.0.2.1", "ann@example.com"); d != 0 {
		t.Errorf("a failure two hours later: wait %v, want none", d)
	}
}
