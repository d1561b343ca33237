#!/usr/bin/env bash
# `make bench`, hprof part: for every corpus dump and for a dump of at least
# 500 MB taken from a JVM in this run: sizes after each strip mode, plain and
# compressed, strip speed, peak RSS, and `jcmd GC.heap_dump -gz=1` on the same heap.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/oomscope-bench-hprof.XXXXXX)
jvm_pid=
cleanup() {
  [ -n "$jvm_pid" ] && { kill -KILL "$jvm_pid" 2>/dev/null || true; wait "$jvm_pid" 2>/dev/null || true; }
  # the attach socket jcmd made the JVM open outlives it when it is killed
  [ -n "$jvm_pid" ] && rm -f "/tmp/.java_pid$jvm_pid"
  rm -rf "$tmp"
}
trap cleanup EXIT
LIVE_MB=${LIVE_MB_HPROF:-${LIVE_MB:-330}}   # about 525 MB of dump

mb() { echo "scale=1; $1 / 1048576" | bc; }
pct() { echo "scale=1; 100 * $1 / $2" | bc; }
size() { stat -c %s "$1"; }

# timed NAME CMD...: runs CMD, sets T_<NAME> (s) and RSS_<NAME> (KB)
timed() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@"
  read -r t r < "$tmp/time"
  printf -v "T_$name" '%s' "$t"; printf -v "RSS_$name" '%s' "$r"
}

# A JVM heap of about LIVE_MB MB live: dumped plain and with -gz=1, from the same JVM.
jvm_dumps() {
  java -Xmx$((LIVE_MB * 3 + 256))m -XX:+UseG1GC tests/java/HeapFiller.java --live-mb "$LIVE_MB" --seconds 900 \
    > "$tmp/jvm.log" 2>&1 &
  jvm_pid=$!
  for _ in $(seq 1 1800); do grep -q '^ready' "$tmp/jvm.log" && break; sleep 0.1; done
  grep -q '^ready' "$tmp/jvm.log" || { echo "bench: HeapFiller did not start" >&2; exit 1; }
  local t0 t1
  t0=$(date +%s.%N); jcmd "$jvm_pid" GC.heap_dump "$tmp/jvm.hprof" > "$tmp/jcmd1" 2>&1; t1=$(date +%s.%N)
  JCMD_T=$(echo "$t1 - $t0" | bc)
  t0=$(date +%s.%N); jcmd "$jvm_pid" GC.heap_dump -gz=1 "$tmp/jvm.hprof.gz" > "$tmp/jcmd2" 2>&1; t1=$(date +%s.%N)
  JCMD_GZ_T=$(echo "$t1 - $t0" | bc)
  grep -q "Heap dump file created" "$tmp/jcmd1" && grep -q "Heap dump file created" "$tmp/jcmd2" ||
    { echo "bench: jcmd failed: $(cat "$tmp/jcmd1" "$tmp/jcmd2")" >&2; exit 1; }
  JCMD_GZ_SIZE=$(size "$tmp/jvm.hprof.gz")
  kill -KILL "$jvm_pid"; wait "$jvm_pid" 2>/dev/null || true; rm -f "/tmp/.java_pid$jvm_pid"; jvm_pid=
}

row() { # NAME FILE JCMD_GZ_SIZE_OR_EMPTY
  local name=$1 f=$2 gz1=${3:-} orig m
  orig=$(size "$f")
  cat "$f" > /dev/null # page cache: measure oomscope, not the disk
  declare -A S
  for m in app koom matrix; do
    timed "$m" ./oomscope hprof strip --mode "$m" "$f" "$tmp/s"
    S[$m]=$(size "$tmp/s")
    timed "${m}_gz" ./oomscope hprof strip --mode "$m" --gzip "$f" "$tmp/s.gz"
    S[${m}_gz]=$(size "$tmp/s.gz")
    timed "${m}_xz" ./oomscope hprof strip --mode "$m" --xz "$f" "$tmp/s.xz"
    S[${m}_xz]=$(size "$tmp/s.xz")
  done
  timed null ./oomscope hprof strip "$f" - > /dev/null
  printf '%-16s %8s | %7s %7s %7s | %7s %7s %7s | %7s %7s %7s | %8s %8s %8s %8s | %7s | %s\n' \
    "$name" "$(mb "$orig")" "$(mb "${S[app]}")" "$(mb "${S[koom]}")" "$(mb "${S[matrix]}")" \
    "$(mb "${S[app_gz]}")" "$(mb "${S[koom_gz]}")" "$(mb "${S[matrix_gz]}")" \
    "$(mb "${S[app_xz]}")" "$(mb "${S[koom_xz]}")" "$(mb "${S[matrix_xz]}")" \
    "$(echo "$orig / 1048576 / ($T_null + 0.001)" | bc)" "$(echo "$orig / 1048576 / ($T_app + 0.001)" | bc)" \
    "$(echo "$orig / 1048576 / ($T_app_gz + 0.001)" | bc)" "$(echo "$orig / 1048576 / ($T_app_xz + 0.001)" | bc)" \
    "$(echo "scale=1; $RSS_app_gz / 1024" | bc)" \
    "${gz1:+$(mb "$gz1") MB (app+xz $(pct "${S[app_xz]}" "$gz1")%, app+gz $(pct "${S[app_gz]}" "$gz1")%)}"
  ROW_APP_PCT=$(pct "${S[app]}" "$orig"); ROW_APP_GZ_PCT=$(pct "${S[app_gz]}" "$orig")
}

echo
echo "hprof strip: sizes in MB; speeds in MB/s of input on one core (page cache)"
printf '%-16s %8s | %7s %7s %7s | %7s %7s %7s | %7s %7s %7s | %8s %8s %8s %8s | %7s | %s\n' \
  dump original app koom matrix "app+gz" "koom+gz" "mtx+gz" "app+xz" "koom+xz" "mtx+xz" \
  "->null" "->file" "+gzip" "+xz" "RSS MB" "jcmd -gz=1 on the same heap"
# the corpus's own JDK dump (make corpus: javac's, made on this machine)
scripts/corpus.sh
for f in build/corpus/hprof/*.hprof; do
  row "$(basename "$f" .hprof)" "$f"
done
jvm_dumps
row "jvm-${LIVE_MB}MB-live" "$tmp/jvm.hprof" "$JCMD_GZ_SIZE"
echo "(jvm dump: jcmd GC.heap_dump took ${JCMD_T} s plain, ${JCMD_GZ_T} s with -gz=1;" \
  "app strip keeps ${ROW_APP_PCT}% of the bytes, ${ROW_APP_GZ_PCT}% with gzip)"
