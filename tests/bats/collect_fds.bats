#!/usr/bin/env bats
# File descriptors: exact counts, groups by kind, creation stacks naming the function.
load helpers

@test "run: fd_target's fds are counted, grouped and attributed to open_looper_pairs" {
  local t0=$SECONDS
  run_ready '^opened ' "$OOMSCOPE" run --json -d 100 -o "$TMP/run" -- "$TARGETS/fd_target" -n 100
  [ "$status" -eq 0 ]
  local cpu_bound=$(( (SECONDS - t0 + 1) * $(nproc) ))
  local d="$TMP/run"
  [ -s "$d/timeline.jsonl" ] && [ -s "$d/fds.json" ] && [ -s "$d/threads.json" ] && [ -s "$d/vmsize.json" ]
  # every line of the timeline is JSON, first is start, last is end
  jq -e . "$d/timeline.jsonl" > /dev/null
  [ "$(head -n1 "$d/timeline.jsonl" | jq -r .type)" = start ]
  [ "$(tail -n1 "$d/timeline.jsonl" | jq -r .type)" = end ]
  [ "$(tail -n1 "$d/timeline.jsonl" | jq -r .ringbuf_drops)" = 0 ]
  # the end record gives oomscope's own cost: CPU seconds (a figure in
  # seconds: more than none, less than the run's wall time on every CPU;
  # how small it is, make bench measures) and peak RSS (a collector with
  # its BPF maps, symbolizer and tables takes MBs, not GBs)
  tail -n1 "$d/timeline.jsonl" | jq -e --argjson b "$cpu_bound" '.collector_cpu_s > 0 and .collector_cpu_s < $b and
                                        .collector_peak_rss_kb > 1024 and .collector_peak_rss_kb < 1048576'
  "$OOMSCOPE" report "$d" > /dev/null
  grep -q "oomscope's own cost</th><td>[0-9.]* s of CPU (" "$d/report.html"

  # fd_target -n 100 creates 250: 100 eventfd + 100 epoll + 10 files + 10 socketpairs + 10 pipes;
  # it also has what it inherited (stdio, and whatever the test runner left open)
  local f="$d/fds.json" inherited
  inherited=$(jq '[.groups[].stacks[] | select(.unknown == "existed at attach") | .count] | add' "$f")
  [ "$inherited" -ge 3 ]
  local s; s=$(last_sample "$d/timeline.jsonl")
  [ "$(jq .fds <<<"$s")" -eq $((250 + inherited)) ]
  [ "$(jq .fds_bpf <<<"$s")" -eq $((250 + inherited)) ]
  [ "$(jq .fds "$f")" -eq $((250 + inherited)) ]

  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$f")" -eq 100 ]
  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventpoll]") | .count' "$f")" -eq 100 ]
  [ "$(jq '.groups[] | select(.kind=="socket") | .stacks[] | select(.created_by == "open_socket_pairs (fd_target)") | .count' "$f")" -eq 20 ]
  # their family and type, from the call that made them
  [ "$(jq '.groups[] | select(.kind=="socket") | .families[] | select(.family == "AF_UNIX SOCK_STREAM") | .count' "$f")" -eq 20 ]
  [ "$(jq '.groups[] | select(.kind=="pipe") | .stacks[] | select(.created_by == "open_pipes (fd_target)") | .count' "$f")" -eq 20 ]
  [ "$(jq '.groups[] | select(.kind=="file") | .paths[] | select(.path=="/etc/hostname") | .count' "$f")" -eq 10 ]

  # one creation stack per group, naming the function that made them
  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].count' "$f")" -eq 100 ]
  [ "$(jq -r '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].syscall' "$f")" = eventfd2 ]
  [ "$(jq -r '.groups[] | select(.kind=="anon_inode:[eventpoll]") | .stacks[0].syscall' "$f")" = epoll_create1 ]
  group_symbols "$f" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs
  group_symbols "$f" kind "anon_inode:[eventpoll]" | grep -qx open_looper_pairs
  group_symbols "$f" kind socket | grep -qx open_socket_pairs
  group_symbols "$f" kind pipe | grep -qx open_pipes
  group_symbols "$f" kind file | grep -qx open_data_files
  [ "$(jq -r '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].created_by' "$f")" = "open_looper_pairs (fd_target)" ]
  [ "$(jq -r '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].creator_thread' "$f")" = fd_target ]
  # the immediate caller comes right after the libc frame
  [ "$(jq -r '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].frames[1].symbol' "$f")" = open_looper_pairs ]
  # crash-log form: module 0xADDR 0xBASE + OFFSET symbol+off
  jq -r '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].frames[1].text' "$f" \
    | grep -qE '^fd_target 0x[0-9a-f]+ 0x[0-9a-f]+ \+ [0-9]+ open_looper_pairs\+[0-9]+$'
  # every fd the target made has a creation stack: only the inherited ones have none
  [ "$(jq '[.groups[].stacks[] | select(.unknown != null) | .count] | add' "$f")" -eq "$inherited" ]
}

