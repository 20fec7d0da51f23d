package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"storefront/internal/mysql"
)

func (e *env) apikeyCreate(ctx context.Context, args []string) error {
	fs := newFlags("apikey create")
	account := fs.Int64("account", 0, "account id")
	name := fs.String("name", "", "a name to recognise the key by")
	scope := fs.String("scope", "read", "read or read_write")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *account <= 0 {
		return usagef("apikey create: --account ID is required")
	}
	if *scope != "read" && *scope != "read_write" {
		return usagef("apikey create: --scope must be read or read_write, not %q", *scope)
	}
	d, err := e.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.Close()
	key, err := mysql.NewAdminService(d.DB).CreateAPIKey(ctx, *account, *name, *scope)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, key)
	return nil
}

func (e *env) userCreate(ctx context.Context, args []string) error {
	fs := newFlags("user create")
	account := fs.Int64("account", 0, "account id")
	email := fs.String("email", "", "e-mail address to sign in with")
	role := fs.String("role", "", "owner, staff or viewer")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *account <= 0 || *email == "" || *role == "" {
		return usagef("user create: --account, --email and --role are required")
	}
	if *role != "owner" && *role != "staff" && *role != "viewer" {
		return usagef("user create: --role must be owner, staff or viewer, not %q", *role)
	}
	line, err := bufio.NewReader(e.stdin).ReadString('\n')
	if err != nil && line == "" {
		return fmt.Errorf("user create: no password on standard input")
	}
	password := strings.TrimRight(line, "\r\n")
	d, err := e.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.Close()
	id, err := mysql.NewAdminService(d.DB).CreateUser(ctx, *account, *email, *role, password)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "created user %d (%s, %s)\n", id, *email, *role)
	return nil
}

func (e *env) rollupsRebuild(ctx context.Context, args []string) error {
	fs := newFlags("rollups rebuild")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("rollups rebuild takes no arguments")
	}
	d, err := e.openDatabase(ctx)
	if err != nil {
		return err
	}
	defer d.Close()
	n, err := mysql.RebuildRollups(ctx, d.DB.DB)
	if err != nil {
		return fmt.Errorf("rollups rebuild: %w", err)
	}
	fmt.Fprintf(e.stderr, "rebuilt the rollups of %d accounts\n", n)
	return nil
}
