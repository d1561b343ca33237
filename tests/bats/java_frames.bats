#!/usr/bin/env bats
# The Java code that did it (issue 35): in a JVM app, the threads and fds
# come from Java methods. With the shim, the kernel side signals the thread
# as it makes one, the shim's handler takes its Java frames
# (AsyncGetCallTrace), and the groups are named by the app's own first
# frame, with file and line; thread names fold their numbers.
load helpers

JAVA_DIR="$ROOT/tests/java"

@test "run --shim: 60 threads poller-* from startPoller and 61 fds from openCache, with file and line, on the terminal, in the JSON and the report" {
  mkdir -p "$TMP/cache" "$TMP/classes"
  # compiled first: the source launcher's javac would open hundreds of files
  # at the same native place as the app's opens, in the first asks' bucket
  javac -d "$TMP/classes" "$JAVA_DIR/PollerApp.java"
  start_bg r "$OOMSCOPE" run --shim -o "$TMP/run" -- java -cp "$TMP/classes" PollerApp --go "$TMP/go" --dir "$TMP/cache"
  # the app makes them once the shim takes Java stacks, however long that took
  wait_for "$TMP/r.out" 'Java stacks: the shim takes them' 120
  touch "$TMP/go"
  wait_for "$TMP/r.out" '^done$' 60
  kill -INT "$(cat "$TMP/r.pid")"
  wait_exit "$(cat "$TMP/r.pid")" 60
  local start_line open_line
  start_line=$(grep -n 't.start();' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  open_line=$(grep -n 'CACHE.add(new FileInputStream(f));' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)
  # the terminal's summary
  grep -qE "^ +60 threads poller-\* +<- PollerApp.startPoller\(PollerApp.java:$start_line\)$" "$TMP/r.out" ||
    { grep -A8 'largest groups' "$TMP/r.out" >&3; false; }
  grep -qE "^ +6[1-9] fds +file +<- PollerApp.openCache\(PollerApp.java:$open_line\)$" "$TMP/r.out"
  # the JSON: one group of 60, its examples, one stack with its Java frames, the app's first named
  local t="$TMP/run/threads.json" f="$TMP/run/fds.json"
  jq -e '.groups[] | select(.name == "poller-*") | .count == 60 and (.examples | length) == 3 and .examples[0] == "poller-0"' "$t"
  jq -e '[.groups[] | select(.name == "poller-*") | .stacks[] | select(.created_by == "PollerApp.startPoller(PollerApp.java:'"$start_line"')") | .count] | add == 60' "$t" ||
    { jq -c '.groups[] | select(.name == "poller-*") | [.stacks[] | {count, created_by, java_stack}]' "$t" >&3; false; }
  jq -e '.groups[] | select(.name == "poller-*") | .stacks[0].java_frames | index("PollerApp.main(PollerApp.java:'"$(grep -n 'startPoller(60);' "$JAVA_DIR/PollerApp.java" | cut -d: -f1)"')") != null' "$t"
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select(.created_by == "PollerApp.openCache(PollerApp.java:'"$open_line"')") | .count] | add == 61' "$f" ||
    { jq -c '[.groups[] | select(.kind == "file") | .stacks[] | {count, created_by, java_stack}]' "$f" >&3; false; }
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select((.created_by // "") | startswith("PollerApp.openCache")) | .java_frames[0]][0] == "java.io.FileInputStream.open0(Native Method)"' "$f"
  # the native frames are there too: the whole mixed stack
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select((.created_by // "") | startswith("PollerApp.openCache")) | .frames[].module // "" | test("libjava.so")] | any' "$f"
  # the report
  grep -q "PollerApp.startPoller(PollerApp.java:$start_line)" "$TMP/run/report.html"
  grep -q "PollerApp.openCache(PollerApp.java:$open_line)" "$TMP/run/report.html"
}
