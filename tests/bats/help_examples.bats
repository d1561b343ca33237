#!/usr/bin/env bats
# Every --help example runs as written (issue 47, item 5). The commands are
# those `oomscope --help` lists under "commands:"; a command's examples are the
# lines of its `--help` under "examples:" (or "example:") that start with
# "  oomscope ". Each example runs in a fresh working directory through
# `bash -c`, as a user would paste it, with `oomscope` first on PATH and HOME
# set to the directory's home/. Its text is changed only by the placeholders
# of the first table; the fixtures of the second are copied in when it names
# them, and the PID 4242 stands for is a target started for the example alone
# and ended by its PID after it.
#
# placeholder (as written)  what the example gets instead
#   4242                    the PID of a target started for the example: for
#                           dump, jcmd and a line with --shim, a JVM running
#                           PlantedLeaks (build/classes) --seconds 10 (it ends
#                           10 s after its "ready"); else build/targets/fd_target
#                           -n 1000 -r 200 -t 8 (2,000+ fds over 5 s, and it
#                           ends by itself at 8 s: a watch with no -d, or a -d
#                           longer than that, ends with it)
#   ./server --port 8080    build/targets/fd_target -n 1000 -r 200 -t 8 (a
#                           service that opens fds and ends by itself)
#   -jar service.jar        -cp build/classes PlantedLeaks --seconds 10 (the
#                           class files make compiled, as a jar would be)
#   com.example.Screen      PlantedLeaks$Screen (its `destroyed` field is true in
#                           3 leaked instances)
#   oomscope-1234-          oomscope-PID-, PID that of the target whose watch
#                           wrote the fixture run directory below
#   ~                       HOME, the working directory's home/
#
# fixture (as written)      copied into the working directory from setup_file's
#   app.hprof               a heap dump of PlantedLeaks (tests/hprof/java_dump.sh:
#                           jcmd GC.heap_dump)
#   app.hprof.xz            app.hprof stripped and xz-compressed (`hprof strip
#                           --xz`: how oomscope writes .xz dumps; restore takes
#                           only a stripped dump)
#   lab.sqlite              the store, runs/*/ added to it (oomscope aggregate)
#   runs/*/, runs/svc       run directories, all labelled device=pixel7: svc-4311
#                           (build=4311) and svc (build=4312), `oomscope run --
#                           death_target fds` (an fd leak to EMFILE, then abort());
#                           fdtest (build=4312), `oomscope run -- fd_target`;
#                           leaky-4311 and leaky-4312, the recorded LeakyService
#                           run (tests/fixtures/run-leakyservice) under each build
#   42d7bacc254e7927        as written: LeakyService$Session's leak signature in
#                           the leaky-* runs, so in lab.sqlite
#   oomscope-1234-*/allocs.json
#                           the run directory (named by default) of a `watch
#                           --big-alloc 30M --big-alloc-mode uprobe` of a
#                           stripped alloc_target
#   ~/build/symbols         home/build/symbols/alloc_target, the unstripped file
#
# Every other word is taken as written only if it is an option (-x, --xyz,
# -Xmx256m, --), a number or size, a lowercase word (a value, a subcommand,
# java), a jcmd command (VM.version), a label KEY=VALUE, or a file the example
# writes (the value of -o/--out, hprof strip's and restore's OUT). Any other
# word fails the test as unmapped: a new example gets its placeholder or
# fixture here, never a silent skip. An example's output is checked by
# check_CMD below, for what the example is for; one it has no check for fails.
load helpers

# commands that print fixed text and take no options: no examples
NO_EXAMPLES=" help version "
# the placeholders of more than one word (see the table)
PHRASES=('./server --port 8080' '-jar service.jar')
FD_TARGET_ARGS="-n 1000 -r 200 -t 8"
JAVA_SECONDS=10

