#!/usr/bin/env bash
# The newcomer's demo: a leaking service watched end to end by `oomscope run`
# until it crosses a threshold; then where the run directory is and what it found.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "demo: oomscope loads BPF programs: run as root (sudo make demo)" >&2
  exit 1
fi
dir="runs/demo-$(date +%Y%m%d-%H%M%S)"
mkdir -p runs
echo "demo: starting build/targets/demo_leak (leaks HandlerThreads and cache files) under oomscope;"
echo "demo: RLIMIT_NOFILE 1024 as on many Android devices; expect a crossing in about 25 s"
echo
# The demo target leaks until it is stopped; oomscope stops it at the first crossing.
( ulimit -n 1024; exec ./oomscope run --stop-on-crossing -o "$dir" -- build/targets/demo_leak -t 120 ) \
  > >(grep -v '^t=' ) 
echo
echo "== what oomscope found (from $dir) =="
jq -r 'select(.type=="crossing") | "crossing: \(.rule): \(.reason) -> \(.wrote)"' "$dir/timeline.jsonl"
echo
echo "fd groups (fds.json):"
jq -r '.groups[] | "  \(.count)\t\(.kind)\t<- \(.stacks[0].created_by // .stacks[0].unknown)"' "$dir/fds.json"
echo "thread groups (threads.json):"
jq -r '.groups[] | "  \(.count)\t\(.name)\t<- \(.stacks[0].created_by // .stacks[0].unknown)\(if .stacks[0].start_routine then " start routine " + .stacks[0].start_routine.symbol else "" end)"' "$dir/threads.json"
echo
echo "run directory: $dir (timeline.jsonl, fds.json, threads.json, vmsize.json)"
