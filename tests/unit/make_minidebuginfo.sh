#!/bin/sh
# Build a MiniDebugInfo binary the way Fedora does, for test_symbolize:
#   OUT_DIR/minidebug       stripped (no .symtab), names only in .gnu_debugdata
#   OUT_DIR/minidebug.syms  "name vaddr_hex" of its functions, from the unstripped build
#   OUT_DIR/libart.so       a shared library whose functions carry libart's mangled
#                           names, hidden: stripped, they are only in .gnu_debugdata
#   OUT_DIR/libart.so.syms  "name vaddr_hex" of those
# Usage: make_minidebuginfo.sh OUT_DIR   (needs cc, binutils, xz)
# CC and CROSS (a binutils prefix: aarch64-linux-gnu-) from the environment:
# make builds these files into $(BUILD)/minidebug for each arch (the arm64
# VM, where the unit tests run, has no compiler).
set -eu
nm=${CROSS:-}nm objcopy=${CROSS:-}objcopy strip=${CROSS:-}strip
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1
mkdir -p "$out"
cd "$out"

# minidebuginfo NAME: NAME.full stripped into NAME, its function symbols
# that .dynsym does not already provide kept in .gnu_debugdata
minidebuginfo() {
	"$nm" -D --format=posix --defined-only "$1.full" | awk '{ print $1 }' | sort >dynsyms
	"$nm" --format=posix --defined-only "$1.full" |
		awk '$2 == "T" || $2 == "t" { print $1 }' | sort >funcsyms
	comm -13 dynsyms funcsyms >keep_symbols
	"$objcopy" --only-keep-debug "$1.full" "$1.debug"
	"$objcopy" -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols=keep_symbols "$1.debug" mini_debuginfo
	rm -f mini_debuginfo.xz
	xz -k mini_debuginfo
	cp "$1.full" "$1"
	"$strip" --strip-all "$1"
	"$objcopy" --add-section .gnu_debugdata=mini_debuginfo.xz "$1"
	rm -f dynsyms funcsyms keep_symbols "$1.debug" mini_debuginfo mini_debuginfo.xz  # NAME.full stays: the .symtab case
}

${CC:-cc} -O1 -g -fno-inline -o minidebug.full "$here/minidebug_src.c"
minidebuginfo minidebug
"$nm" --defined-only minidebug.full | awk '$3 == "md_alpha" || $3 == "md_beta" { print $3, $1 }' \
	>minidebug.syms

${CC:-cc} -O1 -g -fno-inline -shared -fPIC -o libart.so.full "$here/art_minidebug_src.c"
minidebuginfo libart.so
"$nm" --defined-only libart.so.full | awk '$3 ~ /^_ZN3art/ { print $3, $1 }' >libart.so.syms
echo "$out/minidebug"
