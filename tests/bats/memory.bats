#!/usr/bin/env bats
# The memory that kills (issue 45): memory watched against the limit that
# bounds it, its growth named by the code that touched the pages first, and
# a kill by memory explained. Real leaks in real memory cgroups, a real
# userspace killer (Debian's earlyoom) and the kernel's OOM killer.
load helpers

MT="$TARGETS/mem_target"

teardown() {
  local d
  [ -f "$TMP/disk_dirs" ] && while read -r d; do rm -rf "$d"; done < "$TMP/disk_dirs"
  common_teardown
}

# mem_cgroup BYTES: a memory cgroup of ours limited to BYTES (v1 where the
# memory controller is mounted so, else v2's memory.max).
mem_cgroup() {
  local cg
  cg=$(cgroup_dir memory)
  if [ -f "$cg/memory.limit_in_bytes" ]; then
    echo "$1" > "$cg/memory.limit_in_bytes"
  else
    echo "$1" > "$cg/memory.max"
    echo 0 > "$cg/memory.swap.max" 2>/dev/null || true
  fi
  echo "$cg"
}

# A directory on a disk, for a file whose pages the cache may drop: $TMP,
# unless /tmp is a tmpfs (the arm64 VM's), whose pages are memory
disk_dir() {
  if [ "$(stat -f -c %T /tmp)" = tmpfs ]; then
    mkdir -p "$ROOT/.bats-disk-$$"
    echo "$ROOT/.bats-disk-$$" >> "$TMP/disk_dirs"
    echo "$ROOT/.bats-disk-$$"
  else
    echo "$TMP"
  fi
}

# first_crossing DIR PREFIX: the first crossing record of a rule starting with PREFIX
first_crossing() {
  grep '"type":"crossing"' "$1/timeline.jsonl" | jq -c --arg p "$2" 'select(.rule | startswith($p))' | head -n 1
}

