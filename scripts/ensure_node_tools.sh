#!/usr/bin/env bash
# The Node tools the tests drive, both from the npm registry, each from its committed lockfile:
# - tools/node: the MCP Inspector CLI and the Node 22 it needs, and axe-core (the accessibility
#   engine the dashboard's browser tests inject into each page);
# - tools/conformance: the official MCP conformance suite (@modelcontextprotocol/conformance),
#   run on tools/node's Node 22.
# Each is installed into its node_modules when missing or older than its lockfile; the machine's
# Node only runs npm.
set -euo pipefail
tools="$(cd "$(dirname "$0")/../tools" && pwd)"
for dir in node conformance; do
  cd "$tools/$dir"
  stamp=node_modules/.herald-installed
  if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ]; then
    continue
  fi
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  touch "$stamp"
done
