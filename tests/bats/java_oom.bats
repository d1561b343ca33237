#!/usr/bin/env bats
# Java at the moment of death: fast leaks that kill a JVM within seconds
# still leave a heap dump taken before the OutOfMemoryError (the trend rule)
# or at its throw (the shim's last-chance dump), an analysis that names the
# leak, and an oom record with its message, thread and (shim) Java stack.
# Real JVMs (Debian's OpenJDK 17).
load helpers

JAVA_DIR="$ROOT/tests/java"
LEAK_IF=(--leak-if 'LeakyService$Session.closed==true')

# oom_run DIR RATE [OPTIONS...]: LeakyService in -Xmx256m (OOM_XMX) leaking RATE MB/s
# until the JVM dies of it, under oomscope run; the leak starts once the
# watch has found the JVM (and, with --shim, the shim has armed its hook at
# the throw), however long that takes. Sets status and output as `run` does.
oom_run() {
  local dir=$1 rate=$2 go="$TMP/go-${1##*/}" ready='Java runtime: hotspot'; shift 2
  [[ " $* " == *" --shim "* ]] && ready='the shim is armed'
  start_bg oom timeout 240 "$OOMSCOPE" run -o "$dir" "${LEAK_IF[@]}" "$@" \
    -- java "-Xmx${OOM_XMX:-256m}" -cp "$JAVA_CLASSES" LeakyService --leak-mb-per-s "$rate" --max-mb 100000 --go "$go"
  wait_for "$TMP/oom.out" "$ready" 120
  touch "$go"
  status=0
  wait_exit "$(cat "$TMP/oom.pid")" 240 || status=$?
  output=$(cat "$TMP/oom.out")
  [ "$status" -eq 0 ] || { echo "# oomscope run exited $status: $(tail -n 5 "$TMP/oom.out")" >&3; return 1; }
  [[ "$output" == *'java.lang.OutOfMemoryError'* ]]
}

# Some dump of DIR named the planted leak.
leak_named() {
  grep '"type":"dump"' "$1/timeline.jsonl" |
    jq -se 'map(select(.ok and (.top_leak // "" | startswith("LeakyService$Session x"))
                       and (.top_leak | contains("LeakyService$SessionCache.CLOSED")))) | length >= 1'
}

@test "a fast leak without the shim: the trend rule dumps before the OutOfMemoryError, the analysis names the leak" {
  # (GC distress, which may see this leak first, is java_pools.bats's)
  oom_run "$TMP/r" 60 --no-pool-rules
  local tl="$TMP/r/timeline.jsonl"
  grep '"type":"crossing"' "$tl" | head -n 1 | jq -e '.rule == "heap_trend" and .wrote == "dump-1.hprof.gz"
                                                     and (.reason | test("exhausted in [0-9.]+ s"))'
  grep '"type":"dump"' "$tl" | head -n 1 | jq -e '.ok and .method == "jvm-fifo"'
  leak_named "$TMP/r"
  # the dump came before the first OutOfMemoryError
  jq -se '([.[] | select(.type == "dump" and .ok)][0].t) < ([.[] | select(.type == "oom")][0].t)' "$tl"
  grep '"type":"oom"' "$tl" | head -n 1 | jq -e '.source == "probe" and .message == "Java heap space"
                                                and .tid > 0 and (.thread | length > 0) and (.hint | contains("--shim"))'
  jq -e '.cause == "exit" and .exit_code == 1 and .java_oom.message == "Java heap space" and .java_oom.count >= 1
         and .java_oom.dump == null' "$TMP/r/death.json"
  [[ "$output" == *"after java.lang.OutOfMemoryError: Java heap space"*"no heap dump at the throw (--shim takes one)"* ]]
}

@test "--shim: the heap dumped at the throw, from the thread whose allocation failed, with its Java stack" {
  # the polls alone (koom2 every 15 s) are too slow for this leak, and GC
  # distress (java_pools.bats) is off: only the throw is left
  oom_run "$TMP/s" 60 --shim --heap-rule koom2 --no-pool-rules
  local tl="$TMP/s/timeline.jsonl"
  ! grep -q '"type":"crossing"' "$tl"
  grep '"type":"dump"' "$tl" | jq -e '.ok and .method == "shim-fork-at-oom" and .when == "at the OutOfMemoryError"
                                      and .file == "dump-1.hprof.gz" and .pause_ms > 0 and .pause_ms < .dump_ms and .objects > 1000'
  leak_named "$TMP/s"
  # at its fullest: the dump holds most of the 256 MB heap
  jq -e '.runningInfo.shallowSize > 150000000' "$TMP/s/dump-1.analysis.json"
  grep '"type":"oom"' "$tl" | jq -se 'map(select(.source == "shim")) | .[0] | .kind == "heap"
        and .message == "Java heap space" and (.thread | length > 0)
        and (.java_stack | map(select(startswith("LeakyService"))) | length >= 1)'
  jq -e '.java_oom.dump == "dump-1.hprof.gz"' "$TMP/s/death.json"
  "$OOMSCOPE" hprof check "$TMP/s/dump-1.hprof.gz" > /dev/null
  [ "$(stat -c %a "$TMP/s/dump-1.hprof.gz")" = 600 ]
  ! ls "$TMP/s"/dump-oom* 2>/dev/null
  [[ "$output" == *"dump 1 written at the OutOfMemoryError (shim-fork-at-oom)"* ]]
  grep -q 'the heap was dumped at the throw: dump-1.hprof.gz' "$TMP/s/report.html"
}

