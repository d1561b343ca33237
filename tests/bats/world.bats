#!/usr/bin/env bats
# The analyzer on the world's dumps (build/corpus/hprof-world): dumps
# from producers other than this project's JDK. Object-by-object agreement
# with VisualVM on every corpus dump is in analyze.bats; here, what is
# particular to these producers.
load helpers
load corpus

RETAINED="$ROOT/tests/hprof/retained_sizes.sh"

@test "Android (Dalvik) dumps: every object's shallow size is VisualVM's, class objects as java.lang.Class instances" {
  corpus_ready
  local f n=0
  for f in "$WORLD"/*.hprof; do
    head -c 18 "$f" | grep -q 'JAVA PROFILE 1.0.3' || continue
    n=$((n + 1))
    VISUALVM_XMX=2g "$RETAINED" "$f" "$TMP/vv.tsv" > /dev/null
    "$OOMSCOPE" analyze -q -o /dev/null --retained-tsv "$TMP/ours.tsv" "$f"
    # every object of VisualVM's (class objects included) with the same shallow size
    join -t $'\t' -a 1 -e MISSING -o 1.1,1.2,2.2 <(cut -f1,2 "$TMP/vv.tsv" | sort) <(cut -f1,2 "$TMP/ours.tsv" | sort) |
      awk -F'\t' '$2 != $3' > "$TMP/diff"
    [ ! -s "$TMP/diff" ] || { echo "# $f: $(wc -l < "$TMP/diff") shallow sizes differ" >&3; head -3 "$TMP/diff" >&3; return 1; }
    # class objects are there, at java.lang.Class's size from the dump (160 on Dalvik)
    [ "$(grep -c 'class$' "$TMP/ours.tsv")" -gt 3000 ]
    [ "$(awk -F'\t' '$4 == "class" {print $2}' "$TMP/ours.tsv" | sort -u)" = 160 ]
  done
  [ "$n" -eq 2 ]
}

@test "a referent of Dalvik's FinalizerReference holds, as in VisualVM (no WeakReference family class holds it)" {
  corpus_ready
  # In the Dialer dump this FileOutputStream is held only by a
  # java.lang.ref.FinalizerReference; VisualVM counts it reachable, retaining 156 B
  "$OOMSCOPE" analyze -q -o /dev/null --retained-model visualvm --retained-tsv "$TMP/ours.tsv" "$WORLD/perflib-dialer-kitkat.hprof"
  [ "$(grep -P '^b0d420c0\t' "$TMP/ours.tsv")" = $'b0d420c0\t28\t156' ]
  # the HotSpot dumps still agree with VisualVM object by object
  "$OOMSCOPE" analyze -q -o /dev/null --retained-model visualvm --retained-tsv "$TMP/h.tsv" "$WORLD/mat-openjdk_jdk11_04_x64.hprof"
  VISUALVM_XMX=2g "$RETAINED" "$WORLD/mat-openjdk_jdk11_04_x64.hprof" "$TMP/hvv.tsv" > /dev/null
  [ "$(join -t $'\t' -o 1.2,1.3,2.2,2.3 <(cut -f1-3 "$TMP/hvv.tsv" | sort) <(cut -f1-3 "$TMP/h.tsv" | sort) | awk -F'\t' '$1 != $3 || $2 != $4' | wc -l)" -eq 0 ]
}

@test "--retained-model: MAT's by default; VisualVM's sums (a Dalvik class object retains 0 B) and dominated sums on request" {
  corpus_ready
  local f="$WORLD/perflib-dialer-kitkat.hprof"
  "$OOMSCOPE" analyze -q --json -o "$TMP/m.json" --retained-tsv "$TMP/mat.tsv" "$f"
  jq -e '.runningInfo.retainedModel == "mat"' "$TMP/m.json"
  "$OOMSCOPE" analyze -q -o /dev/null --retained-model visualvm --retained-tsv "$TMP/vv.tsv" "$f"
  "$OOMSCOPE" analyze -q --json -o "$TMP/d.json" --retained-model dominated --retained-tsv "$TMP/dom.tsv" "$f"
  jq -e '.runningInfo.retainedModel == "dominated"' "$TMP/d.json"
  # MAT's: every reachable object retains at least itself, class objects too
  [ "$(grep -vc unreachable "$TMP/mat.tsv")" -gt 40000 ]
  [ "$(grep -v unreachable "$TMP/mat.tsv" | awk -F'\t' '$3 < $2' | wc -l)" -eq 0 ]
  # VisualVM's model: this class object, heading no tree an instance heads, retains nothing
  [ "$(grep -P '^b100f7c0\t' "$TMP/vv.tsv")" = $'b100f7c0\t160\t0\tclass' ]
  [ "$(grep -P '^b100f7c0\t' "$TMP/dom.tsv")" = $'b100f7c0\t160\t160\tclass' ]
  # dominated: no reachable object retains less than itself; in VisualVM's
  # model 279 of the 3,571 class objects do (all reachable)
  [ "$(awk -F'\t' '$3 > 0 && $3 < $2' "$TMP/dom.tsv" | wc -l)" -eq 0 ]
  [ "$(awk -F'\t' '$4 == "class" && $3 < $2' "$TMP/dom.tsv" | wc -l)" -eq 0 ]
  [ "$(awk -F'\t' '$4 == "class" && $3 < $2' "$TMP/vv.tsv" | wc -l)" -eq 279 ]
  # the interned string root this Dialer object holds counts under it in both models
  [ "$(grep -P '^b0e35fa8\t' "$TMP/vv.tsv" | cut -f3)" -eq 225304 ]
  run "$OOMSCOPE" analyze -q --retained-model nope "$f"
  [ "$status" -eq 2 ] && [[ "$output" == *"--retained-model takes mat, visualvm or dominated: nope"* ]]
}

@test "a file with two heap dumps (the hprof agent's): the first is analyzed, as VisualVM reads it" {
  corpus_ready
  local f="$WORLD/mat-sun_jdk6_31_hprofagent_compressedOops.hprof"
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" --retained-model visualvm --retained-tsv "$TMP/ours.tsv" "$f"
  # 2,456 instances and 377 classes (the second dump repeats the ids with emptied arrays)
  jq -e '.runningInfo.objects == 2833 and .runningInfo.classes == 377' "$TMP/a.json"
  # VisualVM's three largest retained sizes: 25,096 · 25,096 · 18,616
  [ "$(grep -v 'class$' "$TMP/ours.tsv" | cut -f3 | sort -rn | head -3 | tr '\n' ' ')" = "25096 25096 18616 " ]
  # hprof check still sees both
  "$OOMSCOPE" hprof check --json "$f" | jq -e '.records.HEAP_DUMP_END.count == 2'
}

@test "LeakCanary 1.x: the object its KeyedWeakReference watches, still strongly reachable, is a leak" {
  corpus_ready
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" "$WORLD/leakcanary1-leak_service_binder.hprof"
  jq -e '[.gcPaths[] | select(.className == "com.example.leakcanary.LeakyService" and .instanceCount == 1 and
          (.leakReason | startswith("LeakCanary Leak: watched by a com.squareup.leakcanary.KeyedWeakReference")))] | length == 1' "$TMP/a.json"
  jq -e '.classInfos[] | select(.className == "com.squareup.leakcanary.KeyedWeakReference") | .leakInstanceCount == 1' "$TMP/a.json"
  # its path starts at a static field of LeakyService, held by the class, as
  # LeakCanary's own test has it (Binder roots are a library's: taken last)
  jq -e '.gcPaths[] | select(.className == "com.example.leakcanary.LeakyService") |
         .gcRoot == "StickyClass" and .libraryLeak == false and .path[0].referenceType == "STATIC_FIELD" and
         .path[0].reference == "com.example.leakcanary.LeakyService.leakAllTheBinders" and
         .path[0].declaredClass == "com.example.leakcanary.LeakyService"' "$TMP/a.json"
  # with the watch's key, as LeakCanary's own test names it (the MANIFEST)
  jq -e '.gcPaths[] | select(.className == "com.example.leakcanary.LeakyService") |
         .leakCanary.key == "b3abfae6-2c53-42e1-b8c1-96b0558dbeae"' "$TMP/a.json"
  run "$OOMSCOPE" analyze -q "$WORLD/leakcanary1-leak_service_binder.hprof"
  [[ "$output" == *"LeakCanary watch: key b3abfae6-2c53-42e1-b8c1-96b0558dbeae"* ]]
  # no LeakCanary in a plain JVM dump: nothing reported by those rules
  "$OOMSCOPE" analyze -q --json -o "$TMP/j.json" "$CORPUS/javac-oom.hprof"
  jq -e '[.gcPaths[] | select(.leakReason | startswith("LeakCanary"))] | length == 0' "$TMP/j.json"
}

@test "an object reached only across Dalvik's FinalizerReference is never a leak (pending finalization), though it is reachable" {
  corpus_ready
  local f="$WORLD/perflib-dialer-kitkat.hprof"
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" --retained-tsv "$TMP/ours.tsv" --leak-class java.io.FileOutputStream "$f"
  # both FileOutputStreams are held only by FinalizerReferences: reachable (retained 156 B each) ...
  [ "$(grep -cP '^(b0d420c0|b0d431e8)\t28\t156$' "$TMP/ours.tsv")" -eq 2 ]
  # ... yet neither is a leak, even when asked for by class
  jq -e '.classInfos[] | select(.className == "java.io.FileOutputStream") | .instanceCount == 2 and .leakInstanceCount == 0' "$TMP/a.json"
}

@test "--ignore cuts a reference out of path finding (retained sizes stay VisualVM's), and refuses names that match nothing" {
  corpus_ready
  local f="$WORLD/leakcanary1-leak_service_binder.hprof" ig='com.example.leakcanary.LeakyService$MyBinder#service'
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" --retained-tsv "$TMP/a.tsv" "$f"
  "$OOMSCOPE" analyze -q --json -o "$TMP/b.json" --retained-tsv "$TMP/b.tsv" --ignore "$ig" "$f"
  # the binder's field was the watched service's only strong path: without it, no leak
  jq -e '[.gcPaths[] | select(.className == "com.example.leakcanary.LeakyService")] | length == 1' "$TMP/a.json"
  jq -e '[.gcPaths[] | select(.className == "com.example.leakcanary.LeakyService")] | length == 0' "$TMP/b.json"
  cmp "$TMP/a.tsv" "$TMP/b.tsv"
  # a static field works too: System.out's PrintStream is then reached another way or not at all
  "$OOMSCOPE" analyze -q -o /dev/null --ignore 'java.lang.System#out' "$WORLD/netbeans-hprof-64.hprof"
  for bad in 'NoSuchClass#x' 'java.lang.System#noSuchField' 'NoSuchClass' '#out' 'java.lang.System#'; do
    run "$OOMSCOPE" analyze -q -o /dev/null --ignore "$bad" "$WORLD/netbeans-hprof-64.hprof"
    [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "oomscope analyze: "*"--ignore"* ]]
  done
}

@test "a leak reached only from a Binder's JNI global root is a library leak; --library-leak/--ignore CLASS mark roots by class" {
  corpus_ready
  local f="$WORLD/leakcanary1-leak_service_binder.hprof"
  # cut the static field: the binder's JNI global root is the only way left
  "$OOMSCOPE" analyze -q --json -o "$TMP/a.json" --ignore 'com.example.leakcanary.LeakyService#leakAllTheBinders' "$f"
  jq -e '.gcPaths[] | select(.className == "com.example.leakcanary.LeakyService") |
         .gcRoot == "JniGlobal" and .libraryLeak == true and (.libraryLeakReference | startswith("android.os.Binder: ")) and
         .path[0].reference == "com.example.leakcanary.LeakyService$MyBinder.service"' "$TMP/a.json"
  # --ignore CLASS leaves such roots out altogether: no path is left, no leak group
  "$OOMSCOPE" analyze -q --json -o "$TMP/b.json" --ignore 'com.example.leakcanary.LeakyService#leakAllTheBinders' \
    --ignore android.os.Binder "$f"
  jq -e '[.gcPaths[] | select(.className == "com.example.leakcanary.LeakyService")] | length == 0' "$TMP/b.json"
  # a class the dump does not have is refused in one line
  run "$OOMSCOPE" analyze -q --library-leak no.such.Klass "$f"
  [ "$status" -ne 0 ] && [[ "$output" == *"--library-leak no.such.Klass: no class no.such.Klass in this dump"* ]]
  # retained sizes never move with the paths
  "$OOMSCOPE" analyze -q -o /dev/null --retained-tsv "$TMP/r1.tsv" "$f"
  "$OOMSCOPE" analyze -q -o /dev/null --ignore android.os.Binder --retained-tsv "$TMP/r2.tsv" "$f"
  cmp "$TMP/r1.tsv" "$TMP/r2.tsv"
}
