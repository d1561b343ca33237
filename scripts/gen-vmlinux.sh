#!/usr/bin/env bash
# Regenerates vmlinux/<arch>/vmlinux.h from a kernel's BTF with bpftool.
#   scripts/gen-vmlinux.sh [BTF_FILE] [ARCH]
# Defaults: /sys/kernel/btf/vmlinux and this machine's arch (x86 or arm64).
# The committed x86 header was made from a 6.18 x86_64 kernel; CO-RE relocates
# field offsets at load time, so it serves other kernels too.
set -euo pipefail
btf=${1:-/sys/kernel/btf/vmlinux}
case "${2:-$(uname -m)}" in
  x86_64|x86) arch=x86 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "gen-vmlinux: unsupported arch ${2:-$(uname -m)}" >&2; exit 2 ;;
esac
[ -r "$btf" ] || { echo "gen-vmlinux: no BTF at $btf" >&2; exit 1; }
dir=$(dirname "$0")/../vmlinux/$arch
mkdir -p "$dir"
bpftool btf dump file "$btf" format c > "$dir/vmlinux.h.tmp"
mv "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
echo "wrote $dir/vmlinux.h"
