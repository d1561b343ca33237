#!/usr/bin/env bash
# `make bench`, analyzer part: `oomscope analyze` against VisualVM's heap
# library computing the same retained sizes (tests/java/VisualVMRetained.java),
# on every corpus dump and on a dump of at least 1 GB with millions of objects
# taken in this run from tests/java/HeapFiller.java. Times are wall clock,
# RSS is peak resident memory (/usr/bin/time); the retained sizes of every
# object are compared too (they must be equal).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d /tmp/oomscope-bench-analyze.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
LIVE_MB=${LIVE_MB_ANALYZE:-${LIVE_MB:-720}}   # about 1.1 GB of dump
VV_LIMIT=${VV_LIMIT:-3600} # seconds VisualVM may take on one dump

timed() { # NAME CMD...: sets T_<NAME> (s) and RSS_<NAME> (MB); CMD's status
  local name=$1; shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" || return 1
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
  ./oomscope analyze -q -o /dev/null --retained-tsv "$tmp/ours.tsv" "$f"
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

echo
echo "analyze: oomscope analyze vs VisualVM's heap library (load + retained sizes), same files, same run"
printf '%-22s %9s %11s | %8s %8s | %9s %8s | %7s %7s | %s\n' dump "dump MB" objects "ours s" "RSS MB" \
  "VisualVM s" "RSS MB" speedup "RSS/dump" "retained sizes"
for f in ../shared/corpus/hprof/*.hprof ../shared/corpus/hprof-world/*.hprof; do
  row "$(basename "$f" .hprof)" "$f"
done
JAVA_XMX=$((LIVE_MB * 3 + 512))m tests/hprof/java_dump.sh "$tmp/big.hprof" HeapFiller --live-mb "$LIVE_MB" --seconds 900
row "jvm-${LIVE_MB}MB-live" "$tmp/big.hprof"
# issue 14's goal on this dump: peak RSS at most half the dump, at most 6 s
half=$(echo "$RSS_ours * 1048576 <= $(stat -c %s "$tmp/big.hprof") / 2" | bc)
fast=$(echo "$T_ours <= 6" | bc)
echo "goal on the big dump: peak RSS <= 0.5 x dump: $([ "$half" = 1 ] && echo met || echo NOT met) ($RSS_ours MB);" \
  "wall time <= 6 s: $([ "$fast" = 1 ] && echo met || echo NOT met) ($T_ours s)"
