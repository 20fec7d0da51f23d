package dbtest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"storefront/internal/mysql"
)

// RecordEnv names the file that a test binary appends every statement it sends to
// when set: one JSON object a line (Statement). tools/vtcheck plans them on Vitess.
const RecordEnv = "STOREFRONT_RECORD_SQL"

// Statement is one recorded statement.
type Statement struct {
	// Query is the text sent, with ? for each argument.
	Query string `json:"query"`
	// SQL is the same with the arguments of its first use written in.
	SQL string `json:"sql"`
	// Kind is "request" (sent while a Gin handler ran) or "background" (sent by a
	// goroutine that the program, not the test, started).
	Kind string `json:"kind"`
	// Origin is, for a request, the innermost function of the program on the stack
	// (the data layer's method); for background work, the outermost (what started it).
	Origin string `json:"origin"`
}

const recordingDriver = "mysql-recording"

func init() {
	path := os.Getenv(RecordEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		panic(fmt.Sprintf("%s: %v", RecordEnv, err))
	}
	rec := &recorder{f: f, seen: map[string]bool{}}
	sql.Register(recordingDriver, &recDriver{rec: rec})
	mysql.SQLDriver = recordingDriver
}

type recorder struct {
	mu   sync.Mutex
	f    *os.File
	seen map[string]bool
}

// requestKey is the context key of AsRequest's origin.
type requestKey struct{}

// AsRequest returns a context whose statements are recorded as request statements of
// the given origin, wherever they are sent from: for a test that sends, outside any
// handler, the statements the server would send while serving a request (the
// enumerated statement shapes of the list planners).
func AsRequest(ctx context.Context, origin string) context.Context {
	return context.WithValue(ctx, requestKey{}, origin)
}

// record writes query once per kind and origin. Statements that the test itself sends
// (its fixtures, outside any handler or program goroutine, unless sent with an
// AsRequest context) and schema migrations are left out.
func (r *recorder) record(ctx context.Context, query string, args []driver.NamedValue) {
	kind, origin := "request", ""
	if o, ok := ctx.Value(requestKey{}).(string); ok {
		origin = o
	} else {
		kind, origin = classify()
	}
	if kind == "" {
		return
	}
	key := kind + "\x00" + origin + "\x00" + query
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen[key] {
		return
	}
	r.seen[key] = true
	line, _ := json.Marshal(Statement{Query: query, SQL: interpolate(query, args), Kind: kind, Origin: origin})
	_, _ = r.f.Write(append(line, '\n'))
}

// backgroundWork are the data layer's methods that only background workers call (the
// e-mail sender, the webhook deliverer and the PAST_DUE sweeper); what they send is recorded as background
// even when a test calls them itself.
var backgroundWork = []string{
	"storefront/internal/mysql.(*Outbox).ClaimEmails",
	"storefront/internal/mysql.(*Outbox).MarkEmailSent",
	"storefront/internal/mysql.(*Outbox).RetryEmail",
	"storefront/internal/mysql.(*Outbox).FailEmail",
	"storefront/internal/mysql.(*Outbox).RenewEmails",
	"storefront/internal/mysql.(*Outbox).ReleaseEmail",
	"storefront/internal/mysql.(*Outbox).HurryEmails",
	"storefront/internal/mysql.(*WebhookDeliveryStore).ClaimDeliveries",
	"storefront/internal/mysql.(*WebhookDeliveryStore).RenewDeliveries",
	"storefront/internal/mysql.(*WebhookDeliveryStore).RecordAttempts",
	"storefront/internal/mysql.(*DB).ClosePastDue",
}

// requestWork are the data layer's methods that the server calls while it serves a
// request, which the web tests run in a configuration that does not call them (the
// shared rate limit, the replica's read fences); what they send is recorded as request
// statements when the data layer's own tests call them.
var requestWork = []string{
	"storefront/internal/mysql.(*DB).TakeTokens",
	"storefront/internal/mysql.(*DB).RecordReadFences",
	"storefront/internal/mysql.(*ReadRouter).pick",
}

