#!/bin/sh
# An oat file's stand-in, as dex2oat lays out what a symbolizer reads: code
# whose functions are named as ART names compiled methods (PrettyMethod
# without the signature: "com.example.Foo.bar"), those names only in the
# MiniDebugInfo (.gnu_debugdata, an xz-compressed ELF holding .symtab), the
# dynamic symbols only the exported table.
#   make_oat.sh CC CROSS OUT SRC OLD=NEW...   (CROSS: binutils prefix, or "")
set -eu
cc=$1 cross=$2 out=$3 src=$4
shift 4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$cc -O2 -g -fPIC -shared -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$tmp/full" "$src"
: > "$tmp/keep"
for r in "$@"; do
	${cross}objcopy --redefine-sym "$r" "$tmp/full"
	echo "${r#*=}" >> "$tmp/keep"
done
${cross}objcopy --only-keep-debug "$tmp/full" "$tmp/debug"
${cross}objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$tmp/keep" \
	"$tmp/debug" "$tmp/mini"
xz -c "$tmp/mini" > "$tmp/mini.xz"
${cross}strip --strip-all -o "$tmp/stripped" "$tmp/full"
${cross}objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$tmp/stripped" "$out.tmp"
mv "$out.tmp" "$out"
