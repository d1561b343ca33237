#!/usr/bin/env bash
# The Java rows of `make bench` (issues 35, 36): thread starts, file opens and
# exceptions thrown and caught (the shim's OutOfMemoryError hook must not
# slow an app that throws all the time), direct buffers made and dropped (the
# Unsafe.allocateMemory probes behind direct memory by call site) by Java code
# (tests/java/JavaBench.java), timed inside the JVM after a
# warm-up, in one run side by side: the JVM alone, under `oomscope run`
# (no shim), under `run --shim` with the Java stacks on (a signal and
# AsyncGetCallTrace per creation: the first 256 of each native place, then
# 100 a second), with --no-java-stacks, and under Java Flight Recorder's
# profile settings (its ThreadStart events carry a stack trace: the JDK's
# own way to say which Java code started a thread). Each cell is the median
# ns per iteration of REPS runs; ratios are against alone.
set -euo pipefail
cd "$(dirname "$0")/.."

REPS=${REPS:-5}   # MODES="threads opens exceptions direct" (the rows)
declare -A ITERS=([threads]=5000 [opens]=200000 [exceptions]=300000 [direct]=200000)
if [ "${QUICK:-0}" = 1 ]; then ITERS=([threads]=2000 [opens]=50000 [exceptions]=100000 [direct]=50000); fi
tmp=$(mktemp -d /tmp/oomscope-bench-java.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
javac -d "$tmp" tests/java/JavaBench.java

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# one run: MODE ITERS HOW -> ns per iteration (and $tmp/stacks: asked, sampled out)
one() {
  local mode=$1 n=$2 how=$3 out=$tmp/out go=$tmp/go
  rm -rf "$tmp/run" "$go"
  echo "- -" > "$tmp/stacks"
  case $how in
  alone) java -cp "$tmp" JavaBench "$mode" "$n" "$tmp" > "$out" 2>&1 ;;
  jfr) java -XX:StartFlightRecording=filename="$tmp/x.jfr",settings=profile -cp "$tmp" JavaBench "$mode" "$n" "$tmp" > "$out" 2>&1 ;;
  oomscope) ./oomscope run -q -o "$tmp/run" -- java -cp "$tmp" JavaBench "$mode" "$n" "$tmp" > "$out" 2>&1 ;;
  shim|shim-nostacks)
    local extra=(); [ "$how" = shim-nostacks ] && extra=(--no-java-stacks)
    ./oomscope run -q --shim "${extra[@]}" -o "$tmp/run" -- java -cp "$tmp" JavaBench "$mode" "$n" "$tmp" "$go" > "$out" 2>&1 &
    local o=$!; pids+=("$o")
    # the work starts once the shim answers and, with them on, takes Java stacks
    local want='^ready'; [ "$how" = shim ] && want='Java stacks: the shim takes them'
    for _ in $(seq 1 600); do grep -q "$want" "$out" && grep -q '^ready' "$out" && break; sleep 0.1; done
    touch "$go"
    wait "$o" || true
    jq -r 'select(.type == "end") | "\(.java_stacks.asked // 0) \(.java_stacks.sampled_out // 0)"' "$tmp/run/timeline.jsonl" > "$tmp/stacks" ;;
  esac
  awk '$3 == "ns/it" {print $4}' "$out"
}

printf '%-8s %7s | %10s | %10s %6s | %10s %6s | %10s %6s | %10s %6s | %s\n' mode iters "alone ns" \
  "oomscope" ratio "--shim" ratio "no stacks" ratio "JFR" ratio "Java stacks asked, sampled out (--shim)"
for mode in ${MODES:-threads opens exceptions direct}; do
  n=${ITERS[$mode]}
  declare -A col=()
  for how in alone oomscope shim shim-nostacks jfr; do
    v=()
    for _ in $(seq 1 "$REPS"); do v+=("$(one "$mode" "$n" "$how")"); done
    col[$how]=$(printf '%s\n' "${v[@]}" | median)
    [ "$how" = shim ] && read -r asked sampled < "$tmp/stacks"
  done
  a=${col[alone]}
  r() { printf '%.2fx' "$(echo "$1 / $a" | bc -l)"; }
  printf '%-8s %7d | %10d | %10d %6s | %10d %6s | %10d %6s | %10d %6s | %s, %s\n' "$mode" "$n" "$a" \
    "${col[oomscope]}" "$(r "${col[oomscope]}")" "${col[shim]}" "$(r "${col[shim]}")" \
    "${col[shim-nostacks]}" "$(r "${col[shim-nostacks]}")" "${col[jfr]}" "$(r "${col[jfr]}")" "$asked" "$sampled"
done
echo "(median of $REPS runs each; ns per thread started and joined, file opened and closed, or exception thrown through 8 frames, caught and its stack read, from Java; lower is better)"
