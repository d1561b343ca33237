#!/usr/bin/env bash
# The hook table of `make bench` (issue 31): what each --syscall-hook this
# kernel allows costs the watched process (its open/close loop under
# `oomscope run`) and a bystander that oomscope does not watch (a getppid
# loop: syscalls oomscope does not follow; an open/close loop: the ones it
# follows), each against the same loop with nothing watching. In the arm64 VM
# (scripts/bench-arm64.sh, VM_KERNEL=gki: the hooks of a phone's kernel) the
# ratios are indications: emulation changes what a trap costs.
#   REPS (default 5) runs per cell
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
N_OPEN=${N_OPEN:-100000} N_SYS=${N_SYS:-1000000}
[ "${QUICK:-0}" = 1 ] && N_OPEN=30000 N_SYS=300000
loop=build/targets/bench_loop
tmp=$(mktemp -d /tmp/oomscope-bench-hooks.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
alone() { "$loop" "$1" "$2" | awk '{print $4}'; }
med_alone() { local v=(); for _ in $(seq 1 "$REPS"); do v+=("$(alone "$1" "$2")"); done; printf '%s\n' "${v[@]}" | median; }

tr=/sys/kernel/tracing
[ -d "$tr/events" ] || tr=/sys/kernel/debug/tracing
hooks=(raw)
[ -d "$tr/events/syscalls" ] && hooks+=(syscalls)
[ -e "$tr/kprobe_events" ] && hooks+=(kprobe)
hooks+=(fexit)

base_open=$(med_alone open "$N_OPEN")
base_sys=$(med_alone syscall "$N_SYS")
printf '%-9s | %14s | %16s | %16s | %s\n' hook "watched open" "bystander getppid" "bystander open" "the hook as loaded"
printf '%-9s | %14s | %16s | %16s |\n' alone "$(printf '%.0f ns' "$base_open")" "$(printf '%.0f ns' "$base_sys")" "$(printf '%.0f ns' "$base_open")"
for h in "${hooks[@]}"; do
  # the watched loop
  v=()
  for _ in $(seq 1 "$REPS"); do
    ./oomscope run --json --syscall-hook "$h" -o "$tmp/run" -- "$loop" open "$N_OPEN" > "$tmp/out" 2> "$tmp/err" || true
    v+=("$(awk '$1 == "open" {print $4}' "$tmp/out")")
    [ -n "${v[-1]}" ] || { v=(); break; }
    name=$(head -n1 "$tmp/run/timeline.jsonl" | jq -r .syscall_hook)
    rm -rf "$tmp/run"
  done
  if [ "${#v[@]}" -eq 0 ]; then
    printf '%-9s | %14s | %16s | %16s | %s\n' "$h" - - - "not on this kernel: $(head -c 90 "$tmp/err")"
    continue
  fi
  watched=$(printf '%s\n' "${v[@]}" | median)
  # the bystanders, while it watches another process
  sleep 600 & target=$!; pids+=("$target")
  ./oomscope watch -p "$target" -d 600 --syscall-hook "$h" -o "$tmp/by" > "$tmp/by.out" 2>&1 & w=$!; pids+=("$w")
  for _ in $(seq 1 100); do [ -s "$tmp/by/timeline.jsonl" ] && break; sleep 0.1; done
  by_sys=$(med_alone syscall "$N_SYS")
  by_open=$(med_alone open "$N_OPEN")
  kill -INT "$w"; wait "$w" || true
  kill "$target"; wait "$target" 2> /dev/null || true
  rm -rf "$tmp/by"
  printf '%-9s | %13.2fx | %15.2fx | %15.2fx | %s\n' "$h" "$(echo "$watched / $base_open" | bc -l)" \
    "$(echo "$by_sys / $base_sys" | bc -l)" "$(echo "$by_open / $base_open" | bc -l)" "$name"
done
echo "(median of $REPS runs; ratio = ns per iteration / alone; lower is better)"
