#!/usr/bin/env bash
# tests/hprof/mat_retained.sh DUMP OURS.tsv OUT.tsv: an independent computation
# of reachable-only retained sizes over Eclipse MAT's object graph
# (tests/java/MatRetained.java), with the shallow sizes of OURS.tsv (the
# analyzer's --retained-tsv). OUT.tsv: id and retained size, or `unreachable`,
# one line per object sorted by id; one JSON line on stdout. With
# RETAINED_CACHE set, kept there by the dump's bytes, OURS.tsv's, the
# reference's source and the JVM (ref_cache.sh).
set -euo pipefail
[ -r "${1:-}" ] && [ -r "${2:-}" ] && [ -n "${3:-}" ] && [ $# -eq 3 ] ||
    { echo "mat_retained: usage: mat_retained.sh DUMP OURS.tsv OUT.tsv" >&2; exit 2; }
command -v java >/dev/null || { echo "mat_retained: java missing (Debian package openjdk-17-jdk-headless)" >&2; exit 1; }
. "$(dirname "$0")/ref_cache.sh"
here=$(cd "$(dirname "$0")/../java" && pwd)
key=$(ref_key "$1" "$2" "$here/MatRetained.java")
ref_get "$key" "$3" && exit 0
dir=$(mktemp -d /tmp/mat-retained.XXXXXX)
trap 'rm -rf "$dir"' EXIT
timeout ${MAT_TIMEOUT:-1800} java -Xmx${MAT_XMX:-4g} "$here/MatRetained.java" "$1" "$2" "$3" | tee "$dir/out"
ref_put "$key" "$dir/out" "$3"
