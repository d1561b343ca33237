#!/usr/bin/env bash
# `make bench`, heap dump part: the longest pause an app sees while its heap
# is dumped, measured inside the app (tests/java/BusyHeap.java: a thread that
# records the largest gap between consecutive 1 ms sleeps), for the JDK's
# `jcmd GC.heap_dump` (plain and -gz=1) and for oomscope (the shim's
# fork-dump, and the JVM's dumper through a FIFO), all on the same JVM with
# LIVE_MB (default 1100) MB live, in one run: with the app idle, allocating
# 100 MB/s, and allocating as fast as one thread can. Also the time until the
# dump file is complete and its size.
set -euo pipefail
cd "$(dirname "$0")/.."
LIVE_MB=${LIVE_MB_HEAPDUMP:-${LIVE_MB:-1100}}
REPS=${REPS:-2}
XMX=${XMX:-4g}
tmp=$(mktemp -d /tmp/oomscope-bench-dump.XXXXXX)
app=
cleanup() {
  # (a killed JVM leaves the attach socket an attach made it open)
  if [ -n "$app" ]; then kill -KILL "$app" 2>/dev/null || true; wait "$app" 2>/dev/null || true; rm -f "/tmp/.java_pid$app"; fi
  exec 7>&- 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

mkfifo "$tmp/cmd"
java -Xmx"$XMX" -XX:+UseG1GC -agentpath:"$PWD/build/liboomscope_shim.so" tests/java/BusyHeap.java \
  --live-mb "$LIVE_MB" --threads 1 --alloc-mb-per-s 0 --exit-on-eof < "$tmp/cmd" > "$tmp/app.out" 2>&1 &
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
record() { # KEY PAUSE SECS BYTES
  pause[$1]+="$2 "; secs[$1]+="$3 "; size[$1]=$4
}
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

settle() { sleep 3; echo reset >&7; sleep 0.5; echo reset >&7; sleep 0.2; }

# one dump by HOW under the current allocation rate; the app's longest gap,
# and the dumper's objects a second (jcmd: the objects in its file over the
# time it took, once a scenario; the fork-dump: its copy's, as it says)
dump_once() { # KEY HOW
  local out="$tmp/d.hprof" res t0 t1 g ops=
  rm -f "$out" "$out".gz
  settle
  t0=$(now)
  case $2 in
    jcmd) res=$(jcmd "$app" GC.heap_dump "$out" 2>&1) ;;
    jcmd-gz) out="$out.gz"; res=$(jcmd "$app" GC.heap_dump -gz=1 "$out" 2>&1) ;;
    fork) out="$out.gz"; res=$(./oomscope dump -p "$app" --method shim --no-analyze -o "$out" 2>&1) ;;
    fork-jvmti) out="$out.gz"; res=$(OOMSCOPE_SHIM_WALK=jvmti ./oomscope dump -p "$app" --method shim --no-analyze -o "$out" 2>&1) ;;
    fifo) out="$out.gz"; res=$(./oomscope dump -p "$app" --method jvm --no-analyze -q -o "$out" 2>&1) ;;
  esac
  t1=$(now)
  [ -s "$out" ] || { echo "bench-heapdump: $2 wrote nothing: $res" >&2; exit 1; }
  g=$(maxgap)
  case $2 in
    fork|fork-jvmti) ops=$(sed -n 's/^copy *\([0-9]*\) objects\/s.*/\1/p' <<<"$res") ;;
    jcmd) if [ -z "${objs[$1]:-}" ]; then
            local took n; took=$(sed -n 's/.* bytes in \([0-9.]*\) secs.*/\1/p' <<<"$res")
            n=$(./oomscope hprof check --json "$out" | jq .objects)
            ops=$(echo "$n / $took" | bc)
          fi ;;
  esac
  [ -n "$ops" ] && objs[$1]+="$ops "
  record "$1" "$g" "$(echo "$t1 - $t0" | bc -l)" "$(stat -c %s "$out")"
  rm -f "$out"
}
declare -A objs

# scenarios: the app idle; allocating 100 MB/s; allocating as fast as it can
scenarios=("idle:0" "100 MB/s:100" "churn:-1")
# BENCH_DUMP_CASES="churn" (names, space separated): only those
if [ -n "${BENCH_DUMP_CASES:-}" ]; then
  keep=()
  for sc in "${scenarios[@]}"; do [[ " $BENCH_DUMP_CASES " == *" ${sc%%:*} "* ]] && keep+=("$sc"); done
  scenarios=("${keep[@]}")
fi
for sc in "${scenarios[@]}"; do
  name=${sc%%:*} rate=${sc##*:}
  echo "rate $rate" >&7
  sleep 5
  for _ in $(seq 1 "$REPS"); do
    hows=(jcmd fork)
    [ "$name" = idle ] && hows=(jcmd jcmd-gz fork fifo)
    # the copy walking with JVMTI, as before HotSpot's dumper ran in it: once
    [ -z "${pause[$name/fork-jvmti]:-}" ] && hows+=(fork-jvmti)
    for how in "${hows[@]}"; do dump_once "$name/$how" "$how"; done
  done
done

echo
echo "heap dump pause: BusyHeap, ${live} MB live (RSS ${rss} MB), G1; the app's longest gap between 1 ms sleeps during the dump"
printf '%-10s %-44s %12s %9s %11s %10s %15s\n' "app" "dump" "app pause" "ratio" "file done" "file" "objects/s"
for sc in "${scenarios[@]}"; do
  name=${sc%%:*}
  base=$(printf '%s\n' ${pause[$name/jcmd]} | median)
  for how in jcmd jcmd-gz fork fork-jvmti fifo; do
    [ -n "${pause[$name/$how]:-}" ] || continue
    case $how in
      jcmd) label="jcmd GC.heap_dump (JDK)" ;;
      jcmd-gz) label="jcmd GC.heap_dump -gz=1 (JDK)" ;;
      fork) label="oomscope dump --method shim (fork-dump)" ;;
      fork-jvmti) label="  the same, its copy walking with JVMTI" ;;
      fifo) label="oomscope dump --method jvm (FIFO)" ;;
    esac
    p=$(printf '%s\n' ${pause[$name/$how]} | median)
    t=$(printf '%s\n' ${secs[$name/$how]} | median)
    o=; [ -n "${objs[$name/$how]:-}" ] && o=$(printf '%s\n' ${objs[$name/$how]} | median)
    printf '%-10s %-44s %9.0f ms %8.3fx %9.1f s %7.0f MB %15s\n' "$name" "$label" "$p" "$(echo "$p / $base" | bc -l)" "$t" \
      "$(echo "${size[$name/$how]} / 1048576" | bc -l)" "$( [ -n "$o" ] && printf '%.0f' "$o" || echo -)"
  done
done
echo "(median of $REPS, the JVMTI walk once; ratio = app pause / jcmd's in the same scenario; objects/s: jcmd's file's"
echo " objects over its time, the fork-dump's copy's as it says; oomscope's files are stripped of primitive"
echo " array contents and gzip -1; the fork-dump's file is complete when the forked copy has written it, the app"
echo " running meanwhile; while the copy lives, the app's first write to each heap page copies it (copy-on-write),"
echo " which lengthens the GC pauses of an app that allocates fast)"
