package mysql

import (
	"context"
	"database/sql"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"storefront/internal/shop"
)

// QueueScrapeTimeout bounds the queue queries one scrape makes.
const QueueScrapeTimeout = 2 * time.Second

// queueCountCap bounds the rows a queue's depth counts: a scrape never scans more.
const queueCountCap = 100000

// Collector is the database side's Prometheus metrics, read on each scrape
// (docs/OPERATIONS.md#metrics): the pools' sql.DBStats, and the depth and oldest due
// age of the e-mail outbox and the webhook delivery queue, each by one query on its
// due index (status, next_attempt_at).
type Collector struct {
	pools  map[string]*sql.DB
	queue  *DB
	router *ReadRouter

	open, inUse, idle, maxOpen, waits, waitSeconds, closedIdle, closedLifetime *prometheus.Desc
	depth, age, replicaUp, replicaBehind                                       *prometheus.Desc
	deadlockRetries, jobItems, jobs                                            *prometheus.Desc
}

// NewCollector reads the pool of primary, the queues from it and, when router is not
// nil, the replica's pool, whether reads go to it and how far behind it is.
func NewCollector(primary *DB, router *ReadRouter) *Collector {
	c := &Collector{pools: map[string]*sql.DB{"primary": primary.DB}, queue: primary, router: router}
	if router != nil {
		c.pools["replica"] = router.replica.DB
	}
	pool := []string{"pool"}
	d := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc("storefront_"+name, help, labels, nil)
	}
	c.open = d("db_connections_open", "Connections the pool holds, in use and idle.", pool)
	c.inUse = d("db_connections_in_use", "Connections in use.", pool)
	c.idle = d("db_connections_idle", "Idle connections.", pool)
	c.maxOpen = d("db_connections_max_open", "The pool's limit on open connections (0: none).", pool)
	c.waits = d("db_connection_waits_total", "Times a statement waited for a free connection.", pool)
	c.waitSeconds = d("db_connection_wait_seconds_total", "Time spent waiting for a free connection.", pool)
	c.closedIdle = d("db_connections_closed_idle_total", "Connections closed for being idle too long or too many.", pool)
	c.closedLifetime = d("db_connections_closed_lifetime_total", "Connections closed for reaching their maximum lifetime.", pool)
	queue := []string{"queue"}
	c.depth = d("queue_depth", "Items waiting to be sent (queued or being sent), counted up to 100000.", queue)
	c.age = d("queue_oldest_due_age_seconds", "How long the item most overdue has been due; 0 when nothing is due.", queue)
	c.replicaUp = d("replica_up", "1 when list and detail reads go to the read replica, 0 while they fall back to the primary.", nil)
	c.replicaBehind = d("replica_lag_transactions", "Transactions of the primary the replica has not applied yet (by GTID).", nil)
	c.deadlockRetries = d("db_deadlock_retries_total", "Transactions run again after the database chose them as a deadlock's victim, by what was run.", []string{"op"})
	c.jobItems = d("job_items_total", "Items of bulk jobs this instance ran, by outcome: done, skipped (the purchase's status forbade it) or failed.", []string{"outcome"})
	c.jobs = d("jobs", "Bulk jobs not finished, by status: queued (no item run yet) or running.", []string{"status"})
	return c
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.open, c.inUse, c.idle, c.maxOpen, c.waits, c.waitSeconds, c.closedIdle, c.closedLifetime, c.depth, c.age, c.replicaUp, c.replicaBehind,
		c.deadlockRetries, c.jobItems, c.jobs} {
		ch <- d
	}
}

// queues are the queue label's values and their tables.
var queues = []struct{ name, table string }{{"email", "email_outbox"}, {"webhook", "webhook_deliveries"}}

// Collect reads the pools' figures and queries the queues.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for name, db := range c.pools {
		st := db.Stats()
		g := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, name)
		}
		n := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, name)
		}
		g(c.open, float64(st.OpenConnections))
		g(c.inUse, float64(st.InUse))
		g(c.idle, float64(st.Idle))
		g(c.maxOpen, float64(st.MaxOpenConnections))
		n(c.waits, float64(st.WaitCount))
		n(c.waitSeconds, st.WaitDuration.Seconds())
		n(c.closedIdle, float64(st.MaxIdleClosed+st.MaxIdleTimeClosed))
		n(c.closedLifetime, float64(st.MaxLifetimeClosed))
	}
	counts := &c.queue.counts
	for i, op := range retryOpNames {
		ch <- prometheus.MustNewConstMetric(c.deadlockRetries, prometheus.CounterValue, float64(counts.deadlockRetries[i].Load()), op)
	}
	for i, o := range jobOutcomes {
		ch <- prometheus.MustNewConstMetric(c.jobItems, prometheus.CounterValue, float64(counts.jobItems[i].Load()), o)
	}
	ctx, cancel := context.WithTimeout(context.Background(), QueueScrapeTimeout)
	defer cancel()
	now := time.Now().UTC()
	if c.queue.Now != nil {
		now = c.queue.Now().UTC()
	}
	if c.router != nil {
		up := 0.0
		if c.router.ReplicaUp() {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(c.replicaUp, prometheus.GaugeValue, up)
		if n, err := c.router.ReplicaBehind(ctx); err == nil {
			ch <- prometheus.MustNewConstMetric(c.replicaBehind, prometheus.GaugeValue, float64(n))
		}
	}
	for _, q := range queues {
		depth, age, err := c.queueFigures(ctx, q.table, now)
		if err != nil {
			// The scrape goes on without this queue's figures; Prometheus sees them missing.
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.depth, prometheus.GaugeValue, float64(depth), q.name)
		ch <- prometheus.MustNewConstMetric(c.age, prometheus.GaugeValue, age.Seconds(), q.name)
	}
	if byStatus, err := c.jobFigures(ctx); err == nil {
		for _, st := range []string{shop.JobQueued, shop.JobRunning} {
			ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(byStatus[st]), st)
		}
	}
}

// jobFigures counts the jobs not finished by status, across accounts: one read of the
// jobs table, which holds a row per bulk action.
func (c *Collector) jobFigures(ctx context.Context) (map[string]int64, error) {
	out := map[string]int64{}
	err := eachRow(ctx, c.queue, "SELECT status, COUNT(*) FROM jobs WHERE status IN (?, ?) GROUP BY status", []any{shop.JobQueued, shop.JobRunning},
		func(rows *sql.Rows) error {
			var st string
			var n int64
			err := rows.Scan(&st, &n)
			out[st] = n
			return err
		})
	return out, err
}

// queueFigures counts a queue's waiting items (up to queueCountCap) and finds how long
// its most overdue item has been due. Both read only the due index, across accounts
// (as the workers' claims do).
func (c *Collector) queueFigures(ctx context.Context, table string, now time.Time) (int64, time.Duration, error) {
	var depth int64
	var oldest sql.NullTime
	err := c.queue.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM (SELECT 1 FROM `+table+` WHERE status IN ('queued', 'sending') LIMIT ?) q),
		(SELECT MIN(next_attempt_at) FROM `+table+` WHERE status IN ('queued', 'sending'))`, queueCountCap).Scan(&depth, &oldest)
	if err != nil {
		return 0, 0, err
	}
	var age time.Duration
	if oldest.Valid && oldest.Time.Before(now) {
		age = now.Sub(oldest.Time)
	}
	return depth, age, nil
}