@test "fast leaks from 5 to 150 MB/s, with and without the shim: a dump that names the leak before the JVM dies" {
  # the ends of the range, with the default rules (60 MB/s, between them, is the two tests above with rules of their own; scripts/oom-matrix.sh measures 5, 20, 60 and 150)
  local rate mode OOM_XMX
  for rate in 5 150; do
    # the slowest leak in a 128 MB heap: full in about 25 s instead of 50
    # (scripts/oom-matrix.sh measures every rate in 256 MB)
    OOM_XMX=$([ "$rate" = 5 ] && echo 128m || echo 256m)
    for mode in plain shim; do
      if [ "$mode" = shim ]; then oom_run "$TMP/$rate-$mode" "$rate" --shim; else oom_run "$TMP/$rate-$mode" "$rate"; fi
      leak_named "$TMP/$rate-$mode" || { echo "# no dump named the leak at $rate MB/s ($mode)" >&3; return 1; }
    done
  done
}

@test "a JVM under a low thread limit: the failing clone, the OutOfMemoryError with its message, and (shim) the Java code" {
  local cg; cg=$(cgroup_dir pids)
  echo 70 > "$cg/pids.max"
  start_bg jvm sh -c "echo \$\$ > '$cg/cgroup.procs' && exec java -Xss256k -cp '$JAVA_CLASSES' ThreadBomb --go '$TMP/go'"
  wait_for "$TMP/jvm.out" '^ready pid=' 120
  local pid; pid=$(cat "$TMP/jvm.pid")
  start_bg w "$OOMSCOPE" watch -p "$pid" --shim -o "$TMP/t"
  # the burst once the shim, loaded by attach, has armed its hook at the
  # throw and takes Java stacks
  wait_for "$TMP/w.out" 'the shim is armed' 120
  wait_for "$TMP/w.out" 'Java stacks: the shim takes them' 60
  touch "$TMP/go"
  wait_exit "$(cat "$TMP/w.pid")" 60
  grep -q 'OutOfMemoryError: unable to create native thread' "$TMP/jvm.out"
  # the failing clone named by the Java code that started the thread, its Java frames with it
  # (the JVM may fail to start a thread of its own too: the app's is one of the thread groups)
  jq -c '[.groups[] | {kind, syscall, errno, count, called_by, java_stack, java_frames: (.java_frames // [])[:3]}]' "$TMP/t/failures.json"
  jq -e '[.groups[] | select(.kind == "threads") | .errno == "EAGAIN" and (.called_by | startswith("ThreadBomb.spawn(ThreadBomb.java:"))
         and (.java_frames | index("java.lang.Thread.start0(Native Method)")) != null
         and ([.frames[].symbol] | map(select(. != null and test("create_thread"))) | length) == 1] | any' "$TMP/t/failures.json"
  local tl="$TMP/t/timeline.jsonl"
  grep '"type":"oom"' "$tl" | jq -se 'map(select(.source == "probe" and (.message | startswith("unable to create native thread")))) | length >= 1'
  grep '"type":"oom"' "$tl" | jq -se 'map(select(.source == "shim" and .kind == "threads"
        and (.java_stack | map(select(startswith("ThreadBomb.spawn"))) | length == 1))) | length >= 1'
  # a thread OutOfMemoryError is no reason for a heap dump
  ! grep -q '"type":"dump"' "$tl"
  jq -c '{cause, exit_code, java_oom, last_failure: (.last_failure | {kind, syscall, errno, count, t_last})}' "$TMP/t/death.json"
  jq -e '.cause == "exit" and .exit_code == 3 and (.java_oom.message | startswith("unable to create native thread"))
         and .last_failure.kind == "threads"' "$TMP/t/death.json"
}

@test "watch --no-analyze, then report --analyze: the run's dumps analyzed afterwards as the watch would (a phone's run on the host), each once, the page holding the findings" {
  oom_run "$TMP/r" 60 --no-pool-rules --no-analyze
  local tl="$TMP/r/timeline.jsonl" dump
  grep '"type":"dump"' "$tl" | head -n 1 | jq -e '.ok and .ran_out == "heap" and .analysis == null'
  ! ls "$TMP/r"/dump-*.analysis.json 2> /dev/null
  dump=$(grep '"type":"dump"' "$tl" | head -n 1 | jq -r .file)
  run "$OOMSCOPE" report --analyze "${LEAK_IF[@]}" -q "$TMP/r"
  [ "$status" -eq 0 ] || { echo "$output" >&3; false; }
  grep -qE "^oomscope report: $dump analyzed in [0-9.]+ s: [1-9][0-9]* leak group\(s\); first: LeakyService\\\$Session x" <<<"$output" || { echo "$output" >&3; false; }
  # the same findings as analyze's of the same dump, with the same rules
  "$OOMSCOPE" analyze --json "${LEAK_IF[@]}" -o "$TMP/a.json" "$TMP/r/$dump"
  diff <(jq -c '[.gcPaths[] | {signature, instanceCount, retainedSize}]' "$TMP/a.json") \
       <(jq -c '[.gcPaths[] | {signature, instanceCount, retainedSize}]' "$TMP/r/${dump%%.*}.analysis.json")
  grep -q 'LeakyService\$SessionCache.CLOSED' "$TMP/r/report.html"
  # analyzed once: a second call finds nothing left to do
  run "$OOMSCOPE" report --analyze -q "$TMP/r"
  [ "$status" -eq 0 ] && ! grep -q analyzed <<<"$output"
  # its options belong to --analyze
  run "$OOMSCOPE" report --leak-class X "$TMP/r"
  [ "$status" -eq 2 ] && [[ "$output" == *"--analyze's: give it too"* ]]
}
