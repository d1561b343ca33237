#!/usr/bin/env bats
# oomscope analyze: planted leaks in a real JVM's dump found with their exact
# paths, retained sizes equal to VisualVM's heap library's, the same answers
# on stripped dumps, every corpus dump analyzed, bad input refused.
load helpers
load corpus
RETAINED="$ROOT/tests/hprof/retained_sizes.sh"
LEAK_IFS=(--leak-if 'PlantedLeaks$Screen.destroyed==true' --leak-if 'PlantedLeaks$Page.destroyed==true'
          --leak-if 'PlantedLeaks$Dialog.destroyed==true')

setup_file() {
  export PLANTED="$BATS_FILE_TMPDIR/planted.hprof"
  "$BATS_TEST_DIRNAME/../hprof/java_dump.sh" "$PLANTED" PlantedLeaks
}

# The path of the group of CLASS in an analysis, one "TYPE reference" per line.
path_of() { # JSON CLASS
  jq -r --arg c "$2" '.gcPaths[] | select(.className == $c) | .path[] | .referenceType + " " + .reference' "$1"
}

# Every object VisualVM lists has the same shallow and retained size in ours
# (both TSVs: id, shallow, retained[, class]; sorted by id).
compare_retained() { # VISUALVM.tsv OURS.tsv
  local bad
  bad=$(join -t $'\t' -a 1 -e MISSING -o 1.1,1.2,1.3,2.2,2.3 <(cut -f1-3 "$1" | sort) <(cut -f1-3 "$2" | sort) |
        awk -F'\t' '$2 != $4 || $3 != $5' | tee "$TMP/retained-diff" | wc -l)
  if [ "$bad" -ne 0 ]; then
    echo "# $bad of $(wc -l < "$1") objects differ (id, VisualVM shallow, retained, ours):" >&3
    head -n 5 "$TMP/retained-diff" | sed 's/^/#   /' >&3
    return 1
  fi
  [ "$(wc -l < "$1")" -gt 0 ]
}

@test "analyze --help explains the options" {
  run "$OOMSCOPE" analyze --help
  [ "$status" -eq 0 ]
  [[ "$output" == *"--leak-if"* && "$output" == *"--leak-class"* && "$output" == *"--json"* && "$output" == *"--top"* ]]
}

@test "analyze refuses bad input in one line, writes no report" {
  run "$OOMSCOPE" analyze "$TMP/none.hprof"
  [ "$status" -eq 2 ]
  [[ "$output" == *"no such file"* ]]
  run "$OOMSCOPE" analyze
  [ "$status" -eq 2 ]
  head -c 100000 /dev/urandom > "$TMP/junk.hprof"
  run "$OOMSCOPE" analyze -o "$TMP/r.json" "$TMP/junk.hprof"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "oomscope analyze: "* ]]
  [ ! -e "$TMP/r.json" ]
  # a dump cut in the middle (of its size: a JVM's dump is not the same size
  # twice, and a fixed cut once fell past its end): the offset is named
  head -c "$(( $(stat -c %s "$PLANTED") / 2 ))" "$PLANTED" > "$TMP/cut.hprof"
  run "$OOMSCOPE" analyze -o "$TMP/r.json" "$TMP/cut.hprof"
  [ "$status" -eq 1 ] || { echo "# analyze of the cut dump: $status: $output" >&3; false; }
  [[ "$output" == *"offset"* ]]
  [ ! -e "$TMP/r.json" ]
  ls "$TMP" | grep -qv '^\(junk\|cut\)\.hprof$' && return 1
  run "$OOMSCOPE" analyze --top 0 "$PLANTED"
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" analyze --leak-if 'destroyed==true' "$PLANTED"
  [ "$status" -eq 2 ]
  [[ "$output" == *"--leak-if"* ]]
  run "$OOMSCOPE" analyze --runtime dalvik "$PLANTED"
  [ "$status" -eq 2 ]
}

