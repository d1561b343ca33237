#!/usr/bin/env bats
# A dump as a real app gives one (issue 30): over 10 million small objects
# live in a JVM (tests/java/ManySmall.java), a cache turning over, a worker
# thread parked in a known method holding a known local. Its fork-dump and
# the JVM's own dump (gzip and xz; the JVM's gzip), in many heap dump segments, each analyze,
# and name every thread with its frames and the locals each frame holds.
load helpers

JAVA_DIR="$ROOT/tests/java"

setup_file() {
  export BIG_TMP="$BATS_FILE_TMPDIR"
  java -Xmx1g -XX:+UseG1GC -cp "$JAVA_CLASSES" ManySmall --millions 10.5 > "$BIG_TMP/jvm.out" 2>&1 &
  echo $! > "$BIG_TMP/jvm.pid"
  local i
  for i in $(seq 1 1800); do
    grep -q '^ready pid=' "$BIG_TMP/jvm.out" && return 0
    kill -0 "$(cat "$BIG_TMP/jvm.pid")" 2> /dev/null || break
    sleep 0.1
  done
  echo "# ManySmall did not start: $(tail -n 3 "$BIG_TMP/jvm.out")" >&3
  return 1
}

teardown_file() {
  local pid; pid=$(cat "$BIG_TMP/jvm.pid")
  kill -KILL "$pid" 2> /dev/null || true
  wait "$pid" 2> /dev/null || true
  rm -f "/tmp/.java_pid$pid" # its attach socket, which the killed JVM leaves
}

# check_big DUMP ANALYSIS_JSON: the dump holds over 10 million objects in many
# segments; the analysis names the parked worker with its frames and its local
check_big() {
  "$OOMSCOPE" hprof check --json "$1" > "$TMP/check.json"
  jq -e '.objects >= 10000000' "$TMP/check.json" ||
    { jq -c '{objects, records}' "$TMP/check.json" | cut -c1-400 >&3; return 1; }
  jq -e '.records.HEAP_DUMP_SEGMENT.count > 1' "$TMP/check.json" ||
    { jq -c '.records' "$TMP/check.json" | cut -c1-400 >&3; return 1; }
  local w; w=$(jq -c '.threads[] | select(.name == "parked-worker")' "$2")
  [ -n "$w" ] || { jq -c '[.threads[] | {name, declaredFrames}]' "$2" | cut -c1-600 >&3; return 1; }
  # the method it is parked in, with its file and line, and below it the thread's run()
  jq -e '[.frames[].frame] | any(test("^ManySmall\\$Worker\\.parkHere\\(ManySmall\\.java:[0-9]+\\)$"))' <<<"$w" ||
    { jq -c '[.frames[].frame]' <<<"$w" >&3; return 1; }
  jq -e '[.frames[].frame] | any(test("^ManySmall\\$Worker\\.run\\(ManySmall\\.java:[0-9]+\\)$"))' <<<"$w"
  jq -e '[.frames[].frame][0] | test("^jdk\\.internal\\.misc\\.Unsafe\\.park\\(")' <<<"$w"
  # its local list, held in the frame of parkHere (or run, which made it)
  jq -e '[.frames[] | select(.frame | test("Worker\\.(parkHere|run)")) | .locals[] | .className] | index("java.util.ArrayList") != null' <<<"$w" ||
    { jq -c '.frames' <<<"$w" | cut -c1-800 >&3; return 1; }
  # every thread named, most with frames (the JVM's own threads have none)
  jq -e '[.threads[] | select(.name == null)] | length == 0' "$2" ||
    { jq -c '[.threads[] | {name, declaredFrames}]' "$2" | cut -c1-600 >&3; return 1; }
  jq -e '[.threads[] | select(.name == "main" or .name == "cache-churn") | .declaredFrames > 0] | length == 2 and all' "$2"
}

@test "a fork-dump of 10 million objects, gzip and xz: each analyzes, threads named with frames and locals" {
  local pid; pid=$(cat "$BIG_TMP/jvm.pid")
  run "$OOMSCOPE" dump -p "$pid" --load-shim -q -o "$TMP/s.hprof.gz"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; false; }
  [[ "$output" == *"(shim-fork)"* ]]
  check_big "$TMP/s.hprof.gz" "$TMP/s.hprof.gz.analysis.json"
  # the thread names are readable in the text report too
  grep -q 'parked-worker' "$TMP/s.hprof.gz.analysis.txt"
  # the xz one analyzed apart from the dump (each analysis of 10 million
  # objects costs a CPU for seconds: two, not three)
  run "$OOMSCOPE" dump -p "$pid" --method shim --xz --no-analyze -q -o "$TMP/s.hprof.xz"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; false; }
  [ ! -e "$TMP/s.hprof.xz.analysis.json" ]
  run "$OOMSCOPE" analyze -q --json -o "$TMP/xz.json" "$TMP/s.hprof.xz"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; false; }
  check_big "$TMP/s.hprof.xz" "$TMP/xz.json"
  # the same threads in both (the JVM idles between the two dumps but for its churn)
  diff <(jq -S '[.threads[].name] | sort' "$TMP/s.hprof.gz.analysis.json") <(jq -S '[.threads[].name] | sort' "$TMP/xz.json")
}

# (xz once, above: the compressor after the dump is the same for both methods)
@test "the JVM's own dump of 10 million objects, gzip: it analyzes, threads as the fork-dump has them" {
  local pid; pid=$(cat "$BIG_TMP/jvm.pid")
  run "$OOMSCOPE" dump -p "$pid" --method jvm -q -o "$TMP/j.hprof.gz"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; false; }
  check_big "$TMP/j.hprof.gz" "$TMP/j.hprof.gz.analysis.json"
  # plain, in many segments: the second pass reads it in two halves at once by default, in one
  # piece with --threads 1; the same answers (each class's retained size among them)
  gzip -dc "$TMP/j.hprof.gz" > "$TMP/j.hprof"
  local t
  for t in 1 2; do
    "$OOMSCOPE" analyze -q --threads "$t" --json -o "$TMP/t$t.json" "$TMP/j.hprof"
    [ "$(jq .runningInfo.analysisThreads "$TMP/t$t.json")" = "$t" ]
  done
  for k in .gcPaths .classHistogram .topRetainers .threads .suspects .runningInfo.reachableObjects .runningInfo.references; do
    diff <(jq -S "$k" "$TMP/t1.json") <(jq -S "$k" "$TMP/t2.json")
  done
  jq -e '.runningInfo.objects >= 10000000' "$TMP/t1.json"
  rm -f "$TMP/j.hprof"
}
