#!/usr/bin/env bash
# tests/hprof/jvm_dump.sh OUT.hprof LIVE_MB [-gz=1]: starts tests/java/HeapFiller
# with about LIVE_MB MB live, dumps its heap with `jcmd PID GC.heap_dump`
# (any extra argument goes to jcmd), ends the JVM by its PID. Prints the dump
# time in seconds. jcmd exits 0 even when the dump failed, so its output is read.
set -euo pipefail
out=$1 mb=$2; shift 2
here=$(cd "$(dirname "$0")/../java" && pwd)
log=$(mktemp /tmp/jvm-dump.XXXXXX)
xmx=$(( mb * 3 + 256 ))m
java -Xmx$xmx -XX:+UseG1GC "$here/HeapFiller.java" --live-mb "$mb" --seconds 900 > "$log" 2>&1 &
pid=$!
cleanup() { kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"; }
trap cleanup EXIT
for _ in $(seq 1 1800); do
  grep -q '^ready pid=' "$log" && break
  kill -0 "$pid" 2>/dev/null || { echo "jvm_dump: the JVM exited: $(tail -n 3 "$log")" >&2; exit 1; }
  sleep 0.1
done
grep -q '^ready pid=' "$log" || { echo "jvm_dump: HeapFiller not ready after 180 s" >&2; exit 1; }
rm -f "$out"
start=$(date +%s.%N)
res=$(timeout 600 jcmd "$pid" GC.heap_dump "$@" "$(realpath -m "$out")" 2>&1)
end=$(date +%s.%N)
if ! grep -q "Heap dump file created" <<<"$res" || [ ! -s "$out" ]; then
  echo "jvm_dump: jcmd failed: $(tr '\n' ' ' <<<"$res")" >&2
  exit 1
fi
echo "$end - $start" | bc -l
