// Command storefront serves the storefront dashboard and JSON API, and offers the
// commands that look after its database: migrate, import, seed, apikey create and
// user create (README.md, Configuration and Commands).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"syscall"

	"storefront/internal/config"
	"storefront/internal/mariadb"
	"storefront/internal/mysql"
	"storefront/internal/shop"
)

const usage = `usage: storefront [command] [flags]

commands:
  serve                      run the dashboard and API (the default)
  migrate                    bring the database schema up to date
  import FILE|-              load a JSON document of accounts, storefronts, subscribers, purchases
  seed --purchases N --subscribers N
                             generate realistic demo data
  apikey create --account ID [--name NAME] [--scope read|read_write|audit]
                             print a new API key
  user create --account ID --email EMAIL --role owner|staff|viewer
                             create a dashboard user; the password is read from standard input
  webhook create --account ID --url URL [--events a,b]
                             add a webhook endpoint; its secret is printed alone
  webhook list --account ID  list an account's webhook endpoints
  webhook delete ID          delete a webhook endpoint with its deliveries
  rollups rebuild            sum every account's overview rollups again from its rows

Settings come from STOREFRONT_* environment variables (see README.md).
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The packages that log through slog's default write as the program's log does.
	slog.SetDefault(newLogger(os.Getenv("STOREFRONT_LOG_FORMAT"), os.Stderr))
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(os.Stderr, "storefront: %v\n\n%s", err, usage)
			os.Exit(2)
		}
		var se *shop.Error
		if errors.As(err, &se) {
			fmt.Fprintf(os.Stderr, "storefront: %s\n", se.Message)
		} else {
			fmt.Fprintf(os.Stderr, "storefront: %v\n", err)
		}
		os.Exit(1)
	}
}

// newLogger writes log lines to w, as JSON objects when format is "json", else as
// key=value text.
func newLogger(format string, w io.Writer) *slog.Logger {
	opt := &slog.HandlerOptions{Level: slog.LevelInfo}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opt))
	}
	return slog.New(slog.NewTextHandler(w, opt))
}

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// env is what every command gets: settings, streams and the logger.
type env struct {
	cfg    config.Config
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	log    *slog.Logger
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	e := &env{cfg: cfg, stdin: stdin, stdout: stdout, stderr: stderr, log: newLogger(cfg.LogFormat, stderr)}
	cmd := "serve"
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return e.serve(ctx, args)
	case "migrate":
		return e.migrate(ctx, args)
	case "import":
		batchGC()
		return e.importFile(ctx, args)
	case "seed":
		batchGC()
		return e.seed(ctx, args)
	case "apikey":
		return onlySubcommand(ctx, cmd, "create", args, e.apikeyCreate)
	case "user":
		return onlySubcommand(ctx, cmd, "create", args, e.userCreate)
	case "webhook":
		return e.webhookCommand(ctx, args)
	case "rollups":
		return onlySubcommand(ctx, cmd, "rebuild", args, e.rollupsRebuild)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return usagef("unknown command %q", cmd)
}

// batchGCPercent is the garbage collector's target of the batch commands (import,
// seed), unless GOGC is set. They build each batch of rows and its documents in memory
// and drop it at the commit: at Go's default (100) the collector took about 29 % of
// the seed's samples, and at 200 the seed's own CPU time is about a quarter less, for
// about 30 % more resident memory (docs/PERFORMANCE.md, "Import and seed rates").
const batchGCPercent = 200

// batchGC sets the collector's target for a batch command.
func batchGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(batchGCPercent)
	}
}

// onlySubcommand runs a command that has one subcommand, sub: args must begin with it.
func onlySubcommand(ctx context.Context, cmd, sub string, args []string, run func(context.Context, []string) error) error {
	if len(args) == 0 || args[0] != sub {
		return usagef("%s: the only subcommand is %s", cmd, sub)
	}
	return run(ctx, args[1:])
}

// newFlags returns a flag set that reports errors as usage errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// accountFlagSet is the flag set of a command that acts on one account: its --account
// flag and the command's own flags.
type accountFlagSet struct {
	*flag.FlagSet
	account *int64
}

// accountFlags returns the flag set of the command name, which acts on one account,
// with its --account flag.
func accountFlags(name string) accountFlagSet {
	fs := newFlags(name)
	return accountFlagSet{FlagSet: fs, account: fs.Int64("account", 0, "account id")}
}

// parse parses args and returns the account; missing is the usage error when
// --account names no account or a flag of required is empty.
func (fs accountFlagSet) parse(args []string, missing string, required ...*string) (int64, error) {
	if err := parseFlags(fs.FlagSet, args); err != nil {
		return 0, err
	}
	if *fs.account <= 0 || slices.ContainsFunc(required, func(v *string) bool { return *v == "" }) {
		return 0, usageError{missing}
	}
	return *fs.account, nil
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return usagef("%s: %v", fs.Name(), err)
	}
	return nil
}

// operands parses the args of the command name, which takes no flags, and returns its
// operands: n of them, or else the usage error msg.
func operands(name string, args []string, n int, msg string) ([]string, error) {
	fs := newFlags(name)
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() != n {
		return nil, usageError{msg}
	}
	return fs.Args(), nil
}

// database is an open, migrated database and the private server behind it, if any.
type database struct {
	*mysql.DB
	server *mariadb.Server
	// fresh is true when the private server's data folder was just created.
	fresh bool
}

// Close closes the connections and stops the private server.
func (d *database) Close() {
	d.DB.Close()
	if d.server != nil {
		if err := d.server.Stop(); err != nil {
			slog.Warn("stop database", "err", err)
		}
	}
}

// withDatabase opens the database (openDatabase), runs fn with it and closes it.
func (e *env) withDatabase(ctx context.Context, fn func(db *mysql.DB) error) error {
	d, err := e.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.Close()
	return fn(d.DB)
}

// openDatabase connects to STOREFRONT_DSN, or starts the private MariaDB in the data
// folder when no DSN is set, and migrates the schema.
func (e *env) openDatabase(ctx context.Context, opts ...mysql.OpenOption) (*database, error) {
	d := &database{}
	dsn := e.cfg.DSN
	if dsn == "" {
		if !mariadb.Installed() {
			return nil, mariadb.ErrNotInstalled
		}
		_, statErr := os.Stat(e.cfg.DataDir + "/data/mysql")
		d.fresh = errors.Is(statErr, os.ErrNotExist)
		srv, err := mariadb.Start(ctx, e.cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("private database: %w", err)
		}
		d.server = srv
		if err := createDatabase(ctx, srv.DSN(""), "storefront"); err != nil {
			srv.Stop()
			return nil, err
		}
		dsn = srv.DSN("storefront")
	}
	db, err := mysql.Open(ctx, dsn, opts...)
	if err != nil {
		if d.server != nil {
			d.server.Stop()
		}
		return nil, err
	}
	d.DB = db
	// Through a vtgate every shard keeps its own migration record and is migrated by
	// scripts/vtmigrate (docs/SCALING.md, "On a real vtgate"); /readyz says when the
	// schema is behind.
	if db.Vitess {
		return d, nil
	}
	if err := db.Migrate(ctx); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

func createDatabase(ctx context.Context, dsn, name string) error {
	db, err := mysql.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
	return err
}

func (e *env) migrate(ctx context.Context, args []string) error {
	if err := parseFlags(newFlags("migrate"), args); err != nil {
		return err
	}
	d, err := e.openDatabase(ctx)
	if err != nil {
		return err
	}
	d.Close()
	if d.Vitess {
		return errors.New("migrate: STOREFRONT_DSN is a vtgate: migrate every shard with go run ./scripts/vtmigrate -dsn '<vtgate DSN>' (docs/SCALING.md)")
	}
	fmt.Fprintln(e.stderr, "schema is up to date")
	return nil
}
