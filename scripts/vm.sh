#!/usr/bin/env bash
# A stock Debian kernel in a VM, for what this machine's own kernel cannot
# show (it refuses BPF trampolines, so fexit, and has no kprobes): Debian
# bookworm's linux-image-amd64 booted by qemu under TCG emulation (the
# machine's /dev/kvm cannot run guests), with a root image that holds
# oomscope's runtime libraries. Slow (a syscall costs ~20x), so for
# correctness, not for timing.
#
#   scripts/vm.sh image        build build/vm/x86_64/ once (root.img, vmlinuz,
#                              initrd; about 90 s, from deb.debian.org)
#   scripts/vm.sh run JOBDIR   boot with JOBDIR's files as /job; /job/job.sh
#                              runs as root once /proc, /sys, tracefs and a
#                              tmpfs /tmp are mounted; prints the console and
#                              exits with job.sh's status (124: timed out)
#
# VM_TIMEOUT (seconds, default 600) bounds a run.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/vm/x86_64
PKGS=linux-image-amd64,libbpf1,libelf1,libdw1,libjson-c5,libsqlite3-0,liblzma5,zlib1g,libbz2-1.0,procps,bpftool

die() { echo "vm: $*" >&2; exit 1; }

image() {
  [ -s "$dir/root.img" ] && [ -s "$dir/vmlinuz" ] && [ -s "$dir/initrd.img" ] && [ "$(cat "$dir/pkgs" 2> /dev/null)" = "$PKGS" ] && return 0
  [ "$(id -u)" -eq 0 ] || die "building the image needs root (debootstrap)"
  command -v debootstrap > /dev/null && command -v qemu-system-x86_64 > /dev/null ||
    die "debootstrap or qemu-system-x86_64 missing (scripts/install-deps.sh installs them)"
  local tmp; tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  echo "vm: building the root image (debootstrap bookworm with its kernel; about 90 s)" >&2
  debootstrap --variant=minbase --include="$PKGS" bookworm "$tmp/root" http://deb.debian.org/debian \
    > "$tmp/debootstrap.log" 2>&1 || { tail -5 "$tmp/debootstrap.log" >&2; die "debootstrap failed"; }
  cat > "$tmp/root/oomscope-init" << 'EOF'
#!/bin/sh
# PID 1 in the test VM: mounts, runs /job/job.sh from the second disk, powers off
mount -t proc proc /proc; mount -t sysfs sys /sys 2> /dev/null; mount -t devtmpfs dev /dev 2> /dev/null
mount -t tracefs none /sys/kernel/tracing 2> /dev/null; mount -t debugfs none /sys/kernel/debug 2> /dev/null
mount -t tmpfs tmp /tmp; mount -t bpf bpf /sys/fs/bpf 2> /dev/null
mkdir -p /job && mount /dev/vdb /job
echo "vm: kernel $(uname -r), $(nproc) cpus"
cd /job && sh ./job.sh
echo "vm: job exit $?"
cd /; umount /job 2> /dev/null; sync
echo o > /proc/sysrq-trigger
sleep 10
EOF
  chmod +x "$tmp/root/oomscope-init"
  mkdir -p "$dir"
  cp "$tmp"/root/boot/vmlinuz-* "$dir/vmlinuz.tmp" && mv "$dir/vmlinuz.tmp" "$dir/vmlinuz"
  cp "$tmp"/root/boot/initrd.img-* "$dir/initrd.img.tmp" && mv "$dir/initrd.img.tmp" "$dir/initrd.img"
  mkfs.ext4 -q -F -d "$tmp/root" -L root "$dir/root.img.tmp" 1200M && mv "$dir/root.img.tmp" "$dir/root.img"
  echo "$PKGS" > "$dir/pkgs"
}

run() {
  local job=${1:?usage: scripts/vm.sh run JOBDIR} tmp out status
  [ -f "$job/job.sh" ] || die "$job/job.sh missing"
  image
  tmp=$(mktemp -d /tmp/oomscope-vm.XXXXXX)
  trap 'rm -rf "$tmp"' RETURN
  mkfs.ext4 -q -F -d "$job" "$tmp/job.img" 256M > /dev/null
  # snapshot=on: the root image is never written
  set +e
  timeout "${VM_TIMEOUT:-600}" qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 2048 -nographic -no-reboot \
    -nic none -kernel "$dir/vmlinuz" -initrd "$dir/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 panic=-1 quiet init=/oomscope-init" \
    -drive "file=$dir/root.img,format=raw,if=virtio,snapshot=on" \
    -drive "file=$tmp/job.img,format=raw,if=virtio" 2>&1 < /dev/null |
    sed -u -E -e '/^qemu-system-x86_64: warning/d' -e 's/\x1b\[[0-9;?]*[a-zA-Z]//g' -e 's/\x1bc//g' -e 's/\r//' | tee "$tmp/console"
  status=${PIPESTATUS[0]}
  set -e
  [ "$status" -eq 124 ] && { echo "vm: timed out after ${VM_TIMEOUT:-600} s" >&2; return 124; }
  out=$(sed -n 's/^vm: job exit \([0-9]*\).*/\1/p' "$tmp/console" | tail -n1)
  [ -n "$out" ] || die "the VM ended before its job did (see the console above)"
  return "$out"
}

case "${1:-}" in
  image) image ;;
  run) shift; run "$@" ;;
  *) echo "usage: scripts/vm.sh image | run JOBDIR" >&2; exit 2 ;;
esac