@test "a native malloc leak of 32 MB/s in a 400 MB memory cgroup: a memory crossing 5 s before the OOM kill names the leaking function; the kill explained" {
  local cg d x xt kt
  cg=$(mem_cgroup $((400 << 20)))
  run timeout 120 "$OOMSCOPE" run -o "$TMP/run" -- sh -c "echo \$\$ > '$cg/cgroup.procs' && exec '$MT' -m malloc -r 32 -t 60"
  d="$TMP/run"
  [ "$status" -eq 0 ] || { echo "$output" >&3; false; }
  # the kernel's OOM killer, the cgroup's
  jq -e '.cause == "oom-cgroup" and .memory_kill.killer == "the kernel'"'"'s OOM killer"' "$d/death.json" ||
    { jq . "$d/death.json" >&3; false; }
  # the memory crossing, at least 5 s before the kill, against the cgroup's limit
  x=$(first_crossing "$d" memory)
  [ -n "$x" ] || { grep -E '^!!|ended' <<<"$output" >&3; false; }
  xt=$(jq -r .t <<<"$x")
  kt=$(jq -r '.oom_killer.t' "$d/death.json")
  echo "# crossing $(jq -r .rule <<<"$x") at $xt s, killed at $kt s" >&3
  awk -v x="$xt" -v k="$kt" 'BEGIN { exit !(k - x >= 5) }'
  jq -e 'startswith("memory-") and endswith(".json")' <<<"$(jq .wrote <<<"$x")"
  # its snapshot: the figure against the cgroup's room, and the leaking function with 80 % of the samples
  f="$d/$(jq -r .wrote <<<"$x")"
  jq -e '.memory_limit_src == "memory.limit_in_bytes" or .memory_limit_src == "memory.max"' "$f"
  jq -e '.memory_limit_kb > 380000 and .memory_limit_kb < 420000' "$f"
  jq -e '.faults.samples > 20 and .faults.period_bytes == 2097152' "$f"
  jq -e '(.faults.groups[0].samples / .faults.samples) >= 0.8 and (.faults.groups[0].created_by | test("leak_session_buffers"))
         and .faults.groups[0].anon_samples == .faults.groups[0].samples' "$f" ||
    { jq '.faults | {samples, groups: [.groups[:3][] | {samples, created_by}]}' "$f" >&3; false; }
  jq -e '[.faults.groups[0].frames[].symbol] | index("leak_session_buffers") != null' "$f"
  # by category: the leak is anonymous memory (glibc's large blocks are mmaps)
  jq -e '.smaps.categories[0].category == "anonymous" and .smaps.categories[0].pss_kb > 100000' "$f"
  # on the terminal: the crossing and the code that grew the memory
  [[ "$output" == *"!! memory"*"grown by leak_session_buffers"* ]] || { grep -E '^!!|grown' <<<"$output" >&3; false; }
  # in MB and MB/s, the limit named for what it is; under each crossing each culprit once,
  # whatever stacks reach it (memory.json's culprits)
  jq -e '.reason | test("^[0-9.]+ MB of memory \\(anonymous, shared, swapped\\)(, rising [0-9.]+ MB/s:| >= [0-9]+% of) the memory cgroup.s limit \\(memory\\.(max|limit_in_bytes)\\) of [0-9.]+ MB")' <<<"$x" ||
    { jq -r .reason <<<"$x" >&3; false; }
  awk '/!! memory/ { delete seen; next } /grown by / { sub(/.*grown by /, ""); sub(/: [0-9]+%.*/, ""); if (seen[$0]++) { print "twice: " $0; bad = 1 } }
       END { exit bad }' <<<"$output"
  jq -e '.faults.culprits[0] | (.created_by | test("leak_session_buffers")) and (.stacks | length >= 1)
         and .samples == ([.stacks[] as $i | $f.faults.groups[$i].samples] | add)' --argjson f "$(cat "$f")" "$f"
  # the kill explained: the target's oom_score_adj and its place by oom_score
  # (a memory cgroup's OOM killer picks among the cgroup's processes: the target alone there)
  jq -e '.memory_kill.order == "oom_score in its memory cgroup" and .memory_kill.rank == 1 and .memory_kill.ranked == 1
         and .memory_kill.at_kill.system_total_kb > 0 and (.memory_kill.at_kill.oom_score_adj | type) == "number"' "$d/death.json" ||
    { jq -c '.memory_kill | del(.sentence)' "$d/death.json" >&3; false; }
  [[ "$output" == *"how it ended: PID "*"killed by the kernel's OOM killer (memory cgroup"* ]]
  [[ "$output" == *"memory then: MemAvailable"*"the target: oom_score_adj "* ]]
  # the samples carry the memory figures
  last_sample "$d/timeline.jsonl" | jq -e '.memory_kb > 0 and .memory_limit_kb > 0 and .memory.anon_kb > 0'
}

@test "earlyoom kills the leaking target: the death names earlyoom, the memory it saw, the target's oom_score_adj and rank" {
  local avail min d e
  # a threshold this test alone can cross: 600 MB under what is available now;
  # the target is the only process earlyoom may pick (oom_score_adj 1000, --prefer)
  avail=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
  min=$((avail - 600 * 1024))
  start_bg t sh -c "echo 1000 > /proc/self/oom_score_adj && exec '$MT' -w -T -m malloc -r 64 -t 60"
  wait_for "$TMP/t.out" '^waiting pid=' 10
  local pid
  pid=$(sed -n 's/^waiting pid=//p' "$TMP/t.out")
  start_bg w "$OOMSCOPE" watch -p "$pid" -o "$TMP/run"
  wait_for "$TMP/run/timeline.jsonl" '"type":"start"' 20
  start_bg e earlyoom -M "$min" -s 100 --prefer '^mem_target$' -r 0
  wait_for "$TMP/e.out" 'sending SIGTERM when' 10
  kill -USR1 "$pid"
  wait_exit "$(cat "$TMP/w.pid")" 60
  d="$TMP/run"
  grep -q "sending SIGTERM to process $pid" "$TMP/e.out" || { cat "$TMP/e.out" >&3; false; }
  jq -e --arg p "$(cat "$TMP/e.pid")" '.cause == "memory-killer" and .signal_name == "SIGTERM" and (.sender.pid | tostring) == $p
         and .memory_kill.killer == "earlyoom" and .memory_kill.known_by == "name"' "$d/death.json" ||
    { jq . "$d/death.json" >&3; false; }
  # what it saw: the system's available memory at the kill, under 700 MB over earlyoom's line
  jq -e --argjson m "$min" '.memory_kill.at_kill.system_available_kb > 0
         and .memory_kill.at_kill.system_available_kb < $m + 700 * 1024' "$d/death.json"
  jq -e '.memory_kill.at_kill.oom_score_adj == 1000 and .memory_kill.rank == 1 and .memory_kill.ranked > 1
         and .memory_kill.order == "oom_score"' "$d/death.json"
  grep -q "how it ended: PID $pid killed by SIGTERM from earlyoom (PID" "$TMP/w.out"
  grep -q "the target: oom_score_adj 1000, oom_score [0-9]*, RSS .*; the 1st of [0-9]* processes by oom_score (earlyoom's order)" "$TMP/w.out" ||
    { cat "$TMP/w.out" >&3; false; }
  # the lab's store counts deaths by cause and killer
  "$OOMSCOPE" aggregate --db "$TMP/lab.db" "$d" >/dev/null
  run "$OOMSCOPE" aggregate --db "$TMP/lab.db" --deaths
  [[ "$output" == *"memory-killer: earlyoom"* ]] || { echo "$output" >&3; false; }
}

