#!/usr/bin/env bash
# Makes sure the PostgreSQL server the tests use answers on 127.0.0.1:5432: starts the local
# cluster if it is down, installs Debian's server first if the machine has none.
set -euo pipefail
ready() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
ready && exit 0
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "ensure_postgres: installing PostgreSQL from Debian's packages" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
version=$(ls /etc/postgresql | sort -V | tail -n1)
pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
for _ in $(seq 1 60); do ready && exit 0; sleep 0.5; done
echo "ensure_postgres: PostgreSQL did not come up on 127.0.0.1:5432" >&2
exit 1
