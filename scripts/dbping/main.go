// Command dbping exits 0 when the MySQL/MariaDB server named by its DSN argument
// answers within five seconds. CI uses it to decide which database the tests get.
package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"

	_ "github.com/go-sql-driver/mysql"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dbping DSN")
		os.Exit(2)
	}
	db, err := sql.Open("mysql", os.Args[1])
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
