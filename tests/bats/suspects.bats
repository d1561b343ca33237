#!/usr/bin/env bats
# What a dump says with no rule given (issue 19): leak suspects (MAT's) -- a
# real JVM's dump of a service whose closed sessions pile up in a static
# listener list is named by its static field and the class it accumulates,
# with no --leak-class or --leak-if; threads with their stack traces and the
# locals each frame holds, equal to VisualVM's on every corpus dump.
load helpers
load corpus

CORPUS_DIRS=("$CORPUS" "$WORLD")

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

# Our threads as VisualVMThreads.java prints them: object id, then the
# frames as "Class.method:LINE" (LINE "-" when the dump has none).
our_threads() { # ANALYSIS.json
  jq -r '.threads[] | (.objectId | ltrimstr("0x")) + (if (.frames | length) > 0 then "\t" else "" end) +
         ([.frames[].frame | capture("^(?<m>.*)\\((?<w>.*)\\)$") |
           .m + ":" + (.w | capture(":(?<l>[0-9]+)$").l // "-")] | join(" | "))' "$1" | sort
}

@test "threads: the frame holding a large local list is named with its thread and what it retains" {
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" "$PILE"
  jq -e '.threads[] | select(.name == "frame-holder") | .heldRetainedSize >= 4 * 1048576' "$TMP/a.json"
  # the frame of holdLocals holds the list
  jq -e '[.threads[] | select(.name == "frame-holder") | .frames[] | select(.frame | startswith("SessionPile.holdLocals(SessionPile.java:")) |
          .locals[] | select(.className == "java.util.ArrayList" and .retainedSize >= 4 * 1048576)] | length == 1' "$TMP/a.json"
  jq -e '[.threads[] | select(.name == "main")] | length == 1' "$TMP/a.json"
  jq -e '[.threads[] | select(.threwOutOfMemoryError)] | length == 0' "$TMP/a.json"
  run "$OOMSCOPE" analyze -q "$PILE"
  [[ "$output" == *'"frame-holder" serial '*', locals retain 4.0 MB'* ]]
  [[ "$output" == *'at SessionPile.holdLocals(SessionPile.java:'* ]]
}

@test "threads: the thread that threw the OutOfMemoryError is marked (HotSpot's OOM dump)" {
  corpus_ready
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" "$CORPUS/javac-oom.hprof"
  [ "$(jq -r '[.threads[] | select(.threwOutOfMemoryError)] | length' "$TMP/a.json")" -eq 1 ]
  # HotSpot's dumper puts the thread that threw in OutOfMemoryError's
  # no-argument constructor: a frame at its first line in the JDK that made
  # the dump (this machine's)
  local line
  line=$(javap -l java.lang.OutOfMemoryError | awk '/[ .]OutOfMemoryError\(\);$/ { c = 1 } c && $1 == "line" && $3 == "0" { sub(":", "", $2); print $2; exit }')
  [ -n "$line" ]
  [ "$(jq -r '.threads[0] | .name + " " + (.threwOutOfMemoryError | tostring) + " " + .frames[0].frame' "$TMP/a.json")" = \
    "main true java.lang.OutOfMemoryError.<init>(OutOfMemoryError.java:$line)" ]
}

@test "threads: every corpus dump's stack traces equal VisualVM's, and the record counts equal hprof check's" {
  corpus_ready
  local jar=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar n=0 f d
  for d in "${CORPUS_DIRS[@]}"; do
    for f in "$d"/*.hprof "$d"/*.hprof.gz; do
      [ -e "$f" ] || continue
      n=$((n + 1))
      "$OOMSCOPE" analyze -q --json -o "$TMP/c.json" "$f"
      "$OOMSCOPE" hprof check --json "$f" > "$TMP/check.json"
      # every thread is named (JDK 5 to 17's String or char[] name, Android's)
      jq -e 'all(.threads[]; (.name // "") | length > 0) and ([.threads[] | select(.name == "main")] | length) == 1' "$TMP/c.json" > /dev/null ||
        { echo "# $f: a thread without its name, or no main thread" >&3; return 1; }
      [ "$(jq '.runningInfo.stackTraces' "$TMP/c.json")" = "$(jq '.records.STACK_TRACE.count // 0' "$TMP/check.json")" ]
      [ "$(jq '.runningInfo.stackFrames' "$TMP/c.json")" = "$(jq '.records.STACK_FRAME.count // 0' "$TMP/check.json")" ]
      [[ "$f" == *.gz ]] && continue # VisualVM reads plain files only
      mkdir -p "$TMP/vv"
      ln -f "$f" "$TMP/vv/d.hprof" 2>/dev/null || cp "$f" "$TMP/vv/d.hprof"
      timeout 300 java -cp "$jar" "$ROOT/tests/java/VisualVMThreads.java" "$TMP/vv/d.hprof" | sort > "$TMP/vv.txt"
      rm -rf "$TMP/vv"
      our_threads "$TMP/c.json" > "$TMP/ours.txt"
      # every thread VisualVM lists, with the same frames; VisualVM's list may
      # be shorter (the hprof agent's dump has 2 thread roots it does not list)
      comm -23 "$TMP/vv.txt" "$TMP/ours.txt" > "$TMP/diff"
      [ ! -s "$TMP/diff" ] ||
        { echo "# $f: threads VisualVM has and we do not:" >&3; head -n 4 "$TMP/diff" | cut -c1-300 | sed 's/^/#   /' >&3; return 1; }
      [ "$(wc -l < "$TMP/vv.txt")" -ge 4 ] && [ "$(wc -l < "$TMP/ours.txt")" -le $(( $(wc -l < "$TMP/vv.txt") + 2 )) ]
      echo "# $(basename "$f"): $(wc -l < "$TMP/vv.txt") threads as VisualVM has them (ours: $(wc -l < "$TMP/ours.txt"))" >&3
    done
  done
  [ "$n" -ge 2 ]
}

@test "growth: two dumps of a growing cache name the class and the path that grew, in any strip mode" {
  "$BATS_TEST_DIRNAME/../hprof/java_dumps.sh" "$TMP/grow" 2 grow:900 SessionPile --sessions 0 --local-kb 64
  "$OOMSCOPE" analyze -q --json --baseline "$TMP/grow-1.hprof" -o "$TMP/g.json" "$TMP/grow-2.hprof"
  # the suspect that grew is the cache's map, by its static field
  jq -e 'any(.growth.suspects[0:2][]; (.description | test("referenced by static `SessionPile\\$Cache.ENTRIES` accumulates [0-9]+ `java.util.HashMap\\$Node`"))
         and .retainedSize > .retainedSizeBefore + 5 * 1048576)' "$TMP/g.json" ||
    { jq -c '.growth.suspects' "$TMP/g.json" | cut -c1-600 >&3; return 1; }
  # classes with more instances first: the map's nodes, the sessions, their buffers lead
  # (a class the JVM itself adds between the dumps may come among them)
  jq -e '[.growth.classes[0:5][].className] as $top | ["SessionPile$Session", "byte[]", "java.util.HashMap$Node"] |
         all(. as $c | $top | index($c) != null)' "$TMP/g.json" ||
    { jq -c '[.growth.classes[0:6][] | [.className, .instanceCount - .instanceCountBefore, .retainedSize - .retainedSizeBefore]]' "$TMP/g.json" >&3; return 1; }
  jq -e '.growth.classes[] | select(.className == "SessionPile$Session") |
         .instanceCount - .instanceCountBefore >= 300 and .retainedSize - .retainedSizeBefore >= 300 * 16384' "$TMP/g.json"
  # the same answer from stripped, compressed dumps
  "$OOMSCOPE" hprof strip --mode koom --gzip "$TMP/grow-1.hprof" "$TMP/s1.hprof.gz"
  "$OOMSCOPE" hprof strip --xz "$TMP/grow-2.hprof" "$TMP/s2.hprof.xz"
  "$OOMSCOPE" analyze -q --json --baseline "$TMP/s1.hprof.gz" -o "$TMP/s.json" "$TMP/s2.hprof.xz"
  diff <(jq -S '.growth | del(.baseline)' "$TMP/g.json") <(jq -S '.growth | del(.baseline)' "$TMP/s.json")
  # in the text
  run "$OOMSCOPE" analyze -q --baseline "$TMP/grow-1.hprof" "$TMP/grow-2.hprof"
  [[ "$output" == *"growth since $TMP/grow-1.hprof: reachable heap"* ]]
  [[ "$output" == *'SessionPile$Cache.ENTRIES'* ]]
  # a baseline that is not there is refused in one line
  run "$OOMSCOPE" analyze --baseline "$TMP/none.hprof" "$TMP/grow-2.hprof"
  [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"no such baseline file"* ]]
}

@test "the run report shows each dump's suspects, threads, and what grew since the dump before" {
  "$BATS_TEST_DIRNAME/../hprof/java_dumps.sh" "$TMP/grow" 2 grow:2000 SessionPile --sessions 0 --local-kb 4096
  mkdir "$TMP/run"
  printf '{"type":"start","t":0,"pid":1,"command":"java SessionPile","mode":"watch"}\n{"type":"end","t":5,"reason":"test"}\n' \
    > "$TMP/run/timeline.jsonl"
  for i in 1 2; do "$OOMSCOPE" analyze -q --json -o "$TMP/run/dump-$i.analysis.json" "$TMP/grow-$i.hprof"; done
  "$OOMSCOPE" report -q "$TMP/run"
  local html="$TMP/run/report.html"
  grep -q 'leak suspect in dump 2: 1 `java.util.HashMap` referenced by static `SessionPile$Cache.ENTRIES`' "$html"
  grep -q '<th>grew since dump 1</th>' "$html"
  grep -q '<tr><td>SessionPile$Session</td><td class="n">+[0-9]' "$html"
  grep -q '<td>frame-holder</td><td class="n">4.0 MB</td>' "$html"
  # aggregate keeps the suspects by signature beside the leak groups
  run "$OOMSCOPE" aggregate --json "$TMP/run"
  [ "$status" -eq 0 ]
  jq -e '[.leaks[] | select(.leakReason | startswith("leak suspect (no rule): 1 `java.util.HashMap` referenced by static `SessionPile$Cache.ENTRIES`"))
          | select(.examplePath | contains("SessionPile$Cache.ENTRIES"))] | length == 1' <<<"$output"
}
