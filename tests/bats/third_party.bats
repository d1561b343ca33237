#!/usr/bin/env bats
# Third-party programs (issue 32): Debian's own tools driven to their limits,
# each test asserting what a user reads. stress-ng is stripped, forks its
# workers (the launcher pattern), and its open stressor fills the fd table
# with numbered scratch files, then empties it, again and again.
load helpers

setup_file() {
  command -v stress-ng > /dev/null || { echo "stress-ng is not installed: scripts/install-deps.sh installs it" >&2; return 1; }
}

@test "stress-ng --open (Debian's) for 20 s: its forked worker watched, its fds with their paths and one pattern, its failing opens by module+offset, one crossing recurring, three snapshots a rule at most" {
  mkdir -p "$TMP/x"
  run bash -c "ulimit -n 2048; cd '$TMP/x' && timeout 120 '$OOMSCOPE' run -o '$TMP/run' -- stress-ng --open 1 --timeout 20s --temp-path '$TMP/x'"
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
  grep '"type":"end"' "$dir/timeline.jsonl" | jq -e '.recurrences.fd_ratio >= 1'
  # 20 s at its limit, the table emptied and refilled again and again: of each rule's snapshots
  # the first, the largest and the last kept
  local rules; rules=$(grep '"type":"crossing"' "$dir/timeline.jsonl" | jq -r .rule | sort -u | wc -l)
  ls "$dir" | grep -E '^fds-[0-9]+\.json$' >&3
  [ "$(ls "$dir" | grep -cE '^fds-[0-9]+\.json$')" -le $((3 * rules)) ]
  # the crossing's snapshot: at least 95 % of the fds with their path, the scratch files one pattern
  local snap; snap=$(grep '"type":"crossing"' "$dir/timeline.jsonl" | jq -r 'select(.rule == "fd_ratio") | .wrote')
  jq -c '{fds, kinds: [.groups[] | {kind, count}], top: ([.groups[] | select(.kind == "file") | .patterns[0]][0])}' "$dir/$snap" >&3
  jq -e '([.groups[] | select(.kind == "file") | .paths[] | select(.path | startswith("/? (")) | .count] | add // 0) <= .fds * 0.05' "$dir/$snap"
  jq -e '[.groups[] | select(.kind == "file") | .patterns[] | select(.pattern | test("/stress-open-\\*-\\* \\(deleted\\)$"))] | length == 1' "$dir/$snap"
  # its failing opens, named by module+offset (stress-ng is stripped), every one counted
  jq -c '[.groups[0:3][] | {syscall, errno, count, called_by}]' "$dir/failures.json" >&3
  jq -e '.count > 1000 and ([.groups[] | select(.errno == "EMFILE" and (.called_by | test("^stress-ng\\+0x[0-9a-f]+$")))] | length) > 0' \
    "$dir/failures.json"
  # at the end (the worker gone, /proc unreadable), its files by the paths their opens were given,
  # relative to its directory: files all the same, not a group a name
  jq -c '[.groups[] | {kind, count}] | .[0:4]' "$dir/fds.json" >&3
  jq -e '([.groups[] | select(.kind == "file") | .count] | add) > 1000 and ([.groups[] | select(.kind | startswith("stress-open"))] | length) == 0' "$dir/fds.json"
  # the launcher's story names its child, how it went, and where its own story is
  run "$OOMSCOPE" report "$TMP/run"
  [ "$status" -eq 0 ]
  grep -qE "^children watched \(1\), each a run of its own \(oomscope report $TMP/run/children/NAME\):$" <<<"$output" || { echo "$output" >&3; false; }
  grep -qE "^  ${dir##*/}: exited with code 0; [1-9][0-9]* crossings?, [1-9][0-9]* failing calls?$" <<<"$output"
  run "$OOMSCOPE" report "$dir"
  [ "$status" -eq 0 ] && [ "${#lines[@]}" -le 40 ]
  grep -qE "^ +[0-9]+ fds file <- stress-ng\+0x[0-9a-f]+$" <<<"$output" || { echo "$output" >&3; false; }
}

