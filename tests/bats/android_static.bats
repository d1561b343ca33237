#!/usr/bin/env bats
# `make android`'s executables: linked statically, everything inside (a
# device has no glibc loader and none of the libraries). The x86_64 one (the
# emulators') runs alone in an otherwise empty root, /proc and /sys mounted,
# no /tmp, and names a target's fd leak; the arm64 one is checked as a file
# here and runs in the arm64 VM's phone-like root (tests/bats-arm64/phone.bats).
load helpers

ANDROID="$ROOT/build/android"

@test "make android: static executables for x86_64 and arm64-v8a, no loader, no NEEDED; the shim beside each with no NEEDED" {
  local abi
  for abi in x86_64 arm64-v8a; do
    [ -x "$ANDROID/$abi/oomscope" ] || { echo "# $ANDROID/$abi/oomscope missing (make android)" >&3; false; }
    file "$ANDROID/$abi/oomscope" | grep -q 'statically linked'
    ! readelf -lW "$ANDROID/$abi/oomscope" | grep -q 'program interpreter'
    ! readelf -dW "$ANDROID/$abi/oomscope" 2> /dev/null | grep -q NEEDED
    ! readelf -dW "$ANDROID/$abi/liboomscope_shim.so" | grep -q NEEDED
    echo "# $abi: oomscope $(( $(stat -c %s "$ANDROID/$abi/oomscope") / 1024 )) KiB, shim $(( $(stat -c %s "$ANDROID/$abi/liboomscope_shim.so") / 1024 )) KiB" >&3
  done
  file "$ANDROID/x86_64/oomscope" | grep -q 'x86-64'
  file "$ANDROID/arm64-v8a/oomscope" | grep -q 'ARM aarch64'
}

@test "make android: every file it puts on a device, of every ABI, aligned for 16 KiB pages (Android 15+ phones and the x86_64 emulator's 16 KiB images: bionic's loader refuses less)" {
  local f a n=0
  for f in "$ANDROID"/*/oomscope "$ANDROID"/*/liboomscope_shim.so; do
    for a in $(readelf -lW "$f" | awk '$1 == "LOAD" {print $NF}'); do
      [ $((a)) -ge 16384 ] || { echo "# $f: a LOAD segment aligned to $a" >&3; false; }
      n=$((n + 1))
    done
  done
  [ "$n" -ge 8 ]
}

@test "the static x86_64 oomscope alone in an empty root (/proc and /sys mounted, no /tmp, no libc): watches a process and names its fd leak" {
  local r="$TMP/root"
  mkdir -p "$r/proc" "$r/sys" "$r/out"
  cp "$ANDROID/x86_64/oomscope" "$r/oomscope"
  [ "$(find "$r" -type f | wc -l)" -eq 1 ]
  start_bg target "$TARGETS/fd_target" -w -n 40 -t 120
  wait_for "$TMP/target.out" '^waiting pid=' 10
  local pid; pid=$(sed -n 's/^waiting pid=//p' "$TMP/target.out")
  # a mount namespace of its own: the mounts end with it
  start_bg watch unshare --mount --propagation private sh -ec '
    mount --rbind /proc "$1/proc"
    mount --rbind /sys "$1/sys"
    exec chroot "$1" /oomscope watch -p "$2" -o /out/run' sh "$r" "$pid"
  wait_for "$TMP/watch.out" 'TIME\(s\)' 60
  kill -USR1 "$pid"
  wait_for "$TMP/target.out" '^opened' 30
  kill -INT "$(cat "$TMP/watch.pid")"
  wait_exit "$(cat "$TMP/watch.pid")" 60
  local f="$r/out/run/fds.json"
  [ -s "$f" ] || { tail -5 "$TMP/watch.out" >&3; false; }
  [ "$(jq '.groups[] | select(.kind == "anon_inode:[eventfd]") | .stacks[0].count' "$f")" -eq 40 ]
  [ "$(jq -r '.groups[] | select(.kind == "anon_inode:[eventfd]") | .stacks[0].created_by' "$f")" = "open_looper_pairs (fd_target)" ]
  jq -e '.type == "end" and .ringbuf_drops == 0' < <(tail -n1 "$r/out/run/timeline.jsonl")
  # nothing left mounted in the root
  ! grep -q " $r/" /proc/mounts
}
