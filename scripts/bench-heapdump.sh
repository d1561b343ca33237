#!/usr/bin/env bash
# `make bench`, heap dump part: the longest pause an app sees while its heap
# is dumped, measured inside the app (tests/java/BusyHeap.java: a thread that
# records the largest gap between consecutive 1 ms sleeps), for the JDK's
# `jcmd GC.heap_dump` (plain and -gz=1) and for oomscope (the shim's
# fork-dump, and the JVM's dumper through a FIFO), all on the same JVM with
# LIVE_MB (default 1100) MB live, in one run. Also the time until the dump
# file is complete and its size.
set -euo pipefail
cd "$(dirname "$0")/.."
LIVE_MB=${LIVE_MB:-1100}
REPS=${REPS:-2}
XMX=${XMX:-4g}
tmp=$(mktemp -d /tmp/oomscope-bench-dump.XXXXXX)
app=
cleanup() {
  if [ -n "$app" ]; then kill -KILL "$app" 2>/dev/null || true; wait "$app" 2>/dev/null || true; fi
  exec 7>&- 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

mkfifo "$tmp/cmd"
java -Xmx"$XMX" -XX:+UseG1GC -agentpath:"$PWD/build/liboomscope_shim.so" tests/java/BusyHeap.java \
  --live-mb "$LIVE_MB" --threads 1 --exit-on-eof < "$tmp/cmd" > "$tmp/app.out" 2>&1 &
app=$!
exec 7> "$tmp/cmd"
for _ in $(seq 1 1800); do
  grep -q '^ready pid=' "$tmp/app.out" && break
  kill -0 "$app" 2>/dev/null || { echo "bench-heapdump: the app exited: $(tail -n 3 "$tmp/app.out")" >&2; exit 1; }
  sleep 0.2
done
live=$(sed -n 's/^ready pid=[0-9]* live_mb=\([0-9]*\)/\1/p' "$tmp/app.out")
rss=$(awk '/VmRSS/ {print int($2/1024)}' /proc/$app/status)

# maxgap: the largest gap since the last reset, in ms
maxgap() {
  local n; n=$(grep -c '^maxgap_ms' "$tmp/app.out" || true)
  echo report >&7
  for _ in $(seq 1 100); do
    [ "$(grep -c '^maxgap_ms' "$tmp/app.out" || true)" -gt "$n" ] && break
    sleep 0.05
  done
  grep '^maxgap_ms' "$tmp/app.out" | tail -n 1 | awk '{print $2}'
}

now() { date +%s.%N; }
declare -A pause secs size
record() { # NAME PAUSE SECS BYTES
  pause[$1]+="$2 "; secs[$1]+="$3 "; size[$1]=$4
}
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

settle() { sleep 3; echo reset >&7; sleep 0.5; echo reset >&7; sleep 0.2; }

for rep in $(seq 1 "$REPS"); do
  for how in jcmd jcmd-gz fork fifo; do
    settle
    out="$tmp/d.hprof"
    rm -f "$out" "$out".gz
    t0=$(now)
    case $how in
      jcmd) res=$(jcmd "$app" GC.heap_dump "$out" 2>&1) ;;
      jcmd-gz) out="$out.gz"; res=$(jcmd "$app" GC.heap_dump -gz=1 "$out" 2>&1) ;;
      fork) out="$out.gz"; res=$(./oomscope dump -p "$app" --method shim --no-analyze -q -o "$out" 2>&1) ;;
      fifo) out="$out.gz"; res=$(./oomscope dump -p "$app" --method jvm --no-analyze -q -o "$out" 2>&1) ;;
    esac
    t1=$(now)
    [ -s "$out" ] || { echo "bench-heapdump: $how wrote nothing: $res" >&2; exit 1; }
    g=$(maxgap)
    record "$how" "$g" "$(echo "$t1 - $t0" | bc -l)" "$(stat -c %s "$out")"
    rm -f "$out"
  done
done

echo
echo "heap dump pause: BusyHeap, ${live} MB live (RSS ${rss} MB), G1, 1 allocating thread; the app's longest gap between 1 ms sleeps during the dump"
printf '%-44s %12s %9s %11s %10s\n' "dump" "app pause" "ratio" "file done" "file"
base=$(printf '%s\n' ${pause[jcmd]} | median)
for how in jcmd jcmd-gz fork fifo; do
  case $how in
    jcmd) label="jcmd GC.heap_dump (JDK)" ;;
    jcmd-gz) label="jcmd GC.heap_dump -gz=1 (JDK)" ;;
    fork) label="oomscope dump --method shim (fork-dump)" ;;
    fifo) label="oomscope dump --method jvm (FIFO)" ;;
  esac
  p=$(printf '%s\n' ${pause[$how]} | median)
  s=$(printf '%s\n' ${secs[$how]} | median)
  printf '%-44s %9.0f ms %8.3fx %9.1f s %7.0f MB\n' "$label" "$p" "$(echo "$p / $base" | bc -l)" "$s" \
    "$(echo "${size[$how]} / 1048576" | bc -l)"
done
echo "(median of $REPS; ratio = app pause / jcmd's; oomscope's files are stripped of primitive array contents and gzip -1;"
echo " the fork-dump's file is complete when the forked copy has written it: the app runs meanwhile)"
