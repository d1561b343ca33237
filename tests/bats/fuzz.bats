#!/usr/bin/env bats
# The fuzz harnesses (tests/fuzz/), built without libFuzzer, replay every
# input kept under tests/fuzz/regressions/ (what `make fuzz` once found, and
# small seeds) and some of the corpus: each is handled, none crashes.
load helpers
load corpus

@test "fuzz regressions: every kept input of every harness goes through it without a crash" {
  local src name f n=0 k
  # every harness has a replay and at least one kept input
  for src in "$ROOT"/tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c); name=${name#fuzz_}
    [ -x "$BUILD_DIR/fuzz/replay_$name" ] || { echo "no replay for harness $name"; return 1; }
    ls "$ROOT"/tests/fuzz/regressions/"$name"/* > /dev/null 2>&1 || { echo "harness $name has no input kept"; return 1; }
  done
  # every directory of kept inputs, each input through its harness
  for d in "$ROOT"/tests/fuzz/regressions/*/; do
    name=$(basename "$d") k=0
    [ -f "$ROOT/tests/fuzz/fuzz_$name.c" ] || { echo "regressions/$name: no such harness"; return 1; }
    for f in "$d"*; do
      timeout 60 "$BUILD_DIR/fuzz/replay_$name" "$f" || { echo "replay_$name $f: exit $?"; return 1; }
      k=$((k + 1))
    done
    echo "# $name: $k inputs replayed" >&3
    n=$((n + k))
  done
  [ "$n" -ge 20 ]
}

# The figures harness $1 prints (OOMS_FUZZ_PRINT) for its kept input $2.
reading() {
  OOMS_FUZZ_PRINT=1 "$BUILD_DIR/fuzz/replay_$1" "$ROOT/tests/fuzz/regressions/$1/$2"
}

@test "fuzz seeds: a live JVM's hsperfdata (G1 and Serial) reads as its heap" {
  run reading hsperf jdk17-g1-sleeping.hsperf
  [ "$status" -eq 0 ]
  echo "$output"
  [[ "$output" =~ ^parse=0\ counters=1[0-9][0-9]\ .*\ heap=0\ used=[1-9][0-9]{6,}\ committed=[0-9]+\ max=67108[0-9]{3}\ .*g1=1$ ]]
  # class metadata: used, and the compressed class space's max (1 GB by default)
  [[ "$output" =~ \ meta=[1-9][0-9]{5,}/[0-9]+\ limit=-1\ class=[1-9][0-9]{4,}/1073741824\  ]]
  run reading hsperf jdk17-serial-sleeping.hsperf
  [ "$status" -eq 0 ]
  [[ "$output" =~ \ heap=0\ used=[1-9][0-9]{6,}\ committed=67108864\ max=67108864\ .*g1=0$ ]]
  # the counters of a damaged file whose GC ticks overflow when turned into ms
  run reading hsperf gc-time-ticks-overflow
  [ "$status" -eq 0 ]
  [[ "$output" =~ \ heap=0\ .*\ gc_ms=288230376162\  ]]
  # a string counter whose offset + length wraps (read past the buffer, ASan)
  run reading hsperf string-length-wraps
  [ "$status" -eq 0 ]
  [[ "$output" == "parse=-22 counters=6 "* ]]
}

@test "fuzz seeds: the JVM's attach answers read as result code and output" {
  run reading attach_reply jcmd-heap-dump.reply
  [ "$output" = "rc=0 code=0 out_len=53 first=Heap dump file created [1234567 bytes in 0.012 secs]" ]
  run reading attach_reply load-agent-refused.reply
  [ "$output" = "rc=0 code=100 out_len=49 first=AgentLoadException: Failed to load agent library" ]
  run reading attach_reply code-only.reply
  [ "$output" = "rc=0 code=0 out_len=0 first=" ]
  printf 'Exception in thread\n' > "$TMP/no-code"
  run env OOMS_FUZZ_PRINT=1 "$BUILD_DIR/fuzz/replay_attach_reply" "$TMP/no-code"
  [ "$output" = "rc=-71 code=-1 out_len=0 first=" ]
}

