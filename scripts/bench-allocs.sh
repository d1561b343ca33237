#!/usr/bin/env bash
# `make bench`, large-allocation part: tests/targets/malloc_bench (4 threads,
# small allocations and one 12 MiB block every 2,000) alone, under oomscope
# --big-alloc 8M in each capture mode, and under bcc's memleak (Debian
# package bpfcc-tools), in the same run: ns per allocation and the ratio to
# the workload alone (median of REPS runs).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
tmp=$(mktemp -d /tmp/oomscope-bench-allocs.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
MEMLEAK=$(command -v memleak-bpfcc || echo /usr/sbin/memleak-bpfcc)

# bcc compiles memleak's BPF against kernel headers. A kernel without its own
# (no /lib/modules/$(uname -r)/build, no CONFIG_IKHEADERS) gets Debian's newest
# linux-headers, merged from the -common and the arch directory as bcc expects;
# memleak -p reads only user registers, so the version difference is harmless.
if [ ! -e "/lib/modules/$(uname -r)/build" ] && [ ! -e /sys/kernel/kheaders.tar.xz ] && [ -z "${BCC_KERNEL_SOURCE:-}" ]; then
  common=$(ls -d /usr/src/linux-headers-*-common 2>/dev/null | sort -V | tail -n 1 || true)
  archdir=${common%-common}-$(dpkg --print-architecture)
  if [ -n "$common" ] && [ -d "$archdir" ]; then
    mkdir -p "$tmp/kheaders"
    cp -rs "$common/." "$tmp/kheaders/"
    cp -rsf "$archdir/." "$tmp/kheaders/"
    export BCC_KERNEL_SOURCE=$tmp/kheaders
  fi
fi

median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

wait_line() { # FILE REGEX SECS
  for _ in $(seq 1 $(($3 * 10))); do grep -qE "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "bench-allocs: no /$2/ in $1: $(tail -n 3 "$1")" >&2
  return 1
}

# Iterations per thread. The workload alone and under syscall mode run long
# enough (about 3 s) to see 1 %; the uprobe modes and memleak trap on every
# malloc, so they get fewer iterations for the same ns-per-allocation figure.
FAST_ITERS=${FAST_ITERS:-20000000}
SLOW_ITERS=${SLOW_ITERS:-100000}
THREADS=4

# one run of the workload under a tracer (none, syscall, uprobe, live,
# memleak): prints "NS_PER_OP BIG_ALLOCS_SEEN" (seen: - for none and memleak)
one() {
  local how=$1 n=$SLOW_ITERS w t seen=-
  case $how in none|syscall) n=$FAST_ITERS ;; esac
  if [ "$how" = none ]; then
    echo "$(build/targets/malloc_bench -t $THREADS -n "$n" | awk '/^ns_per_op/ {print $2}') -"
    return
  fi
  build/targets/malloc_bench -w -t $THREADS -n "$n" > "$tmp/w.out" 2>&1 &
  w=$!; pids+=("$w")
  wait_line "$tmp/w.out" '^ready pid=' 10
  case $how in
    syscall) ./oomscope watch -p "$w" -d 600 -o "$tmp/run" --big-alloc 8M > "$tmp/t.out" 2>&1 & ;;
    uprobe) ./oomscope watch -p "$w" -d 600 -o "$tmp/run" --big-alloc 8M --big-alloc-mode uprobe > "$tmp/t.out" 2>&1 & ;;
    live) ./oomscope watch -p "$w" -d 600 -o "$tmp/run" --big-alloc 8M --big-alloc-mode uprobe --big-alloc-live > "$tmp/t.out" 2>&1 & ;;
    memleak) "$MEMLEAK" -p "$w" 600 > "$tmp/t.out" 2>&1 & ;;
  esac
  t=$!; pids+=("$t")
  if [ "$how" = memleak ]; then
    wait_line "$tmp/t.out" 'Attaching to pid' 120
    sleep 2 # memleak attaches its uprobes after printing that
  else
    wait_line "$tmp/t.out" 'TIME\(s\)' 30
  fi
  kill -USR1 "$w"
  wait "$w"
  # memleak runs with SIGINT ignored (a background job of a script): TERM it
  if [ "$how" = memleak ]; then kill -TERM "$t" 2>/dev/null || true; else kill -INT "$t" 2>/dev/null || true; fi
  wait "$t" 2>/dev/null || true
  [ "$how" != memleak ] && seen=$(jq -r .count "$tmp/run/allocs.json")
  rm -rf "$tmp/run"
  echo "$(awk '/^ns_per_op/ {print $2}' "$tmp/w.out") $seen"
}

hows=(none syscall uprobe live)
if [ -x "$MEMLEAK" ]; then hows+=(memleak); fi
declare -A ns seen
for _ in $(seq 1 "$REPS"); do     # interleaved, so drift hits every column alike
  for how in "${hows[@]}"; do
    read -r x y < <(one "$how")
    ns[$how]+="$x "
    seen[$how]=$y
  done
done

echo
echo "big allocations: malloc_bench, $THREADS threads of small mallocs (16 B..4 KiB) and one 12 MiB block per 2,000; ns per allocation"
printf '%-36s %9s %10s %8s %s\n' tracer iters ns/op ratio "12 MiB blocks reported (of made)"
base=
for how in none syscall uprobe live memleak; do
  case $how in
    none) label="alone" ;; syscall) label="oomscope --big-alloc 8M (syscall)" ;;
    uprobe) label="oomscope --big-alloc-mode uprobe" ;; live) label="  ... and --big-alloc-live" ;;
    memleak) label="bcc memleak -p (bpfcc-tools)" ;;
  esac
  if [ -z "${ns[$how]:-}" ]; then
    printf '%-36s %9s %10s %8s\n' "$label" - - "(memleak-bpfcc not installed)"
    continue
  fi
  n=$SLOW_ITERS; case $how in none|syscall) n=$FAST_ITERS ;; esac
  m=$(printf '%s\n' ${ns[$how]} | median)
  [ -z "$base" ] && base=$m
  made=$((THREADS * (n / 2000)))
  rep=-; [ "${seen[$how]}" != - ] && rep="${seen[$how]} (of $made)"
  printf '%-36s %9d %10.1f %7.2fx %s\n' "$label" "$n" "$m" "$(echo "$m / $base" | bc -l)" "$rep"
done
echo "(median of $REPS runs each, interleaved; iters = per thread; ratio = ns per allocation / alone)"
echo "(syscall mode sees a block only when malloc maps it: glibc raises its mmap threshold"
echo " after the first free, so later 12 MiB blocks come from the heap; the README explains)"
