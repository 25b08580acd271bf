#!/usr/bin/env bash
# Browser tests drive Debian's chromium through Playwright (executable_path=/usr/bin/chromium);
# Playwright's own browser download is unreachable here. Installs the package when missing.
set -euo pipefail
CHROMIUM=${HERALD_TEST_CHROMIUM:-/usr/bin/chromium}
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
echo "chromium not found at $CHROMIUM: installing Debian's chromium package" >&2
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get install -y -q chromium >/dev/null || { $SUDO apt-get update -q >/dev/null && $SUDO apt-get install -y -q chromium >/dev/null; }
test -x "$CHROMIUM"
