#!/usr/bin/env bats
# A stock Debian kernel (bookworm's 6.1, in qemu: scripts/vm.sh), for the
# hooks this machine's kernel refuses: fexit on the followed syscalls'
# handlers needs BPF trampolines, which Debian's kernel has. TCG emulation
# makes every figure slow, so only counts and names are checked there.
load helpers

# the job run in the VM: each hook on fd_target
write_job() {
  mkdir -p "$TMP/job/bin"
  # the plain build: the VM's root has no sanitizer runtime (make test SAN=1)
  cp "$ROOT/oomscope" "$TARGETS/fd_target" "$TMP/job/bin/"
  cat > "$TMP/job/job.sh" << 'JOB'
cd /job
for h in fexit syscalls kprobe raw auto; do
  timeout 120 ./bin/oomscope run --json -d 2 --syscall-hook $h -o /tmp/r_$h -- ./bin/fd_target -n 100 > /tmp/out_$h 2>&1
  echo "RESULT hook=$h rc=$? $(head -n1 /tmp/r_$h/timeline.jsonl | tr -d '\n') $(tail -n1 /tmp/r_$h/timeline.jsonl | tr -d '\n')"
  tac /tmp/r_$h/timeline.jsonl | grep -m1 '"type":"sample"' | sed 's/^/RESULT sample=/'
  grep -c . /tmp/r_$h/fds.json > /dev/null && echo "RESULT fds_json_$h $(tr -d '\n' < /tmp/r_$h/fds.json | head -c 100000)"
  grep -m3 oomscope: /tmp/out_$h || true
done
echo "RESULT kprobe_events_left=$(grep -c oomscope /sys/kernel/tracing/kprobe_events)"
JOB
}

@test "a stock kernel (Debian 6.1 in a VM): fexit loads on the followed syscalls' handlers, auto takes it, counts and stacks exact as with the other hooks (kretprobes too)" {
  write_job
  VM_TIMEOUT=900 run "$ROOT/scripts/vm.sh" run "$TMP/job"
  echo "$output" | grep -v "^RESULT fds_json" > "$TMP/console"
  [ "$status" -eq 0 ] || { cat "$TMP/console" | tail -30; false; }
  grep -q "^vm: kernel 6.1" "$TMP/console"
  local h start end sample
  for h in fexit syscalls kprobe raw auto; do
    line=$(grep "^RESULT hook=$h " "$TMP/console")
    [[ "$line" == *" rc=0 "* ]]
    start=$(sed 's/^RESULT hook=[a-z]* rc=0 //' <<<"$line" | jq -sc '.[0]')
    end=$(sed 's/^RESULT hook=[a-z]* rc=0 //' <<<"$line" | jq -sc '.[1]')
    jq -e '.type == "end" and .ringbuf_drops == 0 and .events_sent == .events_received' <<<"$end"
    # fd_target -n 100 makes 250 fds, all seen by the kernel side
    sample=$(grep -A1 "^RESULT hook=$h " "$TMP/console" | sed -n 's/^RESULT sample=//p')
    jq -e '.fds == .fds_bpf and .fds >= 253' <<<"$sample"
    echo "$output" | sed -n "s/^RESULT fds_json_$h //p" > "$TMP/fds_$h.json"
    [ "$(jq '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].count' "$TMP/fds_$h.json")" -eq 100 ]
    [ "$(jq -r '.groups[] | select(.kind=="anon_inode:[eventfd]") | .stacks[0].frames[1].symbol' "$TMP/fds_$h.json")" = open_looper_pairs ]
    echo "# $h: $(jq -r .syscall_hook <<<"$start")" >&3
  done
  grep '^RESULT hook=fexit ' "$TMP/console" | grep -qE '"syscall_hook":"fexit on [0-9]+ syscall handlers"'
  # kprobe: kretprobes made in tracefs, none of their returns missed, none left behind
  grep '^RESULT hook=kprobe ' "$TMP/console" | grep -qE '"syscall_hook":"kretprobes on [0-9]+ syscall handlers"'
  grep '^RESULT hook=kprobe ' "$TMP/console" | grep -q '"probe_misses":0'
  grep -q '^RESULT kprobe_events_left=0$' "$TMP/console"
  # auto takes the cheapest hook that loads: fexit on this kernel
  [[ "$(grep '^RESULT hook=auto ' "$TMP/console")" == *'"syscall_hook":"fexit on '* ]]
}
