#!/usr/bin/env bash
# The front-end libraries the dashboard serves to browsers (facades/web/assets: the calendar's
# @event-calendar/build, the analytics charts' chart.js), from the npm registry, exactly as its
# committed package-lock.json pins them. Installed into facades/web/assets/node_modules when
# missing or older than the lockfile; after that, nothing is fetched again (make run works
# offline). The facade serves only the files it names (facades/web/calendar_assets.py,
# chart_assets.py), never from a CDN. The machine's npm (Debian's nodejs and npm packages) only
# installs: nothing runs on Node at run time.
set -euo pipefail
assets="$(cd "$(dirname "$0")/../facades/web/assets" && pwd)"
cd "$assets"
stamp=node_modules/.herald-installed
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ]; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "ensure_web_assets: npm is needed to install the dashboard's front-end libraries (Debian: apt-get install npm)" >&2
  exit 1
fi
npm ci --no-audit --no-fund --loglevel=error >/dev/null
touch "$stamp"