# watch_burst NAME: fd_target -w -n 40 (100 fds when told) watched from
# before its burst into $TMP/NAME; the target outlives the test (teardown ends
# it) and the watch stops when told, once the target is done: no step depends
# on how long one takes. Its PID in $TMP/NAME.tpid.
watch_burst() {
  start_bg "$1-target" "$TARGETS/fd_target" -w -n 40 -t 600
  wait_for "$TMP/$1-target.out" '^waiting pid='
  local tpid; tpid=$(cat "$TMP/$1-target.pid")
  echo "$tpid" > "$TMP/$1.tpid"
  start_bg "$1-watch" "$OOMSCOPE" watch -p "$tpid" -i 0.5 -o "$TMP/$1"
  wait_for "$TMP/$1/timeline.jsonl" '"type":"sample"' 20
  kill -USR1 "$tpid"
  wait_for "$TMP/$1-target.out" '^ready pid=' 10
  kill -INT "$(cat "$TMP/$1-watch.pid")"
  wait_exit "$(cat "$TMP/$1-watch.pid")" 30
}

@test "watch: fds opened after attach are followed; earlier ones are marked" {
  watch_burst run
  # In the arm64 VM, about once in 50 attaches, the kernel runs no syscall
  # hook for the target's whole burst (docs/limits.md; cause not found): then
  # the kernel side sent nothing at all (events_sent 0: no loss in user space
  # can look so), and oomscope must say it, each of the 100 fds counted and
  # the end line naming them; the test then attaches once more for the rest
  local end; end=$(tail -n1 "$TMP/run/timeline.jsonl")
  if [ "$(jq .events_sent <<<"$end")" -eq 0 ]; then
    echo "# the kernel side sent no event for the burst: $(jq -c '{events_sent, fds_without_event}' <<<"$end")" >&3
    [ "$(jq .fds_without_event <<<"$end")" -eq 100 ]
    grep -q "^oomscope: 100 fd(s) made while watched came with no creation event" "$TMP/run-watch.out"
    watch_burst again
    rm -rf "$TMP/run" && mv "$TMP/again" "$TMP/run" && cp "$TMP/again.tpid" "$TMP/run.tpid"
  fi
  local tpid; tpid=$(cat "$TMP/run.tpid")
  local f="$TMP/run/fds.json"
  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$f")" -eq 40 ]
  # every fd made while watched came with its event, and its stack names the code that made it
  [ "$(tail -n1 "$TMP/run/timeline.jsonl" | jq .fds_without_event)" -eq 0 ] || { fds_diag "$TMP/run"; false; }
  group_symbols "$f" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs || { fds_diag "$TMP/run"; false; }
  local s; s=$(last_sample "$TMP/run/timeline.jsonl")
  [ "$(jq .fds <<<"$s")" -eq "$(jq .fds_bpf <<<"$s")" ]
  [ "$(jq .fds <<<"$s")" -eq "$(ls /proc/$tpid/fd | wc -l)" ]
  # watch leaves the target running
  kill -0 "$tpid"
}

# fd_target -n 100's fds (250) with what it inherited, from a run's files
# (when they are not, the figures, the groups and the end's counters are said to fd 3 (fds_diag):
# the run's directory names its hook)
fds_exact() { # RUNDIR
  local inherited s ev
  inherited=$(jq '[.groups[].stacks[] | select(.unknown == "existed at attach") | .count] | add' "$1/fds.json")
  s=$(last_sample "$1/timeline.jsonl")
  ev=$(jq -c '[.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[] | {count, syscall}]' "$1/fds.json")
  if [ "$(jq .fds <<<"$s")" -eq $((250 + inherited)) ] && [ "$(jq .fds_bpf <<<"$s")" -eq $((250 + inherited)) ] &&
    [ "$(jq '.[0].count' <<<"$ev")" -eq 100 ] && [ "$(jq -r '.[0].syscall' <<<"$ev")" = eventfd2 ]; then
    return 0
  fi
  echo "# ${1##*/}: 250 made + $inherited inherited; last sample at t=$(jq .t <<<"$s"): fds $(jq .fds <<<"$s"), fds_bpf $(jq .fds_bpf <<<"$s"); eventfd stacks $ev" >&3
  fds_diag "$1"
  return 1
}