@test "an mmap leak: its crossing names the function that touched the regions" {
  local cg d x f
  cg=$(mem_cgroup $((300 << 20)))
  run timeout 120 "$OOMSCOPE" run -o "$TMP/run" -- sh -c "echo \$\$ > '$cg/cgroup.procs' && exec '$MT' -m mmap -r 32 -t 60"
  d="$TMP/run"
  [ "$status" -eq 0 ] || { echo "$output" >&3; false; }
  x=$(first_crossing "$d" memory)
  [ -n "$x" ]
  f="$d/$(jq -r .wrote <<<"$x")"
  jq -e '(.faults.groups[0].samples / .faults.samples) >= 0.8 and (.faults.groups[0].created_by | test("map_scratch_regions"))' "$f" ||
    { jq '.faults.groups[:3]' "$f" >&3; false; }
  jq -e '.cause == "oom-cgroup"' "$d/death.json"
}

@test "page cache growth is no leak: no memory crossing, the faults are a mapped file's, no finding in the store" {
  local d
  run timeout 60 "$OOMSCOPE" run -o "$TMP/run" -d 8 -- "$MT" -m cache -r 64 -L 400 -t 30
  d="$TMP/run"
  [ "$status" -eq 0 ] || { echo "$output" >&3; false; }
  [ -z "$(first_crossing "$d" memory)" ] || { first_crossing "$d" memory >&3; false; }
  # the file's pages: RSS grew (file), the watched figure did not
  last_sample "$d/timeline.jsonl" | jq -e '.memory.file_kb > 200000 and .memory_kb < 100000'
  jq -e '.faults.samples > 0 and (.faults.groups[0].created_by | test("read_cache_file"))
         and .faults.groups[0].file_samples == .faults.groups[0].samples' "$d/memory.json" ||
    { jq '.faults.groups[:3]' "$d/memory.json" >&3; false; }
  "$OOMSCOPE" aggregate --db "$TMP/lab.db" "$d" >/dev/null
  run "$OOMSCOPE" aggregate --db "$TMP/lab.db" --signatures
  [ "$status" -eq 0 ]
  [[ "$output" != *"read_cache_file"* ]] || { echo "$output" >&3; false; }
}

@test "the report draws memory's growth by code; memory.pb.gz is a pprof profile of it" {
  local cg d
  cg=$(mem_cgroup $((300 << 20)))
  run timeout 120 "$OOMSCOPE" run -o "$TMP/run" -- sh -c "echo \$\$ > '$cg/cgroup.procs' && exec '$MT' -m malloc -r 32 -t 60"
  d="$TMP/run"
  [ "$status" -eq 0 ]
  grep -q 'id="memory"' "$d/report.html"
  grep -q 'data-chart="memory-growth"' "$d/report.html"
  grep -q 'leak_session_buffers' "$d/report.html"
  [ -s "$d/memory.pb.gz" ]
  gzip -t "$d/memory.pb.gz"
  # the lab's store: the leak is a finding of kind memory, with its signature
  "$OOMSCOPE" aggregate --db "$TMP/lab.db" "$d" >/dev/null
  run "$OOMSCOPE" aggregate --db "$TMP/lab.db" --signatures
  [[ "$output" == *"memory"*"leak_session_buffers"* ]] || { echo "$output" >&3; false; }
  run "$OOMSCOPE" aggregate --db "$TMP/lab.db" --deaths
  [[ "$output" == *"oom-cgroup"* ]] || { echo "$output" >&3; false; }
}

