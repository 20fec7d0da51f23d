package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"storefront/internal/importer"
	"storefront/internal/mysql"
	"storefront/internal/seed"
	"storefront/internal/shop"
)

func (e *env) importFile(ctx context.Context, args []string) error {
	files, err := operands("import", args, 1, "import: name one FILE, or - for standard input")
	if err != nil {
		return err
	}
	var r io.Reader = e.stdin
	if name := files[0]; name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
	}
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		// The import's heap is small (its pipeline is bounded) and turns over fast, most of
		// it the decoders' garbage. Letting it grow to five times what is live between
		// collections, rather than twice, takes about a quarter off the importer's CPU,
		// which the database shares on a small server; the 100,000-purchase bench file
		// then peaks at about 250 MB instead of 50.
		if os.Getenv("GOGC") == "" {
			defer debug.SetGCPercent(debug.SetGCPercent(400))
		}
		stats, err := importer.Run(ctx, db, r, e.stderr)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		fmt.Fprintf(e.stderr, "imported %s\n", stats)
		return nil
	})
}

func (e *env) seed(ctx context.Context, args []string) error {
	var opt seed.Options
	fs := newFlags("seed")
	fs.IntVar(&opt.Purchases, "purchases", 5000, "number of purchases to generate")
	fs.IntVar(&opt.Subscribers, "subscribers", 500, "number of subscribers to generate")
	fs.Int64Var(&opt.Seed, "seed", 1, "random seed: the same seed gives the same data")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if opt.Purchases < 0 || opt.Subscribers < 0 {
		return usagef("seed: --purchases and --subscribers must not be negative")
	}
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		opt.Now = time.Now()
		stats, err := seed.Run(ctx, db.DB, opt, e.stderr)
		if err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		fmt.Fprintf(e.stderr, "seeded %+v\n", stats)
		return nil
	})
}

func (e *env) apikeyCreate(ctx context.Context, args []string) error {
	fs := accountFlags("apikey create")
	name := fs.String("name", "", "a name to recognise the key by")
	scope := fs.String("scope", "read", "read, read_write or audit")
	account, err := fs.parse(args, "apikey create: --account ID is required")
	if err != nil {
		return err
	}
	if !shop.ValidScope(*scope) {
		return usagef("apikey create: --scope must be read, read_write or audit, not %q", *scope)
	}
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		key, err := mysql.NewAdminService(db).CreateAPIKey(ctx, account, *name, *scope)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, key)
		return nil
	})
}

func (e *env) userCreate(ctx context.Context, args []string) error {
	fs := accountFlags("user create")
	email := fs.String("email", "", "e-mail address to sign in with")
	role := fs.String("role", "", "owner, staff or viewer")
	account, err := fs.parse(args, "user create: --account, --email and --role are required", email, role)
	if err != nil {
		return err
	}
	if *role != "owner" && *role != "staff" && *role != "viewer" {
		return usagef("user create: --role must be owner, staff or viewer, not %q", *role)
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("user create: no password on standard input")
	}
	password := strings.TrimRight(line, "\r\n")
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		id, err := mysql.NewAdminService(db).CreateUser(ctx, account, *email, *role, password)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "created user %d (%s, %s)\n", id, *email, *role)
		return nil
	})
}

func (e *env) rollupsRebuild(ctx context.Context, args []string) error {
	if _, err := operands("rollups rebuild", args, 0, "rollups rebuild takes no arguments"); err != nil {
		return err
	}
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		n, err := mysql.RebuildRollups(ctx, db.DB)
		if err != nil {
			return fmt.Errorf("rollups rebuild: %w", err)
		}
		fmt.Fprintf(e.stderr, "rebuilt the rollups of %d accounts\n", n)
		return nil
	})
}
