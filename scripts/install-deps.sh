#!/usr/bin/env bash
# Installs every Debian package oomscope needs to build, test and benchmark.
# Idempotent: installs only what is missing. Debian packages only (apt).
#   scripts/install-deps.sh            build + test + bench packages
#   scripts/install-deps.sh --check    exit 1 and list what is missing, install nothing
#   scripts/install-deps.sh --arm64    also the arm64 cross toolchain and libraries
#                                      (`make ARCH=arm64`; adds dpkg's arm64 architecture)
set -euo pipefail
check=0 arm64=0
for a in "$@"; do
  case "$a" in
    --check) check=1 ;;
    --arm64) arm64=1 ;;
    *) echo "install-deps: unknown option $a (--check, --arm64)" >&2; exit 2 ;;
  esac
done

PKGS=(
  # build
  make ccache gcc g++ clang llvm pkg-config libbpf-dev libelf-dev libdw-dev zlib1g-dev liblzma-dev libjson-c-dev libiberty-dev bpftool
  libsqlite3-dev
  # the lab's store in PostgreSQL: libpq's header (libpq.so.5 is loaded at run time); the tests
  # start a throwaway server of their own
  libpq-dev postgresql
  # tests
  bats jq binutils xz-utils procps python3
  # tests: a musl-linked program loads the shim (it links no libc)
  musl-tools
  # tests: third-party programs driven to their limits (tests/bats/third_party.bats);
  # nginx's service is not started by the install (below)
  stress-ng nginx-light
  # tests: a real memory killer kills a leaking target (tests/bats/memory.bats); its
  # service is not started by the install (below)
  earlyoom
  # tests: a stock Debian kernel in a VM (scripts/vm.sh), for the hooks this one refuses
  qemu-system-x86 debootstrap e2fsprogs
  # bench
  strace bc time
  # bench: a real server watched (scripts/bench-redis.sh)
  redis-server redis-tools
  # bench: bcc's memleak, and kernel headers it compiles against (Debian's, for
  # kernels without their own; scripts/bench-allocs.sh explains)
  bpfcc-tools "linux-headers-$(dpkg --print-architecture)"
  # hprof tests and bench: a JVM (jcmd), VisualVM's heap library, AOSP's hprof-conv
  openjdk-17-jdk-headless visualvm hprof-conv
  # the ART fork-dump's symbols are checked against Debian's libart.so; real ART runs the
  # Android side's tests (scripts/art.sh builds what Debian does not ship from its source
  # packages: their build tools and libraries, ICU4J renamed by jarjar, and dx's checker)
  android-libart dpkg-dev curl gpgv debian-archive-keyring zip unzip android-libbase-dev
  android-liblog-dev android-libnativehelper-dev android-libcutils-dev android-libziparchive-dev
  android-libbacktrace-dev android-libnativebridge android-libnativeloader android-libunwind
  p7zip-full liblz4-dev libicu-dev libssl-dev libexpat1-dev libcap-dev libicu4j-java libjarjar-java
  # report tests: the page rendered in headless Chromium (Node.js, below, runs
  # the independent readers in tests/js: playwright-core, pprof-format)
  chromium
)

# Node.js: the machine's own when it has one (a nodesource build conflicts
# with Debian's npm package), else Debian's
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || PKGS+=(nodejs npm)

# `make ARCH=arm64`: Debian's aarch64 cross compilers and the arm64 -dev
# packages of the libraries oomscope links (multiarch, beside the amd64 ones)
ARM64_PKGS=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libbpf-dev:arm64 libelf-dev:arm64 libdw-dev:arm64
  zlib1g-dev:arm64 liblzma-dev:arm64 libjson-c-dev:arm64 libiberty-dev:arm64 libsqlite3-dev:arm64
  # 32-bit ARM test targets (static), and the arm64 VM (scripts/vm.sh): its
  # emulator, its initramfs (kmod's depmod, cpio)
  gcc-arm-linux-gnueabihf libc6-dev-armhf-cross qemu-system-arm kmod cpio
  # the VM's 5.10 kernel: bullseye's package, fetched and checked as apt would (scripts/debian-pkg.sh)
  curl gpgv debian-archive-keyring
  # the GKI-like arm64 kernel (scripts/gki-kernel.sh): its source and kbuild's tools
  linux-source-6.1 bc flex bison dwarves libelf-dev xz-utils)
if [ "$arm64" -eq 1 ]; then
  PKGS+=("${ARM64_PKGS[@]}")
  if ! dpkg --print-foreign-architectures | grep -qx arm64 && [ "$check" -eq 0 ]; then
    [ "$(id -u)" -eq 0 ] || { echo "install-deps: need root to add the arm64 architecture" >&2; exit 1; }
    dpkg --add-architecture arm64
  fi
fi

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "$check" -eq 1 ]; then
  if [ ${#missing[@]} -gt 0 ]; then
    echo "missing Debian packages: ${missing[*]} (run scripts/install-deps.sh as root)" >&2
    exit 1
  fi
  exit 0
fi

# tests/js: the npm packages the report tests use, pinned by package-lock.json
npm_deps() {
  local here; here=$(cd "$(dirname "$0")/.." && pwd)
  if [ ! -d "$here/tests/js/node_modules/playwright-core" ] || [ ! -d "$here/tests/js/node_modules/pprof-format" ]; then
    echo "install-deps: npm ci in tests/js"
    (cd "$here/tests/js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  fi
}

if [ ${#missing[@]} -eq 0 ]; then
  npm_deps
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: need root to install: ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# no service started by a package's install (nginx, redis): the tests start
# their own; Debian's policy-rc.d says so to invoke-rc.d, unless the machine
# has its own policy already
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
  trap '[ "$made_policy" -eq 0 ] || rm -f "$policy"' EXIT
  printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && made_policy=1
fi
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
npm_deps
