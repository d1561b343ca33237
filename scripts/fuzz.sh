#!/usr/bin/env bash
# `make fuzz`: each harness named (tests/fuzz/fuzz_NAME.c, built with libFuzzer,
# ASan and UBSan) runs for FUZZ_SECONDS, from seeds that fit it (seeds()
# below) and every earlier regression. What crashes or hangs is kept under
# build/fuzz/found-NAME/; copy it to tests/fuzz/regressions/NAME/ once fixed,
# and `make test` replays it.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-60}
status=0

# The seeds of harness $1 beyond its regressions, copied into corpus $2.
seeds() {
  local f d
  case $1 in
  hprof_parser | strip_restore | analyze) # the corpus's small dumps (make corpus)
    for f in build/corpus/hprof/*.hprof build/corpus/hprof-world/*.hprof; do
      [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 4000000 ] && cp -n "$f" "$2/" 2>/dev/null
    done ;;
  rundata) # each fixture run directory packed as the harness reads it (tests/fuzz/pack-run.sh)
    for d in tests/fixtures/run-*/; do
      tests/fuzz/pack-run.sh "$d" > "$2/$(basename "$d").run"
    done ;;
  elf) # the small test programs, and a MiniDebugInfo one
    for f in build/targets/*; do
      [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 100000 ] && cp -n "$f" "$2/" 2>/dev/null
    done
    tests/unit/make_minidebuginfo.sh "build/fuzz/minidebug" > /dev/null 2>&1 &&
      cp build/fuzz/minidebug/minidebug "$2/minidebug" ;;
  hsperf) # the counters of the JVMs running now, if any
    for f in /tmp/hsperfdata_*/*; do
      [ -f "$f" ] && cp "$f" "$2/live-$(basename "$f")" 2>/dev/null
    done ;;
  esac
  return 0
}

# cpu: the CPU seconds this shell's children have used so far (bash's
# `times`, run in this shell: in a subshell it would count none of them).
child_cpu() {
  times > build/fuzz/.times
  cpu=$(tail -1 build/fuzz/.times | awk '{ gsub(/s/, ""); split($1, u, "m"); split($2, k, "m"); print u[1] * 60 + u[2] + k[1] * 60 + k[2] }')
}

mkdir -p build/fuzz
# the corpus the hprof harnesses' seeds come from (build/corpus)
scripts/corpus.sh || echo "fuzz: no corpus (make corpus): the hprof harnesses start from their regressions alone" >&2
for name in "$@"; do
  corpus=build/fuzz/corpus-$name found=build/fuzz/found-$name
  mkdir -p "$corpus" "$found"
  seeds "$name" "$corpus"
  for f in tests/fuzz/regressions/"$name"/*; do
    [ -f "$f" ] && cp -n "$f" "$corpus/" 2>/dev/null
  done
  echo "fuzz $name: ${secs} s from $(ls "$corpus" | wc -l) seeds"
  child_cpu; cpu0=$cpu
  dict=() # tests/fuzz/NAME.dict: words the mutations may insert
  [ -f tests/fuzz/"$name".dict ] && dict=(-dict=tests/fuzz/"$name".dict)
  if ! build/fuzz/fuzz_"$name" "${dict[@]}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=3072 -max_len=4000000 \
      -artifact_prefix="$found/" -print_final_stats=1 "$corpus" 2> "build/fuzz/$name.log"; then
    status=1
    echo "fuzz $name: FOUND a failure: $(ls "$found")"
    grep -m3 -E "ERROR|SUMMARY" "build/fuzz/$name.log"
  fi
  child_cpu
  echo "fuzz $name: cpu_seconds: $(echo "$cpu $cpu0" | awk '{ printf "%.1f", $1 - $2 }')"
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build/fuzz/$name.log" | sed "s/^/fuzz $name: /"
done
exit $status
