package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"
)

// benchVitess measures the API's list page and one purchase through a vtgate beside
// the same requests on MariaDB directly, in the same run, on the same seeded data
// (docs/SCALING.md, "On a real vtgate"): two servers of the same binary, one on a
// fresh database of the MariaDB server, one on the vtgate whose DSN scripts/vitess.sh
// exports (STOREFRONT_VITESS_DSN, its keyspaces freshly migrated and empty):
//
//	bash scripts/vitess.sh go run ./bench -only vitess [-vitess-purchases 10000]
func benchVitess(ctx context.Context, o options, bin string, root *sql.DB) error {
	gate := os.Getenv("STOREFRONT_VITESS_DSN")
	if gate == "" {
		return fmt.Errorf("-only vitess needs a vtgate: bash scripts/vitess.sh go run ./bench -only vitess")
	}
	logf("direct database %s; vtgate %s", o.vitessDB, gate)
	if err := recreate(ctx, root, o.vitessDB); err != nil {
		return err
	}
	type target struct {
		name, db, addr string
		t              tool
		srv            *server
		key            string
	}
	targets := []*target{
		{name: "MariaDB directly", db: o.vitessDB, addr: "127.0.0.1:18491", t: tool{bin: bin, rootDSN: o.rootDSN}},
		{name: "through vtgate (2 shards)", db: "", addr: "127.0.0.1:18492", t: tool{bin: bin, rootDSN: gate}},
	}
	for _, tg := range targets {
		logf("%s: seeding %d purchases", tg.name, o.vitessN)
		if _, err := tg.t.run(ctx, tg.db, "", "migrate"); err != nil && tg.db != "" {
			return err
		}
		if _, err := tg.t.runTimed(ctx, tg.db, "seed", "--purchases", fmt.Sprint(o.vitessN), "--subscribers", fmt.Sprint(o.vitessN/10)); err != nil {
			return err
		}
		out, err := tg.t.run(ctx, tg.db, "", "apikey", "create", "--account", "1", "--name", "bench", "--scope", "read_write")
		if err != nil {
			return err
		}
		tg.key = strings.TrimSpace(out)
		oo := o
		oo.db, oo.addr = tg.db, tg.addr
		if tg.srv, err = startServer(ctx, tg.t, oo); err != nil {
			return err
		}
		defer tg.srv.stop()
	}
	// The same purchases of account 1 on both.
	direct, err := openBare(ctx, o.rootDSN+o.vitessDB)
	if err != nil {
		return err
	}
	defer direct.Close()
	ids, err := purchaseIDs(ctx, direct, "SELECT id FROM purchases WHERE account_id = 1 ORDER BY id LIMIT 200")
	if err != nil {
		return err
	}
	paths := purchasePaths(ids)

	client := newClient()
	type result struct{ list, get [3]stats }
	res := make([]result, len(targets))
	// Three rounds, the targets in turn, so that a change of the machine's load falls
	// on both.
	for round := range 3 {
		for i, tg := range targets {
			h := http.Header{"Authorization": {"Bearer " + tg.key}, "Cache-Control": {"no-cache"}}
			base := "http://" + tg.addr
			res[i].list[round] = load(client, 1, o.dur, getter(base, []string{"/api/v2/purchases"}, h))
			res[i].get[round] = load(client, 1, o.dur, getter(base, paths, h))
			logf("%s, round %d: list p50 %s, GET p50 %s", tg.name, round+1, ms(res[i].list[round].pct(0.5)), ms(res[i].get[round].pct(0.5)))
		}
	}
	median := func(s [3]stats) (time.Duration, int) {
		a := []time.Duration{s[0].pct(0.5), s[1].pct(0.5), s[2].pct(0.5)}
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if a[j] < a[i] {
					a[i], a[j] = a[j], a[i]
				}
			}
		}
		return a[1], s[0].errs + s[1].errs + s[2].errs
	}
	fmt.Printf("Storefront bench, Vitess, %s: %d CPUs, %s; code %s; load average at start %s; %d purchases seeded in each.\n\n",
		time.Now().Format("2006-01-02 15:04"), runtime.NumCPU(), runtime.Version(), gitCommit(), loadavg(), o.vitessN)
	fmt.Println("| request (1 client, no-cache) | MariaDB directly p50 | through vtgate p50 | errors |")
	fmt.Println("|---|---:|---:|---:|")
	for _, row := range []struct {
		name string
		get  func(r result) [3]stats
	}{
		{"GET /api/v2/purchases (first page)", func(r result) [3]stats { return r.list }},
		{"GET /api/v2/purchases/:id", func(r result) [3]stats { return r.get }},
	} {
		d, e1 := median(row.get(res[0]))
		v, e2 := median(row.get(res[1]))
		fmt.Printf("| %s | %s ms | %s ms | %d |\n", row.name, ms(d), ms(v), e1+e2)
	}
	return nil
}
