package mysql_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"storefront/internal/dbtest"
	"storefront/internal/importer"
)

// TestReadFences_ImportAndSweeper checks that writers outside the API record the
// read fences of the accounts they wrote to, as a reactivation does: an import (its
// purchases' and its subscribers' accounts) and the PAST_DUE sweeper.
func TestReadFences_ImportAndSweeper(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	accounts := func(query string) []int64 {
		t.Helper()
		var ids []int64
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	fenced := func() []int64 { return accounts("SELECT account_id FROM read_fences ORDER BY account_id") }

	importFile(t, db, importFixturePath)
	want := accounts("SELECT id FROM accounts ORDER BY id")
	if got := fenced(); len(want) == 0 || !slices.Equal(got, want) {
		t.Fatalf("after the whole fixture: fenced %v, want every account %v", got, want)
	}

	// Subscribers only: their storefront's account.
	dbtest.MustExec(t, db.DB, "DELETE FROM read_fences")
	doc := `{"subscribers":[{"id":100,"storefront_id":10,"created_at":1,"updated_at":1,"username":"anna@example.com","subscription":null}]}`
	if _, err := importer.Run(ctx, db, strings.NewReader(doc), nil); err != nil {
		t.Fatal(err)
	}
	want = accounts("SELECT account_id FROM storefronts WHERE id = 10")
	if got := fenced(); !slices.Equal(got, want) {
		t.Fatalf("after importing a subscriber of storefront 10: fenced %v, want %v", got, want)
	}

	// A failed import fences nothing.
	dbtest.MustExec(t, db.DB, "DELETE FROM read_fences")
	if _, err := importer.Run(ctx, db, strings.NewReader(`{"purchases":[`+importPurchaseJSON(4, `,"bogus":1`)+`]}`), nil); err == nil {
		t.Fatal("an import with an unknown field succeeded")
	}
	if got := fenced(); len(got) != 0 {
		t.Fatalf("after a failed import: fenced %v, want none", got)
	}

	// The sweeper: the closed subscription's account. (The fixture's own overdue
	// subscriptions are closed first.)
	if _, err := db.ClosePastDue(ctx); err != nil {
		t.Fatal(err)
	}
	var subscriberID int64
	if err := db.QueryRow("SELECT subscriber_id FROM subscriptions ORDER BY id LIMIT 1").Scan(&subscriberID); err != nil {
		t.Fatal(err)
	}
	dbtest.MustExec(t, db.DB, "DELETE FROM read_fences",
		fmt.Sprintf("UPDATE subscriptions SET status = 'PAST_DUE', ended_at = NULL, next_payment_at = '2020-01-01 00:00:00' WHERE subscriber_id = %d", subscriberID))
	if n, err := db.ClosePastDue(ctx); err != nil || n != 1 {
		t.Fatalf("ClosePastDue: closed %d, %v; want 1", n, err)
	}
	want = accounts("SELECT sf.account_id FROM subscribers sb JOIN storefronts sf ON sf.id = sb.storefront_id WHERE sb.id = " + fmt.Sprint(subscriberID))
	if got := fenced(); !slices.Equal(got, want) {
		t.Fatalf("after the sweeper: fenced %v, want %v", got, want)
	}
}
