#!/usr/bin/env bats
# Where the output goes: a device, FIFO or /dev/stdout is written in place,
# never renamed over (an earlier writer replaced /dev/null with a regular
# file); bytes from a hostile file reach the terminal escaped, on one line.
load helpers
load corpus

SMALL="$WORLD/ahat-RI.hprof"

devnull_intact() {
  [ -c /dev/null ] && [ "$(stat -c '%t:%T' /dev/null)" = "1:3" ]
}

@test "analyze -o /dev/null leaves /dev/null a character device" {
  corpus_ready
  "$OOMSCOPE" analyze -q --json -o /dev/null "$SMALL"
  devnull_intact
  ! ls /dev/null.tmp.* 2>/dev/null
}

@test "hprof strip and restore into /dev/null leave it a character device" {
  corpus_ready
  "$OOMSCOPE" hprof strip "$SMALL" /dev/null
  devnull_intact
  "$OOMSCOPE" hprof strip "$SMALL" "$TMP/s.hprof"
  "$OOMSCOPE" hprof restore "$TMP/s.hprof" /dev/null
  devnull_intact
}

@test "analyze and strip write whole output into a FIFO, read as it is written" {
  corpus_ready
  mkfifo "$TMP/fifo"
  cat "$TMP/fifo" > "$TMP/got.json" &
  local reader=$!
  STARTED_PIDS+=("$reader")
  "$OOMSCOPE" analyze -q --json -o "$TMP/fifo" "$SMALL"
  wait "$reader"
  [ -p "$TMP/fifo" ]
  jq -e '.topRetainers | length > 0' "$TMP/got.json"
  "$OOMSCOPE" analyze -q --json -o "$TMP/file.json" "$SMALL"
  diff <(jq -S 'del(.runningInfo.analysisSeconds, .timings)' "$TMP/file.json") \
       <(jq -S 'del(.runningInfo.analysisSeconds, .timings)' "$TMP/got.json")

  cat "$TMP/fifo" > "$TMP/got.hprof" &
  reader=$!
  STARTED_PIDS+=("$reader")
  "$OOMSCOPE" hprof strip "$SMALL" "$TMP/fifo"
  wait "$reader"
  [ -p "$TMP/fifo" ]
  "$OOMSCOPE" hprof strip "$SMALL" "$TMP/file.hprof"
  cmp "$TMP/got.hprof" "$TMP/file.hprof"
}

@test "analyze -o /dev/stdout writes to the pipe it names" {
  corpus_ready
  run bash -c "'$OOMSCOPE' analyze -q --json -o /dev/stdout '$SMALL' | jq -r '.topRetainers | length'"
  [ "$status" -eq 0 ]
  [ "$output" -gt 0 ]
}

@test "a header holding a newline and a terminal escape is quoted in the error, on one line" {
  printf 'JAVA PROFILE 1.0.2\nX\033[31mRED\0\0\0\0\4\0\0\0\0\0\0\0\0' > "$TMP/bad.hprof"
  for cmd in "analyze" "hprof check" "hprof strip"; do
    run bash -c "'$OOMSCOPE' $cmd '$TMP/bad.hprof' $([ "$cmd" = "hprof strip" ] && echo "'$TMP/o.hprof'") 2>&1"
    [ "$status" -ne 0 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *'unknown header "JAVA PROFILE 1.0.2\nX\x1b[31mRED"'* ]]
    [[ "$output" != *$'\033'* ]]
  done
  [ ! -e "$TMP/o.hprof" ]
}

@test "a symlink planted at the run directory's timeline is refused, its target untouched" {
  mkdir -p "$TMP/run"
  echo "precious" > "$TMP/victim"
  ln -s "$TMP/victim" "$TMP/run/timeline.jsonl"
  run timeout 30 "$OOMSCOPE" run -o "$TMP/run" -d 1 -- sleep 5
  [ "$status" -eq 1 ]
  [[ "$output" == *"timeline.jsonl: Too many levels of symbolic links (a symbolic link: refused)"* ]]
  [ "$(cat "$TMP/victim")" = "precious" ]
  [ -L "$TMP/run/timeline.jsonl" ]
  # the other run files are written through a temp name and renamed over the name, never followed
  mkdir -p "$TMP/run2"
  ln -s "$TMP/victim" "$TMP/run2/fds.json"
  run timeout 30 "$OOMSCOPE" run -o "$TMP/run2" -d 1 -- sleep 5
  [ "$status" -eq 0 ]
  [ "$(cat "$TMP/victim")" = "precious" ]
  [ ! -L "$TMP/run2/fds.json" ]
  jq -e .groups "$TMP/run2/fds.json" > /dev/null
}

@test "a hostile target's names (newline, quote, backslash, terminal escape, invalid UTF-8, HTML) come out escaped in JSON, HTML and on the terminal" {
  mkdir "$TMP/names"
  run timeout 60 "$OOMSCOPE" run -d 2 -o "$TMP/run" -- "$TARGETS/hostile_target" "$TMP/names" 10
  [ "$status" -eq 0 ]
  # the terminal: no escape byte, no byte that is not UTF-8, each name on its one line
  ! grep -q $'\x1b' <<<"$output"
  python3 -c 'import sys; sys.stdin.buffer.read().decode("utf-8")' <<<"$output"
  # (grouped names: digits folded to *, as poller-0..59 are one group)
  [[ "$output" == *'threads \e[*mred\e[*m '* ]]
  [[ "$output" == *'threads bad\xff\xfeutf* '* ]]
  # a raw newline would have put the rest of "new\nline" on a line of its own
  ! grep -qE '^line +<- ' <<<"$output"
  # the files are strict UTF-8 JSON holding the names exactly (invalid bytes as U+FFFD)
  local f
  for f in threads.json fds.json timeline.jsonl; do
    python3 -c 'import json, sys
for line in (open(sys.argv[1], encoding="utf-8").read().splitlines() if sys.argv[1].endswith("l") else [open(sys.argv[1], encoding="utf-8").read()]):
    json.loads(line)' "$TMP/run/$f"
  done
  local names; names=$(jq -r '[.. | strings] | unique | .[]' "$TMP/run/threads.json")
  grep -qxF $'\x1b[31mred\x1b[0m' <<<"$names"
  grep -qxF 'quote"back\' <<<"$names"
  grep -qxF '<b>&amp;<i>' <<<"$names"
  grep -qxF $'bad\xef\xbf\xbd\xef\xbf\xbdutf8' <<<"$names"
  jq -e --arg p "$TMP/names/new"$'\n'"line" '[.. | strings] | index($p) != null' "$TMP/run/fds.json"
  jq -e --arg p "$TMP/names/quote\"back\\" '[.. | strings] | index($p) != null' "$TMP/run/fds.json"
  # the page: names as text, never as markup or raw control bytes
  local h="$TMP/run/report.html"
  ! grep -q $'\x1b' "$h"
  ! grep -qF '<b>&amp;<i>' "$h"
  grep -qF '&lt;b&gt;&amp;amp;&lt;i&gt;' "$h"
  grep -qF '\x1b[*mred\x1b[*m' "$h"
}
