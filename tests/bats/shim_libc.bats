#!/usr/bin/env bats
# The shim links no libc (user/shim/libc/), so one build loads into processes
# on glibc, bionic or musl: no DT_NEEDED, no undefined symbol, no TLS, a
# SONAME and both hash tables (what bionic's loader asks), only the agent's
# two entry points exported. Loaded here by a musl-linked and a glibc-linked
# program; every JVM test runs with it.
load helpers

# check_elf LIB READELF: the library's dynamic section and symbols as bionic's loader wants them
check_elf() {
  local lib=$1 re=$2
  run "$re" -dW "$lib"
  [ "$status" -eq 0 ]
  ! grep -q '(NEEDED)' <<<"$output" || { echo "# $lib needs: $(grep NEEDED <<<"$output")" >&3; false; }
  grep -q '(SONAME).*\[liboomscope_shim.so\]' <<<"$output"
  grep -q '(HASH)' <<<"$output" && grep -q '(GNU_HASH)' <<<"$output"
  ! grep -q '(TEXTREL)' <<<"$output"
  # no symbol it does not define, and only the two entry points defined for others
  run "$re" --dyn-syms -W "$lib"
  [ -z "$(awk '$7 == "UND" && $8 != "" {print $8}' <<<"$output")" ] ||
    { echo "# undefined: $(awk '$7 == "UND" && $8 != "" {print $8}' <<<"$output" | tr '\n' ' ')" >&3; false; }
  [ "$(awk '$7 != "UND" && $5 == "GLOBAL" {print $8}' <<<"$output" | sort | tr '\n' ' ')" = "Agent_OnAttach Agent_OnLoad " ]
  # no TLS segment, no segment both writable and executable
  run "$re" -lW "$lib"
  ! grep -q '^ *TLS ' <<<"$output"
  ! awk '$1 == "LOAD" && $7 ~ /W/ && $7 ~ /E/' <<<"$output" | grep -q .
}

@test "the shim's ELF: no NEEDED, no undefined symbol, no TLS, SONAME and both hash tables, two entry points (x86_64, and arm64 when built)" {
  check_elf "$ROOT/build/liboomscope_shim.so" readelf
  if [ -e "$ROOT/build-arm64/liboomscope_shim.so" ]; then
    check_elf "$ROOT/build-arm64/liboomscope_shim.so" readelf
    file "$ROOT/build-arm64/liboomscope_shim.so" | grep -q 'ARM aarch64'
  fi
}

@test "a musl-linked program and a glibc-linked one load the shim; with no Java runtime it refuses in one line" {
  local prog
  for prog in shim_load_musl shim_load_glibc; do
    run "$TARGETS/$prog" "$ROOT/build/liboomscope_shim.so"
    [ "$status" -eq 0 ] || { echo "# $prog: $output" >&3; false; }
    [[ "$output" == *"loaded"* ]]
    [[ "$output" == *"Agent_OnLoad=-1"* ]]
    [[ "$output" == *"oomscope-shim: not loaded: neither libjvm.so nor libart.so in this process"* ]]
  done
  file "$TARGETS/shim_load_musl" | grep -q 'interpreter /lib/ld-musl'
}

@test "its line reaches Android's log daemon as liblog writes it (a datagram on /dev/socket/logdw), sent with no stat() of the socket (SELinux lets apps write there, not read its attributes)" {
  # logd's socket stood in for by a receiver of our own (the path made for this test only)
  [ ! -e /dev/socket/logdw ] || skip "this machine has a /dev/socket/logdw of its own"
  local made=
  [ -d /dev/socket ] || { mkdir /dev/socket && made=1; }
  start_bg logd python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/socket/logdw")
print("listening", flush=True)
s.settimeout(30)
d = s.recv(4096)
# the header: log id, tid (u16), sec, nsec; then priority, tag, text (NUL-ended)
prio = d[11]; rest = d[12:].split(b"\0")
print("prio=%d tag=%s text=%s" % (prio, rest[0].decode(), rest[1].decode()), flush=True)'
  wait_for "$TMP/logd.out" '^listening' 10 || { rm -f /dev/socket/logdw; [ -z "$made" ] || rmdir /dev/socket; false; }
  run strace -f -e trace=stat,lstat,newfstatat,statx,fstatat64 "$TARGETS/shim_load_glibc" "$ROOT/build/liboomscope_shim.so"
  # the datagram is queued: the path can go (the receiver keeps its socket)
  rm -f /dev/socket/logdw
  [ -z "$made" ] || rmdir /dev/socket
  wait_exit "$(cat "$TMP/logd.pid")" 30
  grep -qx 'prio=5 tag=oomscope-shim text=not loaded: neither libjvm.so nor libart.so in this process' "$TMP/logd.out" ||
    { cat "$TMP/logd.out" >&3; false; }
  ! grep -q 'logdw' <<<"$output" || { grep logdw <<<"$output" >&3; false; }
}

@test "make android's shim for this machine's ABI loads into a process at this kernel's page size; a copy aligned to 4 KiB only where pages are 4 KiB (the 16 KiB lane's loader refuses it, as bionic's does)" {
  local abi page lib a
  case "$(uname -m)" in x86_64) abi=x86_64 ;; aarch64) abi=arm64-v8a ;; *) skip "no Android ABI for $(uname -m)" ;; esac
  page=$(getconf PAGESIZE)
  lib="$ROOT/build/android/$abi/liboomscope_shim.so"
  [ -e "$lib" ] || { echo "# $lib missing (make android)" >&3; false; }
  for a in $(readelf -lW "$lib" | awk '$1 == "LOAD" {print $NF}'); do [ $((a)) -ge "$page" ]; done
  run "$TARGETS/shim_load_glibc" "$lib"
  echo "# page size $page: $output" >&3
  [ "$status" -eq 0 ]
  [[ "$output" == *"loaded"*"Agent_OnLoad=-1"* ]]
  run "$TARGETS/shim_load_glibc" "$TARGETS/liboomscope_shim_4k.so"
  echo "# 4 KiB-aligned copy: $output" >&3
  if [ "$page" -eq 4096 ]; then
    [[ "$output" == *"loaded"* ]]
  else
    [ "$status" -eq 1 ]
    # glibc's words ("ELF load command address/offset not page-aligned"), as bionic's loader refuses
    [[ "$output" == "dlopen failed: "*"not page-aligned"* ]]
  fi
}
