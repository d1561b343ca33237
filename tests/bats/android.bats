#!/usr/bin/env bats
# Android's layout: an app in its own mount namespace, whose root has libc at
# bionic's path (/apex/com.android.runtime/lib64/bionic/libc.so: glibc's,
# copied there), libart.so at ART's (/apex/com.android.art/lib64/libart.so:
# Debian's android-libart) and its own code in /system/lib64. None of these
# paths exists in oomscope's namespace: everything is found through
# /proc/PID/root. Runs on x86_64 and in the arm64 VM (`make test-arm64`),
# with that architecture's libart.so. No ART runs (none can here): the app
# maps libart.so and enters its OOM and GC functions itself (android_app.c).
load helpers

APP="$TARGETS/android"
TRIPLET="$(uname -m)-linux-gnu"
LIBART="/usr/lib/$TRIPLET/android/libart.so"
SYM_HEAP_OOM=_ZN3art2gc4Heap21ThrowOutOfMemoryErrorEPNS_6ThreadEmNS0_13AllocatorTypeE
SYM_THREAD_OOM=_ZN3art6Thread21ThrowOutOfMemoryErrorEPKc
SYM_GC_RUN=_ZN3art2gc9collector16GarbageCollector3RunENS0_7GcCauseEb

# sym_offset LIB SYM: the file offset of SYM's code, by readelf (its value
# in the LOAD segment that holds it), in hex
sym_offset() {
  local v va off sz
  v=$(readelf -W --dyn-syms "$1" | awk -v s="$2" '$8 == s {print $2; exit}')
  [ -n "$v" ] || return 1
  v=$((16#$v))
  while read -r off va sz; do
    if [ "$v" -ge $((va)) ] && [ "$v" -lt $((va + sz)) ]; then
      printf '0x%x\n' $((v - va + off))
      return 0
    fi
  done < <(readelf -lW "$1" | awk '$1 == "LOAD" {print $2, $3, $6}')
  return 1
}

# start the app in a mount namespace of its own, rooted in a tmpfs laid out as Android's
start_android_app() {
  local r="$TMP/root"
  HEAP_OFF=$(sym_offset "$LIBART" "$SYM_HEAP_OOM")
  THREAD_OFF=$(sym_offset "$LIBART" "$SYM_THREAD_OOM")
  GC_OFF=$(sym_offset "$LIBART" "$SYM_GC_RUN")
  mkdir -p "$r"
  # unshare execs (no fork): the shell, env and the app are one PID
  # APP_UID (optional): the app runs as that uid, named com.example.leakyapp (or
  # APP_NAME), its data directory's code_cache owned by it and labelled as Android
  # labels an app's data, the package in /data/system/packages.list (debuggable when
  # APP_DEBUGGABLE=1); APP_DUMPABLE=0: not dumpable, as zygote leaves an app without JDWP
  start_bg target unshare --mount --propagation private -- env APP_UID="${APP_UID:-}" \
    APP_NAME="${APP_NAME:-com.example.leakyapp}" APP_DEBUGGABLE="${APP_DEBUGGABLE:-0}" APP_DUMPABLE="${APP_DUMPABLE:-1}" sh -ec '
    r=$1 lib=$2 libart=$3
    mount -t tmpfs android "$r"
    if [ -n "$APP_UID" ]; then
      d="$r/data/user/0/com.example.leakyapp"
      mkdir -p "$d/code_cache" "$r/data/system"
      printf "%s\n" "com.android.settings 1000 0 /data/user_de/0/com.android.settings platform:privapp 3002,3003 0 34 1 @system" \
        "com.example.leakyapp $APP_UID $APP_DEBUGGABLE /data/user/0/com.example.leakyapp default:targetSdkVersion=34 3003 0 1 0 @null" \
        > "$r/data/system/packages.list"
      chown -R "$APP_UID:$APP_UID" "$d"
      chmod 0700 "$d"; chmod 0771 "$d/code_cache"
      python3 -c "import os, sys; os.setxattr(sys.argv[1], \"security.selinux\", b\"u:object_r:app_data_file:s0:c123,c256,c512,c768\\0\")" "$d/code_cache"
    fi
    mkdir -p "$r/usr" "$r/proc" "$r/apex/com.android.runtime/lib64/bionic" "$r/apex/com.android.art/lib64" \
      "$r/system/bin" "$r/system/lib64" "$r/system/framework/oat" "$r/data/app/com.example.leakyapp/oat"
    mount --rbind /usr "$r/usr"
    mount -t proc proc "$r/proc"
    ln -s usr/lib "$r/lib"; ln -s usr/bin "$r/bin"; [ -d /usr/lib64 ] && ln -s usr/lib64 "$r/lib64"
    cp "$lib/libc.so.6" "$r/apex/com.android.runtime/lib64/bionic/libc.so"
    ln -s libc.so "$r/apex/com.android.runtime/lib64/bionic/libc.so.6"
    cp "$(readlink -f "$libart")" "$r/apex/com.android.art/lib64/libart.so"
    cp "$4/libandroid_app.so" "$r/system/lib64/"
    cp "$4/android_app" "$r/system/bin/"
    cp "$4/boot-framework.oat" "$r/system/framework/oat/"
    cp "$4/base.odex" "$r/data/app/com.example.leakyapp/oat/"
    shift 4
    # the tmpfs becomes the namespace root (as a container: pivot_root, not
    # chroot, so /proc/PID/maps shows other namespaces the paths the app sees)
    mkdir "$r/.old"
    cd "$r"
    pivot_root . .old
    cd /
    umount -l /.old
    rmdir /.old
    if [ -n "$APP_UID" ]; then
      exec /usr/bin/setpriv --reuid="$APP_UID" --regid="$APP_UID" --clear-groups /usr/bin/env ANDROID_APP_NAME="$APP_NAME" \
        ANDROID_APP_DUMPABLE="$APP_DUMPABLE" \
        LD_LIBRARY_PATH=/apex/com.android.runtime/lib64/bionic /system/bin/android_app "$@"
    fi
    exec /usr/bin/env LD_LIBRARY_PATH=/apex/com.android.runtime/lib64/bionic /system/bin/android_app "$@"
  ' sh "$r" "/usr/lib/$TRIPLET" "$LIBART" "$APP" /apex/com.android.art/lib64/libart.so "$HEAP_OFF" "$THREAD_OFF" "$GC_OFF" \
    /data/app/com.example.leakyapp/oat/base.odex /system/framework/oat/boot-framework.oat
  wait_for "$TMP/target.out" '^ready pid=' 30
  PID=$(cat "$TMP/target.pid")
}

@test "android layout: the app's libraries are where Android has them, in its namespace only" {
  [ -e "$LIBART" ]
  start_android_app
  grep -q "^ready pid=$PID\$" "$TMP/target.out"
  grep -q ' /apex/com.android.runtime/lib64/bionic/libc.so$' /proc/"$PID"/maps
  grep -q ' /apex/com.android.art/lib64/libart.so$' /proc/"$PID"/maps
  grep -q ' /system/lib64/libandroid_app.so$' /proc/"$PID"/maps
  ! grep -q 'libc.so.6$' /proc/"$PID"/maps
  [ ! -e /apex/com.android.art/lib64/libart.so ]
}

@test "android layout: ART recognised, its uprobes at readelf's offsets fire, and the app's fds, thread and big block are blamed on its code" {
  start_android_app
  watch_burst "$PID" '^done' -d 120 -v --big-alloc 8M --big-alloc-mode uprobe
  local tl="$TMP/w/timeline.jsonl"
  # the runtime, by its path in the app's namespace; 4 probes (GC entry and return, 2 OOM)
  grep -q 'Java runtime: art (/apex/com.android.art/lib64/libart.so), 4 probe(s) attached' "$TMP/watch.out"
  jq -se '[.[] | select(.type == "runtime")] | length == 1 and .[0].runtime == "art" and .[0].lib == "/apex/com.android.art/lib64/libart.so" and .[0].probes == 4' "$tl"
  # each probe at the file offset readelf gives for its symbol
  grep -q "OOM probe: $SYM_HEAP_OOM at file offset $HEAP_OFF of /apex/com.android.art/lib64/libart.so" "$TMP/watch.out"
  grep -q "OOM message probe: $SYM_THREAD_OOM at file offset $THREAD_OFF of " "$TMP/watch.out"
  grep -q "GC probe: $SYM_GC_RUN at file offset $GC_OFF of " "$TMP/watch.out"
  # the app entered each function (and faulted past its first instructions: no ART runs)
  [ "$(grep -c '^art .*: signal [1-9]' "$TMP/target.out")" -eq 3 ]
  # the OOM probes fired with their arguments: the failed allocation's size, the message
  jq -se '[.[] | select(.type == "oom" and .message == "Heap::ThrowOutOfMemoryError" and .bytes == 44040192)] | length == 1' "$tl"
  jq -se '[.[] | select(.type == "oom" and (.message // "" | startswith("Failed to allocate a 44040208 byte allocation")))] | length == 1' "$tl"
  # ART's words read: the kind, the size, and the fragmentation it reports (the whole message kept)
  jq -se '[.[] | select(.type == "oom" and .kind == "heap" and .bytes == 44040208
          and (.message | endswith("(largest possible contiguous allocation 20971520 bytes)"))
          and .hint == "fragmented: 48.0 MB free, but at most 20.0 MB in one piece, and the allocation needed 42.0 MB")] | length == 1' "$tl"
  grep -q '!! OutOfMemoryError thrown: an allocation of 44040192 bytes failed' "$TMP/watch.out"
  # the app's own code, symbolized from /system/lib64 through /proc/PID/root
  # (shown only if what follows fails: the hook chosen and what was sent; seen twice in
  # about 90 runs in the arm64 VM: none of the 30 opens sent, cause not found)
  jq -c 'select(.type == "start" or .type == "end") | {type, syscall_hook, events_sent, ringbuf_drops, skipped_runs}' "$tl"
  jq -c '.groups[] | select(.kind == "file") | .stacks' "$TMP/w/fds.json"
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select(.created_by == "app_open_cache_files (libandroid_app.so)") | .count] | add == 30' "$TMP/w/fds.json"
  # compiled Java (oat files: names in their MiniDebugInfo, as dex2oat writes them): the app's
  # method names the group, past the platform's FileInputStream.<init>
  jq -c '.groups[] | select(.kind == "file") | .paths' "$TMP/w/fds.json"
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select(.created_by == "com.example.leakyapp.CacheLoader.openAll (compiled Java, base.odex)") | .count] | add == 20' "$TMP/w/fds.json"
  jq -e '[.groups[] | select(.kind == "file") | .stacks[] | select(.created_by // "" | startswith("com.example.leakyapp")) | .frames[].symbol] | index("java.io.FileInputStream.<init>") != null' "$TMP/w/fds.json"
  # the big block, by the malloc uprobe on bionic's libc
  jq -e '[.allocations[] | select(.function == "malloc" and .bytes == 41943040 and .allocated_by == "app_load_image (libandroid_app.so)")] | length == 1' "$TMP/w/allocs.json"
  # the thread, by the pthread_create uprobe on bionic's libc
  jq -e '[.groups[] | select(.name == "FinalizerDaemon") | .stacks[]
          | select(.created_by == "app_start_worker (libandroid_app.so)" and .start_routine.symbol == "app_worker_main"
                   and .start_routine.module == "/system/lib64/libandroid_app.so")] | length == 1' "$TMP/w/threads.json"
  [ "$(tail -n1 "$tl" | jq -r .ringbuf_drops)" = 0 ]
}

