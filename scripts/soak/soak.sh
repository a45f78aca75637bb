#!/usr/bin/env bash
# soak.sh: run `rollgate up` for a while and watch whether its memory and disk level off.
#
# Usage: scripts/soak/soak.sh DURATION OUTDIR [extra `rollgate up` flags...]
#        scripts/soak/soak.sh --summary OUTDIR/samples.csv   (the table again, e.g. mid-run)
#   DURATION  how long to run, as sleep(1) takes it: 20m, 2h, 90s
#   OUTDIR    where the samples, the log and the data dir go (created; outside the worktree
#             for long runs, e.g. /work/wt/_soak/2h)
#
# It builds the binary once (go build ./cmd/rollgate in ROLLGATE_ROOT, default the checkout
# holding the script, so a copy of the script can run a long soak while the checkout changes;
# the process sampled is rollgate itself, not `go run`), starts `rollgate up` on random ports with its data dir in OUTDIR/data,
# and every SOAK_EVERY seconds (default 30) appends one line to OUTDIR/samples.csv:
#
#   t_s          seconds since start
#   rss_kib      VmRSS from /proc/PID/status
#   heap_inuse   go_memstats_heap_inuse_bytes   (from the router's /metrics: one process,
#   heap_alloc   go_memstats_heap_alloc_bytes    so any component's endpoint reports it all)
#   sys_bytes    go_memstats_sys_bytes
#   goroutines   go_goroutines
#   disk_bytes   du -sb of the data dir (the indexers' SQLite stores, their WAL, the tracker's)
#   load1        the machine's load average over a minute
#   anon_kib     RssAnon from /proc/PID/status: the resident memory no file backs
#   go_res_bytes what of it is Go's own: heap_sys - heap_released + stack, GC, span and other
#                sys bytes; anon_kib*1024 - go_res_bytes is then what lives outside the Go
#                runtime (SQLite's page caches, in modernc's allocator)
#
# When SOAK_PPROF is set (host:port), `up` runs with --pprof there and the script saves heap
# profiles OUTDIR/heap-<t>.pb.gz at the first sample after PROFILE_AT seconds (default 300: the
# devnet's 600-block window is full by then) and at the end, for
# `go tool pprof -diff_base heap-A.pb.gz heap-B.pb.gz`. OUTDIR/files.txt lists the data dir's
# files with their sizes at the end (which store grows).
#
# At the end it prints, for RSS, Go heap in use and disk, the least-squares slope (per minute)
# over the first hour and over the last hour (over the first and last half when the run is
# shorter than two hours) and the ratio last/first. Issue 20 asks for the last hour's slope to
# be at most 5 % of the first hour's; the first window starts at WARMUP_S (default 0), so it
# holds the filling of the devnet's and the indexers' windows, which is what must level off.
# The absolute slopes matter as much as the ratio: they are printed in MiB per minute.
#
# The machine's load average is printed with each summary, since a loaded machine slows block
# production and ingestion alike.
set -euo pipefail

# Slopes: least squares of each column against t over a window, per minute.
summarize() { # CSV: prints the slopes table
	awk -F, -v warm="${WARMUP_S:-0}" '
NR == 1 { next }
{ total = $1; t[NR] = $1; rss[NR] = $2 / 1024; heap[NR] = $3 / 1048576; disk[NR] = $7 / 1048576; load[NR] = $8; n = NR }
function slope(col, lo, hi,   i, k, sx, sy, sxx, sxy, x, y) {
	k = 0; sx = sy = sxx = sxy = 0
	for (i = 2; i <= n; i++) {
		if (t[i] < lo || t[i] > hi) continue
		x = t[i] / 60
		if (col == "rss") y = rss[i]; else if (col == "heap") y = heap[i]; else y = disk[i]
		k++; sx += x; sy += y; sxx += x * x; sxy += x * y
	}
	if (k < 3 || k * sxx == sx * sx) return "nan"
	return (k * sxy - sx * sy) / (k * sxx - sx * sx)
}
END {
	if (total >= 7200) { a0 = warm; a1 = 3600; b0 = total - 3600; b1 = total; what = "first hour / last hour" }
	else { a0 = warm; a1 = total / 2; b0 = total / 2; b1 = total; what = "first half / last half" }
	if (a1 <= a0) a0 = 0
	printf "run %ds, %d samples; windows (%s): [%d,%d] s and [%d,%d] s\n", total, n - 1, what, a0, a1, b0, b1
	printf "%-10s %10s %10s %12s %12s %8s\n", "series", "at start", "at end", "first MiB/min", "last MiB/min", "ratio"
	split("rss heap disk", cols, " ")
	for (c = 1; c <= 3; c++) {
		col = cols[c]
		s1 = slope(col, a0, a1); s2 = slope(col, b0, b1)
		if (col == "rss") { v0 = rss[2]; v1 = rss[n] } else if (col == "heap") { v0 = heap[2]; v1 = heap[n] } else { v0 = disk[2]; v1 = disk[n] }
		r = (s1 == "nan" || s2 == "nan" || s1 == 0) ? "n/a" : sprintf("%.1f%%", 100 * s2 / s1)
		printf "%-10s %9.1fM %9.1fM %12.3f %12.3f %8s\n", col, v0, v1, s1, s2, r
	}
	lsum = 0; for (i = 2; i <= n; i++) lsum += load[i]
	printf "load average (1 min) over the run: mean %.2f\n", lsum / (n - 1)
}' "$1"
}

