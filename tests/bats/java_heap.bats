#!/usr/bin/env bats
# The Java heap: the attach protocol, the shim and its fork-dump, the JVM's own
# dumper through a FIFO, the heap watch in the collector, end to end. Real
# JVMs (Debian's OpenJDK 17) running the apps in tests/java.
load helpers

JAVA_DIR="$ROOT/tests/java"
SHIMCTL="$BUILD_DIR/tools/shimctl"

# start_java NAME ARGS...: a JVM in the background, waited for until "ready"
start_java() {
  local name=$1; shift
  start_bg "$name" java "$@"
  wait_for "$TMP/$name.out" '^ready pid=' 120
}

# the dump child of a shim answer line "started child=N ..."
child_of() { sed -n 's/^started child=\([0-9]*\).*/\1/p' "$1" | head -n 1; }

# dump_child PID: the JVM's first child process (a fork-dump's), waited for up to 30 s; "" if none
dump_child() {
  local c=
  for _ in $(seq 1 300); do
    c=$(cat /proc/"$1"/task/*/children 2>/dev/null | tr ' ' '\n' | grep -E '^[0-9]+$' | head -n 1)
    [ -n "$c" ] && break
    sleep 0.1
  done
  echo "$c"
}

@test "oomscope jcmd speaks the attach protocol to a live JVM; refuses what is not one" {
  start_java jvm -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  run "$OOMSCOPE" jcmd -p "$pid" VM.version
  [ "$status" -eq 0 ]
  [[ "$output" == *"OpenJDK"* ]]
  run "$OOMSCOPE" jcmd -p "$pid" GC.heap_info
  [ "$status" -eq 0 ]
  [[ "$output" == *"garbage-first heap"* ]]
  # a process that is no JVM gets no SIGQUIT (it would die of it)
  start_bg plain sleep 300
  run "$OOMSCOPE" jcmd -p "$(cat "$TMP/plain.pid")" VM.version
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"not a HotSpot JVM"* ]]
  kill -0 "$(cat "$TMP/plain.pid")"
  run "$OOMSCOPE" jcmd -p 999999999 VM.version
  [ "$status" -eq 1 ]
}

@test "dump --method jvm: the JVM's own dumper through a FIFO, stripped as it streams, analyzed" {
  start_java jvm -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  run "$OOMSCOPE" dump -p "$pid" --method jvm -q -o "$TMP/j.hprof.gz" --leak-if 'PlantedLeaks$Screen.destroyed==true'
  [ "$status" -eq 0 ]
  [[ "$output" == *"(jvm-fifo)"* ]]
  [ "$(stat -c %a "$TMP/j.hprof.gz")" = 600 ]
  "$OOMSCOPE" hprof check "$TMP/j.hprof.gz" | grep -q 'OOMSCOPE STRIPPED app JAVA PROFILE 1.0.2'
  jq -e '.gcPaths[0] | .instanceCount == 3 and (.path | map(.reference) | index("PlantedLeaks$Registry.SCREENS") != null)' "$TMP/j.hprof.gz.analysis.json"
  # no FIFO left in the JVM's /tmp (this JVM's: another file's dump may be running beside this one;
  # the name ends with the JVM's PID in its own namespace)
  local nspid; nspid=$(awk '$1 == "NSpid:" {print $NF}' /proc/"$pid"/status)
  ! ls /proc/"$pid"/root/tmp/oomscope-dump-*-"$nspid".fifo 2>/dev/null
}

@test "dump --load-shim: the shim loaded into a running JVM (attach load); its fork-dump agrees with the JVM's dumper" {
  start_java jvm -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  local rule='PlantedLeaks$Dialog.destroyed==true'
  run "$OOMSCOPE" dump -p "$pid" --load-shim -q -o "$TMP/s.hprof.gz" --leak-if "$rule"
  [ "$status" -eq 0 ]
  [[ "$output" == *"(shim-fork)"* ]]
  # HotSpot's own dumper ran in the copy (on arm64 too: the vtable and the symbols)
  [[ "$output" == *"HotSpot's own dumper"* ]] || { echo "# $output" >&3; false; }
  # the app's pause: the fork, milliseconds
  local pause; pause=$(sed -n 's/^pause *\([0-9]*\) ms.*/\1/p' <<<"$output")
  [ "$pause" -lt 1000 ]
  run "$OOMSCOPE" dump -p "$pid" --method jvm -q -o "$TMP/j.hprof.gz" --leak-if "$rule"
  [ "$status" -eq 0 ]
  # the same leak, the same path signature, count and retained size
  [ "$(jq -c '[.gcPaths[] | {signature, instanceCount, retainedSizeTotal}]' "$TMP/s.hprof.gz.analysis.json")" = \
    "$(jq -c '[.gcPaths[] | {signature, instanceCount, retainedSizeTotal}]' "$TMP/j.hprof.gz.analysis.json")" ]
  [ "$(jq '.gcPaths | length' "$TMP/s.hprof.gz.analysis.json")" -eq 1 ]
  # the shim answers on its abstract socket, from a Java thread of the JVM's
  grep -q " @oomscope-shim.$pid\$" /proc/net/unix
  grep -qx oomscope-shim /proc/"$pid"/task/*/comm
  run "$SHIMCTL" "$pid" ping
  [ "$status" -eq 0 ]
  [[ "$output" == "ok oomscope-shim 2 runtime=hotspot pid=$pid jvmti=1.2" ]]
  # no library besides itself: the shim links no libc
  ! readelf -d "$ROOT/build/liboomscope_shim.so" | grep -q NEEDED
  run "$SHIMCTL" "$pid" heap
  [[ "$output" =~ ^ok\ used=[0-9]+\ committed=[0-9]+\ max=[0-9]+$ ]]
}

@test "the fork-dump's copy runs HotSpot's own dumper; the JVMTI walk (OOMSCOPE_SHIM_WALK=jvmti) and the JVM's dump agree with it" {
  start_java jvm -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  local rule='PlantedLeaks$Dialog.destroyed==true' f
  run "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/h.hprof.gz" --leak-if "$rule"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; false; }
  [[ "$output" == *"copy "*" objects/s for "*", HotSpot's own dumper"* ]]
  OOMSCOPE_SHIM_WALK=jvmti run "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/t.hprof.gz" --leak-if "$rule"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; false; }
  [[ "$output" == *"copy "*" objects/s for "*", JVMTI walk"* ]]
  run "$OOMSCOPE" dump -p "$pid" --method jvm -q -o "$TMP/j.hprof.gz" --leak-if "$rule"
  [ "$status" -eq 0 ] || { echo "# $output" >&3; false; }
  # the planted leaks: the same paths, counts and retained sizes in all three,
  # and the app's classes the same instances, shallow and retained sizes
  # (HotSpot's dumper in the copy keeps the garbage too, as jcmd -all does:
  # the destroyed objects no longer referenced are neither counted nor reported)
  for f in h t j; do
    jq -c '[.gcPaths[] | {signature, instanceCount, retainedSizeTotal}],
           ([.classHistogram[] | select(.className | startswith("PlantedLeaks"))] | sort_by(.className))' \
      "$TMP/$f.hprof.gz.analysis.json" > "$TMP/$f.leaks"
  done
  grep -q 'PlantedLeaks$Screen' "$TMP/h.leaks"
  diff "$TMP/h.leaks" "$TMP/t.leaks"
  diff "$TMP/h.leaks" "$TMP/j.leaks"
  # the app's threads: the same names and frames from either walk and the JVM
  for f in h t j; do
    jq -c '[.threads[] | select(.name == "main" or (.name // "" | startswith("poller"))) | {name, frames: [.frames[].frame]}] | sort_by(.name)' \
      "$TMP/$f.hprof.gz.analysis.json" > "$TMP/$f.threads"
  done
  jq -e 'length >= 1 and all(.frames | length > 0)' "$TMP/h.threads" || { cut -c1-600 "$TMP/h.threads" >&3; false; }
  diff "$TMP/h.threads" "$TMP/t.threads"
  diff "$TMP/h.threads" "$TMP/j.threads"
}

@test "the shim refuses a client that is neither root nor the JVM's user (SO_PEERCRED), and bad requests" {
  start_java jvm -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  # an abstract socket (no file, no permissions): anyone of its network
  # namespace may connect, so the peer check alone stands in the way
  local sock="@oomscope-shim.$pid"
  wait_for "$TMP/jvm.out" 'ready' 5
  run setpriv --reuid=65534 --regid=65534 --clear-groups "$SHIMCTL" -s "$sock" ping
  [ "$status" -eq 1 ]
  [[ "$output" == "error permission denied: only root or uid 0 may use this socket" ]]
  run setpriv --reuid=65534 --regid=65534 --clear-groups "$SHIMCTL" -s "$sock" dump /tmp/x.hprof
  [ "$status" -eq 1 ]
  [ ! -e /tmp/x.hprof ]
  run "$SHIMCTL" "$pid" frobnicate
  [ "$status" -eq 1 ]
  [[ "$output" == "error unknown command 'frobnicate' (ping, heap, dump, dumpfd, armoom, javastacks)" ]]
  run "$SHIMCTL" "$pid" dump "$TMP/m.hprof" matrix
  [[ "$output" == "error unknown mode 'matrix'"* ]]
  # protocol 2: plain hprof only, the reader compresses
  run "$SHIMCTL" "$pid" dump "$TMP/m.hprof" app gzip
  [[ "$output" == "error the shim writes plain hprof (protocol 2): the reader compresses it" ]]
  run "$SHIMCTL" "$pid" dumpfd
  [[ "$output" == "error usage:"* ]]
}

@test "dumps into /dev/null (shim by path, oomscope dump by either method) leave it the null device" {
  start_java jvm -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  run "$SHIMCTL" "$pid" dump /dev/null app none
  [ "$status" -eq 0 ]
  [[ "$output" == *"done bytes_in="* ]]
  [ -c /dev/null ] && [ "$(stat -c '%t:%T' /dev/null)" = "1:3" ]
  # the stripped file a dump into a stream makes goes to TMPDIR: this test's own (not /tmp,
  # where another file's dump may be running beside this one)
  mkdir "$TMP/tmpdir"
  for m in shim jvm; do
    TMPDIR="$TMP/tmpdir" run "$OOMSCOPE" dump -p "$pid" --method "$m" -o /dev/null
    [ "$status" -eq 0 ]
    [[ "$output" == *"/dev/null is not a regular file: no analysis"* ]]
    [ -c /dev/null ] && [ "$(stat -c '%t:%T' /dev/null)" = "1:3" ]
  done
  ! ls /dev/null.* 2>/dev/null
  [ -z "$(ls -A "$TMP/tmpdir")" ]
}

@test "fork-dump while other threads allocate hard: forked at a GC pause's end, a valid dump, the app never stops" {
  # gc_wait_ms: the dump waits for a GC's end as long as it takes (2 s by
  # default, then it forks at once): with three threads allocating, one comes
  OOMSCOPE_SHIM_FAULT=gc_wait_ms:120000 start_java jvm -Xmx1g -agentpath:"$ROOT/build/liboomscope_shim.so" \
    -cp "$JAVA_CLASSES" BusyHeap --live-mb 150 --threads 3
  local pid; pid=$(cat "$TMP/jvm.pid")
  run timeout 300 "$OOMSCOPE" dump -p "$pid" --method shim --plain --no-analyze -o "$TMP/busy.hprof"
  echo "# $output" >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *"(shim-fork)"* ]]
  [[ "$output" == *"HotSpot's own dumper, forked at a GC pause's end"* ]]
  # valid to the last record; every object the walk reached is there
  run "$OOMSCOPE" hprof check --json "$TMP/busy.hprof"
  [ "$status" -eq 0 ]
  [ "$(jq .objects <<<"$output")" -gt 1000000 ]
  # the app went on: heartbeats after the dump
  local before i; before=$(grep -c '^alive' "$TMP/jvm.out")
  for i in $(seq 1 600); do [ "$(grep -c '^alive' "$TMP/jvm.out")" -gt "$before" ] && break; sleep 0.1; done
  [ "$(grep -c '^alive' "$TMP/jvm.out")" -gt "$before" ] || { echo "# no heartbeat in 60 s after the dump" >&3; false; }
  # the analyzer reads it whole
  run "$OOMSCOPE" analyze -q "$TMP/busy.hprof"
  [ "$status" -eq 0 ]
  [[ "$output" == *" BusyHeap\$Node"* ]]
}

@test "other collectors: Shenandoah and Parallel fork-dump as the JVM's dumper does; ZGC is refused in one line and auto takes the JVM's dumper" {
  local rule='PlantedLeaks$Dialog.destroyed==true' gc
  for gc in UseShenandoahGC UseParallelGC; do
    start_java "$gc" -XX:+"$gc" -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" PlantedLeaks
    local pid; pid=$(cat "$TMP/$gc.pid")
    run "$OOMSCOPE" dump -p "$pid" --method shim -q -o "$TMP/s-$gc.hprof.gz" --leak-if "$rule"
    [ "$status" -eq 0 ]
    run "$OOMSCOPE" dump -p "$pid" --method jvm -q -o "$TMP/j-$gc.hprof.gz" --leak-if "$rule"
    [ "$status" -eq 0 ]
    [ "$(jq -c '[.gcPaths[] | {signature, instanceCount, retainedSizeTotal}]' "$TMP/s-$gc.hprof.gz.analysis.json")" = \
      "$(jq -c '[.gcPaths[] | {signature, instanceCount, retainedSizeTotal}]' "$TMP/j-$gc.hprof.gz.analysis.json")" ]
    [ "$(jq '.gcPaths | length' "$TMP/s-$gc.hprof.gz.analysis.json")" -eq 1 ]
    kill "$pid"
  done
  # ZGC, with threads allocating: the fork-dump once crashed such an app; now refused
  start_java zgc -XX:+UseZGC -Xmx1g -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" BusyHeap --live-mb 100 --threads 2
  pid=$(cat "$TMP/zgc.pid")
  run "$OOMSCOPE" dump -p "$pid" --method shim --no-analyze -o "$TMP/z1.hprof.gz"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"the fork-dump is not safe with ZGC"*"--method jvm"* ]]
  [ ! -e "$TMP/z1.hprof.gz" ]
  # auto: the shim answers, but the JVM's dumper is taken
  run timeout 120 "$OOMSCOPE" dump -p "$pid" --no-analyze -o "$TMP/z2.hprof.gz"
  [ "$status" -eq 0 ]
  [[ "$output" == *"(jvm-fifo)"* ]]
  "$OOMSCOPE" hprof check "$TMP/z2.hprof.gz" > /dev/null
  sleep 1
  kill -0 "$pid"
  ! grep -q 'A fatal error' "$TMP/zgc.out"
}

# stalled_walk WALK MESSAGE: OOMSCOPE_SHIM_FAULT=stall:4: the children of the
# first four forks block their VM thread mid-walk, as a lock held by a
# vanished thread does; a walk blocked 3 s is a stall (10 s by default).
# WALK: hotspot (HotSpot's dumper in the copy, the default) or jvmti.
stalled_walk() {
  OOMSCOPE_SHIM_FAULT=stall:4,stall_ms:3000 start_java jvm -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  export OOMSCOPE_SHIM_WALK=$1
  # three forks, three stalls: the dump fails, clearly, and leaves nothing
  run timeout 120 "$OOMSCOPE" dump -p "$pid" --method shim --no-analyze -o "$TMP/s1.hprof.gz"
  echo "# $output" >&3
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "oomscope dump: the dump failed: the heap walk stalled "$2" (a lock held at fork time; the VM thread waits in syscall "*", futex): Resource deadlock avoided" ]]
  [ ! -e "$TMP/s1.hprof.gz" ]
  ! ls "$TMP"/s1.hprof.gz.* 2>/dev/null
  # the fourth fork stalls, the fifth writes the dump
  run timeout 120 "$OOMSCOPE" dump -p "$pid" --method shim --no-analyze -o "$TMP/s2.hprof.gz"
  echo "# $output" >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *"2 forks, the walk of the first one stalled"* ]]
  [[ "$output" == *"copy "*"$3"* ]]
  run "$OOMSCOPE" hprof check --json "$TMP/s2.hprof.gz"
  [ "$status" -eq 0 ]
  [ "$(jq .objects <<<"$output")" -gt 10000 ]
  # no stalled child is left behind (reaped by the shim)
  local i
  for i in $(seq 50); do [ -z "$(pgrep -P "$pid")" ] && break; sleep 0.1; done
  [ -z "$(pgrep -P "$pid")" ]
  kill -0 "$pid"
}

@test "a walk stalled by a lock held at fork time (HotSpot's dumper in the copy): said in one line, no file; the next fork succeeds" {
  # HotSpot's dumper says how far it got in bytes
  stalled_walk hotspot 'after *bytes' "HotSpot's own dumper"
}

@test "a walk stalled by a lock held at fork time (the JVMTI walk): said in one line, no file; the next fork succeeds" {
  stalled_walk jvmti 'with * objects not written' "JVMTI walk"
}

@test "a second dump while one runs is refused, clearly; the first completes; the next may follow at once" {
  # hold: each dump child pauses mid-walk until $TMP/release exists, so the
  # second request certainly comes while the first runs
  OOMSCOPE_SHIM_FAULT="hold:$TMP/release" start_java jvm -Xmx1g -agentpath:"$ROOT/build/liboomscope_shim.so" \
    -cp "$JAVA_CLASSES" BusyHeap --live-mb 200 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  start_bg first timeout 300 "$SHIMCTL" -f "$TMP/first.hprof" "$pid" dumpfd app none
  wait_for "$TMP/first.out" '^started' 30
  run "$SHIMCTL" -f "$TMP/second.hprof" "$pid" dumpfd
  [ "$status" -eq 1 ]
  [[ "$output" == "busy a dump is running (child $(child_of "$TMP/first.out"), passed fd): try again when it is done" ]]
  touch "$TMP/release"
  wait_for "$TMP/first.out" '^done' 240
  # the next one may start at once: the first's child, still exiting (its
  # copy of a 400 MB heap unmapping), is waited for, not taken as busy
  run timeout 300 "$SHIMCTL" -f "$TMP/third.hprof" "$pid" dumpfd app none
  [ "$status" -eq 0 ]
  "$OOMSCOPE" hprof check "$TMP/first.hprof" >/dev/null
  "$OOMSCOPE" hprof check "$TMP/third.hprof" >/dev/null
}

@test "the app's cgroup killed whole while the dump child writes (Android's process-group kill): the child, moved out at once, finishes the dump" {
  local cg pid child= st=0
  cg=$(cgroup_dir pids)
  # hold: the child pauses mid-walk until $TMP/release exists: the kill certainly comes mid-dump
  OOMSCOPE_SHIM_FAULT="hold:$TMP/release" start_bg jvm sh -c "echo \$\$ > '$cg/cgroup.procs' && exec java -Xmx1g \
    -agentpath:'$ROOT/build/liboomscope_shim.so' -cp '$JAVA_CLASSES' BusyHeap --live-mb 100 --threads 1"
  wait_for "$TMP/jvm.out" '^ready pid=' 120
  pid=$(cat "$TMP/jvm.pid")
  start_bg d "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/k.hprof.gz" --no-analyze
  child=$(dump_child "$pid")
  [ -n "$child" ]
  STARTED_PIDS+=("$child")
  # oomscope moves it to the hierarchies' roots as soon as the shim says "started"
  for _ in $(seq 1 300); do grep -qx "$child" "$cg/cgroup.procs" || break; sleep 0.1; done
  ! grep -qx "$child" "$cg/cgroup.procs" || { cat /proc/"$child"/cgroup >&3; false; }
  grep -qx "$pid" "$cg/cgroup.procs"
  # what Android's killProcessGroup does: every process of the app's cgroup killed
  xargs -r kill -KILL < "$cg/cgroup.procs"
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  ! kill -0 "$pid" 2>/dev/null
  touch "$TMP/release"
  wait_exit "$(cat "$TMP/d.pid")" 120 || st=$?
  [ "$st" -eq 0 ] || { cat "$TMP/d.out" >&3; false; }
  "$OOMSCOPE" hprof check "$TMP/k.hprof.gz" > /dev/null
}

@test "the dump writer killed mid-dump: no partial file, the failure said in one line" {
  # hold: the child pauses mid-walk until $TMP/release exists: it is killed mid-dump
  OOMSCOPE_SHIM_FAULT="hold:$TMP/release" start_java jvm -Xmx1g -agentpath:"$ROOT/build/liboomscope_shim.so" \
    -cp "$JAVA_CLASSES" BusyHeap --live-mb 100 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  start_bg d "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/k.hprof.gz" --no-analyze
  # the child is the JVM's only child process
  local child=
  child=$(dump_child "$pid")
  [ -n "$child" ]
  kill -KILL "$child"
  local st=0
  wait_exit "$(cat "$TMP/d.pid")" 60 || st=$?
  [ "$st" -eq 1 ]
  grep -q "oomscope dump: the dump child $child ended without finishing (killed?); nothing was kept" "$TMP/d.out"
  [ ! -e "$TMP/k.hprof.gz" ]
  ! ls "$TMP"/k.hprof.gz.tmp.* 2>/dev/null
  # the JVM lives on, and dumps again
  kill -0 "$pid"
  touch "$TMP/release"
  run timeout 300 "$OOMSCOPE" dump -p "$pid" -q -o "$TMP/again.hprof.gz" --no-analyze
  [ "$status" -eq 0 ]
}

# $1: before_started (killed between its fork and the answer "started":
# the child's "done" is the first line) or after_started (killed once
# "started" was sent)
killed_during_dump() {
  # hold: the dump child pauses mid-walk until $TMP/release exists
  OOMSCOPE_SHIM_FAULT="hold:$TMP/release,$1:$TMP/started" start_java jvm -Xmx1g \
    -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" BusyHeap --live-mb 100 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  # a rule that holds at once: dump now, once
  start_bg w "$OOMSCOPE" watch -p "$pid" -o "$TMP/run" --heap-ratio 0.01 --heap-polls 1 --heap-interval 0.5 \
    --max-dumps 1 --no-analyze -d 280
  wait_for "$TMP/run/timeline.jsonl" '"type":"dump_start"' 60
  local child= i
  if [ "$1" = after_started ]; then
    for i in $(seq 1 1200); do [ -e "$TMP/started" ] && break; sleep 0.05; done
    [ -e "$TMP/started" ]
  fi
  # the child holds (and, before_started, so does the JVM's answer)
  for i in $(seq 1 1200); do
    child=$(cat /proc/"$pid"/task/*/children 2> /dev/null | tr ' ' '\n' | grep -E '^[0-9]+$' | head -n 1)
    [ -n "$child" ] && break
    sleep 0.05
  done
  [ -n "$child" ]
  kill -KILL "$pid"
  touch "$TMP/release"
  wait_exit "$(cat "$TMP/w.pid")" 280
  local d; d=$(grep '"type":"dump"' "$TMP/run/timeline.jsonl")
  echo "the dump's record: $d"
  jq -e '.ok == true and .method == "shim-fork" and .target_exited == true' <<<"$d"
  "$OOMSCOPE" hprof check "$TMP/run/dump-1.hprof.gz" >/dev/null
  grep -q '"reason":"target exited"' "$TMP/run/timeline.jsonl"
  grep -q 'dump 1 written (shim-fork).*(the target has exited since)' "$TMP/w.out"
}

