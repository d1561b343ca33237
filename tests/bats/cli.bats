#!/usr/bin/env bats
# The CLI refuses bad input with one clear line and a non-zero exit.
load helpers

@test "help explains the commands and options" {
  run "$OOMSCOPE" help
  [ "$status" -eq 0 ]
  [[ "$output" == *"watch -p PID"* ]]
  [[ "$output" == *"run [options] -- CMD"* ]]
  run "$OOMSCOPE" watch --help
  [ "$status" -eq 0 ]
  [[ "$output" == *"--interval"* ]]
  [[ "$output" == *"--fd-ratio"* ]]
  [[ "$output" == *"timeline.jsonl"* ]]
}

@test "no command and an unknown command exit 2 with one line" {
  run "$OOMSCOPE"
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" frobnicate
  [ "$status" -eq 2 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"unknown command 'frobnicate'"* ]]
}

@test "an unknown option or a missing value: one line naming it, exit 2, for every command" {
  local cmd
  for cmd in watch run analyze dump report aggregate symbolize "hprof check" "hprof strip" "hprof restore"; do
    run $OOMSCOPE $cmd --no-such-option
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == "oomscope $cmd: unknown option --no-such-option (see \`oomscope $cmd --help\`)" ]]
  done
  run "$OOMSCOPE" watch -Z
  [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"unknown option -Z"* ]]
  for args in "watch -p" "analyze -o" "hprof strip --level" "aggregate --db" "dump -p"; do
    run $OOMSCOPE $args
    [ "$status" -eq 2 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"${args##* } needs a value"* ]]
  done
  # each hprof subcommand's help comes from its options table
  run "$OOMSCOPE" hprof strip --help
  [ "$status" -eq 0 ]
  [[ "$output" == *"--level N"*"gzip 1..9"* ]]
  [[ "$output" == *"restore: turns a stripped dump back"* ]]
}

@test "watch refuses a PID that does not exist" {
  run "$OOMSCOPE" watch -p 999999999 -d 1
  [ "$status" -ne 0 ]
  [[ "$output" == *"invalid PID"* || "$output" == *"no process with PID"* ]]
  # a free PID below pid_max
  local pid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
  while [ -e "/proc/$pid" ]; do pid=$((pid - 1)); done
  run "$OOMSCOPE" watch -p "$pid" -d 1 -o "$TMP/run"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "oomscope: no process with PID $pid" ]]
  [ ! -e "$TMP/run" ]
}

@test "bad option values are refused" {
  run "$OOMSCOPE" watch -p 1 -i abc
  [ "$status" -eq 2 ]
  [[ "$output" == *"invalid interval 'abc'"* ]]
  run "$OOMSCOPE" watch -p 1 -d -3
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" watch -p 1 --fd-ratio 1.5
  [ "$status" -eq 2 ]
  [[ "$output" == *"invalid ratio"* ]]
  run "$OOMSCOPE" watch -p 1 --big-map 12Q
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" watch
  [ "$status" -eq 2 ]
  [[ "$output" == *"watch needs -p PID"* ]]
  run "$OOMSCOPE" run
  [ "$status" -eq 2 ]
  [[ "$output" == *"run needs a command"* ]]
  # labels: KEY=VALUE, a key once, a value without control characters
  local bad
  for bad in nokey =x 'a b=1' "k=$(printf 'x\ty')" "$(printf 'k%.0s' $(seq 1 65))=v"; do
    run "$OOMSCOPE" run --label "$bad" -o "$TMP/l" -- true
    [ "$status" -eq 2 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *"--label"* ]] || { echo "# --label '$bad': $output" >&3; false; }
  done
  run "$OOMSCOPE" run --label a=1 --label a=2 -o "$TMP/l" -- true
  [ "$status" -eq 2 ] && [[ "$output" == *"its KEY given twice"* ]]
  [ ! -e "$TMP/l" ]
}

@test "a run's identity and --label: a random id, the host, the labels in the start record; a child's run the same labels, its own id" {
  run timeout 60 "$OOMSCOPE" run -q --label build=4312 --label "device=Pixel 7 (emulator)" --label test.name=cold-start \
    -o "$TMP/a" -- sh -c "'$TARGETS/fd_target' -n 10 -t 1 > /dev/null; true"
  [ "$status" -eq 0 ]
  run timeout 60 "$OOMSCOPE" run -q --no-children -o "$TMP/b" -- true
  [ "$status" -eq 0 ]
  local a b kid
  a=$(head -n 1 "$TMP/a/timeline.jsonl") b=$(head -n 1 "$TMP/b/timeline.jsonl")
  jq -c '{run_id, host, labels}' <<<"$a" >&3
  jq -e --arg h "$(hostname)" '.type == "start" and (.run_id | test("^[0-9a-f]{32}$")) and .host == $h
     and .labels == {"build": "4312", "device": "Pixel 7 (emulator)", "test.name": "cold-start"}' <<<"$a"
  jq -e '(.run_id | test("^[0-9a-f]{32}$")) and .labels == {}' <<<"$b"
  [ "$(jq -r .run_id <<<"$a")" != "$(jq -r .run_id <<<"$b")" ]
  # the process it started: watched with the same labels, under an id of its own
  kid=$(ls -d "$TMP"/a/children/*/ | head -n 1)
  head -n 1 "$kid/timeline.jsonl" | jq -e --arg parent "$(jq -r .run_id <<<"$a")" \
    '.labels.build == "4312" and .labels["test.name"] == "cold-start" and (.run_id | test("^[0-9a-f]{32}$")) and .run_id != $parent'
}

@test "not root: refused with a reason" {
  run setpriv --reuid=65534 --regid=65534 --clear-groups "$OOMSCOPE" watch -p 1 -d 1
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"must run as root"* ]]
}

@test "run of a command that does not exist says so, leaves no child" {
  run timeout 30 "$OOMSCOPE" run -d 2 -o "$TMP/run" -- /nonexistent/prog
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot run /nonexistent/prog: No such file or directory"* ]]
}

@test "an unreadable --btf file is named" {
  run timeout 30 "$OOMSCOPE" watch -p $$ -d 1 --btf "$TMP/missing.btf" -o "$TMP/run"
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot read BTF file $TMP/missing.btf"* ]]
}

@test "an unwritable run directory is refused before watching" {
  touch "$TMP/file"
  run timeout 30 "$OOMSCOPE" watch -p $$ -d 1 -o "$TMP/file/sub"
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot create run directory"* ]]
}
