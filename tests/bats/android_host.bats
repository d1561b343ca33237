#!/usr/bin/env bats
# scripts/oomscope-android, the one command from the host, against a fake
# adb (tests/tools/fake-adb) whose "device" is this machine: the binary of
# the device's ABI pushed only when it changed, root through adb root or su,
# the watch run with the options given, stopped cleanly on Ctrl-C, the run
# directory pulled and its report's path said. No device runs here.
load helpers

setup_file() {
  # the x86_64 emulator's build, as make android leaves it
  [ -x "$ROOT/build/android/x86_64/oomscope" ]
}

# android_run NAME ARGS...: the script in the background, with the fake adb;
# the device's /data/local/tmp is $TMP/stage, the shell user's (uid 2000), as
# on a phone (with su, adb push and pull act as that user)
android_run() {
  local name=$1; shift
  chmod 711 "$TMP"
  mkdir -p "$TMP/stage" && chown 2000:2000 "$TMP/stage" && chmod 771 "$TMP/stage"
  start_bg "$name" env ADB="$ROOT/tests/tools/fake-adb" FAKE_ADB_LOG="$TMP/adb.log" \
    OOMSCOPE_ANDROID_DIR="$TMP/device" OOMSCOPE_ANDROID_STAGE="$TMP/stage" \
    "$ROOT/scripts/oomscope-android" -s emulator-5554 -o "$TMP/host" "$@"
}

@test "oomscope-android: pushes the emulator's build, watches the app until Ctrl-C, pulls the run and its report" {
  start_bg zygote "$TARGETS/zygote" com.example.leakyapp 0123456789abcdef0123456789abcdef
  wait_for "$TMP/zygote.out" '^zygote pid=' 10
  android_run a -- --app com.example.leakyapp
  wait_for "$TMP/a.out" 'waiting for the app to start' 60
  kill -USR1 "$(cat "$TMP/zygote.pid")"
  wait_for "$TMP/zygote.out" '^app pid=[0-9]+ done' 60
  STARTED_PIDS+=("$(sed -n 's/^app pid=\([0-9]*\) done.*/\1/p' "$TMP/zygote.out")")
  wait_for "$TMP/a.out" 'TIME\(s\)' 60
  # Ctrl-C on the host (SIGTERM here: a shell's background job ignores SIGINT):
  # the script stops the watch on the device by its PID
  kill -TERM "$(cat "$TMP/a.pid")"
  wait_exit "$(cat "$TMP/a.pid")" 90
  grep -q 'stopping the watch on the device' "$TMP/a.out"
  local report; report=$(sed -n 's/^oomscope-android: \(.*report\.html\)$/\1/p' "$TMP/a.out")
  [ -s "$report" ] || { tail -5 "$TMP/a.out" >&3; false; }
  local run; run=$(dirname "$report")
  jq -e '[.groups[] | .stacks[] | select(.created_by == "app_open_cache (zygote)") | .count] | add == 30' "$run/fds.json"
  grep -q '"reason":"SIGINT"' "$run/timeline.jsonl"
  # it went through the device's directory, pushed once, with the device's ABI; nothing left there but the binaries
  grep -q '^-s emulator-5554 push .*/x86_64/oomscope ' "$TMP/adb.log"
  [ "$(grep -c ' push ' "$TMP/adb.log")" -eq 2 ]
  [ -z "$(ls "$TMP/device/runs")" ]
  # a second run pushes nothing: the device's copies are the same
  : > "$TMP/adb.log"
  android_run b -- -p "$(cat "$TMP/zygote.pid")" -d 1
  wait_exit "$(cat "$TMP/b.pid")" 90
  ! grep -q ' push ' "$TMP/adb.log"
  grep -q 'report.html$' "$TMP/b.out"
}

@test "oomscope-android: su when adb root is refused; one line when neither gives root or the ABI is not built" {
  start_bg t sleep 60
  FAKE_ADB_ROOT=su android_run su -- -p "$(cat "$TMP/t.pid")" -d 1
  wait_exit "$(cat "$TMP/su.pid")" 90
  grep -q 'report.html$' "$TMP/su.out" || { cat "$TMP/su.out" >&3; false; }
  grep -q 'shell su -c' "$TMP/adb.log"
  # root's directory, root's files: pushed through the shell user's, pulled back from there
  [ "$(stat -c %u "$TMP/device")" = 0 ] && [ "$(stat -c %a "$TMP/device/oomscope")" = 755 ]
  local run; run=$(dirname "$(sed -n 's/^oomscope-android: \(.*report\.html\)$/\1/p' "$TMP/su.out")")
  jq -e '.pid > 0' "$run/timeline.jsonl" > /dev/null || head -n1 "$run/timeline.jsonl" | jq -e '.pid > 0'
  # nothing left in either directory but the binaries
  [ -z "$(ls -A "$TMP/stage")" ] && [ -z "$(ls "$TMP/device/runs")" ]
  FAKE_ADB_ROOT=none android_run none -- -p 1 -d 1
  wait_exit "$(cat "$TMP/none.pid")" 30 || true
  [ "$(cat "$TMP/none.out")" = "oomscope-android: neither adb root nor su works on this device: oomscope needs root (BPF)" ]
  FAKE_ADB_ABI=armeabi-v7a android_run abi -- -p 1 -d 1
  wait_exit "$(cat "$TMP/abi.pid")" 30 || true
  [ "$(cat "$TMP/abi.out")" = "oomscope-android: the device's ABI is armeabi-v7a; oomscope is built for arm64-v8a and x86_64" ]
}

