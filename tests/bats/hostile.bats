#!/usr/bin/env bats
# A hostile world around the target: its PID reused by another process, its
# files swapped or garbled under oomscope, links planted at output paths.
load helpers

JAVA_DIR="$ROOT/tests/java"

# start_java NAME ARGS...: a JVM in the background, waited for until "ready"
start_java() {
  local name=$1; shift
  start_bg "$name" java "$@"
  wait_for "$TMP/$name.out" '^ready pid=' 120
}

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

# start_java_hidden NAME ARGS...: a JVM in a mount namespace of its own where
# the shim beside oomscope is hidden (a tmpfs over its directory), so
# --load-shim copies it into the JVM's /tmp; OOMSCOPE_SHIM names that copy
start_java_hidden() {
  local name=$1; shift
  mkdir -p "$TMP/shimdir"
  cp "$ROOT/build/liboomscope_shim.so" "$TMP/shimdir/"
  export OOMSCOPE_SHIM="$TMP/shimdir/liboomscope_shim.so"
  start_bg "$name" unshare -m --propagation private sh -c 'mount -t tmpfs none "$0" && exec java "$@"' "$TMP/shimdir" "$@"
  wait_for "$TMP/$name.out" '^ready pid=' 120
  [ ! -e "/proc/$(cat "$TMP/$name.pid")/root$OOMSCOPE_SHIM" ]
}

@test "the shim copied into the JVM's /tmp: the file it mapped is the one written (inode checked), the copy then removed" {
  start_java_hidden jvm -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  run timeout 120 bash -c 'echo $$ > "$0/oomscope.pid"; exec "$1" dump -p "$2" --load-shim -q --no-analyze -o "$0/s.hprof.gz"' \
    "$TMP" "$OOMSCOPE" "$pid"
  [ "$status" -eq 0 ]
  [[ "$output" == *"(shim-fork)"* ]]
  local name; name="oomscope-shim-$(cat "$TMP/oomscope.pid").so"
  # mapped from the copy, which is gone from /tmp
  grep -q "/tmp/$name (deleted)$" "/proc/$pid/maps"
  [ ! -e "/proc/$pid/root/tmp/$name" ]
  "$OOMSCOPE" hprof check "$TMP/s.hprof.gz" > /dev/null
}

@test "a file or symlink planted at the shim copy's name in the JVM's /tmp: O_EXCL refuses in one line, the planted file untouched, no shim loaded" {
  start_java_hidden jvm -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  echo precious > "$TMP/victim"
  local kind
  for kind in symlink file; do
    # the name is oomscope's PID: plant it under the PID the command will have
    run timeout 60 bash -c '
      planted="/proc/$2/root/tmp/oomscope-shim-$$.so"
      echo "$planted" > "$0/planted"
      if [ "$3" = symlink ]; then ln -s "$0/victim" "$planted"; else echo planted > "$planted"; fi
      exec "$1" dump -p "$2" --load-shim -q --no-analyze -o "$0/p.hprof.gz"' "$TMP" "$OOMSCOPE" "$pid" "$kind"
    local planted; planted=$(cat "$TMP/planted")
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "oomscope dump: cannot put the shim where PID $pid can load it: /tmp/oomscope-shim-"*".so: File exists (not made by this oomscope: refused, left as it is)" ]]
    if [ "$kind" = symlink ]; then
      [ -L "$planted" ] && [ "$(readlink "$planted")" = "$TMP/victim" ]
    else
      [ "$(cat "$planted")" = planted ]
    fi
    rm -f "$planted"
    [ "$(cat "$TMP/victim")" = precious ]
    [ ! -e "$TMP/p.hprof.gz" ]
  done
  # nothing was loaded: no shim mapped, no socket
  ! grep -q oomscope-shim "/proc/$pid/maps"
  ! grep -q " @oomscope-shim.$pid\$" /proc/net/unix
}

