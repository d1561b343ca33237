#!/usr/bin/env bash
# A stock Debian kernel in a VM, under qemu's TCG emulation (the machine's
# /dev/kvm cannot run guests):
# - x86_64 (the default): bookworm's linux-image-amd64, for what this
#   machine's own kernel cannot show (it refuses BPF trampolines, so fexit,
#   and has no kprobes); a root image with oomscope's runtime libraries.
# - arm64 (VM_ARCH=arm64): bookworm's linux-image-arm64 on qemu's `virt`
#   machine, with a root image that runs the test suite (bats, jq, python3),
#   for `make test-arm64`.
# Slow (a syscall costs ~20x), so for correctness, not for timing.
#
#   scripts/vm.sh image        build the images once per machine (root.img,
#                              vmlinuz, initrd; x86_64 about 90 s, arm64
#                              about 10 min), from the mirror apt uses
#   scripts/vm.sh run JOBDIR   boot with JOBDIR's files as /job; /job/job.sh
#                              runs as root once /proc, /sys, tracefs and a
#                              tmpfs /tmp are mounted; prints the console and
#                              exits with job.sh's status (124: timed out)
#
# The images live in a machine-wide cache, outside any clone (OOMS_VM_CACHE,
# default /var/cache/oomscope/vm), one folder per arch and key: the key is
# a hash of what an image is made from (its package list, the kernel
# package's version as apt sees it, the init's and the builder's versions),
# so a clone finds the images another clone built, and a change of any of
# them builds anew (the other keys of that arch are then removed). Each
# folder's checksums are checked before its first use by a run
# (OOMS_VM_VERIFY=0 skips it); building and checking hold that image's lock
# (another image may build meanwhile).
#
# VM_TIMEOUT (seconds, default 600) bounds a run; VM_JOB_MB (default 256) is
# the size of the job's disk; VM_KERNEL=16k (arm64) boots Debian's 6.12
# kernel built for 16 KiB pages instead of the root image's 6.1, and
# VM_KERNEL=gki a 6.1 kernel configured as Android's GKI (scripts/gki-kernel.sh),
# VM_KERNEL=5.10 Debian bullseye's 5.10 (Android 12 and 13's GKI kernels are 5.10),
# VM_KERNEL=gki-5.10 bullseye's 5.10 source built with the GKI config's options.
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${VM_ARCH:-x86_64}
case "$arch" in
  x86_64)
    PKGS=linux-image-amd64,libbpf1,libelf1,libdw1,libjson-c5,libsqlite3-0,liblzma5,zlib1g,libbz2-1.0,procps,bpftool
    QEMU=qemu-system-x86_64 ;;
  arm64)
    # the kernel comes apart (its initramfs is made here, not by
    # initramfs-tools, which takes ~15 min emulated); the rest runs the suite,
    # which compiles nothing in the VM (make builds its programs, the unit
    # tests' MiniDebugInfo files and the Java apps' classes on the host): no
    # compiler, the JRE and not the JDK; binutils for the unit tests' nm
    PKGS=libbpf1,libelf1,libdw1,libjson-c5,libsqlite3-0,liblzma5,zlib1g,libbz2-1.0,procps,bpftool,bats,jq,python3,util-linux,binutils,kmod,file,xz-utils,gzip,bc,android-libart,openjdk-17-jre-headless
    QEMU=qemu-system-aarch64 ;;
  *) echo "vm: VM_ARCH is x86_64 or arm64, not $arch" >&2; exit 2 ;;
esac
cache=${OOMS_VM_CACHE:-/var/cache/oomscope/vm}
# bump BUILDER_VERSION when image_ARCH or arm64_kernel changes what they make
BUILDER_VERSION=1

die() { echo "vm: $*" >&2; exit 1; }

# the mirror apt takes Debian bookworm's main packages from, read from its
# sources (apt-get indextargets lists what apt-get update would fetch)
apt_mirror() {
  local uri
  uri=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME) $(RELEASE) $(COMPONENT) $(IDENTIFIER)' 2> /dev/null |
    awk '($2 == "bookworm" || $3 == "bookworm") && $4 == "main" && $5 == "Packages" { print $1; exit }')
  [ -n "$uri" ] || die "apt has no source for Debian bookworm main (its sources: /etc/apt/sources.list{,.d})"
  echo "${uri%/}"
}

# candidate PKG: the version apt would install of PKG ("" if none)
candidate() {
  apt-cache policy "$1" 2> /dev/null | sed -n 's/^ *Candidate: //p' | grep -v '(none)' || true
}

