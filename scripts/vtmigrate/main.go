// Command vtmigrate applies storefront's migrations through a vtgate: to every shard of
// the keyspace `storefront` and to the unsharded `lookup`, each targeted by name
// (`storefront:-80`, …), so that each shard runs them as one MariaDB/MySQL database would.
// In `lookup` it then keeps only the tables db/vitess/vschema.json places there, and it
// starts every sequence past the largest id already in its table (docs/SCALING.md, "On a
// real vtgate"). scripts/vitess.sh runs it.
//
//	go run ./scripts/vtmigrate -dsn 'root@tcp(127.0.0.1:33803)/'
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"storefront/internal/mysql"
	"storefront/internal/sqlrows"
)

func main() {
	dsn := flag.String("dsn", "", "vtgate's DSN, without a database")
	vschemaFile := flag.String("vschema", "db/vitess/vschema.json", "keyspace name → vschema")
	first := flag.Int64("first", 1, "the least id a sequence hands out (tests that insert their own ids pick a first id past them)")
	flag.Parse()
	if err := run(context.Background(), *dsn, *vschemaFile, *first); err != nil {
		log.Fatal(err)
	}
}

type keyspace struct {
	Sharded bool `json:"sharded"`
	Tables  map[string]struct {
		Type          string `json:"type"`
		AutoIncrement *struct {
			Column   string `json:"column"`
			Sequence string `json:"sequence"`
		} `json:"auto_increment"`
	} `json:"tables"`
}

func run(ctx context.Context, dsn, vschemaFile string, first int64) error {
	b, err := os.ReadFile(vschemaFile)
	if err != nil {
		return err
	}
	var vschema map[string]keyspace
	if err := json.Unmarshal(b, &vschema); err != nil {
		return fmt.Errorf("%s: %w", vschemaFile, err)
	}
	open := func(target string) (*mysql.DB, error) {
		cfg, err := gomysql.ParseDSN(dsn)
		if err != nil {
			return nil, err
		}
		cfg.DBName = target
		return mysql.Open(ctx, cfg.FormatDSN())
	}
	gate, err := open("")
	if err != nil {
		return err
	}
	defer gate.Close()

	// Every shard of every keyspace, as vtgate lists them.
	shards, err := sqlrows.Collect(ctx, gate, sqlrows.Value[string], "SHOW VITESS_SHARDS")
	if err != nil {
		return err
	}
	var targets []string
	for _, s := range shards {
		ks, shard, _ := strings.Cut(s, "/")
		if _, ok := vschema[ks]; ok {
			targets = append(targets, ks+":"+shard)
		}
	}

	for _, target := range targets {
		db, err := open(target)
		if err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
		err = db.MigrateUnlocked(ctx)
		if err == nil {
			err = keepOnly(ctx, db, vschema[strings.SplitN(target, ":", 2)[0]])
		}
		db.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", target, err)
		}
		fmt.Println("migrated", target)
	}
	return seedSequences(ctx, gate, vschema, first)
}

// keepOnly drops, in an unsharded keyspace, the migrated tables its vschema does not
// list: `lookup` serves api_rate_buckets and sign_in_failures of the migrations, beside
// its own tables (db/vitess/lookup.sql), and a second copy of a tenant table there would
// make that table's name ambiguous to vtgate.
func keepOnly(ctx context.Context, db *mysql.DB, ks keyspace) error {
	if ks.Sharded {
		return nil
	}
	tables, err := sqlrows.Collect(ctx, db, sqlrows.Value[string], "SHOW TABLES")
	if err != nil {
		return err
	}
	var drop []string
	for _, t := range tables {
		if _, ok := ks.Tables[t]; !ok && t != "goose_db_version" {
			drop = append(drop, "`"+t+"`")
		}
	}
	if len(drop) == 0 {
		return nil
	}
	if _, err := db.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS = 0"); err != nil {
		return err
	}
	_, err = db.ExecContext(ctx, "DROP TABLE "+strings.Join(drop, ", "))
	return err
}

// seedSequences gives every sequence its row, its next id past the largest id of its
// table on every shard (vtgate's MAX over the shards) and at least first, so that ids
// stay unique. A sequence never moves back.
func seedSequences(ctx context.Context, gate *mysql.DB, vschema map[string]keyspace, first int64) error {
	for _, ks := range vschema {
		for table, t := range ks.Tables {
			if t.AutoIncrement == nil {
				continue
			}
			var top int64
			q := fmt.Sprintf("SELECT COALESCE(MAX(`%s`), 0) FROM `%s`", t.AutoIncrement.Column, table)
			// vtgate learns a shard's new tables and columns from its schema
			// tracking, about a second after the DDL: a column it does not know
			// yet is asked again.
			var err error
			for try := 0; try < 20; try++ {
				if err = gate.QueryRowContext(ctx, q).Scan(&top); err == nil || !strings.Contains(err.Error(), "not found") {
					break
				}
				time.Sleep(500 * time.Millisecond)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
			seq := t.AutoIncrement.Sequence
			if _, err := gate.ExecContext(ctx, "INSERT INTO "+seq+" (id, next_id, cache) VALUES (0, ?, 100) ON DUPLICATE KEY UPDATE next_id = GREATEST(next_id, VALUES(next_id))", max(top+1, first)); err != nil {
				return fmt.Errorf("%s: %w", seq, err)
			}
		}
	}
	return nil
}
