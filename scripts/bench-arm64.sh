#!/usr/bin/env bash
# `make bench-arm64`: the collector's overhead table of `make bench` (the
# syscall loops alone and under `oomscope run`, a bystander process, and the
# hook table: scripts/bench-hooks.sh) measured in the arm64 VM (scripts/vm.sh,
# VM_ARCH=arm64; VM_KERNEL=16k for the 16 KiB-page kernel, VM_KERNEL=gki for
# the GKI-like one: a phone's hooks) on the arm64 build (build-arm64/), then
# the analyzer's shapes table (scripts/bench-analyze.sh: analyze against
# hprof check on each heap shape, one thread and two). Under qemu's emulation
# the seconds mean nothing; the ratios (to the loop alone, to check) do.
#   REPS (default 3) runs per cell; QUICK=1 fewer iterations;
#   COLLECTOR=0 no collector table; ANALYZE=0 no shapes table; SHAPES, SHAPES_MB (default 24) its dumps
set -uo pipefail
cd "$(dirname "$0")/.."
[ -x build-arm64/oomscope ] || { echo "bench-arm64: build-arm64/oomscope missing (make ARCH=arm64 all)" >&2; exit 2; }
job=$(mktemp -d /tmp/oomscope-bench-arm64.XXXXXX)
trap 'rm -rf "$job"' EXIT
mkdir -p "$job/repo/build"
cp -a scripts "$job/repo/"
cp -a build-arm64/targets "$job/repo/build/"
cp build-arm64/oomscope "$job/repo/oomscope"
# the analyzer's shapes table too: the dumps taken here, by the host's JVM
# (a dump is the same file on either arch), at SHAPES_MB MB live each
# (default 24, as QUICK=1 on the host: emulated, a tenth of the speed); ANALYZE=0 leaves it out
if [ "${ANALYZE:-1}" = 1 ]; then
  mkdir -p "$job/shapes"
  for shape in ${SHAPES:-chains wide deep classes huge}; do
    JAVA_XMX=$(( ${SHAPES_MB:-24} * 3 + 1024 ))m tests/hprof/java_dump.sh "$job/shapes/$shape.hprof" HeapShapes \
      --shape "$shape" --mb "${SHAPES_MB:-24}" --seconds 900 > /dev/null ||
      { echo "bench-arm64: the $shape dump could not be taken" >&2; exit 1; }
  done
fi
cat > "$job/job.sh" << JOB
cd /job/repo || exit 1
echo "vm: bench: \$(uname -r), page size \$(getconf PAGESIZE)"
[ "${COLLECTOR:-1}" = 0 ] || BENCH_ONLY=collector QUICK=${QUICK:-0} REPS=${REPS:-3} bash scripts/bench.sh
[ ! -d /job/shapes ] || SHAPES_ONLY=1 SHAPES_VV=0 SHAPES_DIR=/job/shapes SHAPES="${SHAPES:-chains wide deep classes huge}" \
  OOMSCOPE=./oomscope bash scripts/bench-analyze.sh
JOB
size=$(du -sm "$job" | cut -f1)
VM_ARCH=arm64 VM_JOB_MB=$((size * 2 + 128)) VM_TIMEOUT=${VM_TIMEOUT:-3600} scripts/vm.sh run "$job" |
  grep -vE '^\[ *[0-9]+\.[0-9]+\]|^Features'
exit "${PIPESTATUS[0]}"
