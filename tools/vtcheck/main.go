// Command vtcheck plans recorded statements with Vitess's own planner (vtexplain) on a
// sharded keyspace and reports how many shards each one reaches. It fails when a
// statement sent while serving a request reaches more than one shard of the sharded
// keyspace, or cannot be planned.
//
//	vtcheck -schema schema.sql -schema db/vitess/lookup.sql -vschema db/vitess/vschema.json recording.jsonl...
//
// A recording has one JSON object a line, {"query", "sql", "kind", "origin"}, as
// internal/dbtest writes them when STOREFRONT_RECORD_SQL is set (scripts/vtcheck.sh).
// The planner runs in this process: no vtgate, no tablets, no server.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"

	"vitess.io/vitess/go/stats"
	vtlog "vitess.io/vitess/go/vt/log"
	"vitess.io/vitess/go/vt/servenv"
	"vitess.io/vitess/go/vt/topo/memorytopo"
	"vitess.io/vitess/go/vt/vtenv"
	"vitess.io/vitess/go/vt/vtexplain"
)

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	// Vitess's dependencies register flags of their own on flag.CommandLine.
	flag := flag.NewFlagSet("vtcheck", flag.ExitOnError)
	var schemas listFlag
	flag.Var(&schemas, "schema", "file of CREATE TABLE statements (repeatable)")
	vschemaFile := flag.String("vschema", "db/vitess/vschema.json", "keyspace name → vschema, as vtexplain --vschema-file reads it")
	keyspace := flag.String("keyspace", "storefront", "the sharded keyspace")
	shards := flag.Int("shards", 4, "shards of the sharded keyspace")
	verbose := flag.Bool("v", false, "list every shape with its shard count")
	_ = flag.Parse(os.Args[1:])
	if len(schemas) == 0 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: vtcheck -schema FILE [-schema FILE] [-vschema FILE] RECORDING...")
		os.Exit(2)
	}
	if err := run(schemas, *vschemaFile, *keyspace, *shards, *verbose, flag.Args(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "vtcheck:", err)
		os.Exit(1)
	}
}

func run(schemaFiles []string, vschemaFile, keyspace string, numShards int, verbose bool, recordings []string, out io.Writer) error {
	// Vitess logs every step of its simulated vtgate and tablets, errors of the simulation
	// included; what matters comes back from each plan.
	vtlog.SwapLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError + 4})))

	var schema strings.Builder
	for _, f := range schemaFiles {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		schema.Write(b)
		schema.WriteString("\n")
	}
	vschema, err := os.ReadFile(vschemaFile)
	if err != nil {
		return err
	}
	vschema, err = withoutSequences(vschema)
	if err != nil {
		return fmt.Errorf("%s: %w", vschemaFile, err)
	}
	shapes, err := readShapes(recordings)
	if err != nil {
		return err
	}

	// vtexplain simulates the shards' queries in slots of logical time and waits one slot,
	// 10 ms by default, for every statement: most of the check's time for thousands of
	// shapes. The shards a statement reaches do not depend on it.
	if err := servenv.GetFlagSetFor("vtexplain").Set("batch-interval", "10us"); err != nil {
		return err
	}

	ctx := context.Background()
	env, err := vtenv.New(vtenv.Options{MySQLServerVersion: "8.0.40"})
	if err != nil {
		return err
	}
	ts := memorytopo.NewServer(ctx, vtexplain.Cell)
	opts := &vtexplain.Options{NumShards: numShards, ReplicationMode: "ROW", ExecutionMode: vtexplain.ModeMulti, Normalize: true}
	vte, err := vtexplain.Init(ctx, env, ts, string(vschema), cleanSchema(schema.String()), "", opts, stats.NewCountersWithSingleLabel("", "srvtopo operations", "type"))
	if err != nil {
		return fmt.Errorf("vtexplain: %w", err)
	}
	// vte is not stopped: goroutines of its simulated tablets (the throttler's) outlive
	// Stop and then read the closed topology (a nil dereference in Vitess v0.24.4). It
	// holds memory only, and the command ends after the report.

	for _, s := range shapes {
		s.shards, s.err = plan(vte, keyspace, s.example)
	}
	return report(shapes, numShards, verbose, out)
}