setup_file() {
  FIX=$(mktemp -d /tmp/oomscope-helpex.XXXXXX)
  export FIX
  : > "$FIX/pids"
  "$ROOT/tests/hprof/java_dump.sh" "$FIX/app.hprof" PlantedLeaks
  "$OOMSCOPE" hprof strip --xz "$FIX/app.hprof" "$FIX/app.hprof.xz"
  mkdir "$FIX/runs"
  timeout 60 "$OOMSCOPE" run -q --label build=4311 --label device=pixel7 -o "$FIX/runs/svc-4311" \
    -- "$TARGETS/death_target" fds > "$FIX/setup.log" 2>&1
  timeout 60 "$OOMSCOPE" run -q --label build=4312 --label device=pixel7 -o "$FIX/runs/svc" \
    -- "$TARGETS/death_target" fds >> "$FIX/setup.log" 2>&1
  timeout 60 "$OOMSCOPE" run -q --label build=4312 --label device=pixel7 -o "$FIX/runs/fdtest" \
    -- "$TARGETS/fd_target" -n 200 -t 2 >> "$FIX/setup.log" 2>&1
  local b d id
  for b in 4311 4312; do
    d="$FIX/runs/leaky-$b"
    cp -r "$ROOT/tests/fixtures/run-leakyservice" "$d"
    id=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    { head -n 1 "$ROOT/tests/fixtures/run-leakyservice/timeline.jsonl" |
        jq -c --arg id "$id" --arg b "$b" '.run_id = $id | .labels = {build: $b, device: "pixel7"}'
      tail -n +2 "$ROOT/tests/fixtures/run-leakyservice/timeline.jsonl"; } > "$d/timeline.jsonl"
  done
  "$OOMSCOPE" aggregate --db "$FIX/lab.sqlite" "$FIX"/runs/*/ > /dev/null
  # a stripped target's large allocations, in the run directory a watch names by default
  mkdir -p "$FIX/bin" "$FIX/home/build/symbols"
  strip -o "$FIX/bin/alloc_target" "$TARGETS/alloc_target"
  cp "$TARGETS/alloc_target" "$FIX/home/build/symbols/"
  local tpid wpid
  "$FIX/bin/alloc_target" > "$FIX/alloc.out" 2>&1 &
  tpid=$!
  echo "$tpid" >> "$FIX/pids"
  wait_for "$FIX/alloc.out" '^ready pid=' 10
  (cd "$FIX" && exec "$OOMSCOPE" watch -p "$tpid" -d 30 --big-alloc 30M --big-alloc-mode uprobe) > "$FIX/watch.out" 2>&1 &
  wpid=$!
  echo "$wpid" >> "$FIX/pids"
  wait_for "$FIX/watch.out" 'TIME\(s\)' 30
  kill -USR1 "$tpid"
  wait_for "$FIX/alloc.out" '^freed' 20
  kill -INT "$wpid"
  wait_exit "$wpid" 30
  kill -TERM "$tpid"
  wait_exit "$tpid" 10 || true # alloc_target dies of the SIGTERM (143)
  ! kill -0 "$tpid" 2>/dev/null || return 1
  echo "$tpid" > "$FIX/sympid"
  ls -d "$FIX/oomscope-$tpid-"*/allocs.json
  # both ended and waited for: no PID of theirs for teardown_file to end
  : > "$FIX/pids"
}

# what setup_file started and did not end, when it failed half-way
teardown_file() {
  local p
  while read -r p; do
    kill -KILL "$p" 2>/dev/null || true
    rm -f "/tmp/.java_pid$p" # a killed JVM leaves its attach socket
  done < "$FIX/pids"
  rm -rf "$FIX"
}

setup() {
  TMP="$(mktemp -d /tmp/oomscope-bats.XXXXXX)"
  STARTED_PIDS=()
  TRACEFS_BEFORE="$(tracefs_state)"
  mkdir "$TMP/bin"
  ln -s "$(readlink -f "$OOMSCOPE")" "$TMP/bin/oomscope"
  N=0
  EX_LINE=
}

