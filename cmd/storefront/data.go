package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"storefront/internal/importer"
	"storefront/internal/seed"
)

func (e *env) importFile(ctx context.Context, args []string) error {
	fs := newFlags("import")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("import: name one FILE, or - for standard input")
	}
	var r io.Reader = e.stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		r = f
	}
	d, err := e.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.Close()
	// The import's heap is small (its pipeline is bounded) and turns over fast, most of
	// it the decoders' garbage. Letting it grow to five times what is live between
	// collections, rather than twice, takes about a quarter off the importer's CPU,
	// which the database shares on a small server; the 100,000-purchase bench file
	// then peaks at about 250 MB instead of 50.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	stats, err := importer.Run(ctx, d.DB, r, e.stderr)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(e.stderr, "imported %s\n", stats)
	return nil
}

func (e *env) seed(ctx context.Context, args []string) error {
	fs := newFlags("seed")
	purchases := fs.Int("purchases", 5000, "number of purchases to generate")
	subscribers := fs.Int("subscribers", 500, "number of subscribers to generate")
	rngSeed := fs.Int64("seed", 1, "random seed: the same seed gives the same data")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *purchases < 0 || *subscribers < 0 {
		return usagef("seed: --purchases and --subscribers must not be negative")
	}
	d, err := e.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.Close()
	stats, err := seed.Run(ctx, d.DB.DB, seed.Options{Purchases: *purchases, Subscribers: *subscribers, Seed: *rngSeed, Now: time.Now()}, e.stderr)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	fmt.Fprintf(e.stderr, "seeded %+v\n", stats)
	return nil
}
