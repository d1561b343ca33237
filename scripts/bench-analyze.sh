#!/usr/bin/env bash
# `make bench`, analyzer part: `oomscope analyze` against VisualVM's heap
# library computing the same retained sizes (tests/java/VisualVMRetained.java),
# on every corpus dump and on a dump of at least 1 GB with millions of objects
# taken in this run from tests/java/HeapFiller.java. Times are wall clock of
# the default analysis (MAT's model), RSS is peak resident memory
# (/usr/bin/time); the retained sizes of every object are compared too, with
# --retained-model visualvm (they must be equal).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/oomscope-bench-analyze.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
LIVE_MB=${LIVE_MB_ANALYZE:-${LIVE_MB:-720}}   # about 1.1 GB of dump
VV_LIMIT=${VV_LIMIT:-3600} # seconds VisualVM may take on one dump

# "SECONDS PEAK_RSS_KB" of CMD into FILE, as `/usr/bin/time -f "%e %M"`
# (python3 where there is no /usr/bin/time: the arm64 VM's image)
time_into() { # FILE CMD...
  if [ -x /usr/bin/time ]; then /usr/bin/time -f "%e %M" -o "$@"; return; fi
  python3 -c 'import resource, subprocess, sys, time
t = time.monotonic(); st = subprocess.call(sys.argv[2:]); t = time.monotonic() - t
open(sys.argv[1], "w").write("%.2f %d\n" % (t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(st)' "$@"
}

timed() { # NAME CMD...: sets T_<NAME> (s) and RSS_<NAME> (MB); CMD's status
  local name=$1; shift
  time_into "$tmp/time" "$@" || return 1
  read -r t r < "$tmp/time"
  printf -v "T_$name" '%s' "$t"; printf -v "RSS_$name" '%s' "$(echo "scale=0; $r / 1024" | bc)"
}

timed_median() { # NAME CMD...: timed, run three times; the median time, the largest RSS
  local name=$1 ts=() rmax=0 i t r; shift
  for i in 1 2 3; do
    timed "$name" "$@" || return 1
    t=T_$name; r=RSS_$name; ts+=("${!t}"); [ "${!r}" -gt "$rmax" ] && rmax=${!r}
  done
  printf -v "T_$name" '%s' "$(printf '%s\n' "${ts[@]}" | sort -g | sed -n 2p)"
  printf -v "RSS_$name" '%s' "$rmax"
}

row() { # NAME FILE
  local f=$2 objs same
  cat "$f" > /dev/null # page cache for both
  # timed as a user runs it, the median of three runs (this VM's speed
  # drifts by up to 1.5x within minutes); the table of every object's sizes
  # (for the comparison, 21 M lines on the big dump) in a further, untimed run
  timed_median ours ./oomscope analyze -q --json -o "$tmp/a.json" "$f"
  ./oomscope analyze -q -o /dev/null --retained-model visualvm --retained-tsv "$tmp/ours.tsv" "$f"
  objs=$(jq .runningInfo.objects "$tmp/a.json")
  if ! RETAINED_TIMEOUT=$VV_LIMIT timed vv tests/hprof/retained_sizes.sh "$f" "$tmp/vv.tsv" > /dev/null; then
    # VisualVM did not finish in time: say so, with what it had used
    T_vv=">$VV_LIMIT"
    same="VisualVM gave up or timed out"
    printf '%-22s %9s %11s | %8s %8s | %9s %8s | %7s %7s | %s\n' "$1" \
      "$(echo "scale=0; $(stat -c %s "$f") / 1048576" | bc)" "$objs" "$T_ours" "$RSS_ours" "$T_vv" "-" \
      ">$(echo "scale=0; $VV_LIMIT / ($T_ours + 0.001)" | bc)x" \
      "$(echo "scale=2; $RSS_ours * 1048576 / $(stat -c %s "$f")" | bc)" "$same"
    return 0
  fi
  join -t $'\t' -o 1.3,2.3 <(cut -f1-3 "$tmp/vv.tsv" | sort) <(grep -v class "$tmp/ours.tsv" | cut -f1-3 | sort) |
    awk -F'\t' '$1 != $2 {d++} END {print d + 0}' > "$tmp/diff"
  same=$([ "$(cat "$tmp/diff")" = 0 ] && echo "all $(wc -l < "$tmp/vv.tsv") equal" || echo "$(cat "$tmp/diff") DIFFER")
  printf '%-22s %9s %11s | %8s %8s | %9s %8s | %7s %7s | %s\n' "$1" \
    "$(echo "scale=0; $(stat -c %s "$f") / 1048576" | bc)" "$objs" "$T_ours" "$RSS_ours" "$T_vv" "$RSS_vv" \
    "$(echo "scale=1; $T_vv / ($T_ours + 0.001)" | bc)x" \
    "$(echo "scale=2; $RSS_ours * 1048576 / $(stat -c %s "$f")" | bc)" "$same"
  rm -f "$tmp/ours.tsv" "$tmp/vv.tsv"
}

# SHAPES_ONLY=1: only the shapes' table (below)
if [ "${SHAPES_ONLY:-0}" != 1 ]; then
  echo
  echo "analyze: oomscope analyze vs VisualVM's heap library (load + retained sizes), same files, same run"
  printf '%-22s %9s %11s | %8s %8s | %9s %8s | %7s %7s | %s\n' dump "dump MB" objects "ours s" "RSS MB" \
    "VisualVM s" "RSS MB" speedup "RSS/dump" "retained sizes"
  scripts/corpus.sh # build/corpus, as make corpus lays it out
  for f in build/corpus/hprof/*.hprof build/corpus/hprof-world/*.hprof; do
    row "$(basename "$f" .hprof)" "$f"
  done
  JAVA_XMX=$((LIVE_MB * 3 + 512))m tests/hprof/java_dump.sh "$tmp/big.hprof" HeapFiller --live-mb "$LIVE_MB" --seconds 900
  row "jvm-${LIVE_MB}MB-live" "$tmp/big.hprof"
  # issue 14's goal on this dump: peak RSS at most half the dump, at most 6 s
  half=$(echo "$RSS_ours * 1048576 <= $(stat -c %s "$tmp/big.hprof") / 2" | bc)
  fast=$(echo "$T_ours <= 6" | bc)
  echo "goal on the big dump: peak RSS <= 0.5 x dump: $([ "$half" = 1 ] && echo met || echo NOT met) ($RSS_ours MB);" \
    "wall time <= 6 s: $([ "$fast" = 1 ] && echo met || echo NOT met) ($T_ours s)"
  rm -f "$tmp/big.hprof"
fi

# The scale goal on every heap shape (tests/java/HeapShapes.java: long chains,
# wide arrays, deep trees, many small classes, a few huge arrays; a dump of
# about 1 GB each, taken in this run): the whole analysis (`oomscope analyze`)
# within 3x the time of `oomscope hprof check` (which reads and validates the
# whole file) on the same cached file, and peak RSS at most half the file.
# Both are the median of three runs (RSS: the largest). VisualVM's heap
# library's time on the same file is the before, where it finishes within
# SHAPES_VV_LIMIT seconds (default 900; SHAPES_VV=0 leaves it out); when it
# does, every object's retained size is compared too (as above).
#   SHAPES="chains wide ..."  the shapes to run (default all five)
#   SHAPES_MB=N               HeapShapes --mb N for every shape (live heap in
#                             MB; QUICK=1: 24); unset: each shape's default
#   SHAPES_DIR=DIR            keep the dumps as DIR/SHAPE.hprof and use the
#                             ones already there (default: taken, then removed)
#   OOMSCOPE=PATH             the binary measured in this table (./oomscope)
SHAPES=${SHAPES:-chains wide deep classes huge}
[ "${QUICK:-0}" = 1 ] && SHAPES_MB=${SHAPES_MB:-24}
SHAPES_MB=${SHAPES_MB:-}
SHAPES_VV=${SHAPES_VV:-1}
SHAPES_VV_LIMIT=${SHAPES_VV_LIMIT:-900}
SHAPES_DIR=${SHAPES_DIR:-}
OOMSCOPE=${OOMSCOPE:-./oomscope}

shape_row() { # SHAPE FILE
  local shape=$1 f=$2 size objs ratio ratio2 share goal vv_s=- vv_rss=- speedup=- same=- st=0
  size=$(stat -c %s "$f")
  cat "$f" > /dev/null # page cache for all
  timed_median check "$OOMSCOPE" hprof check "$f" > "$tmp/check.txt" 2> "$tmp/check.err" ||
    { cat "$tmp/check.err" >&2; return 1; } # (its progress, on a terminal: the VM's console)
  objs=$(awk '$1 == "objects" {print $2; exit}' "$tmp/check.txt")
  # the goal is single-threaded; two threads (the dominator search beside the
  # shortest paths) is the second column
  timed_median shape "$OOMSCOPE" analyze -q --threads 1 -o /dev/null "$f"
  timed_median shape2 "$OOMSCOPE" analyze -q --threads 2 -o /dev/null "$f"
  [ "$RSS_shape2" -gt "$RSS_shape" ] && RSS_shape=$RSS_shape2
  ratio=$(echo "scale=2; $T_shape / ($T_check + 0.001)" | bc)
  ratio2=$(echo "scale=2; $T_shape2 / ($T_check + 0.001)" | bc)
  share=$(echo "scale=2; $RSS_shape * 1048576 / $size" | bc)
  goal=$([ "$(echo "$T_shape <= 3 * $T_check && $RSS_shape * 1048576 <= $size / 2" | bc)" = 1 ] && echo met || echo "NOT met")
  if [ "$SHAPES_VV" = 1 ]; then
    RETAINED_TIMEOUT=$SHAPES_VV_LIMIT /usr/bin/time -f "%e %M" -o "$tmp/time" \
      tests/hprof/retained_sizes.sh "$f" "$tmp/vv.tsv" > /dev/null 2> "$tmp/vv.err" || st=$?
    if [ "$st" = 0 ]; then
      read -r vv_s vv_rss < <(tail -n 1 "$tmp/time")
      vv_rss=$(echo "scale=0; $vv_rss / 1024" | bc)
      speedup=$(echo "scale=1; $vv_s / ($T_shape + 0.001)" | bc)x
      "$OOMSCOPE" analyze -q -o /dev/null --retained-model visualvm --retained-tsv "$tmp/ours.tsv" "$f"
      join -t $'\t' -o 1.3,2.3 <(cut -f1-3 "$tmp/vv.tsv" | sort) <(grep -v class "$tmp/ours.tsv" | cut -f1-3 | sort) |
        awk -F'\t' '$1 != $2 {d++} END {print d + 0}' > "$tmp/diff"
      same=$([ "$(cat "$tmp/diff")" = 0 ] && echo "all $(wc -l < "$tmp/vv.tsv") equal" || echo "$(cat "$tmp/diff") DIFFER")
    elif [ "$st" = 124 ]; then
      vv_s=">$SHAPES_VV_LIMIT" speedup=">$(echo "scale=0; $SHAPES_VV_LIMIT / ($T_shape + 0.001)" | bc)x"
      same="VisualVM timed out"
    else
      vv_s=failed same="VisualVM failed ($st): $(grep -v '^\s' "$tmp/vv.err" | tail -n 1 | cut -c1-60)"
    fi
    rm -f "$tmp/ours.tsv" "$tmp/vv.tsv"
  fi
  printf '%-8s %8s %10s | %7s | %9s %6sx | %9s %6sx | %7s %8s | %-7s | %10s %7s %8s | %s\n' "$shape" \
    "$(echo "scale=0; $size / 1048576" | bc)" "$objs" "$T_check" "$T_shape" "$ratio" "$T_shape2" "$ratio2" \
    "$RSS_shape" "$share" "$goal" "$vv_s" "$vv_rss" "$speedup" "$same"
}

echo
echo "shapes: oomscope analyze against oomscope hprof check on the same cached dump of each heap shape" \
  "(goal: at most 3x its time on one thread, peak RSS at most half the dump), VisualVM's heap library the before"
printf '%-8s %8s %10s | %7s | %9s %7s | %9s %7s | %7s %8s | %-7s | %10s %7s %8s | %s\n' shape "dump MB" objects "check s" \
  "1 thread" ratio "2 threads" ratio "RSS MB" "RSS/dump" goal "VisualVM s" "RSS MB" speedup "retained sizes"
for shape in $SHAPES; do
  if [ -n "$SHAPES_DIR" ]; then f=$SHAPES_DIR/$shape.hprof; else f=$tmp/$shape.hprof; fi
  if [ -z "$SHAPES_DIR" ] || [ ! -s "$f" ]; then
    # a heap of up to about 760 MB live (the shapes' defaults) in a JVM of 4 GB
    xmx=4096; [ -n "$SHAPES_MB" ] && xmx=$((SHAPES_MB * 3 + 1024))
    JAVA_XMX=${xmx}m tests/hprof/java_dump.sh "$f" HeapShapes --shape "$shape" ${SHAPES_MB:+--mb "$SHAPES_MB"} --seconds 900
  fi
  shape_row "$shape" "$f"
  [ -n "$SHAPES_DIR" ] || rm -f "$f"
done
