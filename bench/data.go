package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"storefront/internal/mysql"
	"storefront/internal/shop"
)

// tool runs the storefront binary against one database.
type tool struct {
	bin     string
	rootDSN string // DSN of the server, no database
}

func (t tool) env(db string, extra ...string) []string {
	return append(append(os.Environ(), "STOREFRONT_DSN="+t.rootDSN+db), extra...)
}

// run runs a storefront command against db and returns its standard output.
func (t tool) run(ctx context.Context, db, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, t.bin, args...)
	cmd.Env = t.env(db)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("storefront %s: %w\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String(), nil
}

// runTimed runs a storefront command with its progress on our stderr, and times it.
func (t tool) runTimed(ctx context.Context, db string, args ...string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, t.bin, args...)
	cmd.Env = t.env(db)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("storefront %s: %w", strings.Join(args, " "), err)
	}
	return time.Since(start), nil
}

// openDB opens dsn (the database server, or a database on it) with the server's
// driver settings (mysql.NormalizeDSN) and checks that it answers.
func openDB(ctx context.Context, dsn string) (*sql.DB, error) {
	norm, err := mysql.NormalizeDSN(dsn)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("mysql", norm)
	if err != nil {
		return nil, err
	}
	return db, db.PingContext(ctx)
}

func recreate(ctx context.Context, root *sql.DB, name string) error {
	if _, err := root.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
		return err
	}
	_, err := root.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
	return err
}

// ensureBenchDB reuses the bench database when it holds at least the wanted number of
// purchases, else (re)creates and seeds it. It returns the seed time when it seeded.
func ensureBenchDB(ctx context.Context, t tool, root *sql.DB, o options) (time.Duration, error) {
	var n int64
	err := root.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+o.db+".purchases").Scan(&n)
	if err == nil && n >= int64(o.purchases) {
		logf("reusing %s: %d purchases", o.db, n)
		return 0, nil
	}
	if err == nil {
		logf("%s holds %d purchases, fewer than %d: seeding it again", o.db, n, o.purchases)
	} else {
		logf("%s is missing or empty: seeding it (%d purchases, %d subscribers; about 4 minutes for a million)", o.db, o.purchases, o.subscribers)
	}
	if err := recreate(ctx, root, o.db); err != nil {
		return 0, err
	}
	if _, err := t.run(ctx, o.db, "", "migrate"); err != nil {
		return 0, err
	}
	return t.runTimed(ctx, o.db, "seed", "--purchases", fmt.Sprint(o.purchases), "--subscribers", fmt.Sprint(o.subscribers))
}

// measureSeed seeds a scratch database and returns the time taken.
func measureSeed(ctx context.Context, t tool, root *sql.DB, name string, purchases, subscribers int) (time.Duration, error) {
	if err := recreate(ctx, root, name); err != nil {
		return 0, err
	}
	defer root.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name)
	if _, err := t.run(ctx, name, "", "migrate"); err != nil {
		return 0, err
	}
	awaitFlushed(ctx, root)
	return t.runTimed(ctx, name, "seed", "--purchases", fmt.Sprint(purchases), "--subscribers", fmt.Sprint(subscribers))
}

// awaitFlushed waits, at most two minutes, until InnoDB has written back almost every
// page changed before (fewer than 200 dirty pages left). On the 2-core development
// machine a timed write that started while the previous one's pages were still being
// flushed ran up to 20 % slower, as much as the differences the rates are compared for
// (docs/PERFORMANCE.md, "Multi-row writes prepared").
func awaitFlushed(ctx context.Context, root *sql.DB) {
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		var name string
		var dirty int64
		if err := root.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'").Scan(&name, &dirty); err != nil || dirty < 200 {
			return
		}
		time.Sleep(time.Second)
	}
}

// importFiles names the two import files of n purchases in dir.
func importFiles(dir string, n int) (head, body string) {
	return filepath.Join(dir, "import-head.json"), filepath.Join(dir, fmt.Sprintf("import-purchases-%d.json", n))
}

