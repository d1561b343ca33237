#!/usr/bin/env bats
# The watched resources as a table (detect/resource.c): every resource gets
# the count, ratio and trend rules; memfd/ashmem fds, added as a row, get
# theirs with no code of their own beyond their counting. The trends say
# when the limit will be reached, on a steady leak, before the ratio rule.
load helpers

# The run's crossings, one line each.
crossings() {
  grep '"type":"crossing"' "$1/timeline.jsonl"
}

@test "memfd/ashmem fds: counted each sample against RLIMIT_NOFILE, memfd_ratio at half of it, its fds snapshot, a chart" {
  start_bg m "$OOMSCOPE" run -o "$TMP/m" -- bash -c "ulimit -n 512; exec '$TARGETS/fd_target' -m -n 150 -r 50 -t 120"
  wait_for "$TMP/m.out" '^opened memfd=300 ' 60
  # a sample taken after the leak's end, then the run stopped as a user would
  local t0; t0=$(last_sample "$TMP/m/timeline.jsonl" | jq .t)
  for _ in $(seq 1 100); do
    [ "$(last_sample "$TMP/m/timeline.jsonl" | jq --argjson t "$t0" '.t > $t')" = true ] && break
    sleep 0.1
  done
  kill -INT "$(cat "$TMP/m.pid")"
  wait_exit "$(cat "$TMP/m.pid")" 60
  last_sample "$TMP/m/timeline.jsonl" | jq -e '.memfd == 300 and .memfd_limit == 512 and .fd_limit == 512 and .fds >= 375'
  # the rule, once (its figure then stayed over the line), with the snapshot of the fds it wrote
  crossings "$TMP/m" | jq -c 'select(.rule | startswith("memfd"))'
  local x; x=$(crossings "$TMP/m" | jq -c 'select(.rule == "memfd_ratio")' | head -n 1)
  jq -e '.limit == 256 and .value >= 256 and (.reason | test("^[0-9]+ memfd/ashmem fds >= 50% of RLIMIT_NOFILE 512$"))' <<<"$x"
  local f; f=$(jq -r .wrote <<<"$x")
  [[ "$f" == fds-*.json ]]
  group_symbols "$TMP/m/$f" kind memfd | grep -qx open_shared_memory
  # the settings say the row's rules; the report draws its chart
  grep '"type":"start"' "$TMP/m/timeline.jsonl" | jq -e '.settings.rules.memfd | .ratio == 0.5 and .trend_s == 60 and .count == 0'
  grep -q 'id="chart-memfd"' "$TMP/m/report.html"
  grep -q 'Shared memory fds (memfd, ashmem)' "$TMP/m/report.html"
  jq -e '[.traceEvents[] | select(.ph == "C" and .name == "memfd")] | length > 2' "$TMP/m/trace.json"
}

@test "fd_trend: a steady fd leak, 40 a second, said with its time to exhaustion of RLIMIT_NOFILE before any other rule" {
  run timeout 120 "$OOMSCOPE" run --json --stop-on-crossing -o "$TMP/f" -- \
    bash -c "ulimit -n 1024; exec '$TARGETS/fd_target' -n 400 -r 20 -t 120"
  [ "$status" -eq 0 ]
  crossings "$TMP/f"
  [ "$(crossings "$TMP/f" | wc -l)" -eq 1 ]
  crossings "$TMP/f" | jq -e '.rule == "fd_trend" and .limit == 1024 and .value >= 512 and .value < 973 and .wrote == "fds-1.json"
    and (.reason | test("^[0-9]+ open fds, rising [0-9.]+ a second: RLIMIT_NOFILE 1024 exhausted in [0-9]+ s \\(under 60 s\\)$"))'
  group_symbols "$TMP/f/fds-1.json" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs
}

@test "thread_trend: a steady thread leak against --thread-limit, said with its time to the limit" {
  run timeout 120 "$OOMSCOPE" run --json --stop-on-crossing --thread-limit 400 -o "$TMP/t" -- \
    "$TARGETS/thread_target" -m 300 -r 20 -t 120
  [ "$status" -eq 0 ]
  crossings "$TMP/t"
  [ "$(crossings "$TMP/t" | wc -l)" -eq 1 ]
  crossings "$TMP/t" | jq -e '.rule == "thread_trend" and .limit == 400 and .value >= 200 and .value < 360 and .wrote == "threads-1.json"
    and (.reason | test("^[0-9]+ threads, rising [0-9.]+ a second: the thread limit 400 \\(--thread-limit\\) exhausted in [0-9]+ s"))'
  group_symbols "$TMP/t/threads-1.json" name worker-pool | grep -qx start_worker_pool
}

@test "vmsize_trend: address space mapped at 640 MB a second under RLIMIT_AS, on a 64-bit target, said before it runs out" {
  run timeout 120 "$OOMSCOPE" run --json --stop-on-crossing -o "$TMP/v" -- \
    bash -c "ulimit -v 4194304; exec '$TARGETS/map_target' -k 50 -s 64 -u 0 -r 10 -t 120"
  [ "$status" -eq 0 ]
  crossings "$TMP/v"
  [ "$(crossings "$TMP/v" | wc -l)" -eq 1 ]
  crossings "$TMP/v" | jq -e '.rule == "vmsize_trend" and .limit == 4194304 and .value >= 2097152 and .value < 3774874
    and .wrote == "vmsize-1.json"
    and (.reason | test("^[0-9.]+ (MB|GB) of VmSize, rising [0-9.]+ (MB|GB)/s: RLIMIT_AS of 4.00 GB exhausted in [0-9]+ s"))'
  last_sample "$TMP/v/timeline.jsonl" | jq -e '.rlimit_as_kb == 4194304'
}

@test "--rule: any rule of any resource by its name; a trend turned off is quiet; a bad one is one line and exit 2" {
  run timeout 120 "$OOMSCOPE" run --json --stop-on-crossing --rule fd_trend=0 --rule memfd_count=100 --rule memfd_count_polls=1 \
    -o "$TMP/r" -- "$TARGETS/fd_target" -m -n 100 -r 20 -t 120
  [ "$status" -eq 0 ]
  crossings "$TMP/r" | jq -e '.rule == "memfd_count" and .limit == 100 and .value > 100'
  grep '"type":"start"' "$TMP/r/timeline.jsonl" | jq -e '.settings.rules.fds.trend_s == 0 and .settings.rules.memfd.count == 100'
  run "$OOMSCOPE" run --rule sockets_ratio=0.5 -- true
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"invalid --rule 'sockets_ratio=0.5'"* ]]
  run "$OOMSCOPE" run --rule fd_ratio=2 -- true
  [ "$status" -eq 2 ]
}
