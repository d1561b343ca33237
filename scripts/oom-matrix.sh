#!/usr/bin/env bash
# The moment of death for Java, measured: LeakyService in -Xmx256m leaking at
# several rates until it dies, watched by `oomscope run` with and without
# --shim, RUNS times each. Prints, per rate and mode, how many runs kept a
# heap dump whose analysis names the leak, and how full the heap was in each
# such dump (its objects' shallow size over the 256 MB max).
#   scripts/oom-matrix.sh [RUNS] [RATES...]     (default 3 runs; 5 20 60 150 MB/s)
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}; shift || true
rates=("$@"); [ ${#rates[@]} -gt 0 ] || rates=(5 20 60 150)
tmp=$(mktemp -d /tmp/oomscope-matrix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '| leak rate | mode | runs with a dump naming the leak | heap fullness of those dumps |\n|---|---|---|---|\n'
for rate in "${rates[@]}"; do
  for mode in plain shim; do
    got=0 full=()
    for r in $(seq 1 "$runs"); do
      d="$tmp/$rate-$mode-$r"
      extra=(); [ "$mode" = shim ] && extra=(--shim)
      timeout 600 ./oomscope run -q -o "$d" "${extra[@]}" --leak-if 'LeakyService$Session.closed==true' \
        -- java -Xmx256m tests/java/LeakyService.java --leak-mb-per-s "$rate" --max-mb 100000 > "$d.out" 2>&1
      f=$(grep -s '"type":"dump"' "$d/timeline.jsonl" |
          jq -r 'select(.ok and (.top_leak // "" | contains("SessionCache.CLOSED"))) | .seq' | head -n 1)
      if [ -n "$f" ]; then
        got=$((got + 1))
        full+=("$(jq -r '.runningInfo.shallowSize / 268435456 * 100 | floor | tostring + "%"' "$d/dump-$f.analysis.json")$(
                 grep '"type":"dump"' "$d/timeline.jsonl" | jq -r "select(.seq == $f) | if .when then \" (at the throw)\" else \"\" end")")
      fi
      rm -rf "$d"
    done
    printf '| %s MB/s | %s | %d of %d | %s |\n' "$rate" "$([ "$mode" = shim ] && echo "--shim" || echo "no shim")" \
      "$got" "$runs" "$(IFS=', '; echo "${full[*]:-}")"
  done
done
