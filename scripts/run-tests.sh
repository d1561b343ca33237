#!/usr/bin/env bash
# Runs the C unit tests and the BATS suites, all speaking TAP, and ends with
# one line: "N passed, N failed" (", N skipped" when a test skipped itself,
# each skip saying why in its TAP line).
#   scripts/run-tests.sh [BATS_FILE[@REGEX]...]   (default: every file in
#   tests/bats; @REGEX: only the tests whose names match, as bats --filter)
# OOMS_BUILD (default build) is where the unit tests and tools are, and
# OOMSCOPE the binary the BATS files run. With OOMS_SAN_BUILD set (`make
# test` does), the unit tests and SAN_BATS run a second time, sanitized
# (ASan + UBSan: the binaries in that folder), counted in the same line.
# OOMS_STREAM=1 shows the BATS output as it runs, not when the files are done.
# OOMS_JOBS=N (`make test`: 2, as the machine has two CPUs and the files wait on
# their targets more than they run): the BATS files run N at a time, each file
# whole in a bats of its own (the sanitized ones too, in the same pool), the
# longest first by their last run's times (kept beside the VM images); the files
# that change the machine for everyone (ALONE_BATS) run first, one at a time,
# with tracefs as the machine has it; the pool runs with tracefs mounted (by
# this script when it was not, unmounted after), so that no test's oomscope
# mounts or unmounts it under another's.
# OOMS_NO_UNIT=1 leaves the unit tests out (the arm64 lanes that differ from
# another only by their kernel).
# OOMS_ARM64=1 runs the arm64 suite in its VM too, in the same count: beside
# the x86_64 suite (the VM's emulated CPUs leave much of the host's idle
# while the x86_64 tests wait on their targets), or after it with
# OOMS_ARM64_SERIAL=1.
# Above the tally: the wall time of each phase (OOMS_BUILD_SECONDS: the build's,
# measured by `make test`) and the slowest tests.
set -uo pipefail
cd "$(dirname "$0")/.."
SAN_BATS=(tests/bats/hprof.bats tests/bats/analyze.bats tests/bats/report.bats)
# what changes the machine for every process on it, or reads what every process does to it:
# btf hides the kernel's BTF, scale raises sysctls and makes 30,000 threads, hostile steers
# PIDs through ns_last_pid, memory reads the system's available memory and PSI (and earlyoom
# and lmkd's stand-in pick from every process), third_party drives stress-ng and redis to
# their limits, faults checks that no BPF program or tracefs probe is left
ALONE_BATS=(btf scale hostile memory third_party faults)
JOBS=${OOMS_JOBS:-1}
# A test that hangs fails alone, named, after 15 minutes (bats kills it and
# goes on: the slowest test takes under 4 in the arm64 VM); the suite's own
# cap (3600 s) then never cuts the files after it
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-900}

pass=0 fail=0 skip=0
run_t0=$(date +%s)
log=$(mktemp -d /tmp/oomscope-tests.XXXXXX)
# The independent implementations' answers for a dump (VisualVM's heap
# library, the MAT-graph reference: tests/hprof/ref_cache.sh), computed once
# per machine and kept beside the VM images, keyed by everything each answer
# depends on (the dump's bytes, the reader's source, the library, the JVM):
# the corpus does not change between runs, so neither do the answers we
# compare with; answers unused for 30 days are let go. Where that folder
# cannot be written, in this run's folder.
vv_cache=${OOMS_VM_CACHE:-/var/cache/oomscope/vm}/../retained
if [ -z "${RETAINED_CACHE:-}" ] && mkdir -p "$vv_cache" 2> /dev/null && [ -w "$vv_cache" ]; then
  RETAINED_CACHE=$(cd "$vv_cache" && pwd)
  find "$RETAINED_CACHE" -maxdepth 1 -type f -atime +30 -delete 2> /dev/null || true
fi
export RETAINED_CACHE=${RETAINED_CACHE:-$log/retained}
. scripts/kill-tree.bash
arm64_pid=
# an interrupted run leaves no VM behind
job_of_pid=() # the pool's running jobs (OOMS_JOBS)
trap '[ -z "$arm64_pid" ] || kill_tree "$arm64_pid"; for p in "${!job_of_pid[@]}"; do kill_tree "$p"; done; rm -rf "$log"' EXIT