# run_in_cgroup NAME CGROUP CMD...: `oomscope run` of CMD moved into CGROUP
# (by a shell that then execs it; oomscope stays out), into $TMP/NAME; its
# terminal in $output, its status in $status.
run_in_cgroup() {
  local name=$1 cg=$2; shift 2
  run timeout 120 "$OOMSCOPE" run -o "$TMP/$name" -- sh -c "echo \$\$ > '$cg/cgroup.procs' && exec \"\$@\"" sh "$@"
  grep -E '^ *[0-9.]+ child' <<<"$output" >&3 || true
}

@test "stress-ng --pthread (Debian's) in a pids cgroup of 100: the worker at the limit, its failing clone3 by module+offset, one line a call site each 5 s, never counted past the limit" {
  local cg dir; cg=$(cgroup_dir pids)
  echo 100 > "$cg/pids.max"
  run_in_cgroup run "$cg" stress-ng --pthread 1 --pthread-max 2000 --timeout 8s
  [ "$status" -eq 0 ]
  dir=$(grep -oE "child [0-9]+ \(stress-ng[^)]*\) watched -> .*" <<<"$output" | head -n 1 | sed 's/.* -> //')
  [ -n "$dir" ] && [ -d "$dir" ]
  grep -qE "child [0-9]+ \(stress-ng[^)]*\): exited with code 0; [1-9][0-9]* crossing\(s\), [1-9][0-9]* failing call\(s\) -> $dir$" <<<"$output"
  # the worker's crossing and its first failure said on the launcher's terminal as they came,
  # before its end, each line with its PID
  local said ended
  said=$(grep -nE "^ +[0-9.]+ child [0-9]+ \(stress-ng[^)]*\): !! thread_ratio: .* -> $dir/threads-1\.json$" <<<"$output" | head -n1 | cut -d: -f1)
  ended=$(grep -nE "child [0-9]+ \(stress-ng[^)]*\): exited with code 0" <<<"$output" | head -n1 | cut -d: -f1)
  [ -n "$said" ] && [ -n "$ended" ] && [ "$said" -lt "$ended" ]
  grep -qE "^ +[0-9.]+ child [0-9]+ \(stress-ng[^)]*\): !! failure: clone3 failed with EAGAIN" <<<"$output"
  # the thread limit is the cgroup's, crossed at 90 %
  grep '"type":"crossing"' "$dir/timeline.jsonl" | jq -c '{t, rule, value, reason}' >&3
  grep '"type":"crossing"' "$dir/timeline.jsonl" | jq -c 'select(.rule == "thread_ratio")' | head -n 1 |
    jq -e '.rule == "thread_ratio" and (.reason | test("of the thread limit 100 \\(pids.max\\)$"))'
  # threads made and ended by the hundred a second: never counted past what the cgroup allows
  # (a set repaired from a listing a moment old kept the ones that had ended), nor called drift
  grep -E '"type":"(sample|crossing)"' "$dir/timeline.jsonl" |
    jq -se 'map(select((.threads // 0) > 100 or (.threads_bpf // 0) > 100 or (.type == "crossing" and .value > 100))) | length == 0'
  ! grep -q '"type":"drift"' "$dir/timeline.jsonl"
  # its failing clone3s: EAGAIN, named by module+offset (stress-ng is stripped)
  jq -c '{count, groups: [.groups[0:2][] | {syscall, errno, count, called_by}]}' "$dir/failures.json" >&3
  jq -e '.count > 10 and ([.groups[] | select(.kind == "threads" and .errno == "EAGAIN"
         and (.called_by | test("^stress-ng\\+0x[0-9a-f]+$")))] | length) > 0' "$dir/failures.json"
  # the threads at the crossing, however many still live when the snapshot is read (the worker
  # ends its threads by the hundred a second; under load it may be down to one): the worker's
  # own thread is the one that existed at attach (it was held at its first followed call), every
  # other was made by that call
  jq -c '[.groups[] | {name, stacks: [.stacks[] | {count, created_by, unknown}]}]' "$dir/threads-1.json" >&3
  jq -e '([.groups[].stacks[] | select(.unknown) | .count] | add // 0) <= 1 and
         ([.groups[].stacks[] | select(.unknown and .unknown != "existed at attach")] | length == 0) and
         ([.groups[].stacks[] | select(.unknown | not) | select(.created_by | test("^stress-ng\\+0x") | not)] | length == 0) and
         ([.groups[].stacks[].count] | add) == .threads' "$dir/threads-1.json"
  # its terminal (the worker's collector's): each call site said at its first failure, then once
  # each 5 s at most, however many of the kernel's keys it spans (frames past the caller of a
  # program built without frame pointers are noise: a key each)
  grep '^!! failure' "$dir.terminal.txt" >&3
  local sites; sites=$(grep '^!! failure' "$dir.terminal.txt" | sed -E 's/ \(tid [0-9]+\)//; s/ -> .*//; s/ \([0-9]+ more in [0-9]+ s\)$//' | sort -u | wc -l)
  [ "$(grep -c '^!! failure' "$dir.terminal.txt")" -le $((sites * 3)) ]
  grep -q '^ TIME(s) ' "$dir.terminal.txt"
}

