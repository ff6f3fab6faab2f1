#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL cluster: initdb in a temp dir, server on a free
# 127.0.0.1 port (trust auth, loopback only), DATABASE_URL exported, the command run, the server
# stopped and the dir removed. Uses Debian's packages (apt-get install postgresql); as root, the
# cluster runs as the `postgres` user (initdb refuses root).
#   scripts/with-postgres.sh cargo test -p proxy -- --ignored postgres
set -euo pipefail
bindir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
if [[ -z "$bindir" || ! -x "$bindir/initdb" ]]; then
  echo "with-postgres: PostgreSQL is not installed (apt-get install postgresql)" >&2
  exit 1
fi
tmp="$(mktemp -d)"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg=()
if [[ "$(id -u)" == 0 ]]; then
  chown postgres "$tmp"
  as_pg=(runuser -u postgres --)
fi
stop() {
  "${as_pg[@]}" "$bindir/pg_ctl" -D "$tmp/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap stop EXIT
"${as_pg[@]}" "$bindir/initdb" -D "$tmp/data" -U booktest --auth=trust -E UTF8 >/dev/null
"${as_pg[@]}" "$bindir/pg_ctl" -D "$tmp/data" -l "$tmp/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $tmp -c fsync=off" start >/dev/null
export DATABASE_URL="postgres://booktest@127.0.0.1:$port/postgres"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port" >&2
"$@"
