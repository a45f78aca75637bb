#!/usr/bin/env bash
# totop.sh ROLLGATE STORE [ROUNDS] — rollgate alone on the busy capture, quickly (no rollytics):
# seconds from spawn until /status height reaches the top, and until every mark (rich list,
# internal txs) does, with the indexer's CPU seconds at each, polling every 50 ms. STORE is
# sqlite or postgres (a fresh store each run: /tmp/totop.db, or database totop at $PG). Needs
# the replay already serving: `go run ./scripts/peerbench/replay -listen 127.0.0.1:18700`.
# Environment: REPLAY [http://127.0.0.1:18700] PORT [18711] TOP [752] EXTRA (more indexer flags)
#   PG [postgres://postgres@127.0.0.1:5432]
set -euo pipefail
BIN=$1 ST=$2 ROUNDS=${3:-1}
REPLAY=${REPLAY:-http://127.0.0.1:18700} PORT=${PORT:-18711} TOP=${TOP:-752} PG=${PG:-postgres://postgres@127.0.0.1:5432}
elapsed() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'; }
cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; } # utime+stime at 100 Hz
for _ in $(seq 1 "$ROUNDS"); do
  if [ "$ST" = postgres ]; then
    dropdb --maintenance-db="$PG/postgres" --if-exists totop 2>/dev/null
    createdb --maintenance-db="$PG/postgres" totop
    dsn="$PG/totop?sslmode=disable"
  else
    rm -f /tmp/totop.db /tmp/totop.db-wal /tmp/totop.db-shm
    dsn=sqlite:/tmp/totop.db
  fi
  "$BIN" migrate --db "$dsn" >/dev/null
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086 # EXTRA is words
  "$BIN" indexer --db "$dsn" --chain-id local-evm-1 --vm-type evm --listen "127.0.0.1:$PORT" \
    --rpc-url "$REPLAY" --rest-url "$REPLAY" --json-rpc-url "$REPLAY" --log-level warn ${EXTRA:-} >/tmp/totop.log 2>&1 &
  pid=$!
  top=NA ctop=NA all=NA call=NA
  while kill -0 "$pid" 2>/dev/null; do
    body=$(curl -sf --max-time 1 "http://127.0.0.1:$PORT/status" 2>/dev/null || true)
    if [ -n "$body" ]; then # jq 1.6 -e exits 0 on empty input
      if [ "$top" = NA ] && jq -e "(.height // 0) >= $TOP" >/dev/null 2>&1 <<<"$body"; then top=$(elapsed "$t0") ctop=$(cpu "$pid"); fi
      if jq -e "(.height // 0) >= $TOP and (.rich_list_height // 0) >= $TOP and (.internal_tx_height // 0) >= $TOP" >/dev/null 2>&1 <<<"$body"; then
        all=$(elapsed "$t0") call=$(cpu "$pid")
        break
      fi
    fi
    if awk -v t="$(elapsed "$t0")" 'BEGIN { exit !(t > 60) }'; then break; fi
    sleep 0.05
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$ST top=$top all=$all cpu_top=$ctop cpu_all=$call load=$(cut -d' ' -f1 /proc/loadavg)"
done
