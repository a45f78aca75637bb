#!/usr/bin/env bash
# peerbench.sh ROLLYTICS_GIT_DIR OUT_DIR — rollgate and initia-labs/rollytics, measured
# in one run on this machine: the same captured chain, the same store kinds, the same load
# generator, servers alternating, and the HTTP ceiling measured between them. Every ratio
# it prints is computed from this run's figures only: figures of other days and hosts are
# history, never a denominator.
#
# Prerequisite (the repository does not download rollytics): a git directory of rollytics that
# holds the pinned commit, e.g.
#   git clone https://github.com/initia-labs/rollytics /tmp/rollytics   (or a snapshot of it)
# The script checks that ROLLYTICS_COMMIT is there and builds exactly that commit.
#
# What it does:
#  1. builds rollgate (./cmd/rollgate), the ceiling (scripts/sidebyside/ceiling), the capture
#     replay (scripts/peerbench/replay) and, from `git archive` of the pinned commit, rollytics,
#     patched only to listen on 127.0.0.1 instead of every interface;
#  2. serves the busy capture (testdata/fixtures/minievm-busy.tar.zst) over loopback, one
#     replay per indexer, and ingests it INGEST_RUNS times into fresh stores, alternating: the
#     rollytics on PostgreSQL (its own migrations applied before the clock starts), rollgate on
#     PostgreSQL, rollgate on SQLite (`rollgate migrate` first); each run is timed from spawn
#     until /status reaches every mark (height at the top, rich list at the top — rollytics'
#     at top-5 —, internal txs at the top unless PEER_WAIT_INTERNAL=0 for rollytics), with the
#     CPU seconds the indexer used until then, and when its height alone reached the top (every
#     extension still on: "to the top");
#  3. serves the last run's stores: rollytics' API (DB_IDLE_CONNS=PEER_IDLE_CONNS, 16: the
#     tuned rollytics), rollgate's API on each store with its shipped response cache, and the
#     ceiling; for ROUNDS rounds, every route both serve is driven by wrk THREADS x CONNS for
#     DURATION over rotated URLs (scripts/sidebyside/rotate.lua, URLs from urls.sh), the
#     servers one after the other in an order rotated each round; the ceilings (a fixed answer
#     of the route's own size) run once per route per round in the same rotation: "ceiling",
#     served by net/http, the issue's measure, and "ceiling-fasthttp", served by fasthttp, the
#     stack rollgate writes its cached answers with;
#  4. prints the tables (markdown): ingestion seconds and CPU, and per route the median req/s of
#     the rounds, the worst p99, rollgate over rollytics and rollgate over the ceiling.
#
# env [default]: ROLLYTICS_COMMIT [3a2b99d39afac6c645393c861b942eaf36b4ecbf, v1.0.55-4-g3a2b99d]
#   PG [postgres://postgres@127.0.0.1:5432] (trust auth; databases pb_peer, pb_rg are recreated)
#   STORES ["postgres sqlite"] (rollgate's stores)  INGEST_RUNS [1]  ROUNDS [3]  DURATION [15s]
#   THREADS [2]  CONNS [16]  ROUTES ["txs byacct byheight tx blocks block blockcur same"]
#   PEER_IDLE_CONNS [16]  PEER_WAIT_INTERNAL [1]  PEER_TIMEOUT [600] RG_TIMEOUT [300] (s per ingest)
#   PORT_BASE [23000] (ports PORT_BASE+1..+9 on 127.0.0.1)  PEER_BIN (a rollytics binary built by an
#   earlier run: skips the build)  SKIP_PEER [0] (1: rollgate and the ceiling only, to check
#   the script; no ratio to rollytics is printed)  KEEP [0] (1: keep the databases)
# Needs go, wrk, curl, jq, and for PostgreSQL psql, createdb, dropdb. Stops every process it
# started (by PID) on exit.
set -euo pipefail

