package mysql_test

import (
	"context"
	"testing"
	"time"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
)

func TestDB_SignInFailures(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ip, email := "ip:192.0.2.1", "email:zoe@example.com"
	for i := range 3 {
		if err := mysql.NewSignInStore(db).AddSignInFailure(ctx, []string{ip, email}, t0.Add(time.Duration(i)*time.Second), t0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := mysql.NewSignInStore(db).SignInFailures(ctx, []string{ip, email, "ip:198.51.100.7"}, t0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[ip].Count != 3 || got[email].Count != 3 || !got[email].Last.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("after 3 failures: got %+v, want 3 for each key, last at %v", got, t0.Add(2*time.Second))
	}
	// What was typed into the e-mail field is not kept.
	var plain int
	if err := db.QueryRow("SELECT COUNT(*) FROM sign_in_failures WHERE key_hash LIKE '%zoe%'").Scan(&plain); err != nil || plain != 0 {
		t.Fatalf("rows holding the e-mail in plain text: %d (%v)", plain, err)
	}
	// Failures older than since are not reported.
	if got, _ := mysql.NewSignInStore(db).SignInFailures(ctx, []string{ip}, t0.Add(time.Minute)); len(got) != 0 {
		t.Errorf("since a minute later: got %+v, want nothing", got)
	}
	// A success clears one key.
	if err := mysql.NewSignInStore(db).ClearSignInFailures(ctx, email); err != nil {
		t.Fatal(err)
	}
	if got, _ := mysql.NewSignInStore(db).SignInFailures(ctx, []string{ip, email}, t0.Add(-time.Hour)); len(got) != 1 || got[ip].Count != 3 {
		t.Errorf("after clearing the e-mail: got %+v, want only the address's 3", got)
	}
	// A failure after the restart time starts the count again.
	t1 := t0.Add(2 * time.Hour)
	if err := mysql.NewSignInStore(db).AddSignInFailure(ctx, []string{ip}, t1, t1.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := mysql.NewSignInStore(db).SignInFailures(ctx, []string{ip}, t1.Add(-time.Hour)); got[ip].Count != 1 {
		t.Errorf("two hours later: got %+v, want the count started again at 1", got)
	}
	// Day-old rows go on the next failure.
	if err := mysql.NewSignInStore(db).AddSignInFailure(ctx, []string{email}, t0, t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	t2 := t0.Add(25 * time.Hour)
	if err := mysql.NewSignInStore(db).AddSignInFailure(ctx, []string{"ip:203.0.113.9"}, t2, t2.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := db.QueryRow("SELECT COUNT(*) FROM sign_in_failures").Scan(&rows); err != nil || rows != 2 {
		t.Errorf("rows after a failure a day later: %d (%v), want 2 (the day-old e-mail row deleted)", rows, err)
	}
}