@test "a 5.10 kernel's BPF (no bpf_get_current_task_btf, no bpf_task_pt_regs: OOMSCOPE_FAULT=bpf_5_10 takes those paths here): each hook gives the same exact counts and stacks; the start record says what stood in" {
  local h tr hooks=(raw) regs_size
  tr=$(tracefs_dir)
  [ -d "$tr/events/syscalls" ] && hooks+=(syscalls)
  [ -e "$tr/kprobe_events" ] && hooks+=(kprobe)
  regs_size=$(bpftool btf dump file /sys/kernel/btf/vmlinux | sed -n "s/.*STRUCT 'pt_regs' size=\([0-9]*\).*/\1/p" | head -n1)
  [ -n "$regs_size" ]
  for h in "${hooks[@]}"; do
    OOMSCOPE_FAULT=bpf_5_10 run_ready '^opened ' "$OOMSCOPE" run --json -v -d 100 --syscall-hook "$h" -o "$TMP/$h" -- "$TARGETS/fd_target" -n 100
    [ "$status" -eq 0 ] || { echo "# --syscall-hook $h: $output" >&3; false; }
    fds_exact "$TMP/$h"
    # the stacks through the registers found without bpf_task_pt_regs: the caller named
    group_symbols "$TMP/$h/fds.json" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs || { fds_diag "$TMP/$h"; false; }
    head -n1 "$TMP/$h/timeline.jsonl" | jq -e '.bpf_fallbacks | startswith("bpf_get_current_task_btf (5.11): bpf_get_current_task; bpf_task_pt_regs (5.15): the user registers found")'
    tail -n1 "$TMP/$h/timeline.jsonl" | jq -e '.syscalls_without_regs == 0'
    # where they were found: the kernel stack's top (THREAD_SIZE, a power of two of 8 KiB and more)
    # less the registers (x86_64 and arm64 alike)
    [[ "$output" =~ "a task's user registers are at its kernel stack + "([0-9]+) ]]
    local top=$((BASH_REMATCH[1] + regs_size))
    [ "$top" -ge 8192 ] && [ $((top & (top - 1))) -eq 0 ] || { echo "# offset ${BASH_REMATCH[1]} + $regs_size" >&3; false; }
  done
  # without the fault: what stands in is what this kernel lacks, as bpftool's own probe says
  run timeout 60 "$OOMSCOPE" run --json -d 1 -o "$TMP/new" -- "$TARGETS/fd_target" -n 10
  [ "$status" -eq 0 ]
  if bpftool feature probe kernel 2> /dev/null | grep -q 'bpf_task_pt_regs'; then
    head -n1 "$TMP/new/timeline.jsonl" | jq -e 'has("bpf_fallbacks") | not'
  else
    echo "# this kernel lacks bpf_task_pt_regs: $(uname -r)" >&3
    head -n1 "$TMP/new/timeline.jsonl" | jq -e '.bpf_fallbacks | test("bpf_task_pt_regs \\(5.15\\): the user registers found")'
  fi
}

# (OOMS_LEARN_RUNS: fewer in the arm64 VM, where each run's load of the BPF object takes ten times as long)
@test "the 5.10 path learns where the registers sit every time: 50 runs under two busy loops, not one syscall return lost" {
  local i out by_tp=0 by_kp=0 n=${OOMS_LEARN_RUNS:-50}
  start_bg busy1 sh -c 'while :; do :; done'
  start_bg busy2 sh -c 'while :; do :; done'
  for i in $(seq 1 "$n"); do
    out="$TMP/r$i"
    OOMSCOPE_FAULT=bpf_5_10 run_ready '^opened ' "$OOMSCOPE" run --json -v -d 100 -o "$out" -- "$TARGETS/fd_target" -n 5
    [ "$status" -eq 0 ] || { echo "# run $i: $output" >&3; false; }
    local learned; learned=$(grep -o "a task's user registers are at its kernel stack + .*" <<<"$output" | head -n1)
    tail -n1 "$out/timeline.jsonl" | jq -e '.syscalls_without_regs == 0' > /dev/null ||
      { echo "# run $i lost returns: $learned" >&3; tail -n1 "$out/timeline.jsonl" >&3; false; }
    head -n1 "$out/timeline.jsonl" | jq -e '.bpf_fallbacks | test("the user registers found")' > /dev/null ||
      { echo "# run $i: $(head -n1 "$out/timeline.jsonl" | jq -c .bpf_fallbacks) $learned" >&3; false; }
    [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$out/fds.json")" -eq 5 ] || { fds_diag "$out"; false; }
    case "$learned" in
      *"learned by the sys_exit tracepoint"*) by_tp=$((by_tp + 1)) ;;
      *"learned by a kprobe on getppid"*) by_kp=$((by_kp + 1)); echo "# run $i: by the kprobe: $learned" >&3 ;;
    esac
    rm -rf "$out"
  done
  echo "# $n runs: learned by the tracepoint $by_tp, by the kprobe $by_kp ($(uname -r))" >&3
  [ $((by_tp + by_kp)) -eq "$n" ]
}

