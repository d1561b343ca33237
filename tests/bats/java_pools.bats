#!/usr/bin/env bats
# The other ways a JVM runs out (issue 36): Metaspace under a limit, direct
# buffer memory, a collector in distress over a heap that is not "full".
# Each leak holds near its limit (PoolLeaker --hold-at-mb) until the test
# has seen the crossing and its dump, then goes on to the error: nothing
# here depends on how fast the machine is.
load helpers

JAVA_DIR="$ROOT/tests/java"

# pool_run NAME MODE HOLD_MB [oomscope options] -- [java options]: the leak
# started once the runtime's probes are in (its record in the timeline),
# held, the crossing and the dump seen, then released to the error.
pool_run() {
  local name=$1 mode=$2 hold=$3 opts=() jopts=(); shift 3
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift
  jopts=("$@")
  start_bg "$name" timeout 240 "$OOMSCOPE" run -o "$TMP/$name" "${opts[@]}" \
    -- java "${jopts[@]}" -cp "$JAVA_CLASSES" PoolLeaker "$mode" --mb-per-s 20 --hold-at-mb "$hold" \
    --release "$TMP/$name.release" --go "$TMP/$name.go"
  wait_for "$TMP/$name/timeline.jsonl" '"type":"runtime"' 120
  # with the shim, the leak begins once it takes Java stacks (oomscope connects to it
  # within a second of its loading), so every block of the leak has its Java code
  if [[ " ${opts[*]} " == *" --shim "* ]]; then
    wait_for "$TMP/$name.out" 'Java stacks: the shim takes them' 120
  fi
  touch "$TMP/$name.go"
  wait_for "$TMP/$name.out" '^holding mb=' 120
  wait_for "$TMP/$name/timeline.jsonl" '"type":"dump"' 120
  touch "$TMP/$name.release"
  local st=0
  wait_exit "$(cat "$TMP/$name.pid")" 120 || st=$?
  [ "$st" -eq 0 ] || { echo "# oomscope run exited $st: $(tail -n 5 "$TMP/$name.out")" >&3; return 1; }
}

# The first crossing of run NAME and its dump, which came before the error.
crossing_then_dump() {
  local tl="$TMP/$1/timeline.jsonl"
  echo "crossings: $(grep '"type":"crossing"' "$tl")"
  echo "dumps: $(grep '"type":"dump"' "$tl")"
  [ "$(grep -c '"type":"crossing"' "$tl")" -eq 1 ]
  grep '"type":"crossing"' "$tl" | jq -e --arg r "$2" '(.rule | test($r)) and .wrote == "dump-1.hprof.gz"'
  grep '"type":"dump"' "$tl" | head -n 1 | jq -e '.ok and .file == "dump-1.hprof.gz"'
  "$OOMSCOPE" hprof check "$TMP/$1/dump-1.hprof.gz" > /dev/null
  # the app lived on after the dump, then died of the error
  grep -q 'java.lang.OutOfMemoryError' "$TMP/$1.out"
  grep '"type":"end"' "$tl" | jq -e '.reason == "target exited"'
}

