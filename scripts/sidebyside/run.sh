#!/usr/bin/env bash
# run.sh BASE_URL URL_DIR [ROUNDS] [ROUTES...] — the issue-12 method: wrk, 2 threads × 16
# connections, 15 s per route, each route's URLs rotated (rotate.lua), ROUNDS rounds (3).
# Prints one line per route and round: req/s, mean, p50 and p99 latency, non-2xx responses, load
# average.
set -euo pipefail
base=${1:?base URL} dir=${2:?URL directory from urls.sh} rounds=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
routes=${*:-txs byacct byheight tx blocks block blockcur}
here=$(cd "$(dirname "$0")" && pwd)
for round in $(seq 1 "$rounds"); do
  for r in $routes; do
    out=$(wrk -t2 -c16 -d15s --latency -s "$here/rotate.lua" "$base" -- "$dir/$r.txt")
    awk -v r="$r" -v round="$round" -v ld="$(cut -d' ' -f1 /proc/loadavg)" '
      /Requests\/sec/ {rps=$2} $1=="Latency" && $2!="Distribution" {avg=$2}
      $1=="50%" {p50=$2} $1=="99%" {p99=$2} /Non-2xx/ {bad=$4}
      END {printf "round=%s route=%s rps=%s avg=%s p50=%s p99=%s non2xx=%d load=%s\n", round, r, rps, avg, p50, p99, bad, ld}' <<<"$out"
  done
done
