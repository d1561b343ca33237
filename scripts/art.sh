#!/usr/bin/env bash
# scripts/art.sh [--check]: `make art`. Android's ART runtime, real, for this machine: Debian's
# android-libart (ART 11) with what Debian does not ship built from Debian's source packages by
# scripts/art/build.sh (the boot class path, libjavacore, libopenjdk, libopenjdkjvm, the JVMTI
# plugin libopenjdkjvmti, the dalvikvm launcher). Built once per machine into the cache beside
# the VM images (OOMS_ART_CACHE, default /var/cache/oomscope/art), keyed by everything it is made
# of (the scripts, the Debian packages' versions, the JDK), under a lock (two runs at once build
# it once), into a temporary folder renamed when whole; build/art then points at it:
#   build/art/bin/dalvikvm [VM options] -cp APP.jar CLASS [ARGS]
#   build/art/bin/dex OUT.jar CLASSES_DIR
# --check: exit 0 when build/art is there and current, 1 otherwise; builds nothing.
# Prints build/art's path. About 10 minutes from nothing on 2 CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${OOMS_ART_CACHE:-${OOMS_VM_CACHE:-/var/cache/oomscope/vm}/../art}
die() { echo "art: $*" >&2; exit 1; }

# what it is made of: the scripts, and the versions of the packages it builds from and with
# (the wrappers in scripts/art/bin are not: they are put in place at every run)
key=$({ find scripts/art -type f ! -path 'scripts/art/bin/*' -print0 | sort -z | xargs -0 sha256sum
  dpkg-query -W -f '${Package} ${Version}\n' android-libart android-libbase-dev android-libnativehelper-dev \
    libicu4j-java libicu-dev libssl-dev clang openjdk-17-jdk-headless 2> /dev/null
  echo "android-platform-art 11.0.0+r48-5 android-platform-libcore 10.0.0+r36-1 dalvik-exchange bullseye"
  uname -m; } | sha256sum | cut -c1-16)
dir=$cache/art-$key
link=build/art

current() { [ -x "$dir/bin/dalvikvm.bin" ] && [ -s "$dir/lib/libopenjdkjvmti.so" ] && [ -s "$dir/framework/core-libart.jar" ]; }
if [ "${1:-}" = --check ]; then
  current && [ "$(readlink -f "$link" 2> /dev/null)" = "$(readlink -f "$dir")" ]
  exit
fi

mkdir -p "$cache" build || die "cannot make $cache"
exec 9> "$cache/.lock-$key"
flock 9
if ! current; then
  t0=$(date +%s)
  echo "art: building ART's missing pieces from Debian's sources into $dir (about 10 min; once per machine)" >&2
  # a builder's leftovers (ended by a signal, or a failed run)
  rm -rf "$cache"/.build-"$key".*
  tmp=$(mktemp -d "$cache/.build-$key.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  scripts/art/build.sh "$tmp/out" > "$tmp/build.log" 2>&1 ||
    { tail -n 20 "$tmp/build.log" >&2; die "the build failed (the lines above are its last)"; }
  # where it was built is where it runs from (absolute paths in nothing: the wrappers find their folder)
  rm -rf "$dir"
  mv "$tmp/out" "$dir"
  cp "$tmp/build.log" "$dir/build.log"
  echo "art: built in $(($(date +%s) - t0)) s" >&2
  # the builds of other keys, unused for 30 days, go
  find "$cache" -maxdepth 1 -name 'art-*' ! -name "art-$key" -mtime +30 -exec rm -rf {} + 2> /dev/null || true
fi
# the wrappers as they are now
install -m 755 scripts/art/bin/dalvikvm scripts/art/bin/dex "$dir/bin/"
touch "$dir"
ln -sfn "$(readlink -f "$dir")" "$link.tmp" && mv -T "$link.tmp" "$link"
echo "$link"
