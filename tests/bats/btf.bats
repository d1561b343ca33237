#!/usr/bin/env bats
# A kernel without /sys/kernel/btf/vmlinux (Android 12/13's 5.10 kernels
# often): --btf FILE with the kernel's BTF works, and its absence is one line.
# The test hides /sys/kernel/btf under an empty tmpfs for its own duration.
load helpers

eval "helpers_$(declare -f teardown)"
teardown() {
  if [ -n "${HIDDEN:-}" ]; then umount "$HIDDEN" 2> /dev/null || umount -l "$HIDDEN" 2> /dev/null || true; fi
  helpers_teardown
}

hide_btf() {
  cp /sys/kernel/btf/vmlinux "$TMP/vmlinux.btf"
  mount -t tmpfs -o size=64k,mode=0555 none /sys/kernel/btf
  HIDDEN=/sys/kernel/btf
  [ ! -e /sys/kernel/btf/vmlinux ]
}

# exact_with_btf FILE: fd_target -n 40 run with --btf FILE: its 40 eventfds (and 40 epolls)
# counted and named by open_looper_pairs, nothing lost
exact_with_btf() {
  run_ready '^opened ' "$OOMSCOPE" run --json -d 100 --btf "$1" -o "$TMP/run" -- "$TARGETS/fd_target" -n 40
  [ "$status" -eq 0 ]
  local f="$TMP/run/fds.json"
  [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .count' "$f")" -eq 40 ]
  group_symbols "$f" kind "anon_inode:[eventfd]" | grep -qx open_looper_pairs
  [ "$(tail -n1 "$TMP/run/timeline.jsonl" | jq -r .ringbuf_drops)" = 0 ]
}

@test "no /sys/kernel/btf/vmlinux: without --btf one line says what to pass; with --btf FILE the counts and stacks are exact" {
  [ -r /sys/kernel/btf/vmlinux ]
  hide_btf
  run timeout 60 "$OOMSCOPE" run -d 1 -o "$TMP/none" -- "$TARGETS/fd_target" -n 10
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"no /sys/kernel/btf/vmlinux"*"--btf FILE"* ]]

  exact_with_btf "$TMP/vmlinux.btf"
}

@test "--btf with a file that is not BTF: one line naming it" {
  echo "not btf" > "$TMP/bad.btf"
  run timeout 60 "$OOMSCOPE" run -d 1 --btf "$TMP/bad.btf" -o "$TMP/run" -- sleep 3
  [ "$status" -ne 0 ]
  [ "${#lines[@]}" -eq 1 ]
  [[ "$output" == *"$TMP/bad.btf"* ]]
}

@test "--btf with a minimal BTF made for oomscope's programs (scripts/min-btf.sh, as BTFHub's btfgen does): a few KiB, and the counts and stacks are exact" {
  [ -r /sys/kernel/btf/vmlinux ]
  run "$ROOT/scripts/min-btf.sh" /sys/kernel/btf/vmlinux "$TMP/min.btf" "$BUILD_DIR"
  echo "$output"
  [ "$status" -eq 0 ]
  local size; size=$(stat -c %s "$TMP/min.btf")
  [ "$size" -gt 0 ] && [ "$size" -lt 65536 ]
  hide_btf
  exact_with_btf "$TMP/min.btf"
  # an empty file: one line, and no output left
  printf '' > "$TMP/empty.btf"
  run "$ROOT/scripts/min-btf.sh" "$TMP/empty.btf" "$TMP/none.btf" "$BUILD_DIR"
  [ "$status" -ne 0 ] && [ ! -e "$TMP/none.btf" ]
}
