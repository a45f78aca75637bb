# table.awk — peerbench.sh's results.txt to markdown: ingestion (seconds to every mark, CPU
# seconds, rollytics over rollgate) and the API per route (median req/s of the rounds, worst
# p99, rollgate over rollytics and over the ceilings measured in the same rounds: "ceiling" is
# net/http's, "ceiling-fasthttp" fasthttp's). Every ratio is of
# two figures of this one run; rollytics is labelled "peer" ("peer-postgres" for its
# ingestion), as peerbench.sh names it. Usage: awk -f table.awk results.txt
function ms(s) {
  if (s ~ /us$/) return substr(s, 1, length(s) - 2) / 1000
  if (s ~ /ms$/) return substr(s, 1, length(s) - 2) + 0
  if (s ~ /s$/) return substr(s, 1, length(s) - 1) * 1000
  return -1
}
function median(list,   n, v, a, b, t) {
  n = split(list, v, " ")
  for (a = 1; a <= n; a++) v[a] += 0
  for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (v[b] < v[a]) { t = v[a]; v[a] = v[b]; v[b] = t }
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function kv(   i, p) { delete f; for (i = 2; i <= NF; i++) if (split($i, p, "=") == 2) f[p[1]] = p[2] }
/^ingest / {
  kv(); name = $2; sub(/#.*/, "", name)
  if (!(name in isecs)) iorder[++ni] = name
  if (f["seconds"] != "NA") { isecs[name] = isecs[name] " " f["seconds"]; icpu[name] = icpu[name] " " f["cpu"] }
  if (f["top"] != "" && f["top"] != "NA") itop[name] = itop[name] " " f["top"]
  else ifail[name]++
}
/^api / {
  kv(); r = f["route"]; s = f["server"]
  if (!(r in seenr)) { seenr[r] = 1; rorder[++nr] = r }
  if (!(s in seens)) { seens[s] = 1; sorder[++ns] = s }
  rps[r, s] = rps[r, s] " " f["rps"]
  p = ms(f["p99"]); if (p > worst[r, s]) worst[r, s] = p
  if (f["non2xx"] + 0 > 0) bad[r, s] += f["non2xx"]
}
END {
  if (ni) {
    print "| ingestion (busy capture, every extension on) | to every mark, s (runs) | peer ÷ this | height at the top, s | peer ÷ this | CPU s |"
    print "|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ni; i++) {
      n = iorder[i]
      if (isecs[n] == "") { printf "| %s | did not reach its marks | | |\n", n; continue }
      sec = median(isecs[n]); pk = "peer-postgres"
      ratio = (n != pk && isecs[pk] != "") ? sprintf("×%.1f", median(isecs[pk]) / sec) : ""
      top = (itop[n] != "") ? median(itop[n]) : 0
      tratio = (n != pk && itop[pk] != "" && top > 0) ? sprintf("×%.1f", median(itop[pk]) / top) : ""
      tcell = "–"; if (top > 0) tcell = sprintf("%.2f", top)
      printf "| %s | %.2f (%s) | %s | %s | %s | %.2f |\n", n, sec, substr(isecs[n], 2), ratio, tcell, tratio, median(icpu[n])
    }
    print ""
  }
  printf "| route |"; sep = "|---|"
  for (j = 1; j <= ns; j++) { printf " %s |", sorder[j]; sep = sep "---:|" }
  print ""; print sep
  for (i = 1; i <= nr; i++) {
    r = rorder[i]; printf "| %s |", r
    ceil = ((r, "ceiling") in rps) ? median(rps[r, "ceiling"]) : 0
    fceil = ((r, "ceiling-fasthttp") in rps) ? median(rps[r, "ceiling-fasthttp"]) : 0
    peer = ((r, "peer") in rps) ? median(rps[r, "peer"]) : 0
    for (j = 1; j <= ns; j++) {
      s = sorder[j]
      if (!((r, s) in rps)) { printf " – |"; continue }
      m = median(rps[r, s]); cell = sprintf("%.0f", m)
      if (s ~ /^rollgate/ && peer > 0) cell = cell sprintf(" (×%.2f peer)", m / peer)
      if (s ~ /^rollgate/ && ceil > 0) cell = cell sprintf(" (%.2f of ceiling)", m / ceil)
      if (s ~ /^rollgate/ && fceil > 0) cell = cell sprintf(" (%.2f of fasthttp's)", m / fceil)
      if (s !~ /^ceiling/) cell = cell sprintf(", p99 ≤ %.1f ms", worst[r, s])
      if ((r, s) in bad) cell = cell sprintf(", %d non-2xx!", bad[r, s])
      printf " %s |", cell
    }
    print ""
  }
  print ""
  print "req/s: median of the rounds; p99: the worst round. Ratios are of this run's figures only."
}
