#!/usr/bin/env bash
# Installs the Debian packages storefront needs to run and to test, when they are
# missing: mariadb-server (the database), chromium and a font (the browser tests). Quick when
# everything is there already.
set -euo pipefail
need=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || need+=(chromium)
# Without a font the browser tests would measure layout drawn in boxes.
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