# fake_cmd MODE: Android's `cmd` on PATH, as the activity manager answers attach-agent:
# "ok" takes it (the app would load the agent later; no ART runs here, so nothing
# answers), "refuse" as for a release app on a user build; its arguments in $TMP/cmd.args.
# With $TMP/art_refuses there, the app's ART refuses the agent as Android 14 and later
# do in an app without JDWP: VMDebug.attachAgent throws SecurityException on the app's
# main thread, ActivityThread catches only IOException, and the app dies (its uncaught
# exception handler kills it); the activity manager has answered 0 all the same
fake_cmd() {
  mkdir -p "$TMP/bin"
  {
    echo '#!/bin/sh'
    echo "printf '%s\\n' \"\$@\" > '$TMP/cmd.args'"
    echo "echo x >> '$TMP/cmd.calls'"
    # "late": the activity manager knows the process only from the third call on
    # (an app held at its start, before it has attached to the activity manager)
    if [ "$1" = late ]; then
      echo "if [ \$(wc -l < '$TMP/cmd.calls') -lt 3 ]; then"
      echo "  echo \"Exception occurred while executing 'attach-agent':\""
      echo "  echo \"java.lang.IllegalArgumentException: Unknown process: \$3\""
      echo "  exit 255"
      echo "fi"
    fi
    if [ "$1" = refuse ]; then
      echo "echo \"Exception occurred while executing 'attach-agent':\""
      echo "echo \"java.lang.SecurityException: Process not debuggable: ProcessRecord{5c3a1 \$3:com.example.leakyapp/u0a123}\""
      echo "echo '	at com.android.server.am.ActivityManagerService.attachAgent(ActivityManagerService.java:17702)'"
      echo "exit 255"
    fi
    # FAKE_CMD_CG: the app's cgroup, whose freezer state the request found is kept
    echo "[ -z \"\${FAKE_CMD_CG:-}\" ] || grep '^frozen' \"\$FAKE_CMD_CG/cgroup.events\" > '$TMP/cmd.frozen'"
    echo "[ ! -e '$TMP/art_refuses' ] || kill -9 \"\$3\""
    echo "exit 0"
  } > "$TMP/bin/cmd"
  chmod +x "$TMP/bin/cmd"
}