@test "Metaspace under -XX:MaxMetaspaceSize: its committed figure against the limit from the command line, a dump before the OutOfMemoryError" {
  pool_run meta metaspace 44 -- -XX:MaxMetaspaceSize=48m
  crossing_then_dump meta '^metaspace_(ratio|trend)$'
  grep '"type":"crossing"' "$TMP/meta/timeline.jsonl" | jq -e '.limit == 50331648 and .value >= 25165824'
  # every sample: the limit (48 MB, not the 112 MB hsperfdata reserves), used under committed
  [ "$(grep '"type":"sample"' "$TMP/meta/timeline.jsonl" | jq -s '[.[] | .java_pools.metaspace |
       select(.max == 50331648 and .used > 0 and .used <= .committed)] | length')" -gt 2 ]
  grep -q 'java.lang.OutOfMemoryError: Metaspace' "$TMP/meta.out"
  jq -e '.java_oom.message == "Metaspace"' "$TMP/meta/death.json"
  # the dump's analysis: the class loaders by path, the leaking ones first
  local a="$TMP/meta/dump-1.analysis.json"
  jq -c '.gcPaths[0] | {className, instanceCount, leakReason}' "$a"
  jq -e '.gcPaths[0] | .className == "PoolLeaker$PluginLoader" and .instanceCount >= 1000
         and (.leakReason | startswith("Metaspace ran out"))' "$a"
  # the class loaders by their class: thousands of the plugin's, two classes each (a proxy, PluginImpl),
  # and what keeps them: the registry's list, from the app's class
  jq -c '.classLoaders[0] | {className, loaders, classes, gcRoot, path: [.path[].reference]}' "$a"
  jq -e '.classLoaders[0] | .className == "PoolLeaker$PluginLoader" and .loaders >= 1000
         and .classes >= 2 * .loaders - 2 and .classes <= 2 * .loaders and (.gcRoot | length > 0)
         and (.path | length >= 2) and .path[-1].referenceType == "CLASS_LOADER"
         and .path[-1].declaredClass == "PoolLeaker$PluginLoader"' "$a"
  # one class name in every loader (MAT's duplicate classes)
  jq -e '.duplicateClasses[0] | .className == "PluginImpl" and .loaders >= 1000 and .classes == .loaders' "$a"
  grep -qE '^ +[0-9]{4,} loader\(s\) +[0-9]{4,} classes  PluginImpl$' "$TMP/meta/dump-1.analysis.txt"
  # and on the page: the loaders by class with what keeps one alive, the class in every loader
  grep -qE '<tr><td>PoolLeaker\$PluginLoader</td><td class="n">[0-9]{4,}</td>.*<details><summary>GC root' "$TMP/meta/report.html"
  grep -qE '<th>class loaded more than once</th>.*' "$TMP/meta/report.html"
  grep -qE '<tr><td>PluginImpl</td><td class="n">[0-9]{4,}</td>' "$TMP/meta/report.html"
  # one group, whatever the generated proxy classes' numbers on their paths
  grep -qE '^#1  PoolLeaker\$PluginLoader x[0-9]{4,}' "$TMP/meta/dump-1.analysis.txt"
  # its path: through the registry's list of loaders, or through a plugin's proxy class
  grep -qE 'PoolLeaker\$PluginRegistry\.(LOADERS|PLUGINS)|CLASS_LOADER +jdk\.proxy' "$TMP/meta/dump-1.analysis.txt"
  # the JVM raised it (its probe), then printed it: the print is not a second
  # error (no record from stderr). The JVM may raise it more than once: the
  # uncaught handler's printing may load classes and find Metaspace full too
  grep '"type":"oom"' "$TMP/meta/timeline.jsonl" | jq -c '{t, source, message, tid, thread}'
  grep '"type":"oom"' "$TMP/meta/timeline.jsonl" | jq -se 'length >= 1 and all(.[]; .source == "probe")
    and .[0].message == "Metaspace"'
}

