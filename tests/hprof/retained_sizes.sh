#!/usr/bin/env bash
# tests/hprof/retained_sizes.sh DUMP OUT.tsv: VisualVM's heap library's shallow
# and retained size of every instance of DUMP (tests/java/VisualVMRetained.java).
# The library writes a cache folder beside the file it opens, so it opens a
# copy (a hard link when it can) in a temp dir that is removed afterwards.
# RETAINED_CACHE=DIR (the test runner sets one for its run): the answer is
# kept there by the dump's content, the reader's source, the library and the
# JVM, and given again for the same dump (the plain and the sanitized lanes
# compare the same corpus; a .hprof.gz and its .hprof are one content).
set -euo pipefail
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
[ -r "$JAR" ] || { echo "retained_sizes: $JAR missing (Debian package visualvm)" >&2; exit 1; }
[ -r "${1:-}" ] && [ -n "${2:-}" ] || { echo "retained_sizes: usage: retained_sizes.sh DUMP OUT.tsv" >&2; exit 2; }
dir=$(mktemp -d /tmp/retained.XXXXXX)
trap 'rm -rf "$dir"' EXIT
ln "$1" "$dir/dump.hprof" 2>/dev/null || cp "$1" "$dir/dump.hprof"
out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")/../java" && pwd)
key=
if [ -n "${RETAINED_CACHE:-}" ]; then
  key=$({ sha256sum < "$1"; sha256sum < "$here/VisualVMRetained.java"; stat -c '%s %Y' "$JAR"; java -version 2>&1; } | sha256sum | cut -c1-32)
  if [ -s "$RETAINED_CACHE/$key.tsv" ] && [ -f "$RETAINED_CACHE/$key.out" ]; then
    cp "$RETAINED_CACHE/$key.tsv" "$out"
    cat "$RETAINED_CACHE/$key.out"
    exit 0
  fi
fi
timeout ${RETAINED_TIMEOUT:-1800} java -Xmx${VISUALVM_XMX:-8g} -cp "$JAR" "$here/VisualVMRetained.java" "$dir/dump.hprof" "$out" | tee "$dir/out"
if [ -n "$key" ] && mkdir -p "$RETAINED_CACHE"; then
  # whole files or none: a temp name, then renamed
  cp "$out" "$RETAINED_CACHE/.$key.tsv.$$" && cp "$dir/out" "$RETAINED_CACHE/.$key.out.$$" &&
    mv "$RETAINED_CACHE/.$key.out.$$" "$RETAINED_CACHE/$key.out" && mv "$RETAINED_CACHE/.$key.tsv.$$" "$RETAINED_CACHE/$key.tsv"
fi
