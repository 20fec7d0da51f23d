package webhook_test

import (
	"testing"

	"storefront/internal/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }
