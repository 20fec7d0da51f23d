#!/usr/bin/env bash
# The tests through a real vtgate (docs/SCALING.md, "On a real vtgate"): scripts/vitess.sh
# builds Vitess v0.24.4 from the Go module proxy (once, into VITESS_ROOT), starts
# vttestserver over MariaDB as a user that is not root (made when missing), migrates
# every shard, and stops everything on exit. The same tests as on MariaDB, with
# STOREFRONT_TEST_DSN at vtgate: the API's and the dashboard's (import, reactivation
# single and bulk, webhooks, export, the overview), the dashboard's walk in Chromium
# (TestBrowser_Dashboard), and the data layer's of import,
# reactivation, jobs, webhooks, export, the overview and TestVitess (what only a real
# vtgate can show). Each test in accounts of its own (dbtest.IDBase), one after another:
# the mail sender, deliverer and job runner a test starts serve every account.
#
#   bash scripts/vitess-tests.sh            # CI runs it after the MariaDB tests
#   VITESS_PORT=34800 bash scripts/vitess-tests.sh
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
export VITESS_FIRST_ID=10000000000 # the tests seed their own ids below it (dbtest.IDBase)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

set +e
bash scripts/vitess.sh bash -c '
  export STOREFRONT_TEST_VITESS=1 STOREFRONT_TEST_DSN=$STOREFRONT_VITESS_DSN
  rc=0
  go test -count=1 -p 1 -timeout 20m -v -skip Browser ./web || rc=1
  go test -count=1 -p 1 -timeout 10m -v -run "TestBrowser_Dashboard$" ./web || rc=1
  go test -count=1 -p 1 -timeout 10m -v \
    -run "TestVitess$|TestExecRows_PreparedOnce$|TestImport|TestPurchaseService_Reactivate|TestJobs_ConcurrentWorkers$|TestOverview_FiguresEqualRows|TestWebhookEvents_SameTransaction|TestExportPurchases_BothReads" \
    ./internal/mysql || rc=1
  exit $rc
' 2>&1 | tee "$log" | grep --line-buffered -E '^(ok|FAIL|--- FAIL|panic|== |STOREFRONT_VITESS_DSN)|the tests. accounts per shard|^\s+[a-z_]+_test\.go:'
status=${PIPESTATUS[0]}
set -e
pass=$(grep -cE '^\s*--- PASS' "$log" || true)
fail=$(grep -cE '^\s*--- FAIL' "$log" || true)
top=$(grep -cE '^--- (PASS|FAIL)' "$log" || true)
echo "through vtgate: $top top-level tests, $pass tests and subtests passed, $fail failed, in $(( $(date +%s) - start ))s"
exit "$status"