if [[ ${1:-} == --summary ]]; then
	summarize "${2:?samples.csv}"
	exit
fi

dur=${1:?duration, e.g. 20m}
out=${2:?output directory}
shift 2
every=${SOAK_EVERY:-30}
warm=${WARMUP_S:-0}
profileAt=${PROFILE_AT:-300}
root=${ROLLGATE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}

mkdir -p "$out"
out=$(cd "$out" && pwd)
bin=$out/rollgate
(cd "$root" && go build -o "$bin" ./cmd/rollgate)
rm -rf "$out/data"

extra=("$@")
if [[ -n ${SOAK_PPROF:-} ]]; then
	extra+=(--pprof "$SOAK_PPROF")
fi
"$bin" up --data-dir "$out/data" --port-base 0 --indexer-port-base 0 --router-port 0 "${extra[@]}" \
	>"$out/up.log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
trap cleanup EXIT

for _ in $(seq 1 120); do
	[[ -s $out/data/endpoints.json ]] && break
	kill -0 "$pid" || { echo "rollgate up exited; see $out/up.log" >&2; exit 1; }
	sleep 1
done
# The router's registry holds the Go and process collectors; a rollup's URL now serves its
# chain's own registry (the fleet's), which has none.
metrics=$(jq -r '.router' "$out/data/endpoints.json")/metrics
echo "pid $pid, metrics $metrics, samples $out/samples.csv, load $(cut -d' ' -f1-3 /proc/loadavg)"

secs() { # a sleep(1) duration in seconds
	local d=$1
	case $d in
	*h) echo $((${d%h} * 3600)) ;;
	*m) echo $((${d%m} * 60)) ;;
	*s) echo "${d%s}" ;;
	*) echo "$d" ;;
	esac
}
total=$(secs "$dur")

metric() { awk -v m="$1" '$1 == m { printf "%.0f", $2; exit }' <<<"$2"; }

echo "t_s,rss_kib,heap_inuse,heap_alloc,sys_bytes,goroutines,disk_bytes,load1,anon_kib,go_res_bytes" >"$out/samples.csv"
start=$(date +%s)
profiled=0
while :; do
	now=$(date +%s)
	t=$((now - start))
	kill -0 "$pid" || { echo "rollgate up exited at t=${t}s; see $out/up.log" >&2; exit 1; }
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
	m=$(curl -fsS --max-time 10 "$metrics" || true)
	anon=$(awk '/^RssAnon:/ { print $2 }' "/proc/$pid/status")
	gores=$(awk '$1 ~ /^go_memstats_(heap_sys|stack_sys|gc_sys|mspan_sys|other_sys)_bytes$/ { v += $2 }
		$1 == "go_memstats_heap_released_bytes" { v -= $2 } END { if (NR) printf "%.0f", v }' <<<"$m")
	disk=$(du -sb "$out/data" | cut -f1)
	echo "$t,$rss,$(metric go_memstats_heap_inuse_bytes "$m"),$(metric go_memstats_heap_alloc_bytes "$m"),$(metric go_memstats_sys_bytes "$m"),$(metric go_goroutines "$m"),$disk,$(cut -d' ' -f1 /proc/loadavg),$anon,$gores" >>"$out/samples.csv"
	if [[ -n ${SOAK_PPROF:-} && $profiled == 0 && $t -ge $profileAt ]]; then
		curl -fsS --max-time 60 "http://$SOAK_PPROF/debug/pprof/heap" -o "$out/heap-$t.pb.gz" || true
		profiled=1
	fi
	((t >= total)) && break
	sleep $((every - ($(date +%s) - now)))
done
if [[ -n ${SOAK_PPROF:-} ]]; then
	curl -fsS --max-time 60 "http://$SOAK_PPROF/debug/pprof/heap" -o "$out/heap-$t.pb.gz" || true
fi
ls -l "$out/data" >"$out/files.txt"
cleanup
trap - EXIT

summarize "$out/samples.csv" | tee "$out/summary.txt"
