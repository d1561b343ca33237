# tests/hprof/ref_cache.sh: sourced by the scripts that run an independent
# implementation on a dump (VisualVM's heap library, the MAT-graph
# reference): their answer kept in RETAINED_CACHE (the test runner sets it:
# per machine, beside the VM images) under a key of everything the answer
# depends on, and given again for the same inputs. The corpus does not change
# between runs, so neither do these answers; a changed input (the dump, our
# shallow sizes the reference takes, the reader's source, the library, the
# JVM) is another key.

# ref_key FILE...: the key of these files' bytes and the JVM's version
ref_key() {
  { for f in "$@"; do sha256sum < "$f"; done; java -version 2>&1; } | sha256sum | cut -c1-32
}

# ref_get KEY [OUT]: the kept answer (its stdout printed, its file copied to
# OUT when given); 1 when none is kept
ref_get() {
  [ -n "${RETAINED_CACHE:-}" ] && [ -f "$RETAINED_CACHE/$1.out" ] || return 1
  if [ -n "${2:-}" ]; then
    [ -s "$RETAINED_CACHE/$1.tsv" ] || return 1
    cp "$RETAINED_CACHE/$1.tsv" "$2"
  fi
  cat "$RETAINED_CACHE/$1.out"
}

# ref_put KEY STDOUT_FILE [OUT]: the answer kept, whole files or none (a
# temp name, then renamed: two runs at once never read half of one)
ref_put() {
  [ -n "${RETAINED_CACHE:-}" ] && mkdir -p "$RETAINED_CACHE" || return 0
  if [ -n "${3:-}" ]; then
    cp "$3" "$RETAINED_CACHE/.$1.tsv.$$" && mv "$RETAINED_CACHE/.$1.tsv.$$" "$RETAINED_CACHE/$1.tsv" || return 0
  fi
  cp "$2" "$RETAINED_CACHE/.$1.out.$$" && mv "$RETAINED_CACHE/.$1.out.$$" "$RETAINED_CACHE/$1.out"
}
