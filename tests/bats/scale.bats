#!/usr/bin/env bats
# Scale: a target with 30,000 threads and up to 500,000 open fds. The counts
# are exact (the kernel side's sets, /proc, and the groups by creation stack
# all agree), nothing is dropped, and the collector's own CPU time and peak
# RSS stay under stated bounds.
#
# 500,000 fds need a hard RLIMIT_NOFILE above 500,000, which only a process
# with CAP_SYS_RESOURCE can raise. Where it cannot (this VM's containers: a
# hard limit of 20,000 and no CAP_SYS_RESOURCE), the target opens as many as
# the hard limit allows, and the test says so on its output. The arm64 VM
# (make test-arm64) can: there it opens all 500,000.
load helpers

# Under emulation (test-arm64.sh sets OOMS_EMULATED to how many times slower
# qemu's TCG runs than this machine: about 10) 30,000 threads take minutes to
# make: the thread count is divided by it and the times stretched. The fds
# stay as many as the hard limit allows. The bounds on oomscope's cost are
# those measured there, with room: in the arm64 VM, 3,000 threads and
# 500,000 fds cost the collector 50-54 s of CPU (run) and 42-46 s (watch),
# peak RSS 320 MB, and the attach 23-27 s.
EMUL=${OOMS_EMULATED:-1}
NTHREADS=$((30000 / EMUL))
SLOW=$((EMUL > 1 ? 3 : 1))            # times stretched by
# oomscope's CPU seconds are checked against the run's wall time on every
# CPU (a figure in seconds, not a count gone wrong): how small they are is
# make bench's to say (in the VM a loaded host stretched them 4x)
ATTACH_S=$((EMUL > 1 ? 250 : 60))       # a hang guard on the attach, not a bound
WANT_FDS=500000

# sysctl NAME MIN: raises NAME to at least MIN, remembering the old value
raise_sysctl() {
  local old; old=$(sysctl -n "$1")
  if [ "$old" -lt "$2" ]; then
    echo "$1=$old" >> "$BATS_FILE_TMPDIR/sysctl.saved"
    sysctl -qw "$1=$2"
  fi
}

setup_file() {
  : > "$BATS_FILE_TMPDIR/sysctl.saved"
  raise_sysctl fs.nr_open 600064
  raise_sysctl fs.file-max 2000000
  raise_sysctl kernel.threads-max 100000
  raise_sysctl kernel.pid_max 131072
  # each thread: its stack and its guard page, two mappings
  raise_sysctl vm.max_map_count 262144
}

teardown_file() {
  local kv
  while read -r kv; do
    [ -n "$kv" ] && sysctl -qw "$kv"
  done < "$BATS_FILE_TMPDIR/sysctl.saved"
}

# NOFILE (the hard and soft limit the target gets), NFDS (fds it opens)
pick_fds() {
  if prlimit --nofile=600000:600000 true 2>/dev/null; then
    NOFILE=600000 NFDS=$WANT_FDS
  else
    NOFILE=$(ulimit -Hn)
    NFDS=$(( (NOFILE - 200) / 4 * 4 ))
    echo "# hard RLIMIT_NOFILE cannot be raised here (no CAP_SYS_RESOURCE): $NFDS fds, not $WANT_FDS" >&3
  fi
}

# what scale_target -n NFDS makes: dups, eventfds, pipe fds (see the target)
fd_groups() {
  [ "$EMUL" -eq 1 ] || echo "# emulated (OOMS_EMULATED=$EMUL): $NTHREADS threads, not 30,000; $NFDS fds" >&3
  DUPS=$((NFDS / 2)) EVS=$((NFDS / 4))
  PIPES=$(( (NFDS - NFDS / 2 - NFDS / 4) / 2 * 2 ))
  MADE=$((DUPS + EVS + PIPES))
  WORKERS=$((NTHREADS - NTHREADS / 10)) IO=$((NTHREADS / 10))
}

