#!/usr/bin/env bats
# The run report and its exports: report.html rendered by headless Chromium,
# trace.json against the trace event format, allocs.pb.gz decoded by an
# independent pprof reader, and the aggregation of many runs in SQLite. The
# run directories are recorded runs kept in tests/fixtures.
load helpers

FIX="$ROOT/tests/fixtures"
JS="$ROOT/tests/js"

# a fixture copied where it may be written
fixture() { cp -r "$FIX/$1" "$TMP/$2"; }

@test "report.html of a recorded run: valid in headless Chromium, no console errors, every chart drawn" {
  fixture run-leakyservice run
  run "$OOMSCOPE" report -q "$TMP/run"
  [ "$status" -eq 0 ]
  [ -s "$TMP/run/report.html" ]
  run timeout 120 node "$JS/check_report.js" "$TMP/run/report.html" "$TMP/shot.png"
  echo "$output" | head -c 2000 >&3
  [ "$status" -eq 0 ]
  local r="$output"
  # nothing went wrong, nothing was fetched: the page is self-contained
  [ "$(jq '.errors | length' <<<"$r")" -eq 0 ]
  [ "$(jq '.requests | length' <<<"$r")" -eq 0 ]
  # every series present in the run has a non-empty path in its chart
  for s in memory.RSS memory.VmSize heap."heap used" heap."heap max" heap."heap rule threshold" threads.threads fds.fds; do
    local chart=${s%%.*} name=${s#*.}
    [ "$(jq --arg c "$chart" --arg n "${name//\"/}" '.charts[$c].series[$n].points' <<<"$r")" -gt 5 ]
    [ "$(jq --arg c "$chart" --arg n "${name//\"/}" '.charts[$c].series[$n].width' <<<"$r" | cut -d. -f1)" -gt 500 ]
  done
  # the crossing, the dump and the GC pauses marked on the heap chart
  jq -e '.charts.heap | .crossings == 1 and .dumps == 1 and .gcs > 10' <<<"$r"
  # the findings tell the story
  jq -e '.findings | map(select(test("heap_fast_ratio"))) | length == 1' <<<"$r"
  jq -e '.findings | map(select(test("LeakyService\\$Session x3440"))) | length == 1' <<<"$r"
  jq -e '.h2 | index("Java heap: leaks and retainers") and index("Large allocations") and index("Threads")' <<<"$r"
  # screenshots: the page and each chart
  [ "$(stat -c %s "$TMP/shot.png")" -gt 100000 ]
  [ -s "$TMP/shot-heap.png" ] && [ -s "$TMP/shot-memory.png" ]
  # the report and its exports are whole files: nothing left half-written
  ! ls "$TMP/run/"*.tmp.* 2>/dev/null
}

@test "trace.json: the trace event format, with counter tracks, GC and dump slices, crossings" {
  fixture run-leakyservice run
  "$OOMSCOPE" report -q "$TMP/run"
  local t="$TMP/run/trace.json"
  jq -e '.traceEvents | length > 100' "$t"
  # every event has the fields the format requires
  [ "$(jq '[.traceEvents[] | select((.name | type) != "string" or (.ph | type) != "string" or (.pid | type) != "number" or (.tid | type) != "number")] | length' "$t")" -eq 0 ]
  [ "$(jq '[.traceEvents[] | select(.ph != "M" and (.ts | type) != "number")] | length' "$t")" -eq 0 ]
  [ "$(jq '[.traceEvents[] | select(.ph == "X" and ((.dur | type) != "number" or .dur < 0))] | length' "$t")" -eq 0 ]
  # the tracks
  for track in "memory (MB)" "Java heap (MB)" threads fds "lost events"; do
    [ "$(jq --arg n "$track" '[.traceEvents[] | select(.ph == "C" and .name == $n)] | length' "$t")" -gt 5 ]
  done
  # one GC slice per GC record, one dump slice, the crossing
  [ "$(jq '[.traceEvents[] | select(.ph == "X" and .cat == "gc")] | length' "$t")" -eq "$(grep -c '"type":"gc"' "$TMP/run/timeline.jsonl")" ]
  jq -e '[.traceEvents[] | select(.ph == "X" and .cat == "dump" and .args.ok == true)] | length == 1' "$t"
  jq -e '[.traceEvents[] | select(.ph == "i" and .cat == "crossing" and .name == "heap_fast_ratio")] | length == 1' "$t"
}

@test "allocs.pb.gz decodes with an independent pprof reader; its totals are allocs.json's" {
  fixture run-leakyservice run
  "$OOMSCOPE" report -q "$TMP/run"
  run node "$JS/check_pprof.js" "$TMP/run/allocs.pb.gz"
  [ "$status" -eq 0 ]
  local p="$output"
  jq -e '.sampleTypes == ["allocations/count", "space/bytes"] and .defaultSampleType == "space" and .resolved' <<<"$p"
  [ "$(jq '.sums[0]' <<<"$p")" -eq "$(jq '.count' "$TMP/run/allocs.json")" ]
  [ "$(jq '.sums[1]' <<<"$p")" -eq "$(jq '[.allocations[].bytes] | add' "$TMP/run/allocs.json")" ]
  [ "$(jq '.samples' <<<"$p")" -eq "$(jq '.groups | length' "$TMP/run/allocs.json")" ]
  # the functions carry demangled names
  jq -e '.functions | index("G1CollectedHeap::initialize()") != null' <<<"$p"
  # no allocs.json, no profile
  fixture run-plantedleaks planted
  "$OOMSCOPE" report -q "$TMP/planted"
  [ ! -e "$TMP/planted/allocs.pb.gz" ]
}

@test "aggregate: runs merged by leak signature in SQLite, counted once per run, kept across calls" {
  fixture run-leakyservice a
  fixture run-leakyservice b
  fixture run-plantedleaks p
  # b is the same service a week later
  sed -i 's/"wall_time":"[^"]*"/"wall_time":"2026-11-30T10:00:00Z"/' "$TMP/b/timeline.jsonl"
  local first; first=$(jq -r 'select(.type == "start") | .wall_time' "$TMP/a/timeline.jsonl")
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json "$TMP/a" "$TMP/b" "$TMP/p"
  [ "$status" -eq 0 ]
  local j="$output"
  jq -e '.schema == "oomscope-aggregate/1" and .runs == 3 and (.leaks | length) == 4' <<<"$j"
  local sig; sig=$(jq -r '.gcPaths[0].signature' "$TMP/a/dump-1.analysis.json")
  jq -e --arg s "$sig" --arg f "$first" '.leaks[] | select(.signature == $s) | .runs == 2 and .firstSeen == $f and .lastSeen == "2026-11-30T10:00:00Z" and .className == "LeakyService$Session" and (.examplePath | contains("LeakyService$SessionCache.CLOSED"))' <<<"$j"
  [ "$(jq '[.leaks[] | select(.runs == 1)] | length' <<<"$j")" -eq 3 ]
  # adding a run again replaces it; the database remembers the rest
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json "$TMP/a"
  jq -e --arg s "$sig" '.runs == 3 and (.leaks[] | select(.signature == $s) | .runs == 2)' <<<"$output"
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite"
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "3 run(s); leaks by signature, most runs first:" ]]
  [[ "$output" == *"$sig     2 "* ]]
  # not a run directory: one line, exit 1
  run "$OOMSCOPE" aggregate "$TMP/nowhere"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
}

@test "report survives a damaged run directory and says what is missing; refuses what is not one" {
  mkdir -p "$TMP/bad"
  head -n 40 "$FIX/run-leakyservice/timeline.jsonl" > "$TMP/bad/timeline.jsonl"
  printf '{"type":"sample","t":9\n' >> "$TMP/bad/timeline.jsonl"   # a line cut short
  echo 'not json at all' >> "$TMP/bad/timeline.jsonl"
  echo '{"groups": 5}' > "$TMP/bad/threads.json"                  # the wrong shape
  run "$OOMSCOPE" report -q "$TMP/bad"
  [ "$status" -eq 0 ]
  grep -q '2 timeline line(s) did not parse' "$TMP/bad/report.html"
  grep -q 'No fds.json in this run directory' "$TMP/bad/report.html"
  grep -q 'no end record' "$TMP/bad/report.html"
  run timeout 120 node "$JS/check_report.js" "$TMP/bad/report.html" "$TMP/bad.png"
  [ "$status" -eq 0 ]
  mkdir -p "$TMP/empty"
  run "$OOMSCOPE" report "$TMP/empty"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"not a run directory"* ]]
  run "$OOMSCOPE" report
  [ "$status" -eq 2 ]
}

@test "oomscope run writes the report at the end of every run" {
  run timeout 60 "$OOMSCOPE" run -d 4 -o "$TMP/r" --fd-count 50 --fd-polls 1 -- "$TARGETS/fd_target" -n 40
  [ "$status" -eq 0 ]
  [[ "$output" == *"report: $TMP/r/report.html"* ]]
  [ -s "$TMP/r/trace.json" ]
  run timeout 120 node "$JS/check_report.js" "$TMP/r/report.html" "$TMP/r.png"
  [ "$status" -eq 0 ]
  # the fd crossing is marked on the fd chart, its threshold drawn; no Java heap in this run
  jq -e '.charts.fds | .crossings == 1 and .thresholds == 1 and .series.fds.points > 2' <<<"$output"
  grep -q 'No Java heap in this run' "$TMP/r/report.html"
}
