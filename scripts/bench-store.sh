#!/usr/bin/env bash
# `make bench`, the lab's store (issue 34): runs added per second to SQLite
# and to PostgreSQL (a throwaway server, scripts/pg-throwaway.sh), one adder
# and four at once, then each of the lab's questions timed over STORE_RUNS
# (default 10,000) runs: median of 3, in ms (the goal: each under 200 ms on
# PostgreSQL). The runs are copies of two real ones (an fd burst made here
# and a recorded Java run with a leak) under their own ids and labels
# (build: 100 values, device: 5), made and added in batches.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench: run as root (BPF, the PostgreSQL server's user)" >&2; exit 1; }
RUNS=${STORE_RUNS:-10000}
BATCH=500
tmp=$(mktemp -d /tmp/oomscope-bench-store.XXXXXX)
pgdir=$(mktemp -d /tmp/oomscope-bench-pg.XXXXXX) # its own: nobody (the server's user) must reach it
cleanup() { scripts/pg-throwaway.sh stop "$pgdir" 2> /dev/null || true; rm -rf "$tmp" "$pgdir"; }
trap cleanup EXIT
now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

./oomscope run -q -o "$tmp/t0" -- build/targets/death_target fds > /dev/null 2>&1 || true
cp -r tests/fixtures/run-leakyservice "$tmp/t1"
pg=$(scripts/pg-throwaway.sh start "$pgdir")
pg=$(scripts/pg-throwaway.sh createdb "$pgdir" bench)

# batch FROM COUNT: run directories FROM.. under $tmp/b (made anew)
batch() {
  rm -rf "$tmp/b"
  python3 - "$tmp" "$1" "$2" "$RUNS" << 'PY'
import json, os, shutil, sys
tmp, first, n, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for i in range(first, first + n):
    src = os.path.join(tmp, "t%d" % (i % 2))
    dst = os.path.join(tmp, "b", "r%d" % i)
    shutil.copytree(src, dst)
    with open(os.path.join(src, "timeline.jsonl")) as f:
        lines = f.readlines()
    start = json.loads(lines[0])
    start["run_id"] = os.urandom(16).hex()
    start["labels"] = {"build": str(4000 + i * 100 // runs), "device": "d%d" % (i % 5)}
    start["wall_time"] = "2026-%02d-%02dT10:00:00Z" % (1 + i % 12, 1 + i % 28)
    lines[0] = json.dumps(start, separators=(",", ":")) + "\n"
    with open(os.path.join(dst, "timeline.jsonl"), "w") as f:
        f.writelines(lines)
PY
}

declare -A rate
# add DB ADDERS: every run in batches, ADDERS processes at once; runs a second
add() {
  local db=$1 adders=$2 done=0 t=0 t0 p n
  while [ "$done" -lt "$RUNS" ]; do
    n=$((RUNS - done < BATCH ? RUNS - done : BATCH))
    batch "$done" "$n"
    t0=$(now)
    local pids=()
    for p in $(seq 0 $((adders - 1))); do
      ./oomscope aggregate --db "$db" $(ls -d "$tmp"/b/r* | awk -v p="$p" -v a="$adders" 'NR % a == p') > /dev/null &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; done
    t=$(echo "$t + $(now) - $t0" | bc -l)
    done=$((done + n))
  done
  echo "$RUNS / $t" | bc -l
}

rate[sqlite1]=$(add "$tmp/lab.sqlite" 1)
rate[pg1]=$(add "$pg" 1)
# the same runs again, four at once (each run's rows replaced)
rate[sqlite4]=$(add "$tmp/lab.sqlite" 4)
rate[pg4]=$(add "$pg" 4)

fds=$(./oomscope aggregate --db "$tmp/lab.sqlite" --json --signatures | jq -r '[.rows[] | select(.kind == "fds")][0].signature')
queries=("leaks|" "signatures|--signatures" "signatures, one device|--signatures --where device=d1"
  "new in a build|--new-in build=4099 --since build=4098" "a signature's history|--history $fds --across build"
  "deaths per device|--deaths --across device")
printf '\n%-40s %12s %12s\n' "the lab's store ($RUNS runs)" SQLite PostgreSQL
printf '%-40s %12.0f %12.0f\n' "runs added a second, one adder" "${rate[sqlite1]}" "${rate[pg1]}"
printf '%-40s %12.0f %12.0f\n' "runs added a second, four at once" "${rate[sqlite4]}" "${rate[pg4]}"
for q in "${queries[@]}"; do
  name=${q%%|*} args=${q#*|}
  row=()
  for db in "$tmp/lab.sqlite" "$pg"; do
    ms=$(for _ in 1 2 3; do t0=$(now); ./oomscope aggregate --db "$db" $args > /dev/null; echo "($(now) - $t0) * 1000" | bc -l; done | median)
    row+=("$ms")
  done
  printf '%-40s %10.0f ms %9.0f ms\n' "$name" "${row[0]}" "${row[1]}"
done
