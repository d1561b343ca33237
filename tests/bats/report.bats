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
  # the JVM's two large mmaps at start, 1 ms apart: one tick on the memory chart
  jq -e '.charts.memory.allocs == 1 and .charts.heap.allocs == 0' <<<"$r"
  grep -q '<title>2 large allocations from 0.1 to 0.1 s, 288.0 MB in all; the largest 256.0 MB, mmap by os::pd_commit_memory_or_exit' "$TMP/run/report.html"
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
  # the two large allocations on the track of the thread that made them, named as the JVM named it
  local tid; tid=$(jq '.allocations[0].tid' "$TMP/run/allocs.json")
  jq -e --argjson tid "$tid" '[.traceEvents[] | select(.ph == "i" and .cat == "alloc" and .tid == $tid and .s == "t")] | length == 2' "$t"
  jq -e --argjson tid "$tid" '[.traceEvents[] | select(.ph == "M" and .name == "thread_name" and .tid == $tid) | .args.name] == ["java"]' "$t"
  jq -e '[.traceEvents[] | select(.cat == "alloc") | .args.bytes] | add == 301989888' "$t"
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
  # the text, with no question: every finding by signature (the leaks among them)
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite"
  [ "$status" -eq 0 ]
  [[ "${lines[0]}" == "3 run(s); findings by signature, most runs first:" ]]
  grep -qE "^leak +$sig +2 " <<<"$output"
  grep -qE "^alloc +[0-9a-f]{16} +[0-9]+ " <<<"$output"
  [ "$(sed 1,2d <<<"$output")" = "$("$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --signatures | sed 1,2d)" ]
  # not a run directory: one line, exit 1
  run "$OOMSCOPE" aggregate "$TMP/nowhere"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
}

# sql DB QUERY: the rows, '|' between columns (Python's sqlite3, an independent reader)
sql() {
  python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join("" if v is None else str(v) for v in r))' "$@"
}

