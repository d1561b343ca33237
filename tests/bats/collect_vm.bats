#!/usr/bin/env bats
# Address space: large mappings with the stack that made them; VmSize followed.
load helpers

@test "run: map_target's big regions are listed with map_big_regions' stack" {
  run timeout 60 "$OOMSCOPE" run --json -d 3 -o "$TMP/run" -- "$TARGETS/map_target" -k 8 -s 16 -u 3
  [ "$status" -eq 0 ]
  local f="$TMP/run/vmsize.json"
  local n; n=$(jq '[.largest[] | select(.bytes == 16777216 and .created_by == "map_big_regions (map_target)")] | length' "$f")
  [ "$n" -eq 5 ]
  [ "$(jq -r '[.largest[] | select(.bytes == 16777216)][0].syscall' "$f")" = mmap ]
  # the live regions the target printed are the ones listed
  local addr
  local regions; regions=$(grep '^region ' <<<"$output" | awk '{print $2}')
  [ "$(wc -w <<<"$regions")" -eq 5 ]
  for addr in $regions; do
    jq -e --arg a "$addr" '.largest[] | select(.start == $a and .created_by == "map_big_regions (map_target)")' "$f" > /dev/null
  done
  # munmaps were seen and VmSize is followed by the BPF totals
  local s; s=$(last_sample "$TMP/run/timeline.jsonl")
  [ "$(jq .syscalls.munmaps <<<"$s")" -ge 3 ]
  [ "$(jq .syscalls.mmaps <<<"$s")" -ge 8 ]
}

@test "timeline samples VmSize close to the BPF estimate while mapping" {
  run timeout 60 "$OOMSCOPE" run --json -i 0.5 -d 3 -o "$TMP/run" -- "$TARGETS/map_target" -k 8 -s 16 -u 3
  [ "$status" -eq 0 ]
  # after the first sample, each estimate is within 1 MiB of /proc's VmSize
  grep '"type":"sample"' "$TMP/run/timeline.jsonl" | tail -n +2 | while read -r s; do
    local a b; a=$(jq .vmsize_kb <<<"$s"); b=$(jq .vmsize_bpf_kb <<<"$s")
    [ $(( a > b ? a - b : b - a )) -le 1024 ]
  done
}
