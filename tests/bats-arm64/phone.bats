#!/usr/bin/env bats
# A phone-like world (issue 31): a root with no libc and no /tmp, /proc
# mounted hidepid=2, oomscope's static build in /data/local/tmp, an app
# forked by a zygote-like parent, renamed to its package and run as an app
# uid, killed by a thread named lmkd_reaper0 through pidfd_send_signal. In the
# arm64 VM it runs on a kernel built with the GKI config's BPF options
# (scripts/gki-kernel.sh: no syscalls:sys_* events; OOMS_PHONE_KERNEL=gki
# says so); it runs as well on any kernel with the machine's own ABI.
load ../bats/helpers

PKG=com.example.leakyapp
PAD=0123456789abcdef0123456789abcdef
APP_UID=10123

# the helpers' setup (TMP, the processes to end), then the phone's
eval "helpers_$(declare -f setup)"
setup() {
  helpers_setup
  ABI=$(case "$(uname -m)" in aarch64) echo arm64-v8a ;; *) uname -m ;; esac)
  STATIC="$ROOT/build/android/$ABI/oomscope"
  [ -x "$STATIC" ] || { echo "# $STATIC missing (make android)" >&3; false; }
  # the namespace: a holder process whose mount namespace has the phone's root
  R="$TMP/phone"
  mkdir -p "$R"
  start_bg holder unshare --mount --propagation private sleep 600
  wait_for_ns
  nsenter -t "$HOLDER" -m -- sh -ec '
    r=$1
    mount -t tmpfs phone "$r"
    mkdir -p "$r/proc" "$r/sys" "$r/dev" "$r/data/local/tmp" "$r/system/bin"
    mount -t proc -o hidepid=2 proc "$r/proc"
    mount --rbind /sys "$r/sys"
    mount --rbind /dev "$r/dev"
    cp "$2" "$r/data/local/tmp/oomscope"
    cp "$3/zygote" "$3/lmkd" "$r/system/bin/"
    touch "$r/.made"' sh "$R" "$STATIC" "$BUILD_DIR/targets-static"
}

wait_for_ns() {
  HOLDER=$(cat "$TMP/holder.pid")
  local i
  for i in $(seq 1 100); do
    [ "$(readlink "/proc/$HOLDER/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] && return 0
    sleep 0.1
  done
  return 1
}

# in_phone NAME [VAR=VALUE...] CMD...: CMD in the phone's root, in the
# background, with no environment but PATH and the VARs (no TMPDIR, no HOME)
in_phone() {
  local name=$1 vars=(PATH=/system/bin:/data/local/tmp); shift
  while [[ "$1" == *=* ]]; do vars+=("$1"); shift; done
  start_bg "$name" nsenter -t "$HOLDER" -m -- env -i "${vars[@]}" "$(command -v chroot)" "$R" "$@"
}

# run_diag RUNDIR: what a failed check of the app's fds or threads needs (to fd 3): the hook, the
# samples' counts and the end's counters, and the last of what the watch printed
run_diag() {
  jq -c 'if .type == "start" then {syscall_hook, bpf_fallbacks}
         else {type, t, fds, fds_bpf, threads, threads_bpf, events, syscalls, events_sent, events_received,
               ringbuf_drops, skipped_runs, probe_misses, syscalls_without_regs} end' "$1/timeline.jsonl" |
    sed 's/^/# /' >&3 || true
  tail -n 12 "$TMP/w.out" | sed 's/^/# w: /' >&3
}

