package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strings"

	"github.com/XSAM/otelsql"
	lru "github.com/hashicorp/golang-lru/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// OpenOption changes how Open and OpenReplica connect.
type OpenOption func(*openConfig)

type openConfig struct {
	tracer trace.TracerProvider
}

// WithTracing makes every statement sent in a traced context (a request's, a background
// step's) a span of tp, a child of the context's span (docs/OPERATIONS.md#traces). The
// spans carry the statement's shape (db.query.text: its text with every literal and
// argument a ?, lists of ? folded), never a value. Without this option the pool talks to
// the driver directly: tracing off costs nothing.
func WithTracing(tp trace.TracerProvider) OpenOption {
	return func(c *openConfig) { c.tracer = tp }
}

func openOptions(opts []OpenOption) openConfig {
	var c openConfig
	for _, o := range opts {
		o(&c)
	}
	return c
}

// openPool opens a pool on the driver SQLDriver, traced when c says so.
func (c openConfig) openPool(dsn string) (*sql.DB, error) {
	if c.tracer == nil {
		return sql.Open(SQLDriver, dsn)
	}
	return otelsql.Open(SQLDriver, dsn, c.otelsqlOptions()...)
}

// openConnector opens a pool on connector, traced when c says so.
func (c openConfig) openConnector(connector driver.Connector) *sql.DB {
	if c.tracer == nil {
		return sql.OpenDB(connector)
	}
	return otelsql.OpenDB(connector, c.otelsqlOptions()...)
}

func (c openConfig) otelsqlOptions() []otelsql.Option {
	return []otelsql.Option{
		otelsql.WithTracerProvider(c.tracer),
		// The pool's figures are Prometheus's (Collector), not OpenTelemetry's.
		otelsql.WithMeterProvider(noop.NewMeterProvider()),
		otelsql.WithSpanOptions(otelsql.SpanOptions{
			// The query text is replaced by its shape (statementAttributes).
			DisableQuery:         true,
			DisableErrSkip:       true,
			OmitRows:             true,
			OmitConnResetSession: true,
			OmitConnPrepare:      true,
			// Statements outside any traced work (a metrics scrape, migrations at
			// start) would each be a trace of their own: they are left out.
			SpanFilter: func(ctx context.Context, _ otelsql.Method, _ string, _ []driver.NamedValue) bool {
				return trace.SpanContextFromContext(ctx).IsValid()
			},
		}),
		otelsql.WithSpanNameFormatter(spanName),
		otelsql.WithAttributesGetter(statementAttributes),
		otelsql.WithAttributes(attribute.String("db.system.name", "mariadb")),
	}
}

// spanName names a statement's span by its operation and first table
// ("SELECT purchases"), as OpenTelemetry's database conventions do; a transaction's
// begin, commit and rollback by those words.
func spanName(_ context.Context, method otelsql.Method, query string) string {
	switch method {
	case otelsql.MethodConnBeginTx:
		return "BEGIN"
	case otelsql.MethodTxCommit:
		return "COMMIT"
	case otelsql.MethodTxRollback:
		return "ROLLBACK"
	case otelsql.MethodConnectorConnect:
		return "connect"
	case otelsql.MethodConnPing:
		return "ping"
	}
	op, table := operation(query)
	if table != "" {
		return op + " " + table
	}
	if op == "" {
		return string(method)
	}
	return op
}

func statementAttributes(_ context.Context, method otelsql.Method, query string, _ []driver.NamedValue) []attribute.KeyValue {
	if query == "" {
		return nil
	}
	attrs := []attribute.KeyValue{attribute.String("db.query.text", StatementShape(query))}
	if op, table := operation(query); table != "" {
		attrs = append(attrs, attribute.String("db.collection.name", table))
	} else if op != "" {
		attrs = append(attrs, attribute.String("db.operation.name", op))
	}
	return attrs
}

// operation returns a statement's first word in capitals and the table it names first
// (after INTO, UPDATE or FROM); "" when it names none.
func operation(query string) (op, table string) {
	words := strings.Fields(query)
	if len(words) == 0 {
		return "", ""
	}
	op = strings.ToUpper(words[0])
	after := "FROM"
	switch op {
	case "INSERT", "REPLACE":
		after = "INTO"
	case "UPDATE":
		if len(words) > 1 {
			return op, identifier(words[1])
		}
		return op, ""
	case "SELECT", "DELETE", "WITH":
	default:
		return op, ""
	}
	for i, w := range words[:len(words)-1] {
		if strings.EqualFold(w, after) {
			if t := identifier(words[i+1]); t != "" {
				return op, t
			}
		}
	}
	return op, ""
}

// identifier returns w when it is a table name (unquoted), else "".
func identifier(w string) string {
	w = strings.Trim(w, "`")
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !(c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return ""
		}
	}
	return w
}

// traceParent is the W3C traceparent of ctx's span, to store with work queued in ctx
// (an e-mail, a webhook event) so that the span that does the work links to it; nil
// (NULL) when ctx is not traced.
func traceParent(ctx context.Context) any {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	h := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, h)
	if p := h["traceparent"]; p != "" {
		return p
	}
	return nil
}

// maxShape bounds the length of a statement's shape.
const maxShape = 2048

// shapes remembers the shapes of the statements seen most recently: the program sends
// the same texts again and again.
var shapes, _ = lru.New[string, string](2048)

// StatementShape returns query as its span shows it: every string or number literal
// replaced by ?, every list of ? (an IN list, a row of VALUES) folded to one ?, and
// repeated rows folded to one, blanks collapsed, at most 2 KiB. Arguments are never in
// the text (the driver sends them apart or writes them in below database/sql), and
// the literals the program writes itself are replaced too, so no value can show.
func StatementShape(query string) string {
	if len(query) <= 4096 {
		if s, ok := shapes.Get(query); ok {
			return s
		}
	}
	s := shape(query)
	if len(query) <= 4096 {
		shapes.Add(query, s)
	}
	return s
}

func shape(q string) string {
	var b strings.Builder
	b.Grow(len(q))
	space := false
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = true
			continue
		case c == '\'' || c == '"':
			// A string literal: to its closing quote, past \-escapes and doubled quotes.
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == '\\' {
					j++
				} else if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						j++
						continue
					}
					break
				}
			}
			i = j
			c = '?'
		case c >= '0' && c <= '9' && (space || !identTail(b.String())):
			// A number literal (not a digit inside a name such as t1).
			for i+1 < len(q) && (isAlnum(q[i+1]) || q[i+1] == '.') {
				i++
			}
			c = '?'
		case c == '`':
			// A quoted name is kept as it is.
			end := len(q)
			if j := strings.IndexByte(q[i+1:], '`'); j >= 0 {
				end = i + 1 + j + 1
			}
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = false
			b.WriteString(q[i:end])
			i = end - 1
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteByte(c)
	}
	s := b.String()
	// Fold lists: "?, ?, ?" → "?", then "(?), (?)" → "(?)".
	for _, fold := range [][2]string{{"?, ?", "?"}, {"?,?", "?"}, {"(?), (?)", "(?)"}, {"(?),(?)", "(?)"}} {
		for strings.Contains(s, fold[0]) {
			s = strings.ReplaceAll(s, fold[0], fold[1])
		}
	}
	if len(s) > maxShape {
		s = strings.ToValidUTF8(s[:maxShape], "") + " …"
	}
	return s
}

func isAlnum(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// identTail reports whether s ends inside a name, so that a digit continues it.
func identTail(s string) bool {
	return s != "" && (isAlnum(s[len(s)-1]) || s[len(s)-1] == '$')
}
