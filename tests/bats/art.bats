#!/usr/bin/env bats
# oomscope on real ART: Debian's android-libart (ART 11) with what Debian
# does not ship built from its source packages (make art: scripts/art.sh,
# once per machine, cached; build/art/bin/dalvikvm). The app,
# tests/java-art/ArtApp.java (Java 8, no lambdas), compiled with javac and
# dexed with build/art/bin/dex. What differs from a phone: docs/limits.md.
load helpers

ART="$ROOT/build/art"

setup_file() {
  # built beside make test's build (scripts/vm-images.sh); waited for here when it is not done
  "$ROOT/scripts/art.sh" > /dev/null
  [ -x "$ART/bin/dalvikvm" ]
  local d="$BATS_FILE_TMPDIR/app"
  mkdir -p "$d/cls"
  javac -source 8 -target 8 -bootclasspath "$ART/framework/core-classes.jar" -nowarn -Xlint:none \
    -d "$d/cls" "$ROOT"/tests/java-art/*.java 2> "$d/javac.err" || { cat "$d/javac.err" >&3; false; }
  "$ART/bin/dex" "$d/app.jar" "$d/cls"
}

APP_JAR() { echo "$BATS_FILE_TMPDIR/app/app.jar"; }

# without ART's own log lines (I/W/E/F), which it prints at every start
app_lines() { grep -v '^dalvikvm.bin [VDIWEF] ' "$1"; }

@test "make art: dalvikvm runs a Java program compiled with javac and dexed by build/art/bin/dex" {
  run "$ART/bin/dalvikvm" -cp "$(APP_JAR)" ArtApp --fds 3 --threads 2 --seconds 1
  echo "$output"
  [ "$status" -eq 0 ]
  grep -qx 'ready pid=[0-9]*' <<<"$output"
  grep -qx 'opened 3' <<<"$output"
  grep -qx 'started 2' <<<"$output"
  # the runtime is Debian's libart.so, ART 11
  run "$ART/bin/dalvikvm" -showversion -cp "$(APP_JAR)" ArtApp --seconds 0
  [[ "$output" == *"ART version 2.1.0"* ]]
}

@test "run --shim on real ART: a leak into a static list in -Xmx64m gets a heap crossing, a fork-dump while it runs (its pause said) whose analysis names the class and the static field, then ART's OutOfMemoryError with its message, thread and a dump after it" {
  # the app keeps its first OutOfMemoryError until $TMP/go (ART's shim has no hook at the throw:
  # the dump starts when the OOM probe fires, and must not race the app's death)
  start_bg r timeout 180 "$OOMSCOPE" run --shim -i 1 -d 150 -o "$TMP/r" -- \
    "$ART/bin/dalvikvm" -Xmx64m -cp "$(APP_JAR)" ArtApp --fds 20 --threads 3 --leak-mb-per-s 4 --hold-after-oom "$TMP/go"
  wait_for "$TMP/r.out" '^caught OutOfMemoryError' 120
  wait_for "$TMP/r/timeline.jsonl" '"type":"dump".*"seq":2' 60 || { tail -n 20 "$TMP/r.out" >&3; false; }
  touch "$TMP/go"
  wait_exit "$(cat "$TMP/r.pid")" 60
  local output; output=$(cat "$TMP/r.out")
  echo "$output" | grep -v '^dalvikvm.bin [VDIWEF] \|^  native' | tail -n 40
  local tl="$TMP/r/timeline.jsonl"
  # the runtime found, the shim loaded at the VM's start (-Xplugin + -agentpath on ART's launcher)
  jq -se '[.[] | select(.type == "runtime")][0] | .runtime == "art" and (.lib | test("libart.so"))' "$tl"
  # the heap rule before the error, its dump written while the app ran: the shim's fork on ART
  local x; x=$(grep '"type":"crossing"' "$tl" | head -n1)
  jq -e '.rule == "heap_trend" and .wrote == "dump-1.hprof.gz"' <<<"$x"
  grep '"type":"dump"' "$tl" | head -n1 | jq -e '.ok and .method == "shim-fork" and .pause_ms > 0 and .pause_ms < 1000 and .seq == 1'
  jq -se '([.[] | select(.type == "dump" and .ok)][0].t) < ([.[] | select(.type == "oom")][0].t)' "$tl"
  grep -q 'dump 1 written (shim-fork): .*, the app paused [0-9]* ms' <<<"$output"
  # its analysis: the first suspect is the static list accumulating the sessions
  jq -e '.suspects[0].description | contains("static `ArtApp$SessionCache.CLOSED` accumulates") and contains("`ArtApp$Session`")' \
    "$TMP/r/dump-1.analysis.json" || { jq -c '.suspects[:2]' "$TMP/r/dump-1.analysis.json" >&3; false; }
  "$OOMSCOPE" hprof check "$TMP/r/dump-1.hprof.gz" | grep -q 'JAVA PROFILE 1.0.3'
  # ART's OutOfMemoryError: its message and thread (the uprobes), a dump after it (the shim's)
  grep '"type":"oom"' "$tl" | jq -se 'map(select(.kind == "heap" and (.message | startswith("Failed to allocate a ")) and .thread == "main")) | length >= 1'
  jq -se '[.[] | select(.type == "dump" and .ok and .seq == 2)] | length == 1' "$tl"
  jq -e '.java_oom.message | startswith("Failed to allocate a ")' "$TMP/r/death.json"
  # the memory's growth by the code that touched it: sampled page faults in an ART process
  jq -e '.faults.samples > 0 and (.faults.groups | length > 0)' "$TMP/r/memory.json"
}

# start_art_app NAME [APP ARGS...]: ArtApp as an Android app: in a mount namespace whose root
# is a tmpfs with what ART needs bound in (/usr, /dev, build/art's cache folder, the test's
# folder) and Android's data layout: /data/user/0/com.example.artapp/code_cache (the app's),
# /data/system/packages.list naming it; run as the app's uid (10124), its process named after
# its package (DALVIKVM_NAME), named u0_a124 in the root's /etc/passwd; DALVIKVM_INT (empty: a runtime that is not forced to interpret,
# as a release app's, whose late agents get only kArtTiVersion) passed on. Its ActivityThread
# stand-in reads $TMP/attach.fifo. Sets PID.
start_art_app() {
  local name=$1 r="$TMP/root" art; shift
  art=$(readlink -f "$ART")
  mkfifo -m 666 "$TMP/attach.fifo"
  cp "$(APP_JAR)" "$TMP/app.jar"
  chmod 755 "$TMP"
  mkdir -p "$r"
  start_bg "$name" unshare --mount --propagation private -- env DALVIKVM_INT="${DALVIKVM_INT--Xint}" sh -ec '
    r=$1 art=$2 tmp=$3; shift 3
    mount -t tmpfs artapp "$r"
    mkdir -p "$r/usr" "$r/proc" "$r/dev" "$r/$art" "$r/$tmp" "$r/data/system" "$r/data/local/tmp" \
      "$r/data/user/0/com.example.artapp/code_cache"
    mount --rbind /usr "$r/usr"
    mount --rbind /dev "$r/dev"
    mount -t proc proc "$r/proc"
    mount --bind "$art" "$r/$art"
    mount --bind "$tmp" "$r/$tmp"
    ln -s usr/lib "$r/lib"; ln -s usr/bin "$r/bin"; [ -d /usr/lib64 ] && ln -s usr/lib64 "$r/lib64"
    # the app'"'"'s user as bionic names it (libcore'"'"'s System.<clinit> asks getpwuid)
    mkdir -p "$r/etc"
    echo "u0_a124:x:10124:10124::/data:/bin/false" > "$r/etc/passwd"
    echo "u0_a124:x:10124:" > "$r/etc/group"
    echo "com.example.artapp 10124 0 /data/user/0/com.example.artapp default:targetSdkVersion=30 3003 0 1 0 @null" \
      > "$r/data/system/packages.list"
    chown -R 10124:10124 "$r/data/user/0/com.example.artapp" "$r/data/local/tmp"
    chmod 0771 "$r/data/user/0/com.example.artapp/code_cache"
    mkdir "$r/.old"
    cd "$r"
    pivot_root . .old
    cd /
    umount -l /.old
    rmdir /.old
    exec /usr/bin/setpriv --reuid=10124 --regid=10124 --clear-groups /usr/bin/env ANDROID_DATA=/data/local/tmp \
      DALVIKVM_NAME=com.example.artapp "$art/bin/dalvikvm" "$@"
  ' sh "$r" "$art" "$TMP" -Xmx64m -cp "$TMP/app.jar" ArtApp --attach-fifo "$TMP/attach.fifo" "$@"
  wait_for "$TMP/$name.out" '^ready pid=' 60
  PID=$(sed -n 's/^ready pid=//p' "$TMP/$name.out")
}

# fake_android: Android's `cmd` and `getprop` on PATH, as an Android 13 userdebug device's: cmd
# activity attach-agent passes "PATH=OPTIONS" to the app (its ActivityThread stand-in reads the
# FIFO), as the activity manager's one-way call does; its arguments in $TMP/cmd.args
fake_android() {
  mkdir -p "$TMP/bin"
  cat > "$TMP/bin/cmd" << EOS
#!/bin/sh
printf '%s\n' "\$@" > '$TMP/cmd.args'
[ "\$1 \$2" = "activity attach-agent" ] || exit 255
echo "\$4" > '$TMP/attach.fifo'
EOS
  cat > "$TMP/bin/getprop" << 'EOS'
#!/bin/sh
printf '%s\n' '[ro.build.type]: [userdebug]' '[ro.build.version.sdk]: [33]' '[ro.debuggable]: [1]'
EOS
  chmod +x "$TMP/bin/cmd" "$TMP/bin/getprop"
}

@test "watch -p PID --shim on a running ART app, as on a phone: the shim copied into its code_cache, attached through the activity manager's attach-agent and VMDebug.attachAgent, kArtTiVersion taken where 1.2 is refused; the heap rule's fork-dump names the leak" {
  fake_android
  DALVIKVM_INT= start_art_app app --go "$TMP/go" --leak-mb-per-s 3
  [ "$(tr '\0' ' ' < /proc/"$PID"/cmdline | cut -d ' ' -f 1)" = com.example.artapp ]
  [ "$(stat -c %u /proc/"$PID"/status)" = 10124 ]
  PATH="$TMP/bin:$PATH" start_bg w "$OOMSCOPE" watch -p "$PID" --shim -i 1 -d 120 -o "$TMP/w"
  wait_for "$TMP/w.out" 'shim: in the app' 60 || { app_lines "$TMP/app.out" | tail -n 5 >&3; false; }
  # the copy the app loaded: in its code_cache, its own; the request: the path the app sees
  grep -q -- "--shim: in the app (/data/user/0/com.example.artapp/code_cache/liboomscope_shim.so), attached with \`cmd activity attach-agent\`; JVMTI kArtTiVersion (1.2 refused: the app is not debuggable)" "$TMP/w.out"
  [ "$(sed -n 3p "$TMP/cmd.args")" = "$PID" ]
  grep -q "^attach-agent /data/user/0/com.example.artapp/code_cache/liboomscope_shim.so" "$TMP/app.out"
  [ "$(stat -c '%u %a' /proc/"$PID"/root/data/user/0/com.example.artapp/code_cache/liboomscope_shim.so)" = "10124 500" ]
  # a runtime not forced to interpret refused JVMTI 1.2 to the late agent (ART's words)
  grep -q 'Bad JNI version passed to GetEnv' "$TMP/app.out"
  touch "$TMP/go"
  wait_for "$TMP/w/timeline.jsonl" '"type":"dump"' 90 || { tail -n 20 "$TMP/w.out" >&3; false; }
  local tl="$TMP/w/timeline.jsonl"
  grep '"type":"dump"' "$tl" | head -n1 | jq -e '.ok and .method == "shim-fork" and .pause_ms > 0'
  wait_for "$TMP/w.out" '^ *[0-9.]* analysis: ' 60
  jq -e '.suspects[0].description | contains("static `ArtApp$SessionCache.CLOSED` accumulates")' "$TMP/w/dump-1.analysis.json"
  # the app lives on, the watch stops when told
  kill -0 "$PID"
  kill -INT "$(cat "$TMP/w.pid")"
  wait_exit "$(cat "$TMP/w.pid")" 60
}

@test "a debuggable app's ART (forced to interpret) gives the late shim JVMTI 1.2" {
  fake_android
  start_art_app app --go "$TMP/go"
  PATH="$TMP/bin:$PATH" start_bg w "$OOMSCOPE" watch -p "$PID" --shim -i 1 -d 60 -o "$TMP/w"
  wait_for "$TMP/w.out" 'shim: in the app' 60 || { app_lines "$TMP/app.out" | tail -n 5 >&3; false; }
  grep -q "attached with \`cmd activity attach-agent\`; JVMTI 1.2$" "$TMP/w.out"
  kill -INT "$(cat "$TMP/w.pid")"
  wait_exit "$(cat "$TMP/w.pid")" 60
}

@test "without the shim on real ART: its GC and OutOfMemoryError probes fire (the collections counted, the error with ART's message, its size and thread); the fds made from Java are named by libcore's native, the threads by ART's thread start" {
  run timeout 180 "$OOMSCOPE" run -i 1 -d 150 -o "$TMP/n" -- \
    "$ART/bin/dalvikvm" -Xmx64m -cp "$(APP_JAR)" ArtApp --fds 20 --threads 3 --leak-mb-per-s 8
  echo "$output" | grep -v '^dalvikvm.bin [VDIWEF] \|^  native' | tail -n 25
  [ "$status" -eq 0 ]
  local tl="$TMP/n/timeline.jsonl"
  jq -se '[.[] | select(.type == "runtime")][0] | .runtime == "art" and .probes == 4' "$tl"
  # collections: each a begin and an end of GarbageCollector::Run
  [ "$(grep -c '"type":"gc"' "$tl")" -ge 3 ]
  grep '"type":"oom"' "$tl" | jq -se 'map(select(.source == "probe" and .kind == "heap" and .bytes > 0
      and (.message | startswith("Failed to allocate a ")) and .thread == "main")) | length >= 1'
  grep -q '!! OutOfMemoryError thrown in thread main' <<<"$output"
  # the 20 fds the app opened from Java (FileInputStream): named by libcore's native. Their native
  # stacks end in ART's generic JNI trampoline (hand-written, outside the frame-pointer chain, and
  # unnamed in Debian's libart.so): no frame of ART's interpreter is reached (docs/limits.md)
  jq -e '[.groups[] | select(.kind == "/dev/null") | .stacks[] | select(.created_by // "" | startswith("Linux_open(")) | .count] | add == 20' "$TMP/n/fds.json" ||
    { jq -c '[.groups[] | {kind, count, s: [.stacks[] | {count, created_by}]}]' "$TMP/n/fds.json" >&3; false; }
  jq -e '[.groups[] | select(.name == "pool-worker-*") | .stacks[] | select(.created_by // "" | startswith("art::Thread::CreateNativeThread")) | .count] | add == 3' "$TMP/n/threads.json"
}

@test "ART's own heap dump (VMDebug.dumpHprofData, what am dumpheap runs) read by the analyzer: its roots and the app heap, the leak by its static field" {
  run timeout 120 "$ART/bin/dalvikvm" -Xmx64m -cp "$(APP_JAR)" ArtApp --leak-mb-per-s 10 --seconds 6 --dump-at-mb 30 "$TMP/art.hprof"
  grep -q "^dumped $TMP/art.hprof in [0-9]* ms" <<<"$output" || { echo "$output" | tail -n 5 >&3; false; }
  run "$OOMSCOPE" hprof check --json "$TMP/art.hprof"
  [ "$status" -eq 0 ]
  jq -e '.format | startswith("JAVA PROFILE 1.0.3")' <<<"$output"
  # one heap, the app's: no zygote or image heap here (no zygote, no boot image)
  jq -e '[.heaps[] | select(.instances.count > 0) | .heap] == ["app"]' <<<"$output" || { jq -c '.heaps' <<<"$output" >&3; false; }
  run "$OOMSCOPE" analyze --json -o "$TMP/art.json" "$TMP/art.hprof"
  [ "$status" -eq 0 ]
  jq -e '.suspects[0].description | contains("static `ArtApp$SessionCache.CLOSED` accumulates")' "$TMP/art.json"
  jq -e '.runningInfo.shallowSize > 30000000' "$TMP/art.json" || { jq -c .runningInfo "$TMP/art.json" >&3; false; }
}
