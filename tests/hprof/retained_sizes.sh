#!/usr/bin/env bash
# tests/hprof/retained_sizes.sh DUMP OUT.tsv: VisualVM's heap library's shallow
# and retained size of every instance of DUMP (tests/java/VisualVMRetained.java).
# The library writes a cache folder beside the file it opens, so it opens a
# copy (a hard link when it can) in a temp dir that is removed afterwards.
# RETAINED_CACHE=DIR (the test runner sets one): the answer kept there by the
# dump's content, the reader's source, the library and the JVM, and given
# again for the same dump (ref_cache.sh; a .hprof.gz and its .hprof are one
# content).
set -euo pipefail
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
[ -r "$JAR" ] || { echo "retained_sizes: $JAR missing (Debian package visualvm)" >&2; exit 1; }
[ -r "${1:-}" ] && [ -n "${2:-}" ] || { echo "retained_sizes: usage: retained_sizes.sh DUMP OUT.tsv" >&2; exit 2; }
. "$(dirname "$0")/ref_cache.sh"
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")/../java" && pwd)
key=$(ref_key "$1" "$here/VisualVMRetained.java" "$JAR")
ref_get "$key" "$out" && exit 0
dir=$(mktemp -d /tmp/retained.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ln "$1" "$dir/dump.hprof" 2>/dev/null || cp "$1" "$dir/dump.hprof"
timeout ${RETAINED_TIMEOUT:-1800} java -Xmx${VISUALVM_XMX:-8g} -cp "$JAR" "$here/VisualVMRetained.java" "$dir/dump.hprof" "$out" | tee "$dir/out"
ref_put "$key" "$dir/out" "$out"