teardown() {
  # what the example that failed printed
  if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "$EX_LINE" ]; then
    echo "# failed: $EX_LINE" >&3
    echo "# ran:    $EX_RAN (status $EX_STATUS)" >&3
    sed 's/^/#   /' "$EX/out" 2>/dev/null | tail -n 40 >&3 || true
  fi
  common_teardown
}

# The commands `oomscope --help` lists, one a line.
help_commands() {
  "$OOMSCOPE" --help | awk '/^commands:$/ {on = 1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}'
}

# examples_of CMD: the example lines of CMD's --help, without their indent.
examples_of() {
  "$OOMSCOPE" "$1" --help | awk '/^examples?:$/ {on = 1; next} on && /^  oomscope / {sub(/^  /, ""); print}'
}

# fixture_path WORD: where in $FIX the fixture WORD names is ("" when it is
# in another fixture); fails for a word that names no fixture
fixture_path() {
  case $1 in
    app.hprof|app.hprof.xz|lab.sqlite) echo "$1" ;;
    'runs/*/') echo runs ;;
    runs/svc) echo runs/svc ;;
    'oomscope-1234-*/allocs.json') (cd "$FIX" && ls -d "oomscope-$(cat sympid)-"*) ;;
    '~/build/symbols') echo home/build/symbols ;;
    42d7bacc254e7927) echo "" ;;
    *) return 1 ;;
  esac
}