// classify reads the caller's stack.
func classify() (kind, origin string) {
	pcs := make([]uintptr, 128)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	request := false
	job, served := "", ""
	var inner, outer runtime.Frame
	for {
		f, more := frames.Next()
		switch {
		case strings.HasPrefix(f.Function, "github.com/gin-gonic/gin."):
			request = true
		case strings.Contains(f.Function, "storefront/internal/mysql.(*DB).Migrate"),
			strings.Contains(f.Function, "storefront/internal/mysql.(*DB).Ready"):
			// The schema's administration: the migration record is the database's own
			// (each shard's under Vitess, migrated shard by shard), read by an instance's
			// readiness probe for no account.
			return "", ""
		case slices.Contains(backgroundWork, f.Function):
			job = f.Function
		case slices.Contains(requestWork, f.Function):
			served = f.Function
		case strings.HasPrefix(f.Function, "storefront/") && !strings.HasPrefix(f.Function, "storefront/internal/dbtest."):
			if inner.Function == "" {
				inner = f
			}
			outer = f
		}
		if !more {
			break
		}
	}
	if request {
		return "request", trimFunc(inner.Function)
	}
	if job != "" {
		return "background", trimFunc(job)
	}
	if served != "" {
		return "request", trimFunc(served)
	}
	if outer.Function == "" || strings.HasSuffix(outer.File, "_test.go") {
		return "", ""
	}
	return "background", trimFunc(outer.Function)
}

func trimFunc(s string) string { return strings.TrimPrefix(s, "storefront/") }

// interpolate writes the arguments into query as MySQL literals.
func interpolate(query string, args []driver.NamedValue) string {
	if len(args) == 0 {
		return query
	}
	var b strings.Builder
	i := 0
	for _, c := range []byte(query) {
		if c != '?' || i >= len(args) {
			b.WriteByte(c)
			continue
		}
		b.WriteString(literal(args[i].Value))
		i++
	}
	return b.String()
}

func literal(v driver.Value) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		if v {
			return "1"
		}
		return "0"
	case time.Time:
		return "'" + v.UTC().Format("2006-01-02 15:04:05.999999") + "'"
	case []byte:
		return "X'" + hex.EncodeToString(v) + "'"
	case string:
		r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\x00", `\0`, "\n", `\n`, "\r", `\r`)
		return "'" + r.Replace(v) + "'"
	default:
		return fmt.Sprintf("'%v'", v)
	}
}

// The driver, its connections and statements hand everything to go-sql-driver/mysql,
// recording each statement first.

type recDriver struct{ rec *recorder }

func (d *recDriver) Open(dsn string) (driver.Conn, error) {
	c, err := gomysql.MySQLDriver{}.Open(dsn)
	if err != nil {
		return nil, err
	}
	return &recConn{DriverConn: mysql.DriverConn{Conn: c}, rec: d.rec}, nil
}

type recConn struct {
	mysql.DriverConn
	rec *recorder
}

func (c *recConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	s, err := c.DriverConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &recStmt{Stmt: s, query: query, rec: c.rec}, nil
}

func (c *recConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.DriverConn.ExecContext(ctx, query, args)
	if err != driver.ErrSkip {
		c.rec.record(ctx, query, args)
	}
	return r, err
}

func (c *recConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.DriverConn.QueryContext(ctx, query, args)
	if err != driver.ErrSkip {
		c.rec.record(ctx, query, args)
	}
	return r, err
}

type recStmt struct {
	driver.Stmt
	query string
	rec   *recorder
}

func (s *recStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.rec.record(ctx, s.query, args)
	return s.Stmt.(driver.StmtExecContext).ExecContext(ctx, args)
}

func (s *recStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.rec.record(ctx, s.query, args)
	return s.Stmt.(driver.StmtQueryContext).QueryContext(ctx, args)
}

func (s *recStmt) CheckNamedValue(nv *driver.NamedValue) error {
	if c, ok := s.Stmt.(driver.NamedValueChecker); ok {
		return c.CheckNamedValue(nv)
	}
	return driver.ErrSkip
}
