#!/usr/bin/env bats
# A hostile world around the target: its PID reused by another process, its
# files swapped or garbled under oomscope, links planted at output paths.
load helpers

# spawn_at_pid PID NAME CMD...: starts CMD in the background as process PID
# (ns_last_pid set to PID-1 right before each fork, until the fork lands on
# it), recorded like start_bg. Fails after 500 tries.
spawn_at_pid() {
  local want=$1 name=$2 p i; shift 2
  for i in $(seq 1 500); do
    echo $((want - 1)) > /proc/sys/kernel/ns_last_pid
    "$@" > "$TMP/$name.out" 2>&1 &
    p=$!
    if [ "$p" -eq "$want" ]; then
      STARTED_PIDS+=("$p")
      echo "$p" > "$TMP/$name.pid"
      return 0
    fi
    kill -KILL "$p" 2> /dev/null || true
    wait "$p" 2> /dev/null || true
  done
  echo "# could not get PID $want" >&3
  return 1
}

# a collector held with SIGSTOP by a failed test is let go before teardown ends it
eval "helpers_$(declare -f teardown)"
teardown() {
  local p
  for p in "${STARTED_PIDS[@]}"; do kill -CONT "$p" 2> /dev/null || true; done
  helpers_teardown
}

# the target: 100 fds (40 eventfd+epoll pairs, 4 files, 4 socketpairs, 4 pipes) and stdio;
# the newcomer: fd_target -n 300, 750 fds and stdio

@test "a PID reused after the target's exit is never taken for the target: the end is said, the newcomer's fds are not counted" {
  start_bg target "$TARGETS/fd_target" -n 40 -t 60
  wait_for "$TMP/target.out" '^ready pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  start_bg watch "$OOMSCOPE" watch -p "$tpid" --json -i 0.2 -d 40 -o "$TMP/run"
  local wpid; wpid=$(cat "$TMP/watch.pid")
  wait_for "$TMP/watch.out" '"type":"sample"' 20
  # the collector is held while the target dies, is reaped, and its PID
  # goes to a process with many more fds
  kill -STOP "$wpid"
  kill -KILL "$tpid"
  wait "$tpid" 2> /dev/null || true
  spawn_at_pid "$tpid" newcomer "$TARGETS/fd_target" -n 300 -t 60
  wait_for "$TMP/newcomer.out" '^opened eventfd=300' 10
  [ "$(ls /proc/$tpid/fd | wc -l)" -ge 750 ]
  kill -CONT "$wpid"
  local st=0
  wait_exit "$wpid" 20 || st=$?
  [ "$st" -eq 0 ]
  # it said how the target ended, and stopped
  local tl="$TMP/run/timeline.jsonl"
  jq -e '.type == "end" and .reason == "target exited"' < <(tail -n1 "$tl")
  grep '"type":"death"' "$tl" | jq -e '.signal_name == "SIGKILL" and .last_state.fds < 200'
  # no sample, and no end file, holds the newcomer's fds or counts its events
  [ "$(grep '"type":"sample"' "$tl" | jq -s 'map(.fds, .fds_bpf) | max')" -lt 200 ]
  [ "$(jq '[.groups[] | .count] | add' "$TMP/run/fds.json")" -lt 200 ]
  [ "$(jq '[.groups[] | select(.kind=="anon_inode:[eventfd]") | .count] | add // 0' "$TMP/run/fds.json")" -le 40 ]
  # the newcomer runs on, untouched
  kill -0 "$tpid"
}

@test "the target's PID reused while oomscope attaches (after it looked the PID up): refused in one line, the newcomer not watched" {
  start_bg target "$TARGETS/fd_target" -n 40 -t 60
  wait_for "$TMP/target.out" '^ready pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  start_bg watch "$OOMSCOPE" watch -p "$tpid" --json -i 0.2 -d 40 -o "$TMP/run"
  local wpid; wpid=$(cat "$TMP/watch.pid")
  # held once it has BPF objects: past the lookup, not yet sampling
  local i; for i in $(seq 1 400); do
    ls -l /proc/"$wpid"/fd 2> /dev/null | grep -q 'bpf-map' && break
    sleep 0.01
  done
  kill -STOP "$wpid"
  kill -KILL "$tpid"
  wait "$tpid" 2> /dev/null || true
  spawn_at_pid "$tpid" newcomer "$TARGETS/fd_target" -n 300 -t 60
  wait_for "$TMP/newcomer.out" '^opened eventfd=300' 10
  kill -CONT "$wpid"
  local st=0
  wait_exit "$wpid" 20 || st=$?
  # either refused while attaching, or watched its end: never the newcomer
  if [ "$st" -ne 0 ]; then
    [ "$st" -eq 1 ]
    grep -qE "^oomscope: process $tpid exited while attaching" "$TMP/watch.out"
    [ "$(wc -l < "$TMP/watch.out")" -eq 1 ]
  else
    jq -e '.type == "end" and .reason == "target exited"' < <(tail -n1 "$TMP/run/timeline.jsonl")
  fi
  if [ -s "$TMP/run/timeline.jsonl" ]; then
    [ "$(grep '"type":"sample"' "$TMP/run/timeline.jsonl" | jq -s 'map(.fds, .fds_bpf) | max // 0')" -lt 200 ]
  fi
  kill -0 "$tpid"
}