@test "a socket at the shim's abstract name served by another process: never taken for the shim" {
  start_java jvm -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  ! grep -q " @oomscope-shim.$pid\$" /proc/net/unix
  # an impostor of the JVM's network namespace: answers every request as a shim would ("ok ...")
  start_bg fake python3 -c '
import os, signal, socket, sys
name, pid = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
s = socket.socket(socket.AF_UNIX)
s.bind("\0" + name)
s.listen(4)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    try:
        c.recv(512)
        c.sendall(("ok oomscope-shim 2 runtime=hotspot pid=%s\n" % pid).encode())
    except OSError:
        pass
    c.close()
' "oomscope-shim.$pid" "$pid"
  wait_for "$TMP/fake.out" '^listening' 10
  # auto: the impostor is not the shim, so the JVM's own dumper writes the dump
  run timeout 120 "$OOMSCOPE" dump -p "$pid" -q --no-analyze -o "$TMP/d.hprof.gz"
  [ "$status" -eq 0 ]
  [[ "$output" == *"(jvm-fifo)"* ]]
  "$OOMSCOPE" hprof check "$TMP/d.hprof.gz" > /dev/null
  # the shim asked for by name: one line that says why not, no file
  run timeout 60 "$OOMSCOPE" dump -p "$pid" --method shim -q -o "$TMP/s.hprof.gz"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"the shim's socket name is served by another process, not PID $pid: not used"* ]]
  [ ! -e "$TMP/s.hprof.gz" ]
  kill "$(cat "$TMP/fake.pid")"
  wait_exit "$(cat "$TMP/fake.pid")" 10
}

@test "a symlink planted at the dump path or at analyze -o: refused in one line before anything is done, the file it names untouched" {
  start_java jvm -cp "$JAVA_CLASSES" PlantedLeaks
  local pid; pid=$(cat "$TMP/jvm.pid")
  echo precious > "$TMP/victim"
  ln -s "$TMP/victim" "$TMP/d.hprof.gz"
  run timeout 60 "$OOMSCOPE" dump -p "$pid" --load-shim -q -o "$TMP/d.hprof.gz"
  [ "$status" -eq 1 ]
  [ "$output" = "oomscope dump: $TMP/d.hprof.gz: a symbolic link: refused (name the file it points to, or remove it)" ]
  [ -L "$TMP/d.hprof.gz" ] && [ "$(cat "$TMP/victim")" = precious ]
  # the JVM was not touched: no shim loaded
  ! grep -q liboomscope_shim "/proc/$pid/maps"
  # a dangling link too (it would create the file it names)
  ln -s "$TMP/nowhere" "$TMP/dangling.hprof.gz"
  run timeout 60 "$OOMSCOPE" dump -p "$pid" --method jvm -q -o "$TMP/dangling.hprof.gz"
  [ "$status" -eq 1 ]
  [ ! -e "$TMP/nowhere" ]
  # a real dump, then analyze -o at a planted link
  run timeout 120 "$OOMSCOPE" dump -p "$pid" --method jvm -q --no-analyze -o "$TMP/real.hprof.gz"
  [ "$status" -eq 0 ]
  ln -s "$TMP/victim" "$TMP/a.json"
  run timeout 60 "$OOMSCOPE" analyze --json -o "$TMP/a.json" "$TMP/real.hprof.gz"
  [ "$status" -eq 1 ]
  [ "$output" = "oomscope analyze: $TMP/a.json: a symbolic link: refused (name the file it points to, or remove it)" ]
  [ -L "$TMP/a.json" ] && [ "$(cat "$TMP/victim")" = precious ]
  run timeout 60 "$OOMSCOPE" analyze --retained-tsv "$TMP/a.json" -o "$TMP/a.txt" "$TMP/real.hprof.gz"
  [ "$status" -eq 1 ]
  [ "$output" = "oomscope analyze: $TMP/a.json: a symbolic link: refused (name the file it points to, or remove it)" ]
  [ -L "$TMP/a.json" ] && [ "$(cat "$TMP/victim")" = precious ] && [ ! -e "$TMP/a.txt" ]
  # /dev/stdout, a link to a stream, stays usable
  run timeout 60 "$OOMSCOPE" analyze --json -o /dev/stdout "$TMP/real.hprof.gz"
  [ "$status" -eq 0 ]
  jq -e . <<<"$output" > /dev/null
}

