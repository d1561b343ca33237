#!/usr/bin/env bash
# tests/hprof/retained_sizes.sh DUMP OUT.tsv: VisualVM's heap library's shallow
# and retained size of every instance of DUMP (tests/java/VisualVMRetained.java).
# The library writes a cache folder beside the file it opens, so it opens a
# copy (a hard link when it can) in a temp dir that is removed afterwards.
set -euo pipefail
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
[ -r "$JAR" ] || { echo "retained_sizes: $JAR missing (Debian package visualvm)" >&2; exit 1; }
[ -r "${1:-}" ] && [ -n "${2:-}" ] || { echo "retained_sizes: usage: retained_sizes.sh DUMP OUT.tsv" >&2; exit 2; }
dir=$(mktemp -d /tmp/retained.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ln "$1" "$dir/dump.hprof" 2>/dev/null || cp "$1" "$dir/dump.hprof"
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")/../java" && pwd)
timeout ${RETAINED_TIMEOUT:-1800} java -Xmx${VISUALVM_XMX:-8g} -cp "$JAR" "$here/VisualVMRetained.java" "$dir/dump.hprof" "$out"
