package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"storefront/internal/mail"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/web"
)

// Demo credentials of the private database's demo data. They exist only in a database
// the program made itself (no STOREFRONT_DSN), never in one it was pointed at.
const (
	demoEmail    = "owner@demo.test"
	demoPassword = "storefront-demo"
	// demoAPIKey is a read_write key of the demo account, so that the README's curl
	// examples work verbatim against the demo data.
	demoAPIKey = mysql.APIKeyPrefix + "demo_0123456789abcdef0123456789abcdef"
)

func (e *env) serve(ctx context.Context, args []string) error {
	fs := newFlags("serve")
	fs.StringVar(&e.cfg.Addr, "addr", e.cfg.Addr, "listen address")
	fs.StringVar(&e.cfg.DSN, "dsn", e.cfg.DSN, "database DSN")
	fs.StringVar(&e.cfg.DataDir, "data-dir", e.cfg.DataDir, "private database folder")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := e.cfg.Finish(); err != nil {
		return err
	}
	// Listen first: a taken port is reported before a database is started.
	ln, err := net.Listen("tcp", e.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", e.cfg.Addr, err)
	}
	defer ln.Close()
	var metricsLn net.Listener
	if e.cfg.MetricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", e.cfg.MetricsAddr); err != nil {
			return fmt.Errorf("listen on %s (STOREFRONT_METRICS_ADDR): %w", e.cfg.MetricsAddr, err)
		}
		defer metricsLn.Close()
	}

	// Traces: the tracer provider comes first, so that the database's statements are
	// spans too (docs/OPERATIONS.md#traces).
	var tp *sdktrace.TracerProvider
	var dbOpts []mysql.OpenOption
	if e.cfg.OTLPEndpoint != "" {
		if tp, err = newTracerProvider(ctx, e.cfg.OTLPEndpoint); err != nil {
			return fmt.Errorf("OTEL_EXPORTER_OTLP_ENDPOINT: %w", err)
		}
		// Runs last: the spans of the requests the shutdown let finish are sent too.
		defer func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := tp.Shutdown(sctx); err != nil {
				e.log.Warn("sending the last spans", "err", err)
			}
		}()
		dbOpts = append(dbOpts, mysql.WithTracing(tp))
		e.log.Info("sending traces", "endpoint", e.cfg.OTLPEndpoint)
	}

	d, err := e.openDatabase(ctx, dbOpts...)
	if err != nil {
		return err
	}
	defer d.Close()

	if d.server != nil {
		if err := e.ensureDemoData(ctx, d); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}

	if e.cfg.SessionKey == nil {
		e.log.Warn("STOREFRONT_SESSION_KEY is not set: sessions are signed with a key made for this run, so everyone must sign in again after a restart")
	}
	transport, err := mail.NewTransport(e.cfg.SMTPURL, e.cfg.MailFrom, e.log)
	if err != nil {
		return err
	}
	purchases, accounts := mysql.NewPurchaseService(d.DB), mysql.NewAccountService(d.DB)
	d.DB.WebhookGuard = e.webhookGuard()
	var reg *prometheus.Registry
	var work *workMetrics
	if metricsLn != nil {
		reg, work = newRegistry()
	}
	workers, err := e.workers(d.DB, transport, work, tp)
	if err != nil {
		return err
	}
	// Background work stops after the HTTP server has drained, within its grace period.
	workers.Start()
	defer func() {
		if err := workers.Stop(workerGrace); err != nil {
			e.log.Warn("stopping", "err", err)
		}
	}()

	ws := &web.Server{
		Purchases: purchases, Writer: purchases, Subscribers: mysql.NewSubscriberService(d.DB), Keys: mysql.NewAPIKeyService(d.DB),
		Accounts: accounts, Users: mysql.NewUserService(d.DB), Admin: mysql.NewAdminService(d.DB),
		Activity: mysql.NewAccountActivityService(d.DB), Audit: mysql.NewAuditService(d.DB), Webhooks: mysql.NewWebhookService(d.DB), Overview: mysql.NewOverviewService(d.DB),
		Views: mysql.NewSavedViewService(d.DB), Jobs: mysql.NewJobService(d.DB), Customers: mysql.NewCustomerService(d.DB),
		SessionKey: e.cfg.SessionKey,
		Logger:     e.log, BaseURL: e.cfg.BaseURL, RateLimit: e.cfg.RateLimit,
		PasskeyOrigin: e.cfg.PasskeyOrigin, PasskeyRPID: e.cfg.PasskeyRPID,
		// Failed sign-ins are counted in the database: the throttle holds across
		// instances and restarts.
		SignInStore: mysql.NewSignInStore(d.DB),
		Ready:       d.DB.Ready,
	}
	var router *mysql.ReadRouter
	if e.cfg.DSN != "" {
		// A database named by STOREFRONT_DSN may serve several instances: a key's
		// limit is kept in it, leased to each instance in batches (docs/SCALING.md).
		ws.RateStore = mysql.NewRateStore(d.DB)
	}
	if e.cfg.ReadDSN != "" {
		replica, err := mysql.OpenReplica(e.cfg.ReadDSN, dbOpts...)
		if err != nil {
			return err
		}
		router = mysql.NewReadRouter(d.DB, replica, mysql.ReplicaOptions{Log: e.log})
		defer router.Close()
		ws.Purchases, ws.Writer, ws.Subscribers = router, router, router
	}
	if metricsLn != nil {
		reg.MustRegister(mysql.NewCollector(d.DB, router))
		ws.Metrics = web.NewMetrics(reg)
		msrv := &http.Server{Handler: metricsHandler(reg), ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second}
		go func() {
			if err := msrv.Serve(metricsLn); err != nil && !errors.Is(err, http.ErrServerClosed) {
				e.log.Error("metrics server", "err", err)
			}
		}()
		defer msrv.Close()
		e.log.Info("serving metrics", "url", "http://"+metricsLn.Addr().String()+"/metrics")
	}
	if tp != nil {
		ws.Tracer = tp.Tracer("storefront")
	}
	handler := ws.Handler()
	// Runs after the HTTP server's shutdown below, before the database is closed.
	defer ws.Wait()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	e.log.Info("storefront is serving", "dashboard", e.cfg.BaseURL+"/", "api", e.cfg.BaseURL+"/api/v2")
	if d.server != nil {
		fmt.Fprintf(e.stderr, "demo login: %s / %s   demo API: curl -u demo:%s %s/api/v2/purchases\n",
			demoEmail, demoPassword, demoAPIKey, e.cfg.BaseURL)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	e.log.Info("shutting down", "drain_delay", e.cfg.DrainDelay)
	// /readyz answers 503 from now on; requests are still answered for the drain delay,
	// so that load balancers take this instance out before it stops listening.
	ws.Drain()
	if e.cfg.DrainDelay > 0 {
		time.Sleep(e.cfg.DrainDelay)
	}
	shutCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ensureDemoData seeds the private database on its first start: about 5,000 purchases
// and 500 subscribers, a demo owner login and a demo API key.
func (e *env) ensureDemoData(ctx context.Context, d *database) error {
	n, err := mysql.NewAccountService(d.DB).CountAccounts(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	fmt.Fprintln(e.stderr, "first start: generating demo data (5,000 purchases, 500 subscribers)")
	if _, err := seed.Run(ctx, d.DB.DB, seed.Options{Purchases: 5000, Subscribers: 500, Seed: 1, Now: time.Now()}, e.stderr); err != nil {
		return err
	}
	admin := mysql.NewAdminService(d.DB)
	if _, err := admin.CreateUser(ctx, 1, demoEmail, "owner", demoPassword); err != nil {
		return err
	}
	return admin.InsertAPIKey(ctx, 1, "demo", "read_write", demoAPIKey)
}
