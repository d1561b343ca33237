#!/usr/bin/env bats
# The Java code that did it (issue 35): in a JVM app, the threads and fds
# come from Java methods. With the shim, the kernel side signals the thread
# as it makes one, the shim's handler takes its Java frames
# (AsyncGetCallTrace), and the groups are named by the app's own first
# frame, with file and line; thread names fold their numbers.
load helpers

JAVA_DIR="$ROOT/tests/java"

# poller_run [OOMSCOPE OPTIONS -- APP OPTIONS]: PollerApp under run --shim,
# making its threads and files once the shim takes Java stacks (however long
# that took), stopped once they are made
poller_run() {
  local opts=() app=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  app=("$@")
  mkdir -p "$TMP/cache"
  # compiled by make: the source launcher's javac would open hundreds of files
  # at the same native place as the app's opens, in the first asks' bucket
  start_bg r "$OOMSCOPE" run --shim "${opts[@]}" -o "$TMP/run" -- \
    java -cp "$JAVA_CLASSES" PollerApp --go "$TMP/go" --dir "$TMP/cache" "${app[@]}"
  wait_for "$TMP/r.out" 'Java stacks: the shim takes them' 120
  touch "$TMP/go"
  wait_for "$TMP/r.out" '^done$' 60
  kill -INT "$(cat "$TMP/r.pid")"
  wait_exit "$(cat "$TMP/r.pid")" 60
}

