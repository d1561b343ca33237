#!/usr/bin/env bats
# Process trees (issue 32): `run` follows the processes its command starts.
# A launcher (sh) forks a worker that exhausts its fds and aborts: the
# worker is held at its first followed syscall, watched by a collector of
# its own, and its fd group, failing call and end are named.
load helpers

DT="$TARGETS/death_target"

@test "run -- a launcher whose forked worker exhausts its fds: the worker watched as a target of its own, its fds, its failing call and its end named" {
  run timeout 120 "$OOMSCOPE" run -o "$TMP/run" -- sh -c "ulimit -n 1024; '$DT' fds; echo worker-status=\$?"
  echo "$output" | grep -E '^ *[0-9.]+ child|worker-status|how it ended' >&3 || true
  [ "$status" -eq 0 ]
  # the launcher saw the worker start and said where it is watched
  [[ "$output" == *"worker-status=134"* ]]
  local line dir
  line=$(grep -E '^ *[0-9.]+ child [0-9]+ \([^)]*\) watched -> ' <<<"$output" | head -n 1)
  [ -n "$line" ]
  dir=${line##* -> }
  [ -d "$dir" ]
  [[ "$dir" == "$TMP/run/children/"* ]]
  # the worker's own run: its failing open, its fds by the call that made them, its death
  jq -e '.groups[0] | .syscall == "openat" and .errno == "EMFILE" and .called_by == "leak_fds (death_target)"' "$dir/failures.json"
  jq -e '[.groups[].stacks[] | select(.created_by == "leak_fds (death_target)") | .count] | add >= 900' "$dir/fds.json"
  jq -e '.cause == "self-signal" and .signal_name == "SIGABRT"' "$dir/death.json"
  [ -f "$dir/report.html" ]
  # and the launcher's terminal said how the worker's run went
  grep -qE "^ *[0-9.]+ child [0-9]+ \([^)]*\): .*SIGABRT.*1 crossing\(s\), 1 failing call\(s\) -> $dir$" <<<"$output"
  # the launcher's report links the worker's
  grep -q "<a href=\"children/${dir##*/}/report.html\">${dir##*/}</a>: killed by SIGABRT that it sent itself (abort()); 1 crossing, 1 failing call</li>" "$TMP/run/report.html"
  # the launcher's own run: no failure of its own
  jq -e '.count == 0' "$TMP/run/failures.json"
}

@test "run -- a launcher whose worker lives a while: the worker has its own row in the table, by its name after its exec" {
  run timeout 60 "$OOMSCOPE" run -o "$TMP/run" -- sh -c "'$TARGETS/fd_target' -n 100 -t 4 > '$TMP/worker.out'; true"
  [ "$status" -eq 0 ]
  grep -E '^ +\+[0-9]+ ' <<<"$output" | head -n 3 >&3
  # a row: +PID, its RSS, VmSize, threads, fds (250 and its inherited ones) and its name now
  grep -qE '^ +\+[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+/[0-9]+ +2[5-9][0-9]/[0-9]+ +[0-9]+ +fd_target$' <<<"$output"
}

@test "run --no-children: the worker is not followed" {
  run timeout 60 "$OOMSCOPE" run --no-children -o "$TMP/run" -- sh -c "ulimit -n 1024; '$DT' fds; true"
  [ "$status" -eq 0 ]
  ! grep -qE '^ *[0-9.]+ child ' <<<"$output"
  [ ! -d "$TMP/run/children" ]
}