@test "--syscall-hook: each hook this kernel allows gives the same exact counts and stacks; the start record names it" {
  local h tr hooks=(raw) want
  tr=$(tracefs_dir)
  # what this kernel has: syscall events (not on Android's GKI), kprobes (not here)
  [ -d "$tr/events/syscalls" ] && hooks+=(syscalls)
  [ -e "$tr/kprobe_events" ] && hooks+=(kprobe)
  for h in "${hooks[@]}"; do
    run_ready '^opened ' "$OOMSCOPE" run --json -d 100 --syscall-hook "$h" -o "$TMP/$h" -- "$TARGETS/fd_target" -n 100
    [ "$status" -eq 0 ] || { echo "# --syscall-hook $h: $output" >&3; false; }
    fds_exact "$TMP/$h"
  done
  [ "$(head -n1 "$TMP/raw/timeline.jsonl" | jq -r .syscall_hook)" = "raw_syscalls:sys_exit" ]
  [ ! -d "$TMP/syscalls" ] || [[ "$(head -n1 "$TMP/syscalls/timeline.jsonl" | jq -r .syscall_hook)" =~ ^"syscalls:sys_exit_* ("[0-9]+" events)"$ ]]
  if [ -d "$TMP/kprobe" ]; then
    [[ "$(head -n1 "$TMP/kprobe/timeline.jsonl" | jq -r .syscall_hook)" =~ ^"kretprobes on "[0-9]+" syscall handlers"$ ]]
    jq -e '.probe_misses == 0' < <(tail -n1 "$TMP/kprobe/timeline.jsonl")
    # its probes are gone with it
    ! grep -q oomscope "$tr/kprobe_events"
  fi
  # a hook this kernel lacks: one clear line
  if [ ! -d "$tr/events/syscalls" ]; then
    run timeout 60 "$OOMSCOPE" run --json -d 2 --syscall-hook syscalls -o "$TMP/nosc" -- "$TARGETS/fd_target" -n 100
    [ "$status" -ne 0 ] && [ "$(grep -c . <<<"$output")" -le 2 ]
  fi
  # auto takes the cheapest that loads: fexit, else the syscalls' own events, else kretprobes, else raw
  run_ready '^opened ' "$OOMSCOPE" run --json -d 100 -o "$TMP/auto" -- "$TARGETS/fd_target" -n 100
  [ "$status" -eq 0 ]
  fds_exact "$TMP/auto"
  local chosen; chosen=$(head -n1 "$TMP/auto/timeline.jsonl" | jq -r .syscall_hook)
  # fexit needs BPF trampolines; this machine's kernel refuses tracing
  # programs (EPERM), arm64's 6.1 cannot attach them: fexit is checked where
  # it loads (vm_kernel.bats, on Debian's x86_64 kernel) and must fail in one
  # clear line where not
  run_ready '^opened ' "$OOMSCOPE" run --json -d 100 --syscall-hook fexit -o "$TMP/fexit" -- "$TARGETS/fd_target" -n 100
  if [ "$status" -eq 0 ]; then
    fds_exact "$TMP/fexit"
    [[ "$(head -n1 "$TMP/fexit/timeline.jsonl" | jq -r .syscall_hook)" == "fexit on "* ]]
    [[ "$chosen" == "fexit on "* ]]
  else
    echo "# fexit not allowed here; auto chose: $chosen" >&3
    [[ "$output" == *"--syscall-hook fexit: this kernel refuses fexit programs"* ]]
    [ "$(grep -c . <<<"$output")" -eq 1 ]
    if [ -d "$tr/events/syscalls" ]; then want="syscalls:sys_exit_* ("
    elif [ -e "$tr/kprobe_events" ]; then want="kretprobes on "
    else want="raw_syscalls"; fi
    [[ "$chosen" == "$want"* ]]
  fi
  run "$OOMSCOPE" watch -p $$ --syscall-hook sometimes
  [ "$status" -eq 2 ] && [[ "$output" == *"--syscall-hook takes auto, fexit, syscalls, kprobe or raw, not 'sometimes'"* ]]
}