# example_words CMD LINE: "KIND WORD" for each word of LINE, KIND one of
# literal, option, output, fixture, placeholder, unmapped (see the tables)
example_words() {
  local cmd=$1 line=$2 p w prev='' i n out=-1
  local -a words
  for p in "${PHRASES[@]}"; do
    [[ $line == *"$p"* ]] && echo "placeholder $p"
    line=${line//"$p"/ }
  done
  mapfile -t words < <(printf '%s\n' "$line" | xargs -n 1 printf '%s\n')
  n=${#words[@]}
  [ "$n" -ge 2 ] || { echo "unmapped (no words: $2)"; return 0; }
  [ "$cmd" = hprof ] && case ${words[2]:-} in strip|restore) out=$((n - 1)) ;; esac
  for ((i = 0; i < n; i++)); do
    w=${words[i]}
    if { [ "$i" -eq 0 ] && [ "$w" = oomscope ]; } || { [ "$i" -eq 1 ] && [ "$w" = "$cmd" ]; }; then
      echo "literal $w"
    elif [ "$i" -eq "$out" ] || [ "$prev" = -o ] || [ "$prev" = --out ]; then
      echo "output $w"
    elif fixture_path "$w" > /dev/null 2>&1; then
      echo "fixture $w"
    elif [[ $w == *4242* || $w == *com.example.Screen* ]]; then
      echo "placeholder $w"
    elif [[ $w == -* ]]; then
      echo "option $w"
    elif [[ $w =~ ^[0-9]+(\.[0-9]+)?[KMG]?$ || $w =~ ^[a-z][a-z0-9+]*$ ||
            $w =~ ^[A-Z][A-Za-z]*\.[a-z_][A-Za-z_]*$ || $w =~ ^[a-z]+=[a-z0-9]+$ ]]; then
      echo "literal $w"
    else
      echo "unmapped $w"
    fi
    prev=$w
  done
}

# substitute LINE PID: LINE with the placeholders replaced, PID for 4242
substitute() {
  local l=$1 cls='PlantedLeaks$Screen'
  l=${l//'./server --port 8080'/"$(printf %q "$TARGETS/fd_target") $FD_TARGET_ARGS"}
  l=${l//'-jar service.jar'/"-cp $(printf %q "$JAVA_CLASSES") PlantedLeaks --seconds $JAVA_SECONDS"}
  l=${l//com.example.Screen/"$cls"}
  l=${l//oomscope-1234-/"oomscope-$(cat "$FIX/sympid")-"}
  [ -z "$2" ] || l=${l//4242/$2}
  printf '%s\n' "$l"
}

# needs_jvm CMD LINE: whether 4242 is a JVM for this example
needs_jvm() {
  [ "$1" = dump ] || [ "$1" = jcmd ] || [[ $2 == *--shim* ]]
}

# run_example CMD LINE: LINE run as written in a fresh directory $EX, with
# its fixtures and its target (EX_PID); then the target ended by its PID.
# Leaves EX_STATUS and $EX/out (stdout and stderr).
run_example() {
  local cmd=$1 line=$2 kinds kind w f t0
  N=$((N + 1))
  EX="$TMP/ex$N"
  EX_LINE=$line EX_RAN='' EX_STATUS='' EX_PID=''
  mkdir -p "$EX/home"
  kinds=$(example_words "$cmd" "$line")
  if grep -q '^unmapped ' <<<"$kinds"; then
    echo "# unmapped in '$line': $(sed -n 's/^unmapped //p' <<<"$kinds" | tr '\n' ' ')" >&3
    return 1
  fi
  while read -r kind w; do
    [ "$kind" = fixture ] || continue
    f=$(fixture_path "$w")
    [ -z "$f" ] || (cd "$FIX" && cp -a --parents "$f" "$EX/")
  done <<<"$kinds"
  if [[ $line == *4242* ]]; then
    if needs_jvm "$cmd" "$line"; then
      start_bg "target$N" java -Xmx256m -cp "$JAVA_CLASSES" PlantedLeaks --seconds "$JAVA_SECONDS"
      wait_for "$TMP/target$N.out" '^ready pid=' 120
    else
      # shellcheck disable=SC2086
      start_bg "target$N" "$TARGETS/fd_target" $FD_TARGET_ARGS
      wait_for "$TMP/target$N.out" '^ready pid=' 10
    fi
    EX_PID=$(cat "$TMP/target$N.pid")
  fi
  EX_RAN=$(substitute "$line" "$EX_PID")
  # what oomscope run starts, oomscope ends (check_run makes sure); every
  # target here also ends by itself within 10 s, should oomscope not
  touch "$EX/.started"
  t0=$SECONDS
  EX_STATUS=0
  (cd "$EX" && HOME="$EX/home" PATH="$TMP/bin:$PATH" timeout -k 5 120 bash -c "$EX_RAN") > "$EX/out" 2>&1 ||
    EX_STATUS=$?
  EX_SECS=$((SECONDS - t0))
  if [ -n "$EX_PID" ]; then
    kill -TERM "$EX_PID" 2>/dev/null || true
    wait_exit "$EX_PID" 20 || true
  fi
}

# has REGEX: a line of the example's output matches (extended regex)
has() {
  grep -qE -- "$1" "$EX/out" || { echo "# no line matches /$1/" >&3; return 1; }
}

# run_dir LINE: the run directory a watch or run wrote: the one it named on
# the terminal, else -o's, else the one it named by default (oomscope-PID-*)
run_dir() {
  local d
  d=$(sed -n 's/^oomscope: run directory: //p' "$EX/out" | tail -n 1)
  [ -n "$d" ] || d=$(value_of -o "$1")
  [ -n "$d" ] || d=$(cd "$EX" && ls -d oomscope-[0-9]*-[0-9]*-[0-9]*)
  case $d in /*) echo "$d" ;; *) echo "$EX/${d//4242/$EX_PID}" ;; esac
}

# value_of OPTION LINE: the word after OPTION in LINE ("" if none)
value_of() {
  local -a w
  local i
  read -ra w <<<"$2"
  for ((i = 0; i + 1 < ${#w[@]}; i++)); do
    [ "${w[i]}" = "$1" ] && { echo "${w[i + 1]}"; return 0; }
  done
  echo ""
}

# record TYPE FILTER: the first record of that type in the timeline $tl is
# there and FILTER holds of it
record() {
  jq -e -s --arg t "$1" "map(select(.type == \$t))[0] | . != null and ($2)" "$tl" > /dev/null ||
    { echo "# no $1 record in $tl of which $2" >&3; return 1; }
}

# watch and run: the run directory and its timeline, the table or the JSON
# lines, how the run stopped, what the target was seen doing
check_watch() {
  local line=$1 d tl pid o
  [ "$EX_STATUS" -eq 0 ]
  d=$(run_dir "$line")
  tl=$d/timeline.jsonl
  [ -s "$tl" ]
  [ -s "$d/report.html" ]
  o=$(value_of -o "$line")
  [ -z "$o" ] || [ "$d" = "$EX/${o//4242/$EX_PID}" ]
  pid=$(jq -r 'select(.type == "start") | .pid' "$tl")
  [[ $pid =~ ^[0-9]+$ ]]
  if [[ $line == "oomscope watch "* ]]; then
    [ "$pid" = "$EX_PID" ]
  else
    # run's command: oomscope ended it, or it ended (no child of ours: gone
    # once the init process has reaped it)
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid"
      echo "# run left its command $pid running" >&3
      return 1
    fi
  fi
  if [[ $line == *--json* ]]; then
    # stdout is the timeline, record for record
    [ "$(grep '^{' "$EX/out" | jq -c 'select(.type == "start") | .run_id')" = "$(jq -c 'select(.type == "start") | .run_id' "$tl")" ]
    [ "$(grep -c '^{"type":"sample"' "$EX/out")" -ge 1 ]
    [ "$(grep -c '^{"type":"sample"' "$EX/out")" -eq "$(grep -c '^{"type":"sample"' "$tl")" ]
  else
    has '^ *TIME\(s\) +RSS\(MB\)'
    has '^ +[0-9]+\.[0-9] +[0-9.]+ +[0-9.]+ +[0-9]+/[0-9]+ +[0-9]+/[0-9]+ '
  fi
  if [[ $line == *--stop-on-crossing* ]]; then
    record crossing '.rule == "fd_count" and .limit == 500'
    record end '.reason == "threshold crossed"'
    [[ $line == *--json* ]] || has '^!! fd_count: [0-9]+ open fds > 500'
  else
    record end '.reason == "target exited" and .how == "exited with code 0"'
    [[ $line == *--json* ]] || has "how it ended: PID $pid exited with code 0"
  fi
  if [[ $line == *--shim* ]]; then
    record runtime '.runtime == "hotspot"'
    record start '.settings.shim == true'
    # the Java heap watched, sample by sample
    record sample '.heap_max > 0 and .heap_used > 0'
    [[ $line == *--json* ]] || has 'the shim is armed'
  else
    # the target's fds, by the function that opened them
    jq -e '[.groups[].stacks[] | select(.created_by // "" | test("^open_looper_pairs "))] | length >= 1' "$d/fds.json" > /dev/null
  fi
}

check_run() { check_watch "$@"; }

# dump: a stripped dump, analyzed; how it was taken; the planted leak when asked for
check_dump() {
  local line=$1 f o
  [ "$EX_STATUS" -eq 0 ]
  f=$(sed -n 's/^dump  *\([^ ]*\) (.*/\1/p' "$EX/out")
  [ -n "$f" ]
  [ -s "$EX/$f" ]
  o=$(value_of -o "$line")
  [ -z "$o" ] || [ "$f" = "$o" ]
  "$OOMSCOPE" hprof check "$EX/$f" | grep -qE '^format +OOMSCOPE STRIPPED app JAVA PROFILE 1\.0\.2'
  jq -e '.analysisDone == true' "$EX/$f.analysis.json" > /dev/null
  case $line in *--load-shim*) has "^dump +$f \(shim-fork\)" ;; esac
  case $line in *"--method jvm"*) has "^dump +$f \(jvm-fifo\)" ;; esac
  case $line in *"com.example.Screen.destroyed==true"*) has '^analysis .*1 leak group\(s\), 3 object\(s\); first: PlantedLeaks\$Screen x3' ;; esac
}

# jcmd: what each diagnostic command prints
check_jcmd() {
  local line=$1 c
  [ "$EX_STATUS" -eq 0 ]
  if grep -q '^oomscope jcmd:' "$EX/out"; then return 1; fi
  c=$(awk '{print $5}' <<<"$line")
  case $c in
    VM.version) has '^OpenJDK .*VM' ;;
    GC.heap_info) has 'garbage-first heap +total [0-9]+K, used [0-9]+K' ;;
    GC.class_histogram)
      has '^ num +#instances +#bytes +class name'
      has ' java\.lang\.String ' ;;
    *) echo "# no check for jcmd $c: say here what it prints" >&3; return 1 ;;
  esac
}