@test "planted leaks: found, counted, and each with its exact path" {
  run "$OOMSCOPE" analyze --json -o "$TMP/a.json" "${LEAK_IFS[@]}" "$PLANTED"
  [ "$status" -eq 0 ]
  jq -e '.analysisDone == true and .schema == "oomscope-analysis/1"' "$TMP/a.json"
  # 3 destroyed Screens of 5 (the garbage one is not in a live dump), 1 Page of 2, 1 Dialog of 2
  [ "$(jq '.classInfos[] | select(.className == "PlantedLeaks$Screen") | [.instanceCount, .leakInstanceCount] | @csv' -r "$TMP/a.json")" = "5,3" ]
  [ "$(jq '.classInfos[] | select(.className == "PlantedLeaks$Page") | [.instanceCount, .leakInstanceCount] | @csv' -r "$TMP/a.json")" = "2,1" ]
  [ "$(jq '.classInfos[] | select(.className == "PlantedLeaks$Dialog") | [.instanceCount, .leakInstanceCount] | @csv' -r "$TMP/a.json")" = "2,1" ]
  # the three Screens share one path: one group, count 3
  [ "$(jq '[.gcPaths[] | select(.className == "PlantedLeaks$Screen")] | length' "$TMP/a.json")" -eq 1 ]
  [ "$(jq '.gcPaths[] | select(.className == "PlantedLeaks$Screen") | .instanceCount' "$TMP/a.json")" -eq 3 ]
  # 1. the static list: ... -> Registry.SCREENS -> ArrayList.elementData -> [i] -> Screen
  path_of "$TMP/a.json" 'PlantedLeaks$Screen' | tail -n 4 > "$TMP/p1"
  diff <(sed -E 's/\[[0-9]+\]$/[N]/' "$TMP/p1") - <<'P'
STATIC_FIELD PlantedLeaks$Registry.SCREENS
INSTANCE_FIELD java.util.ArrayList.elementData
ARRAY_ENTRY java.lang.Object[][N]
LEAKING_INSTANCE PlantedLeaks$Screen
P
  # 2. the inner class run by a thread: a local of that thread, then this$0
  [ "$(jq -r '.gcPaths[] | select(.className == "PlantedLeaks$Page") | .gcRoot' "$TMP/a.json")" = JavaFrame ]
  path_of "$TMP/a.json" 'PlantedLeaks$Page' | sed -E 's/^LOCAL .*/LOCAL/' > "$TMP/p2"
  diff "$TMP/p2" - <<'P'
LOCAL
INSTANCE_FIELD PlantedLeaks$Page$1.this$0
LEAKING_INSTANCE PlantedLeaks$Page
P
  # 3. the listener registry: EventBus.LISTENERS -> HashMap.table -> [i] -> Node.value -> Dialog
  path_of "$TMP/a.json" 'PlantedLeaks$Dialog' | tail -n 5 | sed -E 's/\[[0-9]+\]$/[N]/' > "$TMP/p3"
  diff "$TMP/p3" - <<'P'
STATIC_FIELD PlantedLeaks$EventBus.LISTENERS
INSTANCE_FIELD java.util.HashMap.table
ARRAY_ENTRY java.util.HashMap$Node[][N]
INSTANCE_FIELD java.util.HashMap$Node.value
LEAKING_INSTANCE PlantedLeaks$Dialog
P
  # each leak's retained size is its own bytes and its array's
  [ "$(jq '.gcPaths[] | select(.className == "PlantedLeaks$Dialog") | .retainedSize' "$TMP/a.json")" -gt 16000 ]
  # signatures are stable hex strings, distinct per path
  [ "$(jq -r '[.gcPaths[].signature] | unique | length' "$TMP/a.json")" -eq "$(jq '.gcPaths | length' "$TMP/a.json")" ]
  jq -e 'all(.gcPaths[].signature; test("^[0-9a-f]{16}$"))' "$TMP/a.json"
}

@test "planted leaks: --leak-class flags every instance; text output names the path" {
  run "$OOMSCOPE" analyze --leak-class 'PlantedLeaks$Dialog' "$PLANTED"
  [ "$status" -eq 0 ]
  [[ "$output" == *"leaks: 2 objects"* ]]
  [[ "$output" == *"STATIC_FIELD"*"PlantedLeaks\$EventBus.LISTENERS"* ]]
  [[ "$output" == *"top retainers"* && "$output" == *"classes by retained size"* ]]
}