@test "stress-ng --vm (Debian's) in a 64 MB memory cgroup: the grandchild the cgroup's OOM killer took, said on the launcher's line, its 200 MB mapping by module+offset" {
  local cg dir gdir; cg=$(cgroup_dir memory)
  if [ -f "$cg/memory.limit_in_bytes" ]; then echo $((64 << 20)) > "$cg/memory.limit_in_bytes"
  else echo $((64 << 20)) > "$cg/memory.max"; echo 0 > "$cg/memory.swap.max" 2>/dev/null || true; fi
  # --oomable: the killed stressor is not started again
  run_in_cgroup run "$cg" stress-ng --vm 1 --vm-bytes 200M --vm-keep --oomable --timeout 10s
  [ "$status" -eq 0 ]
  dir=$(grep -oE "child [0-9]+ \(stress-ng[^)]*\) watched -> .*" <<<"$output" | head -n 1 | sed 's/.* -> //')
  [ -n "$dir" ] && [ -d "$dir" ]
  # stress-ng forks the stressor (stress-ng-vm) from its worker: the grandchild's end on the worker's line
  grep -qE "child [0-9]+ \(stress-ng\): exited with code 0; .*; under it: [0-9]+ \(stress-ng-vm\) killed by the kernel's OOM killer \(memory cgroup [^ ]+ at its limit of 64\.0 MB\)" <<<"$output"
  gdir=$(ls -d "$dir"/children/*-stress-ng-vm | head -n 1)
  # the launcher's report: the tree, the grandchild under the worker with its story
  local w=${dir##*/} g=${gdir##*/}
  grep -qE "<li><a href=\"children/$w/report.html\">$w</a>: exited with code 0; [^<]*<ul>" "$TMP/run/report.html"
  grep -q "<li><a href=\"children/$w/children/$g/report.html\">$g</a>: killed by the kernel's OOM killer (memory cgroup" "$TMP/run/report.html"
  jq -e '.cause == "oom-cgroup" and .memory_cgroup.limit_bytes == 67108864 and .oom_killer.allocating_comm == "stress-ng-vm"' "$gdir/death.json"
  # what it had mapped: the 200 MB it asked for, with the call that made it
  jq -c '[.largest[0:3][] | {bytes, path, by: (.origins[0].created_by // null)}]' "$gdir/vmsize.json" >&3
  jq -e '[.largest[] | select(.bytes == 209715200 and .path == null and (.origins[0].created_by | test("^stress-ng\\+0x")))] | length == 1' \
    "$gdir/vmsize.json"
}

# nginx's master and workers, by the PIDs they said (its pid file, the
# workers' run directories), if still there and still nginx.
teardown() {
  local p
  for p in $(cat "$TMP/nginx.pid" 2>/dev/null) $(ls "$TMP/run/children" 2>/dev/null | sed -nE 's/^([0-9]+)-nginx$/\1/p'); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = nginx ] && kill -KILL "$p" 2>/dev/null || true
  done
  common_teardown
}

