#!/usr/bin/env bash
# `make fuzz`: each harness named (tests/fuzz/fuzz_NAME.c, built with libFuzzer,
# ASan and UBSan) runs for FUZZ_SECONDS, from seeds: the small dumps of the
# shared corpora, the tests' own dumps, and every earlier regression. What
# crashes or hangs is kept under build/fuzz/found-NAME/; copy it to
# tests/fuzz/regressions/NAME/ once fixed, and `make test` replays it.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
status=0
for name in "$@"; do
  corpus=build/fuzz/corpus-$name found=build/fuzz/found-$name
  mkdir -p "$corpus" "$found"
  for f in ../shared/corpus/hprof/*.hprof ../shared/corpus/hprof-world/*.hprof tests/fuzz/regressions/"$name"/*; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 4000000 ] && cp -n "$f" "$corpus/" 2>/dev/null
  done
  echo "fuzz $name: ${secs} s from $(ls "$corpus" | wc -l) seeds"
  if ! build/fuzz/fuzz_"$name" -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 -max_len=4000000 \
      -artifact_prefix="$found/" -print_final_stats=1 "$corpus" 2> "build/fuzz/$name.log"; then
    status=1
    echo "fuzz $name: FOUND a failure: $(ls "$found")"
    grep -m3 -E "ERROR|SUMMARY" "build/fuzz/$name.log"
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build/fuzz/$name.log" | sed "s/^/fuzz $name: /"
done
exit $status
