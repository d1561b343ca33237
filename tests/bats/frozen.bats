#!/usr/bin/env bats
# A target frozen by a cgroup freezer, as Android 12 and later freeze a cached
# app (the cgroup v2 freezer, its cgroup.freeze): a dump or an attach thaws
# it for as long as it takes, then freezes it again; left running when it was
# brought back meanwhile (its oom_score_adj fell, as an app leaving the
# cached state's does). Here v1's freezer (this machine mounts it) and v2's
# (the unified hierarchy beside it); in the arm64 VM, v2 alone.
load helpers

# freezer_cg: a cgroup for the v1 freezer where it is mounted, else a v2 one;
# sets FCG and FV1 (1: v1)
freezer_cg() {
  if awk '$3 == "cgroup" && ("," $4 ",") ~ /,freezer,/' /proc/self/mounts | grep -q .; then
    FCG=$(cgroup_dir freezer) FV1=1
  else
    FCG=$(cgroup2_dir) FV1=0
  fi
}

# freeze DIR V1 / thaw_state DIR V1: the freezer's own words
freeze() { if [ "$2" = 1 ]; then echo FROZEN > "$1/freezer.state"; else echo 1 > "$1/cgroup.freeze"; fi; }
frozen_now() {
  if [ "$2" = 1 ]; then [ "$(cat "$1/freezer.state")" = FROZEN ]; else grep -qx 'frozen 1' "$1/cgroup.events"; fi
}
wait_frozen() {
  local i
  for i in $(seq 1 100); do frozen_now "$1" "$2" && return 0; sleep 0.05; done
  return 1
}
unfreeze() { if [ "$2" = 1 ]; then echo THAWED > "$1/freezer.state"; else echo 0 > "$1/cgroup.freeze"; fi; }

# start_jvm_in DIR ARGS...: a JVM in the cgroup DIR from its first instruction
start_jvm_in() {
  local cg=$1; shift
  start_bg jvm sh -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' sh "$cg" java "$@"
  wait_for "$TMP/jvm.out" '^ready pid=' 120
}

teardown() {
  # nothing of ours left frozen: teardown's kills must reach it
  [ -z "${FCG:-}" ] || unfreeze "$FCG" "$FV1" 2> /dev/null || true
  [ -z "${FCG2:-}" ] || unfreeze "$FCG2" 0 2> /dev/null || true
  common_teardown
}

@test "a frozen JVM with the shim (the v1 freezer here, v2 where v1 is not mounted): the dump thaws it, writes the heap, and freezes it again; said in one line" {
  freezer_cg
  start_jvm_in "$FCG" -Xmx256m -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" BusyHeap --live-mb 20 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  freeze "$FCG" "$FV1"
  wait_frozen "$FCG" "$FV1"
  run timeout 120 "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/f.hprof.gz" --no-analyze
  echo "$output"
  [ "$status" -eq 0 ]
  "$OOMSCOPE" hprof check "$TMP/f.hprof.gz" > /dev/null
  local v; [ "$FV1" = 1 ] && v=v1 || v=v2
  grep -qx "frozen    PID $pid was frozen (the cgroup $v freezer, $FCG): thawed for the dump, frozen again after" <<<"$output"
  wait_frozen "$FCG" "$FV1"
}

@test "a frozen JVM without the shim, in the cgroup v2 freezer: --load-shim thaws it for the attach and the dump, and it is frozen again" {
  FCG2=$(cgroup2_dir)
  start_jvm_in "$FCG2" -Xmx256m -cp "$JAVA_CLASSES" BusyHeap --live-mb 20 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  freeze "$FCG2" 0
  wait_frozen "$FCG2" 0
  run timeout 120 "$OOMSCOPE" dump -p "$pid" --load-shim -o "$TMP/f.hprof.gz" --no-analyze
  echo "$output"
  [ "$status" -eq 0 ]
  grep -q "^dump      $TMP/f.hprof.gz (shim-fork)" <<<"$output"
  grep -qx "frozen    PID $pid was frozen (the cgroup v2 freezer, $FCG2): thawed for the shim's load and the dump, frozen again after" <<<"$output"
  wait_frozen "$FCG2" 0
  [ "$(cat "$FCG2/cgroup.freeze")" = 1 ]
}

@test "an app brought back while thawed for its dump (its oom_score_adj fell from the cached 900 to 0): left running, said" {
  FCG2=$(cgroup2_dir)
  OOMSCOPE_SHIM_FAULT="hold:$TMP/release" start_jvm_in "$FCG2" -Xmx256m -agentpath:"$ROOT/build/liboomscope_shim.so" \
    -cp "$JAVA_CLASSES" BusyHeap --live-mb 20 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  echo 900 > /proc/"$pid"/oom_score_adj
  freeze "$FCG2" 0
  wait_frozen "$FCG2" 0
  start_bg d timeout 120 "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/f.hprof.gz" --no-analyze
  # thawed, the child held mid-walk: the activity manager brings the app back
  local i
  for i in $(seq 1 600); do [ "$(cat "$FCG2/cgroup.freeze")" = 0 ] && [ -n "$(cat /proc/"$pid"/task/*/children)" ] && break; sleep 0.05; done
  [ "$(cat "$FCG2/cgroup.freeze")" = 0 ]
  echo 0 > /proc/"$pid"/oom_score_adj
  touch "$TMP/release"
  wait_exit "$(cat "$TMP/d.pid")" 100
  cat "$TMP/d.out"
  grep -qx "frozen    PID $pid was frozen (the cgroup v2 freezer, $FCG2): thawed for the dump, left running: its oom_score_adj fell from 900 to 0 while thawed (brought back)" "$TMP/d.out"
  [ "$(cat "$FCG2/cgroup.freeze")" = 0 ]
  ! frozen_now "$FCG2" 0
}
