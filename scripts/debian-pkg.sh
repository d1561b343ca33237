#!/usr/bin/env bash
# scripts/debian-pkg.sh MIRROR SUITE ARCH REGEX OUTDIR: the newest package of
# Debian SUITE (another release than the machine's: bullseye's 5.10 kernel
# for the arm64 VM) whose name matches REGEX (anchored), downloaded from
# MIRROR (the one apt uses: scripts/vm.sh reads it from apt's sources) into
# OUTDIR and checked as apt would: the suite's InRelease against Debian's
# archive keyring (gpgv), the Packages index against InRelease's SHA-256,
# the .deb against the index's. Prints the .deb's path; exits non-zero with
# one line when any step fails.
set -euo pipefail
[ $# -eq 5 ] || { echo "debian-pkg: usage: debian-pkg.sh MIRROR SUITE ARCH REGEX OUTDIR" >&2; exit 2; }
mirror=${1%/} suite=$2 arch=$3 regex=$4 out=$5
die() { echo "debian-pkg: $*" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "$keyring missing (Debian package debian-archive-keyring)"
command -v gpgv > /dev/null || die "gpgv missing (Debian package gpgv)"
mkdir -p "$out"
tmp=$(mktemp -d /tmp/debian-pkg.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fetch() { curl -fsS --retry 3 -o "$2" "$1" || die "could not fetch $1"; }

fetch "$mirror/dists/$suite/InRelease" "$tmp/InRelease"
gpgv --keyring "$keyring" --output "$tmp/Release" "$tmp/InRelease" 2> "$tmp/gpgv.err" ||
  die "$suite's InRelease is not signed by Debian's archive key: $(tail -n1 "$tmp/gpgv.err")"
index=main/binary-$arch/Packages.xz
want=$(awk -v f="$index" '/^SHA256:/ { on = 1; next } /^[A-Za-z]/ { on = 0 } on && $3 == f { print $1 }' "$tmp/Release")
[ -n "$want" ] || die "$suite's Release lists no $index"
fetch "$mirror/dists/$suite/$index" "$tmp/Packages.xz"
[ "$(sha256sum < "$tmp/Packages.xz" | cut -d' ' -f1)" = "$want" ] || die "$suite's $index does not match its Release"
# the newest version of the packages whose names match
read -r version file sha < <(xz -dc "$tmp/Packages.xz" | awk -v re="^($regex)\$" '
  /^Package: / { p = ($2 ~ re) }
  p && /^Version: / { v = $2 } p && /^Filename: / { f = $2 } p && /^SHA256: / { s = $2 }
  /^$/ { if (p && f != "") print v, f, s; p = 0; v = f = s = "" }
  END { if (p && f != "") print v, f, s }' | sort -V | tail -n1) || true
[ -n "${file:-}" ] || die "no package in $suite ($arch) matches $regex"
deb=$out/$(basename "$file")
if [ ! -f "$deb" ] || [ "$(sha256sum < "$deb" | cut -d' ' -f1)" != "$sha" ]; then
  fetch "$mirror/$file" "$deb.tmp"
  [ "$(sha256sum < "$deb.tmp" | cut -d' ' -f1)" = "$sha" ] || { rm -f "$deb.tmp"; die "$(basename "$file") does not match $suite's index"; }
  mv "$deb.tmp" "$deb"
fi
echo "$deb"
