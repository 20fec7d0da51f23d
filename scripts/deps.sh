#!/usr/bin/env bash
# Installs the Debian packages storefront needs to run and to test, when they are
# missing: mariadb-server (the database), chromium and a font (the browser tests), prometheus
# (its promtool checks the metrics and the alerting rules). Quick when
# everything is there already.
set -euo pipefail
need=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
# promtool (Debian's prometheus package) checks the metrics and docs/alerts.yml.
command -v promtool >/dev/null 2>&1 || need+=(prometheus)
# Without a font the browser tests would measure layout drawn in boxes.
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
