#!/usr/bin/env bash
# tests/hprof/java_dumps.sh OUT_PREFIX COUNT GAP CLASS [JAVA ARGS...]: runs
# tests/java/CLASS.java, waits for its "ready pid=" line, then takes COUNT
# heap dumps (OUT_PREFIX-1.hprof, -2.hprof, ...) with `jcmd PID GC.heap_dump`,
# and ends the JVM by its PID. Between two dumps: GAP seconds, or with GAP
# grow:N, the line "grow N" sent to the app, whose "grew N" answer is waited
# for (the app grows by a known amount, whatever the machine's speed).
set -euo pipefail
prefix=$1 count=$2 gap=$3 cls=$4; shift 4
here=$(cd "$(dirname "$0")/../java" && pwd)
log=$(mktemp /tmp/java-dumps.XXXXXX)
fifo=$(mktemp -u /tmp/java-dumps-in.XXXXXX)
mkfifo -m 600 "$fifo"
exec 3<> "$fifo" # the app's standard input, held open here
java -Xmx${JAVA_XMX:-256m} -XX:+UseG1GC "$here/$cls.java" "$@" < "$fifo" > "$log" 2>&1 &
pid=$!
# a JVM killed leaves the attach socket jcmd made it open: removed with it
cleanup() { kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; exec 3>&-; rm -f "$log" "$fifo" "/tmp/.java_pid$pid"; }
trap cleanup EXIT
for _ in $(seq 1 3000); do
  grep -q '^ready pid=' "$log" && break
  kill -0 "$pid" 2>/dev/null || { echo "java_dumps: the JVM exited: $(tail -n 3 "$log")" >&2; exit 1; }
  sleep 0.1
done
grep -q '^ready pid=' "$log" || { echo "java_dumps: $cls not ready after 300 s" >&2; exit 1; }
for i in $(seq 1 "$count"); do
  if [ "$i" -gt 1 ]; then
    case "$gap" in
      grow:*)
        echo "grow ${gap#grow:}" >&3
        for _ in $(seq 1 3000); do
          [ "$(grep -c '^grew ' "$log")" -ge $((i - 1)) ] && break
          kill -0 "$pid" 2>/dev/null || { echo "java_dumps: the JVM exited: $(tail -n 3 "$log")" >&2; exit 1; }
          sleep 0.1
        done
        [ "$(grep -c '^grew ' "$log")" -ge $((i - 1)) ] || { echo "java_dumps: $cls did not answer grow in 300 s" >&2; exit 1; } ;;
      *) sleep "$gap" ;;
    esac
  fi
  out=$(realpath -m "$prefix-$i.hprof")
  rm -f "$out"
  res=$(timeout 900 jcmd "$pid" GC.heap_dump "$out" 2>&1)
  if ! grep -q "Heap dump file created" <<<"$res" || [ ! -s "$out" ]; then
    echo "java_dumps: jcmd failed: $(tr '\n' ' ' <<<"$res")" >&2
    exit 1
  fi
done
