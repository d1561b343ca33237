#!/usr/bin/env bash
# tests/hprof/heap_summary.sh DUMP: VisualVM's heap library's view of DUMP as
# one JSON line (tests/java/HeapSummary.java). The library writes a cache
# folder beside the file it opens, so it opens a copy in a temp dir that is
# removed afterwards: nothing is left beside DUMP.
set -euo pipefail
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
[ -r "$JAR" ] || { echo "heap_summary: $JAR missing (Debian package visualvm)" >&2; exit 1; }
[ -r "${1:-}" ] || { echo "heap_summary: usage: heap_summary.sh DUMP" >&2; exit 2; }
dir=$(mktemp -d /tmp/heap-summary.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cp "$1" "$dir/dump.hprof"
here=$(cd "$(dirname "$0")/../java" && pwd)
timeout 600 java -Xmx4g -cp "$JAR" "$here/HeapSummary.java" "$dir/dump.hprof"
