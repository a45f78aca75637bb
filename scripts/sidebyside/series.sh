#!/usr/bin/env bash
# series.sh ROLLGATE_BINARY URL_DIR DB... — one whole series of the issue-12 method: for each
# store DSN given, the API with its shipped response cache (64 MiB: the repeated URL, then every
# rotated route) and with the cache off (every rotated route), three rounds each, and the net/http
# ceiling (ceiling/main.go, fixed 1 KiB body) before the first and after every run. Prints run.sh's
# lines under a "== db=… cache_mb=…" header per run; summarize.awk turns them into medians.
set -euo pipefail
bin=${1:?rollgate binary} urls=${2:?URL directory from urls.sh}
shift 2
[ $# -gt 0 ] || { echo "series.sh: give at least one store DSN" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
port=18612
tmp=$(mktemp -d)
(cd "$here/ceiling" && go build -o "$tmp/ceiling" .)
"$tmp/ceiling" -listen 127.0.0.1:18699 &
ceilpid=$!
api=""
trap 'kill $ceilpid ${api:-} 2>/dev/null || true; rm -rf "$tmp"' EXIT
sleep 1
# Whatever else holds the port would be measured in its place.
kill -0 "$ceilpid" 2>/dev/null || { echo "series.sh: the ceiling server did not start (port 18699 taken?)" >&2; exit 1; }
ceiling() {
  echo "ceiling rps=$(wrk -t2 -c16 -d10s http://127.0.0.1:18699/ | awk '/Requests\/sec/ {print $2}') load=$(cut -d' ' -f1 /proc/loadavg)"
}
ceiling
for cache in 64 0; do
  for db in "$@"; do
    echo "== db=${db%%\?*} cache_mb=$cache $(date -u +%FT%TZ)"
    "$bin" indexer --mode api --vm-type evm --chain-id x --db "$db" --listen 127.0.0.1:$port \
      --response-cache-mb "$cache" --log-level warn &
    api=$!
    for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
    if [ "$cache" != 0 ]; then "$here/run.sh" "http://127.0.0.1:$port" "$urls" 3 same; fi
    "$here/run.sh" "http://127.0.0.1:$port" "$urls" 3
    kill "$api"; wait "$api" 2>/dev/null || true
    api=""
    ceiling
  done
done
