#!/usr/bin/env bats
# watch --app PACKAGE: an app's process by its name, as a lab knows it. A
# zygote-like parent (tests/targets/zygote.c) forks the app, which names
# itself as ART does and runs its code at once; oomscope, waiting, holds it
# from the moment it takes its name (the kernel side stops it there) until
# the probes are attached, so the app's first fd and thread are seen.
load helpers

PKG=com.example.leakyapp
PAD=0123456789abcdef0123456789abcdef

@test "watch --app: waits for the app to start, holds it from its name on, and misses nothing of its start" {
  start_bg zygote "$TARGETS/zygote" "$PKG" "$PAD"
  wait_for "$TMP/zygote.out" '^zygote pid=' 10
  start_bg w "$OOMSCOPE" watch --app "$PKG" -o "$TMP/run"
  wait_for "$TMP/w.out" 'waiting for the app to start' 60
  kill -USR1 "$(cat "$TMP/zygote.pid")"
  wait_for "$TMP/zygote.out" '^app pid=[0-9]+ done' 60
  local app; app=$(sed -n 's/^app pid=\([0-9]*\) done.*/\1/p' "$TMP/zygote.out")
  STARTED_PIDS+=("$app")
  grep -q "$PKG is PID $app (held from its start until attached)" "$TMP/w.out"
  # how long it was held, stopped at its rename: the activity manager kills an app that has
  # not attached to it within its process-start timeout (10 s), which the hold eats into
  local held; held=$(sed -n 's/^app pid=[0-9]* done.* held_ms=\([0-9]*\).*/\1/p' "$TMP/zygote.out")
  echo "# held from its name to its release: $held ms" >&3
  [ "$held" -ge 1 ]
  [ "$(tr '\0' '\n' < "/proc/$app/cmdline" | head -n1)" = "$PKG" ]
  [ "$(cat "/proc/$app/comm")" = "example.leakyapp" ] || [ "$(cat "/proc/$app/comm")" = "${PKG: -15}" ]
  # it runs on (SIGCONT after the attach)
  ! grep -q '^State:.*stopped' "/proc/$app/status"
  kill -INT "$(cat "$TMP/w.pid")"
  wait_exit "$(cat "$TMP/w.pid")" 60
  local f="$TMP/run/fds.json"
  jq -e '[.groups[] | .stacks[] | select(.created_by == "app_open_cache (zygote)") | .count] | add == 30' "$f" ||
    { jq -c '[.groups[] | {kind, count, s: [.stacks[] | {count, created_by}]}]' "$f" >&3; false; }
  jq -e '[.groups[] | .stacks[] | select(.created_by == "app_start_workers (zygote)") | .count] | add == 4' "$TMP/run/threads.json"
  jq -se '[.[] | select(.type == "start")][0] | .pid == '"$app"' and .command == "'"$PKG"'"' "$TMP/run/timeline.jsonl"
}

@test "watch --app on an app already running attaches at once; a name nobody takes ends in one line after --app-timeout" {
  start_bg zygote "$TARGETS/zygote" "$PKG" "$PAD"
  wait_for "$TMP/zygote.out" '^zygote pid=' 10
  kill -USR1 "$(cat "$TMP/zygote.pid")"
  wait_for "$TMP/zygote.out" '^app pid=[0-9]+ done' 30
  local app; app=$(sed -n 's/^app pid=\([0-9]*\) done.*/\1/p' "$TMP/zygote.out")
  STARTED_PIDS+=("$app")
  start_bg w "$OOMSCOPE" watch --app "$PKG" -o "$TMP/run"
  wait_for "$TMP/w.out" 'TIME\(s\)' 60
  grep -q "$PKG is PID $app\$" "$TMP/w.out"
  kill -INT "$(cat "$TMP/w.pid")"
  wait_exit "$(cat "$TMP/w.pid")" 60
  jq -e '.groups[] | select(.kind == "/dev/null") | .count == 30' "$TMP/run/fds.json" ||
    jq -e '[.groups[] | select(.kind | test("null")) | .count] | add >= 30' "$TMP/run/fds.json"
  run timeout 30 "$OOMSCOPE" watch --app com.example.nobody --app-timeout 1 -o "$TMP/none"
  [ "$status" -eq 1 ]
  [ "${lines[-1]}" = "oomscope watch: no process named com.example.nobody started within 1 s" ]
  run "$OOMSCOPE" watch --app "$PKG" -p 1
  [ "$status" -eq 2 ]
  [[ "$output" == *"-p and --app name the target twice"* ]]
}

@test "watch --app: an app several Android users run: one line naming each, --user N chooses; PKG:process names one of its processes" {
  local p=com.example.multi u
  # uid / 100000 is the Android user: 10123 is user 0's app, 1010123 user 10's
  start_bg u0 setpriv --reuid=10123 --regid=10123 --clear-groups bash -c "exec -a $p sleep 120"
  start_bg u10 setpriv --reuid=1010123 --regid=1010123 --clear-groups bash -c "exec -a $p sleep 120"
  start_bg remote setpriv --reuid=10123 --regid=10123 --clear-groups bash -c "exec -a $p:remote sleep 120"
  local a b r
  a=$(cat "$TMP/u0.pid") b=$(cat "$TMP/u10.pid") r=$(cat "$TMP/remote.pid")
  for u in "$a:$p" "$b:$p" "$r:$p:remote"; do
    for _ in $(seq 100); do
      [ "$(tr '\0' '\n' < "/proc/${u%%:*}/cmdline" | head -n1)" = "${u#*:}" ] && break
      sleep 0.1
    done
    [ "$(tr '\0' '\n' < "/proc/${u%%:*}/cmdline" | head -n1)" = "${u#*:}" ]
  done
  run timeout 60 "$OOMSCOPE" watch --app "$p" -d 1 -o "$TMP/r0"
  echo "$output"
  [ "$status" -eq 1 ]
  [ "$(wc -l <<<"$output")" -eq 1 ]
  [[ "$output" == "oomscope watch: $p runs for more than one Android user: "*"; choose one with --user N" ]]
  [[ "$output" == *"PID $a (user 0)"* && "$output" == *"PID $b (user 10)"* && "$output" != *"PID $r "* ]]
  [ ! -e "$TMP/r0" ]
  run timeout 60 "$OOMSCOPE" watch --app "$p" --user 10 -d 1 -o "$TMP/r10"
  [ "$status" -eq 0 ]
  grep -q "^oomscope: $p is PID $b\$" <<<"$output"
  run timeout 60 "$OOMSCOPE" watch --app "$p:remote" -d 1 -o "$TMP/rr"
  [ "$status" -eq 0 ]
  grep -q "^oomscope: $p:remote is PID $r\$" <<<"$output"
  run "$OOMSCOPE" watch --user 10 -p "$a"
  [ "$status" -eq 2 ]
  [[ "$output" == *"--user chooses among the processes of --app PACKAGE: give --app too"* ]]
}
