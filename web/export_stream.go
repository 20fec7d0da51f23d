package web

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/shop"
)

// The stream that carries an export to the client, and the record of it in the
// account's activity.

// exportJob is one export: whose, what, and where its rows go.
type exportJob struct {
	accountID int64
	loc       *time.Location
	now       time.Time
	actor     string
	// what names the file's rows in the activity: purchases, line_items or subscribers.
	what string
	// filters is the query the rows were selected by, as sent.
	filters      string
	storefrontID int64
	// storefronts, in an export of every storefront's subscribers, holds the
	// account's storefronts by id: its rows end with the storefront's.
	storefronts map[int64]*shop.Storefront
	filename    string
	header      []string
}

// csvStream writes an export: nothing until its first rows (so that an error found
// before them is still an ordinary answer), then the headers, the header row and each
// batch, flushed as it is written.
type csvStream struct {
	c       *gin.Context
	rc      *http.ResponseController
	job     *exportJob
	rec     csvRecords
	started bool
	rows    int64
	// names is the products cell being built.
	names []byte
}

// csvFlushSize is how many bytes of records are gathered before they are written to
// the connection's buffer.
const csvFlushSize = 32 << 10

// exportWriteWindow is how long a batch of an export may take to reach the client: an
// export lasts as long as its rows take, so the server's whole-request timeouts give
// way to this one, renewed at every batch. A client that reads nothing for this long
// is dropped.
const exportWriteWindow = time.Minute

func newCSVStream(c *gin.Context, job *exportJob) *csvStream {
	st := &csvStream{c: c, rc: http.NewResponseController(c.Writer), job: job}
	// A GET has no body left to read: the server's read timeout, counted from the
	// request's start, would otherwise end a long export (the connection's pending
	// read fails and cancels the request). Servers without deadlines (tests) say so.
	_ = st.rc.SetReadDeadline(time.Time{})
	_ = st.rc.SetWriteDeadline(time.Now().Add(exportWriteWindow))
	return st
}

func (st *csvStream) start() error {
	if st.started {
		return nil
	}
	st.started = true
	h := st.c.Writer.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+st.job.filename+`"`)
	h.Set("Cache-Control", "no-store")
	st.c.Status(http.StatusOK)
	st.rec.b = make([]byte, 0, csvFlushSize+4<<10)
	st.rec.record(st.job.header)
	return nil
}

// ended counts the record just ended and hands the records gathered so far on to the
// connection once they are csvFlushSize bytes.
func (st *csvStream) ended() error {
	st.rows++
	if len(st.rec.b) < csvFlushSize {
		return nil
	}
	return st.write()
}

// write hands the records gathered so far on to the connection.
func (st *csvStream) write() error {
	if len(st.rec.b) == 0 {
		return nil
	}
	_, err := st.c.Writer.Write(st.rec.b)
	st.rec.b = st.rec.b[:0]
	return err
}

// flush sends what was written so far.
func (st *csvStream) flush() error {
	if err := st.write(); err != nil {
		return err
	}
	st.c.Writer.Flush()
	_ = st.rc.SetWriteDeadline(time.Now().Add(exportWriteWindow))
	return nil
}

// finish ends an export that ran to its end or failed. An error before the first byte
// is returned for the adapter to answer as usual; after it, the connection is aborted
// without the final chunk, so that the client sees a failed download rather than a
// file that looks complete. Either way the export is recorded in the account's
// activity.
func (s *Server) finishExport(c *gin.Context, st *csvStream, err error) error {
	if err == nil && !st.started {
		err = st.start()
	}
	if err == nil {
		err = st.flush()
	}
	s.recordExport(c, st, err == nil)
	if s.Metrics != nil {
		s.Metrics.exportRows.WithLabelValues(st.job.what).Add(float64(st.rows))
	}
	if err == nil {
		return nil
	}
	if !st.started {
		return err
	}
	if c.Request.Context().Err() != nil {
		s.Logger.Info("export stopped: the client went away", "request_id", c.GetString(ctxRequestID), "path", c.Request.URL.Path, "rows", st.rows)
	} else {
		s.Logger.Error("export failed after its first bytes", "request_id", c.GetString(ctxRequestID), "path", c.Request.URL.Path, "rows", st.rows, "err", err)
	}
	panic(http.ErrAbortHandler)
}

// recordExport adds the export to the account's activity: who, which filters, how many
// rows, and whether the file was complete.
func (s *Server) recordExport(c *gin.Context, st *csvStream, complete bool) {
	if s.Activity == nil {
		return
	}
	j := st.job
	b, _ := json.Marshal(exportActivity{What: j.what, Filters: j.filters, Rows: st.rows, Complete: complete, StorefrontID: j.storefrontID})
	// The entry is written even when the client has gone away.
	ctx := context.WithoutCancel(c.Request.Context())
	a := shop.Activity{Actor: j.actor, Action: shop.ActionExport, Details: string(b), CreatedAt: shop.NewTime(s.now())}
	if err := s.Activity.RecordAccountActivity(ctx, j.accountID, a); err != nil {
		s.Logger.Error("record export", "request_id", c.GetString(ctxRequestID), "err", err)
	}
}
