package web_test

import (
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"storefront/web"
)

func TestTraces(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	e := newAPI(t, 0, func(s *web.Server) { s.Tracer = tp.Tracer("storefront") })
	var id string
	if err := e.db.QueryRow("SELECT id FROM purchases WHERE account_id = 1 ORDER BY id LIMIT 1").Scan(&id); err != nil {
		t.Fatal(err)
	}
	const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	req, _ := http.NewRequest(http.MethodGet, e.url+"/api/v2/purchases/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+e.ro)
	req.Header.Set("X-Request-Id", "traced-one")
	req.Header.Set("traceparent", parent)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	got := spans.GetSpans()
	if len(got) != 1 {
		t.Fatalf("%d spans, want 1", len(got))
	}
	s := got[0]
	if s.Name != "GET /api/v2/purchases/:id" || s.SpanKind != trace.SpanKindServer {
		t.Errorf("span %q of kind %v", s.Name, s.SpanKind)
	}
	// The caller's traceparent is honoured: the span is its child, in its trace.
	if s.SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent.SpanID().String() != "00f067aa0ba902b7" || !s.Parent.IsRemote() {
		t.Errorf("span in trace %s under %s (remote %v)", s.SpanContext.TraceID(), s.Parent.SpanID(), s.Parent.IsRemote())
	}
	attrs := map[attribute.Key]attribute.Value{}
	for _, a := range s.Attributes {
		attrs[a.Key] = a.Value
	}
	if attrs["storefront.request_id"].AsString() != "traced-one" || attrs["http.route"].AsString() != "/api/v2/purchases/:id" ||
		attrs["http.response.status_code"].AsInt64() != 200 || attrs["storefront.account_id"].AsInt64() != 1 {
		t.Errorf("span attributes: %v", s.Attributes)
	}
}
