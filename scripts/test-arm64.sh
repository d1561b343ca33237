#!/usr/bin/env bash
# `make test-arm64`: the arm64 build (build-arm64/, `make ARCH=arm64`) tested
# in an arm64 VM (Debian's arm64 kernels under qemu, scripts/vm.sh with
# VM_ARCH=arm64), three times:
# - Debian's 6.1 kernel (4 KiB pages): the unit tests, the BATS files that
#   need no JVM, the JVM ones that show what differs on arm64 (JVM_BATS) and
#   the arm64-only ones (tests/bats-arm64/);
# - Debian's 6.12 kernel built for 16 KiB pages (VM_KERNEL=16k): the unit
#   tests and the files where the page size shows (PAGE16K_BATS);
# - a 6.1 kernel configured as Android's GKI (VM_KERNEL=gki,
#   scripts/gki-kernel.sh: no syscall events, so the hook a phone gets):
#   the phone-like root (tests/bats-arm64/phone.bats, make android's static
#   build) and the fd and thread files (GKI_BATS);
# - Debian bullseye's 5.10 kernel (VM_KERNEL=5.10: Android 12 and 13's GKI
#   line, without 5.11's and 5.15's BPF helpers): the same files (K510_BATS);
# - bullseye's 5.10 source built with the GKI config (VM_KERNEL=gki-5.10):
#   5.10's helpers and a phone's hook (no syscall events) at once, phone.bats.
# Each run is scripts/run-tests.sh inside the VM, two VMs at a time (one at
# a time until OOMS_ARM64_WIDEN_WHEN's file exists, when set), in the order
# below but each only once its image is ready (on a new machine the GKI
# kernels, built at nice 19, may be ready last). Prints each
# VM's console when it ends and ends with the sum of their tallies,
# "arm64: N passed, N failed"; exits
# non-zero when a test failed or a VM did not finish.
#   scripts/test-arm64.sh --images   (each lane's image made ready, no test)
#   scripts/test-arm64.sh [BATS_NAME|BATS_FILE...]   (those only, on the 6.1
#                                                    kernel, or the 16 KiB or
#                                                    GKI one with
#                                                    ARM64_KERNEL=16k|gki)
# ARM64_16K=0 leaves the 16 KiB run out of the whole suite, ARM64_GKI=0 the GKI one,
# ARM64_510=0 the 5.10 one, ARM64_GKI510=0 the GKI-config 5.10 one; ARM64_KERNEL=5.10
# or gki-5.10 with named files runs those there.
set -uo pipefail
cd "$(dirname "$0")/.."
# every BATS file that needs no JVM (scale.bats at a tenth of its threads, with
# 500,000 fds: root in the VM may raise RLIMIT_NOFILE; hostile.bats's tests
# without a JVM); vm_kernel.bats is the x86_64 VM's own; fuzz.bats's replays
# and seeds (its libFuzzer harnesses are built for the host's arch only,
# make fuzz-bins, and run in the x86_64 suite)
# (cli.bats and outputs.bats are not among them: their options, errors and
# writers are the same C as on x86_64, with nothing of the arch's or kernel's)
ARM64_BATS=(collect_fds collect_threads collect_vm big_alloc detect death drops faults btf hprof scale
  "tests/bats/android.bats@an app as it ships takes the shim"
  "tests/bats/fuzz.bats@^fuzz.(regressions|seeds|harnesses:.(the|restore|cut))"
  "tests/bats/hostile.bats@PID.reused|garbled" "tests/bats/shim_libc.bats@page size")
# (android.bats: its arm64 part is the shim taken by an app as it ships here, ART's uprobes at
# ELF offsets in the 16 KiB lane; its gates, thaws and the activity manager's protocol are the
# same C on either arch, and the x86_64 suite runs them)
# the JVM files' tests that show what differs on arm64: the attach protocol, the shim and
# its fork-dump, HotSpot's USDT arguments (thread names), the OutOfMemoryError probes and the
# shim's hook at the throw (java_oom's thread limit; its heap leak at 60 MB/s is left out: under
# emulation its dump at the throw once did not name the leak), a dump of a JVM frozen by the
# cgroup v2 freezer (the VM has v2 alone, as Android does)
JVM_BATS=("tests/bats/java_heap.bats@attach.protocol|load-shim|full.names" "tests/bats/java_oom.bats@low.thread.limit"
  "tests/bats/frozen.bats@with the shim")
