package worker

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// A worker's traces: a span for each step when the worker has a Tracer, and spans for
// the pieces of work a step does (docs/OPERATIONS.md#traces).

// tracedStep runs the step in a span of its own when the worker has a Tracer.
func (w *Worker) tracedStep(ctx context.Context) (bool, error) {
	if w.opt.Tracer == nil {
		return w.safeStep(ctx)
	}
	sctx, span := w.opt.Tracer.Start(ctx, "worker "+w.name, trace.WithNewRoot(),
		trace.WithAttributes(attribute.String("storefront.worker", w.name)))
	more, err := w.safeStep(sctx)
	span.SetAttributes(attribute.Bool("storefront.more", more))
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
	return more, err
}

// StartSpan starts the span of one piece of a step's work (an e-mail sent, a webhook
// attempt): a child of the step's span in ctx, from the same tracer provider, linked to
// linkTo, the W3C traceparent that whoever queued the work stored with it (the request
// or step that wrote it; "" for none). When ctx holds no recording span it starts
// nothing and returns a span that records nothing.
func StartSpan(ctx context.Context, name, linkTo string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	step := trace.SpanFromContext(ctx)
	if !step.IsRecording() {
		return ctx, trace.SpanFromContext(context.Background())
	}
	if linkTo != "" {
		lctx := traceContext.Extract(context.Background(), propagation.MapCarrier{"traceparent": linkTo})
		if sc := trace.SpanContextFromContext(lctx); sc.IsValid() {
			opts = append(opts, trace.WithLinks(trace.Link{SpanContext: sc}))
		}
	}
	return step.TracerProvider().Tracer(tracerName).Start(ctx, name, opts...)
}

// tracerName names the spans' instrumentation scope.
const tracerName = "storefront"

// traceContext reads W3C traceparent values.
var traceContext = propagation.TraceContext{}
