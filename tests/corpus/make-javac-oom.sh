#!/usr/bin/env bash
# tests/corpus/make-javac-oom.sh: javac-oom.hprof, the corpus's dump of this
# project's own JDK, made with the machine's: `javac` compiling 1,500
# generated classes with -Xmx48m, written by -XX:+HeapDumpOnOutOfMemoryError
# when it runs out of heap (it parses about 200 of the classes before it does:
# a margin of 7 times), and the MANIFEST.md that goes beside it, with VisualVM's
# figures for it (tests/hprof/heap_summary.sh, retained_sizes.sh): computed once,
# when the dump is made.
#
# Made once per machine and kept in ${OOMS_VM_CACHE:-/var/cache/oomscope/vm}/../corpus/
# (beside the VM images and VisualVM's answers), keyed by what it is made of:
# this script's bytes and `java -version`; its MANIFEST also by VisualVM's
# library and the readers. Written to a temp name and renamed when whole, under
# a lock: two runs at once make it once. Prints the dump's path, then its
# MANIFEST's (scripts/corpus.sh lays them out in build/corpus/hprof/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
CLASSES=1500 METHODS=40 XMX=48m
JAR=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
say() { echo "make-javac-oom: $*" >&2; }
die() { say "$*"; exit 1; }
# the JVM as the machine has it, whatever the caller's environment adds
unset JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS
command -v javac > /dev/null || die "no javac (Debian package openjdk-17-jdk-headless: scripts/install-deps.sh)"
[ -r "$JAR" ] || die "$JAR missing (Debian package visualvm: scripts/install-deps.sh)"

# the cache: beside the VM images (scripts/run-tests.sh keeps VisualVM's
# answers there too); in build/ when that cannot be written
cache=${OOMS_VM_CACHE:-/var/cache/oomscope/vm}/../corpus
if ! { mkdir -p "$cache" 2> /dev/null && [ -w "$cache" ]; }; then
  cache=$root/build/cache/corpus
  mkdir -p "$cache"
fi
cache=$(cd "$cache" && pwd)
if [ -z "${RETAINED_CACHE:-}" ] && mkdir -p "$cache/../retained" 2> /dev/null && [ -w "$cache/../retained" ]; then
  export RETAINED_CACHE=$(cd "$cache/../retained" && pwd)
fi

jversion=$(java -version 2>&1)
key=$({ sha256sum < "$0"; echo "$jversion"; } | sha256sum | cut -c1-24)
mkey=$({ echo "$key"; sha256sum < "$JAR"; sha256sum < "$root/tests/java/HeapSummary.java"
         sha256sum < "$root/tests/java/VisualVMRetained.java"; } | sha256sum | cut -c1-24)
dump=$cache/javac-oom.$key.hprof
manifest=$cache/javac-oom.$key.$mkey.MANIFEST.md

exec 9> "$cache/.javac-oom.lock"
if ! flock -n 9; then
  say "another run is making it; waiting"
  flock 9
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/javac-oom.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The classes: each with 40 fields and 40 methods of generics, lambdas, a
# for-each loop, calls and field accesses (javac's trees and names, not
# literals); they compile when given the heap.
generate() { # DIR
  mkdir -p "$1/gen"
  awk -v dir="$1/gen" -v n="$CLASSES" -v m="$METHODS" 'BEGIN {
    for (c = 0; c < n; c++) {
      name = sprintf("Generated%04d", c); f = dir "/" name ".java"
      printf "package gen;\n\nimport java.util.ArrayList;\nimport java.util.HashMap;\nimport java.util.List;\nimport java.util.Map;\n\n" > f
      printf "/** Generated: class %d of %d. */\npublic class %s {\n", c + 1, n, name > f
      for (j = 0; j < m; j++)
        printf "    private final Map<String, List<Integer>> index%d = new HashMap<>();\n", j > f
      for (j = 0; j < m; j++) {
        printf "\n    public int collect%d(List<Map<String, Integer>> rows, Map<String, List<Integer>> into) {\n", j > f
        printf "        int total%d = this.index%d.size() + into.size();\n", j, j > f
        printf "        for (Map<String, Integer> row%d : rows) {\n", j > f
        printf "            into.computeIfAbsent(%s.class.getName(), key -> new ArrayList<>()).add(row%d.getOrDefault(this.getClass().getSimpleName(), total%d));\n", name, j, j > f
        printf "            this.index%d.computeIfAbsent(String.valueOf(row%d.size()), key -> new ArrayList<>()).addAll(into.getOrDefault(%s.class.getName(), new ArrayList<>()));\n", j, j, name > f
        printf "            total%d = total%d + row%d.size() * this.index%d.size() - into.values().stream().mapToInt(List::size).sum();\n", j, j, j, j > f
        printf "        }\n        return total%d;\n    }\n", j > f
      }
      printf "}\n" > f
      close(f)
    }
  }'
}