# PID 1 in the test VM: mounts, runs /job/job.sh from the second disk, powers off
write_init() {
  cat > "$1" << 'EOF'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys 2> /dev/null; mount -t devtmpfs dev /dev 2> /dev/null
mount -t tracefs none /sys/kernel/tracing 2> /dev/null; mount -t debugfs none /sys/kernel/debug 2> /dev/null
mount -t tmpfs tmp /tmp; mount -t bpf bpf /sys/fs/bpf 2> /dev/null
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts 2> /dev/null; mount -t tmpfs shm /dev/shm 2> /dev/null
# what udev would make: bash's process substitution needs /dev/fd
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
for n in 0:stdin 1:stdout 2:stderr; do [ -e "/dev/${n#*:}" ] || ln -s "/proc/self/fd/${n%%:*}" "/dev/${n#*:}"; done
mount -t cgroup2 none /sys/fs/cgroup 2> /dev/null
hostname oomscope-vm 2> /dev/null
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mkdir -p /job && mount /dev/vdb /job
echo "vm: kernel $(uname -r) $(uname -m), $(nproc) cpus"
cd /job && sh ./job.sh
echo "vm: job exit $?"
cd /; umount /job 2> /dev/null; sync
echo o > /proc/sysrq-trigger
sleep 10
EOF
  chmod +x "$1"
}

# bump INIT_VERSION when write_init changes
INIT_VERSION=2

# image_x86_64 OUT: root.img, vmlinuz, initrd.img of a debootstrapped bookworm
image_x86_64() {
  local out=$1 tmp
  tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  trap 'rm -rf "$tmp"; exit 143' TERM INT HUP # (ended: its temp folder goes too)
  echo "vm: building the x86_64 root image (debootstrap bookworm with its kernel from $MIRROR; about 90 s)" >&2
  debootstrap --variant=minbase --include="$PKGS" bookworm "$tmp/root" "$MIRROR" \
    > "$tmp/debootstrap.log" 2>&1 || { tail -5 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
  write_init "$tmp/root/oomscope-init"
  cp "$tmp"/root/boot/vmlinuz-* "$out/vmlinuz"
  cp "$tmp"/root/boot/initrd.img-* "$out/initrd.img"
  mkfs.ext4 -q -F -d "$tmp/root" -L root "$out/root.img" 1200M
}

# arm64_kernel TMP PKG OUT: Debian's arm64 kernel package PKG (a name, or a .deb's path) taken apart
# into OUT/vmlinuz (its Image, booted as is) and OUT/initrd.img (busybox and
# the modules that reach the root disk); its modules stay in TMP/kernel,
# their version in KVER
arm64_kernel() {
  local tmp=$1 pkg=$2 out=$3 m
  rm -rf "$tmp/deb" "$tmp/kernel" "$tmp/initrd" "$tmp/bb"
  mkdir -p "$tmp/deb" "$tmp/kernel"
  if [ -f "$pkg" ]; then # a .deb already fetched (another release's: scripts/debian-pkg.sh)
    cp "$pkg" "$tmp/deb/"
    (cd "$tmp/deb" && apt-get download -q busybox-static:arm64 > /dev/null 2>&1) || die "could not download busybox-static"
  else
    (cd "$tmp/deb" && apt-get download -q "${pkg%%:*}:arm64" busybox-static:arm64 > /dev/null 2>&1) || die "could not download $pkg and busybox-static"
  fi
  dpkg-deb -x "$tmp"/deb/linux-image-*.deb "$tmp/kernel"
  KVER=$(ls "$tmp/kernel/lib/modules")
  depmod -b "$tmp/kernel" "$KVER"
  # the initramfs: busybox, the modules in modules.dep's order, /init
  mkdir -p "$tmp/initrd/bin" "$tmp/initrd/lib/modules" "$tmp/initrd/newroot" "$tmp/initrd/proc" "$tmp/initrd/dev" "$tmp/initrd/sys"
  dpkg-deb -x "$tmp"/deb/busybox-static_*.deb "$tmp/bb"
  cp "$tmp/bb/bin/busybox" "$tmp/initrd/bin/"
  for m in sh mount umount insmod switch_root sleep cat sed mkdir ls echo; do ln -s busybox "$tmp/initrd/bin/$m"; done
  : > "$tmp/initrd/modules"
  add_module() { # NAME: the module and what it needs, each once, needs first
    local path deps d
    path=$(grep -E "(^|/)$1\.ko(\.xz)?:" "$tmp/kernel/lib/modules/$KVER/modules.dep" | cut -d: -f1 || true)
    [ -n "$path" ] || return 0 # built in
    grep -qxF "${path%.xz}" "$tmp/initrd/modules" && return 0
    deps=$(grep -E "^$path:" "$tmp/kernel/lib/modules/$KVER/modules.dep" | cut -d: -f2)
    for d in $deps; do add_module "$(basename "$d" | sed 's/\.ko.*//')"; done
    # busybox's insmod takes a plain .ko: newer kernels ship them xz'd
    case "$path" in
      *.xz) xz -dc "$tmp/kernel/lib/modules/$KVER/$path" > "$tmp/initrd/lib/modules/$(basename "$path" .xz)" ;;
      *) cp "$tmp/kernel/lib/modules/$KVER/$path" "$tmp/initrd/lib/modules/" ;;
    esac
    echo "${path%.xz}" >> "$tmp/initrd/modules"
  }
  for m in virtio_mmio virtio_pci virtio_blk crc32c_generic ext4; do add_module "$m"; done
  write_initrd_init "$tmp/initrd/init"
  chmod +x "$tmp/initrd/init"
  mkdir -p "$out"
  cp "$tmp/kernel/boot/vmlinuz-$KVER" "$out/vmlinuz.tmp" && mv "$out/vmlinuz.tmp" "$out/vmlinuz"
  (cd "$tmp/initrd" && find . | cpio -o -H newc --quiet | gzip -1) > "$out/initrd.img.tmp" && mv "$out/initrd.img.tmp" "$out/initrd.img"
}