@test "run --shim: 60 threads poller-* from startPoller and 61 fds from openCache, with file and line, on the terminal, in the JSON and the report" {
  poller_run
  local start_line open_line
  start_line=$(grep -n 't.start();' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  open_line=$(grep -n 'CACHE.add(new FileInputStream(f));' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  # the terminal's summary
  grep -qE "^ +60 threads poller-\* +<- PollerApp.startPoller\(PollerApp.java:$start_line\)$" "$TMP/r.out" ||
    { grep -A8 'largest groups' "$TMP/r.out" >&3; false; }
  grep -qE "^ +6[1-9] fds +file( \([0-9]+: [^)]*\))? +<- PollerApp.openCache\(PollerApp.java:$open_line\)$" "$TMP/r.out"
  # the JSON: one group of 60, its examples, one stack with its Java frames, the app's first named
  local t="$TMP/run/threads.json" f="$TMP/run/fds.json"
  jq -e '.groups[] | select(.name == "poller-*") | .count == 60 and (.examples | length) == 3 and .examples[0] == "poller-0"' "$t"
  jq -e '[.groups[] | select(.name == "poller-*") | .stacks[] | select(.created_by == "PollerApp.startPoller(PollerApp.java:'"$start_line"')") | .count] | add == 60' "$t" ||
    { jq -c '.groups[] | select(.name == "poller-*") | [.stacks[] | {count, created_by, java_stack}]' "$t" >&3; false; }
  jq -e '.groups[] | select(.name == "poller-*") | .stacks[0].java_frames | index("PollerApp.main(PollerApp.java:'"$(grep -n 'startPoller(threads);' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)"')") != null' "$t"
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select(.created_by == "PollerApp.openCache(PollerApp.java:'"$open_line"')") | .count] | add == 61' "$f" ||
    { jq -c '[.groups[] | select(.kind == "file") | .stacks[] | {count, created_by, java_stack}]' "$f" >&3; false; }
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select((.created_by // "") | startswith("PollerApp.openCache")) | .java_frames[0]][0] == "java.io.FileInputStream.open0(Native Method)"' "$f"
  # the native frames are there too: the whole mixed stack
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select((.created_by // "") | startswith("PollerApp.openCache")) | .frames[].module // "" | test("libjava.so")] | any' "$f"
  # the report
  grep -q "PollerApp.startPoller(PollerApp.java:$start_line)" "$TMP/run/report.html"
  grep -q "PollerApp.openCache(PollerApp.java:$open_line)" "$TMP/run/report.html"
  # the cost said: every ask reported and joined with its event, none sampled out
  local end; end=$(tail -n1 "$TMP/run/timeline.jsonl")
  jq -e '.java_stacks | .asked >= 121 and .reported == .asked and .unmatched == 0 and .sampled_out == 0' <<<"$end" ||
    { echo "# $(jq -c .java_stacks <<<"$end")" >&3; false; }
  grep -qE '^oomscope: Java stacks: [0-9]+ asked, [0-9]+ reported, 0 not joined with their event; 0 sampled out' "$TMP/r.out"
}

@test "run --shim: a storm of 2000 opens at one place is sampled past its first 256 and says so; --java-platform moves the name to the caller" {
  # the app's openCache counted as the platform's: its caller names the group
  poller_run --java-platform +PollerApp.open -- --threads 1 --files 2000
  local f="$TMP/run/fds.json" main_line end
  main_line=$(grep -n 'openCache(dir, files);' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  end=$(tail -n1 "$TMP/run/timeline.jsonl")
  echo "# $(jq -c .java_stacks <<<"$end")" >&3
  # every file is either named by its Java caller or said to be sampled out
  local named sampled
  named=$(jq '[.groups[] | select(.kind == "file") | .stacks[] | select(.created_by == "PollerApp.main(PollerApp.java:'"$main_line"')") | .count] | add // 0' "$f")
  sampled=$(jq '[.groups[] | select(.kind == "file") | .stacks[] | select(.java_stack == "sampled out (over its place'"'"'s limit)") | .count] | add // 0' "$f")
  [ "$((named + sampled))" -eq 2000 ] || { jq -c '[.groups[] | select(.kind == "file") | .stacks[] | {count, created_by, java_stack}]' "$f" >&3; false; }
  # two asks an iteration (createNewFile's open too, at the same place when
  # libjava has no frame pointers, else apart): past the first 256, the other
  # 3744 (or 1744) would need 37 s (17 s) of the refill's 100 a second
  [ "$sampled" -gt 0 ]
  [ "$named" -ge 128 ]
  jq -e --argjson s "$sampled" '.java_stacks | .sampled_out >= $s and .reported == .asked and .unmatched == 0' <<<"$end"
  grep -qE '^ +2[0-9]{3} fds +file( \([0-9]+: [^)]*\))? +<- .*\(Java stack sampled out\)$|^ +2[0-9]{3} fds +file( \([0-9]+: [^)]*\))? +<- PollerApp.main' "$TMP/r.out"
  grep -qE '^oomscope: Java stacks: .* [1-9][0-9]* sampled out \(past 256 at one place, then 100 a second\)$' "$TMP/r.out"
}

# PollerApp under run without the shim: --perf-map asks the JVM for its perf
# map at the end; MODE is interpreted or compiled (-Xcomp, C1 only, frame
# pointers kept: every method compiled at its first call)
perfmap_run() { # NAME JAVA_OPTIONS...
  local name=$1; shift
  mkdir -p "$TMP/cache-$name"
  start_bg "$name" "$OOMSCOPE" run --perf-map -o "$TMP/$name" -- \
    java "$@" -cp "$JAVA_CLASSES" PollerApp --dir "$TMP/cache-$name" --files 1
  wait_for "$TMP/$name.out" '^done$' 120
  kill -INT "$(cat "$TMP/$name.pid")"
  wait_exit "$(cat "$TMP/$name.pid")" 60
  # the map the JVM wrote for it (jcmd leaves it, as perf expects)
  local jvm; jvm=$(sed -n 's/^ready pid=//p' "$TMP/$name.out")
  [ -f "/tmp/perf-$jvm.map" ]
  rm -f "/tmp/perf-$jvm.map"
}

@test "run --perf-map without the shim: JIT-compiled frames named from the JVM's perf map; interpreted ones said to be" {
  perfmap_run interp
  perfmap_run comp -Xcomp -XX:TieredStopAtLevel=1 -XX:+PreserveFramePointer
  local ti="$TMP/interp/threads.json" tc="$TMP/comp/threads.json"
  # interpreted: the group says so, its frames are the interpreter's, none dropped
  jq -e '.groups[] | select(.name == "poller-*") | .count == 60 and (.stacks | length) == 1
         and .stacks[0].created_by == "interpreted Java (methods unnamed here; --shim names them for threads and fds)"
         and ([.stacks[0].frames[] | select(.jit and .symbol == "Interpreter")] | length) >= 1' "$ti" ||
    { jq -c '.groups[] | select(.name == "poller-*") | [.stacks[] | {count, created_by, f: [.frames[].text]}]' "$ti" >&3; false; }
  grep -qE '^ +60 threads poller-\* +<- interpreted Java' "$TMP/interp.out"
  # compiled: the app's method by the perf map, the whole mixed stack kept
  jq -e '.groups[] | select(.name == "poller-*") | .count == 60
         and .stacks[0].created_by == "PollerApp.startPoller(int) (compiled Java)"
         and ([.stacks[0].frames[] | select(.jit) | .symbol] | index("void PollerApp.main(java.lang.String[])") != null)
         and ([.stacks[0].frames[].symbol] | index("JVM_StartThread") != null)' "$tc" ||
    { jq -c '.groups[] | select(.name == "poller-*") | [.stacks[] | {count, created_by, f: [.frames[].text]}]' "$tc" >&3; false; }
  grep -qE '^ +60 threads poller-\* +<- PollerApp.startPoller\(int\) \(compiled Java\)$' "$TMP/comp.out"
  grep -q 'PollerApp.startPoller(int) (compiled Java)' "$TMP/comp/report.html"
}

# Threads made before the collector's connection to the shim (issue 47): the
# shim loaded at launch records who started each thread (Thread.start0
# wrapped) and hands the records over when the collector connects.
@test "run --shim: 60 threads started before the collector connects to the shim still carry startPoller's Java frames (the shim's record of their start)" {
  mkdir -p "$TMP/cache"
  # the collector connects only once the gate exists: after the app made its threads
  OOMSCOPE_FAULT="java_stacks_gate=$TMP/gate" start_bg r "$OOMSCOPE" run --shim -o "$TMP/run" -- \
    java -cp "$JAVA_CLASSES" PollerApp --go "$TMP/go" --dir "$TMP/cache"
  wait_for "$TMP/r.out" '^ready pid=' 60
  touch "$TMP/go"
  wait_for "$TMP/r.out" '^done$' 60
  ! grep -q 'Java stacks: the shim takes them' "$TMP/r.out" # not connected yet: no ask was possible
  touch "$TMP/gate"
  wait_for "$TMP/r.out" "made before the shim's connection" 60
  kill -INT "$(cat "$TMP/r.pid")"
  wait_exit "$(cat "$TMP/r.pid")" 60
  local start_line main_line t="$TMP/run/threads.json"
  start_line=$(grep -n 't.start();' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  main_line=$(grep -n 'startPoller(threads);' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  # every poller named by its starter (and the JVM's own threads started from Java), every cache
  # file by its opener: at least the 60 and the 61
  grep -qE "^oomscope: Java stacks: made before the shim's connection, [0-9]+ live thread\(s\) \(([6-9][0-9]|[1-9][0-9]{2,}) named by the Java frames that started them\) and [0-9]+ fd\(s\) \(([6-9][0-9]|[1-9][0-9]{2,}) named by those that opened them\)$" "$TMP/r.out" ||
    { grep 'Java stacks' "$TMP/r.out" >&3; false; }
  local open_line f="$TMP/run/fds.json"
  open_line=$(grep -n 'CACHE.add(new FileInputStream(f));' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select(.created_by == "PollerApp.openCache(PollerApp.java:'"$open_line"')") | .count] | add == 61' "$f" ||
    { jq -c '[.groups[] | select(.kind == "file") | .stacks[] | {count, created_by, java_stack}]' "$f" >&3; false; }
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select((.created_by // "") | startswith("PollerApp.openCache")) | .java_frames[0]][0] == "java.io.FileInputStream.open0(Native Method)"' "$f"
  jq -e '[.groups[] | select(.name == "poller-*") | .stacks[] | select(.created_by == "PollerApp.startPoller(PollerApp.java:'"$start_line"')") | .count] | add == 60' "$t" ||
    { jq -c '.groups[] | select(.name == "poller-*") | [.stacks[] | {count, created_by, unknown}]' "$t" >&3; false; }
  # the whole Java stack of the start, and the kernel's native one beside it (the event was seen)
  jq -e '.groups[] | select(.name == "poller-*") | .stacks[0]
         | (.java_frames[2] == "PollerApp.startPoller(PollerApp.java:'"$start_line"')")
         and (.java_frames | index("PollerApp.main(PollerApp.java:'"$main_line"')") != null)
         and ([.frames[].symbol] | index("JVM_StartThread") != null) and (.unknown == null)' "$t" ||
    { jq -c '.groups[] | select(.name == "poller-*") | .stacks[0] | {java_frames, s: [.frames[].symbol]}' "$t" >&3; false; }
  jq -e '.groups[] | select(.name == "poller-*") | .stacks[0].java_frames[0] == "java.lang.Thread.start0(Native Method)"' "$t"
  grep -qE "^ +60 threads poller-\* +<- PollerApp.startPoller\(PollerApp.java:$start_line\)$" "$TMP/r.out"
  # the story: the app's threads listed, the JVM's own (compiler, GC) said in one line
  run "$OOMSCOPE" report "$TMP/run"
  [ "$status" -eq 0 ]
  grep -qE "^ +60 threads poller-\* <- PollerApp.startPoller\(PollerApp.java:$start_line\)$" <<<"$output" || { echo "$output" >&3; false; }
  grep -qE "^ +\(.*and [0-9]+ threads the runtime made for itself\)$" <<<"$output"
  ! grep -qE "^ +[0-9]+ threads? .*<- .*\(libjvm.so\)$" <<<"$output"
}

@test "watch -p --shim of a JVM that loaded the shim at launch: its threads there at attach named by the Java code that started them" {
  mkdir -p "$TMP/cache"
  JAVA_TOOL_OPTIONS="-agentpath:$BUILD_DIR/liboomscope_shim.so" start_bg app java -cp "$JAVA_CLASSES" PollerApp --dir "$TMP/cache"
  wait_for "$TMP/app.out" '^done$' 60
  local pid; pid=$(sed -n 's/^ready pid=//p' "$TMP/app.out")
  run timeout 120 "$OOMSCOPE" watch -p "$pid" --shim -d 6 -o "$TMP/run"
  [ "$status" -eq 0 ] || { echo "$output" >&3; false; }
  local start_line t="$TMP/run/threads.json"
  start_line=$(grep -n 't.start();' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  grep -qE "Java stacks: made before the shim's connection, [0-9]+ live thread\(s\) \(([6-9][0-9]|[1-9][0-9]{2,}) named" <<<"$output" ||
    { grep 'Java stacks' <<<"$output" >&3; false; }
  # no native stack (made before the watch), its Java one from the shim's record
  jq -e '.groups[] | select(.name == "poller-*") | .count == 60 and (.stacks | length) == 1
         and .stacks[0].unknown == "existed at attach"
         and .stacks[0].created_by == "PollerApp.startPoller(PollerApp.java:'"$start_line"')"
         and .stacks[0].java_frames[0] == "java.lang.Thread.start0(Native Method)"' "$t" ||
    { jq -c '.groups[] | select(.name == "poller-*") | .stacks' "$t" >&3; false; }
  # threads the JVM made itself (no Thread.start) stay "existed at attach" alone
  jq -e '[.groups[] | select(.name | test("^(C[12] CompilerThre|VM Thread)")) | .stacks[] | select(.created_by == null and .unknown == "existed at attach")] | length >= 1' "$t"
  grep -qE "PollerApp.startPoller\(PollerApp.java:$start_line\)" <("$OOMSCOPE" report "$TMP/run")
}
