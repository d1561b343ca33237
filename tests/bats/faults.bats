#!/usr/bin/env bats
# Faults survived and nothing lost without saying so: a full disk, a killed
# collector, two collectors on one process.
load helpers

# the helpers' teardown, after unmounting what a test mounted
eval "helpers_$(declare -f teardown)"
teardown() {
  if [ -n "${MOUNTED:-}" ]; then umount "$MOUNTED" 2> /dev/null || umount -l "$MOUNTED" 2> /dev/null || true; fi
  helpers_teardown
}

@test "disk full (a 16 KiB tmpfs as the run directory): one line per file that could not be written, never half a record or a temp file, the watch goes on" {
  mkdir "$TMP/full"
  mount -t tmpfs -o size=16k tmpfs "$TMP/full"
  MOUNTED="$TMP/full"
  run timeout 60 "$OOMSCOPE" run -i 0.05 -d 3 -o "$TMP/full/run" -- "$TARGETS/fd_target" -n 200
  # the target ran its course and the watch its 3 s
  [ "$status" -eq 0 ]
  [[ "$output" == *"opened eventfd=200"* ]]
  [[ "$output" == *"stopped (duration) after 3."* ]]
  # the timeline's loss is said once, in one line, and counted at the end
  [ "$(grep -c 'oomscope: timeline: No space left on device: records from [0-9.]* s on are not written' <<<"$output")" -eq 1 ]
  [[ "$output" =~ "the timeline lacks "[0-9]+" record(s) that could not be written" ]]
  # every line of what was written is a whole record
  [ -s "$TMP/full/run/timeline.jsonl" ]
  jq -e . "$TMP/full/run/timeline.jsonl" > /dev/null
  [ "$(head -n1 "$TMP/full/run/timeline.jsonl" | jq -r .type)" = start ]
  # each snapshot file and the report: a line naming it, and no partial or temp file left
  grep -q "oomscope: cannot write $TMP/full/run/fds.json: No space left on device" <<<"$output" ||
    [ -s "$TMP/full/run/fds.json" ]
  grep -q "oomscope: report: writing $TMP/full/run/report.html: No space left on device" <<<"$output"
  [ ! -e "$TMP/full/run/report.html" ]
  [ -z "$(find "$TMP/full/run" -name '*.tmp*' -o -name '.*' -type f)" ]
  local f; for f in $(find "$TMP/full/run" -name '*.json'); do jq -e . "$f" > /dev/null; done
}

