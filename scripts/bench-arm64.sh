#!/usr/bin/env bash
# `make bench-arm64`: the collector's overhead table of `make bench` (the
# syscall loops alone and under `oomscope run`, a bystander process, and the
# hook table: scripts/bench-hooks.sh) measured in the arm64 VM (scripts/vm.sh,
# VM_ARCH=arm64; VM_KERNEL=16k for the 16 KiB-page kernel, VM_KERNEL=gki for
# the GKI-like one: a phone's hooks) on the arm64 build (build-arm64/). Under qemu's
# emulation the nanoseconds mean nothing; the ratios to the loop alone do.
#   REPS (default 3) runs per cell; QUICK=1 fewer iterations
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x build-arm64/oomscope ] || { echo "bench-arm64: build-arm64/oomscope missing (make ARCH=arm64 all)" >&2; exit 2; }
job=$(mktemp -d /tmp/oomscope-bench-arm64.XXXXXX)
trap 'rm -rf "$job"' EXIT
mkdir -p "$job/repo/build"
cp -a scripts "$job/repo/"
cp -a build-arm64/targets "$job/repo/build/"
cp build-arm64/oomscope "$job/repo/oomscope"
cat > "$job/job.sh" << JOB
cd /job/repo || exit 1
echo "vm: bench: \$(uname -r), page size \$(getconf PAGESIZE)"
BENCH_ONLY=collector QUICK=${QUICK:-0} REPS=${REPS:-3} bash scripts/bench.sh
JOB
size=$(du -sm "$job" | cut -f1)
VM_ARCH=arm64 VM_JOB_MB=$((size * 2 + 128)) VM_TIMEOUT=${VM_TIMEOUT:-3600} scripts/vm.sh run "$job" |
  grep -vE '^\[ *[0-9]+\.[0-9]+\]|^Features'
exit "${PIPESTATUS[0]}"
