#!/usr/bin/env bash
# tests/hprof/heap_summary.sh DUMP: VisualVM's heap library's view of DUMP as
# one JSON line (tests/java/HeapSummary.java). The library writes a cache
# folder beside the file it opens, so it opens a copy in a temp dir that is
# removed afterwards: nothing is left beside DUMP. With RETAINED_CACHE set,
# kept there by the dump's bytes, the reader's source, the library and the
# JVM (ref_cache.sh).
set -euo pipefail
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
[ -r "$JAR" ] || { echo "heap_summary: $JAR missing (Debian package visualvm)" >&2; exit 1; }
[ -r "${1:-}" ] || { echo "heap_summary: usage: heap_summary.sh DUMP" >&2; exit 2; }
. "$(dirname "$0")/ref_cache.sh"
here=$(cd "$(dirname "$0")/../java" && pwd)
key=$(ref_key "$1" "$here/HeapSummary.java" "$JAR")
ref_get "$key" && exit 0
dir=$(mktemp -d /tmp/heap-summary.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$1" "$dir/dump.hprof"
timeout 600 java -Xmx4g -cp "$JAR" "$here/HeapSummary.java" "$dir/dump.hprof" | tee "$dir/out"
ref_put "$key" "$dir/out"
