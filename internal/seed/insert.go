package seed

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"storefront/internal/shop"
)

// Limits of one multi-row INSERT: a statement must stay well under
// max_allowed_packet (16 MB by default on MariaDB).
const (
	maxRowsPerStmt = 1000
	maxStmtBytes   = 4 << 20
)

// table describes the columns the seeder writes into one table.
type table struct {
	name   string
	ncols  int
	prefix string // INSERT INTO name (cols) VALUES
}

func newTable(name string, cols ...string) *table {
	return &table{
		name:   name,
		ncols:  len(cols),
		prefix: "INSERT INTO " + name + " (" + strings.Join(cols, ", ") + ") VALUES ",
	}
}

// stmt is one multi-row INSERT ready to run, its values written in as SQL literals.
// The seeder writes them itself rather than handing the driver placeholders and
// arguments to interpolate: no value is boxed into an interface and kept until the
// chunk is written, which halved the garbage collector's work, and the text is made
// once.
type stmt struct {
	query string
}

// chunk is the unit of work handed from the generator to the writer: the statements
// of one transaction and what they hold.
type chunk struct {
	stmts []stmt
	rows  map[string]int64
	// purchases and subscribers count the generated objects, for progress reports.
	purchases, subscribers int
	// bought lists the purchases of the chunk by account, each as the read path
	// would read its rows back: their stored documents and rollups are written from
	// them in the chunk's transaction.
	bought map[int64][]*shop.Purchase
	// subscriberIDs lists the subscribers of the chunk by account, for their service
	// terms in the rollups.
	subscriberIDs map[int64][]int64
}

func newChunk() *chunk {
	return &chunk{rows: map[string]int64{}, bought: map[int64][]*shop.Purchase{}, subscriberIDs: map[int64][]int64{}}
}

func (c *chunk) addSubscriber(account, id int64) {
	c.subscriberIDs[account] = append(c.subscriberIDs[account], id)
}

func (c *chunk) addPurchase(p *shop.Purchase) {
	c.bought[p.AccountID] = append(c.bought[p.AccountID], p)
}

// batch gathers rows of one table into statements of bounded size, appending each
// full statement to its chunk.
type batch struct {
	t *table
	c *chunk
	// buf holds the statement being gathered: the table's prefix and rows rows.
	buf  []byte
	rows int
	// noBackslashEscapes writes string literals for a session whose sql_mode has
	// NO_BACKSLASH_ESCAPES (appendLiteral).
	noBackslashEscapes bool
}

func newBatch(t *table, noBackslashEscapes bool) *batch {
	return &batch{t: t, noBackslashEscapes: noBackslashEscapes}
}

// reset points the batch at a new chunk; the batch must have been flushed.
func (b *batch) reset(c *chunk) { b.c = c }

// add appends one row; len(vals) must equal the table's column count.
func (b *batch) add(vals ...any) {
	if len(vals) != b.t.ncols {
		panic("seed: " + b.t.name + ": wrong number of values")
	}
	if b.rows == 0 {
		b.buf = append(b.buf[:0], b.t.prefix...)
	} else {
		b.buf = append(b.buf, ',')
	}
	b.buf = append(b.buf, '(')
	for i, v := range vals {
		if i > 0 {
			b.buf = append(b.buf, ',')
		}
		b.buf = appendLiteral(b.buf, v, b.noBackslashEscapes)
	}
	b.buf = append(b.buf, ')')
	b.rows++
	if b.rows >= maxRowsPerStmt || len(b.buf) >= maxStmtBytes-64<<10 {
		b.flush()
	}
}

// flush turns the gathered rows into a statement of the current chunk.
func (b *batch) flush() {
	if b.rows == 0 {
		return
	}
	b.c.stmts = append(b.c.stmts, stmt{query: string(b.buf)})
	b.c.rows[b.t.name] += int64(b.rows)
	b.buf = b.buf[:0]
	b.rows = 0
}

// appendLiteral appends v as an SQL literal, as go-sql-driver/mysql interpolates an
// argument: NULL, a number, 1 or 0, a quoted DATETIME in UTC, or a quoted string,
// escaped with backslashes, or for a session with NO_BACKSLASH_ESCAPES by doubling
// its single quotes. It panics on other types: the generator writes no others.
func appendLiteral(buf []byte, v any, noBackslashEscapes bool) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, "NULL"...)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case int:
		return strconv.AppendInt(buf, int64(x), 10)
	case bool:
		if x {
			return append(buf, '1')
		}
		return append(buf, '0')
	case time.Time:
		buf = append(buf, '\'')
		buf = x.UTC().AppendFormat(buf, "2006-01-02 15:04:05.999999")
		return append(buf, '\'')
	case string:
		buf = append(buf, '\'')
		if noBackslashEscapes {
			for i := 0; i < len(x); i++ {
				if x[i] == '\'' {
					buf = append(buf, '\'')
				}
				buf = append(buf, x[i])
			}
			return append(buf, '\'')
		}
		for i := 0; i < len(x); i++ {
			switch c := x[i]; c {
			case 0:
				buf = append(buf, '\\', '0')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case 0x1a:
				buf = append(buf, '\\', 'Z')
			case '\'', '"', '\\':
				buf = append(buf, '\\', c)
			default:
				buf = append(buf, c)
			}
		}
		return append(buf, '\'')
	}
	panic(fmt.Sprintf("seed: no SQL literal for a %T", v))
}

// nullStr returns nil (NULL) for an empty optional text and the text otherwise.
func nullStr(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullTime returns nil for the zero time.
func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

// optStr is the read path's value of an optional text written as v (nil or a string).
func optStr(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}

// optMoney is the read path's value of an optional amount written as v (nil or the
// amount formatted in its currency's digits).
func optMoney(v any) *shop.Money {
	if s, ok := v.(string); ok {
		m := shop.Money(s)
		return &m
	}
	return nil
}

// optInt is the read path's value of an optional number written as v (nil or an int64).
func optInt(v any) *int64 {
	if n, ok := v.(int64); ok {
		return &n
	}
	return nil
}
