#!/usr/bin/env bats
# The source tree's shape (docs/design.md): no two files depend on each
# other through any chain, and no room uses one above it. Checked from the
# build's objects (nm), so what the linker sees is what is checked.
load helpers

@test "the sources: no loop between files, no room using one above it (scripts/file-loops.py on the build's objects)" {
  [ -d "$BUILD_DIR/user" ]
  run python3 "$ROOT/scripts/file-loops.py" "$BUILD_DIR"
  echo "$output"
  [ "$status" -eq 0 ]
  [[ "$output" == *"file-loops: "*" files, "*" dependencies, 0 problems" ]]
  # the check itself: a loop made on purpose is found
  mkdir -p "$TMP/b/user/one" "$TMP/b/user/two"
  printf 'int b(void);\nint a(void) { return b(); }\n' > "$TMP/a.c"
  printf 'int a(void);\nint b(void) { return a(); }\n' > "$TMP/b.c"
  cc -c "$TMP/a.c" -o "$TMP/b/user/one/a.o"
  cc -c "$TMP/b.c" -o "$TMP/b/user/two/b.o"
  run python3 "$ROOT/scripts/file-loops.py" "$TMP/b"
  echo "$output"
  [ "$status" -eq 1 ]
  [[ "$output" == *"loop of 2 files: user/one/a.c (b) -> user/two/b.c (a) -> user/one/a.c"* ]]
}
