# The heap dump corpus the tests read (load helpers first): build/corpus/,
# laid out by `make corpus` (scripts/corpus.sh) from tests/corpus/ and the
# dump of javac that each machine makes once with its JDK
# (tests/corpus/make-javac-oom.sh). Each folder's MANIFEST.md holds what
# VisualVM's heap library says of its dumps: the figures the tests compare
# with (javac's computed when it was made, on this machine).

CORPUS="$ROOT/build/corpus/hprof"
WORLD="$ROOT/build/corpus/hprof-world"

# corpus_ready: fails, saying why, when the corpus is not laid out (a test
# that reads it fails then: it is never skipped)
corpus_ready() {
  [ -s "$CORPUS/MANIFEST.md" ] && [ -s "$WORLD/MANIFEST.md" ] && return 0
  echo "# no heap dump corpus in $ROOT/build/corpus: run make corpus" >&3
  return 1
}

# corpus_figures DUMP: VisualVM's figures for DUMP (a .gz: its content's) from
# its folder's MANIFEST, as "INSTANCES BYTES CLASSES R1 R2 R3" (R: the three
# largest retained sizes); fails when the MANIFEST has no such row
corpus_figures() {
  local name row
  name=$(basename "$1" .gz)
  row=$(awk -F'|' -v f="$name" '{ n = $2; gsub(/ /, "", n) } n == f && /·/ { print; exit }' "$(dirname "$1")/MANIFEST.md")
  [ -n "$row" ] || { echo "# $name: no figures in $(dirname "$1")/MANIFEST.md" >&3; return 1; }
  awk -F'|' '{ for (i = 3; i <= 6; i++) { gsub(/[ ,]/, "", $i); gsub(/·/, " ", $i) } print $3, $4, $5, $6 }' <<< "$row"
}