@test "direct buffer memory (--shim): java.nio.Bits's figures each second, a dump before 'Cannot reserve'" {
  pool_run direct direct 88 --shim -- -XX:MaxDirectMemorySize=96m
  crossing_then_dump direct '^direct_(ratio|trend)$'
  grep '"type":"crossing"' "$TMP/direct/timeline.jsonl" | jq -e '.limit == 100663296'
  [ "$(grep '"type":"sample"' "$TMP/direct/timeline.jsonl" | jq -s '[.[] | .java_pools.direct |
       select(.max == 100663296 and .used >= 1048576)] | length')" -gt 1 ]
  grep -q 'OutOfMemoryError: Cannot reserve .* bytes of direct buffer memory' "$TMP/direct.out"
  # built by java.nio.Bits, not the VM: the shim's hook on OutOfMemoryError's constructors saw
  # it, with its kind and where it was made; the app printing it is not a second error
  grep '"type":"oom"' "$TMP/direct/timeline.jsonl" | jq -c '{t, source, kind, message, tid}'
  grep -iE 'arm|shim' "$TMP/direct.out" | head -n 5
  grep '"type":"oom"' "$TMP/direct/timeline.jsonl" | jq -se 'length == 1 and .[0].source == "shim" and .[0].kind == "direct"
    and (.[0].message | test("^Cannot reserve [0-9]+ bytes of direct buffer memory"))
    and (.[0].java_stack[0] | startswith("java.nio.Bits.reserveMemory"))
    and (.[0].java_stack | map(select(startswith("PoolLeaker.step"))) | length == 1)'
  jq -e '.java_oom.message | startswith("Cannot reserve")' "$TMP/direct/death.json"
  # and the heap dumped at its throw, analyzed for what ran out
  grep '"type":"dump"' "$TMP/direct/timeline.jsonl" | jq -se 'map(select(.method == "shim-fork-at-oom" and .ok)) | length == 1'
  local at; at=$(grep '"type":"dump"' "$TMP/direct/timeline.jsonl" | jq -rs 'map(select(.method == "shim-fork-at-oom"))[0].analysis')
  jq -e '.gcPaths[0] | .className == "java.nio.DirectByteBuffer" and .nativeSizeTotal >= 67108864' "$TMP/direct/$at"
  # the rule's dump's analysis (the rules fire at half of the limit at the earliest): the direct
  # buffers by path, their memory (off the heap) counted as native
  local a="$TMP/direct/dump-1.analysis.json"
  jq -c '.runningInfo.directBuffers, (.gcPaths[0] | {className, instanceCount, nativeSizeTotal, leakReason})' "$a"
  jq -e '.runningInfo.directBuffers.objects >= 48 and .runningInfo.directBuffers.bytes >= 50331648' "$a"
  jq -e '.gcPaths[0] | .className == "java.nio.DirectByteBuffer" and .instanceCount >= 48
         and .nativeSizeTotal >= 50331648 and (.leakReason | startswith("Direct buffer memory ran out"))' "$a"
  grep -q 'PoolLeaker$PooledBuffers.*POOL' "$TMP/direct/dump-1.analysis.txt"
  # the crossing's snapshot of who holds the memory: every Unsafe.allocateMemory block with its
  # Java stack (the shim's), the app's allocating method first, on the terminal too
  direct_sites direct
  jq -e --arg at "PoolLeaker.step(PoolLeaker.java:$(alloc_line))" '.sites[0] | .created_by == $at and .blocks >= 48
         and (.java_frames | map(select(startswith("java.nio.ByteBuffer.allocateDirect"))) | length == 1)' \
    "$TMP/direct/direct-1.json"
  grep -qE "^ +[0-9.]+ MB in [0-9]+ blocks <- PoolLeaker\.step\(PoolLeaker\.java:$(alloc_line)\)$" "$TMP/direct.out"
  # direct.json read back by the report (its row in report/run_files.c): a part of the story, a
  # section and a link on the page, its sites in the store beside the other resources' groups
  run "$OOMSCOPE" report --db "$TMP/lab.sqlite" "$TMP/direct"
  [ "$status" -eq 0 ] || { echo "$output" >&3; false; }
  grep -qE '^direct buffer memory at the end: [0-9.]+ MB in [0-9]+ blocks? \(MaxDirectMemorySize 96\.0 MB\)$' <<<"$output" ||
    { echo "$output" >&3; false; }
  grep -qE "^ +[0-9.]+ MB in [0-9]+ <- PoolLeaker\.step\(PoolLeaker\.java:$(alloc_line)\)$" <<<"$output"
  grep -q '<h2>Direct buffer memory</h2>' "$TMP/direct/report.html"
  grep -q '<a href="direct.json">direct.json</a>' "$TMP/direct/report.html"
  [ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$TMP/lab.sqlite" \
       "SELECT COUNT(*) FROM resource_groups WHERE resource = 'direct' AND created_by LIKE 'PoolLeaker.step(%' AND known = 1")" -ge 1 ]
}

# The line of PoolLeaker.java that allocates the direct buffers.
alloc_line() {
  grep -n 'ByteBuffer.allocateDirect(1 << 20)' "$JAVA_DIR/PoolLeaker.java" | cut -d: -f1
}

# Run NAME's direct-memory crossing named its snapshot, and the snapshot
# holds the bytes the rule saw (it is read after the rule's sample, of a
# leak that frees nothing and began after the probes went in; the JDK's own
# few KB from before may be missing), in sites that add up to it.
direct_sites() {
  local tl="$TMP/$1/timeline.jsonl" f="$TMP/$1/direct-1.json"
  grep '"type":"crossing"' "$tl" | jq -e '.sites == "direct-1.json"'
  jq -c '{live_bytes, blocks, untracked, sites_total, sites: [.sites[:4][] | {bytes, blocks, created_by, java_stack}]}' "$f"
  local value; value=$(grep '"type":"crossing"' "$tl" | jq '.value')
  jq -e --argjson v "$value" '.live_bytes + 1048576 > $v and .untracked == 0 and .limit == 100663296
    and ([.sites[].bytes] | add) == .live_bytes and ([.sites[].blocks] | add) == .blocks
    and (.sites[0].frames | length > 0)' "$f"
  # and the view at the end
  jq -e '.blocks >= 1' "$TMP/$1/direct.json"
}