failures=() # each failing test's line, repeated at the end
phases=()   # "SECONDS NAME" of each phase, printed above the tally
[ -n "${OOMS_BUILD_SECONDS:-}" ] && phases+=("$OOMS_BUILD_SECONDS build (x86_64, sanitized, arm64)")
phase_start() { PHASE_T0=$(date +%s); }
phase_end() { phases+=("$(($(date +%s) - PHASE_T0)) $1"); }

failing() { # $1: TAP output: its "not ok" lines, each with bats' file:line when it says it
  awk '/^\[ *[0-9]+\.[0-9]+\]/ { next } # a kernel line amid the VM console
       /^not ok/ { if (l != "") print l; l = $0; next }
       l != "" && /^# \(in test file / { f = $0; sub(/^# \(in test file /, "", f); sub(/, line /, ":", f); sub(/\)$/, "", f)
                                          print l " (" f ")"; l = ""; next }
       l != "" { print l; l = "" }
       END { if (l != "") print l }' "$1"
}

# details: $1: TAP output: each "not ok" test's own lines, a few: what it wrote to fd 3 while it ran
# (bats prints those before the "not ok" line: a test's diagnostics), then what follows bats' file:line
details() {
  awk '/^\[ *[0-9]+\.[0-9]+\]/ { next }
       /^not ok/ { n = 0; on = 1; print "# details of: " substr($0, 8)
                   for (i = (b > 12 ? b - 12 : 0); i < b; i++) print substr(pre[i], 1, 200)
                   b = 0; next }
       /^(ok|not ok) / || /^1\.\./ { on = 0; b = 0; next }
       on && /^#/ && n < 10 { print substr($0, 1, 200); n++; next }
       !on && /^#/ { pre[b++] = $0 }' "$1"
}

failed() { # MESSAGE: a failure of the run itself (no TAP line of its own), said and counted
  echo "not ok - $1"
  failures+=("not ok - $1")
  fail=$((fail + 1))
}

# lane_tag LABEL: how a failure names where it ran: the lane (OOMS_LANE, set by test-arm64.sh
# in each VM: "arm64 6.1, 4 KiB pages"...; else this machine's arch), sanitized or not
lane_tag() { echo "[${OOMS_LANE:-$(uname -m)}${1:+, ${1% }}] "; }
CUR_TAG=$(lane_tag "")

count() { # $1: file with TAP output; its failures named with CUR_TAG
  local p f s line
  while IFS= read -r line; do failures+=("${line/#not ok /not ok $CUR_TAG}"); done < <(failing "$1")
  details "$1" >> "$log/details"
  p=$(grep -cE '^ok [0-9]+' "$1" | tr -d ' ')
  s=$(grep -cE '^ok [0-9]+.*# ?[Ss][Kk][Ii][Pp]' "$1" | tr -d ' ')
  f=$(grep -cE '^not ok [0-9]+' "$1" | tr -d ' ')
  pass=$((pass + p - s)); skip=$((skip + s)); fail=$((fail + f))
}

# tally NAME STATUS FILE [shown]: FILE's TAP shown (unless already) and counted; a non-zero STATUS
# with no failing test in FILE is a failure of its own
tally() {
  [ -n "${4:-}" ] || cat "$3"
  count "$3"
  if [ "$2" -ne 0 ] && ! grep -q '^not ok' "$3"; then
    failed "$1 exited with status $2"
  fi
}

