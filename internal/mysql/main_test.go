package mysql_test

import (
	"context"
	"testing"

	"storefront/internal/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestMigrate(t *testing.T) {
	db := dbtest.New(t)
	// A second run finds nothing to do.
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'purchases'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("purchases table: got %d, %v", n, err)
	}
}
