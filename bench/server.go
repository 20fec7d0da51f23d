package main

import (
	"context"
	"database/sql"
	"fmt"
)

// sizeServer raises the database server's InnoDB buffer pool and redo log to the
// options' sizes when they are smaller (both are dynamic in MariaDB 10.11), and
// describes the server for the report's header. A server left at MariaDB's defaults (a
// 128 MiB buffer pool, a 96 MiB redo log) holds under a tenth of the bench database:
// every measurement then reads pages from disk and every seed or import stalls on
// flushing, which measures the server's configuration rather than the program.
func sizeServer(ctx context.Context, root *sql.DB, o options) (string, error) {
	raise := func(variable string, want int64) error {
		if want <= 0 {
			return nil
		}
		var have int64
		if err := root.QueryRowContext(ctx, "SELECT @@GLOBAL."+variable).Scan(&have); err != nil {
			return fmt.Errorf("read %s: %w", variable, err)
		}
		if have >= want {
			return nil
		}
		logf("raising the server's %s from %d MiB to %d MiB (-%s)", variable, have>>20, want>>20, map[string]string{
			"innodb_buffer_pool_size": "buffer-pool", "innodb_log_file_size": "redo-log"}[variable])
		if _, err := root.ExecContext(ctx, fmt.Sprintf("SET GLOBAL %s = %d", variable, want)); err != nil {
			return fmt.Errorf("set %s: %w", variable, err)
		}
		return nil
	}
	if err := raise("innodb_buffer_pool_size", o.bufferPool); err != nil {
		return "", err
	}
	if err := raise("innodb_log_file_size", o.redoLog); err != nil {
		return "", err
	}
	var (
		version          string
		pool, redo, sync int64
	)
	err := root.QueryRowContext(ctx, "SELECT @@version, @@innodb_buffer_pool_size, @@innodb_log_file_size, @@innodb_flush_log_at_trx_commit").
		Scan(&version, &pool, &redo, &sync)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("MariaDB %s, buffer pool %d MiB, redo log %d MiB, flush at commit %d", version, pool>>20, redo>>20, sync), nil
}
