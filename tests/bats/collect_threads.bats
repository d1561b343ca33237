#!/usr/bin/env bats
# Threads: grouped by name, with the creation stack and the start routine.
load helpers

@test "run: thread_target's threads are grouped by name with their creator" {
  run_ready '^threads worker-pool=' "$OOMSCOPE" run --json -d 100 -o "$TMP/run" -- "$TARGETS/thread_target" -m 20
  [ "$status" -eq 0 ]
  local f="$TMP/run/threads.json"
  # main thread + 20 worker-pool + 5 io-thread
  [ "$(jq .threads "$f")" -eq 26 ]
  local s; s=$(last_sample "$TMP/run/timeline.jsonl")
  [ "$(jq .threads <<<"$s")" -eq 26 ]
  [ "$(jq .threads_bpf <<<"$s")" -eq 26 ]
  [ "$(jq '.groups[] | select(.name=="worker-pool") | .count' "$f")" -eq 20 ]
  [ "$(jq '.groups[] | select(.name=="io-thread") | .count' "$f")" -eq 5 ]
  [ "$(jq '.groups[] | select(.name=="worker-pool") | .stacks | length' "$f")" -eq 1 ]
  [ "$(jq -r '.groups[] | select(.name=="worker-pool") | .stacks[0].start_routine.symbol' "$f")" = worker_pool_main ]
  [ "$(jq -r '.groups[] | select(.name=="io-thread") | .stacks[0].start_routine.symbol' "$f")" = io_thread_main ]
  group_symbols "$f" name worker-pool | grep -qx start_worker_pool
  group_symbols "$f" name io-thread | grep -qx start_io_threads
  [ "$(jq -r '.groups[] | select(.name=="worker-pool") | .stacks[0].created_by' "$f")" = "start_worker_pool (thread_target)" ]
  # made by the main thread (named like the program)
  [ "$(jq -r '.groups[] | select(.name=="worker-pool") | .stacks[0].creator_thread' "$f")" = thread_target ]
  # the stack starts in libc's pthread_create, then the caller
  [ "$(jq -r '.groups[] | select(.name=="worker-pool") | .stacks[0].frames[0].symbol' "$f")" = pthread_create ]
  [ "$(jq -r '.groups[] | select(.name=="worker-pool") | .stacks[0].frames[1].symbol' "$f")" = start_worker_pool ]
}

@test "--no-pthread-probe: threads still counted and grouped, no start routine" {
  run timeout 60 "$OOMSCOPE" run --json -d 2 --no-pthread-probe -o "$TMP/run" -- "$TARGETS/thread_target" -m 6
  [ "$status" -eq 0 ]
  local f="$TMP/run/threads.json"
  [ "$(jq '.groups[] | select(.name=="worker-pool") | .count' "$f")" -eq 6 ]
  [ "$(jq '[.groups[].stacks[] | select(.start_routine != null)] | length' "$f")" -eq 0 ]
  [ "$(head -n1 "$TMP/run/timeline.jsonl" | jq -r .libc)" = null ]
}

@test "the collector survives the target dying mid-run and reports it" {
  start_bg target "$TARGETS/thread_target" -m 8 -t 600
  wait_for "$TMP/target.out" '^ready pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  start_bg w "$OOMSCOPE" watch -p "$tpid" -i 0.5 -o "$TMP/run"
  # the target ends (by its SIGTERM handler) once the watch has sampled it,
  # however long the attach took
  wait_for "$TMP/run/timeline.jsonl" '"type":"sample"' 120
  kill -TERM "$tpid"
  local st=0
  wait_exit "$(cat "$TMP/w.pid")" 60 || st=$?
  output=$(cat "$TMP/w.out")
  [ "$st" -eq 0 ] || { echo "# watch exited $st: $output" >&3; false; }
  [[ "$output" == *"stopped (target exited)"* ]]
  [ "$(tail -n1 "$TMP/run/timeline.jsonl" | jq -r .reason)" = "target exited" ]
  [ "$(jq .target_alive "$TMP/run/threads.json")" = false ]
  # the last snapshot before the exit is kept
  [ "$(jq '.groups[] | select(.name=="worker-pool") | .count' "$TMP/run/threads.json")" -eq 8 ]
}

@test "SIGTERM and SIGINT stop the collector cleanly with its files" {
  start_bg target "$TARGETS/thread_target" -m 2 -t 600
  wait_for "$TMP/target.out" '^ready pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  for sig in TERM INT; do
    start_bg w$sig "$OOMSCOPE" watch -p "$tpid" --json -i 0.3 -o "$TMP/run$sig"
    wait_for "$TMP/w$sig.out" '"type":"sample"' 20
    kill -$sig "$(cat "$TMP/w$sig.pid")"
    wait_exit "$(cat "$TMP/w$sig.pid")" 20
    [ "$(tail -n1 "$TMP/run$sig/timeline.jsonl" | jq -r .reason)" = "SIG$sig" ]
    [ -s "$TMP/run$sig/threads.json" ]
    ! ls "$TMP/run$sig"/*.tmp.* 2>/dev/null
  done
  kill -0 "$tpid"
}
