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
# OOMS_ARM64=1 runs the arm64 suite in its VM after them, in the same count.
set -uo pipefail
cd "$(dirname "$0")/.."
SAN_BATS=(tests/bats/hprof.bats tests/bats/analyze.bats tests/bats/report.bats)

pass=0 fail=0 skip=0
log=$(mktemp -d /tmp/oomscope-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT

failures=() # each failing test's line, repeated at the end

failing() { # $1: TAP output: its "not ok" lines, each with bats' file:line when it says it
  awk '/^\[ *[0-9]+\.[0-9]+\]/ { next } # a kernel line amid the VM console
       /^not ok/ { if (l != "") print l; l = $0; next }
       l != "" && /^# \(in test file / { f = $0; sub(/^# \(in test file /, "", f); sub(/, line /, ":", f); sub(/\)$/, "", f)
                                          print l " (" f ")"; l = ""; next }
       l != "" { print l; l = "" }
       END { if (l != "") print l }' "$1"
}

failed() { # MESSAGE: a failure of the run itself (no TAP line of its own), said and counted
  echo "not ok - $1"
  failures+=("not ok - $1")
  fail=$((fail + 1))
}

count() { # $1: file with TAP output
  local p f s line
  while IFS= read -r line; do failures+=("$line"); done < <(failing "$1")
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
  for t in "$build"/tests/test_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    echo "# ${label}unit: $name"
    args=()
    [ -x "tests/unit/${name}.args" ] && mapfile -t args < <("tests/unit/${name}.args" "$log")
    timeout 300 "$t" "${args[@]}" > "$log/$name.tap" 2>&1
    tally "$name" $? "$log/$name.tap"
  done
  ls tests/bats/*.bats > /dev/null 2>&1 || return 0
  # FILE@REGEX: only FILE's tests whose names match REGEX, in a bats run of their own
  local plain=() f
  for f in "$@"; do [[ "$f" == *@* ]] || plain+=("$f"); done
  [ ${#plain[@]} -eq 0 ] || run_bats "$label" "$build" "$bin" "${plain[@]}"
  for f in "$@"; do
    [[ "$f" != *@* ]] && continue
    run_bats "$label" "$build" "$bin" --filter "${f#*@}" "${f%%@*}"
    grep -q '^1\.\.0$' "$log/bats.tap" && failed "$f: no test matches"
  done
}

# run_bats LABEL BUILD OOMSCOPE BATS_ARGS...: one bats run, tallied
run_bats() {
  local label=$1 build=$2 bin=$3
  shift 3
  echo "# ${label}bats: $*"
  if [ -n "${OOMS_STREAM:-}" ]; then # shown as it runs (the arm64 VM's console)
    OOMS_BUILD=$build OOMSCOPE=$bin timeout 2400 bats --tap "$@" 2>&1 | tee "$log/bats.tap"
    tally bats "${PIPESTATUS[0]}" "$log/bats.tap" shown
  else
    OOMS_BUILD=$build OOMSCOPE=$bin timeout 2400 bats --tap "$@" > "$log/bats.tap" 2>&1
    tally bats $? "$log/bats.tap"
  fi
}

build=${OOMS_BUILD:-build}
bats_files=("$@")
[ ${#bats_files[@]} -gt 0 ] || bats_files=(tests/bats)
suite "" "$build" "${OOMSCOPE:-$PWD/oomscope}" "${bats_files[@]}"
if [ -n "${OOMS_SAN_BUILD:-}" ]; then
  # LeakSanitizer too: a leak is a failure
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
    suite "sanitized " "$OOMS_SAN_BUILD" "$PWD/$OOMS_SAN_BUILD/oomscope" "${SAN_BATS[@]}"
fi

# OOMS_ARM64=1 (`make test` does): the arm64 build in the arm64 VM too
# (scripts/test-arm64.sh), its tally added to this one
if [ -n "${OOMS_ARM64:-}" ]; then
  echo "# arm64: scripts/test-arm64.sh"
  scripts/test-arm64.sh > "$log/arm64.out" 2>&1
  a_status=$?
  grep -vE '^\[ *[0-9]+\.[0-9]+\]' "$log/arm64.out" # the console less the kernel's lines
  a_tally=$(grep -E '^arm64: [0-9]+ passed, [0-9]+ failed' "$log/arm64.out" | tail -n1)
  if [ -n "$a_tally" ]; then
    read -r a_pass a_fail < <(sed -E 's/^arm64: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$a_tally")
    pass=$((pass + a_pass)); fail=$((fail + a_fail))
  fi
  while IFS= read -r line; do failures+=("arm64: $line"); done < <(failing "$log/arm64.out")
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

# the failures again, together, just above the tally (a long run's log is read from its end)
for line in "${failures[@]}"; do echo "# failed: ${line/not ok /}"; done

if [ "$skip" -gt 0 ]; then
  echo "$pass passed, $fail failed, $skip skipped"
else
  echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