# where the page size shows: mappings and their sizes (collect_vm, big_alloc's
# syscall and uprobe modes, a brk's growth, a crossing's live blocks), the ring
# buffers' sizes (drops), ART's libraries at their ELF offsets (android),
# tagged pointers, make android's shim loaded at 16 KiB pages; the rest of big_alloc and android (C++ operators,
# symbolize, the activity manager's protocol) is the 6.1 lane's
PAGE16K_BATS=(collect_vm "tests/bats/big_alloc.bats@^(syscall mode:|uprobe mode|a launched target's first brk|a native target's crossing)"
  drops "tests/bats/android.bats@ART recognised|libraries are where Android" tests/bats-arm64/tagged.bats
  "tests/bats/shim_libc.bats@page size")
GKI_BATS=(tests/bats-arm64/phone.bats collect_fds collect_threads)
K510_BATS=(tests/bats-arm64/phone.bats collect_fds collect_threads)
GKI510_BATS=(tests/bats-arm64/phone.bats "tests/bats/collect_fds.bats@learns where the registers sit")
# --images: each lane's VM image made ready, nothing run (scripts/vm-images.sh,
# which make test starts beside its build); the kernels are the lanes' below
if [ "${1:-}" = --images ]; then
  kernels=("")
  [ "${ARM64_16K:-1}" = 0 ] || kernels+=(16k)
  [ "${ARM64_GKI:-1}" = 0 ] || kernels+=(gki)
  [ "${ARM64_510:-1}" = 0 ] || kernels+=(5.10)
  [ "${ARM64_GKI510:-1}" = 0 ] || kernels+=(gki-5.10)
  st=0
  for k in "${kernels[@]}"; do VM_ARCH=arm64 VM_KERNEL=$k scripts/vm.sh image > /dev/null & done
  for k in "${kernels[@]}"; do wait -n || st=1; done
  exit $st
