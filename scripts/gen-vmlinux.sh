#!/usr/bin/env bash
# Regenerates vmlinux/<arch>/vmlinux.h from a kernel's BTF with bpftool.
#   scripts/gen-vmlinux.sh [BTF_FILE] [ARCH]
#   scripts/gen-vmlinux.sh --debian arm64|x86
# Defaults: /sys/kernel/btf/vmlinux and this machine's arch (x86 or arm64).
# --debian takes the BTF of Debian's own kernel for ARCH (linux-image-ARCH,
# downloaded, not installed): the kernel image holds its .BTF section's bytes
# as they are, so they are cut out of it (a raw BTF blob, byte-identical to
# that kernel's /sys/kernel/btf/vmlinux) and no -dbg package is needed.
# The committed x86 header was made from a 6.18 x86_64 kernel and the arm64
# one from Debian bookworm's 6.1 arm64 kernel; CO-RE relocates field offsets
# at load time, so each serves other kernels of its arch too.
set -euo pipefail
cd "$(dirname "$0")/.."

norm_arch() {
  case "$1" in
    x86_64|x86|amd64) echo x86 ;;
    aarch64|arm64) echo arm64 ;;
    *) echo "gen-vmlinux: unsupported arch $1 (x86 or arm64)" >&2; exit 2 ;;
  esac
}

# debian_btf ARCH OUT: the BTF blob of Debian's kernel for ARCH into OUT
debian_btf() {
  local deb_arch work pkg
  deb_arch=$([ "$1" = arm64 ] && echo arm64 || echo amd64)
  work=$(mktemp -d /tmp/gen-vmlinux.XXXXXX)
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" RETURN
  dpkg --print-foreign-architectures | grep -qx "$deb_arch" || [ "$(dpkg --print-architecture)" = "$deb_arch" ] ||
    { echo "gen-vmlinux: apt does not know $deb_arch packages: dpkg --add-architecture $deb_arch && apt-get update" >&2; return 1; }
  pkg=$(apt-cache depends "linux-image-$deb_arch:$deb_arch" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n1)
  [ -n "$pkg" ] || { echo "gen-vmlinux: no linux-image-$deb_arch:$deb_arch in apt's lists (apt-get update?)" >&2; return 1; }
  (cd "$work" && apt-get download -q "$pkg" > /dev/null 2>&1) ||
    { echo "gen-vmlinux: could not download $pkg" >&2; return 1; }
  dpkg-deb -x "$work"/*.deb "$work/x"
  # the header: magic 0xeb9f, version 1, flags 0, hdr_len 24; then the
  # type and string sections' offsets and lengths (after the header)
  python3 - "$work"/x/boot/vmlinu[xz]-* "$2" <<'PY'
import struct, sys
img = open(sys.argv[1], "rb").read()
at = img.find(b"\x9f\xeb\x01\x00\x18\x00\x00\x00")
if at < 0:
    sys.exit("gen-vmlinux: no BTF in " + sys.argv[1])
hdr_len, type_off, type_len, str_off, str_len = struct.unpack_from("<5I", img, at + 4)
size = hdr_len + max(type_off + type_len, str_off + str_len)
open(sys.argv[2], "wb").write(img[at:at + size])
PY
  echo "gen-vmlinux: BTF of $pkg"
}

if [ "${1:-}" = --debian ]; then
  arch=$(norm_arch "${2:-$(uname -m)}")
  btf=$(mktemp /tmp/gen-vmlinux-btf.XXXXXX)
  trap 'rm -f "$btf"' EXIT
  debian_btf "$arch" "$btf"
else
  btf=${1:-/sys/kernel/btf/vmlinux}
  arch=$(norm_arch "${2:-$(uname -m)}")
fi
[ -r "$btf" ] || { echo "gen-vmlinux: no BTF at $btf" >&2; exit 1; }
dir=vmlinux/$arch
mkdir -p "$dir"
bpftool btf dump file "$btf" format c > "$dir/vmlinux.h.tmp"
mv "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
echo "wrote $dir/vmlinux.h"
