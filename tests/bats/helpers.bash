# Shared helpers for the BATS suites. Every process a test starts is recorded
# and ended by PID in teardown; temp dirs are removed.

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
# `make test SAN=1` runs the sanitized binary, tools and replays (build-san/);
# the test targets and the shim are always the plain ones in build/
OOMSCOPE="${OOMSCOPE:-$ROOT/oomscope}"
BUILD_DIR="$ROOT/${OOMS_BUILD:-build}"
TARGETS="$ROOT/build/targets"
# the Java apps of tests/java, compiled once by make (run: java -cp "$JAVA_CLASSES" PlantedLeaks)
JAVA_CLASSES="$ROOT/build/classes"

setup() {
  TMP="$(mktemp -d /tmp/oomscope-bats.XXXXXX)"
  STARTED_PIDS=()
  TRACEFS_BEFORE="$(tracefs_state)"
}

teardown() {
  common_teardown
}

# What every test's teardown does (a file with more to end calls it after).
common_teardown() {
  local p
  for p in "${STARTED_PIDS[@]}"; do
    kill -TERM "$p" 2>/dev/null || true
  done
  for p in "${STARTED_PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  # oomscope unmounts tracefs when it mounted it, but not when killed, and a
  # test that read tracefs mounted it (tracefs_dir): unmounted before, it is
  # unmounted again, and the state must be as before
  [ "$TRACEFS_BEFORE" = mounted ] || [ "$(tracefs_state)" = unmounted ] || umount /sys/kernel/tracing 2>/dev/null || true
  [ "$(tracefs_state)" = "$TRACEFS_BEFORE" ] || echo "# tracefs state changed: $TRACEFS_BEFORE -> $(tracefs_state)" >&3
  teardown_cgroups
  # a JVM killed leaves its attach socket (/tmp/.java_pidN): those made during
  # this test (after bats made its folder, which the tests leave as it is)
  # whose process is gone
  local s
  for s in $(find /tmp -maxdepth 1 -name '.java_pid*' -newer "$BATS_TEST_TMPDIR" 2>/dev/null); do
    kill -0 "${s#/tmp/.java_pid}" 2>/dev/null || rm -f "$s"
  done
  rm -rf "$TMP"
}

# cgroup_dir CONTROLLER: a fresh cgroup of ours for that controller (v1 where
# it is mounted so, else the v2 hierarchy); removed in teardown_cgroups.
cgroup_dir() {
  local ctl=$1 mnt rel dir
  mnt=$(awk -v c="$ctl" '$3 == "cgroup" && ("," $4 ",") ~ ("," c ",") {print $2; exit}' /proc/self/mounts)
  if [ -n "$mnt" ]; then
    rel=$(awk -F: -v c="$ctl" '("," $2 ",") ~ ("," c ",") {print $3; exit}' /proc/self/cgroup)
  else
    mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
    rel=$(awk -F: '$1 == "0" {print $3; exit}' /proc/self/cgroup)
  fi
  dir="$mnt${rel%/}/oomscope-test-$$-$ctl"
  mkdir -p "$dir"
  echo "$dir" >> "$TMP/cgroups"
  echo "$dir"
}

# cgroup2_dir: a fresh cgroup of ours in the v2 hierarchy (the unified one
# beside v1's where both are mounted); removed in teardown_cgroups. Fails
# where no cgroup2 is mounted.
cgroup2_dir() {
  local mnt rel dir
  mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
  [ -n "$mnt" ] || return 1
  rel=$(awk -F: '$1 == "0" {print $3; exit}' /proc/self/cgroup)
  dir="$mnt${rel%/}/oomscope-test-$$-v2"
  mkdir -p "$dir"
  echo "$dir" >> "$TMP/cgroups"
  echo "$dir"
}

teardown_cgroups() {
  local d
  [ -f "$TMP/cgroups" ] || return 0
  while read -r d; do
    for _ in $(seq 1 50); do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
  done < "$TMP/cgroups"
}

