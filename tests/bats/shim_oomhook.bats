#!/usr/bin/env bats
# The shim's hook on OutOfMemoryError's constructors (user/shim/classfile.c,
# hs_oom.c): the class file rewriter on the JDK's own class and on a class
# the JVM then verifies and runs; the hook class it defines.
load helpers

JAVA_DIR="$ROOT/tests/java"
TOOL="$BUILD_DIR/tools/classfile_hook"

@test "the rewriter on the JDK's own OutOfMemoryError.class: both constructors call the hook just before they return; the line and local variable tables follow the code" {
  local jdk; jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
  jimage extract --dir "$TMP/x" --include regex:.*/java/lang/OutOfMemoryError.class "$jdk/lib/modules"
  local in="$TMP/x/java.base/java/lang/OutOfMemoryError.class"
  run "$TOOL" "$in" "$TMP/OutOfMemoryError.class" oomscope/OomHook made '(Ljava/lang/Throwable;)V'
  [ "$status" -eq 0 ]
  [ "$output" = "hooked 2" ]
  run javap -c -v "$TMP/OutOfMemoryError.class"
  [ "$status" -eq 0 ]
  echo "$output" | sed -n '/OutOfMemoryError(java.lang.String);/,/^$/p'
  # each constructor: ... aload_0; invokestatic the hook; return
  [ "$(grep -c 'invokestatic .*// Method oomscope/OomHook.made:(Ljava/lang/Throwable;)V' <<<"$output")" -eq 2 ]
  [ "$(grep -A1 'invokestatic .*oomscope/OomHook.made' <<<"$output" | grep -c ': return$')" -eq 2 ]
  # code 6 bytes long before, 10 after; `this` spans it all; line 59 at the hook (pc 5, was the return)
  grep -qE '^ +0 +10 +0 +this +Ljava/lang/OutOfMemoryError;' <<<"$output"
  grep -q 'line 59: 5' <<<"$output"
  # what is not a constructor is as it was
  cmp <(javap -p "$in" | sort) <(javap -p "$TMP/OutOfMemoryError.class" | sort)
}

@test "a rewritten class verifies and runs: the hook sees each straight-line constructor's new object with its message; the one with a branch is left as it was" {
  mkdir "$TMP/c"
  javac -d "$TMP/c" "$JAVA_DIR/hook/Boom.java"
  run "$TOOL" "$TMP/c/Boom.class" "$TMP/Boom.class" 'HookProbe$Hook' made '(Ljava/lang/Throwable;)V'
  [ "$status" -eq 0 ]
  [ "$output" = "hooked 2" ]
  # a class from a class loader of the app's is verified before it runs
  run timeout 120 java "$JAVA_DIR/hook/HookProbe.java" "$TMP/Boom.class"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = "made Boom: null" ]
  [ "${lines[1]}" = "made Boom: with a message" ]
  [ "${lines[2]}" = "built 3" ]
  [ "${#lines[@]}" -eq 3 ]
}

@test "the hook class: public, final, one public static native method, read by javap; what is not a class file is refused" {
  run "$TOOL" --hook-class "$TMP/OomHook.class" oomscope/OomHook made '(Ljava/lang/Throwable;)V'
  [ "$status" -eq 0 ]
  run javap -p "$TMP/OomHook.class"
  echo "$output"
  [[ "$output" == *'public final class oomscope.OomHook {'* ]]
  [[ "$output" == *'public static native void made(java.lang.Throwable);'* ]]
  echo "not a class file" > "$TMP/noise.class"
  run "$TOOL" "$TMP/noise.class" "$TMP/out.class" a b '()V'
  [ "$status" -eq 1 ]
  [ "$output" = "classfile_hook: $TMP/noise.class is not a class file it can read" ]
  [ ! -e "$TMP/out.class" ]
  # a class file cut short
  head -c 40 "$TMP/OomHook.class" > "$TMP/cut.class"
  run "$TOOL" "$TMP/cut.class" "$TMP/out.class" a b '()V'
  [ "$status" -eq 1 ]
}

@test "run --shim: an error made in a method is told, with where it was made; one kept from a static initializer is not" {
  start_bg p timeout 120 "$OOMSCOPE" run --shim -o "$TMP/run" -- java "$JAVA_DIR/hook/Prealloc.java" "$TMP/go"
  wait_for "$TMP/p.out" 'the shim is armed' 90
  touch "$TMP/go"
  wait_exit "$(cat "$TMP/p.pid")" 90
  grep -q '^done$' "$TMP/p.out"
  grep '"type":"oom"' "$TMP/run/timeline.jsonl"
  grep '"type":"oom"' "$TMP/run/timeline.jsonl" | jq -se 'length == 1 and .[0].source == "shim" and .[0].kind == "other"
    and .[0].message == "made now" and (.[0].java_stack[0] | startswith("Prealloc.makeOne"))'
  # never thrown, not the heap's: no dump
  ! grep -q '"type":"dump"' "$TMP/run/timeline.jsonl"
}
