#!/usr/bin/env bash
# tests/hprof/java_dump.sh OUT.hprof CLASS [JAVA ARGS...]: runs tests/java/CLASS.java,
# waits for its "ready pid=" line, dumps its heap with `jcmd PID GC.heap_dump`
# (live objects: a full GC first), and ends the JVM by its PID.
set -euo pipefail
out=$1 cls=$2; shift 2
here=$(cd "$(dirname "$0")/../java" && pwd)
log=$(mktemp /tmp/java-dump.XXXXXX)
java -Xmx${JAVA_XMX:-256m} -XX:+UseG1GC "$here/$cls.java" "$@" > "$log" 2>&1 &
pid=$!
cleanup() { kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -f "$log"; }
trap cleanup EXIT
for _ in $(seq 1 3000); do
  grep -q '^ready pid=' "$log" && break
  kill -0 "$pid" 2>/dev/null || { echo "java_dump: the JVM exited: $(tail -n 3 "$log")" >&2; exit 1; }
  sleep 0.1
done
grep -q '^ready pid=' "$log" || { echo "java_dump: $cls not ready after 300 s" >&2; exit 1; }
rm -f "$out"
res=$(timeout 900 jcmd "$pid" GC.heap_dump "$(realpath -m "$out")" 2>&1)
if ! grep -q "Heap dump file created" <<<"$res" || [ ! -s "$out" ]; then
  echo "java_dump: jcmd failed: $(tr '\n' ' ' <<<"$res")" >&2
  exit 1
fi
