package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
	"storefront/web"
)

func TestTraces(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	e := newAPI(t, 0, func(s *web.Server) { s.Tracer = tp.Tracer("storefront") })
	var id string
	if err := e.db.QueryRow("SELECT id FROM purchases WHERE account_id = ? ORDER BY id LIMIT 1", e.id(1)).Scan(&id); err != nil {
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
		attrs["http.response.status_code"].AsInt64() != 200 || attrs["storefront.account_id"].AsInt64() != e.id(1) {
		t.Errorf("span attributes: %v", s.Attributes)
	}
}

// A reactivation from the dashboard is one trace of the handler's span and its
// statements; the e-mail it queued is sent by a step of the mail worker, whose span links
// to the handler's. No span shows a value: the address typed is in none.
func TestTraces_Reactivation(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	db, err := mysql.Open(context.Background(), dbtest.DSN(t), mysql.WithTracing(tp))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	tracer := tp.Tracer("storefront")
	e := newAPIOn(t, db, tracer, 0, func(s *web.Server) { s.Tracer = tracer })
	staff := e.signIn(e.id(1), "staff")
	id := e.purchaseWithStatus("ERR", map[int64]bool{})
	const to = "traced-reactivation@example.org"
	if r := staff.post(fmt.Sprintf("/purchases/%d/reactivate", id), url.Values{"customer_email": {to}}); r.status != http.StatusSeeOther {
		t.Fatalf("reactivation: got %d %s", r.status, r.body)
	}
	e.waitMailTo(to, 0)

	// The e-mail's span ends once the outbox has recorded the delivery, its step's
	// span after it.
	var handler, send sdktrace.ReadOnlySpan
	var all []sdktrace.ReadOnlySpan
	byID := map[trace.SpanID]sdktrace.ReadOnlySpan{}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		all = spans.GetSpans().Snapshots()
		handler, send = nil, nil
		for _, s := range all {
			byID[s.SpanContext().SpanID()] = s
			if s.Name() == "POST /purchases/:id/reactivate" {
				handler = s
			}
		}
		for _, s := range all {
			if s.Name() == "email send" && handler != nil && len(s.Links()) == 1 && s.Links()[0].SpanContext.SpanID() == handler.SpanContext().SpanID() {
				send = s
			}
		}
		if send != nil {
			if _, ok := byID[send.Parent().SpanID()]; ok {
				break
			}
		}
	}
	if handler == nil || send == nil {
		t.Fatalf("handler span %v, e-mail span linked to it %v", handler != nil, send != nil)
	}
	if handler.SpanKind() != trace.SpanKindServer {
		t.Errorf("handler span of kind %v", handler.SpanKind())
	}
	// under reports whether s descends from the span top.
	under := func(s, top sdktrace.ReadOnlySpan) bool {
		for p := s.Parent(); p.IsValid(); {
			if p.SpanID() == top.SpanContext().SpanID() {
				return true
			}
			ps, ok := byID[p.SpanID()]
			if !ok {
				return false
			}
			p = ps.Parent()
		}
		return false
	}
	statements := func(top sdktrace.ReadOnlySpan) map[string]string {
		out := map[string]string{}
		for _, s := range all {
			if !under(s, top) {
				continue
			}
			for _, a := range s.Attributes() {
				if a.Key == "db.query.text" {
					out[s.Name()] = a.Value.AsString()
					if s.SpanContext().TraceID() != top.SpanContext().TraceID() || s.SpanKind() != trace.SpanKindClient {
						t.Errorf("statement span %q in trace %s of kind %v", s.Name(), s.SpanContext().TraceID(), s.SpanKind())
					}
				}
			}
		}
		return out
	}
	// The handler's statements: the purchase read and updated, the e-mail queued.
	reqSQL := statements(handler)
	for _, name := range []string{"SELECT purchases", "UPDATE purchases", "INSERT email_outbox"} {
		if _, ok := reqSQL[name]; !ok {
			t.Errorf("no %q statement under the handler's span; got %v", name, reqSQL)
		}
	}
	if q := reqSQL["INSERT email_outbox"]; !strings.Contains(q, "VALUES (?)") {
		t.Errorf("the e-mail's INSERT shows %q, not its shape", q)
	}
	// The e-mail step: a worker step's span, the e-mail's span under it, the
	// composer's statements under that.
	step, ok := byID[send.Parent().SpanID()]
	if !ok || step.Name() != "worker "+mysql.WorkEmails {
		t.Fatalf("the e-mail's span is not under a step of the mail worker (%v)", send.Parent())
	}
	if send.Links()[0].SpanContext.TraceID() != handler.SpanContext().TraceID() {
		t.Error("the e-mail's link names another trace")
	}
	if len(statements(send)) == 0 {
		t.Error("no statement under the e-mail's span")
	}
	// Values never show: neither the address typed nor the purchase's id as text.
	for _, s := range all {
		for _, a := range s.Attributes() {
			if v := a.Value.Emit(); strings.Contains(v, to) || (a.Key == "db.query.text" && strings.Contains(v, strconv.FormatInt(id, 10))) {
				t.Errorf("span %q shows a value: %s=%s", s.Name(), a.Key, v)
			}
		}
	}
}