@test "the store (34): everything a run found, under its id and labels; a run added twice or copied stored once; a version-1 database migrated" {
  run timeout 60 "$OOMSCOPE" run -q --label build=4312 --label device=vm -o "$TMP/d" -- "$TARGETS/death_target" fds
  [ "$status" -eq 0 ]
  local id; id=$(head -n 1 "$TMP/d/timeline.jsonl" | jq -r .run_id)
  fixture run-leakyservice a
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" "$TMP/d" "$TMP/a"
  [ "$status" -eq 0 ]
  [ "$(sql "$TMP/lab.sqlite" 'SELECT version FROM store_version')" = 2 ]
  # the run: its id, host, how it ended; its labels
  sql "$TMP/lab.sqlite" "SELECT * FROM runs WHERE run_id = '$id'" >&3
  [ "$(sql "$TMP/lab.sqlite" "SELECT host, mode, cause FROM runs WHERE run_id = '$id'")" = "$(hostname)|run|self-signal" ]
  [ "$(sql "$TMP/lab.sqlite" "SELECT key || '=' || value FROM labels WHERE run_id = '$id' ORDER BY key" | paste -sd,)" = "build=4312,device=vm" ]
  # its crossing, the snapshot's groups (the fds by the function that made them), its failing call
  [ "$(sql "$TMP/lab.sqlite" "SELECT rule FROM crossings WHERE run_id = '$id'")" = fd_ratio ]
  [ "$(sql "$TMP/lab.sqlite" "SELECT SUM(count) FROM resource_groups WHERE run_id = '$id' AND snapshot = 'fds-1.json' AND created_by = 'leak_fds (death_target)'")" -gt 1000 ]
  [ "$(sql "$TMP/lab.sqlite" "SELECT syscall || ' ' || errno || ' ' || called_by FROM failures WHERE run_id = '$id'")" = "openat EMFILE leak_fds (death_target)" ]
  # the recorded Java run (from before ids): its leak, its large allocations
  [ "$(sql "$TMP/lab.sqlite" "SELECT COUNT(*) FROM leaks l JOIN runs r ON r.run_id = l.run_id WHERE r.dir LIKE '%/a'")" -ge 1 ]
  [ "$(sql "$TMP/lab.sqlite" "SELECT COUNT(*) FROM allocs a JOIN runs r ON r.run_id = a.run_id WHERE r.dir LIKE '%/a'")" -ge 1 ]
  # signatures are function names, not addresses: the same call site in another run, the same signature
  run timeout 60 "$OOMSCOPE" run -q -o "$TMP/d2" -- "$TARGETS/death_target" fds
  cp -r "$TMP/a" "$TMP/a-copy"
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" "$TMP/d2" "$TMP/d" "$TMP/a-copy"
  [ "$status" -eq 0 ]
  [ "$(sql "$TMP/lab.sqlite" 'SELECT COUNT(*) FROM runs')" -eq 3 ]
  [ "$(sql "$TMP/lab.sqlite" "SELECT COUNT(DISTINCT run_id) FROM failures WHERE called_by = 'leak_fds (death_target)'")" -eq 2 ]
  [ "$(sql "$TMP/lab.sqlite" "SELECT COUNT(DISTINCT signature) FROM failures WHERE called_by = 'leak_fds (death_target)'")" -eq 1 ]
  # a database of version 1 (runs and leaks by directory): migrated, its rows kept
  python3 -c 'import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""CREATE TABLE runs (dir TEXT PRIMARY KEY, command TEXT, pid INTEGER, started TEXT, added TEXT);
CREATE TABLE leaks (dir TEXT, dump INTEGER, signature TEXT, class TEXT, instances INTEGER, retained INTEGER, reason TEXT,
  gc_root TEXT, path TEXT, started TEXT, PRIMARY KEY (dir, dump, signature));
INSERT INTO runs VALUES ("/old/run", "java Old", 7, "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z");
INSERT INTO leaks VALUES ("/old/run", 1, "cafe0000cafe0000", "Old$Leak", 10, 4096, "r", "g", "p", "2026-01-01T00:00:00Z");""")
db.commit()' "$TMP/v1.sqlite"
  run "$OOMSCOPE" aggregate --db "$TMP/v1.sqlite" --json "$TMP/d"
  [ "$status" -eq 0 ]
  jq -e '.runs == 2 and (.leaks[] | select(.signature == "cafe0000cafe0000") | .className == "Old$Leak" and .runs == 1)' <<<"$output"
  [ "$(sql "$TMP/v1.sqlite" 'SELECT version FROM store_version')" = 2 ]
  [ "$(sql "$TMP/v1.sqlite" "SELECT command FROM runs WHERE dir = '/old/run'")" = "java Old" ]
  # a store newer than this oomscope: refused in one line
  python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("UPDATE store_version SET version = 99"); db.commit()' "$TMP/v1.sqlite"
  run "$OOMSCOPE" aggregate --db "$TMP/v1.sqlite" "$TMP/d"
  [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"version 99, newer than this oomscope's (2)"* ]]
}

@test "the lab's questions (34): signatures by runs, filtered by a label; what a build brought against the one before; a signature across builds; deaths by cause per build" {
  local b cg
  # the thread burst in a pids cgroup, so that clone fails first, whatever
  # the machine's limits (without one, a thread stack's mmap may fail first
  # against vm.max_map_count: pthread_create's EAGAIN with no failing clone)
  cg=$(cgroup_dir pids)
  echo 300 > "$cg/pids.max"
  for b in "4311 fds" "4312 fds" "4312 threads"; do
    set -- $b
    run timeout 60 sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
      "$OOMSCOPE" run -q --label build=$1 --label device=vm -o "$TMP/r-$1-$2" -- "$TARGETS/death_target" $2
    [ "$status" -eq 0 ]
  done
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json --signatures "$TMP"/r-*
  [ "$status" -eq 0 ]
  local j="$output" fds
  jq -c '.rows[] | {kind, runs, what}' <<<"$j" >&3
  # the fd group leak_fds made and its failing openat: in both fd runs, one signature each (made
  # of function names: the same in two runs); nothing that existed before the watch
  fds=$(jq -r '.rows[] | select(.kind == "fds" and .what == "/dev/null <- leak_fds (death_target)") | .signature' <<<"$j")
  jq -e --arg s "$fds" '.schema == "oomscope-query/1" and ([.rows[] | select(.signature == $s)][0] | .runs == 2 and .largest > 1000)
     and ([.rows[] | select(.kind == "failure" and .what == "openat EMFILE <- leak_fds (death_target)")][0].runs == 2)
     and ([.rows[] | select(.what | test("existed at attach"))] | length == 0)' <<<"$j"
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json --signatures --where build=4311
  jq -e '[.rows[].runs] | max == 1' <<<"$output"
  # what 4312 brought: the thread burst (its groups and its failing clone), not the fd leak both have
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json --new-in build=4312 --since build=4311
  [ "$status" -eq 0 ]
  jq -c '[.rows[] | .what]' <<<"$output" >&3
  jq -e --arg s "$fds" '([.rows[] | select(.signature == $s)] | length == 0)
     and ([.rows[] | select(.kind == "failure" and (.what | startswith("clone")) and (.what | endswith("<- spawn_workers (death_target)")))] | length == 1)
     and ([.rows[] | select(.kind == "threads")] | length >= 1)' <<<"$output"
  # the fd leak across builds: in 1 of 1 run of 4311, 1 of 2 of 4312, in the order they ran
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json --history "$fds" --across build
  jq -e '[.rows[] | [.value, .runs, .runsWithValue]] == [["4311", 1, 1], ["4312", 1, 2]]' <<<"$output"
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --history "$fds" --across build
  [[ "${lines[0]}" == "signature $fds across build (in the order its values first ran):" ]]
  # deaths by cause per build: abort() twice, an exit with code 3 once
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json --deaths --across build
  jq -e '[.rows[] | [.value, .cause, .runs]] | sort == [["4311", "self-signal", 1], ["4312", "exit", 1], ["4312", "self-signal", 1]]' <<<"$output"
  # the report beside the store: each finding of the run with how many other runs saw it, since when
  run "$OOMSCOPE" report -q --db "$TMP/lab.sqlite" "$TMP/r-4312-fds"
  [ "$status" -eq 0 ]
  local since; since=$(head -n 1 "$TMP/r-4311-fds/timeline.jsonl" | jq -r .wall_time)
  grep -q "<h2>In the lab's store</h2>" "$TMP/r-4312-fds/report.html"
  grep -qF "<tr><td>fds</td><td>/dev/null &lt;- leak_fds (death_target)</td><td class=\"n\">" "$TMP/r-4312-fds/report.html"
  grep -qE "leak_fds \(death_target\)</td><td class=\"n\">[0-9]+</td><td class=\"n\">1</td><td>$since</td>" "$TMP/r-4312-fds/report.html"
  run "$OOMSCOPE" report -q --db "$TMP/lab.sqlite" "$TMP/r-4312-threads"
  grep -qE "clone[0-9]* EAGAIN &lt;- spawn_workers \(death_target\)</td><td class=\"n\">[0-9]+</td><td class=\"n\">0</td><td>new: no other run</td>" \
    "$TMP/r-4312-threads/report.html"
  # a question asked wrongly: one line, exit 2
  local args
  for args in "--history $fds" "--new-in build=4312" "--new-in build=4312 --since device=vm" "--signatures --deaths" "--since build=1" "--where build"; do
    run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" $args
    [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] || { echo "# $args: $output" >&3; false; }
  done
}

@test "a six-hour run: each series at most four points a pixel column, a one-sample spike kept, GCs and losses merged, nothing dropped" {
  # 21,600 samples at 1 s; RSS has one sample ten times the rest at 10,000 s;
  # a GC every 2 s; one event lost at each of 100 samples from 5,000 s
  local d="$TMP/long"
  mkdir "$d"
  head -1 "$FIX/run-leakyservice/timeline.jsonl" > "$d/timeline.jsonl"
  awk 'BEGIN {
    for (i = 1; i <= 21600; i++) {
      rss = (i == 10000) ? 1024000 : 102400 + (i % 100) * 100
      drops = (i < 5000) ? 0 : (i < 5100 ? i - 4999 : 100)
      printf "{\"type\":\"sample\",\"t\":%d,\"rss_kb\":%d,\"vmsize_kb\":500000,\"threads\":%d,\"thread_limit\":90000,\"fds\":%d,\"fd_limit\":20000,\"ringbuf_drops\":%d,\"heap_used\":%d,\"heap_max\":268435456,\"heap_limit\":228170158}\n", i, rss, 20 + i % 7, 30 + i % 11, drops, 50000000 + (i % 60) * 1000000
      if (i % 2 == 0) printf "{\"type\":\"gc\",\"t\":%d.5,\"full\":%s,\"pause_ms\":%d}\n", i, (i % 1000 == 0) ? "true" : "false", 5 + i % 13
    }
    print "{\"type\":\"end\",\"t\":21600,\"reason\":\"duration\",\"ringbuf_drops\":100,\"set_full_drops\":0}"
  }' >> "$d/timeline.jsonl"
  run timeout 120 "$OOMSCOPE" report -q "$d"
  [ "$status" -eq 0 ]
  local html="$d/report.html"
  # a page of a few hundred KB, not of megabytes
  [ "$(stat -c %s "$html")" -lt 700000 ]
  # every series path: at most 4 points for each of the 840 columns
  local paths; paths=$(grep -o 'data-series="[^"]*" class="series[^"]*" stroke="[^"]*" d="[^"]*"' "$html")
  [ "$(wc -l <<<"$paths")" -ge 7 ]
  while read -r p; do
    [ "$(grep -o '[ML]' <<<"${p##*d=}" | wc -l)" -le $((4 * 841)) ]
    [ "$(grep -o '[ML]' <<<"${p##*d=}" | wc -l)" -gt 400 ]
  done <<<"$paths"
  # the spike is drawn where it is: x of 10,000 s, at the top of the scale
  # (the y axis ends 8% above the highest point: y = 206 - 178 / 1.08)
  grep 'data-series="RSS"' "$html" | grep -q 'L452.9 41.2 '
  # 10,800 GCs, each counted in one tick's title, no more ticks than columns
  local ticks; ticks=$(grep -c 'class="gc"' "$html")
  [ "$ticks" -le 841 ] && [ "$ticks" -gt 100 ]
  local merged single
  merged=$(grep -o '<title>[0-9]* GCs' "$html" | grep -o '[0-9]*' | awk '{n += $1} END {print n + 0}')
  single=$(grep -c '<title>\(young\|full\) GC at' "$html" || true)
  [ $((merged + single)) -eq 10800 ]
  # the 100 lost events: in a few markers on each chart, their counts summing to 100
  local lost; lost=$(sed -n '/<svg id="chart-memory"/,/<\/svg>/p' "$html" | grep -o 'class="drop"[^>]*><title>[0-9]* events lost' | sed 's/.*<title>//' | awk '{n += $1; m++} END {print n, m}')
  [ "${lost% *}" -eq 100 ] && [ "${lost#* }" -le 6 ]
  # Chromium draws it without an error
  run timeout 120 node "$JS/check_report.js" "$html" "$TMP/long.png"
  [ "$status" -eq 0 ]
  [ "$(jq '.errors | length' <<<"$output")" -eq 0 ]
  jq -e '.charts.memory.series.RSS.height > 100' <<<"$output"
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
  # the fd groups as they stood when the rule fired, then at the end
  grep -q '<h3>At the crossing: [0-9.]* s, fd_count</h3>' "$TMP/r/report.html"
  grep -q '<h3>At the end</h3>' "$TMP/r/report.html"
  grep -q '<a href="fds-1.json">fds-1.json</a>: the groups at the fd_count crossing' "$TMP/r/report.html"
  [ -s "$TMP/r/fds-1.json" ]
}

@test "oomscope report DIR tells the run's story on the terminal in at most 40 lines; -q the page's path only" {
  # a native run: its fd crossing with the groups that held the fds then, made by their code
  run timeout 60 "$OOMSCOPE" run -d 4 -o "$TMP/r" --fd-count 50 --fd-polls 1 -- "$TARGETS/fd_target" -n 40
  [ "$status" -eq 0 ]
  run "$OOMSCOPE" report "$TMP/r"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -le 41 ]
  [[ "${lines[0]}" == "oomscope: PID "*" (${TARGETS}/fd_target -n 40), run on "* ]]
  [ "${lines[1]}" = "how it ended: exited with code 0" ] || [[ "${lines[1]}" == "how it ended: the watch stopped"* ]]
  grep -qE '^crossings \([0-9]+(, by 1 rule; each rule.s first)?\):$' <<<"$output"
  grep -qE '^ +[0-9.]+ s  fd_count: .* -> fds-1\.json$' <<<"$output"
  # under the crossing: its snapshot's groups, the eventfds by the function that made them
  sed -n '/ fd_count: /,/^[a-z]/p' <<<"$output" | grep -qE '^ +40 fds anon_inode:\[eventfd\] <- open_looper_pairs \(fd_target\)$'
  [ "${lines[-1]}" = "$TMP/r/report.html" ]
  ! grep -q 'null' <<<"$output"
  # a JVM run: the dump, its leak by the --leak-if rule, retained size
  fixture run-leakyservice j
  run "$OOMSCOPE" report "$TMP/j"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${#lines[@]}" -le 41 ]
  grep -qx 'how it ended: the watch stopped (threshold crossed) after 11.9 s, the target still running' <<<"$output"
  grep -qE '^ +11\.0 s  heap_fast_ratio: Java heap 244\.7 MB of 256\.0 MB .* -> dump-1\.hprof\.gz$' <<<"$output"
  grep -qx 'heap dump 1: dump-1.hprof.gz (shim-fork, the app paused 30 ms)' <<<"$output"
  grep -qx '  leak: 3440 LeakyService$Session (User Leak: LeakyService$Session.closed==true (--leak-if)), 215.2 MB retained' <<<"$output"
  # -q: nothing but the path
  run "$OOMSCOPE" report -q "$TMP/j"
  [ "$status" -eq 0 ]
  [ "$output" = "$TMP/j/report.html" ]
}
