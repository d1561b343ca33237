#!/usr/bin/env bash
# The moment of death, measured (part of `make bench`):
#  - how long a failing call (EMFILE) takes to reach the timeline on disk:
#    fail_latency makes N failing opens, each from a call site of its own, and times
#    each from just before the call to its "failure" record being readable;
#  - what the failure path costs a call that succeeds: the open+close loop
#    under `oomscope run` with failing calls recorded (the default) and with
#    --no-failures, interleaved, REPS runs each.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root (BPF)" >&2; exit 1; }
REPS=${REPS:-5}
N=${N:-50}
tmp=$(mktemp -d /tmp/oomscope-bench-death.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

./oomscope run -q -o "$tmp/lat" -- build/targets/fail_latency "$tmp/lat/timeline.jsonl" "$N" 2>/dev/null |
  awk '$1 == "latency_us" {print $2}' > "$tmp/lat.txt"
got=$(grep -c . "$tmp/lat.txt" || true)
[ "$got" -eq "$N" ] || { echo "bench-death: $got of $N failures reached the timeline" >&2; exit 1; }
sort -n "$tmp/lat.txt" > "$tmp/lat.sorted"
p() { awk -v q="$1" '{a[NR]=$1} END {i=int(q*NR+0.999); if (i<1) i=1; print a[i]}' "$tmp/lat.sorted"; }
printf '\n%-48s %10s %10s %10s %10s\n' "failing call -> record on disk (us)" median p90 max count
printf '%-48s %10s %10s %10s %10s\n' "EMFILE open, a new call site each" "$(p 0.5)" "$(p 0.9)" "$(p 1.0)" "$N"

on=() off=()
for _ in $(seq 1 "$REPS"); do
  ./oomscope run -q --json -o "$tmp/on" -- build/targets/bench_loop open 200000 > "$tmp/on.out" 2>&1
  on+=("$(awk '$1 == "open" {print $4}' "$tmp/on.out")")
  ./oomscope run -q --json --no-failures -o "$tmp/off" -- build/targets/bench_loop open 200000 > "$tmp/off.out" 2>&1
  off+=("$(awk '$1 == "open" {print $4}' "$tmp/off.out")")
  rm -rf "$tmp/on" "$tmp/off"
done
mon=$(printf '%s\n' "${on[@]}" | median)
moff=$(printf '%s\n' "${off[@]}" | median)
printf '\n%-48s %12s %12s %8s\n' "open+close loop, ns/it (median of $REPS)" "--no-failures" "failures on" ratio
printf '%-48s %12.0f %12.0f %7.3fx\n' "bench_loop open 200000 under oomscope run" "$moff" "$mon" "$(echo "$mon / $moff" | bc -l)"