# fake_getprop SDK TYPE RO_DEBUGGABLE JDWP: Android's getprop on PATH, the device's
# build: ro.build.version.sdk, ro.build.type, ro.debuggable and
# persist.debug.dalvik.vm.jdwp.enabled, among others, as getprop prints them
fake_getprop() {
  mkdir -p "$TMP/bin"
  {
    echo '#!/bin/sh'
    echo "cat <<'EOF'"
    echo "[dalvik.vm.heapgrowthlimit]: [192m]"
    [ "$4" = "" ] || echo "[persist.debug.dalvik.vm.jdwp.enabled]: [$4]"
    echo "[ro.build.type]: [$2]"
    echo "[ro.build.version.sdk]: [$1]"
    echo "[ro.debuggable]: [$3]"
    echo "[ro.product.cpu.abi]: [x86_64]"
    echo "EOF"
  } > "$TMP/bin/getprop"
  chmod +x "$TMP/bin/getprop"
}

@test "android layout: an app as it ships takes the shim: a copy in its code_cache, its uid's and its directory's label, attached by the activity manager with libart's symbols in the options" {
  APP_UID=10123 start_android_app
  [ "$(tr '\0' ' ' < /proc/"$PID"/cmdline | cut -d ' ' -f 1)" = com.example.leakyapp ]
  fake_cmd ok
  fake_getprop 33 userdebug 1 ""
  local t0=$SECONDS
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  # no ART runs here: attached, the shim never answers, and the dump says so in one line
  [ "$status" -eq 1 ]
  [ "$(wc -l <<<"$output")" -eq 1 ]
  [[ "$output" == "oomscope dump: the shim, put at /data/user/0/com.example.leakyapp/code_cache/liboomscope_shim.so and attached with \`cmd activity attach-agent\`, did not answer in 10 s"* ]]
  [ $((SECONDS - t0)) -lt 30 ]
  [ ! -e "$TMP/app.hprof" ]
  # the copy, as the app sees it: the shim's bytes, the app's uid, r-x for it alone, the directory's label
  local f=/proc/$PID/root/data/user/0/com.example.leakyapp/code_cache/liboomscope_shim.so
  cmp "$f" "$BUILD_DIR/liboomscope_shim.so"
  [ "$(stat -c '%u %g %a' "$f")" = "10123 10123 500" ]
  [ "$(python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "security.selinux"))' "$f")" = "b'u:object_r:app_data_file:s0:c123,c256,c512,c768\x00'" ]
  # nothing half-written left beside it
  [ "$(ls -A "${f%/*}")" = liboomscope_shim.so ]
  # the request: the process by its PID, the path the app sees, libart's symbols at nm's values
  cat "$TMP/cmd.args"
  [ "$(sed -n 1,3p "$TMP/cmd.args" | tr '\n' ' ')" = "activity attach-agent $PID " ]
  local agent want; agent=$(sed -n 4p "$TMP/cmd.args")
  [[ "$agent" == /data/user/0/com.example.leakyapp/code_cache/liboomscope_shim.so=* ]]
  want=$(nm -D --defined-only "$LIBART" | awk '$3 == "_ZN3art5hprof8DumpHeapEPKcib" {print $1}' | sed 's/^0*//')
  [ -n "$want" ]
  [[ ",${agent#*=}," == *",_ZN3art5hprof8DumpHeapEPKcib=$want,"* ]]
  # an app whose code_cache is a link to a folder not its own: nothing written there, one line
  local d=/proc/$PID/root/data/user/0/com.example.leakyapp
  mkdir "$d/elsewhere"
  mv "$d/code_cache" "$d/code_cache.real" && ln -s elsewhere "$d/code_cache"
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  [ "$status" -eq 1 ] && [ "$(wc -l <<<"$output")" -eq 1 ]
  [[ "$output" == *"code_cache in PID $PID's namespace is not a directory of the app's own (uid 10123): not written"* ]]
  [ -z "$(ls -A "$d/elsewhere")" ]
}

@test "android layout: an app the activity manager will not give an agent: one line with its words and what would work" {
  APP_UID=10123 start_android_app
  fake_cmd refuse
  # a build that gives every app JDWP, whose activity manager refuses all the same
  fake_getprop 33 userdebug 1 ""
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(wc -l <<<"$output")" -eq 1 ]
  [[ "$output" == *"the activity manager refused the agent (java.lang.SecurityException: Process not debuggable: ProcessRecord{5c3a1 $PID:com.example.leakyapp/u0a123}): on a user build only a debuggable app takes one; any app does on a userdebug or eng build"* ]]
  [ ! -e "$TMP/app.hprof" ]
}

@test "android layout: watch --shim on an app the activity manager does not know yet: attach tried again each sample until it is, then the shim awaited, said in one line" {
  APP_UID=10123 start_android_app
  fake_cmd late
  fake_getprop 33 userdebug 1 ""
  PATH="$TMP/bin:$PATH" start_bg watch "$OOMSCOPE" watch -p "$PID" --shim -o "$TMP/w" -i 1
  wait_for "$TMP/watch.out" 'did not answer in 10 s' 60
  kill -INT "$(cat "$TMP/watch.pid")"
  wait_exit "$(cat "$TMP/watch.pid")" 60
  cat "$TMP/watch.out"
  # refused twice as an unknown process, taken the third time
  [ "$(wc -l < "$TMP/cmd.calls")" -eq 3 ]
  [ "$(grep -c -- '--shim:' "$TMP/watch.out")" -eq 1 ]
  grep -q -- "--shim: the shim, put at /data/user/0/com.example.leakyapp/code_cache/liboomscope_shim.so and attached with \`cmd activity attach-agent\`, did not answer in 10 s (the app's log says why: \`logcat -s oomscope-shim\`); dumps use \`am dumpheap\`" "$TMP/watch.out"
}

@test "android layout: Android 14+ userdebug without the JDWP property: a release app is not asked to load the agent (ART would throw on its main thread and kill it); one line says what to set; the app lives" {
  APP_UID=10123 APP_DUMPABLE=0 start_android_app
  fake_cmd ok
  touch "$TMP/art_refuses"
  fake_getprop 34 userdebug 1 0
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  [ "$status" -eq 1 ] && [ "$(wc -l <<<"$output")" -eq 1 ]
  [[ "$output" == "oomscope dump: not attached (ART would refuse the agent, which kills the app): com.example.leakyapp is not debuggable, and on Android 14 and later (SDK 34) a userdebug build"* ]]
  [[ "$output" == *'`adb shell setprop persist.debug.dalvik.vm.jdwp.enabled 1`, reboot, start the app again; or build it with android:debuggable'* ]]
  # the activity manager never asked, nothing put in the app's code_cache, the app alive
  [ ! -e "$TMP/cmd.calls" ]
  [ -z "$(ls -A /proc/"$PID"/root/data/user/0/com.example.leakyapp/code_cache)" ]
  kill -0 "$PID"
  # a watch goes on without the shim and says so once; the app lives through it
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" watch -p "$PID" --shim -o "$TMP/w" -i 1 -d 2
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(grep -c -- '--shim: not attached (ART would refuse the agent' <<<"$output")" -eq 1 ]
  [ ! -e "$TMP/cmd.calls" ]
  kill -0 "$PID"
  # a user build: a release app never takes one (said before the activity manager refuses)
  fake_getprop 35 user 0 ""
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  [ "$status" -eq 1 ]
  [[ "$output" == *"com.example.leakyapp is not debuggable and this is a user build (ro.debuggable 0)"* ]]
  # no getprop (not told what the build is): not attached either
  rm "$TMP/bin/getprop"
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ "$output" == *"could not be told (no \`getprop\` on PATH to read the build's properties)"* ]]
  [ ! -e "$TMP/cmd.calls" ]
  kill -0 "$PID"
}