@test "the target killed during a dump: the fork's copy is finished and the collector reports it" {
  killed_during_dump after_started
}

@test "the target killed between its fork and its answer: the child's answer ends the dump, kept" {
  killed_during_dump before_started
  # the pause was never told
  jq -e '.pause_ms == null or .pause_ms <= 0' <<<"$(grep '"type":"dump"' "$TMP/run/timeline.jsonl")"
}

@test "run --shim: a leaking JVM, the heap rule fires, a fork-dump, and the report names the planted leak" {
  # (the heap rule's test: GC distress, which may see this leak first, is java_pools.bats's)
  run timeout 180 "$OOMSCOPE" run --shim -o "$TMP/e2e" -d 40 --stop-on-crossing --heap-interval 1 --no-pool-rules \
    --leak-if 'LeakyService$Session.closed==true' \
    -- java -Xmx256m -cp "$JAVA_CLASSES" LeakyService --leak-mb-per-s 25 --max-mb 215
  [ "$status" -eq 0 ]
  local tl="$TMP/e2e/timeline.jsonl"
  # the runtime, its probes, heap figures from hsperfdata, GC pauses
  grep '"type":"runtime"' "$tl" | jq -e '.runtime == "hotspot" and .probes == 7'
  [ "$(grep '"type":"sample"' "$tl" | jq -s '[.[] | select(.heap_src == "hsperfdata" and .heap_max > 260000000 and .heap_max < 270000000)] | length')" -gt 3 ]
  [ "$(grep '"type":"gc"' "$tl" | jq -s '[.[] | select(.pause_ms > 0 and .pools["G1 Old Gen"].max == 268435456)] | length')" -gt 0 ]
  # the crossing, the dump (a fork: a short pause), the analysis
  grep '"type":"crossing"' "$tl" | head -n 1 | jq -e '(.rule | startswith("heap_")) and .wrote == "dump-1.hprof.gz"'
  local d; d=$(grep '"type":"dump"' "$tl")
  jq -e '.ok and .method == "shim-fork" and .pause_ms > 0 and .pause_ms < .dump_ms and .leak_groups == 1' <<<"$d"
  jq -e '.top_leak | startswith("LeakyService$Session x") and contains("LeakyService$SessionCache.CLOSED")' <<<"$d"
  jq -e '.gcPaths[0] | .leakReason == "User Leak: LeakyService$Session.closed==true (--leak-if)" and .instanceCount > 1000' "$TMP/e2e/dump-1.analysis.json"
  grep -q 'LeakyService$SessionCache.CLOSED' "$TMP/e2e/dump-1.analysis.txt"
  [ "$(stat -c %a "$TMP/e2e/dump-1.hprof.gz")" = 600 ]
  # the app kept running through the dump: it was still alive when oomscope stopped it
  grep '"type":"end"' "$tl" | jq -e '.reason == "threshold crossed" and .dumps == 1 and .runtime_ringbuf_drops == 0'
  [[ "$output" == *"dump 1 written (shim-fork)"* ]]
}

