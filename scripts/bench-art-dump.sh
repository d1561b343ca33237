#!/usr/bin/env bash
# `make bench`, real ART's part (make art, scripts/art.sh): the app's pause while its heap is
# dumped, on ART 11 (interpreted, no boot image) with LIVE_MB (default 200; QUICK: 60) MB live
# in a static list: ART's own dump (dalvik.system.VMDebug.dumpHprofData in the app, what `am
# dumpheap` runs: the app is suspended for the whole dump) against oomscope's fork-dump (the
# shim suspends ART for the fork, the copy dumps with ART's own DumpHeap). The median of REPS.
set -euo pipefail
cd "$(dirname "$0")/.."
LIVE_MB=${LIVE_MB_ART:-$([ "${QUICK:-0}" = 1 ] && echo 60 || echo 200)}
REPS=${REPS:-3}
scripts/art.sh > /dev/null
ART=build/art
tmp=$(mktemp -d /tmp/oomscope-bench-art.XXXXXX)
app=
cleanup() {
  [ -z "$app" ] || { kill -KILL "$app" 2> /dev/null || true; wait "$app" 2> /dev/null || true; }
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/cls"
javac -source 8 -target 8 -bootclasspath "$ART/framework/core-classes.jar" -nowarn -Xlint:none -d "$tmp/cls" \
  tests/java-art/ArtApp.java 2> /dev/null
"$ART/bin/dex" "$tmp/app.jar" "$tmp/cls"
xmx=$((LIVE_MB * 2 + 64))m
median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# ART's own: the app times dumpHprofData around the call (it is the pause: ART suspends every thread for it)
own=
for r in $(seq 1 "$REPS"); do
  "$ART/bin/dalvikvm" -Xmx"$xmx" -cp "$tmp/app.jar" ArtApp --leak-mb-per-s 1000 --max-mb "$LIVE_MB" --seconds 600 \
    --dump-at-mb "$LIVE_MB" "$tmp/own.hprof" > "$tmp/own.out" 2>&1 &
  app=$!
  for _ in $(seq 1 3000); do grep -q '^dumped ' "$tmp/own.out" && break; sleep 0.1; done
  own+="$(sed -n 's/^dumped .* in \([0-9]*\) ms$/\1/p' "$tmp/own.out") "
  own_size=$(stat -c %s "$tmp/own.hprof")
  kill -KILL "$app"; wait "$app" 2> /dev/null || true; app=
  rm -f "$tmp/own.hprof"
done

# oomscope's fork-dump: the shim at the VM's start, the leak made, then `oomscope dump` (its pause: ART suspended)
fork= files=
"$ART/bin/dalvikvm" -Xmx"$xmx" -Xplugin:libopenjdkjvmti.so -agentpath:"$PWD/build/liboomscope_shim.so" \
  -cp "$tmp/app.jar" ArtApp --leak-mb-per-s 1000 --max-mb "$LIVE_MB" --seconds 600 > "$tmp/app.out" 2>&1 &
app=$!
for _ in $(seq 1 3000); do grep -q "^leaked_mb=$LIVE_MB$" "$tmp/app.out" && break; sleep 0.1; done
for r in $(seq 1 "$REPS"); do
  ./oomscope dump -p "$app" --method shim --no-analyze -o "$tmp/fork-$r.hprof.gz" > "$tmp/dump.out" 2>&1 ||
    { echo "bench-art-dump: $(cat "$tmp/dump.out")" >&2; exit 1; }
  fork+="$(sed -n 's/^pause     \([0-9.]*\) ms.*/\1/p' "$tmp/dump.out") "
  files+="$(sed -n 's/^dump .*: [0-9.]* MB of hprof -> \([0-9.]*\) MB.*/\1/p' "$tmp/dump.out") "
done
p_own=$(printf '%s\n' $own | median)
p_fork=$(printf '%s\n' $fork | median)

echo
echo "heap dump pause on real ART (ART 11 interpreted, make art): ArtApp, $LIVE_MB MB live in a static list"
printf '%-56s %12s %9s %10s\n' "dump" "app pause" "ratio" "file"
printf '%-56s %9.0f ms %8.3fx %7.1f MB\n' "VMDebug.dumpHprofData (ART's own; am dumpheap runs it)" "$p_own" 1 "$(echo "$own_size / 1048576" | bc -l)"
printf '%-56s %9.0f ms %8.3fx %7.1f MB\n' "oomscope dump --method shim (fork-dump)" "$p_fork" "$(echo "$p_fork / $p_own" | bc -l)" \
  "$(printf '%s\n' $files | median)"
echo "(median of $REPS; ART's own: the app's time around the call, every thread suspended for it; the fork-dump:"
echo " ART suspended for the fork, its copy dumping while the app runs; oomscope's file stripped and gzip -1)"