# analyze: the report (text or JSON, on stdout or in -o's file); the planted leak when asked for
check_analyze() {
  local line=$1 r o
  [ "$EX_STATUS" -eq 0 ]
  o=$(value_of -o "$line")
  r=$EX/out
  [ -z "$o" ] || r=$EX/$o
  if [[ $line == *--json* ]]; then
    jq -e '.analysisDone == true and .runningInfo.format == "JAVA PROFILE 1.0.2"' "$r" > /dev/null
  else
    grep -qE '^suspects: [1-9]' "$r"
    grep -qE '^#1  ' "$r"
  fi
  if [[ $line == *"com.example.Screen.destroyed==true"* ]]; then
    if [[ $line == *--json* ]]; then
      jq -e '.gcPaths | length == 1 and .[0].className == "PlantedLeaks$Screen" and .[0].instanceCount == 3' "$r" > /dev/null
    else
      grep -qE '^#1  PlantedLeaks\$Screen x3' "$r"
    fi
  fi
}

# hprof: check's summary; strip's and restore's output, checked in turn
check_hprof() {
  local line=$1 sub out
  [ "$EX_STATUS" -eq 0 ]
  sub=$(awk '{print $3}' <<<"$line")
  out=$EX/$(awk '{print $NF}' <<<"$line")
  case $sub in
    check)
      has '^format +JAVA PROFILE 1\.0\.2$'
      has '^objects +[0-9]+$' ;;
    strip)
      "$OOMSCOPE" hprof check "$out" | grep -qE '^format +OOMSCOPE STRIPPED app JAVA PROFILE 1\.0\.2'
      case $line in *--xz*) xz -t "$out" ;; esac ;;
    restore)
      "$OOMSCOPE" hprof check "$out" | grep -qE '^format +JAVA PROFILE 1\.0\.2$'
      # every record back at its original length
      [ "$(stat -c %s "$out")" -eq "$(stat -c %s "$FIX/app.hprof")" ] ;;
    *) echo "# no check for hprof $sub" >&3; return 1 ;;
  esac
}