# write_initrd_init FILE: the initramfs's /init (the modules listed in its
# /modules loaded first)
write_initrd_init() {
  cat > "$1" << 'EOF'
#!/bin/sh
# the initramfs's PID 1: load what reaches the root disk, switch to it and
# run oomscope.init= from the kernel's command line
mount -t proc proc /proc; mount -t devtmpfs dev /dev
for m in $(cat /modules); do insmod "/lib/modules/${m##*/}"; done
for i in $(seq 1 100); do [ -b /dev/vda ] && break; sleep 0.1; done
mount -t ext4 -o rw /dev/vda /newroot || { echo "vm: initramfs: cannot mount /dev/vda"; echo o > /proc/sysrq-trigger; }
init=$(sed -n 's/.*oomscope\.init=\([^ ]*\).*/\1/p' /proc/cmdline)
umount /proc; umount /dev
exec switch_root /newroot "${init:-/oomscope-init}"
EOF
  chmod +x "$1"
}

# image_arm64 OUT: debootstrap's first stage here, Debian's arm64 kernel taken
# apart (its Image booted as is, its modules into the root), an initramfs of
# busybox and the modules that reach the root disk, then the second stage
# run inside the VM itself (no binfmt_misc needed on this machine)
image_arm64() {
  local out=$1 tmp
  tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  trap 'rm -rf "$tmp"; exit 143' TERM INT HUP # (ended: its temp folder goes too)
  command -v depmod > /dev/null && command -v cpio > /dev/null || die "depmod or cpio missing (scripts/install-deps.sh installs kmod and cpio)"
  echo "vm: building the arm64 root image (debootstrap bookworm from $MIRROR, its second stage in the VM; about 10 min)" >&2
  debootstrap --foreign --arch=arm64 --variant=minbase --include="$PKGS" bookworm "$tmp/root" "$MIRROR" \
    > "$tmp/debootstrap.log" 2>&1 || { tail -5 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
  arm64_kernel "$tmp" "$KERNEL_PKG" "$out"
  mkdir -p "$tmp/root/lib/modules"
  cp -a "$tmp/kernel/lib/modules/$KVER" "$tmp/root/lib/modules/"
  write_init "$tmp/root/oomscope-init"
  cat > "$tmp/root/oomscope-stage2" << 'EOF'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev 2> /dev/null
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
# no fsync after each file dpkg unpacks (the emulated disk's flushes were much
# of the stage's 21 minutes): the image is synced once at the end
mkdir -p /etc/dpkg/dpkg.cfg.d
echo force-unsafe-io > /etc/dpkg/dpkg.cfg.d/oomscope-unsafe-io
/debootstrap/debootstrap --second-stage > /var/log/stage2.log 2>&1
st=$?
rm -f /etc/dpkg/dpkg.cfg.d/oomscope-unsafe-io
echo "vm: stage2 exit $st"
tail -n 3 /var/log/stage2.log
sync
echo o > /proc/sysrq-trigger
sleep 10
EOF
  chmod +x "$tmp/root/oomscope-stage2"
  mkfs.ext4 -q -F -d "$tmp/root" -L root "$out/root.img" 2500M
  # (about 10 min on a quiet machine; 25 min and more beside the x86_64 suite and
  # the GKI kernel's build on a 2-CPU one: a first CI run once ran out of 1500 s)
  KDIR=$out VM_TIMEOUT=2400 boot "$out/root.img" "" /oomscope-stage2 > "$tmp/console" || true
  grep -E '^vm: |^E: |^W: ' "$tmp/console" >&2 || true
  grep -q '^vm: stage2 exit 0' "$tmp/console" || die "debootstrap's second stage failed in the VM (above)"
}

# kernel_gki OUT (VM_KERNEL=gki, arm64): a kernel configured as Android's
# GKI where a BPF tool sees it (scripts/gki-kernel.sh: no syscall events,
# 39-bit VAs, shadow call stacks...), built from Debian's linux-source-6.1,
# everything built in; booted on the arm64 root with an initramfs that only
# mounts it
kernel_gki() {
  local tmp
  tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  trap 'rm -rf "$tmp"; exit 143' TERM INT HUP # (ended: its temp folder goes too)
  echo "vm: building the GKI-like kernel ${GKI_KERNEL:-6.1} (scripts/gki-kernel.sh: ~12 CPU-minutes the first time)" >&2
  # its source and build tree beside the images (a new machine's cache, pointed at an empty
  # folder, builds it from nothing), unless GKI_BUILD_DIR says where
  GKI_BUILD_DIR=${GKI_BUILD_DIR:-$cache/../gki-build} GKI_MIRROR=$MIRROR scripts/gki-kernel.sh "$tmp/gki" >&2 ||
    die "scripts/gki-kernel.sh failed"
  mkdir -p "$tmp/deb" "$tmp/initrd/bin" "$tmp/initrd/newroot" "$tmp/initrd/proc" "$tmp/initrd/dev" "$tmp/initrd/sys"
  (cd "$tmp/deb" && apt-get download -q busybox-static:arm64 > /dev/null 2>&1) || die "could not download busybox-static"
  dpkg-deb -x "$tmp"/deb/busybox-static_*.deb "$tmp/bb"
  cp "$tmp/bb/bin/busybox" "$tmp/initrd/bin/"
  for m in sh mount umount insmod switch_root sleep cat sed mkdir ls echo; do ln -s busybox "$tmp/initrd/bin/$m"; done
  : > "$tmp/initrd/modules" # everything built in
  write_initrd_init "$tmp/initrd/init"
  mkdir -p "$1"
  cp "$tmp/gki/vmlinuz" "$1/vmlinuz"
  cp "$tmp/gki/config" "$1/config"
  (cd "$tmp/initrd" && find . | cpio -o -H newc --quiet | gzip -1) > "$1/initrd.img"
}

# kernel_16k OUT (VM_KERNEL=16k, arm64): Debian's 6.12 arm64 kernel built for
# 16 KiB pages (as on Apple silicon and some Android devices), booted on the
# arm64 root
kernel_16k() {
  local tmp
  tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  trap 'rm -rf "$tmp"; exit 143' TERM INT HUP # (ended: its temp folder goes too)
  echo "vm: taking apart $K16_PKG for the 16 KiB-page kernel" >&2
  arm64_kernel "$tmp" "$K16_PKG" "$1"
}

# kernel_510 OUT (VM_KERNEL=5.10, arm64): Debian bullseye's newest 5.10
# arm64 kernel (BTF on; the kernel of Android 12 and 13's GKI line, android12-
# and android13-5.10), from the mirror apt uses, checked as apt would
# (scripts/debian-pkg.sh), booted on the arm64 root
kernel_510() {
  local tmp deb
  tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  trap 'rm -rf "$tmp"; exit 143' TERM INT HUP # (ended: its temp folder goes too)
  deb=$(scripts/debian-pkg.sh "$MIRROR" bullseye arm64 'linux-image-5\.10\.0-[0-9]+-arm64' "$tmp/pkg") || die "no bullseye 5.10 kernel"
  echo "vm: taking apart $(basename "$deb") for the 5.10 kernel" >&2
  arm64_kernel "$tmp" "$deb" "$1"
  basename "$deb" > "$1/package"
}

# cached NAME KEY BUILDER: sets CACHED to NAME's folder for KEY in the cache,
# built by BUILDER OUT when absent or when its checksums do not match
cached() {
  local name=$1 key=$2 builder=$3 hash d lock o out
  hash=$(printf '%s\n' "$key" | sha256sum | cut -c1-16)
  d=$cache/$name-$hash
  mkdir -p "$cache" || die "cannot make the image cache $cache (OOMS_VM_CACHE names another folder)"
  # one lock an image: different images build at the same time (the arm64
  # root, its kernels and the x86_64 root, beside the tests on a new machine)
  exec {lock}> "$cache/.lock-$name"
  flock "$lock"
  # a builder of this image ended before its end left its folder (none runs: the lock is ours)
  rm -rf "$cache/.build-$name".*
  # CRC (cksum) and not SHA-256: 0.4 s for a 2.5 GB image against 13 s
  if [ -f "$d/CKSUMS" ] && [ "${OOMS_VM_VERIFY:-1}" != 0 ] &&
    ! (cd "$d" && cksum $(awk '{ print $3 }' CKSUMS) 2> /dev/null | cmp -s - CKSUMS); then
    echo "vm: $d does not match its checksums: built anew" >&2
    rm -rf "$d"
  fi
  if [ ! -f "$d/CKSUMS" ]; then
    [ "$(id -u)" -eq 0 ] || die "building the $name image needs root (debootstrap)"
    command -v debootstrap > /dev/null && command -v "$QEMU" > /dev/null ||
      die "debootstrap or $QEMU missing (scripts/install-deps.sh installs them)"
    out=$(mktemp -d "$cache/.build-$name.XXXXXX") && chmod 755 "$out"
    if ! ("$builder" "$out"); then rm -rf "$out"; die "building the $name image failed"; fi
    printf '%s\n' "$key" > "$out/key"
    (cd "$out" && cksum $(ls | grep -vx key) > CKSUMS)
    rm -rf "$d"
    mv "$out" "$d"
    # the older keys of this image are of no further use
    for o in "$cache/$name"-*; do [ "$o" = "$d" ] || rm -rf "$o"; done
    echo "vm: $name image cached in $d" >&2
  fi
  flock -u "$lock"
  exec {lock}>&-
  CACHED=$d
}

# image: ROOTDIR (its root.img) and KDIR (vmlinuz, initrd.img) set from the
# cache, built first where missing
image() {
  local kver
  MIRROR=$(apt_mirror)
  if [ "$arch" = x86_64 ]; then
    kver=$(candidate linux-image-amd64)
    [ -n "$kver" ] || die "no linux-image-amd64 in apt's lists (apt-get update?)"
    cached x86_64-root "builder=$BUILDER_VERSION init=$INIT_VERSION pkgs=$PKGS kernel=linux-image-amd64 $kver" image_x86_64
    ROOTDIR=$CACHED KDIR=$CACHED
    return 0
  fi
  dpkg --print-foreign-architectures | grep -qx arm64 || die "apt does not know arm64 packages: scripts/install-deps.sh --arm64"
  KERNEL_PKG=$(apt-cache depends linux-image-arm64:arm64 2> /dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1)
  [ -n "$KERNEL_PKG" ] || die "no linux-image-arm64:arm64 in apt's lists (apt-get update?)"
  local root_key="builder=$BUILDER_VERSION init=$INIT_VERSION pkgs=$PKGS kernel=$KERNEL_PKG $(candidate "$KERNEL_PKG:arm64") busybox $(candidate busybox-static:arm64)"
  # the other kernels first: they need no root image, so on a new machine
  # one builds while another caller builds the root
  KDIR=
  if [ "${VM_KERNEL:-}" = 16k ]; then
    K16_PKG=$(apt-cache pkgnames linux-image-6.12 2> /dev/null | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-arm64-16k-unsigned$' | sort -V | tail -n1)
    [ -n "$K16_PKG" ] || die "no linux-image-6.12.*-arm64-16k-unsigned in apt's lists (apt-get update?)"
    cached arm64-16k "builder=$BUILDER_VERSION kernel=$K16_PKG $(candidate "$K16_PKG:arm64") busybox $(candidate busybox-static:arm64)" kernel_16k
    KDIR=$CACHED
  elif [ "${VM_KERNEL:-}" = 5.10 ]; then
    # bullseye is no longer updated but by its LTS: the key names the line, the folder its package
    cached arm64-5.10 "builder=$BUILDER_VERSION kernel=bullseye linux-image-5.10.0-N-arm64 busybox $(candidate busybox-static:arm64)" kernel_510
    KDIR=$CACHED
  elif [ "${VM_KERNEL:-}" = gki-5.10 ]; then
    # Android 12 and 13's line with the GKI config: bullseye's 5.10 source, built once
    GKI_KERNEL=5.10 cached arm64-gki-5.10 "builder=$BUILDER_VERSION gki=$(cat scripts/gki.config scripts/gki-kernel.sh | sha256sum | cut -c1-16) source bullseye linux-source-5.10 gcc $(candidate gcc-aarch64-linux-gnu) busybox $(candidate busybox-static:arm64)" kernel_gki
    KDIR=$CACHED
  elif [ "${VM_KERNEL:-}" = gki ]; then
    # the key: the fragment, the build script, the source and the compiler
    cached arm64-gki "builder=$BUILDER_VERSION gki=$(cat scripts/gki.config scripts/gki-kernel.sh | sha256sum | cut -c1-16) source $(candidate linux-source-6.1) gcc $(candidate gcc-aarch64-linux-gnu) busybox $(candidate busybox-static:arm64)" kernel_gki
    KDIR=$CACHED
  fi
  cached arm64-root "$root_key" image_arm64
  ROOTDIR=$CACHED
  [ -n "$KDIR" ] || KDIR=$CACHED
}

# boot ROOT_IMG SNAPSHOT(on|"") INIT [JOB_IMG]: the VM's console on stdout,
# booting KDIR's kernel and initramfs
boot() {
  local root=$1 snap=$2 init=$3 job=${4:-}
  local drives=(-drive "file=$root,format=raw,if=virtio${snap:+,snapshot=on}")
  [ -n "$job" ] && drives+=(-drive "file=$job,format=raw,if=virtio")
  if [ "$arch" = x86_64 ]; then
    timeout "${VM_TIMEOUT:-600}" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 2048 -nographic -no-reboot \
      -nic none -kernel "$KDIR/vmlinuz" -initrd "$KDIR/initrd.img" \
      -append "root=/dev/vda rw console=ttyS0 panic=-1 quiet init=$init" "${drives[@]}" 2>&1 < /dev/null
  else
    # pauth-impdef: pointer authentication emulated the cheap way (-cpu max alone is 4x slower);
    # mte=on: memory tagging, so glibc's allocator can hand out tagged pointers (tagged.bats)
    timeout "${VM_TIMEOUT:-600}" qemu-system-aarch64 -M virt,mte=on -cpu max,pauth-impdef=on -smp 2 -m 3072 -nographic -no-reboot \
      -nic none -kernel "$KDIR/vmlinuz" -initrd "$KDIR/initrd.img" \
      -append "console=ttyAMA0 panic=-1 quiet oomscope.init=$init" "${drives[@]}" 2>&1 < /dev/null
  fi | sed -u -E -e '/^qemu-system-[a-z0-9_]*: warning/d' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1bc//g' -e 's/\r//'
  return "${PIPESTATUS[0]}"
}

run() {
  local job=${1:?usage: scripts/vm.sh run JOBDIR} tmp out status
  [ -f "$job/job.sh" ] || die "$job/job.sh missing"
  image
  tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  trap 'rm -rf "$tmp"; exit 143' TERM INT HUP # (ended: its temp folder goes too)
  mkfs.ext4 -q -F -d "$job" "$tmp/job.img" "${VM_JOB_MB:-256}M" > /dev/null
  # snapshot=on: the root image is never written
  set +e
  boot "$ROOTDIR/root.img" on /oomscope-init "$tmp/job.img" | tee "$tmp/console"
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" -eq 124 ] && { echo "vm: timed out after ${VM_TIMEOUT:-600} s" >&2; return 124; }
  out=$(sed -n 's/^vm: job exit \([0-9]*\).*/\1/p' "$tmp/console" | tail -n1)
  [ -n "$out" ] || die "the VM ended before its job did (see the console above)"
  return "$out"
}

case "${1:-}" in
  image) image; echo "$ROOTDIR" ;;
  run) shift; run "$@" ;;
  *) echo "usage: [VM_ARCH=arm64] [VM_KERNEL=16k|gki|5.10|gki-5.10] scripts/vm.sh image | run JOBDIR" >&2; exit 2 ;;
esac
