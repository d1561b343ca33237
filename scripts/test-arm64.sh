#!/usr/bin/env bash
# `make test-arm64`: the arm64 build (build-arm64/, `make ARCH=arm64`) tested
# in an arm64 VM (Debian's arm64 kernel under qemu, scripts/vm.sh with
# VM_ARCH=arm64): the unit tests, the BATS files that need no JVM and the
# arm64-only ones (tests/bats-arm64/), run by scripts/run-tests.sh inside the VM. Prints the VM's console and ends with
# its tally, "arm64: N passed, N failed"; exits non-zero when a test failed
# or the VM did not finish.
#   scripts/test-arm64.sh [BATS_NAME|BATS_FILE...]   (default: ARM64_BATS below
#                                                    and tests/bats-arm64/*.bats)
set -uo pipefail
cd "$(dirname "$0")/.."
ARM64_BATS=(cli collect_fds collect_threads collect_vm big_alloc detect death drops faults btf android)
[ $# -gt 0 ] && ARM64_BATS=("$@")
[ -x build-arm64/oomscope ] || { echo "test-arm64: build-arm64/oomscope missing (make ARCH=arm64 all unit)" >&2; exit 2; }

job=$(mktemp -d /tmp/oomscope-arm64.XXXXXX)
trap 'rm -rf "$job"' EXIT
# the repository's layout as the tests expect it: ROOT/oomscope, ROOT/build,
# ROOT/../shared (test_hprof.args reads the corpus from there)
mkdir -p "$job/repo" "$job/shared/corpus"
cp -a scripts "$job/repo/"
mkdir -p "$job/repo/tests"
for d in tests/*; do [ "$d" = tests/js ] || cp -a "$d" "$job/repo/tests/"; done
cp -a build-arm64 "$job/repo/build"
rm -rf "$job/repo/build/pic"
cp build-arm64/oomscope "$job/repo/oomscope"
cp -a ../shared/corpus/hprof "$job/shared/corpus/" 2> /dev/null || true
files=()
for b in "${ARM64_BATS[@]}"; do
  case "$b" in *.bats) files+=("$b") ;; *) files+=("tests/bats/$b.bats") ;; esac
done
[ $# -gt 0 ] || files+=(tests/bats-arm64/*.bats)
cat > "$job/job.sh" << EOF
cd /job/repo || exit 1
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# as on the host: a soft fd limit above the tests' bursts (drops.bats makes 2,300)
ulimit -n 20000
# the controllers death.bats's cgroups use (no systemd here to enable them)
echo "+pids +memory" > /sys/fs/cgroup/cgroup.subtree_control
echo "vm: arm64 suite: unit tests and ${ARM64_BATS[*]}"
OOMS_STREAM=1 OOMS_BUILD=build OOMSCOPE=/job/repo/oomscope scripts/run-tests.sh ${files[*]}
EOF
size=$(du -sm "$job" | cut -f1)
log=$job/console
start=$(date +%s)
VM_ARCH=arm64 VM_JOB_MB=$((size * 2 + 256)) VM_TIMEOUT=${VM_TIMEOUT:-2400} scripts/vm.sh run "$job" | tee "$log"
status=${PIPESTATUS[0]}
tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
echo "# arm64 VM: $(( $(date +%s) - start )) s wall"
if [ -z "$tally" ]; then
  echo "not ok - the arm64 VM did not finish its suite (status $status)"
  echo "arm64: 0 passed, 1 failed"
  exit 1
fi
echo "arm64: $tally"
[ "$status" -eq 0 ] && grep -qE ' 0 failed' <<< "$tally"
