package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// auditCSVBatch is how many records the audit log's CSV reads at a time.
const auditCSVBatch = 500

// auditRequest checks a request for the audit log's page or CSV: only the account's
// owners see the log, and there must be one. It returns the request's query with the
// form's stray blanks trimmed (the API reads its parameters as sent).
func (s *Server) auditRequest(c *gin.Context) (url.Values, error) {
	if u := currentUser(c); u == nil || !u.IsOwner() {
		return nil, shop.Errorf(shop.EForbidden, "Only the account's owners can see the audit log.")
	}
	if s.Audit == nil {
		return nil, shop.Errorf(shop.ENotFound, "There is no audit log here.")
	}
	q := c.Request.URL.Query()
	for _, name := range []string{"actor", "action", "date_min", "date_max"} {
		if vs, ok := q[name]; ok {
			for i := range vs {
				vs[i] = strings.TrimSpace(vs[i])
			}
		}
	}
	return q, nil
}

// auditPage is Account → Audit log: the owner's view of the audit records, filtered
// and paged newest first (docs/SECURITY.md#audit-records).
func (s *Server) auditPage(c *gin.Context) error {
	q, err := s.auditRequest(c)
	if err != nil {
		return err
	}
	loc, now := s.zone(c), s.now()
	v := templates.AuditView{Chrome: s.chrome(c, "Audit log", "account"),
		Actor: q.Get("actor"), Action: q.Get("action"), DateMin: q.Get("date_min"), DateMax: q.Get("date_max")}
	v.DateMinHint, v.DateMaxHint = dateHint(v.DateMin, now, loc), dateHint(v.DateMax, now, loc)
	for _, a := range shop.AuditActions {
		v.Actions = append(v.Actions, templates.Option{Value: a.Name, Label: a.Label, Selected: a.Name == v.Action})
	}
	f, err := filter.Audit(q, currentAccount(c).ID, now, loc)
	if err != nil {
		var se *shop.Error
		if !errors.As(err, &se) {
			return err
		}
		v.Error, v.ErrorParam = se.Message, se.Param
		return write(c, http.StatusBadRequest, templates.Audit(v))
	}
	recs, next, err := s.Audit.FindAuditRecords(c.Request.Context(), f)
	if err != nil {
		return err
	}
	for _, r := range recs {
		v.Rows = append(v.Rows, templates.AuditRow{ID: r.ID, When: templates.FormatTime(r.CreatedAt.Time, loc), WhenISO: r.CreatedAt.UTC().Format(time.RFC3339),
			Actor: r.Actor, ActorKind: r.ActorKind(), Action: shop.AuditActionLabel(r.Action), Details: r.Details, Address: r.Address, UserAgent: r.UserAgent})
	}
	first := url.Values{}
	for _, name := range []string{"actor", "action", "date_min", "date_max", "per_page"} {
		if val := q.Get(name); val != "" {
			first.Set(name, val)
		}
	}
	if next != nil {
		older := cloneValues(first)
		older.Set("cursor", filter.EncodeCursor(*next, filter.KindAudit, true))
		v.OlderURL = "/account/audit?" + older.Encode()
	}
	if f.After != nil {
		v.NewestURL = "/account/audit"
		if len(first) > 0 {
			v.NewestURL += "?" + first.Encode()
		}
	}
	v.CSVURL = "/account/audit.csv"
	if q.Get("cursor") != "" {
		first.Set("cursor", q.Get("cursor"))
	}
	if len(first) > 0 {
		v.CSVURL += "?" + first.Encode()
	}
	return render(c, templates.Audit(v))
}

// auditCSV answers Account → Audit log's Export CSV: the records the page's filter
// selects, from the page's cursor on, newest first, each row the page's row.
func (s *Server) auditCSV(c *gin.Context) error {
	q, err := s.auditRequest(c)
	if err != nil {
		return err
	}
	loc, now := s.zone(c), s.now()
	// per_page is read, and checked, as the page reads it: the file holds every page.
	f, err := filter.Audit(q, currentAccount(c).ID, now, loc)
	if err != nil {
		return err
	}
	return s.writeAuditCSV(c.Request.Context(), c, f, loc, exportName("audit-log", now, loc))
}

