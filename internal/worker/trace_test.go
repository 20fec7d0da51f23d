package worker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"storefront/internal/worker"
)

// Every step is a span, the root of its own trace, and the step runs in its context.
func TestWorker_StepSpans(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	log, _ := newLog()
	steps := make(chan trace.SpanContext, 10)
	n := 0
	w := worker.New("mail", func(ctx context.Context) (bool, error) {
		n++
		steps <- trace.SpanContextFromContext(ctx)
		if n == 2 {
			return false, errors.New("the server is away")
		}
		return n == 1, nil
	}, worker.Options{Poll: time.Hour, BackoffBase: time.Hour, Log: log, Tracer: tp.Tracer("test")})
	g := worker.NewGroup(w)
	g.Start()
	first := waitFor(t, steps, "the first step")
	second := waitFor(t, steps, "the second step")
	if err := g.Stop(time.Minute); err != nil {
		t.Fatal(err)
	}
	got := spans.GetSpans()
	if len(got) != 2 {
		t.Fatalf("%d spans, want 2", len(got))
	}
	for i, want := range []trace.SpanContext{first, second} {
		s := got[i]
		if s.Name != "worker mail" || s.SpanContext.SpanID() != want.SpanID() || s.Parent.IsValid() {
			t.Errorf("span %d: %q %s under %s; the step ran in %s", i, s.Name, s.SpanContext.SpanID(), s.Parent.SpanID(), want.SpanID())
		}
		if !hasAttr(s.Attributes, attribute.String("storefront.worker", "mail")) || !hasAttr(s.Attributes, attribute.Bool("storefront.more", i == 0)) {
			t.Errorf("span %d attributes: %v", i, s.Attributes)
		}
	}
	if got[0].SpanContext.TraceID() == got[1].SpanContext.TraceID() {
		t.Error("two steps share a trace")
	}
	if got[1].Status.Code != codes.Error || got[0].Status.Code == codes.Error {
		t.Errorf("statuses %v, %v: the failed step is an error", got[0].Status, got[1].Status)
	}
}

func hasAttr(attrs []attribute.KeyValue, want attribute.KeyValue) bool {
	for _, a := range attrs {
		if a == want {
			return true
		}
	}
	return false
}
