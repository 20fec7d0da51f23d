package webhook_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/internal/webhook"
)

// An event written in a traced request keeps the request's traceparent; the attempt that
// delivers it is a span of the deliverer's step, linked to the request's, and is sent
// as the delivery's traceparent header.
func TestDeliverer_Traceparent(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	tracer := tp.Tracer("test")
	db, err := mysql.Open(context.Background(), dbtest.DSN(t), mysql.WithTracing(tp))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clk := &clock{t: time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)}
	db.Now = clk.Now
	db.WebhookGuard = &webhook.Guard{AllowPrivate: true}
	importDoc(t, db, account)

	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("traceparent"))
		mu.Unlock()
	}))
	defer srv.Close()
	ctx := context.Background()
	ep, _, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, 1, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}

	rctx, request := tracer.Start(ctx, "POST /webhooks/:id/test")
	if _, err := mysql.NewWebhookService(db).SendTestEvent(rctx, 1, ep.ID); err != nil {
		t.Fatal(err)
	}
	request.End()
	var stored string
	if err := db.QueryRow("SELECT traceparent FROM webhook_events WHERE account_id = 1").Scan(&stored); err != nil {
		t.Fatal(err)
	}
	rc := request.SpanContext()
	if want := "00-" + rc.TraceID().String() + "-" + rc.SpanID().String() + "-01"; stored != want {
		t.Fatalf("stored traceparent %q, want %q", stored, want)
	}

	sctx, step := tracer.Start(ctx, "worker webhooks")
	if _, err := deliverer(db, clk, webhook.Options{}).Step(sctx); err != nil {
		t.Fatal(err)
	}
	step.End()
	var attempt sdktrace.ReadOnlySpan
	for _, s := range spans.GetSpans().Snapshots() {
		if s.Name() == "webhook deliver" {
			attempt = s
		}
	}
	if attempt == nil {
		t.Fatal("no span of the attempt")
	}
	if attempt.Parent().SpanID() != step.SpanContext().SpanID() || attempt.SpanKind() != trace.SpanKindClient {
		t.Errorf("the attempt's span is under %s, kind %v; want under the step's %s", attempt.Parent().SpanID(), attempt.SpanKind(), step.SpanContext().SpanID())
	}
	if l := attempt.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != rc.SpanID() || l[0].SpanContext.TraceID() != rc.TraceID() {
		t.Errorf("the attempt's links %v, want the request's span", l)
	}
	ac := attempt.SpanContext()
	mu.Lock()
	defer mu.Unlock()
	if want := "00-" + ac.TraceID().String() + "-" + ac.SpanID().String() + "-01"; len(got) != 1 || got[0] != want {
		t.Errorf("the receiver got traceparent %q, want %q", got, want)
	}
}
