#!/usr/bin/env bats
# The fuzz harnesses (tests/fuzz/), built without libFuzzer, replay every
# input kept under tests/fuzz/regressions/ (what `make fuzz` once found, and
# small seeds) and some of the corpus: each is handled, none crashes.
load helpers

CORPUS="$ROOT/../shared/corpus/hprof"
WORLD="$ROOT/../shared/corpus/hprof-world"

@test "fuzz regressions: every kept input goes through its harness without a crash" {
  local name n=0
  for name in hprof_parser analyze strip_restore; do
    [ -x "$BUILD_DIR/fuzz/replay_$name" ]
    for f in "$ROOT"/tests/fuzz/regressions/"$name"/*; do
      timeout 60 "$BUILD_DIR/fuzz/replay_$name" "$f"
      n=$((n + 1))
    done
  done
  echo "# $n inputs replayed" >&3
  [ "$n" -ge 6 ]
}

# Every corpus dump up to 20 MB through the harness NAME; at least 5 of them.
each_dump() {
  local f n=0
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