# tracefs_dir: where tracefs is mounted; mounted for this test (unmounted in
# teardown) when it was not, so what a test reads there is the kernel's
tracefs_dir() {
  local d
  for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
    [ -d "$d/events" ] && { echo "$d"; return 0; }
  done
  mount -t tracefs none /sys/kernel/tracing && echo /sys/kernel/tracing
}

tracefs_state() {
  if grep -q ' /sys/kernel/tracing tracefs' /proc/mounts; then echo mounted; else echo unmounted; fi
}

# start_bg NAME CMD...: runs CMD in the background, stdout+stderr to $TMP/NAME.out,
# records its PID in STARTED_PIDS and in $TMP/NAME.pid.
start_bg() {
  local name=$1; shift
  "$@" > "$TMP/$name.out" 2>&1 &
  local pid=$!
  STARTED_PIDS+=("$pid")
  echo "$pid" > "$TMP/$name.pid"
}

# run_ready REGEX CMD...: bats' run for an `oomscope run` whose target says
# REGEX once it has made what the test then reads: oomscope gets SIGINT at
# that line, so the run ends after it however slow the machine (a duration
# is a guard only: a loaded machine can reach a short one first); within
# 120 s in all. Sets status and output as run does.
run_ready() {
  local re=$1 f pid i; shift
  f=$(mktemp "$TMP/run_ready.XXXXXX")
  # --foreground: the SIGINT reaches oomscope alone, which then ends its target
  timeout --foreground 120 "$@" > "$f" 2>&1 &
  pid=$!
  STARTED_PIDS+=("$pid")
  for i in $(seq 1 1100); do
    grep -qE "$re" "$f" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -INT "$pid" 2>/dev/null || true
  status=0
  wait "$pid" || status=$?
  output=$(cat "$f")
}

# wait_for FILE REGEX [SECS]: until a line of FILE matches.
wait_for() {
  local file=$1 re=$2 secs=${3:-10} i
  for i in $(seq 1 $((secs * 10))); do
    grep -qE "$re" "$file" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "# timed out waiting for /$re/ in $file:" >&3
  sed 's/^/#   /' "$file" >&3 2>/dev/null || true
  return 1
}

# wait_exit PID [SECS]: until PID is gone (it must be our child); returns its status.
wait_exit() {
  local pid=$1 secs=${2:-20} i
  for i in $(seq 1 $((secs * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "# PID $pid still running after ${secs}s" >&3
    return 124
  fi
  wait "$pid"
}

# The last sample line of a timeline.
last_sample() {
  grep '"type":"sample"' "$1" | tail -n 1
}

# Frames' symbols of the stacks of group KEY=VALUE in a threads/fds json, one per line.
group_symbols() { # FILE KEYFIELD VALUE
  jq -r --arg v "$3" ".groups[] | select(.$2 == \$v) | .stacks[] | (.frames // [])[].symbol // empty" "$1"
}

# fds_diag RUNDIR: what a failed check of a run's fds needs (to fd 3): each
# group's stacks (count, who made them or why unknown) and what the end
# record counted of the kernel side's events
fds_diag() {
  jq -c '.groups[] | .kind as $k | .stacks[] | {kind: $k, count, created_by, unknown}' "$1/fds.json" >&3 || true
  grep '"type":"end"' "$1/timeline.jsonl" |
    jq -c '{events_sent, events_received, ringbuf_drops, skipped_runs, fds_without_event}' >&3 || true
}

# watch_burst PID DONE_REGEX WATCH_ARGS...: oomscope watches PID into $TMP/w
# (its output in $TMP/watch.out); once attached, the target ($TMP/target.out)
# is sent SIGUSR1 for its burst, and two seconds after it prints DONE_REGEX
# the watch is stopped by SIGINT, as a user would.
watch_burst() {
  local pid=$1 done_re=$2
  shift 2
  start_bg watch "$OOMSCOPE" watch -p "$pid" -o "$TMP/w" "$@"
  wait_for "$TMP/watch.out" 'TIME\(s\)|"type":"start"' 60
  kill -USR1 "$pid"
  wait_for "$TMP/target.out" "$done_re" 60
  sleep 2
  kill -INT "$(cat "$TMP/watch.pid")"
  wait_exit "$(cat "$TMP/watch.pid")" 60
}