# with commas: 1417661 -> 1,417,661
commas() { sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/' -e 'ta' <<< "$1"; }

if [ ! -s "$dump" ]; then
  say "making javac-oom.hprof with this machine's JDK (once; kept in $cache)"
  t0=$(date +%s)
  generate "$tmp/src"
  (cd "$tmp/src" && find gen -name '*.java' | sort) > "$tmp/files"
  [ "$(wc -l < "$tmp/files")" -eq "$CLASSES" ] || die "generated $(wc -l < "$tmp/files") classes, not $CLASSES"
  mkdir "$tmp/classes"
  status=0
  (cd "$tmp/src" && timeout 900 javac -J-Xmx$XMX -J-XX:+HeapDumpOnOutOfMemoryError \
    -J-XX:HeapDumpPath="$tmp/javac-oom.hprof" -d "$tmp/classes" @"$tmp/files") > "$tmp/javac.log" 2>&1 || status=$?
  # it must have run out of heap, and dumped it whole
  if [ "$status" -eq 0 ] || ! grep -q '^java.lang.OutOfMemoryError: Java heap space' "$tmp/javac.log" ||
     ! grep -q '^Heap dump file created' "$tmp/javac.log" || [ ! -s "$tmp/javac-oom.hprof" ]; then
    head -n 20 "$tmp/javac.log" >&2
    die "javac -J-Xmx$XMX (status $status) did not run out of heap with a dump: the classes are too small for this JDK"
  fi
  [ "$(head -c 18 "$tmp/javac-oom.hprof")" = "JAVA PROFILE 1.0.2" ] || die "the dump is not an hprof 1.0.2 file"
  chmod 0444 "$tmp/javac-oom.hprof"
  mv "$tmp/javac-oom.hprof" "$cache/.javac-oom.$key.hprof.$$"
  mv -f "$cache/.javac-oom.$key.hprof.$$" "$dump"
  say "javac ran out of heap in $(($(date +%s) - t0)) s: $(stat -c %s "$dump") bytes"
fi

if [ ! -s "$manifest" ]; then
  say "VisualVM's figures for it (heap summary, retained sizes)"
  t0=$(date +%s)
  sum=$("$root/tests/hprof/heap_summary.sh" "$dump")
  VISUALVM_XMX=${VISUALVM_XMX:-3g} "$root/tests/hprof/retained_sizes.sh" "$dump" "$tmp/vv.tsv" > /dev/null
  objects=$(jq -er .objects <<< "$sum") bytes=$(jq -er .shallow_bytes <<< "$sum") classes=$(jq -er .classes <<< "$sum")
  [ "$objects" -gt 0 ] && [ "$(wc -l < "$tmp/vv.tsv")" -eq "$objects" ] ||
    die "VisualVM's summary ($objects objects) and its retained sizes ($(wc -l < "$tmp/vv.tsv") lines) disagree"
  top=$(cut -f3 "$tmp/vv.tsv" | sort -rn | awk 'NR <= 3' | while read -r n; do commas "$n"; done | sed ':a;N;s/\n/ · /;ta')
  row="| javac-oom.hprof | $(commas "$objects") | $(commas "$bytes") | $(commas "$classes") | $top |"
  sha=$(sha256sum < "$dump" | cut -d' ' -f1)
  cat > "$tmp/MANIFEST.md" << EOF
# Heap dump corpus: this machine's JDK

Made on this machine by \`make corpus\` (tests/corpus/make-javac-oom.sh), not kept in the
repository: a dump of this project's own JDK, with what an independent implementation says
about it. The tests compare with the figures below, never with numbers of their own.

| file | size | sha256 | origin |
|---|---|---|---|
| javac-oom.hprof | $(commas "$(stat -c %s "$dump")") | $sha | \`javac\` compiling $(commas "$CLASSES") generated classes with \`-Xmx$XMX\`, written by \`-XX:+HeapDumpOnOutOfMemoryError\` when it ran out of heap; \`java -version\`: $(head -n 2 <<< "$jversion" | sed 's/$/;/' | tr '\n' ' ' | sed 's/; $//') |

## What an independent implementation says about it
Figures from VisualVM's heap library (Debian package \`visualvm\`,
\`org-graalvm-visualvm-lib-jfluid-heap.jar\`; tests/hprof/heap_summary.sh and
retained_sizes.sh), computed when the dump was made. Its instance sizes include its own
estimate of object headers; match its model if you compare retained sizes with it.

| file | live instances | live bytes | classes | three largest retained sizes |
|---|---|---|---|---|
$row

Format: \`JAVA PROFILE 1.0.2\`, $(od -An -tu1 -j22 -N1 "$dump" | tr -d ' ')-byte ids.

Note: VisualVM's heap library writes a \`FILE.hwcache/\` folder beside the dump it opens. Point
it at a copy in a temporary directory, never at the file here.
EOF
  cp "$tmp/MANIFEST.md" "$cache/.javac-oom.$key.$mkey.MANIFEST.md.$$"
  mv -f "$cache/.javac-oom.$key.$mkey.MANIFEST.md.$$" "$manifest"
  say "its figures in $(($(date +%s) - t0)) s: $row"
fi

# what other keys made and nobody has read for 30 days
find "$cache" -maxdepth 1 -name 'javac-oom.*' ! -name "javac-oom.$key.*" -atime +30 -delete 2> /dev/null || true
echo "$dump"
echo "$manifest"