# sum of the stacks' counts with created_by C in group KEY=VALUE of a threads/fds json
stack_count() { # FILE KEYFIELD VALUE CREATED_BY
  jq --arg v "$3" --arg c "$4" "[.groups[] | select(.$2 == \$v) | .stacks[] | select(.created_by == \$c) | .count] | add // 0" "$1"
}

# every group's count is the sum of its stacks', and the groups add up to the total
groups_reconcile() { # FILE TOTALFIELD
  jq -e '[.groups[] | select(.count != ([.stacks[].count] | add))] | length == 0' "$1" > /dev/null
  [ "$(jq '[.groups[].count] | add' "$1")" -eq "$(jq ".$2" "$1")" ]
}

# the end record: nothing lost, and oomscope's own cost under the bounds
no_drops_and_cost() { # RUNDIR MAX_CPU_S MAX_RSS_KB
  local end; end=$(tail -n1 "$1/timeline.jsonl")
  echo "# $(jq -c '{events_sent, ringbuf_drops, set_full_drops, collector_cpu_s, collector_peak_rss_kb}' <<<"$end")" \
       "threads.json $(stat -c %s "$1/threads.json") B, fds.json $(stat -c %s "$1/fds.json") B" >&3
  [ "$(jq -r .type <<<"$end")" = end ]
  [ "$(jq .ringbuf_drops <<<"$end")" -eq 0 ]
  [ "$(jq .set_full_drops <<<"$end")" -eq 0 ]
  [ "$(jq .events_sent <<<"$end")" -eq "$(jq .events_received <<<"$end")" ]
  grep '"type":"sample"' "$1/timeline.jsonl" | jq -se 'map(select(.ringbuf_drops != 0 or .set_full_drops != 0)) | length == 0' > /dev/null
  ! grep -q '"type":"drift"' "$1/timeline.jsonl"
  jq -e --argjson cpu "$2" --argjson rss "$3" \
    '.collector_cpu_s > 0 and .collector_cpu_s < $cpu and .collector_peak_rss_kb > 0 and .collector_peak_rss_kb < $rss' <<<"$end" > /dev/null
}