@test "phone-like root: the static build attaches to the app by its package, names its fd and thread leaks, and its death by lmkd" {
  # nothing of a distribution in it: no libc, no loader, no /tmp
  nsenter -t "$HOLDER" -m -- sh -ec '
    r=$1
    [ ! -e "$r/tmp" ] && [ ! -e "$r/lib" ] && [ ! -e "$r/usr" ] && [ ! -e "$r/etc" ] && [ ! -e "$r/bin" ]
    [ -z "$(find "$r/system" "$r/data" -name "*.so*")" ]
    grep -q " $r/proc proc .*hidepid=" /proc/mounts || grep -q " $r/proc proc .*hidepid=invisible" /proc/mounts' sh "$R"
  if [ "${OOMS_PHONE_KERNEL:-}" = gki ] || [ "${OOMS_PHONE_KERNEL:-}" = gki-5.10 ]; then
    # the kernel a phone has: no syscall events; BTF, kprobes and BPF all there
    [ ! -d /sys/kernel/tracing/events/syscalls ] && [ ! -d /sys/kernel/debug/tracing/events/syscalls ]
    zcat /proc/config.gz | grep -qx '# CONFIG_FTRACE_SYSCALLS is not set'
    zcat /proc/config.gz | grep -qx 'CONFIG_KPROBES=y'
    [ -s /sys/kernel/btf/vmlinux ]
    echo "# kernel: $(uname -r)" >&3
  fi
  if [[ "${OOMS_PHONE_KERNEL:-}" == *5.10 ]]; then
    # Android 12 and 13's kernel line: BTF, but not 5.11's and 5.15's helpers
    [[ "$(uname -r)" == 5.10.* ]] && [ -s /sys/kernel/btf/vmlinux ]
    echo "# kernel: $(uname -r)" >&3
  fi
  in_phone zygote APP_UID=$APP_UID /system/bin/zygote "$PKG" "$PAD"
  wait_for "$TMP/zygote.out" '^zygote pid=' 20
  in_phone w /data/local/tmp/oomscope watch --app "$PKG" -o /data/local/tmp/run
  wait_for "$TMP/w.out" 'waiting for the app to start' 120
  kill -USR1 "$(sed -n 's/^zygote pid=//p' "$TMP/zygote.out")"
  wait_for "$TMP/zygote.out" '^app pid=[0-9]+ done' 120
  local app; app=$(sed -n 's/^app pid=\([0-9]*\) done.*/\1/p' "$TMP/zygote.out")
  STARTED_PIDS+=("$app")
  grep -q "$PKG is PID $app (held from its start until attached)" "$TMP/w.out"
  # the hold, stopped at its name (the activity manager's process-start timeout: 10 s)
  local held; held=$(sed -n 's/^app pid=[0-9]* done.* held_ms=\([0-9]*\).*/\1/p' "$TMP/zygote.out")
  echo "# held from its name to its release: $held ms" >&3
  [ "$held" -ge 1 ]
  [ "$(stat -c %u "/proc/$app")" -eq "$APP_UID" ]
  wait_for "$TMP/w.out" 'TIME\(s\)' 60
  # lmkd's reaper kills it; oomscope sees it end and stops
  in_phone lmkd /system/bin/lmkd "$app"
  wait_exit "$(cat "$TMP/lmkd.pid")" 30
  grep -q "^lmkd killed $app" "$TMP/lmkd.out"
  wait_exit "$(cat "$TMP/w.pid")" 120
  # the phone's files, seen from here through the holder's namespace
  local d="/proc/$HOLDER/root$R/data/local/tmp/run"
  [ -s "$d/fds.json" ] || { tail -5 "$TMP/w.out" >&3; false; }
  jq -e '[.groups[] | .stacks[] | select(.created_by == "app_open_cache (zygote)") | .count] | add == 30' "$d/fds.json" || { jq -c '[.groups[].stacks[0].frames[]?.text]' "$d/fds.json" >&3; false; } ||
    { jq -c '[.groups[] | {kind, count, s: [.stacks[] | {count, created_by}]}]' "$d/fds.json" >&3; run_diag "$d"; false; }
  jq -e '[.groups[] | .stacks[] | select(.created_by == "app_start_workers (zygote)") | .count] | add == 4' "$d/threads.json" ||
    { jq -c '[.groups[] | {name, count, s: [.stacks[] | {count, created_by, f: [.frames[]?.text]}]}]' "$d/threads.json" >&3; run_diag "$d"; false; }
  jq -e '.cause == "lmkd" and .signal == 9 and .sender.comm == "lmkd_reaper0"' "$d/death.json" ||
    { jq -c '{cause, signal, sender, how}' "$d/death.json" >&3; false; }
  grep -q "how it ended: PID $app killed by SIGKILL from Android's low memory killer (lmkd" "$TMP/w.out"
  local start; start=$(head -n1 "$d/timeline.jsonl")
  jq -e --arg p "$PKG" '.type == "start" and .command == $p' <<<"$start"
  echo "# syscall hook: $(jq -r .syscall_hook <<<"$start")" >&3
  # on 5.10 what stood in for the newer helpers is said, and nothing was lost for it
  if [[ "${OOMS_PHONE_KERNEL:-}" == *5.10 ]]; then
    jq -e '.bpf_fallbacks | test("bpf_task_pt_regs \\(5.15\\): the user registers found")' <<<"$start" ||
      { jq -c .bpf_fallbacks <<<"$start" >&3; false; }
    jq -e '.syscalls_without_regs == 0' < <(tail -n1 "$d/timeline.jsonl")
  fi
  jq -e '.type == "end" and .ringbuf_drops == 0 and .events_sent == .events_received' < <(tail -n1 "$d/timeline.jsonl")
  # oomscope wrote nothing outside its run directory (no /tmp to write to)
  local stray; stray=$(nsenter -t "$HOLDER" -m -- find "$R" -xdev -newer "$R/.made" -type f ! -path "$R/data/local/tmp/run/*")
  [ -z "$stray" ] || { echo "# written outside the run directory: $stray" >&3; false; }
}
