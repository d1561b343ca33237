#!/bin/sh
# Packs a run directory into one input of tests/fuzz/fuzz_rundata.c, on
# stdout: timeline.jsonl, then each JSON file the report reads after a line
# "#> NAME". Usage: pack-run.sh DIR
set -eu
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
cat "$1/timeline.jsonl"
for f in "$1"/*.json; do
  [ -f "$f" ] || continue
  printf '#> %s\n' "$(basename "$f")"
  cat "$f"
  printf '\n'
done
