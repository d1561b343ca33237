#!/usr/bin/env bash
# The newcomer's demo, in two parts, each watched end to end by `oomscope run`
# until it crosses a threshold; then what it found, as `oomscope report DIR` tells it:
#   1. a native service leaking threads and fds (build/targets/demo_leak);
#   2. a Java service leaking objects (tests/java/LeakyService.java), with the
#      shim: the heap rule fires, the heap is fork-dumped and analyzed.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "demo: oomscope loads BPF programs: run as root (sudo make demo)" >&2
  exit 1
fi
dir="runs/demo-$(date +%Y%m%d-%H%M%S)"
mkdir -p runs
echo "demo (1/2): starting build/targets/demo_leak (leaks HandlerThreads and cache files) under oomscope;"
echo "demo (1/2): RLIMIT_NOFILE 1024 as on many Android devices; expect a crossing in about 12 s (the fd trend)"
echo
# The demo target leaks until it is stopped; oomscope stops it at the first crossing.
( ulimit -n 1024; exec ./oomscope run --stop-on-crossing -o "$dir" -- build/targets/demo_leak -t 120 ) \
  > >(grep -v '^t=' ) 
echo
echo "== what oomscope found (oomscope report $dir) =="
./oomscope report "$dir"
echo

dir2="runs/demo-java-$(date +%Y%m%d-%H%M%S)"
echo
echo "demo (2/2): a Java service that keeps its closed sessions (java -Xmx256m tests/java/LeakyService.java)"
echo "demo (2/2): under oomscope run --shim: the heap rule (KOOM 2.x, or the trend of the live set) fires, the shim"
echo "demo (2/2): fork-dumps it (the app pauses for the fork only), and oomscope analyzes the dump"
echo
./oomscope run --shim --stop-on-crossing --heap-interval 1 -o "$dir2" \
  --leak-if 'LeakyService$Session.closed==true' \
  -- java -Xmx256m tests/java/LeakyService.java --leak-mb-per-s 25 --max-mb 215 \
  > >(grep -v '^leaked_mb=')
echo
echo "== what oomscope found (oomscope report $dir2) =="
./oomscope report "$dir2"
echo "the dump's analysis in full: $dir2/dump-1.analysis.txt"