# Every corpus dump up to 20 MB through the harness NAME; at least 5 of them.
each_dump() {
  local f n=0
  corpus_ready
  for f in "$CORPUS"/*.hprof "$WORLD"/*.hprof; do
    [ "$(stat -c %s "$f")" -le 20000000 ] || continue
    timeout 120 "$BUILD_DIR/fuzz/replay_$1" "$f"
    n=$((n + 1))
  done
  [ "$n" -ge 5 ]
}

@test "fuzz harnesses: the parser's answer does not depend on the chunking, on real dumps" {
  each_dump hprof_parser
}

@test "fuzz harnesses: restore(strip(x)) keeps every object, class, root and array length of the real dumps" {
  each_dump strip_restore
}

@test "fuzz harnesses: cut and flipped dumps are answered or refused, never a crash" {
  corpus_ready
  local f="$WORLD/mat-oracle_jdk8_05_x64.hprof" size cut
  size=$(stat -c %s "$f")
  for cut in 19 31 1000 50000 $((size / 2)) $((size - 1)); do
    head -c "$cut" "$f" > "$TMP/cut.hprof"
    timeout 60 "$BUILD_DIR/fuzz/replay_analyze" "$TMP/cut.hprof"
  done
  # a byte flipped every 4 kB
  python3 -c 'import sys; b=bytearray(open(sys.argv[1],"rb").read()); [b.__setitem__(i, b[i] ^ 0x5a) for i in range(64, len(b), 4096)]; open(sys.argv[2],"wb").write(b)' "$f" "$TMP/flip.hprof"
  timeout 60 "$BUILD_DIR/fuzz/replay_analyze" "$TMP/flip.hprof"
}

@test "fuzz seeds: the shim's control requests read as their command and settings" {
  run reading shim_control dump-koom-strings-0
  [ "$output" = "cmd=dump path=/tmp/x.hprof op=1 strings=0 without_fd=same" ]
  run reading shim_control dumpfd-app-strings-4096
  [ "$output" = "cmd=dumpfd path=- op=0 strings=4096 without_fd=refused" ]
  run reading shim_control armoom
  [ "$output" = "cmd=armoom path=- op=0 strings=1024 without_fd=refused" ]
  run reading shim_control ping
  [ "$output" = "cmd=ping path=- op=0 strings=0 without_fd=same" ]
  run reading shim_control javastacks
  [ "$output" = "cmd=javastacks path=- op=0 strings=0 without_fd=same" ]
  run reading shim_control javastacks-nostacks
  [ "$output" = "cmd=javastacks path=- op=0 strings=0 without_fd=same nostacks" ]
  run reading shim_control javastacks-bad-word
  [ "$output" = "error unknown word 'stacks' (javastacks [nostacks])" ]
  run reading shim_control dump-no-path
  [[ "$output" == "error usage: dump PATH "* ]]
  # protocol 2: the shim writes plain hprof, the reader compresses
  run reading shim_control dump-koom-gzip-6
  [ "$output" = "error the shim writes plain hprof (protocol 2): the reader compresses it" ]
  run reading shim_control dumpfd-app-xz
  [ "$output" = "error the shim writes plain hprof (protocol 2): the reader compresses it" ]
  run reading shim_control dump-bad-codec
  [[ "$output" == "error unknown mode 'lzma' "* ]]
  run reading shim_control unknown
  [ "$output" = "error unknown command 'frobnicate' (ping, heap, dump, dumpfd, armoom, javastacks)" ]
  run reading shim_control empty
  [ "$output" = "error empty request" ]
}

@test "fuzz seeds: the symbolizer names the functions of a MiniDebugInfo binary (the shim leaves .gnu_debugdata to it); both those of its unstripped build" {
  local want='main: sym=0x119d shim=0x119d(TABLE) md_alpha: sym=0x1139 shim=0x1139(TABLE) md_beta: sym=0x1161 shim=0x1161(TABLE) syms=10 loads=4 build_id=yes'
  run reading elf minidebug
  [ "$status" -eq 0 ]
  [ "$output" = "main: sym=0x119d shim=0(-) md_alpha: sym=0x1139 shim=0(-) md_beta: sym=0x1161 shim=0(-) syms=10 loads=4 build_id=yes md_alpha+4=md_alpha:-:0" ]
  run reading elf minidebug-full
  [ "$output" = "${want//TABLE/symtab} md_alpha+4=md_alpha:minidebug_src.c:9" ]
}

@test "fuzz seeds: a packed run directory reads as the report reads it; the fixtures too" {
  run reading rundata small.run
  [ "$output" = "files=7 pid=20292 mode=run samples=2 events=7 bad_lines=1 ended=1 reason=threshold crossed threads=1 fds=1 allocs=3 analyses=2 first_analysis=1" ]
  # analyses numbered INT_MIN and INT_MAX: sorted without overflow
  run reading rundata analysis-seqs-far-apart.run
  [ "$output" = "files=4 pid=20363 mode=run samples=0 events=0 bad_lines=0 ended=0 reason= threads=0 fds=0 allocs=0 analyses=3 first_analysis=-2147483648" ]
  "$ROOT/tests/fuzz/pack-run.sh" "$ROOT/tests/fixtures/run-leakyservice" > "$TMP/leaky.run"
  run env OOMS_FUZZ_PRINT=1 "$BUILD_DIR/fuzz/replay_rundata" "$TMP/leaky.run"
  [ "$output" = "files=6 pid=20292 mode=run samples=12 events=66 bad_lines=0 ended=1 reason=threshold crossed threads=1 fds=1 allocs=2 analyses=1 first_analysis=1" ]
  "$ROOT/tests/fuzz/pack-run.sh" "$ROOT/tests/fixtures/run-plantedleaks" > "$TMP/planted.run"
  run env OOMS_FUZZ_PRINT=1 "$BUILD_DIR/fuzz/replay_rundata" "$TMP/planted.run"
  [ "$output" = "files=5 pid=20363 mode=run samples=2 events=3 bad_lines=0 ended=1 reason=threshold crossed threads=1 fds=1 allocs=0 analyses=1 first_analysis=1" ]
}

# Every harness built with libFuzzer (`make test` builds them) runs a few
# seconds from its seeds and kept inputs: a harness that stops linking, or
# an input that now crashes, fails the suite (OOMS_FUZZ_SECONDS, default 3;
# make fuzz runs them for minutes).
@test "fuzz harnesses: each, built with libFuzzer, ASan and UBSan, runs from its seeds without a failure" {
  local src name n=0
  for src in "$ROOT"/tests/fuzz/fuzz_*.c; do
    name=$(basename "$src" .c)
    [ -x "$ROOT/build/fuzz/$name" ] || { echo "# build/fuzz/$name is not built (make fuzz-bins)" >&3; return 1; }
    n=$((n + 1))
  done
  run env FUZZ_SECONDS="${OOMS_FUZZ_SECONDS:-3}" "$ROOT/scripts/fuzz.sh" $(cd "$ROOT/tests/fuzz" && ls fuzz_*.c | sed 's/^fuzz_//; s/\.c$//')
  echo "$output" | grep -E "FOUND|executed_units" | sed 's/^/# /' >&3
  [ "$status" -eq 0 ]
  # each ran inputs
  [ "$(grep -c 'stat::number_of_executed_units' <<< "$output")" -eq "$n" ]
  [ "$n" -ge 8 ]
}