@test "run: 30,000 threads and the fds, every creation seen: exact counts, exact groups by call site, no drops, bounded cost" {
  pick_fds
  fd_groups
  # the target takes ~5 s to make everything under the probes (30,000
  # clones with the pthread_create uprobe, NFDS opens with their stacks);
  # the run is stopped once it says it is ready, however long that took
  # (timeout --foreground: the SIGINT goes to oomscope alone; without it
  # timeout sends it to its whole process group, the target too, which
  # then dies while the last sample is taken)
  local t_run=$SECONDS
  start_bg run timeout --foreground $((300 * SLOW)) prlimit --nofile="$NOFILE:$NOFILE" -- "$OOMSCOPE" run --json -o "$TMP/run" -- \
    "$TARGETS/scale_target" -n "$NFDS" -m "$NTHREADS" -t $((300 * SLOW))
  wait_for "$TMP/run.out" '^ready pid=' $((240 * SLOW))
  kill -INT "$(cat "$TMP/run.pid")"
  status=0
  wait_exit "$(cat "$TMP/run.pid")" $((60 * SLOW)) || status=$?
  output=$(cat "$TMP/run.out")
  [ "$status" -eq 0 ] || { echo "# oomscope run exited $status: $(grep -v '^{' "$TMP/run.out" | tail -5)" >&3; false; }
  local d="$TMP/run" s inherited
  [[ "$output" == *"ready pid="*" dups=$DUPS eventfds=$EVS pipefds=$PIPES workers=$WORKERS io=$IO"* ]]
  s=$(last_sample "$d/timeline.jsonl")
  # threads: the main thread and every one it made
  [ "$(jq .threads <<<"$s")" -eq $((NTHREADS + 1)) ] ||
    { grep -E '"type":"(sample|end)"' "$d/timeline.jsonl" | tail -n 3 | jq -c '{type, t, threads, threads_bpf, fds, reason}' >&3; false; }
  [ "$(jq .threads_bpf <<<"$s")" -eq $((NTHREADS + 1)) ]
  [ "$(jq .threads "$d/threads.json")" -eq $((NTHREADS + 1)) ]
  groups_reconcile "$d/threads.json" threads
  [ "$(jq '.groups[] | select(.name=="scale-worker") | .count' "$d/threads.json")" -eq "$WORKERS" ]
  [ "$(jq '.groups[] | select(.name=="scale-io") | .count' "$d/threads.json")" -eq "$IO" ]
  # one creation stack per group, all of it, through the named call site
  jq -c '.groups[] | .name as $n | .stacks[] | {name: $n, count, created_by, unknown,
         frames: [(.frames // [])[] | .symbol // .pc]}' "$d/threads.json" | head -n 8
  [ "$(jq '.groups[] | select(.name=="scale-worker") | .stacks | length' "$d/threads.json")" -eq 1 ]
  [ "$(jq '.groups[] | select(.name=="scale-io") | .stacks | length' "$d/threads.json")" -eq 1 ]
  [ "$(jq -r '.groups[] | select(.name=="scale-worker") | .stacks[0].start_routine.symbol' "$d/threads.json")" = worker_main ]
  [ "$(jq -r '.groups[] | select(.name=="scale-io") | .stacks[0].start_routine.symbol' "$d/threads.json")" = io_main ]
  group_symbols "$d/threads.json" name scale-worker | grep -qx start_workers
  group_symbols "$d/threads.json" name scale-io | grep -qx start_io_threads
  ! group_symbols "$d/threads.json" name scale-worker | grep -qx start_io_threads

  # fds: what it made, and what it inherited (existed at attach)
  inherited=$(jq '[.groups[].stacks[] | select(.unknown == "existed at attach") | .count] | add' "$d/fds.json")
  [ "$inherited" -ge 3 ] && [ "$inherited" -lt 64 ]
  [ "$(jq .fds <<<"$s")" -eq $((MADE + inherited)) ] && [ "$(jq .fds_bpf <<<"$s")" -eq $((MADE + inherited)) ] &&
    [ "$(jq .fds "$d/fds.json")" -eq $((MADE + inherited)) ] ||
    { echo "# made $MADE, inherited $inherited; fds.json $(jq .fds "$d/fds.json")" >&3
      grep -E '"type":"(sample|end|drift)"' "$d/timeline.jsonl" | tail -n 4 | jq -c '{type, t, fds, fds_bpf, threads, reason, events_sent, events_received, ringbuf_drops, skipped_runs, fds_without_event}' >&3
      jq -c '.groups[] | {kind, count, stacks: [.stacks[] | {count, created_by, unknown, syscall}]}' "$d/fds.json" >&3; false; }
  groups_reconcile "$d/fds.json" fds
  # every fd it made has its creation stack: only the inherited have none
  [ "$(jq '[.groups[].stacks[] | select(.unknown != null) | .count] | add' "$d/fds.json")" -eq "$inherited" ]
  [ "$(stack_count "$d/fds.json" kind /dev/null "open_null_dups (scale_target)")" -eq "$DUPS" ]
  [ "$(stack_count "$d/fds.json" kind "anon_inode:[eventfd]" "open_eventfds (scale_target)")" -eq "$EVS" ]
  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$d/fds.json")" -eq "$EVS" ]
  [ "$(stack_count "$d/fds.json" kind pipe "open_pipes (scale_target)")" -eq "$PIPES" ]
  # the dups: one stack for the open, one for the dup()s
  [ "$(jq '.groups[] | select(.kind=="/dev/null") | .stacks[] | select(.syscall=="dup") | .count' "$d/fds.json")" -eq $((DUPS - 1)) ]

  # measured (2 vCPUs, 30,000 threads + 19,800 fds, -d 15): ~3.2 s of CPU, peak RSS ~93 MB
  no_drops_and_cost "$d" $(( (SECONDS - t_run + 1) * $(nproc) )) 400000
}

@test "watch: attached to a target already holding 30,000 threads and the fds: seeded from /proc, exact, bounded" {
  pick_fds
  # emulated: 50,000 fds to seed from /proc (the run above makes its 500,000 under the
  # probes, into the same sets; the seeding is the same code as here, where 19,800
  # are read): the attach's reading of 500,000 took 2.5 minutes there, of 200,000
  # with their making 167 s of the lane's time
  [ "$EMUL" -eq 1 ] || [ "$NFDS" -le 50000 ] || NFDS=50000
  fd_groups
  # prlimit sets the limit and execs the target: the PID start_bg records is the target's
  start_bg target prlimit --nofile="$NOFILE:$NOFILE" -- "$TARGETS/scale_target" -n "$NFDS" -m "$NTHREADS" -t $((200 * SLOW))
  wait_for "$TMP/target.out" '^ready pid=' $((60 * SLOW))
  local tpid d="$TMP/run" s t0 t1 ntask nfd
  tpid=$(cat "$TMP/target.pid")
  grep -q "^ready pid=$tpid dups=$DUPS eventfds=$EVS pipefds=$PIPES workers=$WORKERS io=$IO" "$TMP/target.out"
  ntask=$(ls "/proc/$tpid/task" | wc -l) nfd=$(ls "/proc/$tpid/fd" | wc -l)
  [ "$ntask" -eq $((NTHREADS + 1)) ]
  t0=$(date +%s%N)
  local t_watch=$SECONDS
  start_bg watch timeout $((ATTACH_S + 30 * SLOW)) "$OOMSCOPE" watch -p "$tpid" --json -d $((6 * SLOW)) -o "$d"
  wait_for "$TMP/watch.out" '"type":"start"' "$ATTACH_S"
  t1=$(date +%s%N)
  wait_exit "$(cat "$TMP/watch.pid")" $((60 * SLOW))
  # attaching (load, seed the sets from /proc, the pthread_create probe):
  # measured ~1.9 s here, 23-81 s in the arm64 VM; said, not bounded
  echo "# attach to the start record: $(( (t1 - t0) / 1000000 )) ms" >&3
  s=$(last_sample "$d/timeline.jsonl")
  # every figure agrees with /proc, which has not changed
  [ "$(jq .threads <<<"$s")" -eq "$ntask" ] && [ "$(jq .threads_bpf <<<"$s")" -eq "$ntask" ]
  [ "$(jq .fds <<<"$s")" -eq "$nfd" ] && [ "$(jq .fds_bpf <<<"$s")" -eq "$nfd" ]
  [ "$(ls "/proc/$tpid/task" | wc -l)" -eq "$ntask" ] && [ "$(ls "/proc/$tpid/fd" | wc -l)" -eq "$nfd" ]
  [ "$(jq .threads "$d/threads.json")" -eq "$ntask" ]
  [ "$(jq .fds "$d/fds.json")" -eq "$nfd" ]
  groups_reconcile "$d/threads.json" threads
  groups_reconcile "$d/fds.json" fds
  [ "$(jq '.groups[] | select(.name=="scale-worker") | .count' "$d/threads.json")" -eq "$WORKERS" ]
  [ "$(jq '.groups[] | select(.name=="scale-io") | .count' "$d/threads.json")" -eq "$IO" ]
  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$d/fds.json")" -eq "$EVS" ]
  local nulls; nulls=$(jq '.groups[] | select(.kind=="/dev/null") | .count' "$d/fds.json")
  [ "$nulls" -ge "$DUPS" ] && [ "$nulls" -le $((DUPS + nfd - MADE)) ]
  # all made before the attach, and marked so
  [ "$(jq '[.groups[].stacks[] | select(.unknown == "existed at attach") | .count] | add' "$d/threads.json")" -eq "$ntask" ]
  [ "$(jq '[.groups[].stacks[] | select(.unknown == "existed at attach") | .count] | add' "$d/fds.json")" -eq "$nfd" ]
  # measured (30,000 threads + 19,800 fds, -d 6): ~3.4 s of CPU, peak RSS ~94 MB
  no_drops_and_cost "$d" $(( (SECONDS - t_watch + 1) * $(nproc) )) 400000
  # watch leaves the target running
  kill -0 "$tpid"
}