// auditCSVHeader names the columns of the audit log's CSV.
var auditCSVHeader = []string{"id", "created_at", "actor_type", "actor", "action", "details", "address", "user_agent"}

// writeAuditCSV streams every record f selects, auditCSVBatch at a time.
func (s *Server) writeAuditCSV(ctx context.Context, c *gin.Context, f shop.AuditFilter, loc *time.Location, filename string) error {
	f.PerPage = auditCSVBatch
	recs, next, err := s.Audit.FindAuditRecords(ctx, f)
	if err != nil {
		return err
	}
	c.Header("Content-Type", "text/csv; charset=utf-8")
	c.Header("Content-Disposition", `attachment; filename="`+filename+`"`)
	c.Header("Cache-Control", "no-store")
	c.Status(http.StatusOK)
	var out csvRecords
	out.record(auditCSVHeader)
	for {
		for _, r := range recs {
			out.int(r.ID)
			out.time(r.CreatedAt.Time, loc)
			out.text(r.ActorKind())
			out.safeText(r.Actor)
			out.text(r.Action)
			out.safeText(r.Details)
			out.safeText(r.Address)
			out.safeText(r.UserAgent)
			out.end()
		}
		if _, err := c.Writer.Write(out.b); err != nil {
			return nil // the client has gone
		}
		out.b = out.b[:0]
		if next == nil {
			return nil
		}
		f.After = next
		if recs, next, err = s.Audit.FindAuditRecords(ctx, f); err != nil {
			// The status is sent: the file ends short, as a failed export's does.
			s.Logger.Error("audit log CSV", "request_id", c.GetString(ctxRequestID), "err", err)
			return nil
		}
	}
}

// auditJSON is a record as GET /api/v2/audit answers it (docs/API.md#audit-record).
type auditJSON struct {
	ID        int64  `json:"id"`
	CreatedAt int64  `json:"created_at"`
	ActorType string `json:"actor_type"`
	Actor     string `json:"actor"`
	UserID    nullID `json:"user_id"`
	APIKeyID  nullID `json:"api_key_id"`
	Action    string `json:"action"`
	Details   string `json:"details"`
	Address   string `json:"address"`
	UserAgent string `json:"user_agent"`
}

// auditRecordJSON is r as GET /api/v2/audit answers it.
func auditRecordJSON(r shop.AuditRecord) auditJSON {
	return auditJSON{ID: r.ID, CreatedAt: r.CreatedAt.Unix(), ActorType: r.ActorKind(), Actor: r.Actor,
		UserID: nullID(r.UserID), APIKeyID: nullID(r.APIKeyID), Action: r.Action, Details: r.Details, Address: r.Address, UserAgent: r.UserAgent}
}

// auditAPI answers GET /api/v2/audit to a key with the audit scope: one page of the
// account's audit records, newest first, with Link when more follow.
func (s *Server) auditAPI(c *gin.Context) error {
	key := apiKey(c)
	if key.Scope != shop.ScopeAudit {
		return shop.Errorf(shop.EForbidden, "Reading the audit log needs an API key with the audit scope.")
	}
	if s.Audit == nil {
		return shop.Errorf(shop.ENotFound, "There is no audit log here.")
	}
	f, err := filter.Audit(c.Request.URL.Query(), key.AccountID, s.now(), s.location(key.Timezone))
	if err != nil {
		return err
	}
	recs, next, err := s.Audit.FindAuditRecords(c.Request.Context(), f)
	if err != nil {
		return err
	}
	out := make([]auditJSON, 0, len(recs))
	for _, r := range recs {
		out = append(out, auditRecordJSON(r))
	}
	s.listHeaders(c, next, filter.KindAudit, true, -1)
	c.Header("Cache-Control", "no-store")
	return writeJSON(c, http.StatusOK, out)
}