# garble FILE HOW: rewrites FILE in place (the same inode, so what oomscope
# opened while it was mapped reads the new bytes): trunc (100 bytes left),
# ehdr (a valid ELF header with absurd offsets and counts), shdrs (every
# section header pointing far past the end), noise (random bytes after the
# ELF identification)
garble() {
  python3 - "$1" "$2" <<'PY'
import os, struct, sys
path, how = sys.argv[1], sys.argv[2]
with open(path, "r+b") as f:
    data = bytearray(f.read())
    if how == "trunc":
        f.truncate(100)
        sys.exit(0)
    if how == "ehdr":
        struct.pack_into("<QQ", data, 0x20, 0x7fffffffffff0000, 0xfffffffffffff000)
        struct.pack_into("<HHH", data, 0x3a, 64, 0xffff, 0xfffe)
    elif how == "shdrs":
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shnum, = struct.unpack_from("<H", data, 0x3c)
        for i in range(shnum):
            o = shoff + 64 * i
            struct.pack_into("<I", data, o, 0xffffffff)                # sh_name
            struct.pack_into("<QQI", data, o + 0x18, 0xffffffffffff0000 + i, 0x7fffffffffffffff, 0xffff)
    elif how == "noise":
        data[16:] = os.urandom(len(data) - 16)
    f.seek(0)
    f.write(data)
PY
}

@test "a library of the target garbled on disk while it is mapped (absurd header, absurd sections, cut short, noise): its frames stay unsymbolized, the run and symbolize finish" {
  mkdir "$TMP/lib" "$TMP/bin"
  # built by make (tests/targets/dlopen/): the file garbled is a copy
  cp "$TARGETS/dlopen/libevil.so" "$TARGETS/dlopen/dlopen_target" "$TMP/bin/"
  local how st g tpid
  # ehdr and shdrs leave the code as it was: garbled once the target has
  # mapped the library and before oomscope attaches (watch -p), so it can
  # only ever read the garbled file (a run, attached from the start, might
  # read the library's good bytes when it maps it, before the test garbles
  # it: once in CI, under load, its frames were named); trunc after the fds
  # are made (code cut short would fault), when the symbols may have been
  # read already
  for how in ehdr shdrs trunc; do
    cp "$TMP/bin/libevil.so" "$TMP/lib/libevil.so"
    start_bg "target-$how" "$TMP/bin/dlopen_target" "$TMP/lib/libevil.so" 30
    wait_for "$TMP/target-$how.out" '^loaded pid=' 20
    tpid=$(sed -n 's/^loaded pid=//p' "$TMP/target-$how.out")
    [ "$how" = trunc ] || garble "$TMP/lib/libevil.so" "$how"
    # ended by SIGINT once the fds are made, not at a duration a loaded
    # machine can reach first (-d: a hang guard)
    start_bg "run-$how" timeout --foreground 60 "$OOMSCOPE" watch -p "$tpid" -i 0.5 -d 50 -o "$TMP/run-$how"
    wait_for "$TMP/run-$how/timeline.jsonl" '"type":"start"' 30
    kill -USR1 "$tpid"
    wait_for "$TMP/target-$how.out" '^opened 30$' 10
    [ "$how" != trunc ] || garble "$TMP/lib/libevil.so" "$how"
    kill -INT "$(cat "$TMP/run-$how.pid")"
    st=0
    wait_exit "$(cat "$TMP/run-$how.pid")" 40 || st=$?
    [ "$st" -eq 0 ] || { echo "# $how: watch exit $st" >&3; sed 's/^/#   /' "$TMP/run-$how.out" >&3; false; }
    kill "$tpid"
    g=$(jq -c '.groups[] | select(.kind == "anon_inode:[eventfd]")' "$TMP/run-$how/fds.json")
    [ "$(jq .count <<<"$g")" -eq 30 ]
    # the program's and libc's frames still named (every stack has frames)
    jq -e '[.stacks[].frames[]?.symbol] | index("main") != null' <<<"$g" && jq -e 'all(.stacks[]; .frames != null)' <<<"$g" > /dev/null ||
      { echo "# $how: $(jq -c '[.stacks[] | {count, unknown, created_by, frames: [(.frames // [])[] | .symbol // .module]}]' <<<"$g")" >&3
        echo "# $(tail -n1 "$TMP/run-$how/timeline.jsonl" | jq -c '{events_sent, events_received, ringbuf_drops, skipped_runs, fds_without_event}')" >&3; false; }
    # the library's frame by module and offset, no name from the garbled file
    [ "$how" = trunc ] || jq -e '[.stacks[].frames[] | select(.module | endswith("/libevil.so"))] | length > 0 and all(.symbol == null and .offset > 0)' <<<"$g" ||
      { echo "# $how: $(jq -c '[.stacks[].frames[] | select(.module | endswith("/libevil.so"))]' <<<"$g")" >&3; false; }
  done
  # offline: each garbling of the file, found by name in the directory given
  for how in trunc noise ehdr shdrs; do
    rm -rf "$TMP/lib"; mkdir "$TMP/lib"
    cp "$TMP/bin/libevil.so" "$TMP/lib/libevil.so"
    garble "$TMP/lib/libevil.so" "$how"
    run timeout 60 "$OOMSCOPE" symbolize -o "$TMP/sym-$how.json" "$TMP/run-ehdr/fds.json" "$TMP/lib"
    [ "$status" -eq 0 ] || { echo "# $how: symbolize exit $status: $output" >&3; false; }
    jq -e '[.groups[] | select(.kind == "anon_inode:[eventfd]") | .stacks[].frames[] | select(.module | endswith("/libevil.so"))] | length > 0 and all(.symbol == null)' "$TMP/sym-$how.json"
  done
}