# the ids of the BPF programs and links process PID holds (its fds' fdinfo):
# its own, whatever else runs on the machine
held_ids() { # PID prog|link
  grep -h "^$2_id:" /proc/"$1"/fdinfo/* 2> /dev/null | awk '{print $2}' | sort -u
}

@test "the collector SIGKILLed mid-watch: no BPF program, link or uprobe is left, the target goes on" {
  start_bg target "$TARGETS/fd_target" -w -n 40 -t 600
  wait_for "$TMP/target.out" '^waiting pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  start_bg watch "$OOMSCOPE" watch -p "$tpid" --json -i 0.5 -d 60 -o "$TMP/run"
  wait_for "$TMP/watch.out" '"type":"sample"' 20
  local wpid progs links id; wpid=$(cat "$TMP/watch.pid")
  progs=$(held_ids "$wpid" prog)
  links=$(held_ids "$wpid" link)
  echo "programs: $progs; links: $links"
  [ "$(wc -w <<<"$progs")" -ge 3 ]
  kill -KILL "$wpid"
  wait_exit "$wpid" 10 || true
  # the kernel frees them with the collector's fds (after an RCU grace period)
  local i left; for i in $(seq 1 50); do
    left=0
    for id in $progs; do bpftool prog show id "$id" > /dev/null 2>&1 && left=$((left + 1)); done
    for id in $links; do bpftool link show id "$id" > /dev/null 2>&1 && left=$((left + 1)); done
    [ "$left" -eq 0 ] && break
    sleep 0.1
  done
  echo "left: $left"
  [ "$left" -eq 0 ]
  # nor a probe of its making in tracefs (libbpf's legacy uprobes, the kretprobe hook's: named by its PID)
  local tr; tr=$(tracefs_dir)
  ! grep -qE "libbpf_${wpid}_|oomscope/p${wpid}_" "$tr/uprobe_events" "$tr/kprobe_events"
  # the target still runs, and still works
  kill -0 "$tpid"
  kill -USR1 "$tpid"
  wait_for "$TMP/target.out" '^ready pid=' 10
}

@test "two collectors on one process: each keeps its own exact counts and stacks, and the first to stop does not disturb the other" {
  start_bg target "$TARGETS/fd_target" -w -n 100 -t 600 # ended by teardown: it outlives the watches
  wait_for "$TMP/target.out" '^waiting pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  # each stops when told (SIGINT), not after a fixed time: under emulation the
  # second's attach can outlast a short first watch, which then ended in the
  # middle of the burst (its last fds opened after it detached, rightly without stacks)
  start_bg one "$OOMSCOPE" watch -p "$tpid" --json -i 0.5 -o "$TMP/one"
  start_bg two "$OOMSCOPE" watch -p "$tpid" --json -i 0.5 -o "$TMP/two"
  wait_for "$TMP/one.out" '"type":"sample"' 20
  wait_for "$TMP/two.out" '"type":"sample"' 20
  kill -USR1 "$tpid"
  wait_for "$TMP/target.out" '^ready pid=' 10
  kill -INT "$(cat "$TMP/one.pid")"
  wait_exit "$(cat "$TMP/one.pid")" 30
  # the second goes on sampling after the first stopped
  local n i; n=$(grep -c '"type":"sample"' "$TMP/two.out")
  for i in $(seq 1 100); do [ "$(grep -c '"type":"sample"' "$TMP/two.out")" -ge $((n + 2)) ] && break; sleep 0.1; done
  [ "$(grep -c '"type":"sample"' "$TMP/two.out")" -ge $((n + 2)) ]
  kill -INT "$(cat "$TMP/two.pid")"
  wait_exit "$(cat "$TMP/two.pid")" 30
  local d s
  for d in one two; do
    # shown when a check below fails: the end record, the eventfds' stacks
    echo "$d: $(tail -n1 "$TMP/$d/timeline.jsonl" | jq -c '{reason, ringbuf_drops, events_sent, events_received, skipped_runs}')"
    echo "$d: $(head -n1 "$TMP/$d/timeline.jsonl" | jq -c .syscall_hook)" \
      "$(jq -c '[.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[] | {count, unknown, created_by, symbols: [.frames[]?.symbol]}]' "$TMP/$d/fds.json")"
    jq -e '.type == "end" and .ringbuf_drops == 0 and .events_sent == .events_received' < <(tail -n1 "$TMP/$d/timeline.jsonl")
    s=$(last_sample "$TMP/$d/timeline.jsonl")
    [ "$(jq .fds <<<"$s")" -eq "$(jq .fds_bpf <<<"$s")" ]
    [ "$(jq .fds <<<"$s")" -eq "$(ls /proc/$tpid/fd | wc -l)" ]
    [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$TMP/$d/fds.json")" -eq 100 ]
    group_symbols "$TMP/$d/fds.json" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs
  done
  kill -0 "$tpid"
}

@test "the target forks a child and then execs another program mid-watch: the child's fds are not the target's, the new program's are, with its own stacks" {
  # the shell (the target) starts fd_target -n 30 as a child (75 fds of its
  # own), then becomes fd_target -n 50 by exec (125 fds, from
  # open_looper_pairs in the new image)
  # the exec waits for the watch to have attached (the file go), and the watch
  # is stopped once the new program is ready: no step depends on the time it takes
  start_bg target sh -c "\"$TARGETS/fd_target\" -n 30 -t 60 > \"$TMP/child.out\" &
    while [ ! -e \"$TMP/go\" ]; do sleep 0.05; done; exec \"$TARGETS/fd_target\" -n 50 -t 60"
  local tpid; tpid=$(cat "$TMP/target.pid")
  wait_for "$TMP/child.out" '^ready pid=' 30
  start_bg watch "$OOMSCOPE" watch -p "$tpid" --json -i 0.5 -o "$TMP/run"
  wait_for "$TMP/run/timeline.jsonl" '"type":"sample"' 120
  touch "$TMP/go"
  wait_for "$TMP/target.out" '^ready pid=' 60
  kill -INT "$(cat "$TMP/watch.pid")"
  wait_exit "$(cat "$TMP/watch.pid")" 60
  local s; s=$(last_sample "$TMP/run/timeline.jsonl")
  [ "$(jq .fds <<<"$s")" -eq "$(jq .fds_bpf <<<"$s")" ]
  [ "$(jq .fds <<<"$s")" -eq "$(ls /proc/$tpid/fd | wc -l)" ]
  [ "$(jq .threads <<<"$s")" -eq 1 ]
  local f="$TMP/run/fds.json"
  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$f")" -eq 50 ]
  [ "$(jq -r '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].created_by' "$f")" = "open_looper_pairs (fd_target)" ]
  jq -e '.type == "end" and .ringbuf_drops == 0 and .events_sent == .events_received' < <(tail -n1 "$TMP/run/timeline.jsonl")
  # the child made its own fds, which were not counted
  grep -q '^opened eventfd=30' "$TMP/child.out"
  local child; child=$(sed -n 's/^ready pid=//p' "$TMP/child.out")
  kill "$child" 2> /dev/null || true
}

@test "tracefs shared by two oomscopes: the first mounts it, the first to end leaves it to the other, the last unmounts it; one mounted by someone else is never unmounted" {
  start_bg target "$TARGETS/fd_target" -w -n 10 -t 600
  wait_for "$TMP/target.out" '^waiting pid='
  local tpid; tpid=$(cat "$TMP/target.pid")
  # in a mount namespace of its own, where tracefs can be unmounted without touching the machine's
  cat > "$TMP/ns.sh" << 'EOS'
set -e
o=$1 t=$2 tp=$3
umount /sys/kernel/tracing 2> /dev/null || true
# debugfs's own tracefs too (an earlier test, or the machine, may have mounted debugfs): none left to find
umount /sys/kernel/debug/tracing 2> /dev/null || true
umount -l /sys/kernel/debug 2> /dev/null || true
! grep -qE ' /sys/kernel/(debug/)?tracing tracefs' /proc/mounts
mounted() { grep -q ' /sys/kernel/tracing tracefs' /proc/mounts; }
# started at once (both may try to mount it: the second finds it there), stopped one by one
"$o" watch -p "$tp" -i 0.5 -o "$t/one" > "$t/one.out" 2>&1 & one=$!
"$o" watch -p "$tp" -i 0.5 -o "$t/two" > "$t/two.out" 2>&1 & two=$!
for i in $(seq 1 300); do grep -q '"type":"sample"' "$t/one/timeline.jsonl" "$t/two/timeline.jsonl" 2> /dev/null &&
  [ "$(grep -l '"type":"sample"' "$t/one/timeline.jsonl" "$t/two/timeline.jsonl" | wc -l)" -eq 2 ] && break; sleep 0.1; done
grep '/sys/kernel/tracing tracefs' /proc/mounts | cut -d' ' -f1 > "$t/source"
kill -INT "$one"; wait "$one" || true
mounted && echo "after the first: mounted" || echo "after the first: unmounted"
kill -USR1 "$tp"
sleep 1
kill -INT "$two"; wait "$two" || true
mounted && echo "after the second: mounted" || echo "after the second: unmounted"
# one mounted by someone else (the administrator's): used, never unmounted
mount -t tracefs tracefs /sys/kernel/tracing
"$o" watch -p "$tp" -i 0.5 -d 2 -o "$t/three" > "$t/three.out" 2>&1 || true
mounted && echo "theirs after a watch: mounted" || echo "theirs after a watch: unmounted"
umount /sys/kernel/tracing
EOS
  run timeout 120 unshare --mount --propagation private bash "$TMP/ns.sh" "$OOMSCOPE" "$TMP" "$tpid"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(cat "$TMP/source")" = oomscope-tracefs ]
  grep -qx 'after the first: mounted' <<<"$output"
  grep -qx 'after the second: unmounted' <<<"$output"
  grep -qx 'theirs after a watch: mounted' <<<"$output"
  # the second kept watching after the first ended: the fds opened then are named
  jq -e '[.groups[] | select(.kind == "anon_inode:[eventfd]") | .stacks[].created_by] | index("open_looper_pairs (fd_target)") != null' "$TMP/two/fds.json" ||
    { jq -c '[.groups[] | {kind, count, s: [.stacks[] | .created_by]}]' "$TMP/two/fds.json" >&3; false; }
}
