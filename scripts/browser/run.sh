#!/usr/bin/env bash
# InterwovenKit in Debian's headless Chromium against `rollgate up`, on demand (it needs npm
# and /usr/bin/chromium, so it is not part of the Go tests or CI). It starts `up` with a small
# --retain-blocks, waits until the L1 has pruned past its first block, installs the pinned npm
# packages (npm ci), builds the page, drives the wallet flows (flows.mjs), writes screenshots
# to docs/browser/ and the request log to scripts/browser/out/, and stops everything it started.
#
#   scripts/browser/run.sh            (apt-get install -y chromium first, if missing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$here/out"
retain=${RETAIN_BLOCKS:-60} # 30 s at the default 500 ms interval
mkdir -p "$out"
[ -x /usr/bin/chromium ] || { echo "no /usr/bin/chromium: apt-get install -y chromium" >&2; exit 2; }

tmp=$(mktemp -d)
up_pid=""
cleanup() {
  if [ -n "$up_pid" ]; then kill "$up_pid" 2>/dev/null || true; wait "$up_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

# Built, then run, so that stopping it stops rollgate itself (go run would leave its child).
(cd "$root" && go build -o "$tmp/rollgate" ./cmd/rollgate)
"$tmp/rollgate" up --retain-blocks "$retain" --data-dir "$tmp/data" --log-level warn >"$out/up.out" 2>"$out/up.err" &
up_pid=$!

for _ in $(seq 120); do
  grep -q '^endpoints: ' "$out/up.out" 2>/dev/null && break
  kill -0 "$up_pid" 2>/dev/null || { cat "$out/up.err" >&2; exit 1; }
  sleep 1
done
grep -q '^INTERWOVENKIT' "$out/up.out" || { echo "up printed no INTERWOVENKIT line" >&2; exit 1; }
l1_rpc=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1])); print(e["chains"]["initia-devnet-1"]["rpc"])' "$(sed -n 's/^endpoints: //p' "$out/up.out")")
# Past the pruning window: the kit must confirm its txs on a chain that no longer has height 1.
for _ in $(seq 300); do
  earliest=$(curl -fsS "$l1_rpc/status" | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["sync_info"]["earliest_block_height"])' || echo 0)
  [ "$earliest" -gt 1 ] && break
  sleep 1
done
echo "up is pruned: the L1's earliest block is $earliest"

cd "$here"
# npm ci again only when the lockfile changed since the last install.
[ node_modules/.package-lock.json -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error
npx vite build --logLevel warn
node flows.mjs "$out/up.out" "$out" "$root/docs/browser"
