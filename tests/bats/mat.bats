#!/usr/bin/env bats
# The analyzer's default retained sizes are Eclipse MAT's reachable-only
# ones: checked object by object against an independent implementation
# written for the tests (tests/java/MatRetained.java: its own hprof reader,
# MAT's graph, Cooper-Harvey-Kennedy dominators; only the shallow sizes are
# taken from ours) on every corpus dump and on dumps whose garbage points
# into the live set (a list and a map that grew and left their old arrays
# behind), from `jcmd GC.heap_dump -all` and from oomscope's own fork-dump.
load helpers
load corpus
MAT="$ROOT/tests/hprof/mat_retained.sh"
JAVA_DIR="$ROOT/tests/java"

# Every object of DUMP has the retained size the independent implementation
# gives it, or is unreachable in both; prints the first differences.
compare_mat() { # DUMP OURS.tsv
  local bad
  MAT_XMX=${MAT_XMX:-3g} "$MAT" "$1" "$2" "$TMP/ref.tsv" > "$TMP/ref.json"
  # ours: id, retained (or "unreachable"), sorted as the reference's
  awk -F'\t' '{ print $1 "\t" ($5 == "unreachable" || $4 == "unreachable" ? "unreachable" : $3) }' "$2" |
    sort > "$TMP/ours2.tsv"
  sort "$TMP/ref.tsv" > "$TMP/ref2.tsv"
  bad=$(join -t $'\t' -a 1 -a 2 -e MISSING -o 0,1.2,2.2 "$TMP/ref2.tsv" "$TMP/ours2.tsv" |
        awk -F'\t' '$2 != $3' | tee "$TMP/mat-diff" | wc -l)
  if [ "$bad" -ne 0 ]; then
    echo "# $1: $bad of $(wc -l < "$TMP/ref.tsv") objects differ (id, reference, ours):" >&3
    head -n 5 "$TMP/mat-diff" | sed 's/^/#   /' >&3
    return 1
  fi
  [ "$(wc -l < "$TMP/ref.tsv")" -gt 0 ]
}

# A JVM running GarbageHeap, built after a full GC in a young generation
# that no collection empties before the dump.
start_garbage() {
  start_bg jvm java -XX:+UseSerialGC -Xms700m -Xmx700m -Xmn600m -cp "$JAVA_CLASSES" GarbageHeap \
    --sessions 2000 --session-kb 16
  wait_for "$TMP/jvm.out" '^ready pid=' 120
  grep -q ' collections=0$' "$TMP/jvm.out" || { echo "# a collection ran: $(cat "$TMP/jvm.out")" >&3; return 1; }
}

# The dump's analysis names the list's array as the suspect, with every
# session, and lists the old arrays as unreachable.
check_garbage_answer() { # ANALYSIS.json
  jq -e '.runningInfo.retainedModel == "mat" and .runningInfo.unreachableObjects > 0' "$1"
  # the old copies of the list's array and of the map's table are garbage
  jq -e '[.unreachableHistogram[] | select(.className == "java.lang.Object[]" or .className == "java.util.HashMap$Node[]")
          | .instanceCount] | add >= 10' "$1"
  # the first suspect: the list's array, accumulating all 2000 sessions (16 KiB each and more)
  jq -e '.suspects[0] | .kind == "object" and (.description | test("GarbageHeap\\$SessionCache.CLOSED")) and
         .accumulates[0].className == "GarbageHeap$Session" and .accumulates[0].instanceCount == 2000 and
         .accumulates[0].retainedSize >= 2000 * 16384 and .accumulationPoint.className == "java.lang.Object[]"' "$1" ||
    { jq -c '.suspects[] | {description, retainedSize}' "$1" >&3; return 1; }
  # no suspect of instances "no one object holds": every session has one holder
  jq -e '[.suspects[] | select(.kind == "instances" and .className == "GarbageHeap$Session")] | length == 0' "$1"
}

