# bank.py INDEXER RPC REST H1 H2 ADDR...: each address's transfer CSV over the block times of
# heights H1..H2 (read from the node's headers), parsed by Python's csv module and summed per
# denom (fungible rows: no token_id, not cw20), against the chain's bank balances at H1-1 and H2
# (Cosmos REST with x-cosmos-block-height). For a chain whose tokens are bank coins (a Wasm
# rollup); EVM rollups: evm.py. Exits 1 on any mismatch. README.md has an example.
import csv, io, json, sys, urllib.parse, urllib.request
idx, rpc, rest, h1, h2 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    with urllib.request.urlopen(req) as r:
        return r.read().decode()
def btime(h):
    # The header's time from CometBFT RPC: the indexer's block item keeps the peer's
    # second-precision timestamp, which would cut a sub-second block off the range.
    b = json.loads(get(f"{rpc}/block?height={h}"))
    return b["result"]["block"]["header"]["time"]
def balances(addr, h):
    out, key = {}, ""
    while True:
        q = f"{rest}/cosmos/bank/v1beta1/balances/{addr}?pagination.limit=100" + (f"&pagination.key={urllib.parse.quote(key)}" if key else "")
        j = json.loads(get(q, {"x-cosmos-block-height": str(h)}))
        for c in j["balances"]:
            out[c["denom"].lower()] = int(c["amount"])
        key = (j.get("pagination") or {}).get("next_key") or ""
        if not key:
            return out
start, end = btime(h1), btime(h2)
total_rows, bad = 0, 0
for addr in sys.argv[6:]:
    body = get(f"{idx}/indexer/transfer/v1/transfers/by_account/{addr}?format=csv&start_time={urllib.parse.quote(start)}&end_time={urllib.parse.quote(end)}")
    rows = list(csv.DictReader(io.StringIO(body)))
    got = {}
    for r in rows:
        if r["token_id"] or r["kind"] == "cw20":
            continue
        got[r["denom"].lower()] = got.get(r["denom"].lower(), 0) + int(r["delta"])
    b0, b1 = balances(addr, h1 - 1), balances(addr, h2)
    want = {d: b1.get(d, 0) - b0.get(d, 0) for d in set(b0) | set(b1)}
    keys = {d for d in set(got) | set(want) if got.get(d, 0) or want.get(d, 0)}
    ok = all(got.get(d, 0) == want.get(d, 0) for d in keys)
    bad += not ok
    total_rows += len(rows)
    print(f"{addr} rows={len(rows)} {'OK' if ok else 'MISMATCH'} " + " ".join(f"{d}:csv={got.get(d,0)},bank={want.get(d,0)}" for d in sorted(keys)))
print(f"heights {h1}..{h2} ({start} .. {end}): {len(sys.argv)-6} accounts, {total_rows} CSV rows, {bad} mismatches")
sys.exit(1 if bad else 0)