# the JVM's child processes (the shim's dump child), one per line
jvm_children() { cat /proc/"$1"/task/*/children 2> /dev/null | tr ' ' '\n' | grep -E '^[0-9]+$' || true; }

@test "the target SIGKILLed while the JVM's own dumper writes: one line, no file at the dump path, no temp file, no FIFO left in its /tmp, non-zero" {
  start_java jvm -Xmx1g -cp "$JAVA_CLASSES" BusyHeap --live-mb 400 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  start_bg d timeout 300 "$OOMSCOPE" dump -p "$pid" --method jvm -o "$TMP/j.hprof.gz" --no-analyze
  # killed once the JVM's dump is streaming (the stripped temp file grows)
  local i; for i in $(seq 1 600); do
    [ -n "$(find "$TMP" -maxdepth 1 -name 'j.hprof.gz.stripped.tmp.*' -size +1M)" ] && break
    sleep 0.05
  done
  [ -n "$(find "$TMP" -maxdepth 1 -name 'j.hprof.gz.stripped.tmp.*' -size +1M)" ]
  ls /tmp/oomscope-dump-*-"$pid".fifo
  kill -KILL "$pid"
  local st=0
  wait_exit "$(cat "$TMP/d.pid")" 60 || st=$?
  [ "$st" -eq 1 ]
  [ "$(cat "$TMP/d.out")" = "oomscope dump: the target exited during the dump; nothing was kept" ]
  [ -z "$(find "$TMP" -maxdepth 1 -name 'j.hprof*')" ]
  ! ls /tmp/oomscope-dump-*-"$pid".fifo 2> /dev/null
}

@test "the target SIGKILLed during a shim fork-dump: the child finishes its copy, the dump is whole and said so, no child or temp file left" {
  # hold: the dump child pauses mid-walk until $TMP/release exists
  OOMSCOPE_SHIM_FAULT="hold:$TMP/release" start_java jvm -Xmx1g -agentpath:"$ROOT/build/liboomscope_shim.so" \
    -cp "$JAVA_CLASSES" BusyHeap --live-mb 100 --threads 1
  local pid; pid=$(cat "$TMP/jvm.pid")
  start_bg d timeout 300 "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/s.hprof.gz" --no-analyze
  local child= i
  for i in $(seq 1 600); do
    child=$(jvm_children "$pid" | head -n 1)
    [ -n "$child" ] && break
    sleep 0.05
  done
  [ -n "$child" ]
  kill -KILL "$pid"
  touch "$TMP/release"
  local st=0
  wait_exit "$(cat "$TMP/d.pid")" 280 || st=$?
  [ "$st" -eq 0 ]
  grep -q "^dump      $TMP/s.hprof.gz (shim-fork): .* (the target has exited since)$" "$TMP/d.out"
  "$OOMSCOPE" hprof check "$TMP/s.hprof.gz" > /dev/null
  [ -z "$(find "$TMP" -maxdepth 1 -name 's.hprof.gz.*')" ]
  # the dump child ended with its dump (it is nobody's child now: gone, not a zombie)
  for i in $(seq 1 50); do [ -e /proc/"$child" ] || break; sleep 0.1; done
  [ ! -e /proc/"$child" ]
}

@test "the app's process group and cgroup killed during a shim fork-dump, as Android's activity manager and lmkd kill an app (libprocessgroup: every PID in its cgroup, then kill(-pid)): the child, in a session of its own and out of the cgroup, finishes the dump" {
  local cg; cg=$(cgroup2_dir)
  # the JVM leads its own process group (as an app does), in a cgroup of its own
  OOMSCOPE_SHIM_FAULT="hold:$TMP/release" start_bg jvm setsid sh -c 'echo $$ > "$1"; shift; exec "$@"' sh "$cg/cgroup.procs" \
    java -Xmx1g -agentpath:"$ROOT/build/liboomscope_shim.so" -cp "$JAVA_CLASSES" BusyHeap --live-mb 100 --threads 1
  wait_for "$TMP/jvm.out" '^ready pid=' 120
  local pid; pid=$(cat "$TMP/jvm.pid")
  [ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
  grep -qx "$pid" "$cg/cgroup.procs"
  start_bg d timeout 300 "$OOMSCOPE" dump -p "$pid" --method shim -o "$TMP/s.hprof.gz" --no-analyze
  local child= i
  for i in $(seq 1 600); do
    child=$(jvm_children "$pid" | head -n 1)
    [ -n "$child" ] && ! grep -qx "$child" "$cg/cgroup.procs" && break
    sleep 0.05
  done
  [ -n "$child" ]
  ! grep -qx "$child" "$cg/cgroup.procs"
  # in a session and process group of its own
  [ "$(ps -o sid= -p "$child" | tr -d ' ')" = "$child" ]
  [ "$(ps -o pgid= -p "$child" | tr -d ' ')" = "$child" ]
  # killed as libprocessgroup's DoKillProcessGroupOnce does: each PID in the cgroup, then the group
  for p in $(cat "$cg/cgroup.procs"); do kill -KILL "$p" 2> /dev/null || true; done
  kill -KILL -- "-$pid"
  touch "$TMP/release"
  local st=0
  wait_exit "$(cat "$TMP/d.pid")" 280 || st=$?
  cat "$TMP/d.out"
  [ "$st" -eq 0 ]
  grep -q "^dump      $TMP/s.hprof.gz (shim-fork): .* (the target has exited since)$" "$TMP/d.out"
  "$OOMSCOPE" hprof check "$TMP/s.hprof.gz" > /dev/null
  for i in $(seq 1 50); do [ -e /proc/"$child" ] || break; sleep 0.1; done
  [ ! -e /proc/"$child" ]
}
