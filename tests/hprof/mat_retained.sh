#!/usr/bin/env bash
# tests/hprof/mat_retained.sh DUMP OURS.tsv OUT.tsv: an independent computation
# of reachable-only retained sizes over Eclipse MAT's object graph
# (tests/java/MatRetained.java), with the shallow sizes of OURS.tsv (the
# analyzer's --retained-tsv). OUT.tsv: id and retained size, or `unreachable`,
# one line per object sorted by id; one JSON line on stdout.
set -euo pipefail
[ -r "${1:-}" ] && [ -r "${2:-}" ] && [ -n "${3:-}" ] && [ $# -eq 3 ] ||
    { echo "mat_retained: usage: mat_retained.sh DUMP OURS.tsv OUT.tsv" >&2; exit 2; }
command -v java >/dev/null || { echo "mat_retained: java missing (Debian package openjdk-17-jdk-headless)" >&2; exit 1; }
here=$(cd "$(dirname "$0")/../java" && pwd)
exec timeout ${MAT_TIMEOUT:-1800} java -Xmx${MAT_XMX:-4g} "$here/MatRetained.java" "$1" "$2" "$3"
