#!/usr/bin/env bats
# Threshold crossings end to end: the event, its numbers, the snapshot file.
load helpers

@test "the KOOM fd rule fires on a growing fd count; its groups at the crossing in fds-1.json" {
  run timeout 60 "$OOMSCOPE" run --json -i 0.5 --fd-count 60 --stop-on-crossing -o "$TMP/run" -- \
    "$TARGETS/fd_target" -n 400 -r 20
  [ "$status" -eq 0 ]
  local x; x=$(grep '"type":"crossing"' "$TMP/run/timeline.jsonl" | head -n1)
  [ "$(jq -r .rule <<<"$x")" = fd_count ]
  [ "$(jq .limit <<<"$x")" -eq 60 ]
  [ "$(jq .value <<<"$x")" -gt 60 ]
  [[ "$(jq -r .reason <<<"$x")" == *"3 polls in a row"* ]]
  # the groups as they stood at the crossing, kept beside the end's fds.json
  [ "$(jq -r .wrote <<<"$x")" = fds-1.json ]
  [ "$(jq .fds "$TMP/run/fds-1.json")" -ge 60 ]
  [ "$(jq .fds "$TMP/run/fds-1.json")" -le "$(jq .value <<<"$x")" ]
  [ "$(tail -n1 "$TMP/run/timeline.jsonl" | jq -r .reason)" = "threshold crossed" ]
  group_symbols "$TMP/run/fds-1.json" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs
  group_symbols "$TMP/run/fds.json" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs
}

@test "the fd ratio rule fires against RLIMIT_NOFILE" {
  run timeout 60 bash -c "ulimit -n 256; exec '$OOMSCOPE' run --json -i 0.5 --stop-on-crossing --rule fd_trend=0 -o '$TMP/run' -- '$TARGETS/fd_target' -n 2000 -r 60"
  [ "$status" -eq 0 ]
  local x; x=$(grep '"type":"crossing"' "$TMP/run/timeline.jsonl" | head -n1)
  [ "$(jq -r .rule <<<"$x")" = fd_ratio ]
  [ "$(jq .limit <<<"$x")" -eq 244 ]   # ceil(0.95 * 256)
  [ "$(jq .value <<<"$x")" -ge 244 ]
}

@test "the thread count rule fires; its groups at the crossing in threads-1.json" {
  run timeout 60 "$OOMSCOPE" run --json -i 0.5 --thread-count 10 --stop-on-crossing -o "$TMP/run" -- \
    "$TARGETS/thread_target" -m 80 -r 8
  [ "$status" -eq 0 ]
  local x; x=$(grep '"type":"crossing"' "$TMP/run/timeline.jsonl" | head -n1)
  [ "$(jq -r .rule <<<"$x")" = thread_count ]
  [ "$(jq -r .wrote <<<"$x")" = threads-1.json ]
  group_symbols "$TMP/run/threads-1.json" name worker-pool | grep -qx start_worker_pool
  group_symbols "$TMP/run/threads.json" name worker-pool | grep -qx start_worker_pool
}
