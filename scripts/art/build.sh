#!/usr/bin/env bash
# scripts/art/build.sh OUT: Android's ART 11 runtime (Debian bookworm's android-libart) made to
# run Java programs on this Debian 12 x86_64 host, from Debian's packages only (scripts/art.sh
# runs it once per machine into its cache; `make art`):
#   OUT/bin/dalvikvm [VM options] -cp APP.jar CLASS [ARGS]
#   OUT/bin/dex OUT.jar CLASSES_DIR          (javac's classes to a dex jar, with bullseye's dx)
#   OUT/lib/libopenjdkjvmti.so               (for -Xplugin:libopenjdkjvmti.so -agentpath:...)
#
# Debian packages it installs (apt-get), bookworm unless said:
#   dpkg-dev (dpkg-source), clang, make, openjdk-17-jdk-headless (javac 17), python3, curl, gpgv,
#   debian-archive-keyring, xz-utils, zip/unzip,
#   android-libart android-libbase-dev android-liblog-dev android-libnativehelper-dev
#   android-libcutils-dev android-libziparchive-dev android-libbacktrace-dev
#   android-libnativebridge android-libnativeloader android-libunwind p7zip-full (lib7z.so for
#   libbacktrace) liblz4-dev zlib1g-dev libicu-dev libssl-dev libexpat1-dev libcap-dev
#   libicu4j-java (ICU4J, renamed to android.icu) libjarjar-java (the renaming)
#   dexdump (to inspect dex files; not needed by the build)
# Source packages (apt-get source, from the mirror apt uses; deb-src lines are added for it):
#   android-platform-art 11.0.0+r48, android-platform-libcore 10.0.0+r36
# From bullseye (same mirror, checked as apt would by scripts/debian-pkg.sh):
#   dalvik-exchange 10.0.0+r36 (dx)
# Patches beside this script: patches/libcore.patch, patches/art.patch; shims/ holds small
# stand-ins for headers and libraries Debian does not ship (see each file).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/art/build.sh OUT" >&2; exit 2; }
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(realpath -m "$1")
JOBS=${JOBS:-$(nproc)}
DEBIAN_PKG=$HERE/../debian-pkg.sh
NICE="nice -n 10"
mkdir -p "$OUT"
TIMES="$OUT/build-times.txt"
: > "$TIMES"
T0=$(date +%s)
step() {  # step NAME: time the function step_NAME
  local s=$(date +%s)
  echo "art: $1" >&2
  "step_$1"
  echo "$1 $(( $(date +%s) - s ))s" | tee -a "$TIMES" >&2
}

PACKAGES="dpkg-dev clang make openjdk-17-jdk-headless python3 curl gpgv debian-archive-keyring
  xz-utils zip unzip android-libart android-libbase-dev android-liblog-dev
  android-libnativehelper-dev android-libcutils-dev android-libziparchive-dev
  android-libbacktrace-dev android-libnativebridge android-libnativeloader android-libunwind
  p7zip-full liblz4-dev zlib1g-dev libicu-dev libssl-dev libexpat1-dev libcap-dev libicu4j-java
  libjarjar-java dexdump"

step_packages() {
  local missing=""
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
  fi
}

# the mirror apt uses (first URIs:/deb line of the machine's Debian sources)
mirror() {
  { cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ { print $2 }'
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '$1 == "deb" { print ($2 ~ /^\[/ ? $3 : $2) }'
  } | grep -v security | head -n1
}

step_sources() {
  local src="$OUT/src"
  rm -rf "$src"; mkdir -p "$src/dl"
  # deb-src lines for the suites apt already uses, if it has none
  if ! apt-get source --print-uris android-platform-art > /dev/null 2>&1; then
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
      awk 'BEGIN { RS = ""; ORS = "\n\n" } /Types: deb/ { sub(/Types: deb/, "Types: deb-src"); print }' \
        /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/oomscope-src.sources
    else
      sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > /etc/apt/sources.list.d/oomscope-src.list
    fi
    apt-get update -q
  fi
  (cd "$src/dl" && apt-get source -q --download-only android-platform-art=11.0.0+r48-5 \
     android-platform-libcore=10.0.0+r36-1 2>&1 | { grep -v -E '^W: Download is performed unsandboxed|^NOTICE|salsa|^Please use|^git clone|^to retrieve' || true; } >&2)
  # apt-get source checked the files against the signed Sources index; dpkg-source's own check of
  # the .dsc signature needs the uploaders' keys (debian-keyring), so it only warns.
  dpkg-source -x "$src"/dl/android-platform-art_*.dsc "$src/art" > /dev/null 2>&1
  dpkg-source -x "$src"/dl/android-platform-libcore_*.dsc "$src/libcore" > /dev/null 2>&1
  [ -f "$src/art/openjdkjvmti/OpenjdkJvmTi.cc" ] && [ -f "$src/libcore/JavaLibrary.bp" ] ||
    { echo "dpkg-source failed" >&2; exit 1; }
  local deb
  deb=$(bash "$DEBIAN_PKG" "$(mirror)" bullseye all 'dalvik-exchange' "$src/dl")
  dpkg-deb -x "$deb" "$src/dx"
  mkdir -p "$OUT/tools"
  cp "$src/dx/usr/share/java/com.android.dx.jar" "$OUT/tools/com.android.dx.jar"
}