@test "every corpus dump (both folders, .hprof and .hprof.gz): retained sizes equal an independent MAT-graph computation, object by object; the same objects unreachable" {
  corpus_ready
  local f n=0
  for f in "$CORPUS"/*.hprof "$CORPUS"/*.hprof.gz "$WORLD"/*.hprof "$WORLD"/*.hprof.gz; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    run "$OOMSCOPE" analyze --json -q --retained-tsv "$TMP/ours.tsv" -o "$TMP/a.json" "$f"
    [ "$status" -eq 0 ] || { echo "# $f: $output" >&3; return 1; }
    jq -e '.runningInfo.retainedModel == "mat"' "$TMP/a.json"
    compare_mat "$f" "$TMP/ours.tsv" || return 1
    # the unreachable histogram adds up to what the reference leaves out
    [ "$(jq '.runningInfo.unreachableObjects' "$TMP/a.json")" = "$(jq '.unreachable' "$TMP/ref.json")" ]
    [ "$(jq '[.unreachableHistogram[].instanceCount] | add // 0' "$TMP/a.json")" = "$(jq '.unreachable' "$TMP/ref.json")" ]
  done
  echo "# $n dumps, every object as the reference has it" >&3
  [ "$n" -ge 11 ]
}

@test "garbage into the live set (jcmd GC.heap_dump -all): reachable-only sizes equal the reference; the list's array holds every session" {
  start_garbage
  local pid; pid=$(sed -n 's/^ready pid=\([0-9]*\).*/\1/p' "$TMP/jvm.out")
  jcmd "$pid" GC.heap_dump -all "$TMP/all.hprof" | grep -q "Heap dump file created"
  "$OOMSCOPE" analyze --json -q --retained-tsv "$TMP/ours.tsv" -o "$TMP/a.json" "$TMP/all.hprof"
  check_garbage_answer "$TMP/a.json"
  compare_mat "$TMP/all.hprof" "$TMP/ours.tsv"
  # VisualVM's model counts the old arrays as GC roots' references: the
  # sessions they hold split off from the list (what the default no longer does)
  "$OOMSCOPE" analyze --json -q --retained-model visualvm -o "$TMP/v.json" "$TMP/all.hprof"
  jq -e '[.suspects[] | select(.kind == "instances" and .className == "GarbageHeap$Session")] | length == 1' "$TMP/v.json"
  # the text says how much garbage there was, and lists it by class
  run "$OOMSCOPE" analyze -q "$TMP/all.hprof"
  [[ "$output" == *"no GC root reaches: garbage the dump kept"* ]]
  [[ "$output" == *"unreachable objects by class"* ]]
  # and so does the run's page, from the analysis in a run directory
  cp -r "$ROOT/tests/fixtures/run-leakyservice" "$TMP/run"
  cp "$TMP/a.json" "$TMP/run/dump-1.analysis.json"
  "$OOMSCOPE" report -q "$TMP/run"
  grep -q "unreachable objects (.*): garbage the dump kept, in no retained size" "$TMP/run/report.html"
  grep -q "<td>java.lang.Object\[\]</td>" "$TMP/run/report.html"
}

@test "garbage into the live set (oomscope's fork-dump): reachable-only sizes equal the reference; the same answer" {
  start_garbage
  local pid; pid=$(sed -n 's/^ready pid=\([0-9]*\).*/\1/p' "$TMP/jvm.out")
  run "$OOMSCOPE" dump -p "$pid" --load-shim -q --no-analyze -o "$TMP/s.hprof.gz"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; return 1; }
  [[ "$output" == *"(shim-fork)"* ]]
  "$OOMSCOPE" analyze --json -q --retained-tsv "$TMP/ours.tsv" -o "$TMP/a.json" "$TMP/s.hprof.gz"
  check_garbage_answer "$TMP/a.json"
  # the reference reads the standard format: the stripped dump restored
  "$OOMSCOPE" hprof restore "$TMP/s.hprof.gz" "$TMP/s.hprof"
  compare_mat "$TMP/s.hprof" "$TMP/ours.tsv"
}
