#!/usr/bin/env bash
# `make bench`: the collector's overhead on syscall-heavy loops, side by side in
# one run: the loop alone, under `oomscope run`, and under `strace -f -c`.
# Each cell is the median ns per iteration of REPS runs; ratios are against alone.
set -euo pipefail
cd "$(dirname "$0")/.."

[ "$(id -u)" -eq 0 ] || { echo "bench: run as root (BPF)" >&2; exit 1; }
# QUICK=1: every table, fewer repetitions and smaller heaps (under ten
# minutes); the full run is for the numbers in docs/benchmarks.md
if [ "${QUICK:-0}" = 1 ]; then
  export REPS=${REPS:-1} LIVE_MB_HPROF=${LIVE_MB_HPROF:-100} LIVE_MB_HEAPDUMP=${LIVE_MB_HEAPDUMP:-200}
  export LIVE_MB_ANALYZE=${LIVE_MB_ANALYZE:-120} FAST_ITERS=${FAST_ITERS:-2000000} SLOW_ITERS=${SLOW_ITERS:-10000}
  export N=${N:-20} REDIS_REQUESTS=${REDIS_REQUESTS:-50000} REDIS_ROUNDS=${REDIS_ROUNDS:-3}
fi
REPS=${REPS:-5}
loop=build/targets/bench_loop
tmp=$(mktemp -d /tmp/oomscope-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

declare -A ITERS=([open]=200000 [mmap]=100000 [thread]=10000 [mix]=10000 [syscall]=300000 [touch]=600)
if [ "${QUICK:-0}" = 1 ]; then ITERS=([open]=50000 [mmap]=30000 [thread]=3000 [mix]=3000 [syscall]=100000 [touch]=200); fi

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

ns_alone()   { "$loop" "$1" "$2" | awk '{print $4}'; }
ns_oomscope() {
  local extra=()
  [ "${NO_PTHREAD_PROBE:-}" = 1 ] && extra=(--no-pthread-probe)
  ./oomscope run --json -i 1 "${extra[@]}" -o "$tmp/run" -- "$loop" "$1" "$2" > "$tmp/out" 2>&1
  awk -v m="$1" '$1 == m {print $4}' "$tmp/out"
  jq -r 'select(.type=="end") | "\(.ringbuf_drops) \(.events_sent) \(.collector_cpu_s // "-")"' "$tmp/run/timeline.jsonl" > "$tmp/drops"
}
# (the arm64 VM has no strace: its column is then "-")
ns_strace()  { if command -v strace > /dev/null; then strace -f -c -o /dev/null "$loop" "$1" "$2" | awk '{print $4}'; else echo -; fi; }

printf '%-24s %9s | %12s %12s %8s | %12s %8s | %s\n' mode iters "alone ns/it" "oomscope" ratio "strace -f -c" ratio "oomscope events (lost), its CPU s, s per M events"
# touch: page faults, one in every 2 MiB of them sampled with its stack (--fault-sample)
for row in open mmap thread thread:no-pthread-probe mix syscall touch; do
  mode=${row%%:*}
  NO_PTHREAD_PROBE=0; [ "$row" != "$mode" ] && NO_PTHREAD_PROBE=1
  n=${ITERS[$mode]}
  a=(); o=(); s=()
  for _ in $(seq 1 "$REPS"); do
    a+=("$(ns_alone "$mode" "$n")")
    o+=("$(ns_oomscope "$mode" "$n")")
    s+=("$(ns_strace "$mode" "$n")")
  done
  ma=$(printf '%s\n' "${a[@]}" | median)
  mo=$(printf '%s\n' "${o[@]}" | median)
  ms=$(printf '%s\n' "${s[@]}" | median)
  read -r drops sent cpu < "$tmp/drops"
  per_m=-; [ "$cpu" != - ] && [ "$sent" -ge 10000 ] && per_m=$(printf '%.2f' "$(echo "$cpu * 1000000 / $sent" | bc -l)")
  if [ "$ms" = - ]; then sr=-; else sr=$(printf '%.2fx' "$(echo "$ms / $ma" | bc -l)"); ms=$(printf '%.0f' "$ms"); fi
  printf '%-24s %9d | %12.0f %12.0f %7.2fx | %12s %8s | %s (%s), %s, %s\n' "$row" "$n" "$ma" "$mo" \
    "$(echo "$mo / $ma" | bc -l)" "$ms" "$sr" "$sent" "$drops" "$cpu" "$per_m"
done
echo "(median of $REPS runs each; ratio = ns per iteration / alone; lower is better; CPU: the last run's collector)"

# a bystander: what a process oomscope does not watch pays per syscall while
# oomscope watches another (issue 18: it should pay nothing measurable)
sleep 600 & bystander_target=$!
declare -A bystander_ns bystander_hook
b=(); w=()
for _ in $(seq 1 "$REPS"); do
  b+=("$(ns_alone syscall 2000000)")
done
for hook in auto raw; do
  ./oomscope watch -p "$bystander_target" -d 600 --syscall-hook "$hook" -o "$tmp/bystander" > "$tmp/bystander.out" 2>&1 &
  watcher=$!
  for _ in $(seq 1 50); do [ -s "$tmp/bystander/timeline.jsonl" ] && break; sleep 0.1; done
  hook_used=$(head -n1 "$tmp/bystander/timeline.jsonl" | jq -r .syscall_hook)
  w=()
  for _ in $(seq 1 "$REPS"); do
    w+=("$(ns_alone syscall 2000000)")
  done
  kill -INT "$watcher"; wait "$watcher" || true
  rm -rf "$tmp/bystander"
  bystander_ns[$hook]=$(printf '%s\n' "${w[@]}" | median)
  bystander_hook[$hook]=$hook_used
done
mb=$(printf '%s\n' "${b[@]}" | median)
for hook in auto raw; do
  mw=${bystander_ns[$hook]}
  printf '%-24s %9d | %12.0f %12.0f %7.2fx   (getppid in a process oomscope does not watch; %s)\n' \
    "bystander ($hook)" 2000000 "$mb" "$mw" "$(echo "$mw / $mb" | bc -l)" "${bystander_hook[$hook]}"
done
kill "$bystander_target"; wait "$bystander_target" 2>/dev/null || true

# each hook this kernel allows: the watched process and the bystanders
scripts/bench-hooks.sh
# BENCH_ONLY=collector: these tables only (the arm64 VM's run: scripts/bench-arm64.sh)
[ "${BENCH_ONLY:-}" = collector ] && exit 0

# a real server watched: redis under redis-benchmark
scripts/bench-redis.sh

# the moment of death: failure to record, and the failure path's cost
scripts/bench-death.sh

# the hprof library's table
scripts/bench-hprof.sh

# the large-allocation table
scripts/bench-allocs.sh

# the Java rows: thread starts and file opens from Java, with and without the shim's Java stacks
scripts/bench-java.sh

# the heap dump pause table
scripts/bench-heapdump.sh

# the same on real ART (make art): ART's own dump against the fork-dump
scripts/bench-art-dump.sh

# the analyzer's table
scripts/bench-analyze.sh

# the lab's store: SQLite and PostgreSQL
scripts/bench-store.sh
