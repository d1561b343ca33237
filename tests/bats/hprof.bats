#!/usr/bin/env bats
# oomscope hprof check|strip|restore on the corpus (build/corpus: every *.hprof
# in both folders: this project's JDK and the world's producers) and on damaged
# copies: clean one-line errors, no output file.
load helpers
load corpus

# every dump of both folders, plain ones first (tests that take one take a
# plain one), then the gzipped copies
corpus_files() {
  ls "$CORPUS"/*.hprof "$WORLD"/*.hprof 2>/dev/null || true
  ls "$CORPUS"/*.hprof.gz "$WORLD"/*.hprof.gz 2>/dev/null || true
}

# The size of the dump itself (a .gz copy: its content's).
dump_bytes() {
  case "$1" in
  *.gz) gzip -dc "$1" | wc -c ;;
  *) stat -c %s "$1" ;;
  esac
}

# The MANIFEST's "live instances" and "classes" for a corpus file, from the
# table of its folder's MANIFEST (VisualVM's figures: the first heap dump).
manifest_field() { # FILE COLUMN(2=instances, 4=classes)
  awk -F'|' -v f="$(basename "$1" .gz)" -v c="$2" '
    $2 ~ f && $0 ~ /·/ { gsub(/[ ,]/, "", $(c+1)); print $(c+1); exit }' "$(dirname "$1")/MANIFEST.md"
}

@test "corpus: there are dumps to test" {
  corpus_ready
  [ "$(corpus_files | wc -l)" -ge 1 ]
}

@test "check: every corpus dump parses whole; objects and classes as the MANIFEST says" {
  corpus_ready
  local f want
  for f in $(corpus_files); do
    run "$OOMSCOPE" hprof check --json "$f"
    [ "$status" -eq 0 ]
    jq -e . <<<"$output" > /dev/null
    [ "$(jq .file_bytes <<<"$output")" -eq "$(dump_bytes "$f")" ]
    want=$(manifest_field "$f" 2)
    [ -n "$want" ] || { echo "# $f: not in its MANIFEST's table" >&3; return 1; }
    [ "$(jq .first_heap_dump.objects <<<"$output")" -eq "$want" ]
    [ "$(jq .first_heap_dump.classes <<<"$output")" -eq "$(manifest_field "$f" 4)" ]
    # one heap dump: its figures are the file's
    if [ "$(jq .heap_dumps <<<"$output")" -eq 1 ]; then
      [ "$(jq .objects <<<"$output")" -eq "$want" ]
      [ "$(jq '[.heaps[].classes.count] | add' <<<"$output")" -eq "$(manifest_field "$f" 4)" ]
    fi
  done
}

@test "check: the human summary names the format, records and heaps" {
  corpus_ready
  local f; f=$(corpus_files | head -n1)
  run "$OOMSCOPE" hprof check "$f"
  [ "$status" -eq 0 ]
  [[ "$output" == *"JAVA PROFILE 1.0."* ]]
  [[ "$output" == *"HEAP_DUMP_SEGMENT"* || "$output" == *"HEAP_DUMP "* ]]
  [[ "$output" == *"INSTANCE_DUMP"* ]]
  [[ "$output" == *"primitive array contents"* ]]
}

@test "strip every mode, then restore: objects kept, lengths back, files 0600 and marked" {
  corpus_ready
  local f m modes=(app koom matrix) k=0
  for f in $(corpus_files); do
    local orig; orig=$("$OOMSCOPE" hprof check --json "$f")
    # OOMS_ROTATE_MODES=1 (the sanitized and the emulated runs: the x86_64 one
    # runs every pair): one mode a file, in turn, so each file and each mode once
    [ "${OOMS_ROTATE_MODES:-0}" = 1 ] && modes=("$(echo app koom matrix | cut -d' ' -f$((k % 3 + 1)))") && k=$((k + 1))
    for m in "${modes[@]}"; do
      run "$OOMSCOPE" hprof strip --mode "$m" "$f" "$TMP/s.hprof"
      [ "$status" -eq 0 ]
      [ "$(stat -c %a "$TMP/s.hprof")" = 600 ]
      local s; s=$("$OOMSCOPE" hprof check --json "$TMP/s.hprof")
      [ "$(jq -r .stripped <<<"$s")" = "$m" ]
      [[ "$(jq -r .format <<<"$s")" == "OOMSCOPE STRIPPED $m JAVA PROFILE 1.0."* ]]
      # app and matrix keep every object; koom drops only zygote and image heap objects
      if [ "$m" != koom ]; then
        [ "$(jq .objects <<<"$s")" -eq "$(jq .objects <<<"$orig")" ]
      fi
      [ "$(jq .primitive_content_original_bytes <<<"$s")" -eq "$(jq '[.heaps[] | select(.heap != "zygote" and .heap != "image") | .primitive_content_bytes] | add' <<<"$orig")" ] || [ "$m" != koom ]
      run "$OOMSCOPE" hprof restore "$TMP/s.hprof" "$TMP/r.hprof"
      [ "$status" -eq 0 ]
      local r; r=$("$OOMSCOPE" hprof check --json "$TMP/r.hprof")
      [ "$(jq -r .format <<<"$r")" = "$(jq -r .format <<<"$orig")" ]
      [ "$(jq .primitive_content_bytes <<<"$r")" -eq "$(jq .primitive_content_original_bytes <<<"$s")" ]
      [ "$(jq '.heap_dump_subrecords.PRIM_ARRAY_NODATA.count // 0' <<<"$r")" -eq 0 ]
      if [ "$m" = app ] && [ "$(jq '.heap_dump_subrecords.PRIM_ARRAY_NODATA.count // 0' <<<"$orig")" -eq 0 ]; then
        # nothing lost but array contents: the restored file has the original's size
        [ "$(stat -c %s "$TMP/r.hprof")" -eq "$(dump_bytes "$f")" ]
      fi
    done
  done
}

@test "strings: every mode keeps char and byte arrays up to 1 KiB (String contents); --no-strings drops them; matrix keeps String arrays of any size" {
  corpus_ready
  local f m names
  # a HotSpot dump with named threads (javac-oom here; in the arm64 VM, whose
  # corpus leaves it out, a world one)
  for f in $(corpus_files | grep -v '\.gz$'); do
    "$OOMSCOPE" analyze -q --json -o "$TMP/orig.json" "$f" 2> /dev/null || continue
    [ "$(jq '[.threads[] | select(.name != null)] | length' "$TMP/orig.json")" -ge 3 ] && break
  done
  names=$(jq -c '[.threads[].name] | sort' "$TMP/orig.json")
  [ "$(jq length <<<"$names")" -ge 3 ]
  for m in app koom matrix; do
    "$OOMSCOPE" hprof strip --mode "$m" "$f" "$TMP/$m.hprof"
    [ "$("$OOMSCOPE" hprof check --json "$TMP/$m.hprof" | jq .primitive_content_bytes)" -gt 0 ]
    "$OOMSCOPE" hprof strip --mode "$m" --no-strings "$f" "$TMP/$m-n.hprof"
  done
  # the threads' names read as they were from the stripped dump, and not with --no-strings
  "$OOMSCOPE" analyze -q --json -o "$TMP/app.json" "$TMP/app.hprof"
  [ "$(jq -c '[.threads[].name] | sort' "$TMP/app.json")" = "$names" ]
  "$OOMSCOPE" analyze -q --json -o "$TMP/app-n.json" "$TMP/app-n.hprof"
  [ "$(jq '[.threads[] | select(.name != null)] | length' "$TMP/app-n.json")" -eq 0 ]
  [ "$("$OOMSCOPE" hprof check --json "$TMP/app-n.hprof" | jq .primitive_content_bytes)" -eq 0 ]
  [ "$("$OOMSCOPE" hprof check --json "$TMP/koom-n.hprof" | jq .primitive_content_bytes)" -eq 0 ]
  # matrix keeps the Strings' arrays whatever their size
  [ "$("$OOMSCOPE" hprof check --json "$TMP/matrix-n.hprof" | jq .primitive_content_bytes)" -gt 0 ]
  # what app keeps is small char and byte arrays only: at most 1 KiB each
  local s; s=$("$OOMSCOPE" hprof check --json "$TMP/app.hprof")
  [ "$(jq '.heap_dump_subrecords.PRIM_ARRAY_DUMP.bytes' <<<"$s")" -le \
    "$(( $(jq '.heap_dump_subrecords.PRIM_ARRAY_DUMP.count' <<<"$s") * (1024 + 18) ))" ]
}

@test "gzip and xz: streams that gzip/xz accept, read back by check and restore" {
  corpus_ready
  local f; f=$(corpus_files | head -n1)
  "$OOMSCOPE" hprof strip "$f" "$TMP/s.hprof"
  "$OOMSCOPE" hprof strip --gzip "$f" "$TMP/s.hprof.gz"
  "$OOMSCOPE" hprof strip --xz "$f" "$TMP/s.hprof.xz"
  gzip -t "$TMP/s.hprof.gz"
  xz -t "$TMP/s.hprof.xz"
  cmp <(gzip -dc "$TMP/s.hprof.gz") "$TMP/s.hprof"
  cmp <(xz -dc "$TMP/s.hprof.xz") "$TMP/s.hprof"
  [ "$(stat -c %s "$TMP/s.hprof.xz")" -lt "$(stat -c %s "$TMP/s.hprof.gz")" ]
  "$OOMSCOPE" hprof restore "$TMP/s.hprof.xz" "$TMP/r1.hprof"
  "$OOMSCOPE" hprof restore "$TMP/s.hprof.gz" "$TMP/r2.hprof"
  "$OOMSCOPE" hprof restore "$TMP/s.hprof" "$TMP/r3.hprof"
  cmp "$TMP/r1.hprof" "$TMP/r3.hprof"
  cmp "$TMP/r2.hprof" "$TMP/r3.hprof"
}

@test "standard input and output: '-' works in both places" {
  corpus_ready
  local f; f=$(corpus_files | head -n1)
  "$OOMSCOPE" hprof strip "$f" "$TMP/a.hprof"
  cat "$f" | "$OOMSCOPE" hprof strip - - > "$TMP/b.hprof"
  cmp "$TMP/a.hprof" "$TMP/b.hprof"
  "$OOMSCOPE" hprof strip --gzip - - < "$f" | "$OOMSCOPE" hprof restore - - | "$OOMSCOPE" hprof check - > "$TMP/c.txt"
  grep -q "JAVA PROFILE" "$TMP/c.txt"
  run "$OOMSCOPE" hprof strip --mode matrix - "$TMP/m.hprof" < "$f"
  [ "$status" -eq 1 ]
  [[ "$output" == *"matrix mode reads its input twice"* ]]
}

@test "damaged dumps: one clean line with the offset, no output file" {
  corpus_ready
  local f size off; f=$(corpus_files | head -n1); size=$(stat -c %s "$f")
  for off in 5 30 40 1000 77777 $((size / 3)) $((size / 2 + 13)) $((size - 5)); do
    head -c "$off" "$f" > "$TMP/t.hprof"
    run "$OOMSCOPE" hprof strip "$TMP/t.hprof" "$TMP/out.hprof"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 1 ]
    [[ "$output" == *"offset "*"truncated"* || "$output" == *"offset "* ]]
    [ ! -e "$TMP/out.hprof" ]
    ! ls "$TMP"/out.hprof.tmp.* 2>/dev/null
    run "$OOMSCOPE" hprof check "$TMP/t.hprof"
    [ "$status" -eq 1 ]
  done
  # a flipped byte in the first record's tag
  cp "$f" "$TMP/flip.hprof"; chmod u+w "$TMP/flip.hprof"
  printf '\x99' | dd of="$TMP/flip.hprof" bs=1 seek=31 conv=notrunc status=none
  run "$OOMSCOPE" hprof check "$TMP/flip.hprof"
  [ "$status" -eq 1 ]
  [[ "$output" == *"offset 31: unknown record tag 0x99"* ]]
  # wrong id size
  cp "$f" "$TMP/id.hprof"; chmod u+w "$TMP/id.hprof"
  printf '\x00\x00\x00\x05' | dd of="$TMP/id.hprof" bs=1 seek=19 conv=notrunc status=none
  run "$OOMSCOPE" hprof restore "$TMP/id.hprof" "$TMP/out.hprof"
  [ "$status" -eq 1 ]
  [[ "$output" == *"identifier size 5"* ]]
  [ ! -e "$TMP/out.hprof" ]
  # not an hprof at all, and corrupt gzip
  run "$OOMSCOPE" hprof check /etc/passwd
  [ "$status" -eq 1 ]
  [[ "$output" == *"unknown header"* || "$output" == *"no hprof header"* ]]
  "$OOMSCOPE" hprof strip --gzip "$f" "$TMP/s.gz"
  head -c 100000 "$TMP/s.gz" > "$TMP/cut.gz"
  run "$OOMSCOPE" hprof check "$TMP/cut.gz"
  [ "$status" -eq 1 ]
  [ "${#lines[@]}" -eq 1 ]
}

@test "refusals: restore of a whole dump, strip of a stripped one, same file, bad options" {
  corpus_ready
  local f; f=$(corpus_files | head -n1)
  run "$OOMSCOPE" hprof restore "$f" "$TMP/r.hprof"
  [ "$status" -eq 1 ]
  [[ "$output" == *"not a stripped dump"* ]]
  [ ! -e "$TMP/r.hprof" ]
  "$OOMSCOPE" hprof strip "$f" "$TMP/s.hprof"
  run "$OOMSCOPE" hprof strip "$TMP/s.hprof" "$TMP/s2.hprof"
  [ "$status" -eq 1 ]
  [[ "$output" == *"already stripped"* ]]
  run "$OOMSCOPE" hprof strip "$TMP/s.hprof" "$TMP/s.hprof"
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" hprof strip --mode bogus "$f" "$TMP/x"
  [ "$status" -eq 2 ]
  [[ "$output" == *"unknown mode 'bogus'"* ]]
  run "$OOMSCOPE" hprof strip --level 3 "$f" "$TMP/x"
  [ "$status" -eq 2 ]
  run "$OOMSCOPE" hprof check "$TMP/missing.hprof"
  [ "$status" -eq 1 ]
  [[ "$output" == *"No such file"* ]]
  run "$OOMSCOPE" hprof strip "$f" "$TMP/nodir/x.hprof"
  [ "$status" -eq 1 ]
  [[ "$output" == *"cannot write"* ]]
}