# aggregate: each question's table, with the rows the fixtures make
check_aggregate() {
  local line=$1
  [ "$EX_STATUS" -eq 0 ]
  case $line in
    *--new-in*)
      has '^findings in runs with build=4312 and in none with build=4311:$'
      has '^fds +[0-9a-f]{16} +1 .* <- open_looper_pairs \(fd_target\)$'
      if grep -qE 'leak_fds|LeakyService' "$EX/out"; then return 1; fi ;;
    *--history*)
      has '^signature 42d7bacc254e7927 across build'
      has '^4311 +1 +2 +[0-9.]+ (B|KB|MB|GB) +LeakyService\$Session$'
      has '^4312 +1 +3 +[0-9.]+ (B|KB|MB|GB) +LeakyService\$Session$' ;;
    *--deaths*)
      has '^how runs ended, by device:$'
      has '^pixel7 +self-signal +2 +killed by SIGABRT' ;;
    *--signatures*)
      has '^findings by signature, most runs first \(runs with device=pixel7\):$'
      has '^leak +42d7bacc254e7927 +2 .* LeakyService\$Session$' ;;
    *'runs/*/'*)
      has '^5 run\(s\); findings by signature, most runs first:$'
      has '^kind +signature +runs +largest +first seen +last seen +what$'
      has '^fds +[0-9a-f]{16} +2 .* /dev/null <- leak_fds \(death_target\)$' ;;
    *) echo "# no check for this aggregate question" >&3; return 1 ;;
  esac
}

