#!/usr/bin/env bash
# A throwaway PostgreSQL server (Debian's), for the store's tests and bench:
# its data directory and socket under DIR, run as the unprivileged user
# nobody, no TCP (the port only names the socket), fsync off.
#   scripts/pg-throwaway.sh start DIR   prints the connection string of its postgres database
#   scripts/pg-throwaway.sh createdb DIR NAME   prints NAME's
#   scripts/pg-throwaway.sh stop DIR    ends it (its postmaster by PID if pg_ctl did not)
set -euo pipefail
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "${PGBIN:-}/initdb" ] || { echo "pg-throwaway: PostgreSQL is not installed (scripts/install-deps.sh)" >&2; exit 1; }
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: pg-throwaway.sh start|createdb|stop DIR [NAME]" >&2; exit 2; }
as_pg() { (cd "$dir" && setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"); }
conn() { echo "host=$dir port=5432 user=lab dbname=$1"; }
case "$cmd" in
  start)
    mkdir -p "$dir"
    chown nobody:nogroup "$dir"
    setpriv --reuid=nobody --regid=nogroup --clear-groups test -w "$dir" ||
      { echo "pg-throwaway: $dir cannot be reached by nobody (a parent directory closed to others?)" >&2; exit 1; }
    as_pg "$PGBIN/initdb" -D "$dir/data" -A trust -U lab --locale=C -E UTF8 --no-sync > "$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    as_pg "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-k $dir -c listen_addresses= -p 5432 -c fsync=off -c max_connections=40" start > /dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    conn postgres ;;
  createdb)
    "$PGBIN/createdb" -h "$dir" -p 5432 -U lab "$3"
    conn "$3" ;;
  stop)
    pid=$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null || true)
    as_pg "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop > /dev/null 2>&1 || true
    if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = postgres ]; then kill -KILL "$pid" 2>/dev/null || true; fi ;;
  *) echo "pg-throwaway: unknown command $cmd" >&2; exit 2 ;;
esac