@test "nginx (Debian's nginx-light) with two worker processes under a limit of 64 fds, 300 clients: each worker watched, at its limit, its failing accept4 and its sockets by the function that made them" {
  command -v nginx > /dev/null || { echo "nginx is not installed: scripts/install-deps.sh installs nginx-light" >&2; return 1; }
  local port; port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p "$TMP/ng"
  cat > "$TMP/ng/nginx.conf" << EOF
worker_processes 2;
worker_rlimit_nofile 64;
daemon off;
master_process on;
pid $TMP/nginx.pid;
error_log $TMP/ng/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $TMP/ng/body;
  server { listen 127.0.0.1:$port; location / { return 200 "ok\n"; } }
}
EOF
  # --foreground: the SIGINT below goes to oomscope alone, which ends nginx
  start_bg run timeout --foreground 120 "$OOMSCOPE" run -o "$TMP/run" -- nginx -c "$TMP/ng/nginx.conf" -e "$TMP/ng/error.log"
  local i d dirs=()
  for i in $(seq 1 300); do
    mapfile -t dirs < <(sed -nE 's/^ *[0-9.]+ child [0-9]+ \(nginx\) watched -> //p' "$TMP/run.out")
    [ "${#dirs[@]}" -eq 2 ] && break
    sleep 0.1
  done
  [ "${#dirs[@]}" -eq 2 ] || { cat "$TMP/run.out" >&3; false; }
  # 300 clients connect and stay: more than two workers of 64 fds can take
  printf '%s\n' 'import socket, sys, time' 'held = []' 'for _ in range(300):' '    s = socket.socket()' \
    '    s.settimeout(5)' '    try:' '        s.connect(("127.0.0.1", int(sys.argv[1])))' '        held.append(s)' \
    '    except OSError:' '        pass' 'print("connected", len(held), flush=True)' 'time.sleep(90)' > "$TMP/clients.py"
  start_bg clients python3 "$TMP/clients.py" "$port"
  # each worker fills its table, is refused by accept4 and says so (both take connections: a
  # worker at its limit stops listening, the other is woken)
  local pid
  for d in "${dirs[@]}"; do
    pid=${d##*/}
    pid=${pid%%-*}
    wait_for "$d/timeline.jsonl" '"type":"failure"' 60
    wait_for "$d/timeline.jsonl" '"type":"crossing"' 60
    # and its row in the launcher's table, at its limit (a row each second, from its last sample)
    wait_for "$TMP/run.out" "^ +\\+$pid +[0-9.]+ +[0-9.]+ +[0-9]+/[0-9]+ +(6[1-9]|[7-9][0-9])/64 " 30
  done
  kill -KILL "$(cat "$TMP/clients.pid")"
  kill -INT "$(cat "$TMP/run.pid")"
  wait_exit "$(cat "$TMP/run.pid")" 60
  grep -E 'child' "$TMP/run.out" >&3
  for d in "${dirs[@]}"; do
    pid=${d##*/}
    pid=${pid%%-*}
    # how it ended said
    grep -qE "child $pid \(nginx\): .*; [1-9][0-9]* crossing\(s\), [1-9][0-9]* failing call\(s\) -> $d$" "$TMP/run.out"
    # at its limit: the fd_ratio crossing, of RLIMIT_NOFILE as nginx set it
    grep '"type":"crossing"' "$d/timeline.jsonl" | head -n 1 | jq -e '.rule == "fd_ratio" and (.reason | test("RLIMIT_NOFILE 64$"))'
    # its failing accept4, by nginx's own function (its dynamic symbols name it)
    jq -c '[.groups[0:2][] | {syscall, errno, count, called_by}]' "$d/failures.json" >&3
    jq -e '.groups[0] | .syscall == "accept4" and .errno == "EMFILE" and .called_by == "ngx_event_accept (nginx)"' "$d/failures.json"
    grep -q '^!! failure: accept4 failed with EMFILE .* <- ngx_event_accept (nginx)' "$d.terminal.txt"
    # the crossing's snapshot: the clients' sockets, made by accept4 in ngx_event_accept
    jq -e '[.groups[] | select(.kind == "socket") | .stacks[] | select(.syscall == "accept4" and .created_by == "ngx_event_accept (nginx)") | .count]
           | add >= 40' "$d/fds-1.json"
  done
  grep -q 'accept4() failed (24: Too many open files)' "$TMP/ng/error.log"
}

@test "redis-server (Debian's) filling a 300 MB memory cgroup until the kernel's OOM killer takes it: its memory said in MB and MB/s against the cgroup's limit, each crossing's culprit once, in the terminal and the story" {
  command -v redis-server > /dev/null || { echo "# redis-server is not installed: scripts/install-deps.sh installs it" >&3; false; }
  local cg port=$((20000 + $$ % 10000)) i
  cg=$(cgroup_dir memory)
  if [ -f "$cg/memory.limit_in_bytes" ]; then echo $((300 << 20)) > "$cg/memory.limit_in_bytes"
  else echo $((300 << 20)) > "$cg/memory.max"; echo 0 > "$cg/memory.swap.max" 2>/dev/null || true; fi
  start_bg r timeout 180 "$OOMSCOPE" run -o "$TMP/r" -- sh -c "echo \$\$ > '$cg/cgroup.procs' && exec redis-server --port $port --save '' --appendonly no --enable-debug-command yes"
  for i in $(seq 1 100); do redis-cli -p "$port" ping 2> /dev/null | grep -q PONG && break; sleep 0.1; done
  # keys added about 20 MB at a time (100,000 of 100 bytes), each step given
  # two samples, until a memory rule crossed: the band between the ratio
  # rule's 85% and the limit holds two steps at least, so a sample sees it
  # whatever the machine's speed; then 20 million more, far past 300 MB
  for i in $(seq 1 40); do
    redis-cli -p "$port" DEBUG POPULATE 100000 "k$i" 100 > /dev/null 2>&1 || break
    for _ in $(seq 1 25); do
      grep -qE '"rule":"memory(_ratio|_trend)?"' "$TMP/r/timeline.jsonl" 2> /dev/null && break 2
      sleep 0.1
    done
  done
  redis-cli -p "$port" DEBUG POPULATE 20000000 key 100 > /dev/null 2>&1 || true
  wait_exit "$(cat "$TMP/r.pid")" 150
  local out; out=$(cat "$TMP/r.out")
  jq -e '.cause == "oom-cgroup"' "$TMP/r/death.json" || { tail -n 20 "$TMP/r.out" >&3; false; }
  # each memory crossing in MB and MB/s, the limit named for what it is
  grep '"type":"crossing"' "$TMP/r/timeline.jsonl" | jq -se 'map(select(.rule == "memory" or .rule == "memory_ratio" or .rule == "memory_trend")) | length >= 1 and
    all(.reason | test("^[0-9.]+ MB of memory \\(anonymous, shared, swapped\\)(, rising [0-9.]+ MB/s:| >= [0-9]+% of) the memory cgroup.s limit \\(memory\\.(max|limit_in_bytes)\\) of [0-9.]+ MB( \\(up from [0-9.]+ MB at the last crossing\\))?"))' ||
    { grep '"type":"crossing"' "$TMP/r/timeline.jsonl" | jq -r .reason >&3; false; }
  ! grep -qE '[0-9]+ kB of memory|rising [0-9.]+ a second: the memory|up from [0-9]+ at the last' <<<"$out"
  # under each crossing each culprit once, on the terminal and in the story
  awk '/!! memory/ { delete seen; next } /grown by / { sub(/.*grown by /, ""); sub(/: [0-9]+%.*/, ""); if (seen[$0]++) { print "twice: " $0; bad = 1 } }
       END { exit bad }' <<<"$out"
  run "$OOMSCOPE" report "$TMP/r"
  [ "$status" -eq 0 ]
  awk '/ memory(_ratio|_trend)?: / { delete seen; inx = 1; next } inx && /^ +~.* grown by / { sub(/.* grown by /, ""); sub(/ \([0-9]+ of [0-9]+ sampled.*/, ""); if (seen[$0]++) { print "twice: " $0; bad = 1 } }
       /^[a-z]/ { inx = 0 } END { exit bad }' <<<"$output" || { echo "$output" >&3; false; }
  # what grew is redis's own code (its allocator under its key space), named by symbol
  grep -qE ' grown by .*(redis-server|libjemalloc|zmalloc|dictAdd|the process)' <<<"$output" || { echo "$output" >&3; false; }
}