// importFilesExist reports whether both import files of n purchases are in dir.
func importFilesExist(dir string, n int) bool {
	head, body := importFiles(dir, n)
	for _, f := range []string{head, body} {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	return true
}

// measureImport writes an export of the bench database's accounts, storefronts and
// subscribers, and a second one of n of its purchases (unless both are in dir from an
// earlier run with -import-dir), imports both into a scratch database and returns the
// time of the purchases' import.
func measureImport(ctx context.Context, t tool, root *sql.DB, o options, dir string, n int) (time.Duration, error) {
	head, body := importFiles(dir, n)
	if o.importDir != "" && importFilesExist(dir, n) {
		logf("import: reusing %s and %s", head, body)
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return 0, err
		}
		db, err := mysql.Open(ctx, o.rootDSN+o.db)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		logf("import: writing %s and %s", head, body)
		// Written under temporary names, so that an interrupted run leaves no file
		// that a later one would take as whole.
		if err := writeHead(ctx, db, head+".tmp"); err != nil {
			return 0, err
		}
		if err := writePurchases(ctx, db, body+".tmp", n); err != nil {
			return 0, err
		}
		for _, f := range []string{head, body} {
			if err := os.Rename(f+".tmp", f); err != nil {
				return 0, err
			}
		}
	}
	name := o.scratch + "_import"
	if err := recreate(ctx, root, name); err != nil {
		return 0, err
	}
	defer root.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name)
	if _, err := t.run(ctx, name, "", "migrate"); err != nil {
		return 0, err
	}
	if _, err := t.runTimed(ctx, name, "import", head); err != nil {
		return 0, err
	}
	awaitFlushed(ctx, root)
	return t.runTimed(ctx, name, "import", body)
}

func writeHead(ctx context.Context, db *mysql.DB, path string) error {
	var accounts []shop.Account
	rows, err := db.QueryContext(ctx, "SELECT id, name, api_username, timezone FROM accounts ORDER BY id")
	if err != nil {
		return err
	}
	for rows.Next() {
		var a shop.Account
		if err := rows.Scan(&a.ID, &a.Name, &a.APIUsername, &a.Timezone); err != nil {
			rows.Close()
			return err
		}
		accounts = append(accounts, a)
	}
	rows.Close()
	var sfs []shop.Storefront
	rows, err = db.QueryContext(ctx, "SELECT id, account_id, name, currency, download_limit, download_days, past_due_grace_days FROM storefronts ORDER BY id")
	if err != nil {
		return err
	}
	for rows.Next() {
		var s shop.Storefront
		if err := rows.Scan(&s.ID, &s.AccountID, &s.Name, &s.Currency, &s.DownloadLimit, &s.DownloadDays, &s.PastDueGraceDays); err != nil {
			rows.Close()
			return err
		}
		sfs = append(sfs, s)
	}
	rows.Close()
	return writeDocument(path, func(w *bufio.Writer, enc *json.Encoder) error {
		fmt.Fprint(w, `{"accounts":`)
		enc.Encode(accounts)
		fmt.Fprint(w, `,"storefronts":`)
		enc.Encode(sfs)
		fmt.Fprint(w, `,"subscribers":[`)
		first := true
		for _, s := range sfs {
			var after *shop.Cursor
			for {
				page, err := mysql.NewSubscriberService(db).FindSubscribers(ctx, shop.SubscriberFilter{AccountID: s.AccountID, StorefrontID: s.ID, PerPage: shop.MaxPerPage, After: after})
				if err != nil {
					return err
				}
				for _, sub := range page.Subscribers {
					if !first {
						w.WriteByte(',')
					}
					first = false
					// The API shows the storefront through the path; the import format
					// carries it in the record.
					rec := struct {
						*shop.Subscriber
						StorefrontID int64 `json:"storefront_id"`
					}{sub, s.ID}
					if err := enc.Encode(rec); err != nil {
						return err
					}
				}
				if page.Next == nil {
					break
				}
				after = page.Next
			}
		}
		fmt.Fprint(w, "],\"purchases\":[]}\n")
		return nil
	})
}

// writePurchases writes the newest n purchases of account 1 as an import document,
// each as the API shows it.
func writePurchases(ctx context.Context, db *mysql.DB, path string, n int) error {
	return writeDocument(path, func(w *bufio.Writer, enc *json.Encoder) error {
		fmt.Fprint(w, `{"purchases":[`)
		var after *shop.Cursor
		written := 0
		for written < n {
			page, err := mysql.NewPurchaseService(db).FindPurchases(ctx, shop.PurchaseFilter{AccountID: 1, Desc: true, PerPage: min(shop.MaxPerPage, n-written), After: after})
			if err != nil {
				return err
			}
			for _, p := range page.Purchases {
				if written > 0 {
					w.WriteByte(',')
				}
				if err := enc.Encode(p); err != nil {
					return err
				}
				written++
			}
			if page.Next == nil {
				break
			}
			after = page.Next
		}
		if written < n {
			return errors.New("import: the bench database has too few purchases for the import file")
		}
		fmt.Fprint(w, "]}\n")
		return nil
	})
}

// writeDocument writes the file at path through a buffer: fn writes its content to w,
// or to enc, an encoder on w.
func writeDocument(path string, fn func(w *bufio.Writer, enc *json.Encoder) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fn(w, json.NewEncoder(w)); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
