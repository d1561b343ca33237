#!/usr/bin/env bash
# scripts/android-package.sh OUT: the static oomscope and the shim of each
# ABI (build/static/oomscope: x86_64, the emulators'; build-arm64/static/
# oomscope: arm64-v8a, the phones'), stripped into OUT/<abi>/, checked to need
# nothing from the device, and their sizes said. `make android` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/android-package.sh OUT}
die() { echo "android-package: $*" >&2; exit 1; }
pack() { # ABI BUILD STRIP
  local abi=$1 build=$2 strip=$3 d="$out/$1"
  mkdir -p "$d"
  "$strip" -o "$d/oomscope.tmp" "$build/static/oomscope" && mv "$d/oomscope.tmp" "$d/oomscope"
  "$strip" --strip-unneeded -o "$d/liboomscope_shim.so.tmp" "$build/liboomscope_shim.so" && mv "$d/liboomscope_shim.so.tmp" "$d/liboomscope_shim.so"
  # nothing from the device but the kernel: no interpreter, no NEEDED
  ! readelf -lW "$d/oomscope" | grep -q 'Requesting program interpreter' || die "$d/oomscope asks for a loader"
  ! readelf -dW "$d/oomscope" 2> /dev/null | grep -q NEEDED || die "$d/oomscope needs a library"
  ! readelf -dW "$d/liboomscope_shim.so" | grep -q NEEDED || die "$d/liboomscope_shim.so needs a library"
  # every segment aligned to 16 KiB or more: a device of 16 KiB pages (Android 15+,
  # and the x86_64 emulator's 16 KiB images) refuses a file aligned to less
  local f a
  for f in "$d/oomscope" "$d/liboomscope_shim.so"; do
    for a in $(readelf -lW "$f" | awk '$1 == "LOAD" {print $NF}'); do
      [ $((a)) -ge 16384 ] || die "$f has a LOAD segment aligned to $a, under 16 KiB pages' 0x4000 (-Wl,-z,max-page-size)"
    done
  done
  printf '%-10s oomscope %6d KiB, liboomscope_shim.so %4d KiB  (%s)\n' "$abi" \
    $(( $(stat -c %s "$d/oomscope") / 1024 )) $(( $(stat -c %s "$d/liboomscope_shim.so") / 1024 )) "$d"
}
pack x86_64 build strip
pack arm64-v8a build-arm64 aarch64-linux-gnu-strip
