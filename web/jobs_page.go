package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"storefront/internal/filter"
	"storefront/internal/shop"
	"storefront/templates"
)

// bulkBar is the selection of purchases to reactivate together, for users who may
// reactivate; nil for the others.
func bulkBar(c *gin.Context, shown url.Values, count string) *templates.BulkBar {
	if u := currentUser(c); u == nil || !u.CanReactivate() {
		return nil
	}
	return &templates.BulkBar{Query: viewQuery(shown), Count: count}
}

// requireReactivate lets only staff and owners through.
func requireReactivate(c *gin.Context) error {
	if u := currentUser(c); u == nil || !u.CanReactivate() {
		return shop.Errorf(shop.EForbidden, "Only staff and owners can reactivate purchases.")
	}
	return nil
}

// bulkSelection reads the purchases a bulk reactivation names: the ids ticked one by
// one (id), or every purchase matching the filters (all=1 and query).
func (s *Server) bulkSelection(c *gin.Context, values url.Values) (ids []int64, all bool, query string, err error) {
	acct := currentAccount(c)
	if values.Get("all") == "1" {
		q, perr := url.ParseQuery(values.Get("query"))
		if perr != nil {
			return nil, true, "", shop.ParamErrorf(shop.EInvalid, "query", "The filters of the selection could not be read.")
		}
		query = viewQuery(q)
		parsed, _ := url.ParseQuery(query)
		f, ferr := filter.Purchases(parsed, acct.ID, s.now(), s.location(acct.Timezone))
		if ferr != nil {
			return nil, true, query, ferr
		}
		ids, err = s.matchingIDs(c, f)
		return ids, true, query, err
	}
	seen := map[int64]bool{}
	for _, v := range values["id"] {
		id, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if perr != nil || id <= 0 {
			return nil, false, "", shop.ParamErrorf(shop.EInvalid, "id", "%q is not a purchase id.", v)
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, false, "", shop.ParamErrorf(shop.EMissing, "id", "Select the purchases to reactivate, or tick Select all matching.")
	}
	if len(ids) > shop.MaxJobPurchases {
		return nil, false, "", shop.ParamErrorf(shop.EInvalid, "id", "A job may reactivate at most %s purchases.", templates.FormatCount(shop.MaxJobPurchases))
	}
	return ids, false, "", nil
}

// matchingIDs lists the ids of the purchases matching a filter, up to one more than a
// job may hold, walking pages of ids only.
func (s *Server) matchingIDs(c *gin.Context, f shop.PurchaseFilter) ([]int64, error) {
	f.PerPage, f.Page, f.After = shop.MaxPerPage, 0, nil
	var ids []int64
	for len(ids) <= shop.MaxJobPurchases {
		page, err := s.Purchases.FindPurchases(c.Request.Context(), f)
		if err != nil {
			return nil, err
		}
		for _, p := range page.Purchases {
			ids = append(ids, p.ID)
		}
		if page.Next == nil {
			break
		}
		f.After = page.Next
	}
	if len(ids) > shop.MaxJobPurchases {
		return nil, shop.ParamErrorf(shop.EInvalid, "all", "More than %s purchases match: a job may reactivate at most that many; narrow the filters.",
			templates.FormatCount(shop.MaxJobPurchases))
	}
	if len(ids) == 0 {
		return nil, shop.ParamErrorf(shop.EInvalid, "all", "No purchases match these filters.")
	}
	return ids, nil
}

// reactivateSelected asks to confirm a bulk reactivation: how many, which statuses
// will be skipped, Refulfill, and where the e-mails go.
func (s *Server) reactivateSelected(c *gin.Context) error {
	if err := requireReactivate(c); err != nil {
		return err
	}
	acct := currentAccount(c)
	v := templates.BulkConfirmView{Chrome: s.chrome(c, "Reactivate selected purchases", "purchases"), BackURL: "/purchases"}
	if q, err := url.ParseQuery(c.Query("query")); err == nil && viewQuery(q) != "" {
		v.BackURL += "?" + viewQuery(q)
	}
	ids, all, query, err := s.bulkSelection(c, c.Request.URL.Query())
	if err != nil {
		if shop.ErrorCode(err) == shop.EInternal || shop.ErrorCode(err) == shop.EUnavailable {
			return err
		}
		v.Error = paramLabel("purchases", shop.ErrorParam(err)) + shop.ErrorMessage(err)
		return write(c, http.StatusBadRequest, templates.BulkConfirm(v))
	}
	counts, err := s.Jobs.CountStatuses(c.Request.Context(), acct.ID, ids)
	if err != nil {
		return err
	}
	v.IDs, v.All, v.Query = ids, all, query
	for _, st := range shop.PurchaseStatuses {
		n := counts[st]
		v.Count += n
		if st.Reactivatable() {
			v.Runnable += n
		} else if n > 0 {
			v.Skipped = append(v.Skipped, fmt.Sprintf("%s %s (%s)", templates.FormatCount(n), st.Label(), st))
		}
	}
	if v.Count == 0 {
		v.Error = "None of the selected purchases was found."
		return write(c, http.StatusBadRequest, templates.BulkConfirm(v))
	}
	return render(c, templates.BulkConfirm(v))
}

// createJob queues a bulk reactivation and shows its progress.
func (s *Server) createJob(c *gin.Context) error {
	if err := requireReactivate(c); err != nil {
		return err
	}
	if err := c.Request.ParseForm(); err != nil {
		return shop.Errorf(shop.EInvalid, "The form could not be read.")
	}
	ids, _, _, err := s.bulkSelection(c, c.Request.PostForm)
	if err != nil {
		return err
	}
	refulfill := c.PostForm("refulfill") == "1"
	job, err := s.Jobs.CreateReactivationJob(c.Request.Context(), currentAccount(c).ID, currentUser(c).Email, ids, refulfill)
	if err != nil {
		return err
	}
	s.flash(c, fmt.Sprintf("Job %d queued: %s purchases to reactivate.", job.ID, templates.FormatCount(job.Total)))
	c.Redirect(http.StatusSeeOther, fmt.Sprintf("/jobs/%d", job.ID))
	return nil
}

// jobsPage lists the account's jobs with their summaries.
func (s *Server) jobsPage(c *gin.Context) error {
	acct := currentAccount(c)
	jobs, err := s.Jobs.FindJobs(c.Request.Context(), acct.ID)
	if err != nil {
		return err
	}
	v := templates.JobsView{Chrome: s.chrome(c, "Jobs", "jobs")}
	for _, j := range jobs {
		v.Jobs = append(v.Jobs, s.jobLine(c, &j, nil))
	}
	return render(c, templates.Jobs(v))
}

// jobStatusWords are the job statuses as the pages say them; a job that has ended says
// when, after its word.
var jobStatusWords = map[string]string{
	shop.JobQueued: "Queued", shop.JobRunning: "Running", shop.JobDone: "Finished", shop.JobCanceled: "Canceled",
}

// jobLine is a job as the pages show it.
func (s *Server) jobLine(c *gin.Context, j *shop.Job, problems []shop.JobItem) templates.JobLine {
	loc := s.location(currentAccount(c).Timezone)
	what := "reactivate " + templates.FormatCount(j.Total) + " purchases"
	if j.Refulfill {
		what += ", refulfilling"
	}
	line := templates.JobLine{ID: j.ID, URL: fmt.Sprintf("/jobs/%d", j.ID), What: what, Actor: j.Actor,
		Created: templates.FormatTime(j.CreatedAt.Time, loc), Status: j.Status}
	p := templates.JobProgress{ID: j.ID, Status: j.Status, Total: j.Total, Finished: j.Done + j.Skipped + j.Failed,
		Done: templates.FormatCount(j.Done), Skipped: templates.FormatCount(j.Skipped), Failed: templates.FormatCount(j.Failed),
		Pending: templates.FormatCount(j.Pending)}
	running := j.Status == shop.JobQueued || j.Status == shop.JobRunning
	p.Running = running
	p.CanCancel = running && currentUser(c).CanReactivate()
	p.StatusText = jobStatusWords[j.Status]
	if j.Status == shop.JobDone || j.Status == shop.JobCanceled {
		p.StatusText += " " + templates.FormatTime(j.FinishedAt.Time, loc)
	}
	for _, pr := range problems {
		p.Problems = append(p.Problems, templates.JobProblem{PurchaseID: pr.PurchaseID, URL: fmt.Sprintf("/purchases/%d", pr.PurchaseID),
			Status: pr.Status, Reason: pr.Reason})
	}
	line.Progress = p
	return line
}

// loadJob reads a job of the account with its problems.
func (s *Server) loadJob(c *gin.Context) (templates.JobLine, error) {
	id, err := pageID(c, "job", "job")
	if err != nil {
		return templates.JobLine{}, err
	}
	acct := currentAccount(c)
	j, err := s.Jobs.FindJob(c.Request.Context(), acct.ID, id)
	if err != nil {
		return templates.JobLine{}, err
	}
	problems, err := s.Jobs.FindJobProblems(c.Request.Context(), acct.ID, id)
	if err != nil {
		return templates.JobLine{}, err
	}
	return s.jobLine(c, j, problems), nil
}

// jobPage shows one job; its progress fragment polls itself while the job runs.
func (s *Server) jobPage(c *gin.Context) error {
	line, err := s.loadJob(c)
	if err != nil {
		return err
	}
	return render(c, templates.JobPage(templates.JobView{Chrome: s.chrome(c, fmt.Sprintf("Job %d", line.ID), "jobs"), Job: line, Progress: line.Progress}))
}

// jobProgress is the progress fragment.
func (s *Server) jobProgress(c *gin.Context) error {
	line, err := s.loadJob(c)
	if err != nil {
		return err
	}
	return render(c, templates.JobProgressFragment(line.Progress))
}

// cancelJob stops a job; htmx gets the progress fragment, a form post the job page.
func (s *Server) cancelJob(c *gin.Context) error {
	if err := requireReactivate(c); err != nil {
		return err
	}
	id, err := pageID(c, "job", "job")
	if err != nil {
		return err
	}
	if err := s.Jobs.CancelJob(c.Request.Context(), currentAccount(c).ID, id); err != nil && shop.ErrorCode(err) != shop.EConflict {
		return err
	}
	if isHTMX(c) {
		return s.jobProgress(c)
	}
	c.Redirect(http.StatusSeeOther, fmt.Sprintf("/jobs/%d", id))
	return nil
}
