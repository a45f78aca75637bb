# summarize.awk — run.sh / series.sh output to one line per run and route: the rounds' req/s,
# their median, the median over tuned rollytics v1.0.55 (its req/s of an earlier day on another
# host, docs/benchmarks/archive-2026.md; the repeated URL against its absolute target, 26,000 req/s) and the worst p99 in ms. With run.sh's mean latency, also the
# largest number of requests in flight by Little's law (req/s × mean): wrk keeps 16 connections
# busy, so a figure well above 16 means wrk's latency statistics of that round are not
# consistent with its own request count, marked "!".
# Usage: awk -f summarize.awk series.out
BEGIN {
  peer["txs"] = 610; peer["byacct"] = 458; peer["byheight"] = 390; peer["tx"] = 1660
  peer["blocks"] = 3433; peer["block"] = 7587; peer["blockcur"] = 3459; peer["same"] = 26000
}
function ms(s) {
  if (s ~ /us$/) return substr(s, 1, length(s) - 2) / 1000
  if (s ~ /ms$/) return substr(s, 1, length(s) - 2) + 0
  return substr(s, 1, length(s) - 1) * 1000
}
/^== / { run = $2 " " $3 }
/^ceiling/ { print }
/^round=/ {
  for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
  k = run SUBSEP f["route"]
  if (!(k in n)) order[++nk] = k
  rps[k, ++n[k]] = f["rps"]
  if (ms(f["p99"]) > worst[k]) worst[k] = ms(f["p99"])
  if ("avg" in f && f["rps"] * ms(f["avg"]) / 1000 > inflight[k]) inflight[k] = f["rps"] * ms(f["avg"]) / 1000
  delete f
}
END {
  for (j = 1; j <= nk; j++) {
    k = order[j]; split(k, part, SUBSEP); m = n[k]
    for (a = 1; a <= m; a++) v[a] = rps[k, a] + 0
    for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[b] < v[a]) { t = v[a]; v[a] = v[b]; v[b] = t }
    line = ""
    for (a = 1; a <= m; a++) line = line (a > 1 ? " / " : "") sprintf("%.0f", rps[k, a])
    med = v[int((m + 1) / 2)]
    printf "%s %-9s %s -> %.0f (x%.2f) p99<=%.1fms", part[1], part[2], line, med, med / peer[part[2]], worst[k]
    if (k in inflight) printf " inflight<=%.1f%s", inflight[k], (inflight[k] > 17 ? "!" : "")
    printf "\n"
  }
}