@test "oomscope-android on a macOS-like host: no setsid, no sha256sum (shasum stands in); the run comes back" {
  local d f
  # this machine's commands, less the two macOS lacks
  mkdir -p "$TMP/bin"
  for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
    for f in "$d"/*; do
      [ -x "$f" ] && [ ! -e "$TMP/bin/${f##*/}" ] && ln -s "$f" "$TMP/bin/${f##*/}"
    done
  done
  rm -f "$TMP/bin/setsid" "$TMP/bin/sha256sum"
  command -v shasum > /dev/null
  start_bg t sleep 60
  PATH="$TMP/bin" android_run mac -- -p "$(cat "$TMP/t.pid")" -d 1
  wait_exit "$(cat "$TMP/mac.pid")" 90
  grep -q 'report.html$' "$TMP/mac.out" || { cat "$TMP/mac.out" >&3; false; }
  ! grep -q 'command not found' "$TMP/mac.out"
}

@test "oomscope-android runs on macOS's bash 3.2: no array is expanded as \"\${a[@]}\" unguarded (3.2 under set -u refuses an empty one: 'unbound variable'; bash 5 here accepts it)" {
  local s="$ROOT/scripts/oomscope-android" bad
  # each "${name[@]}" must sit in its guard ${name[@]+"${name[@]}"} (comments aside)
  bad=$(grep -v '^ *#' "$s" | sed -E 's/\$\{([A-Za-z_][A-Za-z_0-9]*)\[@\]\+"\$\{\1\[@\]\}"\}//g' | grep -nE '\$\{[A-Za-z_][A-Za-z_0-9]*\[@\]\}' || true)
  [ -z "$bad" ] || { echo "# unguarded: $bad" >&3; false; }
  # and the guard gives what the plain form does, for an empty array and a full one
  run bash -uc 'a=(); set -- ${a[@]+"${a[@]}"}; echo $#; a=("x y" z); set -- ${a[@]+"${a[@]}"}; echo "$# $1"'
  [ "$output" = $'0\n2 x y' ]
  # the device side without -s (its array empty) reaches adb with no -s
  run env ADB="$ROOT/tests/tools/fake-adb" FAKE_ADB_LOG="$TMP/adb.log" bash -u "$s" --on-device "" "" "echo on-device"
  [ "$status" -eq 0 ]
  [ "$output" = on-device ]
}

@test "oomscope-android --app PKG --shim: the device only dumps (its watch given --no-analyze), the host analyzes the pulled dumps with the watch's leak rules, the page holds the findings; --analyze-on device bounds the analysis there" {
  local go="$TMP/go" run
  # a JVM named as an app's process is (its command line's first word), leaking until it dies
  start_bg jvm bash -c "exec -a com.example.leaky java -Xmx128m -cp '$JAVA_CLASSES' LeakyService --leak-mb-per-s 40 --max-mb 100000 --go '$go'"
  wait_for "$TMP/jvm.out" '^ready pid=' 60
  android_run h -- --app com.example.leaky --shim --no-pool-rules --leak-if 'LeakyService$Session.closed==true'
  wait_for "$TMP/h.out" 'the shim is armed' 120 || { tail -n 20 "$TMP/h.out" >&3; false; }
  touch "$go"
  wait_exit "$(cat "$TMP/h.pid")" 240
  run=$(dirname "$(sed -n 's/^oomscope-android: \(.*report\.html\)$/\1/p' "$TMP/h.out")")
  [ -d "$run" ] || { tail -n 20 "$TMP/h.out" >&3; false; }
  # the device's watch was told not to analyze, and did not
  grep ' shell .*oomscope watch .*--no-analyze' "$TMP/adb.log" > /dev/null
  grep '"type":"dump"' "$run/timeline.jsonl" | jq -se 'length >= 1 and all(.analysis == null and .has_analysis != true)'
  # the host did, each written dump, with the watch's --leak-if: the leak named
  grep -qE '^oomscope report: dump-[0-9]+\.hprof\.gz analyzed in' "$TMP/h.out" || { tail -n 20 "$TMP/h.out" >&3; false; }
  jq -se 'map(.gcPaths[]? | select(.className == "LeakyService$Session")) | length >= 1' "$run"/dump-*.analysis.json
  grep -q 'LeakyService\$SessionCache.CLOSED' "$run/report.html"
  # --analyze-on device: the watch there analyzes, within half the device's MemAvailable
  : > "$TMP/adb.log"
  start_bg t sleep 60
  android_run d --analyze-on device -- -p "$(cat "$TMP/t.pid")" -d 1
  wait_exit "$(cat "$TMP/d.pid")" 90 || { tail -n 20 "$TMP/d.out" >&3; false; }
  grep -qE ' shell .*oomscope watch .*--max-memory [0-9]+K' "$TMP/adb.log"
  ! grep -q -- '--no-analyze' "$TMP/adb.log"
}
