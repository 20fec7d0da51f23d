package mysql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"storefront/internal/dbtest"
	"storefront/internal/mysql"
)

func TestReady(t *testing.T) {
	ctx := context.Background()
	db := dbtest.New(t)
	if err := db.Ready(ctx); err != nil {
		t.Fatalf("a migrated database: %v", err)
	}
	// The schema one migration behind the program.
	dbtest.MustExec(t, db.DB, "DELETE FROM goose_db_version ORDER BY id DESC LIMIT 1")
	if err := db.Ready(ctx); err == nil || !strings.Contains(err.Error(), "schema at version") {
		t.Errorf("a schema behind: %v", err)
	}
	db.Close()
	if err := db.Ready(ctx); err == nil || !strings.Contains(err.Error(), "does not answer") {
		t.Errorf("a closed database: %v", err)
	}
}

// gauge returns the value of the family's gauge whose label has value, or -1.
func gauge(t *testing.T, families []*dto.MetricFamily, name, label, value string) float64 {
	t.Helper()
	return metricValue(families, name, label, value, (*dto.Metric).GetGauge)
}

// counter returns the value of the family's counter whose label has value, or -1.
func counter(t *testing.T, families []*dto.MetricFamily, name, label, value string) float64 {
	t.Helper()
	return metricValue(families, name, label, value, (*dto.Metric).GetCounter)
}

// metricValue returns the value (as of) of the family's metric whose label has value, or -1.
func metricValue[V interface{ GetValue() float64 }](families []*dto.MetricFamily, name, label, value string, of func(*dto.Metric) V) float64 {
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return of(m).GetValue()
				}
			}
		}
	}
	return -1
}

func gather(t *testing.T, reg *prometheus.Registry) []*dto.MetricFamily {
	t.Helper()
	fs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestCollector(t *testing.T) {
	db := dbtest.New(t)
	now := time.Date(2030, 1, 1, 0, 10, 0, 0, time.UTC)
	db.Now = func() time.Time { return now }
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(mysql.NewCollector(db, nil))
	figures := func() []*dto.MetricFamily {
		t.Helper()
		fs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		return fs
	}
	fs := figures()
	if d, a := gauge(t, fs, "storefront_queue_depth", "queue", "email"), gauge(t, fs, "storefront_queue_oldest_due_age_seconds", "queue", "email"); d != 0 || a != 0 {
		t.Errorf("an empty outbox: depth %v, age %v", d, a)
	}
	if v := gauge(t, fs, "storefront_db_connections_open", "pool", "primary"); v < 1 {
		t.Errorf("open connections of the primary: %v", v)
	}
	if v := gauge(t, fs, "storefront_db_connections_open", "pool", "replica"); v != -1 {
		t.Errorf("a replica's figures without a replica: %v", v)
	}
	// Two e-mails waiting, one due for five minutes, one not yet due; one sent.
	dbtest.MustExec(t, db.DB, `INSERT INTO email_outbox (account_id, to_address, subject, body, status, next_attempt_at, created_at) VALUES
		(1, 'a@example.com', 'A', 'A', 'queued', '2030-01-01 00:05:00', '2030-01-01'),
		(1, 'b@example.com', 'B', 'B', 'queued', '2030-01-01 01:00:00', '2030-01-01'),
		(1, 'c@example.com', 'C', 'C', 'sent', '2029-01-01 00:00:00', '2029-01-01')`)
	fs = figures()
	if d, a := gauge(t, fs, "storefront_queue_depth", "queue", "email"), gauge(t, fs, "storefront_queue_oldest_due_age_seconds", "queue", "email"); d != 2 || a != 300 {
		t.Errorf("two waiting, one due for 300 s: depth %v, age %v", d, a)
	}
	if d := gauge(t, fs, "storefront_queue_depth", "queue", "webhook"); d != 0 {
		t.Errorf("webhook queue: %v", d)
	}
}

// TestCollectorReplica reads the replica's figures from a router whose replica is the
// primary itself: reads go to it, and it is behind by nothing.
func TestCollectorReplica(t *testing.T) {
	dsn := dbtest.DSN(t)
	db, err := mysql.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	replica, err := mysql.OpenReplica(dsn)
	if err != nil {
		t.Fatal(err)
	}
	router := mysql.NewReadRouter(db, replica, mysql.ReplicaOptions{})
	defer router.Close()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(mysql.NewCollector(db, router))
	deadline := time.Now().Add(10 * time.Second)
	for !router.ReplicaUp() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	fs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var up, behind float64 = -1, -1
	for _, f := range fs {
		switch f.GetName() {
		case "storefront_replica_up":
			up = f.GetMetric()[0].GetGauge().GetValue()
		case "storefront_replica_lag_transactions":
			behind = f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	if up != 1 || behind != 0 {
		t.Errorf("replica up %v, behind %v; want 1 and 0", up, behind)
	}
	if v := gauge(t, fs, "storefront_db_connections_open", "pool", "replica"); v < 0 {
		t.Errorf("the replica's pool: %v", v)
	}
}