@test "watch -p PID --shim: a JVM started without it gets the shim by dynamic attach" {
  start_java jvm -Xmx256m -cp "$JAVA_CLASSES" LeakyService --leak-mb-per-s 25 --max-mb 215
  local pid; pid=$(cat "$TMP/jvm.pid")
  run timeout 180 "$OOMSCOPE" watch -p "$pid" --shim -o "$TMP/w" -d 60 --stop-on-crossing --heap-interval 1 \
    --leak-if 'LeakyService$Session.closed==true'
  [ "$status" -eq 0 ]
  local d; d=$(grep '"type":"dump"' "$TMP/w/timeline.jsonl")
  jq -e '.ok and .method == "shim-fork" and (.top_leak | contains("SessionCache.CLOSED"))' <<<"$d"
  "$SHIMCTL" "$pid" ping
}

@test "Java threads keep their full names (HotSpot's thread__start), not the kernel's 15 characters" {
  start_java jvm -cp "$JAVA_CLASSES" NamedThreads --count 8 --go "$TMP/go"
  local pid; pid=$(cat "$TMP/jvm.pid")
  start_bg w "$OOMSCOPE" watch -p "$pid" -o "$TMP/nt"
  wait_for "$TMP/w.out" 'Java runtime: hotspot' 60
  touch "$TMP/go"
  wait_for "$TMP/jvm.out" '^started 8' 60
  # the threads' start events are in the ring buffer: the watch reads them before it ends
  kill -INT "$(cat "$TMP/w.pid")"
  wait_exit "$(cat "$TMP/w.pid")" 20
  jq -e '.groups[] | select(.name == "ImageDecoderWorkerThread") | .count == 8' "$TMP/nt/threads.json"
  # the kernel's name for them is cut
  [ "$(cat /proc/"$pid"/task/*/comm | grep -c '^ImageDecoderWor$')" -eq 8 ]
}