@test "android layout: the JDWP property set since the last boot: the app's process has no JDWP (not dumpable), so it is not attached, said" {
  APP_UID=10123 APP_DUMPABLE=0 start_android_app
  fake_cmd ok
  touch "$TMP/art_refuses"
  fake_getprop 34 userdebug 1 1
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  [ "$status" -eq 1 ] && [ "$(wc -l <<<"$output")" -eq 1 ]
  [[ "$output" == *"com.example.leakyapp's process is not debuggable (not dumpable: its zygote gave it no JDWP, though the properties would now); persist.debug.dalvik.vm.jdwp.enabled was set after the last boot?: reboot the device and start the app again"* ]]
  [ ! -e "$TMP/cmd.calls" ]
  kill -0 "$PID"
}

@test "android layout: a debuggable app on a user build, in a process named without ':' (com.example.process.leaky): its package found by its uid, the shim put in that package's code_cache and attached" {
  APP_UID=10123 APP_DEBUGGABLE=1 APP_NAME=com.example.process.leaky start_android_app
  [ "$(tr '\0' ' ' < /proc/"$PID"/cmdline | cut -d ' ' -f 1)" = com.example.process.leaky ]
  fake_cmd ok
  fake_getprop 35 user 0 ""
  PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  # taken by the activity manager; nothing answers (no ART runs here)
  [ "$status" -eq 1 ]
  [[ "$output" == *"the shim, put at /data/user/0/com.example.leakyapp/code_cache/liboomscope_shim.so and attached"* ]]
  [ "$(wc -l < "$TMP/cmd.calls")" -eq 1 ]
  [[ "$(sed -n 4p "$TMP/cmd.args")" == /data/user/0/com.example.leakyapp/code_cache/liboomscope_shim.so=* ]]
  cmp /proc/"$PID"/root/data/user/0/com.example.leakyapp/code_cache/liboomscope_shim.so "$BUILD_DIR/liboomscope_shim.so"
  kill -0 "$PID"
}

