#!/usr/bin/env bats
# What oomscope writes, checked by implementations it did not write: VisualVM's
# heap library (same objects, same references, same primitive fields after
# strip + restore) and AOSP's hprof-conv (accepts restored Android dumps).
load helpers
load corpus

SUMMARY="$ROOT/tests/hprof/heap_summary.sh"
HPROF_CONV=/usr/lib/android-sdk/platform-tools/hprof-conv
SYNTH="$BUILD_DIR/tools/synth_hprof"

# Fields VisualVM must see unchanged after strip + restore.
same_graph() { # A.json B.json
  local k
  for k in objects instances object_arrays primitive_arrays classes gc_roots shallow_bytes references refs_digest prim_digest; do
    [ "$(jq -r ".$k" "$1")" = "$(jq -r ".$k" "$2")" ] || { echo "# $k: $(jq -r ".$k" "$1") vs $(jq -r ".$k" "$2")" >&3; return 1; }
  done
}

@test "a fresh JVM dump (jcmd): strip every mode, restore; VisualVM sees the same graph" {
  run "$ROOT/tests/hprof/jvm_dump.sh" "$TMP/jvm.hprof" 40
  [ "$status" -eq 0 ]
  "$OOMSCOPE" hprof check "$TMP/jvm.hprof" > /dev/null
  "$SUMMARY" "$TMP/jvm.hprof" > "$TMP/orig.json"
  [ "$(jq .objects "$TMP/orig.json")" -eq "$("$OOMSCOPE" hprof check --json "$TMP/jvm.hprof" | jq .objects)" ]
  local m
  for m in app koom matrix; do
    "$OOMSCOPE" hprof strip --mode "$m" --xz "$TMP/jvm.hprof" "$TMP/s.hprof.xz"
    "$OOMSCOPE" hprof restore "$TMP/s.hprof.xz" "$TMP/r.hprof"
    "$SUMMARY" "$TMP/r.hprof" > "$TMP/r-$m.json"
    same_graph "$TMP/orig.json" "$TMP/r-$m.json"
    rm -f "$TMP/s.hprof.xz" "$TMP/r.hprof"
  done
}

@test "corpus: VisualVM sees the same graph after strip + restore" {
  corpus_ready
  local f n=0 objects bytes classes
  for f in "$CORPUS"/*.hprof; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    "$SUMMARY" "$f" > "$TMP/orig.json"
    "$OOMSCOPE" hprof strip --gzip "$f" "$TMP/s.hprof.gz"
    "$OOMSCOPE" hprof restore "$TMP/s.hprof.gz" "$TMP/r.hprof"
    "$SUMMARY" "$TMP/r.hprof" > "$TMP/r.json"
    same_graph "$TMP/orig.json" "$TMP/r.json"
    # and the MANIFEST's figures (made with the dump, on this machine)
    read -r objects bytes classes _ < <(corpus_figures "$f")
    [ -n "$classes" ]
    [ "$(jq .objects "$TMP/r.json")" -eq "$objects" ]
    [ "$(jq .shallow_bytes "$TMP/r.json")" -eq "$bytes" ]
    [ "$(jq .classes "$TMP/r.json")" -eq "$classes" ]
  done
  [ "$n" -ge 1 ]
}

@test "Android 1.0.3 dumps (synthetic, ids 4 and 8): restored files pass hprof-conv and VisualVM" {
  # hprof-conv knows only Android's 4-byte ids (all Android writes), and VisualVM reads Android's
  # ROOT_JNI_MONITOR (0x8e) as a bare id where ART and hprof-conv use id + u4 + u4: so VisualVM
  # checks hprof-conv's output, and 8-byte-id 1.0.3 files are checked by oomscope's reader alone
  local n
  for n in 4 8; do
    "$SYNTH" android "$n" "$TMP/a.hprof"
    # app: every object back; koom: the image heap's instance is gone
    for m in app koom; do
      "$OOMSCOPE" hprof strip --mode "$m" "$TMP/a.hprof" "$TMP/s.hprof"
      "$OOMSCOPE" hprof restore "$TMP/s.hprof" "$TMP/r.hprof"
      if [ "$n" = 4 ]; then
        run "$HPROF_CONV" "$TMP/r.hprof" "$TMP/c.hprof"
        [ "$status" -eq 0 ]
        [ "$("$OOMSCOPE" hprof check --json "$TMP/c.hprof" | jq -r .format)" = "JAVA PROFILE 1.0.2" ]
      else
        cp "$TMP/r.hprof" "$TMP/c.hprof"
      fi
      local c; c=$("$OOMSCOPE" hprof check --json "$TMP/c.hprof")
      [ "$(jq .objects <<<"$c")" -eq "$([ $m = app ] && echo 14 || echo 13)" ]
      [ "$n" = 4 ] || continue
      "$SUMMARY" "$TMP/c.hprof" > "$TMP/v.json"
      [ "$(jq .objects "$TMP/v.json")" -eq "$([ $m = app ] && echo 14 || echo 13)" ]
      [ "$(jq .classes "$TMP/v.json")" -eq 11 ]
      [ "$(jq .object_arrays "$TMP/v.json")" -eq 1 ]
    done
  done
}

@test "hprof-conv refuses a stripped file (it is marked), accepts its restore" {
  "$SYNTH" android 4 "$TMP/a.hprof"
  "$OOMSCOPE" hprof strip "$TMP/a.hprof" "$TMP/s.hprof"
  run "$HPROF_CONV" "$TMP/s.hprof" "$TMP/c.hprof"
  [ "$status" -ne 0 ]
  "$OOMSCOPE" hprof restore "$TMP/s.hprof" "$TMP/r.hprof"
  run "$HPROF_CONV" "$TMP/r.hprof" "$TMP/c.hprof"
  [ "$status" -eq 0 ]
}
