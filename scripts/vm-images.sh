#!/usr/bin/env bash
# Every VM image `make test` boots, made ready at once: the x86_64 one
# (scripts/vm.sh image) and, with --arm64, each arm64 lane's
# (scripts/test-arm64.sh --images); and real ART (scripts/art.sh), which
# the ART tests wait for. `make test` starts this beside its build:
# on a new machine debootstrap's downloads and the GKI kernels' compiles
# (niced) then begin with the compiler, not after it; on a machine that has
# the images each is only checked. The suite's own `vm.sh image` calls wait
# for each image's lock and find it made.
#   scripts/vm-images.sh [--arm64]   (exits non-zero when an image failed;
#                                     each builder's messages on stderr)
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
# ended (make test's recipe when its build fails or it is interrupted): every
# process under this one, by PID (timeout(1), which bounds the arm64 root's
# VM, runs in a process group of its own)
. scripts/kill-tree.bash
trap 'for c in $(ps -o pid= --ppid $$); do kill_tree "$c"; done; exit 143' TERM INT HUP
n=2
scripts/vm.sh image > /dev/null &
# real ART (scripts/art.sh: about 10 min from nothing), niced: the x86_64 root comes first
nice -n 5 scripts/art.sh > /dev/null &
# the arm64 images at a lower priority: the x86_64 root is the first the suite
# needs (its tests begin once the build ends), the arm64 root only for the
# lanes beside them and the kernels (nice 19 in scripts/gki-kernel.sh) last.
# Measured on a new machine, all at nice 0 but the kernels: with them at 19 the
# x86_64 root was ready at 928 s, at 5 at 1,260 s (and the arm64 root at 1,655 s
# and 2,330 s): what the kernels take comes off the chains in front of them.
if [ "${1:-}" = --arm64 ]; then
  nice -n 5 scripts/test-arm64.sh --images &
  n=3
fi
st=0
for _ in $(seq "$n"); do wait -n || st=1; done
echo "vm-images: done after $(($(date +%s) - t0)) s (status $st)" >&2
exit $st
