package webhook_test

import (
	"context"
	"testing"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/internal/webhook"
	"storefront/internal/worker"
)

// TestDeliverer_WokenByCommits runs the deliverer and the job runner as the program
// does, with a poll interval far beyond the test: every change that writes events
// (an import, a reactivation, the past-due sweep, a test event, a bulk job's step)
// has its event delivered because its commit woke the deliverer. The bulk job goes
// through two wake-ups: its creation wakes the job runner, whose step's commit wakes
// the deliverer.
func TestDeliverer_WokenByCommits(t *testing.T) {
	db, clk := setup(t)
	ctx := context.Background()
	ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, "http://127.0.0.1:1/placeholder", nil)
	if err != nil {
		t.Fatal(err)
	}
	rcv := newReceiver(t, secret)
	if _, err := db.ExecContext(ctx, "UPDATE webhook_endpoints SET url = ? WHERE account_id = 1 AND id = ?", rcv.url(), ep.ID); err != nil {
		t.Fatal(err)
	}
	idle := worker.Options{Poll: time.Hour, Log: quiet}
	g := worker.NewGroup(
		worker.New(mysql.WorkWebhooks, deliverer(db, clk, webhook.Options{}).Step, idle),
		worker.New(mysql.WorkJobs, mysql.NewJobService(db).RunJobStep, idle),
	)
	db.Wake = g.Wake
	g.Start()
	defer func() {
		if err := g.Stop(30 * time.Second); err != nil {
			t.Error(err)
		}
	}()
	time.Sleep(50 * time.Millisecond) // the workers' first steps find nothing

	delivered := 0
	expect := func(what string) {
		t.Helper()
		delivered++
		deadline := time.Now().Add(15 * time.Second)
		for {
			if _, total := rcv.accepted(); total >= delivered {
				if total > delivered {
					t.Fatalf("after %s: %d deliveries, want %d", what, total, delivered)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the event of %s was not delivered: the commit did not wake the deliverer", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	importDoc(t, db, purchaseJSON(1, "PND", "A"))
	expect("an import")
	importDoc(t, db, purchaseJSON(2, "PND", "A"))
	expect("another import")
	if _, err := mysql.NewPurchaseService(db).Reactivate(ctx, shop.ReactivateRequest{AccountID: 1, PurchaseID: 1, Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	expect("a reactivation")
	importDoc(t, db, `{"subscribers":[{"id":7,"storefront_id":10,"created_at":1,"updated_at":1,"username":"s@example.com","last_login_at":null,`+
		`"subscription":{"id":70,"status":"PAST_DUE","price":"1.00","period":1,"unit":"M","tax_amount":"0.00","created_at":1,"updated_at":1,"next_payment_at":1}}]}`)
	expect("a subscriber's import")
	if n, err := db.ClosePastDue(ctx); err != nil || n != 1 {
		t.Fatalf("close past due: %d, %v", n, err)
	}
	expect("the past-due sweep")
	if _, err := mysql.NewWebhookService(db).SendTestEvent(ctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	expect("a test event")
	job, err := mysql.NewJobService(db).CreateReactivationJob(ctx, 1, "support@example.com", []int64{2}, false)
	if err != nil {
		t.Fatal(err)
	}
	expect("a bulk job's step")
	deadline := time.Now().Add(15 * time.Second)
	for {
		j, err := mysql.NewJobService(db).FindJob(ctx, 1, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == shop.JobDone && j.Done == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job: %+v, want done with its purchase", j)
		}
		time.Sleep(5 * time.Millisecond)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	types := map[string]int{}
	for _, typ := range rcv.types {
		types[typ]++
	}
	want := map[string]int{shop.EventPurchaseCreated: 2, shop.EventPurchaseReactivated: 2, shop.EventSubscriptionUpdated: 2, shop.EventTest: 1}
	for typ, n := range want {
		if types[typ] != n {
			t.Errorf("%s delivered %d times, want %d (all: %v)", typ, types[typ], n, types)
		}
	}
}