@test "memory pressure: a PSI trigger wakes oomscope (memory_stall); an lmkd stand-in waiting on its own trigger kills the thrashing app; the death is lmkd's, in lmkd's order" {
  local cg d pid x
  [ -e /proc/pressure/memory ] || skip "this kernel has no PSI (/proc/pressure/memory)"
  # a 64 MB cgroup reading a 128 MB file again and again: reclaim and refaults, stalls
  cg=$(mem_cgroup $((64 << 20)))
  start_bg t sh -c "echo \$\$ > '$cg/cgroup.procs' && echo 900 > /proc/self/oom_score_adj && exec '$MT' -w -m thrash -L 128 -f '$(disk_dir)/cache' -t 60"
  wait_for "$TMP/t.out" '^waiting pid=' 30
  pid=$(sed -n 's/^waiting pid=//p' "$TMP/t.out")
  start_bg w "$OOMSCOPE" watch -p "$pid" -o "$TMP/run"
  wait_for "$TMP/run/timeline.jsonl" '"type":"start"' 20
  kill -USR1 "$pid"
  d="$TMP/run"
  # oomscope's trigger (100 ms a second) fires on the stalls, between samples. The crossing may be
  # a timer's sample's, by avg10, when the machine stalled before (CI's, an OOM test just before);
  # that the trigger woke samples is checked at the end
  wait_for "$d/timeline.jsonl" '"rule":"memory_stall"' 40
  x=$(first_crossing "$d" memory_stall)
  # the crossing's record is written before its sample's: that one waited for
  wait_for "$d/timeline.jsonl" "^\\{\"type\":\"sample\",\"t\":$(jq .t <<<"$x")," 10
  # (slurped: jq -e answers for the last input, which a select may have emptied)
  grep '"type":"sample"' "$d/timeline.jsonl" | jq -se --argjson t "$(jq .t <<<"$x")" \
    'map(select(.t == $t)) | length == 1 and (.[0] | .memory_stall_ms >= 100 and ((.memory_stall_limit_ms_src // "") | startswith("PSI ")))' ||
    { echo "# the crossing: $x" >&3; grep '"type":"sample"' "$d/timeline.jsonl" | tail -n 3 >&3; false; }
  jq -e 'startswith("memory-")' <<<"$(jq .wrote <<<"$x")"
  # then lmkd, as lmkd does: a trigger of its own, the highest adj band's heaviest
  start_bg l "$TARGETS/lmkd" --psi 150 900 30
  wait_exit "$(cat "$TMP/l.pid")" 40
  grep -q "^lmkd killed $pid" "$TMP/l.out" || { cat "$TMP/l.out" >&3; false; }
  wait_exit "$(cat "$TMP/w.pid")" 30
  jq -e '.cause == "lmkd" and .signal == 9 and .sender.comm == "lmkd_reaper0"
         and .memory_kill.killer == "lmkd" and .memory_kill.order == "oom_score_adj, then RSS"
         and .memory_kill.rank == 1 and .memory_kill.at_kill.oom_score_adj == 900
         and .memory_kill.minute_max_psi_some_avg10 > 0' "$d/death.json" || { jq . "$d/death.json" >&3; false; }
  grep -q "the 1st of [0-9]* processes by oom_score_adj, then RSS (lmkd's order)" "$TMP/w.out" || { cat "$TMP/w.out" >&3; false; }
  # the trigger woke the collector: samples between the timer's, named by it
  grep '"type":"sample"' "$d/timeline.jsonl" | jq -se 'map(select(.memory_stall_limit_ms_src // "" | test("PSI trigger \\(some [0-9]+ [0-9]+\\)"))) | length > 0 and all(.memory_stall_ms >= 100)' ||
    { grep '"type":"sample"' "$d/timeline.jsonl" | jq -c '[.t, .memory_stall_ms, .memory_stall_limit_ms_src]' | tail -n 5 >&3; false; }
}
