#!/usr/bin/env bash
# An arm64 kernel configured like Android's GKI (android14-6.1) where a BPF
# tool can tell the difference, for qemu's `virt` machine (scripts/vm.sh's
# arm64 VM): Debian's 6.1 kernel boots with a distribution's config (BTF,
# but also FTRACE_SYSCALLS, 48-bit VAs, no SCS...), while phones run GKI.
#
#   scripts/gki-kernel.sh OUT_DIR   writes OUT_DIR/vmlinuz (the arm64 Image,
#                                   for qemu -kernel) and OUT_DIR/config
#
# Built from Debian's linux-source-6.1 (its 6.1 LTS with Debian's patches)
# with Debian's aarch64-linux-gnu-gcc, from `make allnoconfig` and the
# fragment scripts/gki.config, so only what is named there is compiled:
# everything that boots on `virt` is built in (virtio-pci/-mmio, virtio-blk,
# ext4, PL011 console, devtmpfs, gzip initramfs), no module is built. About
# 12 CPU-minutes (16 min on 2 busy cores; DWARF for BTF is much of it), a
# 13 MB Image; a second run with the same fragment and source builds
# nothing (15 s), a changed fragment only what its options touch.
#
# Matched with gki_defconfig: BPF_SYSCALL, BPF_JIT + BPF_JIT_ALWAYS_ON,
# unprivileged BPF allowed, CGROUP_BPF, DEBUG_INFO_BTF from DWARF4,
# KALLSYMS_ALL, IKCONFIG(_PROC), KPROBES, UPROBES, KPROBE/UPROBE_EVENTS,
# BPF_EVENTS, FTRACE with the function (graph) tracer, HIST_TRIGGERS,
# FTRACE_SYSCALLS off (no syscalls:sys_enter_*/sys_exit_* events: only
# raw_syscalls), PREEMPT, PSI, MEMCG, SWAP, LRU_GEN (on), THP (madvise),
# 4 KiB pages with 39-bit VAs, KASLR, SHADOW_CALL_STACK (gcc 12 has it),
# PAC in the kernel, MTE, SW_TTBR0_PAN, BTI for user space only,
# PANIC_ON_OOPS, MODULES (needed by KPROBES and BPF_JIT).
# Not matched: CFI_CLANG (kCFI needs clang >= 16, Debian has 14),
# UNWIND_PATCH_PAC_INTO_SCS (clang, and not in upstream 6.1), KASAN_HW_TAGS,
# COMPAT, SELinux, audit, INET and the drivers (left out: compile time);
# PID_NS and USER_NS are on here though GKI has them off (the test suite).
#
# GKI_KERNEL=5.10 builds Android 12 and 13's line instead (android12- and
# android13-5.10) from Debian bullseye's linux-source-5.10 (its 5.10 LTS),
# fetched from the mirror apt uses and checked as apt would
# (scripts/debian-pkg.sh; GKI_MIRROR names the mirror, else apt's own for
# bookworm), with the same fragment less what 5.10 does not have (GKI_510_ABSENT
# below: MGLRU, anonymous VMA names, EPAN, split BTF for modules, and the
# shadow call stack, which 5.10 builds with clang only).
#
# Environment: GKI_BUILD_DIR (default /var/tmp/gki-build) holds the source
# and the build tree, outside any clone; GKI_JOBS (default 2) for make -j.
# The build runs under nice -n 19. Installs, when missing (root), the
# packages it needs from the mirror apt is configured with.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: [GKI_KERNEL=6.1|5.10] scripts/gki-kernel.sh OUT_DIR}
build=${GKI_BUILD_DIR:-/var/tmp/gki-build}
jobs=${GKI_JOBS:-2}
line=${GKI_KERNEL:-6.1}
fragment=$here/gki.config
GKI_510_ABSENT=(CONFIG_LRU_GEN CONFIG_LRU_GEN_ENABLED CONFIG_ANON_VMA_NAME CONFIG_ARM64_EPAN CONFIG_ARM64_PTR_AUTH_KERNEL
  CONFIG_DEBUG_INFO_BTF_MODULES CONFIG_BPF_UNPRIV_DEFAULT_OFF CONFIG_SHADOW_CALL_STACK)

die() { echo "gki-kernel: $*" >&2; exit 1; }

case "$line" in
  6.1) src=$build/linux-source-6.1 obj=$build/out ;;
  5.10) src=$build/linux-source-5.10 obj=$build/out-5.10 ;;
  *) die "GKI_KERNEL=$line: 6.1 or 5.10" ;;
esac

# --- packages: the source, the cross compiler, kbuild's host tools, pahole
pkgs=(gcc-aarch64-linux-gnu gcc make bc flex bison dwarves libelf-dev libc6-dev xz-utils)
[ "$line" = 6.1 ] && pkgs+=(linux-source-6.1)
[ "$line" = 5.10 ] && pkgs+=(curl gpgv debian-archive-keyring)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f '${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || die "missing packages (install them as root): ${missing[*]}"
  echo "gki-kernel: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" > /dev/null
