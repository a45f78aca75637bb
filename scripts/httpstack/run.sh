#!/usr/bin/env bash
# run.sh [OUT_DIR] — what a faster HTTP stack would give rollgate's API on this machine (issue
# 21, item 3): the same fixed answer (1 KiB, rollgate's cached-answer headers) served by Go's
# net/http and by fasthttp, driven by wrk THREADS x CONNS for DURATION, the two alternating for
# ROUNDS rounds (order rotated), the machine's load printed beside each figure. Prints a
# markdown table: median req/s per stack, worst p99, and fasthttp over net/http.
# env [default]: ROUNDS [3] DURATION [10s] THREADS [2] CONNS [16] SIZE [1024] PORT [18698]
# Needs go and wrk (Debian: apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")"
OUT=${1:-$(mktemp -d)}
mkdir -p "$OUT"
ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-10s} THREADS=${THREADS:-2} CONNS=${CONNS:-16}
SIZE=${SIZE:-1024} PORT=${PORT:-18698}
command -v wrk >/dev/null || { echo "run.sh: needs wrk" >&2; exit 1; }
go build -o "$OUT/httpstack" .
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; true' EXIT
one() { # STACK ROUND
  "$OUT/httpstack" -stack "$1" -listen "127.0.0.1:$PORT" -size "$SIZE" >"$OUT/$1.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 50); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency "http://127.0.0.1:$PORT/" >"$OUT/wrk-$1-$2.txt"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
  awk -v s="$1" -v l="$load" '/Requests\/sec/ {r=$2} /^ +99%/ {p=$2} END {print s, r, p, l}' "$OUT/wrk-$1-$2.txt" >>"$OUT/results.txt"
}
: >"$OUT/results.txt"
echo "machine: $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg); wrk -t$THREADS -c$CONNS -d$DURATION, $SIZE-byte answer"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then one nethttp "$r"; one fasthttp "$r"; else one fasthttp "$r"; one nethttp "$r"; fi
done
awk '
  function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
  { n[$1]++; r[$1, n[$1]] = $2; p = ms($3); if (p > worst[$1]) worst[$1] = p; loads = loads " " $4 }
  END {
    for (s in n) { k = n[s]; for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (r[s, j] < r[s, i]) { t = r[s, i]; r[s, i] = r[s, j]; r[s, j] = t }
      med[s] = (k % 2) ? r[s, (k + 1) / 2] : (r[s, k / 2] + r[s, k / 2 + 1]) / 2 }
    print "| stack | median req/s | worst p99 (ms) |"; print "|---|---:|---:|"
    printf "| net/http | %.0f | %.2f |\n| fasthttp | %.0f | %.2f |\n", med["nethttp"], worst["nethttp"], med["fasthttp"], worst["fasthttp"]
    printf "\nfasthttp / net/http: x%.2f (load at each run start:%s)\n", med["fasthttp"] / med["nethttp"], loads
  }' "$OUT/results.txt"
