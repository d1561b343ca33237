#!/usr/bin/env bats
# The lab's store in PostgreSQL (issue 34): a throwaway server of the test's
# own (Debian's PostgreSQL, its data directory and socket under a temp
# directory, run as an unprivileged user, no TCP), the same answers as
# SQLite's, and several processes adding runs at once.
load helpers

PG=$ROOT/scripts/pg-throwaway.sh

setup_file() {
  PGDIR=$(mktemp -d /tmp/oomscope-pg.XXXXXX)
  export PGDIR
  "$PG" start "$PGDIR" > /dev/null
}

teardown_file() {
  "$PG" stop "$PGDIR"
  rm -rf "$PGDIR"
}

# pgdb NAME: a fresh database; its connection string on stdout
pgdb() { "$PG" createdb "$PGDIR" "$1"; }

# relabel SRC DST ID BUILD DEVICE DAY: a copy of run directory SRC as another
# run: its start record's run_id, labels and start time replaced
relabel() {
  cp -r "$1" "$2"
  { head -n 1 "$1/timeline.jsonl" |
      jq -c --arg id "$3" --arg b "$4" --arg d "$5" --arg w "2026-11-$6T10:00:00Z" \
        '.run_id = $id | .labels = {build: $b, device: $d} | .wall_time = $w'
    tail -n +2 "$1/timeline.jsonl"; } > "$2/timeline.jsonl"
}

# a fresh run id (32 hex digits)
new_id() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }

@test "50 run directories in SQLite and in PostgreSQL: every question answered alike, text and JSON" {
  # four kinds of run: an fd burst, a thread burst (both real, made here), and two recorded Java runs with leaks
  run timeout 60 "$OOMSCOPE" run -q -o "$TMP/t-fds" -- "$TARGETS/death_target" fds
  run timeout 60 "$OOMSCOPE" run -q -o "$TMP/t-threads" -- "$TARGETS/death_target" threads
  cp -r "$ROOT/tests/fixtures/run-leakyservice" "$TMP/t-leaky"
  cp -r "$ROOT/tests/fixtures/run-plantedleaks" "$TMP/t-planted"
  local t=(fds threads leaky planted) i
  mkdir "$TMP/runs"
  for i in $(seq 1 50); do
    relabel "$TMP/t-${t[$((i % 4))]}" "$TMP/runs/r$i" "$(new_id)" $((4300 + i % 7)) "d$((i % 3))" "$(printf %02d $((1 + i % 28)))"
  done
  local pg; pg=$(pgdb alike)
  run "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" "$TMP"/runs/r*
  [ "$status" -eq 0 ]
  run "$OOMSCOPE" aggregate --db "$pg" "$TMP"/runs/r*
  [ "$status" -eq 0 ]
  local fds
  fds=$("$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" --json --signatures | jq -r '[.rows[] | select(.kind == "fds")][0].signature')
  [ -n "$fds" ] && [ "$fds" != null ]
  local q queries=("" "--signatures" "--signatures --where build=4301" "--new-in build=4302 --since build=4301"
    "--history $fds --across build" "--deaths --across device" "--deaths --where build=4303" "--deaths")
  for q in "${queries[@]}"; do
    for j in "" --json; do
      "$OOMSCOPE" aggregate --db "$TMP/lab.sqlite" $j $q > "$TMP/sqlite.out"
      "$OOMSCOPE" aggregate --db "$pg" $j $q > "$TMP/pg.out"
      diff "$TMP/sqlite.out" "$TMP/pg.out" >&3 || { echo "# aggregate $j $q: SQLite and PostgreSQL differ" >&3; false; }
      [ "$(wc -l < "$TMP/sqlite.out")" -ge 1 ]
    done
  done
  # and they say something: 50 runs, the fd burst in the runs of its kind
  "$OOMSCOPE" aggregate --db "$pg" --json | jq -e '.runs == 50 and (.leaks | length) >= 2'
  local n; n=$("$OOMSCOPE" aggregate --db "$pg" --json --signatures | jq --arg s "$fds" '.rows[] | select(.signature == $s) | .runs')
  [ "$n" -ge 12 ]
  "$OOMSCOPE" aggregate --db "$pg" --json --history "$fds" --across build | jq -e --argjson n "$n" '[.rows[].runs] | add == $n'
}

@test "four processes adding 60 runs each to one PostgreSQL database at once: 240 stored, none twice, none lost; all again, and overlapping: nothing changes" {
  run timeout 60 "$OOMSCOPE" run -q --no-children -o "$TMP/t" -- "$TARGETS/fd_target" -n 20 -t 1
  [ "$status" -eq 0 ]
  mkdir "$TMP/runs"
  local i p
  for i in $(seq 0 239); do
    relabel "$TMP/t" "$TMP/runs/r$i" "$(new_id)" $((i / 30)) "d$((i % 4))" 01
  done
  local pg; pg=$(pgdb many)
  # four at once, 60 each (each adder's transactions interleave with the others' from its first run)
  for p in 0 1 2 3; do
    start_bg add$p "$OOMSCOPE" aggregate --db "$pg" $(for i in $(seq $((p * 60)) $((p * 60 + 59))); do echo "$TMP/runs/r$i"; done)
  done
  for p in 0 1 2 3; do
    wait_exit "$(cat "$TMP/add$p.pid")" 300 || { echo "# adder $p: $(tail -n 3 "$TMP/add$p.out")" >&3; false; }
  done
  count() { "$OOMSCOPE" aggregate --db "$pg" --json --signatures | jq -c '[.rows[] | {signature, runs}]'; }
  local before; before=$(count)
  jq -e 'length > 0 and all(.runs == 240)' <<<"$before"
  "$OOMSCOPE" aggregate --db "$pg" --json | jq -e '.runs == 240'
  "$OOMSCOPE" aggregate --db "$pg" --json --deaths --across build | jq -e '[.rows[].runs] | add == 240 and length == 8'
  # all again, four at once, each half of the runs (every run added by two of them at the same time)
  for p in 0 1 2 3; do
    start_bg again$p "$OOMSCOPE" aggregate --db "$pg" $(for i in $(seq 0 119); do echo "$TMP/runs/r$(((p * 60 + i) % 240))"; done)
  done
  for p in 0 1 2 3; do
    wait_exit "$(cat "$TMP/again$p.pid")" 300 || { echo "# adder $p again: $(tail -n 3 "$TMP/again$p.out")" >&3; false; }
  done
  [ "$(count)" = "$before" ]
  "$OOMSCOPE" aggregate --db "$pg" --json | jq -e '.runs == 240'
}

@test "a PostgreSQL store that cannot be reached, and libpq's errors: one line, exit 1" {
  run "$OOMSCOPE" aggregate --db "host=$PGDIR port=5999 user=lab dbname=postgres" "$TMP"
  [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == "oomscope aggregate: the PostgreSQL store: "* ]]
  run "$OOMSCOPE" aggregate --db "host=$PGDIR port=5432 user=lab dbname=nosuchdb" --signatures
  [ "$status" -eq 1 ] && [ "${#lines[@]}" -eq 1 ] && [[ "$output" == *nosuchdb* ]]
}