@test "android layout: a frozen (cached) app is thawed for the attach, so that its main thread can load the agent, and frozen again when the load ends" {
  APP_UID=10123 start_android_app
  local cg; cg=$(cgroup2_dir)
  echo "$PID" > "$cg/cgroup.procs"
  echo 1 > "$cg/cgroup.freeze"
  local i; for i in $(seq 1 100); do grep -qx 'frozen 1' "$cg/cgroup.events" && break; sleep 0.05; done
  grep -qx 'frozen 1' "$cg/cgroup.events"
  fake_cmd ok
  fake_getprop 33 userdebug 1 ""
  FAKE_CMD_CG=$cg PATH="$TMP/bin:$PATH" run timeout 60 "$OOMSCOPE" dump -p "$PID" --load-shim -o "$TMP/app.hprof"
  echo "$output"
  # no ART runs here: nothing answers; but the request found the app running
  [[ "$output" == *"did not answer in 10 s"* ]]
  [ "$(cat "$TMP/cmd.frozen")" = "frozen 0" ]
  # frozen again after
  for i in $(seq 1 100); do grep -qx 'frozen 1' "$cg/cgroup.events" && break; sleep 0.05; done
  grep -qx 'frozen 1' "$cg/cgroup.events"
  [ "$(cat "$cg/cgroup.freeze")" = 1 ]
  echo 0 > "$cg/cgroup.freeze"
}