step_patch() {
  (cd "$OUT/src/libcore" && patch -p1 -s < "$HERE/patches/libcore.patch")
  (cd "$OUT/src/art" && patch -p1 -s < "$HERE/patches/art.patch")
}

# libcore's Java (core-oj + core-libart of JavaLibrary.bp, less Java 9 code) with javac 17 for
# Java 8, against ICU4J renamed to android.icu; dexed by dx into boot class path jars.
step_java() {
  local w="$OUT/work/java" lc="$OUT/src/libcore"
  rm -rf "$w"; mkdir -p "$w/cls" "$OUT/framework"
  echo 'rule com.ibm.icu.** android.icu.@1' > "$w/icu.rules"
  java -jar /usr/share/java/jarjar.jar process "$w/icu.rules" /usr/share/java/icu4j.jar "$w/icu4j-android.jar"
  python3 "$HERE/bpfiles.py" "$lc" core_oj_java_files core_libart_java_files |
    grep -v 'libcore/internal/Java9LanguageFeatures.java' > "$w/files.txt"
  echo "$lc/luni/src/main/java/libcore/util/FP16.java" >> "$w/files.txt"   # added by libcore.patch
  $NICE javac -J-Xmx3g -source 8 -target 8 -bootclasspath "" -cp "$w/icu4j-android.jar" \
    -encoding UTF-8 -nowarn -Xlint:none -Xmaxerrs 20 -d "$w/cls" @"$w/files.txt" 2>&1 |
    grep -v -E '^(warning: \[options\]|Note: |[0-9]+ warnings?$)' >&2 || true
  [ -f "$w/cls/java/lang/Object.class" ] || { echo "javac failed" >&2; exit 1; }
  (cd "$w/cls" && jar cf "$OUT/framework/core-classes.jar" .)   # to compile programs against
  local dx="java -Xmx3g -cp $OUT/tools/com.android.dx.jar com.android.dx.command.Main --dex
    --core-library --min-sdk-version=26 --multi-dex"
  $NICE $dx --output="$OUT/framework/core-libart.jar" "$w/cls" & local p1=$!
  $NICE $dx --output="$OUT/framework/core-icu4j.jar" "$w/icu4j-android.jar" & local p2=$!
  wait $p1; wait $p2
  python3 "$HERE/addres.py" "$OUT/framework/core-libart.jar" "$lc/luni/src/main/java" "$lc/ojluni/src/main/resources"
  python3 "$HERE/addres.py" "$OUT/framework/core-icu4j.jar" "$w/icu4j-android.jar"
}

step_native() {
  $NICE make -j"$JOBS" -f "$HERE/native.mk" ART="$OUT/src/art" LIBCORE="$OUT/src/libcore" \
    SHIMS="$HERE/shims" OBJ="$OUT/work/obj" LIB="$OUT/lib" BIN="$OUT/bin" > "$OUT/work/native.log" 2>&1 ||
    { grep -E 'error|Error' "$OUT/work/native.log" | head -20 >&2; exit 1; }
}

step_install() {
  mkdir -p "$OUT/bin" "$OUT/data/dalvik-cache" "$OUT/android-root/apex/com.android.art" \
    "$OUT/android-root/apex/com.android.runtime" "$OUT/android-root/apex/com.android.tzdata" \
    "$OUT/android-root/apex/com.android.i18n"
  install -m 755 "$HERE/bin/dalvikvm" "$HERE/bin/dex" "$OUT/bin/"
  # what a build needs no more: the sources and the objects (200 MB); the class files stay
  # (framework/core-classes.jar: programs are compiled against them)
  rm -rf "$OUT/src" "$OUT/work"
}

step packages
step sources
step patch
step java
step native
step install
echo "total $(( $(date +%s) - T0 ))s" | tee -a "$TIMES" >&2
du -sh "$OUT" | sed 's/^/art: /' >&2
