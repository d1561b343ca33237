#!/usr/bin/env bats
# Nothing is lost silently: events the kernel could not deliver are counted and shown.
load helpers

@test "a ring buffer too small for the burst: every lost event is counted" {
  # fd_target -n 400 makes 920 fd events in a burst (800 eventfd/epoll, 40 files,
  # 40 socketpairs, 40 pipes); an 8 KiB ring holds about a dozen
  run_ready '^opened ' "$OOMSCOPE" run --json -d 100 --ringbuf-size 8K -o "$TMP/run" -- "$TARGETS/fd_target" -n 400
  [ "$status" -eq 0 ]
  local e; e=$(tail -n1 "$TMP/run/timeline.jsonl")
  [ "$(jq -r .type <<<"$e")" = end ]
  local drops sent received
  drops=$(jq .ringbuf_drops <<<"$e"); sent=$(jq .events_sent <<<"$e"); received=$(jq .events_received <<<"$e")
  [ "$drops" -gt 0 ]
  # every event sent was received, and sent + lost covers every fd the target made
  [ "$sent" -eq "$received" ]
  [ $((sent + drops)) -ge 920 ]
  # the counts stay exact: they do not depend on the ring buffer
  local s; s=$(last_sample "$TMP/run/timeline.jsonl")
  [ "$(jq .fds <<<"$s")" -eq "$(jq .fds_bpf <<<"$s")" ]
  # fds whose event was lost are said so, not hidden
  local unseen; unseen=$(jq '[.groups[].stacks[] | select(.unknown == "creation event not received") | .count] | add' "$TMP/run/fds.json")
  [ "$unseen" -gt 0 ]
  # ... and counted in the end record: the fds the end found without their event
  [ "$(jq .fds_without_event <<<"$e")" -eq "$unseen" ]
  # the drops are in the samples too
  [ "$(last_sample "$TMP/run/timeline.jsonl" | jq .ringbuf_drops)" -eq "$drops" ]
  # 8K, or a page where pages are larger (16 KiB kernels)
  local page; page=$(getconf PAGESIZE)
  [ "$(head -n1 "$TMP/run/timeline.jsonl" | jq .ringbuf_bytes)" -eq $((page > 8192 ? page : 8192)) ]
}

@test "the table shows the drops and the end line says how many were lost" {
  run timeout 60 "$OOMSCOPE" run --ringbuf-size 8K -o "$TMP/run" -- "$TARGETS/bench_loop" open 20000
  [ "$status" -eq 0 ]
  [[ "$output" == *"lost in the kernel"* ]]
  local drops; drops=$(tail -n1 "$TMP/run/timeline.jsonl" | jq .ringbuf_drops)
  [[ "$output" == *" $drops lost in the kernel"* ]]
}

@test "an event storm into a tiny ring buffer, the target attached before it: sent + lost is exactly the calls made, sent = received" {
  # fd_target -w waits for SIGUSR1, then makes exactly 2,300 fd-creating
  # calls (-n 1000: 1,000 eventfd + 1,000 epoll_create1 + 100 opens + 100
  # socketpairs + 100 pipes) and nothing else the collector follows
  # the target outlives the test (teardown ends it); the watch stops when
  # told, once the burst is done
  start_bg target "$TARGETS/fd_target" -w -n 1000 -t 600
  wait_for "$TMP/target.out" '^waiting pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  start_bg watch "$OOMSCOPE" watch -p "$tpid" --json -i 0.5 --ringbuf-size 8K -o "$TMP/run"
  wait_for "$TMP/watch.out" '"type":"sample"' 20
  kill -USR1 "$tpid"
  wait_for "$TMP/target.out" '^ready pid=' 10
  kill -INT "$(cat "$TMP/watch.pid")"
  wait_exit "$(cat "$TMP/watch.pid")" 30
  local e; e=$(tail -n1 "$TMP/run/timeline.jsonl")
  jq -e '.type == "end" and .ringbuf_drops > 0 and .events_sent == .events_received' <<<"$e"
  [ "$(jq '.events_sent + .ringbuf_drops' <<<"$e")" -eq 2300 ]
  # and the kernel skipped no run of the programs (it counts those apart: none here)
  [ "$(jq .skipped_runs <<<"$e")" = 0 ]
  # the sets stay exact whatever was lost
  local s; s=$(last_sample "$TMP/run/timeline.jsonl")
  [ "$(jq .fds <<<"$s")" -eq "$(jq .fds_bpf <<<"$s")" ]
  [ "$(jq .fds <<<"$s")" -eq "$(ls /proc/$tpid/fd | wc -l)" ]
}

@test "what the collector does not know is counted and said, never dropped silently: events of an unknown type or version, a snapshot of an unknown kind, a failure with an errno it does not name (OOMSCOPE_FAULT=unknown_input hands them over)" {
  OOMSCOPE_FAULT=unknown_input run timeout 60 "$OOMSCOPE" run -d 3 -o "$TMP/u" -- "$TARGETS/fd_target" -n 5 -t 5
  [ "$status" -eq 0 ] || { echo "$output" | tail -n 20 >&3; false; }
  # each said at once, in one line, and again at the end with its count
  grep -qx 'oomscope: the kernel side sent an event this collector does not know (type [0-9]*, version [0-9]*; it knows types 1 to [0-9]* of version [0-9]*): dropped, and counted to the end (is the BPF object of another build?)' <<<"$output"
  grep -qx "oomscope: a snapshot of a kind this collector has no writer for (6): $TMP/u/unknown-kind.json not written, and such snapshots counted to the end" <<<"$output"
  grep -qx 'oomscope: 2 event(s) of a type this collector does not know (the first: type [0-9]*) were dropped' <<<"$output"
  grep -qx 'oomscope: 1 snapshot(s) of a kind this collector has no writer for (the first: 6) were not written' <<<"$output"
  grep -qx "oomscope: 1 failed call(s) with an errno this collector does not name (the first: 28) are in failures.json as 'errno N'" <<<"$output"
  # nothing half-written for the unknown kind; the failure kept under its number
  [ ! -e "$TMP/u/unknown-kind.json" ]
  jq -e '[.groups[] | select(.syscall == "openat" and .errno == "errno 28")] | length == 1' "$TMP/u/failures.json"
  # the end record counts each, with the first of each
  tail -n 1 "$TMP/u/timeline.jsonl" | jq -e '.type == "end" and .unknown == {"events": 2, "event_type": .unknown.event_type,
    "syscall_classes": 0, "snapshot_kinds": 1, "snapshot_kind": 6, "errnos": 1, "errno": 28} and .unknown.event_type > 15'
  # and the run went on: the target's fds are there
  jq -e '.fds >= 5' "$TMP/u/fds.json"
}
