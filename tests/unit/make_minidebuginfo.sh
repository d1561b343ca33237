#!/bin/sh
# Build a MiniDebugInfo binary the way Fedora does, for test_symbolize:
#   OUT_DIR/minidebug       stripped (no .symtab), names only in .gnu_debugdata
#   OUT_DIR/minidebug.syms  "name vaddr_hex" of its functions, from the unstripped build
# Usage: make_minidebuginfo.sh OUT_DIR   (needs cc, binutils, xz)
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")" && pwd)/minidebug_src.c
out=$1
mkdir -p "$out"
cd "$out"
${CC:-cc} -O1 -g -fno-inline -o minidebug.full "$src"

# Keep the function symbols that .dynsym does not already provide.
nm -D --format=posix --defined-only minidebug.full | awk '{ print $1 }' | sort >dynsyms
nm --format=posix --defined-only minidebug.full |
	awk '$2 == "T" || $2 == "t" { print $1 }' | sort >funcsyms
comm -13 dynsyms funcsyms >keep_symbols
objcopy --only-keep-debug minidebug.full minidebug.debug
objcopy -S --remove-section .gdb_index --remove-section .comment \
	--keep-symbols=keep_symbols minidebug.debug mini_debuginfo
rm -f mini_debuginfo.xz
xz -k mini_debuginfo

cp minidebug.full minidebug
strip --strip-all minidebug
objcopy --add-section .gnu_debugdata=mini_debuginfo.xz minidebug

nm --defined-only minidebug.full | awk '$3 == "md_alpha" || $3 == "md_beta" { print $3, $1 }' \
	>minidebug.syms
rm -f dynsyms funcsyms keep_symbols minidebug.debug mini_debuginfo mini_debuginfo.xz  # minidebug.full stays: the .symtab case
echo "$out/minidebug"