@test "Java heap options are checked" {
  run "$OOMSCOPE" watch -p $$ --heap-rule koom3
  [ "$status" -eq 2 ]
  [[ "$output" == *"koom2, koom1, probe, trend, or VARIANT+trend"* ]]
  run "$OOMSCOPE" watch -p $$ --dump-method ftp
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" watch -p $$ --runtime dalvik
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" watch -p $$ --heap-ratio 1.5
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" dump -p $$
  [ "$status" -eq 1 ]
  [[ "$output" == *"runs no Java runtime"* ]]
  run "$OOMSCOPE" dump
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" watch --help
  [[ "$output" == *"--heap-rule"* && "$output" == *"--shim"* ]]
}

@test "the demo's Java service under run --shim, as a person reads its memory: the Java heap named as what grew (not the collector's functions), the JIT's code named, a page without mangled names or raw addresses a symbol names, one store row per culprit" {
  run timeout 120 "$OOMSCOPE" run --shim --stop-on-crossing --heap-interval 1 -o "$TMP/d" \
    --leak-if 'LeakyService$Session.closed==true' -- java -Xmx256m -cp "$JAVA_CLASSES" LeakyService --leak-mb-per-s 25 --max-mb 215
  [ "$status" -eq 0 ] || { echo "$output" | tail -n 20 >&3; false; }
  # the memory's growth: the Java heap first, none of it a libjvm function's
  jq -e '.faults.culprits[0].created_by == "the Java heap"' "$TMP/d/memory.json" ||
    { jq -c '[.faults.culprits[:5][] | {created_by, samples}]' "$TMP/d/memory.json" >&3; false; }
  ! jq -e '[.faults.culprits[:3][] | .created_by // "" | test("G1|libjvm")] | any' "$TMP/d/memory.json"
  run "$OOMSCOPE" report "$TMP/d"
  grep -q '^  ~ *[0-9.]* MB the Java heap (anonymous)$' <<<"$output" || { echo "$output" >&3; false; }
  ! grep -q 'Java code (JIT-compiled or interpreted' <<<"$output"
  ! grep -q 'Java code (JIT-compiled or interpreted' "$TMP/d/memory.json" "$TMP/d/fds.json" "$TMP/d/threads.json"
  # the JIT's code in the sampled stacks: every frame in it named by the shim's perf map (the interpreter, stubs, methods)
  jq -e '[.. | objects | select(.jit == true)] | length > 0 and all(.symbol != null)' "$TMP/d/memory.json" ||
    { jq -c '[.. | objects | select(.jit == true) | .text] | unique' "$TMP/d/memory.json" >&3; false; }
  # report.html: frames as the terminal names them
  ! grep -qE '_ZN[0-9]|_ZL[0-9]' "$TMP/d/report.html"
  ! grep -qE 'libc\.so\.6 0x[0-9a-f]+ 0x[0-9a-f]+ \+ [0-9]+' "$TMP/d/report.html"
  # two runs in the store: at most one memory row per culprit and run
  cp -a "$TMP/d" "$TMP/d2"
  sed -i 's/"run_id":"[0-9a-f]*"/"run_id":"0123456789abcdef0123456789abcdef"/' "$TMP/d2/timeline.jsonl"
  "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" "$TMP/d" "$TMP/d2" > /dev/null
  [ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$TMP/lab.sqlite" \
       "SELECT COUNT(*) FROM (SELECT run_id, created_by FROM resource_groups WHERE resource = 'memory' GROUP BY run_id, created_by HAVING COUNT(*) > 1)")" -eq 0 ]
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite"
  ! grep -E '^memory ' <<<"$output" | awk '{ print $4 }' | grep -qE '^[0-9]+$'
}
