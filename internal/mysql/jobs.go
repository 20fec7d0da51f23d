package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"storefront/internal/shop"
)

// CountStatuses implements shop.JobService.
func (s *JobService) CountStatuses(ctx context.Context, accountID int64, ids []int64) (map[shop.PurchaseStatus]int64, error) {
	out := map[shop.PurchaseStatus]int64{}
	for start := 0; start < len(ids); start += 10000 {
		list, args := inList(ids[start:min(start+10000, len(ids))])
		err := eachRow(ctx, s.db.DB, "SELECT status, COUNT(*) FROM purchases WHERE account_id = ? AND id IN "+list+" GROUP BY status",
			append([]any{accountID}, args...), func(rows *sql.Rows) error {
				var st shop.PurchaseStatus
				var n int64
				if err := rows.Scan(&st, &n); err != nil {
					return err
				}
				out[st] += n
				return nil
			})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// CreateReactivationJob implements shop.JobService.
func (s *JobService) CreateReactivationJob(ctx context.Context, accountID int64, actor string, ids []int64, refulfill bool) (*shop.Job, error) {
	db := s.db
	if len(ids) == 0 {
		return nil, shop.ParamErrorf(shop.EMissing, "id", "Select the purchases to reactivate.")
	}
	if len(ids) > shop.MaxJobPurchases {
		return nil, shop.ParamErrorf(shop.EInvalid, "id", "A job may reactivate at most %d purchases; narrow the filters.", shop.MaxJobPurchases)
	}
	if len(actor) > 255 {
		actor = actor[:255]
	}
	now := db.nowSecond()
	job := &shop.Job{AccountID: accountID, Kind: shop.JobReactivate, Status: shop.JobQueued, Actor: actor, Refulfill: refulfill,
		CreatedAt: shop.Time{Time: now}}
	err := db.inTx(ctx, func(tx *Tx) error {
		// The account's row serialises the ids its jobs get.
		if _, err := tx.ExecContext(ctx, "SELECT id FROM accounts WHERE id = ? FOR UPDATE", accountID); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) + 1 FROM jobs WHERE account_id = ?", accountID).Scan(&job.ID); err != nil {
			return err
		}
		// Only the account's purchases become items: another account's id is not there.
		seen := map[int64]bool{}
		var items []any
		for start := 0; start < len(ids); start += 10000 {
			list, args := inList(ids[start:min(start+10000, len(ids))])
			err := eachRow(ctx, tx, "SELECT id FROM purchases WHERE account_id = ? AND id IN "+list, append([]any{accountID}, args...), func(rows *sql.Rows) error {
				var id int64
				if err := rows.Scan(&id); err != nil {
					return err
				}
				if !seen[id] {
					seen[id] = true
					items = append(items, accountID, job.ID, id, shop.ItemPending)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if len(items) == 0 {
			return shop.ParamErrorf(shop.EInvalid, "id", "None of the selected purchases was found.")
		}
		job.Total = int64(len(seen))
		job.Pending = job.Total
		if _, err := tx.ExecContext(ctx, "INSERT INTO jobs (account_id, id, kind, status, actor, refulfill, total, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			accountID, job.ID, job.Kind, job.Status, actor, refulfill, job.Total, now); err != nil {
			return err
		}
		tx.queue(WorkJobs)
		if err := recordAudit(ctx, tx, now, accountID, shop.AuditJobStarted, fmt.Sprintf("job %d: %d purchases, refulfill %v", job.ID, job.Total, refulfill)); err != nil {
			return err
		}
		return upsertChunks(ctx, tx, "INSERT INTO job_items (account_id, job_id, purchase_id, status)", 4, "", items)
	})
	if err != nil {
		return nil, err
	}
	return job, nil
}

const jobColumns = "id, kind, status, actor, refulfill, total, created_at, started_at, finished_at"

func scanJob(rows interface{ Scan(...any) error }, accountID int64) (*shop.Job, error) {
	j := &shop.Job{AccountID: accountID}
	err := rows.Scan(&j.ID, &j.Kind, &j.Status, &j.Actor, &j.Refulfill, &j.Total, &j.CreatedAt, &j.StartedAt, &j.FinishedAt)
	return j, err
}

// jobCounts fills the jobs' item counts, by status.
func (db *DB) jobCounts(ctx context.Context, accountID int64, jobs []*shop.Job) error {
	if len(jobs) == 0 {
		return nil
	}
	byID := map[int64]*shop.Job{}
	ids := make([]int64, len(jobs))
	for i, j := range jobs {
		byID[j.ID] = j
		ids[i] = j.ID
	}
	list, args := inList(ids)
	return eachRow(ctx, db.DB, "SELECT job_id, status, COUNT(*) FROM job_items WHERE account_id = ? AND job_id IN "+list+" GROUP BY job_id, status",
		append([]any{accountID}, args...), func(rows *sql.Rows) error {
			var (
				id     int64
				status string
				n      int64
			)
			if err := rows.Scan(&id, &status, &n); err != nil {
				return err
			}
			j := byID[id]
			switch status {
			case shop.ItemDone:
				j.Done = n
			case shop.ItemSkipped:
				j.Skipped = n
			case shop.ItemFailed:
				j.Failed = n
			case shop.ItemPending:
				j.Pending = n
			}
			return nil
		})
}

// FindJobs implements shop.JobService.
func (s *JobService) FindJobs(ctx context.Context, accountID int64) ([]shop.Job, error) {
	db := s.db
	var jobs []*shop.Job
	err := eachRow(ctx, db.DB, "SELECT "+jobColumns+" FROM jobs WHERE account_id = ? ORDER BY id DESC LIMIT 100", []any{accountID}, func(rows *sql.Rows) error {
		j, err := scanJob(rows, accountID)
		jobs = append(jobs, j)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := db.jobCounts(ctx, accountID, jobs); err != nil {
		return nil, err
	}
	out := make([]shop.Job, len(jobs))
	for i, j := range jobs {
		out[i] = *j
	}
	return out, nil
}

// FindJob implements shop.JobService.
func (s *JobService) FindJob(ctx context.Context, accountID, id int64) (*shop.Job, error) {
	db := s.db
	j, err := scanJob(db.QueryRowContext(ctx, "SELECT "+jobColumns+" FROM jobs WHERE account_id = ? AND id = ?", accountID, id), accountID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, shop.Errorf(shop.ENotFound, "There is no job %d.", id)
	}
	if err != nil {
		return nil, translate(err)
	}
	if err := db.jobCounts(ctx, accountID, []*shop.Job{j}); err != nil {
		return nil, err
	}
	return j, nil
}

// FindJobProblems implements shop.JobService.
func (s *JobService) FindJobProblems(ctx context.Context, accountID, id int64) ([]shop.JobItem, error) {
	return collectRows(ctx, s.db.DB, `SELECT purchase_id, status, COALESCE(reason, '') FROM job_items
		WHERE account_id = ? AND job_id = ? AND status IN ('skipped', 'failed') ORDER BY status, purchase_id LIMIT 1000`,
		[]any{accountID, id}, func(rows *sql.Rows) (shop.JobItem, error) {
			var it shop.JobItem
			err := rows.Scan(&it.PurchaseID, &it.Status, &it.Reason)
			return it, err
		})
}

// CancelJob implements shop.JobService.
func (s *JobService) CancelJob(ctx context.Context, accountID, id int64) error {
	db := s.db
	return db.inTx(ctx, func(tx *Tx) error {
		var status string
		err := tx.QueryRowContext(ctx, "SELECT status FROM jobs WHERE account_id = ? AND id = ? FOR UPDATE", accountID, id).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return shop.Errorf(shop.ENotFound, "There is no job %d.", id)
		}
		if err != nil {
			return err
		}
		if status != shop.JobQueued && status != shop.JobRunning {
			return shop.Errorf(shop.EConflict, "Job %d has ended (%s); there is nothing to cancel.", id, status)
		}
		now := db.nowSecond()
		if _, err = tx.ExecContext(ctx, "UPDATE jobs SET status = ?, finished_at = ? WHERE account_id = ? AND id = ?",
			shop.JobCanceled, now, accountID, id); err != nil {
			return err
		}
		return recordAudit(ctx, tx, now, accountID, shop.AuditJobCancelled, fmt.Sprintf("job %d", id))
	})
}

// activeJobs lists the queued and running jobs of every account, oldest first.
func (db *DB) activeJobs(ctx context.Context) ([][2]int64, error) {
	accounts, err := appendIDs(ctx, db.DB, nil, "SELECT id FROM accounts ORDER BY id")
	if err != nil {
		return nil, err
	}
	var out [][2]int64
	for _, a := range accounts {
		err := eachRow(ctx, db.DB, "SELECT id FROM jobs WHERE account_id = ? AND status IN ('queued', 'running') ORDER BY id", []any{a}, func(rows *sql.Rows) error {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			out = append(out, [2]int64{a, id})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// RunJobStep implements shop.JobService: it takes the first pending purchase of the
// first active job that has one no other worker holds (SKIP LOCKED), and in one
// transaction reactivates it exactly as a single reactivation does and records the
// outcome. A purchase whose status forbids reactivation is skipped; one the use case
// refuses for another reason fails; both with the reason. A crash before the commit
// leaves the purchase pending for the next worker.
func (s *JobService) RunJobStep(ctx context.Context) (bool, error) {
	db := s.db
	jobs, err := db.activeJobs(ctx)
	if err != nil {
		return false, err
	}
	for _, j := range jobs {
		worked, err := db.runJobItem(ctx, j[0], j[1])
		if err != nil || worked {
			return worked, err
		}
	}
	return false, nil
}

// runJobItem runs one pending purchase of a job; false when none is free.
func (db *DB) runJobItem(ctx context.Context, accountID, jobID int64) (bool, error) {
	rc := &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	worked := false
	outcome := ""
	err := db.inTxWith(ctx, rc, func(tx *Tx) error {
		var (
			status, actor string
			refulfill     bool
		)
		if err := tx.QueryRowContext(ctx, "SELECT status, actor, refulfill FROM jobs WHERE account_id = ? AND id = ?", accountID, jobID).
			Scan(&status, &actor, &refulfill); err != nil {
			return err
		}
		if status != shop.JobQueued && status != shop.JobRunning {
			return nil
		}
		var purchaseID int64
		err := tx.QueryRowContext(ctx, `SELECT purchase_id FROM job_items WHERE account_id = ? AND job_id = ? AND status = 'pending'
			ORDER BY purchase_id LIMIT 1 FOR UPDATE SKIP LOCKED`, accountID, jobID).Scan(&purchaseID)
		if errors.Is(err, sql.ErrNoRows) {
			return db.finishJob(ctx, tx, accountID, jobID)
		}
		if err != nil {
			return err
		}
		worked = true
		now := db.nowSecond()
		if status == shop.JobQueued {
			if _, err := tx.ExecContext(ctx, "UPDATE jobs SET status = 'running', started_at = ? WHERE account_id = ? AND id = ? AND status = 'queued'",
				now, accountID, jobID); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT job_item"); err != nil {
			return err
		}
		var reason string
		outcome = shop.ItemDone
		_, rerr := db.reactivate(ctx, tx, shop.ReactivateRequest{AccountID: accountID, PurchaseID: purchaseID, Refulfill: refulfill,
			Actor: fmt.Sprintf("%s (job %d)", actor, jobID)})
		var se *shop.Error
		switch {
		case rerr == nil:
		case errors.As(rerr, &se) && se.Code != shop.EInternal && se.Code != shop.EUnavailable:
			// The use case refused before it changed anything; the savepoint makes sure.
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT job_item"); err != nil {
				return err
			}
			outcome, reason = shop.ItemFailed, se.Message
			if se.Code == shop.EConflict {
				outcome = shop.ItemSkipped
			}
		default:
			return rerr
		}
		if len(reason) > 512 {
			reason = reason[:512]
		}
		// By its primary key: left to statistics older than the data (after a restart),
		// the UPDATE read job_items_status and locked every item of the job it passed,
		// those other workers hold too.
		if _, err := tx.ExecContext(ctx, "UPDATE job_items FORCE INDEX (PRIMARY) SET status = ?, reason = NULLIF(?, ''), finished_at = ? WHERE account_id = ? AND job_id = ? AND purchase_id = ?",
			outcome, reason, now, accountID, jobID, purchaseID); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		if isDeadlock(err) {
			db.deadlockRetried(retryJobItem)
			return true, nil // rolled back whole: the purchase is pending again
		}
		return false, err
	}
	if i := slices.Index(jobOutcomes[:], outcome); i >= 0 {
		db.counts.jobItems[i].Add(1)
	}
	return worked, nil
}

// finishJob marks a job done once none of its purchases is pending (another worker may
// still hold the last one: then that worker finishes it).
func (db *DB) finishJob(ctx context.Context, tx *Tx, accountID, jobID int64) error {
	var pending int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM job_items WHERE account_id = ? AND job_id = ? AND status = 'pending'", accountID, jobID).
		Scan(&pending); err != nil {
		return err
	}
	if pending > 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, "UPDATE jobs SET status = 'done', finished_at = ? WHERE account_id = ? AND id = ? AND status IN ('queued', 'running')",
		db.nowSecond(), accountID, jobID)
	return err
}
