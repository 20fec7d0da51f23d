// Command schemadump prints the schema that the migrations build, as
// `mariadb-dump --no-data` writes it: it makes a fresh database on the server named by
// its DSN argument (or on a private mariadbd when there is none), migrates it, dumps
// it and drops it. scripts/vtcheck.sh plans the recorded statements against it.
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"

	gomysql "github.com/go-sql-driver/mysql"

	"storefront/internal/mariadb"
	"storefront/internal/mysql"
)

func main() {
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: schemadump [DSN]")
		os.Exit(2)
	}
	dsn := ""
	if len(os.Args) == 2 {
		dsn = os.Args[1]
	}
	if err := run(context.Background(), dsn); err != nil {
		fmt.Fprintln(os.Stderr, "schemadump:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dsn string) error {
	if dsn == "" {
		dir, err := os.MkdirTemp("", "sfschema")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		srv, err := mariadb.Start(ctx, dir)
		if err != nil {
			return err
		}
		defer srv.Stop()
		dsn = srv.DSN("")
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return err
	}
	cfg.DBName = ""
	admin, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "sfschema_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		return err
	}
	defer admin.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name)

	cfg.DBName = name
	db, err := mysql.Open(ctx, cfg.FormatDSN())
	if err != nil {
		return err
	}
	err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		return err
	}

	args := []string{"--no-data", "--skip-comments", "--skip-add-drop-table", "--skip-set-charset", "--user=" + cfg.User}
	if cfg.Passwd != "" {
		args = append(args, "--password="+cfg.Passwd)
	}
	if cfg.Net == "unix" {
		args = append(args, "--socket="+cfg.Addr)
	} else {
		host, port, err := net.SplitHostPort(cfg.Addr)
		if err != nil {
			return err
		}
		args = append(args, "--protocol=tcp", "--host="+host, "--port="+port)
	}
	cmd := exec.CommandContext(ctx, "mariadb-dump", append(args, name)...)
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	return cmd.Run()
}
