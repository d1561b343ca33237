#!/usr/bin/env bats
# Leak suspects with no rule (MAT's leak suspects): a real JVM's dump of a
# service whose closed sessions pile up in a static listener list is named
# by its static field and the class it accumulates, with no --leak-class or
# --leak-if; every corpus dump gets suspects that hold.
load helpers

CORPUS_DIRS=("$ROOT/../shared/corpus/hprof" "$ROOT/../shared/corpus/hprof-world")

setup_file() {
  export PILE="$BATS_FILE_TMPDIR/pile.hprof"
  "$BATS_TEST_DIRNAME/../hprof/java_dump.sh" "$PILE" SessionPile --sessions 200 --session-kb 256
}

@test "a static list of closed sessions is the suspect, named by its field and what it accumulates" {
  run "$OOMSCOPE" analyze -q "$PILE"
  [ "$status" -eq 0 ]
  [[ "$output" == *"leaks: 0 objects in 0 groups"* ]]
  [[ "$output" == *'1 `java.util.ArrayList` referenced by static `SessionPile$EventBus.LISTENERS` accumulates 200 `SessionPile$Session`, 50.0 MB'* ]]
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" "$PILE"
  # the accumulation point is the list's backing array, over the 200 sessions
  [ "$(jq -r '.suspects[0].accumulationPoint.className' "$TMP/a.json")" = "java.lang.Object[]" ]
  [ "$(jq -r '.suspects[0].accumulationPoint.children' "$TMP/a.json")" -eq 200 ]
  [ "$(jq -r '.suspects[0].accumulates[0] | .className + " " + (.instanceCount|tostring)' "$TMP/a.json")" = 'SessionPile$Session 200' ]
  # 200 x 256 KB byte[] and their Session objects: at least 50 MiB accumulated
  [ "$(jq -r '.suspects[0].accumulates[0].retainedSize' "$TMP/a.json")" -ge $((200 * 256 * 1024)) ]
  # the path ends at the accumulation point, through the static field
  jq -r '.suspects[0].path[] | .referenceType + " " + .reference' "$TMP/a.json" > "$TMP/path"
  grep -qx 'STATIC_FIELD SessionPile$EventBus.LISTENERS' "$TMP/path"
  [ "$(tail -n 2 "$TMP/path")" = $'INSTANCE_FIELD java.util.ArrayList.elementData\nACCUMULATION_POINT java.lang.Object[]' ]
  # the share is of the reachable heap, and it is most of it
  jq -e '.suspects[0].heapShare > 0.8 and .suspects[0].heapShare <= 1' "$TMP/a.json"
  [ "$(jq -r '.suspects | length' "$TMP/a.json")" -eq 1 ]
}

@test "--suspect-share lowers the bar, and is refused out of range" {
  "$OOMSCOPE" analyze -q --json --suspect-share 0.05 -o "$TMP/a.json" "$PILE"
  # the frame-holder thread's 4 MB local list (~7 % of the heap) is now a suspect too
  [ "$(jq -r '.suspects | length' "$TMP/a.json")" -eq 2 ]
  jq -r '.suspects[1].accumulates[0].className' "$TMP/a.json" | grep -qx 'byte\[\]'
  jq -e '.suspects[1].gcRoot == "JavaFrame" or .suspects[1].gcRoot == "ThreadObject"' "$TMP/a.json"
  for bad in 0 1.5 x -0.1; do
    run "$OOMSCOPE" analyze --suspect-share "$bad" "$PILE"
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"--suspect-share wants a share above 0 and at most 1"* ]]
  done
}

@test "a stripped dump gives the same suspects" {
  "$OOMSCOPE" analyze -q --json -o "$TMP/whole.json" "$PILE"
  "$OOMSCOPE" hprof strip --xz "$PILE" "$TMP/s.hprof.xz"
  "$OOMSCOPE" analyze -q --json -o "$TMP/stripped.json" "$TMP/s.hprof.xz"
  sel='[.suspects[] | {description, signature, retainedSize, accumulationPoint}]'
  diff <(jq -S "$sel" "$TMP/whole.json") <(jq -S "$sel" "$TMP/stripped.json")
}

@test "every corpus dump: each suspect is over the share, retains no more than the heap, its path ends at its accumulation point" {
  local n=0 f
  for d in "${CORPUS_DIRS[@]}"; do
    for f in "$d"/*.hprof "$d"/*.hprof.gz; do
      [ -e "$f" ] || continue
      n=$((n + 1))
      "$OOMSCOPE" analyze -q --json -o "$TMP/c.json" "$f"
      jq -e '.runningInfo.reachableShallowSize as $h |
             all(.suspects[]; .retainedSize >= 0.1 * $h and .retainedSize <= $h
                 and .accumulationPoint.retainedSize <= .retainedSize
                 and (.path | length) - (if .path[0].referenceType == "LOCAL" then 1 else 0 end) == .pathLength
                 and .path[-1].referenceType == "ACCUMULATION_POINT"
                 and (.description | length) > 20)' "$TMP/c.json" > /dev/null ||
        { echo "# $f: a suspect does not hold" >&3; return 1; }
      jq -r --arg f "$(basename "$f")" '.suspects[] | "# \($f): \(.description)"' "$TMP/c.json" >&3
    done
  done
  [ "$n" -ge 2 ]
}
