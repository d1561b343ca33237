#!/usr/bin/env bash
# scripts/min-btf.sh KERNEL_BTF OUT [BUILD_DIR]: a minimal BTF for oomscope's
# BPF programs (the types they relocate against, and nothing else), as
# BTFHub's btfgen makes them, for a kernel without /sys/kernel/btf/vmlinux:
# pass OUT to oomscope's --btf. KERNEL_BTF is that kernel's own BTF: a copy
# of its /sys/kernel/btf/vmlinux, a vmlinux with a .BTF section (a GKI
# build's vmlinux from ci.android.com has one), or a BTFHub archive's
# file. BUILD_DIR (default build, or build-arm64 for a phone's programs)
# holds the BPF objects. A few KiB instead of several MiB: small enough to
# push with the binary.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: scripts/min-btf.sh KERNEL_BTF OUT [BUILD_DIR]" >&2; exit 2; }
src=$1 out=$2 build=${3:-build}
die() { echo "min-btf: $*" >&2; exit 1; }
command -v bpftool > /dev/null || die "bpftool missing (Debian package bpftool)"
[ -r "$src" ] || die "$src: cannot read it"
objs=("$build"/*.bpf.o)
[ -e "${objs[0]}" ] || die "no BPF objects in $build/ (make, or make ARCH=arm64)"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
bpftool gen min_core_btf "$src" "$tmp" "${objs[@]}" > /dev/null || die "bpftool gen min_core_btf failed on $src"
mv "$tmp" "$out"
echo "min-btf: $out ($(stat -c %s "$out") bytes) for ${#objs[@]} BPF objects of $build/"
