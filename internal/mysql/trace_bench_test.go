package mysql

import (
	"context"
	"database/sql/driver"
	"io"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkStatementTracing measures what tracing adds to one statement, without the
// database: a driver that answers every query with no rows at once, its pool opened as
// Open opens it (traced or not), a statement sent in a traced request's context.
//
//	go test -run '^$' -bench StatementTracing -benchmem ./internal/mysql
func BenchmarkStatementTracing(b *testing.B) {
	const query = "SELECT id, status FROM purchases WHERE account_id = ? AND id IN (?, ?, ?) ORDER BY id LIMIT 100"
	for _, traced := range []bool{false, true} {
		name := "off"
		if traced {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			defer tp.Shutdown(context.Background())
			var c openConfig
			ctx := context.Background()
			if traced {
				c.tracer = tp
				var end func()
				ctx, end = startRequest(ctx, tp)
				defer end()
			}
			db := c.openConnector(nullConnector{})
			defer db.Close()
			b.ReportAllocs()
			for b.Loop() {
				rows, err := db.QueryContext(ctx, query, 1, 2, 3, 4)
				if err != nil {
					b.Fatal(err)
				}
				rows.Close()
			}
		})
	}
}

func startRequest(ctx context.Context, tp *sdktrace.TracerProvider) (context.Context, func()) {
	ctx, span := tp.Tracer("bench").Start(ctx, "GET /api/v2/purchases")
	return ctx, func() { span.End() }
}

// nullConnector's connections answer every query with no rows.
type nullConnector struct{}

func (nullConnector) Connect(context.Context) (driver.Conn, error) { return nullConn{}, nil }
func (nullConnector) Driver() driver.Driver                        { return nil }

type nullConn struct{}

func (nullConn) Prepare(string) (driver.Stmt, error) { return nil, driver.ErrSkip }
func (nullConn) Close() error                        { return nil }
func (nullConn) Begin() (driver.Tx, error)           { return nil, driver.ErrSkip }
func (nullConn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	return nullRows{}, nil
}

type nullRows struct{}

func (nullRows) Columns() []string         { return []string{"id", "status"} }
func (nullRows) Close() error              { return nil }
func (nullRows) Next([]driver.Value) error { return io.EOF }
