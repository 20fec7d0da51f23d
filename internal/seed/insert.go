package seed

import (
	"strings"
	"time"

	"storefront/internal/shop"
)

// Limits of one multi-row INSERT. MySQL's prepared statements take at most 65,535
// placeholders, which matters when the driver does not interpolate; and a statement
// must stay well under max_allowed_packet (16 MB by default on MariaDB).
const (
	maxRowsPerStmt   = 1000
	maxParamsPerStmt = 65535
	maxStmtBytes     = 4 << 20
)

// table describes the columns the seeder writes into one table.
type table struct {
	name    string
	ncols   int
	prefix  string // INSERT INTO name (cols) VALUES
	row     string // (?,?,...,?)
	maxRows int
}

func newTable(name string, cols ...string) *table {
	t := &table{
		name:   name,
		ncols:  len(cols),
		prefix: "INSERT INTO " + name + " (" + strings.Join(cols, ", ") + ") VALUES ",
		row:    "(" + strings.TrimSuffix(strings.Repeat("?,", len(cols)), ",") + ")",
	}
	t.maxRows = min(maxRowsPerStmt, maxParamsPerStmt/len(cols))
	return t
}

// stmt is one multi-row INSERT ready to run.
type stmt struct {
	query string
	args  []any
}

// chunk is the unit of work handed from the generator to the writer: the statements
// of one transaction and what they hold.
type chunk struct {
	stmts []stmt
	rows  map[string]int64
	// purchases and subscribers count the generated objects, for progress reports.
	purchases, subscribers int
	// purchases lists the purchases of the chunk by account, each as the read path
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

// purchaseIDs returns the ids of the chunk's purchases of an account.
func (c *chunk) purchaseIDs(account int64) []int64 {
	ps := c.bought[account]
	ids := make([]int64, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids
}

// batch gathers rows of one table into statements of bounded size, appending each
// full statement to its chunk.
type batch struct {
	t     *table
	c     *chunk
	args  []any
	rows  int
	bytes int
}

func newBatch(t *table) *batch { return &batch{t: t} }

// reset points the batch at a new chunk; the batch must have been flushed.
func (b *batch) reset(c *chunk) { b.c = c }

// add appends one row; len(vals) must equal the table's column count.
func (b *batch) add(vals ...any) {
	if len(vals) != b.t.ncols {
		panic("seed: " + b.t.name + ": wrong number of values")
	}
	for _, v := range vals {
		b.bytes += valueBytes(v)
	}
	b.args = append(b.args, vals...)
	b.rows++
	if b.rows >= b.t.maxRows || b.bytes >= maxStmtBytes-64<<10 {
		b.flush()
	}
}

// flush turns the gathered rows into a statement of the current chunk.
func (b *batch) flush() {
	if b.rows == 0 {
		return
	}
	var sb strings.Builder
	sb.Grow(len(b.t.prefix) + b.rows*(len(b.t.row)+1))
	sb.WriteString(b.t.prefix)
	for i := 0; i < b.rows; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(b.t.row)
	}
	b.c.stmts = append(b.c.stmts, stmt{query: sb.String(), args: b.args})
	b.c.rows[b.t.name] += int64(b.rows)
	b.args = make([]any, 0, cap(b.args))
	b.rows, b.bytes = 0, 0
}

// valueBytes estimates how many bytes a value takes in the interpolated statement,
// counting every character of a string twice in case it needs escaping.
func valueBytes(v any) int {
	switch x := v.(type) {
	case string:
		return 2*len(x) + 4
	case time.Time:
		return 24
	case nil:
		return 5
	default:
		return 22
	}
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