[ $# -eq 2 ] || { sed -n '2,45p' "$0" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SBS=$ROOT/scripts/sidebyside
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
COMMIT=${ROLLYTICS_COMMIT:-3a2b99d39afac6c645393c861b942eaf36b4ecbf}
PG=${PG:-postgres://postgres@127.0.0.1:5432}
STORES=${STORES:-postgres sqlite}
INGEST_RUNS=${INGEST_RUNS:-1} ROUNDS=${ROUNDS:-3} DURATION=${DURATION:-15s}
THREADS=${THREADS:-2} CONNS=${CONNS:-16}
ROUTES=${ROUTES:-txs byacct byheight tx blocks block blockcur same}
PEER_IDLE_CONNS=${PEER_IDLE_CONNS:-16} PEER_WAIT_INTERNAL=${PEER_WAIT_INTERNAL:-1}
PEER_TIMEOUT=${PEER_TIMEOUT:-600} RG_TIMEOUT=${RG_TIMEOUT:-300}
PORT_BASE=${PORT_BASE:-23000} SKIP_PEER=${SKIP_PEER:-0} KEEP=${KEEP:-0}
CAPTURE=$ROOT/testdata/fixtures/minievm-busy.tar.zst

need() { for t in "$@"; do command -v "$t" >/dev/null || { echo "peerbench: needs $t" >&2; exit 1; }; done; }
need go wrk curl jq
case " $STORES " in *" postgres "*) need psql createdb dropdb ;; esac
[ "$SKIP_PEER" = 1 ] || need psql createdb dropdb

P_REPLAY_PEER=$((PORT_BASE + 1)) P_REPLAY_RG=$((PORT_BASE + 2)) P_CEIL=$((PORT_BASE + 3))
P_PEER_API=$((PORT_BASE + 4)) P_PEER_IDX=$((PORT_BASE + 5)) P_RG=$((PORT_BASE + 6)) P_CEIL_FAST=$((PORT_BASE + 9))

PIDS=() DBS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "$KEEP" != 1 ]; then for d in "${DBS[@]}"; do dropdb --maintenance-db="$PG/postgres" --if-exists "$d" 2>/dev/null || true; done; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
start() { # LOG CMD... : runs CMD in the background, its PID in $!
  "${@:2}" >"$1" 2>&1 &
  PIDS+=($!)
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
wait_http() { # URL SECONDS
  for _ in $(seq 1 $(($2 * 10))); do curl -sf -o /dev/null --max-time 2 "$1" && return 0; sleep 0.1; done
  echo "peerbench: $1 did not answer within $2 s" >&2; return 1
}
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in $(seq $((PORT_BASE + 1)) $((PORT_BASE + 9))); do
  port_free "$p" || { echo "peerbench: port $p is taken; set PORT_BASE" >&2; exit 1; }
done
cpu_seconds() { # PID: user+system CPU of the process so far
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"
}
load() { cut -d' ' -f1 /proc/loadavg; }

echo "== peerbench $(date -u +%FT%TZ) out=$OUT"
echo "machine: $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. builds --------------------------------------------------------------------------------
mkdir -p "$OUT/bin" "$OUT/logs" "$OUT/wrk"
(cd "$ROOT" && go build -ldflags "-X main.version=$(git rev-parse --short HEAD 2>/dev/null || echo dev) -X main.commit=$(git rev-parse HEAD 2>/dev/null)" \
  -o "$OUT/bin/rollgate" ./cmd/rollgate)
(cd "$ROOT" && go build -o "$OUT/bin/ceiling" ./scripts/sidebyside/ceiling && go build -o "$OUT/bin/replay" ./scripts/peerbench/replay)
echo "rollgate: $("$OUT/bin/rollgate" version 2>&1 | head -1)"
PEER=""
if [ "$SKIP_PEER" != 1 ]; then
  GIT_DIR_PEER=$1
  full=$(git --git-dir="$GIT_DIR_PEER" rev-parse --verify --quiet "$COMMIT^{commit}") ||
    { echo "peerbench: $GIT_DIR_PEER does not hold rollytics commit $COMMIT (clone or fetch it first)" >&2; exit 1; }
  SRC=$OUT/peer-src
  # The source is unpacked even with PEER_BIN: rollytics' migrations are applied from it.
  rm -rf "$SRC" && mkdir -p "$SRC"
  git --git-dir="$GIT_DIR_PEER" archive "$full" | tar -x -C "$SRC"
  if [ -n "${PEER_BIN:-}" ]; then
    PEER=$(realpath "$PEER_BIN")
  else
    # Rollytics' two servers listen on every interface; on a shared machine they must not.
    for f in api/api.go indexer/api/api.go; do
      [ "$(grep -c 'listenAddr := ":" + port' "$SRC/$f" || true)" = 1 ] ||
        { echo "peerbench: $f no longer has the one listen line the loopback edit expects" >&2; exit 1; }
      sed -i 's|listenAddr := ":" + port|listenAddr := "127.0.0.1:" + port|' "$SRC/$f"
    done
    t0=$(date +%s)
    (cd "$SRC" && go build -mod=readonly -trimpath -ldflags "-X main.Version=$(git --git-dir="$GIT_DIR_PEER" describe --tags "$full" 2>/dev/null || echo "${full:0:7}")+loopback -X main.CommitHash=$full" \
      -o "$OUT/bin/rollytics" ./cmd/rollytics)
    echo "peer built in $(($(date +%s) - t0)) s"
    PEER=$OUT/bin/rollytics
  fi
  ls "$SRC"/orm/migrations/*.sql >/dev/null 2>&1 || { echo "peerbench: no peer migrations under $SRC/orm/migrations" >&2; exit 1; }
  echo "peer: rollytics $full ($("$PEER" version 2>&1 | head -1))"
fi

# --- 2. ingestion -----------------------------------------------------------------------------
start "$OUT/logs/replay_peer.log" "$OUT/bin/replay" -capture "$CAPTURE" -listen "127.0.0.1:$P_REPLAY_PEER"
start "$OUT/logs/replay_rg.log" "$OUT/bin/replay" -capture "$CAPTURE" -listen "127.0.0.1:$P_REPLAY_RG"
wait_http "http://127.0.0.1:$P_REPLAY_PEER/status" 120
wait_http "http://127.0.0.1:$P_REPLAY_RG/status" 120
status=$(curl -sf "http://127.0.0.1:$P_REPLAY_RG/status")
TOP=$(jq -r '.result.sync_info.latest_block_height' <<<"$status")
CHAIN=$(jq -r '.result.node_info.network' <<<"$status")
echo "capture: busy, chain $CHAIN, top height $TOP"

fresh_db() { dropdb --maintenance-db="$PG/postgres" --if-exists "$1"; createdb --maintenance-db="$PG/postgres" "$1"; DBS+=("$1"); }
peer_env() { # DB PORT_API PORT_IDX: rollytics' configuration, as environment
  echo DB_DSN="$PG/$1?sslmode=disable" CHAIN_ID="$CHAIN" VM_TYPE=evm \
    RPC_URL="http://127.0.0.1:$P_REPLAY_PEER" REST_URL="http://127.0.0.1:$P_REPLAY_PEER" \
    JSON_RPC_URL="http://127.0.0.1:$P_REPLAY_PEER" DB_AUTO_MIGRATE=false PORT="$2" INDEXER_PORT="$3" \
    LOG_LEVEL=warn METRICS_ENABLED=false
}
rg_dsn() { case $1 in postgres) echo "$PG/pb_rg?sslmode=disable" ;; sqlite) echo "sqlite:$OUT/pb_rg.db" ;; esac; }
# ingest NAME STATUS_URL MARKS TIMEOUT CMD...: times CMD from spawn until every mark
# (field>=value, comma-separated) holds in its /status; prints NAME seconds cpu
ingest() {
  local name=$1 url=$2 marks=$3 timeout=$4; shift 4
  local t0 t1 pid ok cond
  cond=$(tr ',' '\n' <<<"$marks" | sed 's/^\(.*\)>=\(.*\)$/(.\1 \/\/ 0) >= \2/' | paste -sd'&' | sed 's/&/ and /g')
  local top_at=NA body
  t0=$(date +%s.%N)
  start "$OUT/logs/ingest_$name.log" "$@"
  pid=$!
  ok=0
  while kill -0 "$pid" 2>/dev/null; do
    body=$(curl -sf --max-time 1 "$url" 2>/dev/null || true)
    # When the height alone reached the top (every extension still on): "to the top". An
    # empty body is no answer (jq 1.6 -e exits 0 on empty input, which read as every mark).
    if [ -n "$body" ] && [ "$top_at" = NA ] && jq -e "(.height // 0) >= $TOP" >/dev/null 2>&1 <<<"$body"; then
      top_at=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    fi
    if [ -n "$body" ] && jq -e "$cond" >/dev/null 2>&1 <<<"$body"; then ok=1; break; fi
    t1=$(date +%s.%N)
    if awk -v a="$t0" -v b="$t1" -v t="$timeout" 'BEGIN { exit !(b - a > t) }'; then break; fi
    sleep 0.05
  done
  t1=$(date +%s.%N)
  local cpu=NA
  [ "$ok" = 1 ] && cpu=$(cpu_seconds "$pid")
  stop "$pid"
  if [ "$ok" = 1 ]; then
    printf 'ingest %s seconds=%.2f top=%s cpu=%s load=%s\n' "$name" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" "$top_at" "$cpu" "$(load)"
  else
    printf 'ingest %s seconds=NA cpu=NA load=%s (no marks %s within %s s; see logs/ingest_%s.log)\n' "$name" "$(load)" "$marks" "$timeout" "$name"
  fi
}
RESULTS=$OUT/results.txt
: >"$RESULTS"
peer_marks="height>=$TOP,rich_list_height>=$((TOP - 5))"
[ "$PEER_WAIT_INTERNAL" = 1 ] && peer_marks="$peer_marks,internal_tx_height>=$TOP"
rg_marks="height>=$TOP,rich_list_height>=$TOP,internal_tx_height>=$TOP"
for run in $(seq 1 "$INGEST_RUNS"); do
  if [ "$SKIP_PEER" != 1 ]; then
    fresh_db pb_peer
    for f in $(ls "$SRC"/orm/migrations/*.sql | sort); do psql -q -v ON_ERROR_STOP=1 -f "$f" "$PG/pb_peer" >/dev/null; done
    # shellcheck disable=SC2046 # peer_env's words are NAME=value pairs
    ingest "peer-postgres#$run" "http://127.0.0.1:$P_PEER_IDX/status" "$peer_marks" "$PEER_TIMEOUT" \
      env -i PATH="$PATH" HOME="$OUT" $(peer_env pb_peer "$P_PEER_API" "$P_PEER_IDX") "$PEER" indexer >>"$RESULTS"
    tail -1 "$RESULTS"
  fi
  for st in $STORES; do
    dsn=$(rg_dsn "$st")
    if [ "$st" = postgres ]; then fresh_db pb_rg; else rm -f "$OUT/pb_rg.db" "$OUT/pb_rg.db-wal" "$OUT/pb_rg.db-shm"; fi
    "$OUT/bin/rollgate" migrate --db "$dsn" >/dev/null
    ingest "rollgate-$st#$run" "http://127.0.0.1:$P_RG/status" "$rg_marks" "$RG_TIMEOUT" \
      "$OUT/bin/rollgate" indexer --db "$dsn" --chain-id "$CHAIN" --vm-type evm --listen "127.0.0.1:$P_RG" \
      --rpc-url "http://127.0.0.1:$P_REPLAY_RG" --rest-url "http://127.0.0.1:$P_REPLAY_RG" \
      --json-rpc-url "http://127.0.0.1:$P_REPLAY_RG" --log-level warn >>"$RESULTS"
    tail -1 "$RESULTS"
  done
done

# A store that did not reach its marks would be measured half-filled: no table from it.
if grep -q '^ingest .* seconds=NA' "$RESULTS" && [ "${ALLOW_PARTIAL:-0}" != 1 ]; then
  echo "peerbench: an ingest run did not reach its marks (above); no API table (ALLOW_PARTIAL=1 measures anyway)" >&2
  exit 1
fi

# --- 3. the API -------------------------------------------------------------------------------
[ "$SKIP_PEER" = 1 ] || for d in pb_peer; do psql -q -c 'VACUUM ANALYZE' "$PG/$d"; done
case " $STORES " in *" postgres "*) psql -q -c 'VACUUM ANALYZE' "$PG/pb_rg" ;; esac
SERVERS=()
start "$OUT/logs/ceiling.log" "$OUT/bin/ceiling" -stack nethttp -listen "127.0.0.1:$P_CEIL"
start "$OUT/logs/ceiling-fasthttp.log" "$OUT/bin/ceiling" -stack fasthttp -listen "127.0.0.1:$P_CEIL_FAST"
wait_http "http://127.0.0.1:$P_CEIL/" 30
wait_http "http://127.0.0.1:$P_CEIL_FAST/" 30
SERVERS+=("ceiling=http://127.0.0.1:$P_CEIL" "ceiling-fasthttp=http://127.0.0.1:$P_CEIL_FAST")
if [ "$SKIP_PEER" != 1 ]; then
  # shellcheck disable=SC2046
  start "$OUT/logs/api_peer.log" env -i PATH="$PATH" HOME="$OUT" $(peer_env pb_peer "$P_PEER_API" "$P_PEER_IDX") \
    DB_IDLE_CONNS="$PEER_IDLE_CONNS" "$PEER" api
  SERVERS+=("peer=http://127.0.0.1:$P_PEER_API")
fi
i=0
for st in $STORES; do
  start "$OUT/logs/api_rollgate-$st.log" "$OUT/bin/rollgate" indexer --mode api --db "$(rg_dsn "$st")" --chain-id "$CHAIN" \
    --vm-type evm --listen "127.0.0.1:$((P_RG + 1 + i))" --log-level warn
  SERVERS+=("rollgate-$st=http://127.0.0.1:$((P_RG + 1 + i))")
  i=$((i + 1))
done
for s in "${SERVERS[@]:2}"; do wait_http "${s#*=}/status" 60; done
first_rg=${SERVERS[${#SERVERS[@]} - 1]}
"$SBS/urls.sh" "${first_rg#*=}" "$OUT/urls" >/dev/null
# The ceiling of a route is a fixed answer of that route's size (its first URL's answer on
# rollgate), so "0.9 of the ceiling" compares like with like.
for r in $ROUTES; do
  # The median size of 21 URLs spread over the route's list (the first is often an empty page).
  n=$(wc -l <"$OUT/urls/$r.txt")
  bytes=$(awk -v n="$n" 'BEGIN { for (i = 0; i < 21; i++) print 1 + int(i * (n - 1) / 20) }' | sort -nu |
    while read -r i; do
      curl -s -o /dev/null -w '%{size_download}\n' "${first_rg#*=}$(sed -n "${i}p" "$OUT/urls/$r.txt")"
    done | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
  echo "/size/$bytes" >"$OUT/urls/ceiling_$r.txt"
  echo "ceiling $r: $bytes bytes (median of the route's sampled answers)"
done
for s in "${SERVERS[@]}"; do echo "server ${s%%=*} ${s#*=}"; done | tee -a "$RESULTS"

# measure NAME URL ROUTE ROUND: one wrk run, one result line
measure() {
  local file=$OUT/urls/$3.txt
  case $1 in ceiling*) file=$OUT/urls/ceiling_$3.txt ;; esac
  wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$SBS/rotate.lua" "$2" -- "$file" >"$OUT/wrk/r$4_$3_$1.txt" 2>&1 || true
  awk -v s="$1" -v r="$3" -v round="$4" -v ld="$(load)" '
    /Requests\/sec/ {rps=$2} $1=="99%" {p99=$2} /Non-2xx/ {bad=$4}
    END {printf "api round=%s route=%s server=%s rps=%s p99=%s non2xx=%d load=%s\n", round, r, s, rps + 0, p99, bad, ld}' \
    "$OUT/wrk/r$4_$3_$1.txt"
}
n=${#SERVERS[@]}
for round in $(seq 1 "$ROUNDS"); do
  echo "-- API round $round $(date -u +%T) load $(load)"
  for r in $ROUTES; do
    for k in $(seq 0 $((n - 1))); do
      s=${SERVERS[$(((k + round - 1) % n))]}
      measure "${s%%=*}" "${s#*=}" "$r" "$round" >>"$RESULTS"
      tail -1 "$RESULTS"
    done
  done
done

# --- 4. tables --------------------------------------------------------------------------------
echo
awk -f "$ROOT/scripts/peerbench/table.awk" "$RESULTS" | tee "$OUT/table.md"
