#!/usr/bin/env bats
# Tagged heap pointers, as Android 11+'s scudo hands out (and the reason
# KOOM's native-leak monitor matched nothing there): run only in the arm64 VM
# (`make test-arm64`), whose qemu machine has memory tagging (mte=on), with
# glibc's own allocator tagging its blocks (GLIBC_TUNABLES=glibc.mem.tagging=1):
# a real allocator returning pointers with a tag in the top byte, through the
# same libc entry points oomscope probes.
load ../bats/helpers

tagged_run() {
  start_bg target env GLIBC_TUNABLES=glibc.mem.tagging=1 "$TARGETS/tagged_target" -t 60
  wait_for "$TMP/target.out" '^ready pid=' 20
  local pid; pid=$(cat "$TMP/target.pid")
  watch_burst "$pid" '^freed' -d 60 "$@"
  [ -s "$TMP/w/allocs.json" ]
}

@test "tagged pointers: --big-alloc-live matches every free to its allocation, by the untagged address" {
  tagged_run --big-alloc 8M --big-alloc-mode uprobe --big-alloc-live
  local f="$TMP/w/allocs.json" p tagged=0 addr
  # the allocator did tag: every block's pointer has a tag in bits 56-59
  # (untagged pointers would make this test prove nothing: is MTE on?)
  while read -r _ _ p; do
    [ $(((p >> 56) & 0xff)) -ne 0 ] || { echo "untagged pointer $p: no memory tagging in this VM?"; return 1; }
    tagged=$((tagged + 1))
  done < <(grep '^block ' "$TMP/target.out")
  [ "$tagged" -eq 7 ]
  # 7 blocks, each freed
  [ "$(jq '.allocations | length' "$f")" -eq 7 ]
  [ "$(jq '[.allocations[] | select(.state == "freed")] | length' "$f")" -eq 7 ]
  [ "$(jq .frees_without_record "$f")" -eq 0 ]
  [ "$(jq '[.groups[].live_bytes] | add' "$f")" -eq 0 ]
  # each address oomscope reports is the block's, without its tag
  while read -r _ fn p; do
    addr=$(printf '0x%x' $((p & 0x00ffffffffffffff)))
    jq -e --arg a "$addr" '[.allocations[] | select(.address == $a)] | length == 1' "$f" > /dev/null ||
      { echo "no allocation at $addr ($fn, $p)"; jq -c '.allocations[] | [.function, .address, .state]' "$f"; return 1; }
  done < <(grep '^block ' "$TMP/target.out")
  # and each is blamed on the function that made it
  local fn
  for fn in load_image decode_frames grow_buffer make_pool; do
    jq -e --arg by "$fn (tagged_target)" '[.allocations[] | select(.allocated_by == $by)] | length > 0' "$f" > /dev/null
  done
  [ "$(jq '[.allocations[] | select(.allocated_by == "make_pool (tagged_target)")] | length' "$f")" -eq 4 ]
  [ "$(tail -n1 "$TMP/w/timeline.jsonl" | jq -r .ringbuf_drops)" = 0 ]
}