fi
mkdir -p "$build"
if [ "$line" = 6.1 ]; then
  tarball=$(compgen -G '/usr/src/linux-source-6.1.tar.*' | head -n1 || true)
  [ -n "$tarball" ] || die "no /usr/src/linux-source-6.1.tar.* (linux-source-6.1 installed?)"
  version=$(dpkg-query -W -f '${Version}' linux-source-6.1)
else
  mirror=${GKI_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(CODENAME) $(COMPONENT) $(IDENTIFIER)' 2> /dev/null |
    awk '$2 == "bookworm" && $3 == "main" && $4 == "Packages" { print $1; exit }')}
  [ -n "$mirror" ] || die "no mirror for bullseye's linux-source-5.10: set GKI_MIRROR (apt has no bookworm main source)"
  deb=$("$here/debian-pkg.sh" "${mirror%/}" bullseye arm64 'linux-source-5\.10' "$build/pkg-5.10") ||
    die "could not fetch bullseye's linux-source-5.10"
  version=$(basename "$deb")
  if [ "$(cat "$build/source-version-5.10" 2> /dev/null)" != "$version" ] || [ ! -f "$src/Makefile" ]; then
    rm -rf "$build/deb-5.10"
    dpkg-deb -x "$deb" "$build/deb-5.10"
  fi
  tarball=$(compgen -G "$build/deb-5.10/usr/src/linux-source-5.10.tar.*" | head -n1 || true)
fi

# --- the source, extracted anew when the package's version changes
vfile=$build/source-version
[ "$line" = 5.10 ] && vfile=$build/source-version-5.10
if [ "$(cat "$vfile" 2> /dev/null)" != "$version" ] || [ ! -f "$src/Makefile" ]; then
  [ -n "$tarball" ] || die "no linux-source-$line tarball"
  echo "gki-kernel: extracting linux-source-$line $version into $build" >&2
  rm -rf "$src" "$obj" "$vfile"
  tar -xf "$tarball" -C "$build"
  echo "$version" > "$vfile"
fi
rm -rf "$build/deb-5.10"

# --- the fragment: for 5.10, without the options it does not have
if [ "$line" = 5.10 ]; then
  grep -vE "^(# )?($(IFS='|'; echo "${GKI_510_ABSENT[*]}"))[= ]" "$fragment" > "$build/gki-5.10.config"
  fragment=$build/gki-5.10.config
fi

kmake() { make -s -C "$src" O="$obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "$@"; }

# --- the config: allnoconfig with the fragment's values, then olddefconfig
# for what they pulled in; written to .config only when it differs, so an
# unchanged config rebuilds nothing
mkdir -p "$obj"
rm -f "$obj/.config.gki"
KCONFIG_CONFIG=.config.gki kmake KCONFIG_ALLCONFIG="$fragment" allnoconfig > /dev/null
KCONFIG_CONFIG=.config.gki kmake olddefconfig > /dev/null
if cmp -s "$obj/.config.gki" "$obj/.config"; then
  rm -f "$obj/.config.gki" "$obj/.config.gki.old"
else
  mv "$obj/.config.gki" "$obj/.config"
  rm -f "$obj/.config.gki.old"
fi

# every line of the fragment must hold: a dependency that is not met drops
# an option silently
bad=()
while IFS= read -r line; do
  case "$line" in
    CONFIG_*=*) grep -qxF "$line" "$obj/.config" || bad+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo absent))") ;;
    "# CONFIG_"*" is not set")
      sym=${line#\# }
      sym=${sym%% *}
      ! grep -q "^$sym=" "$obj/.config" || bad+=("$line (got: $(grep "^$sym=" "$obj/.config"))") ;;
  esac
done < "$fragment"
[ "${#bad[@]}" -eq 0 ] || die "$(printf 'not in the final .config:\n'; printf '  %s\n' "${bad[@]}")"

# --- the build: the Image only (no Image.gz, no module is =m)
echo "gki-kernel: building in $obj (nice -n 19, make -j$jobs)" >&2
start=$(date +%s)
nice -n 19 make -s -C "$src" O="$obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- -j"$jobs" Image
echo "gki-kernel: built $(cat "$obj/include/config/kernel.release") in $(($(date +%s) - start)) s" >&2
# (grep without -q: it would end readelf early, a failure under pipefail)
aarch64-linux-gnu-readelf -S "$obj/vmlinux" | grep -E ' \.BTF +PROGBITS' > /dev/null || die "vmlinux has no .BTF section"

# --- the outputs, each replaced at once
mkdir -p "$out"
cp "$obj/arch/arm64/boot/Image" "$out/vmlinuz.tmp" && mv "$out/vmlinuz.tmp" "$out/vmlinuz"
cp "$obj/.config" "$out/config.tmp" && mv "$out/config.tmp" "$out/config"
echo "gki-kernel: $out/vmlinuz ($(stat -c %s "$out/vmlinuz") bytes), $out/config" >&2
