package web

import (
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// traceContext reads and writes W3C traceparent/tracestate headers.
var traceContext = propagation.TraceContext{}

// traced makes each request a span of s.Tracer (docs/OPERATIONS.md#traces): a child of
// the caller's when the request carries a W3C traceparent, named by method and route
// template, with the request id; the handlers' context holds it. It is in the chain
// only when a Tracer is set.
func (s *Server) traced(c *gin.Context) {
	ctx := traceContext.Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
	rt := route(c)
	ctx, span := s.Tracer.Start(ctx, c.Request.Method+" "+rt, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(
			attribute.String("http.request.method", c.Request.Method),
			attribute.String("http.route", rt),
			attribute.String("storefront.request_id", c.GetString(ctxRequestID)),
		))
	// Deferred: a request aborted by a panic ends its span too.
	defer func() {
		status := c.Writer.Status()
		span.SetAttributes(attribute.Int("http.response.status_code", status))
		if k := requestAccount(c); k != 0 {
			span.SetAttributes(attribute.Int64("storefront.account_id", k))
		}
		if status >= 500 {
			span.SetStatus(codes.Error, "")
		}
		span.End()
	}()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}
