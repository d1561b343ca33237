#!/usr/bin/env bats
# Address space: large mappings with the stack that made them; VmSize followed.
load helpers

@test "run: map_target's big regions are listed with map_big_regions' stack" {
  run_ready '^mapped=' "$OOMSCOPE" run --json -d 100 -o "$TMP/run" -- "$TARGETS/map_target" -k 8 -s 16 -u 3
  [ "$status" -eq 0 ]
  local f="$TMP/run/vmsize.json"
  # 5 live regions of 16 MiB made by map_big_regions (adjacent ones merge into one mapping)
  local q='[.largest[].origins[] | select(.created_by == "map_big_regions (map_target)")]'
  [ "$(jq "$q | map(.count) | add" "$f")" = 5 ] ||
    { jq -c '.largest[] | {start, end, o: [.origins[] | {created_by, count, f: [.frames[]?.text]}]}' "$f" >&3; false; }
  [ "$(jq "$q | map(.mapped_bytes) | add" "$f")" -eq $((5 * 16777216)) ]
  [ "$(jq -r "$q | .[0].syscall" "$f")" = mmap ]
  jq -r "$q | .[0].frames[].symbol" "$f" | grep -qx map_big_regions
  # each region the target printed lies inside a listed mapping with that origin
  local regions spans addr st en hit
  regions=$(grep '^region ' <<<"$output" | awk '{print $2}')
  [ "$(wc -w <<<"$regions")" -eq 5 ]
  spans=$(jq -r '.largest[] | select(any(.origins[]; .created_by == "map_big_regions (map_target)")) | "\(.start) \(.end)"' "$f")
  for addr in $regions; do
    hit=0
    while read -r st en; do
      if [ $((addr)) -ge $((st)) ] && [ $((addr)) -lt $((en)) ]; then hit=1; fi
    done <<<"$spans"
    [ "$hit" -eq 1 ]
  done
  # munmaps were seen and VmSize is followed by the BPF totals
  local s; s=$(last_sample "$TMP/run/timeline.jsonl")
  [ "$(jq .syscalls.munmaps <<<"$s")" -ge 3 ]
  [ "$(jq .syscalls.mmaps <<<"$s")" -ge 8 ]
}

@test "timeline samples VmSize close to the BPF estimate while mapping" {
  run_ready '^mapped=' "$OOMSCOPE" run --json -i 0.5 -d 100 -o "$TMP/run" -- "$TARGETS/map_target" -k 8 -s 16 -u 3
  [ "$status" -eq 0 ]
  # after the first sample, each estimate is within 1 MiB of /proc's VmSize
  grep '"type":"sample"' "$TMP/run/timeline.jsonl" | tail -n +2 | while read -r s; do
    local a b; a=$(jq .vmsize_kb <<<"$s"); b=$(jq .vmsize_bpf_kb <<<"$s")
    [ $(( a > b ? a - b : b - a )) -le 1024 ]
  done
}