@test "the same answers on stripped dumps (app, koom; gzip and xz) as on the original" {
  "$OOMSCOPE" analyze --json --top 20 -o "$TMP/orig.json" "${LEAK_IFS[@]}" "$PLANTED"
  local m z
  for m in app koom; do
    for z in "" --gzip --xz; do
      "$OOMSCOPE" hprof strip --mode "$m" $z "$PLANTED" "$TMP/s.hprof"
      "$OOMSCOPE" analyze --json --top 20 -o "$TMP/s.json" "${LEAK_IFS[@]}" "$TMP/s.hprof"
      [ "$(jq -r .runningInfo.stripped "$TMP/s.json")" = "$m" ]
      for k in .gcPaths .classInfos .topRetainers .classHistogram .runningInfo.objects .runningInfo.shallowSize .runningInfo.reachableShallowSize; do
        diff <(jq -S "$k" "$TMP/orig.json") <(jq -S "$k" "$TMP/s.json")
      done
    done
  done
}

@test "--threads 1 and 2: the same answers, the count said in runningInfo; any other count refused" {
  local t
  for t in 1 2; do
    "$OOMSCOPE" analyze -q --threads "$t" --json --top 20 -o "$TMP/t$t.json" --retained-tsv "$TMP/t$t.tsv" \
      "${LEAK_IFS[@]}" "$PLANTED"
    [ "$(jq .runningInfo.analysisThreads "$TMP/t$t.json")" = "$t" ]
  done
  for k in .gcPaths .classInfos .topRetainers .classHistogram .suspects .threads .runningInfo.reachableShallowSize; do
    diff <(jq -S "$k" "$TMP/t1.json") <(jq -S "$k" "$TMP/t2.json")
  done
  cmp "$TMP/t1.tsv" "$TMP/t2.tsv"
  [ "$(jq '.gcPaths | length' "$TMP/t1.json")" -gt 0 ]
  run "$OOMSCOPE" analyze --threads 3 "$PLANTED"
  [ "$status" -eq 2 ]
  [[ "$output" == *"--threads takes 1 or 2: 3"* ]]
}

@test "retained sizes equal VisualVM's heap library's, object by object (planted dump)" {
  "$RETAINED" "$PLANTED" "$TMP/vv.tsv" > "$TMP/vv.json"
  "$OOMSCOPE" analyze -q --retained-model visualvm --retained-tsv "$TMP/ours.tsv" -o /dev/null "$PLANTED"
  compare_retained "$TMP/vv.tsv" "$TMP/ours.tsv"
}

# VisualVM's "three largest retained sizes" for a corpus dump, from the
# MANIFEST beside it, as "N N N" (empty when it lists none).
manifest_top3() { # DUMP
  local name; name=$(basename "$1" .gz)
  grep -F "| $name " "$(dirname "$1")/MANIFEST.md" | awk -F'|' '{print $(NF-1)}' | tr -d ', ' | tr '·' ' ' |
    grep -E '^[0-9 ]+$' | head -n 1 | xargs echo
}

