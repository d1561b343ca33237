#!/usr/bin/env bash
# `make corpus`: the heap dumps the tests read, laid out in build/corpus/ (the one
# place they read them from):
#   build/corpus/hprof/        javac-oom.hprof, this machine's JDK out of heap (made
#                              once per machine and cached: tests/corpus/make-javac-oom.sh),
#                              a hard link to the cached file (a copy across file
#                              systems), and its MANIFEST.md with VisualVM's figures
#   build/corpus/hprof-world/  the world's dumps of tests/corpus/hprof-world/, decompressed
#                              (each checked against its MANIFEST's sha256), the .hprof.gz
#                              its MANIFEST lists made from its .hprof (gzip -n), the
#                              text files that came with them, MANIFEST.md and NOTICE
# Does nothing when build/corpus is whole and made from the same inputs.
set -euo pipefail
cd "$(dirname "$0")/.."
src=tests/corpus/hprof-world
out=build/corpus
# the dumps whose .hprof.gz the tests read too (their MANIFEST's "(+ `.gz`)")
GZIPPED=(mat-openjdk_jdk11_04_x64.hprof)
say() { echo "corpus: $*" >&2; }
die() { say "$*"; exit 1; }

mkdir -p build
exec 8> build/.corpus.lock
flock 8

dump= manifest=
{ read -r dump; read -r manifest; } < <(tests/corpus/make-javac-oom.sh) || true
[ -s "${dump:-}" ] && [ -s "${manifest:-}" ] || die "tests/corpus/make-javac-oom.sh gave no dump"

key=$({ echo "$dump"; sha256sum < "$manifest"; sha256sum < "$0"; (cd "$src" && sha256sum -- *); } | sha256sum | cut -c1-32)
# up to date: made from the same inputs, every file still there
whole() {
  [ "$(cat "$out/.key" 2> /dev/null)" = "$key" ] || return 1
  [ "$(stat -c %s "$out/hprof/javac-oom.hprof" 2> /dev/null)" = "$(stat -c %s "$dump")" ] || return 1
  local f
  for f in "$src"/*; do
    f=$(basename "$f" .xz)
    [ -s "$out/hprof-world/$f" ] || return 1
  done
  for f in "${GZIPPED[@]}"; do [ -s "$out/hprof-world/$f.gz" ] || return 1; done
  [ -s "$out/hprof/MANIFEST.md" ]
}
whole && exit 0

t0=$(date +%s)
new=$out.new.$$
trap 'rm -rf "$new"' EXIT
rm -rf "$new"
mkdir -p "$new/hprof" "$new/hprof-world"
ln "$dump" "$new/hprof/javac-oom.hprof" 2> /dev/null || cp "$dump" "$new/hprof/javac-oom.hprof"
cp "$manifest" "$new/hprof/MANIFEST.md"
for f in "$src"/*; do
  case "$f" in
  *.hprof.xz)
    name=$(basename "$f" .xz)
    xz -dc "$f" > "$new/hprof-world/$name"
    # the dump its MANIFEST describes: the first 16 digits of its sha256
    want=$(awk -F'|' -v f="$name" '{ n = $2; sub(/^ */, "", n); sub(/ .*/, "", n) } n == f { gsub(/ /, "", $4); print $4; exit }' "$src/MANIFEST.md")
    [ -n "$want" ] || die "$name is not in $src/MANIFEST.md's table"
    [ "$(sha256sum < "$new/hprof-world/$name" | cut -c1-16)" = "$want" ] || die "$f: not the dump its MANIFEST lists (sha256 $want...)"
    ;;
  *) cp "$f" "$new/hprof-world/" ;;
  esac
done
for f in "${GZIPPED[@]}"; do
  gzip -n -c "$new/hprof-world/$f" > "$new/hprof-world/$f.gz"
done
# read-only: references (a test that damages a dump damages its own copy)
chmod a-w "$new"/hprof*/*
echo "$key" > "$new/.key"
rm -rf "$out.old.$$"
[ ! -e "$out" ] || mv "$out" "$out.old.$$"
mv "$new" "$out"
rm -rf "$out.old.$$"
say "laid out in $out in $(($(date +%s) - t0)) s ($(find "$out" -name '*.hprof' -o -name '*.hprof.gz' | wc -l) dumps; javac-oom.hprof from $(dirname "$dump"))"