// plan runs one statement through the planner and counts the shards of keyspace it
// reaches (0 for a statement that vtgate answers itself or that only touches an
// unsharded keyspace).
func plan(vte *vtexplain.VTExplain, keyspace, sql string) (n int, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("planner panic: %v", r)
		}
	}()
	explains, err := vte.Run(sql)
	if err != nil {
		return 0, err
	}
	reached := map[string]bool{}
	for _, e := range explains {
		for tablet := range e.TabletActions {
			if strings.HasPrefix(tablet, keyspace+"/") {
				reached[tablet] = true
			}
		}
	}
	return len(reached), nil
}

// withoutSequences drops the auto_increment sequences from the vschema. vtexplain's
// simulated tablets do not serve NEXT VALUE ("… is not a sequence"), and a sequence
// gives an inserted row its id without touching the row's shard: the insert is routed
// by its account either way.
func withoutSequences(vschema []byte) ([]byte, error) {
	var keyspaces map[string]map[string]json.RawMessage
	if err := json.Unmarshal(vschema, &keyspaces); err != nil {
		return nil, err
	}
	for _, ks := range keyspaces {
		raw, ok := ks["tables"]
		if !ok {
			continue
		}
		var tables map[string]map[string]json.RawMessage
		if err := json.Unmarshal(raw, &tables); err != nil {
			return nil, err
		}
		for _, t := range tables {
			delete(t, "auto_increment")
		}
		b, err := json.Marshal(tables)
		if err != nil {
			return nil, err
		}
		ks["tables"] = b
	}
	return json.Marshal(keyspaces)
}

// cleanSchema drops what mariadb-dump writes around the CREATE TABLE statements
// (version comments, SET, LOCK) and MariaDB table options the Vitess parser rejects.
func cleanSchema(dump string) string {
	var b strings.Builder
	for _, line := range strings.Split(dump, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "--") || strings.HasPrefix(t, "SET ") {
			continue
		}
		b.WriteString(line)
		b.WriteString("\n")
	}
	return b.String()
}

func origins(s *shape) string {
	o := make([]string, 0, len(s.origins))
	for k := range s.origins {
		o = append(o, k)
	}
	sort.Strings(o)
	return strings.Join(o, ", ")
}

func report(shapes []*shape, numShards int, verbose bool, out io.Writer) error {
	var one, scatter, unplannable, background int
	var bad []*shape
	for _, s := range shapes {
		switch {
		case !s.request:
			background++
		case s.err != nil:
			unplannable++
			bad = append(bad, s)
		case s.shards > 1:
			scatter++
			bad = append(bad, s)
		default:
			one++
		}
	}
	if verbose {
		for _, s := range shapes {
			kind := "request"
			if !s.request {
				kind = "background"
			}
			res := fmt.Sprintf("%d shard(s)", s.shards)
			if s.err != nil {
				res = "unplannable: " + cause(s.err)
			}
			fmt.Fprintf(out, "%-10s %s\n    %s\n    from %s\n", kind, res, s.text, origins(s))
		}
		fmt.Fprintln(out)
	}
	for _, s := range shapes {
		if !s.request && !verbose && (s.err != nil || s.shards > 1) {
			res := fmt.Sprintf("%d of %d shards", s.shards, numShards)
			if s.err != nil {
				res = "unplannable: " + cause(s.err)
			}
			fmt.Fprintf(out, "background (%s; run per shard, docs/SCALING.md)\n    %s\n    from %s\n", res, s.text, origins(s))
		}
	}
	for _, s := range bad {
		if s.err != nil {
			fmt.Fprintf(out, "UNPLANNABLE %s\n    %s\n    from %s\n", cause(s.err), s.text, origins(s))
		} else {
			fmt.Fprintf(out, "SCATTER (%d of %d shards)\n    %s\n    from %s\n", s.shards, numShards, s.text, origins(s))
		}
	}
	fmt.Fprintf(out, "\nstatement shapes on %d shards:\n", numShards)
	fmt.Fprintf(out, "| | statement shapes |\n|---|---:|\n")
	fmt.Fprintf(out, "| one shard | %d |\n| every shard (scatter) | %d |\n| not plannable by Vitess | %d |\n| background | %d |\n",
		one, scatter, unplannable, background)
	if len(bad) > 0 {
		return fmt.Errorf("%d request-path statement shapes reach more than one shard or cannot be planned", len(bad))
	}
	return nil
}

// cause is the planner's reason, without the statement that vtexplain repeats.
func cause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "': "); i >= 0 {
		msg = msg[i+3:]
	}
	return firstLine(msg)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
