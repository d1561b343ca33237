#!/usr/bin/env bats
# Third-party programs (issue 32): Debian's own tools driven to their limits,
# each test asserting what a user reads. stress-ng is stripped, forks its
# workers (the launcher pattern), and its open stressor fills the fd table
# with numbered scratch files, then empties it, again and again.
load helpers

setup_file() {
  command -v stress-ng > /dev/null || { echo "stress-ng is not installed: scripts/install-deps.sh installs it" >&2; return 1; }
}

@test "stress-ng --open (Debian's): its forked worker watched, its fds with their paths and one pattern, its failing opens by module+offset, one crossing recurring" {
  mkdir -p "$TMP/x"
  run bash -c "ulimit -n 2048; cd '$TMP/x' && timeout 120 '$OOMSCOPE' run -o '$TMP/run' -- stress-ng --open 1 --timeout 6s --temp-path '$TMP/x'"
  grep -E '^ *[0-9.]+ child|how it ended' <<<"$output" >&3 || true
  [ "$status" -eq 0 ]
  # the worker (stress-ng forks one per stressor) watched, and how its run went said
  local dir
  dir=$(grep -oE "child [0-9]+ \(stress-ng[^)]*\) watched -> .*" <<<"$output" | head -n 1 | sed 's/.* -> //')
  [ -n "$dir" ] && [ -d "$dir" ]
  grep -qE "child [0-9]+ \(stress-ng[^)]*\): exited with code 0; [0-9]+ crossing\(s\), [0-9]+ failing call\(s\) -> $dir$" <<<"$output"
  # at its fd limit: one fd_ratio crossing for the whole run, however often the table refilled
  grep '"type":"crossing"' "$dir/timeline.jsonl" | jq -c '{t, rule, value}' >&3
  [ "$(grep '"type":"crossing"' "$dir/timeline.jsonl" | jq -s 'map(select(.rule == "fd_ratio")) | length')" -eq 1 ]
  grep '"type":"end"' "$dir/timeline.jsonl" | jq -c '.recurrences' >&3
  # the crossing's snapshot: at least 95 % of the fds with their path, the scratch files one pattern
  local snap; snap=$(grep '"type":"crossing"' "$dir/timeline.jsonl" | jq -r 'select(.rule == "fd_ratio") | .wrote')
  jq -c '{fds, kinds: [.groups[] | {kind, count}], top: ([.groups[] | select(.kind == "file") | .patterns[0]][0])}' "$dir/$snap" >&3
  jq -e '([.groups[] | select(.kind == "file") | .paths[] | select(.path | startswith("/? (")) | .count] | add // 0) <= .fds * 0.05' "$dir/$snap"
  jq -e '[.groups[] | select(.kind == "file") | .patterns[] | select(.pattern | test("/stress-open-\\*-\\* \\(deleted\\)$"))] | length == 1' "$dir/$snap"
  # its failing opens, named by module+offset (stress-ng is stripped), every one counted
  jq -c '[.groups[0:3][] | {syscall, errno, count, called_by}]' "$dir/failures.json" >&3
  jq -e '.count > 1000 and ([.groups[] | select(.errno == "EMFILE" and (.called_by | test("^stress-ng\\+0x[0-9a-f]+$")))] | length) > 0' \
    "$dir/failures.json"
}