@test "direct buffer memory without the shim: Unsafe.allocateMemory's blocks as its figure, a dump before the error, the error seen where the app printed it" {
  pool_run plain direct 88 -- -XX:MaxDirectMemorySize=96m
  crossing_then_dump plain '^direct_(ratio|trend)$'
  grep '"type":"crossing"' "$TMP/plain/timeline.jsonl" | jq -e '.limit == 100663296'
  # the kernel side's count of the blocks Unsafe.allocateMemory made (the leak's of
  # 1 MiB each, and the JDK's own few KB when it made them after the probes went
  # in: 10 KB in a run on a machine loaded by a kernel build), against the flag
  [ "$(grep '"type":"sample"' "$TMP/plain/timeline.jsonl" | jq -s '[.[] | .java_pools.direct |
       select(.max == 100663296 and .used >= 1048576 and .used % 1048576 < 65536)] | length')" -gt 1 ]
  jq -e '.gcPaths[0] | .className == "java.nio.DirectByteBuffer" and .nativeSizeTotal >= 50331648' "$TMP/plain/dump-1.analysis.json"
  grep -q 'OutOfMemoryError: Cannot reserve' "$TMP/plain.out"
  grep '"type":"oom"' "$TMP/plain/timeline.jsonl" | jq -se 'length == 1 and .[0].source == "stderr"
    and (.[0].message | startswith("Cannot reserve")) and .[0].tid > 0'
  jq -e '.java_oom.message | startswith("Cannot reserve")' "$TMP/plain/death.json"
  grep -q 'after java.lang.OutOfMemoryError: Cannot reserve' "$TMP/plain.out"
  # every block followed: none past the kernel side's table
  grep '"type":"end"' "$TMP/plain/timeline.jsonl" | jq -e '.unsafe_untracked == 0'
  # the call sites by native stack (no Java stacks without the shim): the leak's 48 MiB over them
  # (one site while the leaking loop is interpreted; once it is JIT-compiled, its return addresses
  # in the compiled code make another stack: when that happens depends on the machine's load)
  direct_sites plain
  jq -e '([.sites[].bytes] | add) >= 50331648 and all(.sites[]; has("java_frames") | not)' "$TMP/plain/direct-1.json"
}

@test "GC distress: Shenandoah collecting back to back over a heap half full of humongous blocks, one dump, one crossing" {
  pool_run gc humongous 100 -- -XX:+UseShenandoahGC -Xmx256m
  crossing_then_dump gc '^gc_distress$'
  grep '"type":"crossing"' "$TMP/gc/timeline.jsonl" | jq -e '(.reason | test("^GC distress: [0-9]+ collections")) and .limit == 268435456'
  grep -q 'java.lang.OutOfMemoryError: Java heap space' "$TMP/gc.out"
  # the dump names the leak: the blobs the cache accumulates (a leak suspect: no rule given)
  jq -c '.suspects[0].description' "$TMP/gc/dump-1.analysis.json"
  jq -e '.suspects[0] | (.description | contains("static `PoolLeaker$BlobCache.BLOBS` accumulates"))
         and (.description | test("accumulates [0-9]+ `byte\\[\\]`")) and .heapShare > 0.5' "$TMP/gc/dump-1.analysis.json"
}

@test "--no-pool-rules: the same Metaspace leak, no crossing, no dump" {
  pool_run_quiet() {
    start_bg q timeout 240 "$OOMSCOPE" run -o "$TMP/q" --no-pool-rules \
      -- java -XX:MaxMetaspaceSize=48m -cp "$JAVA_CLASSES" PoolLeaker metaspace --mb-per-s 20 --hold-at-mb 44 \
      --release "$TMP/q.release"
  }
  pool_run_quiet
  wait_for "$TMP/q.out" '^holding mb=' 120
  # three samples taken while it holds at 44 of 48 MB (the rules would have said so at half)
  local n0; n0=$(grep -c '"type":"sample"' "$TMP/q/timeline.jsonl")
  for _ in $(seq 1 600); do
    [ "$(grep -c '"type":"sample"' "$TMP/q/timeline.jsonl")" -ge $((n0 + 3)) ] && break
    sleep 0.1
  done
  touch "$TMP/q.release"
  wait_exit "$(cat "$TMP/q.pid")" 120
  ! grep -q '"type":"crossing"' "$TMP/q/timeline.jsonl"
  ! grep -q '"type":"dump' "$TMP/q/timeline.jsonl"
  [ "$(grep '"type":"sample"' "$TMP/q/timeline.jsonl" | jq -s '[.[] | .java_pools.metaspace | select(.committed >= 25165824)] | length')" -ge 3 ]
}
