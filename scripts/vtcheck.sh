#!/usr/bin/env bash
# Plans every statement the server sends during the web tests (API, dashboard,
# reactivation, sign-in), and every statement shape the list planners can produce
# (internal/mysql TestStatementShapes), with Vitess's own planner on 4 shards, against the migrated
# schema plus db/vitess/lookup.sql and db/vitess/vschema.json, and fails when a
# statement of the request path reaches more than one shard or cannot be planned
# (docs/SCALING.md, "Checked by Vitess's planner").
#
#   bash scripts/vtcheck.sh                 # records with go test ./web ./internal/mail ./internal/mysql, then plans
#   bash scripts/vtcheck.sh FILE...         # plans recordings made with STOREFRONT_RECORD_SQL=FILE
#   VTCHECK_FLAGS=-v bash scripts/vtcheck.sh  # lists every shape with its shard count
#
# The database is STOREFRONT_TEST_DSN's, else a private mariadbd.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

recordings=("$@")
if [ ${#recordings[@]} -eq 0 ]; then
  recordings=("$work/statements.jsonl")
  echo "== recording the statements of go test ./web ./internal/mail ./internal/mysql"
  if ! STOREFRONT_RECORD_SQL="$work/statements.jsonl" go test -count=1 ./web ./internal/mail ./internal/mysql >"$work/test.log" 2>&1; then
    tail -n 60 "$work/test.log"; echo "the tests failed; nothing was planned"; exit 1
  fi
fi

echo "== migrated schema (mariadb-dump --no-data)"
go run ./scripts/schemadump "${STOREFRONT_TEST_DSN:-}" >"$work/schema.sql"

echo "== building and testing the planner (tools/vtcheck, vitess.io/vitess)"
(cd tools/vtcheck && go build -o "$work/vtcheck" . && go test -count=1 .)

echo "== planning on 4 shards"
"$work/vtcheck" ${VTCHECK_FLAGS:-} -shards 4 -schema "$work/schema.sql" -schema db/vitess/lookup.sql \
  -vschema db/vitess/vschema.json "${recordings[@]}"