# suite LABEL BUILD OOMSCOPE BATS_FILE...: the unit tests in BUILD/tests, then the BATS files
suite() {
  local label=$1 build=$2 bin=$3 t name args
  shift 3
  CUR_TAG=$(lane_tag "$label")
  phase_start
  for t in "$build"/tests/test_*; do
    [ -x "$t" ] || continue
    [ "${OOMS_NO_UNIT:-0}" = 1 ] && break # a lane that tests the kernel, not the build (test-arm64.sh)
    name=$(basename "$t")
    echo "# ${label}unit: $name"
    args=()
    [ -x "tests/unit/${name}.args" ] && mapfile -t args < <("tests/unit/${name}.args" "$log")
    timeout 300 "$t" "${args[@]}" > "$log/$name.tap" 2>&1
    tally "$name" $? "$log/$name.tap"
  done
  phase_end "${label}unit tests"
  ls tests/bats/*.bats > /dev/null 2>&1 || return 0
  if [ "$JOBS" -gt 1 ]; then # into the pool, run by pool_run
    local f g
    for f in "$@"; do
      if [ -d "$f" ]; then for g in "$f"/*.bats; do queue "$label" "$build" "$bin" "" "$g"; done
      elif [[ "$f" == *@* ]]; then queue "$label" "$build" "$bin" "${f#*@}" "${f%%@*}"
      else queue "$label" "$build" "$bin" "" "$f"; fi
    done
    return 0
  fi
  phase_start
  # FILE@REGEX: only FILE's tests whose names match REGEX, in a bats run of their own
  local plain=() f
  for f in "$@"; do [[ "$f" == *@* ]] || plain+=("$f"); done
  [ ${#plain[@]} -eq 0 ] || run_bats "$label" "$build" "$bin" "${plain[@]}"
  for f in "$@"; do
    [[ "$f" != *@* ]] && continue
    run_bats "$label" "$build" "$bin" --filter "${f#*@}" "${f%%@*}"
    grep -q '^1\.\.0$' "$log/bats.tap" && failed "$f: no test matches"
  done
  phase_end "${label}BATS ($(uname -m))"
}

# run_bats LABEL BUILD OOMSCOPE BATS_ARGS...: one bats run, tallied
run_bats() {
  local label=$1 build=$2 bin=$3
  shift 3
  echo "# ${label}bats: $*"
  if [ -n "${OOMS_STREAM:-}" ]; then # shown as it runs (the arm64 VM's console)
    OOMS_BUILD=$build OOMSCOPE=$bin timeout 3600 bats --tap --timing "$@" 2>&1 | tee "$log/bats.tap"
    tally bats "${PIPESTATUS[0]}" "$log/bats.tap" shown
  else
    OOMS_BUILD=$build OOMSCOPE=$bin timeout 3600 bats --tap --timing "$@" > "$log/bats.tap" 2>&1
    tally bats $? "$log/bats.tap"
  fi
  # each test's time (bats --timing: "ok N name in 123ms"), for the slowest list
  sed -nE "s/^(not )?ok [0-9]+ (.*) in ([0-9]+)ms$/\3 ${label}\2/p" "$log/bats.tap" >> "$log/times"
}

# ---- the pool (OOMS_JOBS > 1) ----
# each job: a label, a build, a binary, the environment it was queued in, a filter, a file
q_label=() q_build=() q_bin=() q_env=() q_filter=() q_file=()
queue() { # LABEL BUILD OOMSCOPE FILTER FILE
  q_label+=("$1"); q_build+=("$2"); q_bin+=("$3"); q_filter+=("$4"); q_file+=("$5")
  q_env+=("ASAN_OPTIONS=${ASAN_OPTIONS:-} UBSAN_OPTIONS=${UBSAN_OPTIONS:-} OOMS_ROTATE_MODES=${OOMS_ROTATE_MODES:-}")
}
# each job's wall time in its last run, longest first next time (per machine)
times_db=${OOMS_VM_CACHE:-/var/cache/oomscope/vm}/../bats-times
job_key() { echo "${q_label[$1]}${q_file[$1]}@${q_filter[$1]}"; }
job_last_s() { [ -r "$times_db" ] && awk -F'\t' -v k="$(job_key "$1")" '$1 == k {s = $2} END {print s + 0}' "$times_db" || echo 0; }

# start_job I: job I in the background, its TAP and status in $log/job.I.*
start_job() {
  local i=$1 args=(--tap --timing)
  [ -z "${q_filter[$i]}" ] || args+=(--filter "${q_filter[$i]}")
  (
    t0=$(date +%s)
    # shellcheck disable=SC2086 # the queued environment, word by word
    env ${q_env[$i]} OOMS_BUILD="${q_build[$i]}" OOMSCOPE="${q_bin[$i]}" timeout 3600 bats "${args[@]}" "${q_file[$i]}" \
      > "$log/job.$i.tap" 2>&1
    echo $? > "$log/job.$i.status"
    echo $(($(date +%s) - t0)) > "$log/job.$i.secs"
  ) &
  job_of_pid[$!]=$i
}

# end_job I: job I's TAP shown and tallied, its time kept
end_job() {
  local i=$1 label=${q_label[$1]}
  CUR_TAG=$(lane_tag "$label")
  echo "# ${label}bats: ${q_filter[$i]:+--filter ${q_filter[$i]} }${q_file[$i]} ($(cat "$log/job.$i.secs") s)"
  tally bats "$(cat "$log/job.$i.status")" "$log/job.$i.tap"
  [ -z "${q_filter[$i]}" ] || ! grep -q '^1\.\.0$' "$log/job.$i.tap" || failed "${q_file[$i]}@${q_filter[$i]}: no test matches"
  sed -nE "s/^(not )?ok [0-9]+ (.*) in ([0-9]+)ms$/\3 ${label}\2/p" "$log/job.$i.tap" >> "$log/times"
  printf '%s\t%s\n' "$(job_key "$i")" "$(cat "$log/job.$i.secs")" >> "$log/job-times"
}

pool_run() {
  local i n=${#q_file[@]} alone=() rest=() running=0 done_pid mounted=
  [ "$n" -gt 0 ] || return 0
  phase_start
  for ((i = 0; i < n; i++)); do
    if [ -z "${q_label[$i]}" ] && [[ " ${ALONE_BATS[*]} " == *" $(basename "${q_file[$i]}" .bats) "* ]]; then
      alone+=("$i")
    else
      rest+=("$i")
    fi
  done
  for i in "${alone[@]}"; do
    start_job "$i"
    wait "$!"
    unset "job_of_pid[$!]"
    end_job "$i"
  done
  phase_end "BATS (x86_64): the files that change the machine (${#alone[@]}), one at a time"
  phase_start
  # the rest, longest first (never run: first of all)
  mapfile -t rest < <(for i in "${rest[@]}"; do s=$(job_last_s "$i"); [ "$s" -gt 0 ] || s=99999; echo "$s $i"; done |
    sort -k1,1nr -k2,2n | cut -d' ' -f2)
  if ! grep -q ' /sys/kernel/tracing tracefs' /proc/mounts; then
    mount -t tracefs tracefs /sys/kernel/tracing && mounted=1
  fi
  for i in "${rest[@]}"; do
    while [ "$running" -ge "$JOBS" ]; do
      wait -n -p done_pid
      end_job "${job_of_pid[$done_pid]}"
      unset "job_of_pid[$done_pid]"
      running=$((running - 1))
    done
    start_job "$i"
    running=$((running + 1))
  done
  while [ "$running" -gt 0 ]; do
    wait -n -p done_pid
    end_job "${job_of_pid[$done_pid]}"
    unset "job_of_pid[$done_pid]"
    running=$((running - 1))
  done
  [ -z "$mounted" ] || umount /sys/kernel/tracing 2> /dev/null || umount -l /sys/kernel/tracing
  phase_end "BATS (x86_64 and sanitized), $JOBS at a time"
  # the times kept for the next run: this run's, the others' as they were
  if mkdir -p "$(dirname "$times_db")" 2> /dev/null && [ -w "$(dirname "$times_db")" ]; then
    { [ -r "$times_db" ] && awk -F'\t' 'NR == FNR {seen[$1] = 1; print; next} !($1 in seen)' "$log/job-times" "$times_db" ||
        cat "$log/job-times"; } > "$times_db.$$" && mv "$times_db.$$" "$times_db"
  fi
}

# OOMS_VM_IMAGES=1 (`make test`): the x86_64 VM's image first, found in the
# machine's cache or built there, timed as a phase of their own
if [ -n "${OOMS_VM_IMAGES:-}" ]; then
  phase_start
  # (the arm64 ones: scripts/test-arm64.sh, beside its first VM and the x86_64 tests)
  echo "# VM images: scripts/vm.sh image"
  scripts/vm.sh image > /dev/null || failed "the x86_64 VM's image could not be made (scripts/vm.sh image)"
  phase_end "VM image, x86_64 (${OOMS_VM_CACHE:-/var/cache/oomscope/vm})"
fi

# the arm64 suite, in the background unless OOMS_ARM64_SERIAL=1
arm64_start() {
  echo "# arm64: scripts/test-arm64.sh"
  arm64_t0=$(date +%s)
  # its second VM waits for the x86_64 suite's end (both at once on 2 CPUs slowed each)
  OOMS_ARM64_WIDEN_WHEN=$log/x86_64-done scripts/test-arm64.sh > "$log/arm64.out" 2>&1 &
  arm64_pid=$!
}
if [ -n "${OOMS_ARM64:-}" ] && [ "${OOMS_ARM64_SERIAL:-0}" != 1 ]; then
  arm64_start
fi

build=${OOMS_BUILD:-build}
bats_files=("$@")
[ ${#bats_files[@]} -gt 0 ] || bats_files=(tests/bats)
suite "" "$build" "${OOMSCOPE:-$PWD/oomscope}" "${bats_files[@]}"
if [ -n "${OOMS_SAN_BUILD:-}" ]; then
  # LeakSanitizer too: a leak is a failure
  # (hprof.bats's strip and restore: each corpus file in one mode, each mode on some: OOMS_ROTATE_MODES)
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} OOMS_ROTATE_MODES=1 \
    suite "sanitized " "$OOMS_SAN_BUILD" "$PWD/$OOMS_SAN_BUILD/oomscope" "${SAN_BATS[@]}"
fi
pool_run

# OOMS_ARM64=1 (`make test` does): the arm64 build in the arm64 VM too
# (scripts/test-arm64.sh), its tally added to this one
if [ -n "${OOMS_ARM64:-}" ]; then
  touch "$log/x86_64-done"
  [ -n "$arm64_pid" ] || arm64_start
  wait "$arm64_pid"
  a_status=$?
  arm64_pid=
  echo "# arm64: done after $(($(date +%s) - arm64_t0)) s"
  # its VMs' times ("# arm64 VM (LABEL): N s wall, ...") and its slowest tests
  while IFS= read -r line; do phases+=("$line"); done < <(sed -nE 's/^# arm64 VM \((.*)\): ([0-9]+) s wall.*/\2 arm64 VM, \1/p' "$log/arm64.out")
  sed -nE "s/^(not )?ok [0-9]+ (.*) in ([0-9]+)ms$/\3 arm64: \2/p" "$log/arm64.out" >> "$log/times"
  grep -vE '^\[ *[0-9]+\.[0-9]+\]' "$log/arm64.out" # the console less the kernel's lines
  a_tally=$(grep -E '^arm64: [0-9]+ passed, [0-9]+ failed' "$log/arm64.out" | tail -n1)
  if [ -n "$a_tally" ]; then
    read -r a_pass a_fail < <(sed -E 's/^arm64: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$a_tally")
    pass=$((pass + a_pass)); fail=$((fail + a_fail))
  fi
  # (each failure names its lane: test-arm64.sh tags its VMs' lines)
  while IFS= read -r line; do failures+=("$line"); done < <(failing "$log/arm64.out")
  details "$log/arm64.out" | sed 's/^# details of: /# details of: arm64: /' >> "$log/details"
  if [ "$a_status" -ne 0 ] && [ "${a_fail:-0}" -eq 0 ]; then
    failed "the arm64 suite exited with status $a_status"
  fi
fi

# A writer once renamed its output over /dev/null, leaving a regular file:
# every later apt-get on the machine failed. The suite must leave it a device.
if [ -c /dev/null ] && [ "$(stat -c '%t:%T' /dev/null)" = "1:3" ]; then
  echo "ok - /dev/null is still the null character device after the suite"
  pass=$((pass + 1))
else
  failed "/dev/null is no longer the null device after the suite ($(stat -c %F /dev/null))"
fi

# the slowest tests, then each phase's wall time
if [ -s "$log/times" ]; then
  echo "# the slowest tests:"
  sort -rn "$log/times" | head -n 12 | awk '{ t = $1; $1 = ""; printf "#   %6.1f s %s\n", t / 1000, substr($0, 2) }' | cut -c1-150
fi
if [ ${#phases[@]} -gt 0 ]; then
  echo "# phases (wall time):"
  total=0
  for p in "${phases[@]}"; do
    printf '#   %5d s  %s\n' "${p%% *}" "${p#* }"
    total=$((total + ${p%% *}))
  done
  printf '#   %5d s  in all, one after the other\n' "$total"
  printf '#   %5d s  wall (%s)\n' "$(($(date +%s) - run_t0 + ${OOMS_BUILD_SECONDS:-0}))" \
    "$([ -n "${OOMS_ARM64:-}" ] && [ "${OOMS_ARM64_SERIAL:-0}" != 1 ] && echo "the arm64 VMs beside the x86_64 suite" || echo "one after the other")"
fi

# the failures again, together, just above the tally (a long run's log is read from its end):
# what each showed (at most 10 lines of it, the first 6 failures), then their names
[ -s "$log/details" ] && awk '/^# details of: / { k++ } k <= 6' "$log/details"
for line in "${failures[@]}"; do echo "# failed: ${line/not ok /}"; done

if [ "$skip" -gt 0 ]; then
  echo "$pass passed, $fail failed, $skip skipped"
else
  echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