# report: the story on the terminal and a page written now; the store's column with --db
check_report() {
  local line=$1 d
  [ "$EX_STATUS" -eq 0 ]
  d=$(awk '{print $NF}' <<<"$line")
  [ "$EX/$d/report.html" -nt "$EX/.started" ]
  has "^$d/report.html$"
  has '^how it ended: killed by SIGABRT that it sent itself'
  has '^failing calls \(1\):$'
  case $line in *--db*) grep -q "<h2>In the lab's store</h2>" "$EX/$d/report.html" ;; esac
}

# symbolize: the stripped target's frames named, with their source lines
check_symbolize() {
  local f
  [ "$EX_STATUS" -eq 0 ]
  has '^oomscope symbolize: [1-9][0-9]* of [0-9]+ frames symbolized'
  f=$(ls "$EX"/oomscope-*/allocs.json)
  jq -e '[.groups[].frames[] | select(.symbol == "load_image" and (.file | test("alloc_target.c$")) and .line > 0)] | length >= 1' "$f" > /dev/null
}

# run_examples CMD: each example of CMD's --help run and checked
run_examples() {
  local cmd=$1 line
  local -a lines
  mapfile -t lines < <(examples_of "$cmd")
  [ "${#lines[@]}" -ge 1 ]
  for line in "${lines[@]}"; do
    run_example "$cmd" "$line"
    "check_$cmd" "$line"
    echo "# ok ${EX_SECS}s: $line" >&3
  done
  EX_LINE=
}

@test "every command 'oomscope --help' lists has --help examples, a test here, and each word of each mapped" {
  local cmd line n=0 kinds
  local -a cmds
  mapfile -t cmds < <(help_commands)
  [ "${#cmds[@]}" -ge 10 ]
  for cmd in "${cmds[@]}"; do
    if [[ $NO_EXAMPLES == *" $cmd "* ]]; then
      continue
    fi
    [ -n "$(examples_of "$cmd")" ] || { echo "# $cmd --help has no examples" >&3; false; }
    grep -q "^@test \"$cmd: every --help example runs as written" "$BATS_TEST_FILENAME" ||
      { echo "# no test here runs $cmd's examples" >&3; false; }
    while read -r line; do
      kinds=$(example_words "$cmd" "$line")
      ! grep -q '^unmapped ' <<<"$kinds" ||
        { echo "# unmapped in '$line': $(sed -n 's/^unmapped //p' <<<"$kinds" | tr '\n' ' ')" >&3; false; }
      # nothing of a placeholder is left in what runs
      [[ $(substitute "$line" 1) != *4242* && $(substitute "$line" 1) != *com.example* ]]
      n=$((n + 1))
    done < <(examples_of "$cmd")
  done
  echo "# ${#cmds[@]} commands, $n examples" >&3
  # the mapping refuses what it does not know
  [[ $(example_words analyze "oomscope analyze heap.hprof") == *"unmapped heap.hprof"* ]]
  [[ $(example_words watch "oomscope watch -p 4242 -- ./app") == *"unmapped ./app"* ]]
  [[ $(example_words analyze "oomscope analyze --leak-if 'com.example.Screen.gone==true' app.hprof") != *unmapped* ]]
  [[ $(example_words analyze "oomscope analyze --leak-if 'com.example.Page.gone==true' app.hprof") == *unmapped* ]]
  [[ $(example_words analyze "oomscope analyze --leak-class org.example.Cache app.hprof") == *"unmapped org.example.Cache"* ]]
}

@test "watch: every --help example runs as written" {
  run_examples watch
}

@test "run: every --help example runs as written" {
  run_examples run
}

@test "dump: every --help example runs as written" {
  run_examples dump
}

@test "jcmd: every --help example runs as written" {
  run_examples jcmd
}

@test "hprof: every --help example runs as written" {
  run_examples hprof
}

@test "analyze: every --help example runs as written" {
  run_examples analyze
}

@test "symbolize: every --help example runs as written" {
  run_examples symbolize
}

@test "report: every --help example runs as written" {
  run_examples report
}

@test "aggregate: every --help example runs as written" {
  run_examples aggregate
}