fi
explicit=0
[ $# -gt 0 ] && { ARM64_BATS=("$@"); explicit=1; }
[ -x build-arm64/oomscope ] || { echo "test-arm64: build-arm64/oomscope missing (make ARCH=arm64 all unit)" >&2; exit 2; }
[ -x build/android/arm64-v8a/oomscope ] || { echo "test-arm64: build/android/arm64-v8a/oomscope missing (make android)" >&2; exit 2; }
[ -f build/classes/.built ] || { echo "test-arm64: build/classes missing (make unit)" >&2; exit 2; }
[ -f build/corpus/.key ] || { echo "test-arm64: build/corpus missing (make corpus)" >&2; exit 2; }

job=$(mktemp -d /tmp/oomscope-arm64.XXXXXX)
trap 'rm -rf "$job"' EXIT
# the repository's layout as the tests expect it: ROOT/oomscope, ROOT/build
# (test_hprof.args and hprof.bats read the corpus from ROOT/build/corpus)
mkdir -p "$job/repo"
cp -a scripts "$job/repo/"
mkdir -p "$job/repo/tests"
# (not tests/corpus: the VM reads the corpus as make corpus laid it out, below)
for d in tests/*; do [ "$d" = tests/js ] || [ "$d" = tests/corpus ] || cp -a "$d" "$job/repo/tests/"; done
cp -a build-arm64 "$job/repo/build"
rm -rf "$job/repo/build/pic"
# the Java apps' class files (make's, in build/classes: they run on either arch)
cp -a build/classes "$job/repo/build/classes"
# make android's arm64 build, as on a phone (phone.bats)
mkdir -p "$job/repo/build/android"
cp -a build/android/arm64-v8a "$job/repo/build/android/"
cp build-arm64/oomscope "$job/repo/oomscope"
# the corpus, less its files of 10 MB and over: under emulation every pass
# over the 85 MB dump took minutes, and the 14 MB one's passes a third of the
# corpus tests' time (strip, restore and check in every mode took 249 s in
# CI25's 6.1 run); the x86_64 run reads every file. What the VM checks is the
# hprof library on arm64, which the rest covers (the 14 MB dump itself too,
# compressed: its .hprof.gz is 3 MB)
for d in hprof hprof-world; do
  mkdir -p "$job/repo/build/corpus/$d"
  find "build/corpus/$d" -maxdepth 1 -type f -size -10M -exec cp -a {} "$job/repo/build/corpus/$d/" \;
done
size=$(du -sm "$job" | cut -f1)

bats_paths() {
  local b
  for b in "$@"; do
    case "$b" in *.bats | *.bats@*) echo "$b" ;; *) echo "tests/bats/$b.bats" ;; esac
  done
}

# lane LABEL KERNEL(""|16k|gki|5.10|gki-5.10) FILES...: one VM run, queued;
# with NO_UNIT=1 in its environment, without the unit tests (the lanes that
# differ from the 6.1 one by their kernel alone: the same build, the same
# page size). Lanes run
# two at a time: one VM leaves about half of a 2-CPU host idle (the tests
# inside wait on their targets), so a second one costs the first little.
# With OOMS_ARM64_WIDEN_WHEN=FILE (scripts/run-tests.sh, while the x86_64
# suite runs beside) one at a time until FILE exists.
lanes=()
lane() {
  local n=${#lanes[@]} d
  d=$job/lane$n
  mkdir -p "$d"
  # the repository, linked (vm.sh copies the folder into the VM's disk at its start)
  cp -al "$job/repo" "$d/repo"
  local label=$1 kernel=$2 args no_unit=${NO_UNIT:-0}
  shift 2
  args=$(printf '%q ' "$@") # quoted for job.sh (FILE@REGEX has a |)
  cat > "$d/job.sh" << EOF
cd /job/repo || exit 1
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# as on the host: a soft fd limit above the tests' bursts (drops.bats makes 2,300)
ulimit -n 20000
# the controllers death.bats's cgroups use (no systemd here to enable them)
echo "+pids +memory" > /sys/fs/cgroup/cgroup.subtree_control
echo "vm: arm64 suite ($label): $([ "$no_unit" = 1 ] && echo "no unit tests (the 6.1 lane's)," || echo "unit tests and") $*"
# qemu's TCG runs about 10 times slower than the host: tests that scale by it (scale.bats)
export OOMS_EMULATED=10
# the GKI-like kernel: phone.bats checks it is one
export OOMS_PHONE_KERNEL=$kernel
# emulated: hprof.bats strips each corpus file in one mode (x86_64 runs every pair)
export OOMS_ROTATE_MODES=1
export OOMS_NO_UNIT=$no_unit
export OOMS_LANE="arm64 $label"
# collect_fds's repeated learning of the registers' place (50 runs on x86_64): each run is a
# load of the BPF object, about 10 times slower here (15 s a run); most on GKI's 5.10, where an
# earlier way to learn it failed 2 runs of 40, then bullseye's 5.10 (0 of 40 then); the 6.1
# kernels have bpf_task_pt_regs and take the 5.10 path only when told to (OOMSCOPE_FAULT)
export OOMS_LEARN_RUNS=$(case "$kernel" in gki-5.10) echo 15 ;; 5.10) echo 8 ;; *) echo 2 ;; esac)
OOMS_STREAM=1 OOMS_BUILD=build OOMSCOPE=/job/repo/oomscope scripts/run-tests.sh $args
EOF
  printf '%s\n' "$label" > "$job/lane$n.label"
  printf '%s\n' "$kernel" > "$job/lane$n.kernel"
  lanes+=("$d")
}

# run_lane DIR: the VM, its console into DIR.console, "STATUS SECONDS" into DIR.done
run_lane() {
  local d=$1 start status
  start=$(date +%s)
  # 3300 s: the 6.1 lane took 2319 s on a slower machine (CI24), 2400 s was too near
  VM_ARCH=arm64 VM_KERNEL=$(cat "$d.kernel") VM_JOB_MB=$((size * 2 + 256)) VM_TIMEOUT=${VM_TIMEOUT:-3300} \
    scripts/vm.sh run "$d" > "$d.console" 2>&1
  status=$?
  echo "$status $(($(date +%s) - start))" > "$d.done.tmp" && mv "$d.done.tmp" "$d.done"
}

# lane_report DIR: its console, its line "# arm64 VM (LABEL): N s wall, TALLY"; its tally into pass/fail
pass=0 fail=0 status_all=0
lane_report() {
  local d=$1 label status secs tally p f
  label=$(cat "$d.label")
  read -r status secs < "$d.done"
  # each failing test named with its lane
  sed -E "s/^not ok ([0-9]+) /not ok \1 [arm64 $label] /" "$d.console"
  tally=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$d.console" | tail -n1)
  echo "# arm64 VM ($label): $secs s wall, $tally"
  if [ -z "$tally" ]; then
    echo "not ok - the arm64 VM ($label) did not finish its suite (status $status)"
    fail=$((fail + 1))
    status_all=1
    return
  fi
  read -r p f < <(sed -E 's/^([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<< "$tally")
  pass=$((pass + p)) fail=$((fail + f))
  [ "$status" -eq 0 ] || status_all=1
}

# run_lanes: every queued lane, at most two at once, each reported when it ends
running=()
lane_pids=()
trap 'for p in "${lane_pids[@]}" "${image_pids[@]}"; do kill_tree "$p"; done; rm -rf "$job"' EXIT
. scripts/kill-tree.bash
# images_beside: each queued lane's VM image made ready in the background,
# all at once (vm.sh locks each image: a lane whose image is still being
# built waits for it; on a machine that has them, each is only checked).
# On a new machine the arm64 root (about 10 min), the 16 KiB kernel and the
# GKI one (a kernel build) are then made beside each other and the x86_64
# tests, not one after the other in front of them.
image_pids=()
images_beside() {
  local k t0
  t0=$(date +%s)
  while IFS= read -r k; do
    # (ready-K: the lanes on that kernel may start; a failed image too, whose lanes then fail at once)
    (VM_ARCH=arm64 VM_KERNEL=$k scripts/vm.sh image > "$job/image-${k:-6.1}.out" 2>&1 &&
      echo "# arm64 VM image (${k:-6.1}): ready after $(($(date +%s) - t0)) s" ||
      echo "# arm64 VM image (${k:-6.1}): failed after $(($(date +%s) - t0)) s: $(tail -n1 "$job/image-${k:-6.1}.out")"
      touch "$job/ready-${k:-6.1}") &
    image_pids+=($!)
  done < <(for d in "${lanes[@]}"; do cat "$d.kernel"; done | sort -u)
}

# next_ready: the first lane not yet started whose image is ready ("" if none):
# on a new machine the GKI kernels build long after the root image, and a
# lane waiting for its image would hold a place another could use
next_ready() {
  local d k
  for d in "${lanes[@]}"; do
    [ -e "$d.started" ] && continue
    k=$(cat "$d.kernel")
    [ -e "$job/ready-${k:-6.1}" ] && { echo "$d"; return; }
  done
}

run_lanes() {
  local left=${#lanes[@]} width d i t0
  t0=$(date +%s)
  images_beside
  while [ "$left" -gt 0 ] || [ ${#running[@]} -gt 0 ]; do
    width=2
    [ -n "${OOMS_ARM64_WIDEN_WHEN:-}" ] && [ ! -e "$OOMS_ARM64_WIDEN_WHEN" ] && width=1
    d=
    [ "$left" -gt 0 ] && [ ${#running[@]} -lt "$width" ] && d=$(next_ready)
    if [ -n "$d" ]; then
      touch "$d.started"
      left=$((left - 1))
      echo "# arm64 VM ($(cat "$d.label")): started at +$(($(date +%s) - t0)) s"
      run_lane "$d" &
      lane_pids+=($!)
      running+=("$d")
      continue
    fi
    for i in "${!running[@]}"; do
      d=${running[$i]}
      if [ -e "$d.done" ]; then
        lane_report "$d"
        unset 'running[i]'
        running=("${running[@]}")
        break
      fi
    done
    sleep 2
  done
  wait
}

mapfile -t files < <(bats_paths "${ARM64_BATS[@]}")
[ "$explicit" = 1 ] || files+=(tests/bats-arm64/arm32.bats tests/bats-arm64/tagged.bats "${JVM_BATS[@]}")
# ARM64_KERNEL=16k with named files: those on the 16 KiB kernel instead
if [ "$explicit" = 1 ] && [ "${ARM64_KERNEL:-}" = 16k ]; then
  lane "6.12, 16 KiB pages" 16k "${files[@]}"
elif [ "$explicit" = 1 ] && [ "${ARM64_KERNEL:-}" = gki ]; then
  lane "6.1, GKI's config" gki "${files[@]}"
elif [ "$explicit" = 1 ] && [ "${ARM64_KERNEL:-}" = 5.10 ]; then
  lane "5.10, bullseye's" 5.10 "${files[@]}"
elif [ "$explicit" = 1 ] && [ "${ARM64_KERNEL:-}" = gki-5.10 ]; then
  lane "5.10, GKI's config" gki-5.10 "${files[@]}"
else
  lane "6.1, 4 KiB pages" "" "${files[@]}"
fi
if [ "${ARM64_16K:-1}" != 0 ] && [ "$explicit" = 0 ]; then
  mapfile -t files16k < <(bats_paths "${PAGE16K_BATS[@]}")
  lane "6.12, 16 KiB pages" 16k "${files16k[@]}"
fi
if [ "${ARM64_GKI:-1}" != 0 ] && [ "$explicit" = 0 ]; then
  mapfile -t filesgki < <(bats_paths "${GKI_BATS[@]}")
  NO_UNIT=1 lane "6.1, GKI's config" gki "${filesgki[@]}"
fi
if [ "${ARM64_510:-1}" != 0 ] && [ "$explicit" = 0 ]; then
  mapfile -t files510 < <(bats_paths "${K510_BATS[@]}")
  NO_UNIT=1 lane "5.10, bullseye's" 5.10 "${files510[@]}"
fi
if [ "${ARM64_GKI510:-1}" != 0 ] && [ "$explicit" = 0 ]; then
  mapfile -t filesgki510 < <(bats_paths "${GKI510_BATS[@]}")
  NO_UNIT=1 lane "5.10, GKI's config" gki-5.10 "${filesgki510[@]}"
fi
run_lanes
echo "arm64: $pass passed, $fail failed"
[ "$status_all" -eq 0 ] && [ "$fail" -eq 0 ]