@test "corpus (both folders, .hprof and .hprof.gz): every dump analyzed; with --retained-model visualvm, shallow and retained sizes equal VisualVM's object by object; the MANIFEST's largest three" {
  corpus_ready
  local f n=0
  for f in "$CORPUS"/*.hprof "$CORPUS"/*.hprof.gz "$WORLD"/*.hprof "$WORLD"/*.hprof.gz; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    run "$OOMSCOPE" analyze --json -q --retained-model visualvm --retained-tsv "$TMP/ours.tsv" -o "$TMP/a.json" "$f"
    [ "$status" -eq 0 ] || { echo "# $f: $output" >&3; return 1; }
    jq -e '.analysisDone and .runningInfo.retainedModel == "visualvm"' "$TMP/a.json"
    local plain="$f"
    if [[ "$f" == *.gz ]]; then plain="$TMP/plain.hprof"; gzip -dc "$f" > "$plain"; fi
    VISUALVM_XMX=3g "$RETAINED" "$plain" "$TMP/vv.tsv" > "$TMP/vv.json"
    compare_retained "$TMP/vv.tsv" "$TMP/ours.tsv" || { echo "# in $f" >&3; return 1; }
    # the MANIFEST's figures are this VisualVM's: its three largest (ours equal them, object by object)
    local want; want=$(manifest_top3 "$f")
    [ -z "$want" ] || [ "$(cut -f3 "$TMP/vv.tsv" | sort -rn | head -3 | xargs echo)" = "$want" ] ||
      { echo "# $f: VisualVM's three largest are not the MANIFEST's $want" >&3; return 1; }
    rm -f "$TMP/plain.hprof"
  done
  echo "# $n dumps, every object as VisualVM has it" >&3
  [ "$n" -ge 11 ]
}

@test "Android rules (synthetic ART dumps, ids 4 and 8): Activity, Fragment, Bitmap, Window, with paths" {
  local n
  for n in 4 8; do
    "$BUILD_DIR/tools/synth_hprof" android-app "$n" "$TMP/a.hprof"
    "$OOMSCOPE" analyze --json -o "$TMP/a.json" "$TMP/a.hprof"
    [ "$(jq -r .runningInfo.runtime "$TMP/a.json")" = android ]
    for c in android.app.Activity androidx.fragment.app.Fragment android.graphics.Bitmap; do
      [ "$(jq -r --arg c "$c" '.classInfos[] | select(.className == $c) | "\(.instanceCount) \(.leakInstanceCount)"' "$TMP/a.json")" = "2 1" ]
    done
    [ "$(jq -r '.classInfos[] | select(.className == "android.view.Window") | "\(.instanceCount) \(.leakInstanceCount)"' "$TMP/a.json")" = "1 1" ]
    diff <(path_of "$TMP/a.json" com.example.MainActivity) - <<'P'
STATIC_FIELD com.example.App.sLeaked
LEAKING_INSTANCE com.example.MainActivity
P
    diff <(path_of "$TMP/a.json" androidx.fragment.app.Fragment) - <<'P'
STATIC_FIELD com.example.App.sFragments
ARRAY_ENTRY java.lang.Object[][0]
LEAKING_INSTANCE androidx.fragment.app.Fragment
P
    diff <(path_of "$TMP/a.json" android.graphics.Bitmap) - <<'P'
STATIC_FIELD com.example.App.sLeaked
INSTANCE_FIELD com.example.MainActivity.mBitmap
LEAKING_INSTANCE android.graphics.Bitmap
P
    # the Bitmap's pixels were stripped (PRIMITIVE_ARRAY_NODATA): they count at 1080 x 1920 x 4 bytes
    [ "$(jq '.gcPaths[] | select(.className == "android.graphics.Bitmap") | .retainedSize' "$TMP/a.json")" -gt 8294400 ]
    # the Activity retains its Bitmap and Window
    [ "$(jq '.gcPaths[] | select(.className == "com.example.MainActivity") | .retainedSize' "$TMP/a.json")" -gt \
      "$(jq '.gcPaths[] | select(.className == "android.graphics.Bitmap") | .retainedSize' "$TMP/a.json")" ]
    # a higher Bitmap threshold: no large Bitmap
    "$OOMSCOPE" analyze --json --bitmap 2000x2000 -o "$TMP/b.json" "$TMP/a.hprof"
    [ "$(jq '.classInfos[] | select(.className == "android.graphics.Bitmap") | .leakInstanceCount' "$TMP/b.json")" -eq 0 ]
    # --runtime jvm: no Android rules
    "$OOMSCOPE" analyze --json --runtime jvm -o "$TMP/c.json" "$TMP/a.hprof"
    [ "$(jq '.gcPaths | length' "$TMP/c.json")" -eq 0 ]
  done
}

@test "--library-leak: a leak reached only across that reference is a library leak; retained sizes do not move" {
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" --retained-tsv "$TMP/a.tsv" "${LEAK_IFS[@]}" \
    --library-leak 'PlantedLeaks$Registry#SCREENS' "$PLANTED"
  jq -e '[.gcPaths[] | select(.className == "PlantedLeaks$Screen") | .libraryLeak and
          .libraryLeakReference == "PlantedLeaks$Registry#SCREENS: named by --library-leak"] == [true]' "$TMP/a.json"
  jq -e '[.gcPaths[] | select(.className != "PlantedLeaks$Screen") | .libraryLeak] == [false, false]' "$TMP/a.json"
  "$OOMSCOPE" analyze -q -o /dev/null --retained-tsv "$TMP/b.tsv" "$PLANTED"
  cmp "$TMP/a.tsv" "$TMP/b.tsv"
  run "$OOMSCOPE" analyze -q "${LEAK_IFS[@]}" --library-leak 'PlantedLeaks$Registry#SCREENS' "$PLANTED"
  [[ "$output" == *"Library Leak (no fault of the app): PlantedLeaks\$Registry#SCREENS"* ]]
  run "$OOMSCOPE" analyze -q --library-leak 'PlantedLeaks$Registry#NOPE' "$PLANTED"
  [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"--library-leak PlantedLeaks\$Registry#NOPE: PlantedLeaks\$Registry has no reference field NOPE"* ]]
}

@test "ART's image heap never holds a leak: the same destroyed Window is one in the app heap, none in the image heap" {
  local n
  for n in 4 8; do
    "$BUILD_DIR/tools/synth_hprof" android-app "$n" "$TMP/app.hprof"
    "$BUILD_DIR/tools/synth_hprof" android-app-image "$n" "$TMP/img.hprof"
    "$OOMSCOPE" analyze --json -q -o "$TMP/app.json" "$TMP/app.hprof"
    "$OOMSCOPE" analyze --json -q -o "$TMP/img.json" "$TMP/img.hprof"
    jq -e '[.gcPaths[] | select(.className == "android.view.Window")] | length == 1' "$TMP/app.json"
    jq -e '[.gcPaths[] | select(.className == "android.view.Window")] | length == 0' "$TMP/img.json"
    # the other leaks are the same
    [ "$(jq -c '[.gcPaths[].className | select(. != "android.view.Window")]' "$TMP/app.json")" = \
      "$(jq -c '[.gcPaths[].className]' "$TMP/img.json")" ]
    # and the image heap is named in hprof check
    "$OOMSCOPE" hprof check --json "$TMP/img.hprof" | jq -e '[.heaps[].heap] | index("image") != null'
  done
}

@test "the report says which GC roots paths start from first and which references they never cross" {
  "$OOMSCOPE" analyze --json -q -o "$TMP/a.json" "${LEAK_IFS[@]}" "$PLANTED"
  [ "$(jq -c '.runningInfo.gcRootOrder[0:3]' "$TMP/a.json")" = '["ThreadObject","StickyClass","JniGlobal"]' ]
  jq -e '.runningInfo.referencesNotCrossed | test("Weak, Soft, Final, Phantom")' "$TMP/a.json"
  run "$OOMSCOPE" analyze -q "${LEAK_IFS[@]}" "$PLANTED"
  [[ "$output" == *"paths from GC roots: ThreadObject, StickyClass, JniGlobal first; never across weak, soft or phantom referents"* ]]
}

@test "--max-memory: a dump that would need more is refused in one line with the estimate, before any output; enough passes" {
  corpus_ready
  local f="$CORPUS/javac-oom.hprof" figures objects
  # its objects, class objects included, in millions: VisualVM's instances and
  # classes, from the MANIFEST made with the dump
  figures=$(corpus_figures "$f")
  objects=$(awk '{ printf "%.1f", ($1 + $3) / 1e6 }' <<< "$figures")
  run "$OOMSCOPE" analyze -q --max-memory 20M -o "$TMP/a.txt" "$f"
  [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
  [[ "$output" =~ ^"oomscope analyze: ".*"the analysis needs up to about "[0-9]+" MB ($objects M objects, up to "[0-9.]+" M references); --max-memory allows 20 MB"$ ]] ||
    { echo "# $output (the MANIFEST's: $objects M objects)" >&3; return 1; }
  [ ! -e "$TMP/a.txt" ]
  # javac's syntax trees point back at their parents: nearly every object
  # reaches a cycle (at least 7 in 10 of them), which Semi-NCA needs more for;
  # that is found before the dominators take it, and refused the same way
  local need; need=$(sed -E 's/.*about ([0-9]+) MB.*/\1/' <<< "$output")
  run "$OOMSCOPE" analyze -q --max-memory "${need}M" -o "$TMP/a.txt" "$f"
  [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
  [[ "$output" =~ ^"oomscope analyze: the analysis needs up to about "[0-9]+" MB ("([0-9]+\.[0-9])" M of the objects reach a cycle); --max-memory allows ${need} MB"$ ]]
  awk -v c="${BASH_REMATCH[1]}" -v o="$objects" 'BEGIN { exit !(c >= 0.7 * o && c <= o) }' ||
    { echo "# ${BASH_REMATCH[1]} M of $objects M objects reach a cycle" >&3; return 1; }
  [ ! -e "$TMP/a.txt" ]
  # the estimate is above what the analysis then takes (peak RSS, measured)
  need=$(sed -E 's/.*about ([0-9]+) MB.*/\1/' <<< "$output")
  # under ASan (make test SAN=1) its shadow memory and redzones come on top:
  # the bound is then checked at three times the estimate, with the quarantine
  # of freed blocks (256 MB by default, as much as the analysis) cut to 16 MB
  local slack=1 asan=${ASAN_OPTIONS:-}
  [ "${OOMS_BUILD:-build}" = build-san ] && slack=3 asan="${asan:+$asan:}quarantine_size_mb=16"
  ASAN_OPTIONS=$asan /usr/bin/time -f %M -o "$TMP/peak" "$OOMSCOPE" analyze -q --max-memory "${need}M" -o "$TMP/a.txt" "$f"
  local peak; peak=$(tail -n 1 "$TMP/peak")
  [ -s "$TMP/a.txt" ]
  echo "# javac-oom: estimate $need MB, peak RSS $((peak / 1024)) MB" >&3
  [ "$peak" -gt 0 ] && [ $((peak / 1024)) -le $((need * slack)) ]
  run "$OOMSCOPE" analyze -q --max-memory lots "$f"
  [ "$status" -eq 2 ] && [[ "$output" == *"--max-memory wants BYTES"* ]]
}

@test "ART (synthetic dumps, ids 4 and 8): every root kind named, UNREACHABLE no root; NativeAllocationRegistry sizes; Matrix's watched Activity" {
  local n
  for n in 4 8; do
    "$BUILD_DIR/tools/synth_hprof" android-art "$n" "$TMP/art.hprof"
    "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" --retained-tsv "$TMP/a.tsv" "$TMP/art.hprof"
    # the 15 kinds ART writes, by Shark's names; the UNREACHABLE record is not a root
    jq -e '.runningInfo.gcRoots == 17 and (.runningInfo.gcRootKinds | keys | length) == 15 and
           .runningInfo.gcRootKinds.VmInternal == 1 and .runningInfo.gcRootKinds.ReferenceCleanup == 1 and
           .runningInfo.gcRootKinds.JniMonitor == 1 and .runningInfo.gcRootKinds.InternedString == 1 and
           .runningInfo.gcRootKinds.JniGlobal == 2 and .runningInfo.gcRootKinds.StickyClass == 2' "$TMP/a.json"
    [ "$(grep -P '^305d\t' "$TMP/a.tsv" | cut -f3)" = 0 ]
    [ "$(grep -P '^305c\t' "$TMP/a.tsv" | cut -f3)" = 8 ]
    # the registries' sizes, on the Bitmaps their Cleaners watch
    jq -e '.runningInfo.nativeRegistered == {"objects": 2, "bytes": 8298496}' "$TMP/a.json"
    jq -e '.gcPaths[] | select(.className == "android.graphics.Bitmap") | .retainedNativeSize == 8294400' "$TMP/a.json"
    # Matrix: the destroyed MainActivity its DestroyedActivityInfo still reaches, with key and name;
    # the other one's Activity is only weakly reachable: no leak
    jq -e '[.gcPaths[] | select(.leakReason | startswith("Matrix Leak"))] | length == 1' "$TMP/a.json"
    jq -e '.gcPaths[] | select(.leakReason | startswith("Matrix Leak")) |
           .className == "com.example.MainActivity" and .leakObjectId == "0x3001" and
           .matrix.key == "MATRIX_REFKEY_com.example.MainActivity_5f2c01" and
           .matrix.description == "com.example.MainActivity" and .path[0].reference == "com.example.App.sHolder"' "$TMP/a.json"
    run "$OOMSCOPE" analyze -q "$TMP/art.hprof"
    [[ "$output" == *"Matrix watch: key MATRIX_REFKEY_com.example.MainActivity_5f2c01, com.example.MainActivity"* ]]
    [[ "$output" == *"native      2 objects free native memory when collected (NativeAllocationRegistry): 7.9 MB"* ]]
  done
}
