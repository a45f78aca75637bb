#!/usr/bin/env bash
# urls.sh BASE_URL OUT_DIR — writes one file of request paths per measured route, read from a
# running indexer API (so it works on either backend): every tx hash, every tx height, every
# message sender, a cursor for every tx and block. Lists are asked at pagination.limit=20.
set -euo pipefail
base=${1:?base URL, e.g. http://127.0.0.1:8080} out=${2:?output directory}
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
key=""
while :; do
  page=$(curl -sf "$base/indexer/tx/v1/txs?pagination.limit=1000&pagination.count_total=false${key:+&pagination.key=$key}")
  jq -r '.txs[] | [.txhash, .height] | @tsv' <<<"$page" >>"$tmp/txs"
  jq -r '.txs[].tx.body.messages[] | (.sender // .from_address // .signer // empty)' <<<"$page" >>"$tmp/senders"
  key=$(jq -r '.pagination.next_key // empty | @uri' <<<"$page")
  [ -n "$key" ] || break
done
head=$(curl -sf "$base/indexer/block/v1/blocks?pagination.limit=1" | jq -r '.blocks[0].height')
ntx=$(wc -l <"$tmp/txs")
[ "$ntx" -gt 0 ] || { echo "urls.sh: the store holds no txs" >&2; exit 1; }
cut -f1 "$tmp/txs" | sed 's|^|/indexer/tx/v1/txs/|' >"$out/tx.txt"
cut -f2 "$tmp/txs" | sort -un | sed 's|^\(.*\)$|/indexer/tx/v1/txs/by_height/\1?pagination.limit=20|' >"$out/byheight.txt"
sort -u "$tmp/senders" | sed 's|^\(.*\)$|/indexer/tx/v1/txs/by_account/\1?pagination.limit=20|' >"$out/byacct.txt"
seq 1 "$ntx" | jq -r '{sequence: .} | tojson | @base64 | @uri | "/indexer/tx/v1/txs?pagination.key=\(.)&pagination.limit=20"' >"$out/txs.txt"
for h in $(seq 1 "$head"); do echo "/indexer/block/v1/blocks/$h"; done >"$out/block.txt"
seq 1 "$head" | jq -r '{height: .} | tojson | @base64 | @uri | "/indexer/block/v1/blocks?pagination.key=\(.)&pagination.limit=20"' >"$out/blockcur.txt"
for o in $(seq 0 99); do echo "/indexer/block/v1/blocks?pagination.offset=$o&pagination.limit=20"; done >"$out/blocks.txt"
head -1 "$out/tx.txt" >"$out/same.txt"
wc -l "$out"/*.txt
