#!/usr/bin/env bash
# Runs storefront's schema on a real Vitess: vtgate over two shards of the keyspace
# `storefront` and the unsharded `lookup` (db/vitess/vschema.json), Vitess's vttestserver
# over Debian's MariaDB 10.11 (docs/SCALING.md, "On a real vtgate").
#
#   bash scripts/vitess.sh                  # start, migrate, print the DSN, wait for Ctrl-C
#   bash scripts/vitess.sh COMMAND [ARG...] # start, migrate, run COMMAND with
#                                           # STOREFRONT_VITESS_DSN set, stop
#   VITESS_PORT=33800 (vtgate's MySQL port is VITESS_PORT+3, mysqld's VITESS_PORT+2)
#   VITESS_ROOT=/var/tmp/storefront-vitess/v0.24.4 (binaries and config, built once)
#   VITESS_FIRST_ID=1 (the least id the sequences hand out; the tests, which seed their
#   own ids, use 1000000)
#
# Vitess v0.24.4 (the version tools/vtcheck uses) is built from the Go module proxy into
# VITESS_ROOT the first time (about 2 minutes on 2 cores) and reused after. vttestserver
# refuses to run mysqld as root: as root the script runs it as the user `vitess` (created
# when missing). Everything it started is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
version=v0.24.4
root=${VITESS_ROOT:-/var/tmp/storefront-vitess/$version}
port=${VITESS_PORT:-33800}
user=${VITESS_USER:-vitess}
dsn="root@tcp(127.0.0.1:$((port + 3)))/"

# 1. Binaries, built once from the module proxy.
if [ ! -x "$root/bin/vttestserver" ] || [ ! -x "$root/bin/vtcombo" ] || [ ! -x "$root/bin/mysqlctl" ]; then
  echo "== building Vitess $version into $root/bin (once)"
  src=$(go mod download -json "vitess.io/vitess@$version" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  mkdir -p "$root/bin"
  # Vitess's go.mod has exclude directives, so `go install …@version` refuses it; it is
  # built as its own main module instead.
  (cd "$src" && GOFLAGS=-buildvcs=false go build -o "$root/bin/" ./go/cmd/vttestserver ./go/cmd/vtcombo ./go/cmd/mysqlctl)
fi

# 2. Vitess's config/, adjusted for MariaDB 10.11.
if [ ! -f "$root/config/init_db.sql" ] || grep -q super_read_only "$root/config/init_db.sql"; then
  src=$(go mod download -json "vitess.io/vitess@$version" | sed -n 's/^\s*"Dir": "\(.*\)",$/\1/p')
  rm -rf "$root/config" && cp -r "$src/config" "$root/config" && chmod -R u+w "$root/config"
  # MariaDB has no super_read_only: an unknown option would stop mysqld, a loose one not.
  sed -i 's/^super-read-only = false/loose-super-read-only = false/' "$root/config/mycnf/test-suite.cnf"
  sed -i '/super_read_only/d' "$root/config/init_db.sql"
fi
# Loopback only; Debian's MariaDB has no semisync plugin to load; utf8mb4, else tables
# are made utf8mb3 and refuse an emoji. The session settings storefront's connections
# ask for are the tablets' own defaults, so that vtgate has nothing to apply: UTC
# (time_zone '+00:00') and REPEATABLE READ. MariaDB 10.11 names the isolation
# tx_isolation (transaction_isolation only from 11.1), which vtgate cannot set or
# check: vtgate runs with below and the transactions
# storefront begins READ COMMITTED run REPEATABLE READ on this test bed (MySQL 8
# tablets honour them; docs/SCALING.md).
cat >"$root/config/storefront.cnf" <<'EOF'
[mysqld]
bind-address = 127.0.0.1
plugin-load =
character-set-server = utf8mb4
collation-server = utf8mb4_unicode_ci
transaction-isolation = REPEATABLE-READ
EOF
chmod -R a+rX "$root"

# 3. A user that is not root.
run=()
if [ "$(id -u)" = 0 ]; then
  id "$user" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$user"
  run=(runuser -u "$user" --)
fi

# 4. Keyspaces and their vschemas; the tables come from the migrations below.
work=$(mktemp -d /tmp/storefront-vitess.XXXXXX)
mkdir -p "$work/schema/storefront" "$work/schema/lookup" "$work/data/cluster"
python3 - "$repo/db/vitess/vschema.json" "$work/schema" <<'EOF'
import json, sys
vs = json.load(open(sys.argv[1]))
for ks, v in vs.items():
    json.dump(v, open(f"{sys.argv[2]}/{ks}/vschema.json", "w"), indent=1)
EOF
cp "$repo/db/vitess/lookup.sql" "$work/schema/lookup/"
chmod -R a+rwX "$work"
[ ${#run[@]} -eq 0 ] || chown -R "$user" "$work"

pid=
stop() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT TERM

echo "== starting vttestserver (vtgate's MySQL port $((port + 3)), log $work/vttestserver.log)"
"${run[@]}" env VTROOT="$root" VTDATAROOT="$work/data" HOME="$work" \
  "$root/bin/vttestserver" --port "$port" --keyspaces storefront,lookup --num-shards 2,1 \
  --schema-dir "$work/schema" --data-dir "$work/data/cluster" --mysql-bind-host 127.0.0.1 \
  --vtcombo-bind-host 127.0.0.1 --extra-my-cnf "$root/config/storefront.cnf" \
  --charset utf8mb4 --foreign-key-mode allow --enable-online-ddl=false \
  --replica-count 1 --rdonly-count 0 --queryserver-config-transaction-timeout 10m >"$work/vttestserver.log" 2>&1 &
pid=$!

# 5. Wait until the three primaries serve.
for i in $(seq 1 120); do
  if ! kill -0 "$pid" 2>/dev/null; then tail -n 40 "$work/vttestserver.log"; echo "vttestserver stopped"; exit 1; fi
  n=$(mysql -h 127.0.0.1 -P $((port + 3)) -u root -N -e 'SHOW VITESS_TABLETS' 2>/dev/null | awk '$4 == "PRIMARY" && $5 == "SERVING"' | wc -l || true)
  [ "$n" = 3 ] && break
  sleep 1
done
[ "$n" = 3 ] || { tail -n 40 "$work/vttestserver.log"; echo "the three primaries did not serve within 2 minutes"; exit 1; }
mysql -h 127.0.0.1 -P $((port + 3)) -u root -e 'SHOW VITESS_TABLETS'

# 6. The schema: the migrations on every shard of `storefront` and on `lookup`, each
# targeted through vtgate (docs/SCALING.md).
echo "== migrating every shard"
go run ./scripts/vtmigrate -dsn "$dsn" -first "${VITESS_FIRST_ID:-1}"

echo "STOREFRONT_VITESS_DSN=$dsn"
export STOREFRONT_VITESS_DSN=$dsn
if [ $# -gt 0 ]; then
  "$@"
else
  echo "== serving; Ctrl-C stops it"
  wait "$pid"
fi
